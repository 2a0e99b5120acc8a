"""A sweep's journal: one JSON line per finished run, written as it finishes, read back to resume.

The first line names the sweep ({"sweep": its arguments}); every other line is one RunRecord. The records of
a scene are written together in one write and flushed to disk, so a kill at any moment loses only the scenes
in flight (and at worst leaves a torn last line, which resuming drops).
"""

from __future__ import annotations

import dataclasses
import json
import os
from pathlib import Path

from percviz.core.errors import DataError
from percviz.core.experiments.sweep import RunRecord, SweepSpec


def spec_header(spec: SweepSpec) -> dict:
    """What identifies a sweep: every argument that changes its runs (the algorithms, family, maps, seed, …)."""
    d = dataclasses.asdict(spec)
    d.update(kernel=spec.kernel_spec, features=spec.features_spec)
    return json.loads(json.dumps(d))  # tuples as lists, as read back from the file


def record_line(record: RunRecord) -> str:
    return json.dumps(record.as_dict(), allow_nan=False)


def _record(d: dict) -> RunRecord:
    names = {f.name for f in dataclasses.fields(RunRecord)}
    return RunRecord(**{k: tuple(v) if isinstance(v, list) else v for k, v in d.items() if k in names})


def read(path: Path, spec: SweepSpec) -> list[RunRecord]:
    """The complete scenes already in `path` (a missing or empty file: none); refuses another sweep's file."""
    path = Path(path)
    if not path.exists() or path.stat().st_size == 0:
        return []
    lines = path.read_text(encoding="utf-8").split("\n")
    try:
        head = json.loads(lines[0])["sweep"]
    except (ValueError, KeyError, TypeError):
        raise DataError(f"{path}: not a sweep journal (its first line should name the sweep); "
                        "give a new file to --out") from None
    want = spec_header(spec)
    if head != want:
        diff = ", ".join(sorted(k for k in set(want) | set(head) if head.get(k) != want.get(k)))
        raise DataError(f"{path} holds another sweep (different {diff}); resume it with its own arguments "
                        "or give a new file to --out")
    records = []
    for number, line in enumerate(lines[1:], 2):
        if not line.strip():
            continue
        try:
            records.append(_record(json.loads(line)))
        except (ValueError, TypeError):
            if number == len(lines):
                break  # the torn last line of a killed sweep
            raise DataError(f"{path}, line {number}: not a run record; give a new file to --out") from None
    per_scene: dict[int, set] = {}
    for r in records:
        per_scene.setdefault(r.scene, set()).add(r.algorithm)
    full = {s for s, algos in per_scene.items() if algos >= set(spec.algorithms)}
    return [r for r in records if r.scene in full]


class Journal:
    """The open journal of a sweep: start() writes the header and the kept records, add() appends one scene."""

    def __init__(self, path: Path, spec: SweepSpec):
        self.path, self.spec = Path(path), spec
        self._fh = None

    def start(self, kept: list[RunRecord]) -> None:
        """Rewrite the file with the header and the records kept (drops a torn line), then keep it open."""
        tmp = self.path.with_name(f".{self.path.name}.{os.getpid()}.tmp")
        with open(tmp, "w", encoding="utf-8") as fh:
            fh.write(json.dumps({"sweep": spec_header(self.spec)}) + "\n")
            fh.writelines(record_line(r) + "\n" for r in kept)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, self.path)
        self._fh = open(self.path, "a", encoding="utf-8")

    def add(self, records: list[RunRecord]) -> None:
        """Append one finished scene's records in one write, on disk before this returns."""
        self._fh.write("".join(record_line(r) + "\n" for r in records))
        self._fh.flush()
        os.fsync(self._fh.fileno())

    def close(self) -> None:
        if self._fh is not None:
            self._fh.close()
            self._fh = None
