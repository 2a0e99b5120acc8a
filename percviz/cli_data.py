"""Reading DATA for the command line and the window: a preset, a table or a shipped scene, with the flags applied.

cli.py and app/launch.py both use it, so the window's launcher never imports the command line itself.
"""

from __future__ import annotations

import argparse
import os
from pathlib import Path
from typing import Sequence

from percviz.cli_common import UsageError
from percviz.core.errors import PresetError


def parse_params(items: Sequence[str]) -> dict[str, str]:
    """['eps=1e-3', 'gamma=2'] → {'eps': '1e-3', 'gamma': '2'} (values stay text; the solver types them)."""
    out: dict[str, str] = {}
    for item in items:
        key, eq, value = item.partition("=")
        if not eq or not key.strip() or not value.strip():
            raise UsageError(f"--param expects KEY=VALUE (e.g. --param eps=1e-3); got '{item}'")
        out[key.strip()] = value.strip()
    return out


def resolve_data(arg: str) -> Path:
    """A path as given, or the file of a shipped scene named `arg` (with or without .json)."""
    if not arg.strip():
        raise UsageError("DATA is empty; give a preset .json, a CSV, .npy or .npz file, or a shipped scene's name "
                         "(percviz list)")
    path = Path(arg)
    if path.is_symlink() and not path.exists():
        raise UsageError(f"{arg} is a symbolic link that leads nowhere (a loop or a missing target); "
                         "give the file itself")
    if path.exists():
        if path.is_dir():
            raise UsageError(f"{arg} is a folder; give a preset .json or a CSV file")
        return path
    from percviz.core.presets import shipped_presets

    shipped = {s.name: s.path for s in shipped_presets()}
    name = arg[:-5] if arg.endswith(".json") else arg
    if os.sep not in arg and name in shipped:
        return shipped[name]
    hint = f"; shipped scenes: {', '.join(shipped)}" if os.sep not in arg and "." not in arg else ""
    raise UsageError(f"{arg}: no such file{hint}")


def load_with_overrides(args: argparse.Namespace, *, need_algorithm: bool):
    """Load DATA and apply --algorithm/--kernel/--features/--param/--max-iter (validated)."""

    path = resolve_data(args.data)
    preset = _load_scene_or_table(path, getattr(args, "label_column", None))
    is_csv = path.suffix.lower() != ".json" and not _looks_like_json(path)
    algorithm = getattr(args, "algorithm", None)
    if need_algorithm and is_csv and algorithm is None:
        from percviz.core.solvers import load_all

        raise UsageError(
            f"give --algorithm NAME for CSV data (one of: {', '.join(sorted(load_all()))})"
        )
    try:
        return preset.with_overrides(
            algorithm=algorithm,
            kernel=getattr(args, "kernel", None),
            features=getattr(args, "features", None),
            params=parse_params(getattr(args, "params", []) or []),
            max_iter=getattr(args, "max_iter", None),
            source=_FROM_FLAGS,
        )
    except PresetError as e:
        if e.path != _FROM_FLAGS:
            raise
        if not _is_flag_field(e.field):  # about the data itself (e.g. a class index), not a flag
            raise PresetError(path, e.field, e.problem) from None
        raise UsageError(f"{_flag_of(e.field)}: {e.problem}") from None


_FROM_FLAGS = "<command line>"


def _load_scene_or_table(path: Path, label_column):
    """A preset or x,y,label CSV as before; a CSV of other widths, --label-column, .npy or .npz as a table in R^d."""
    from percviz.core.presets import Preset, check_file, load_scene
    from percviz.core.tables import NUMPY_SUFFIXES, csv_column_count, read_table

    check_file(path)  # before any peek at the content: a FIFO would block, /dev/zero never end
    suffix = path.suffix.lower()
    if suffix in NUMPY_SUFFIXES:
        return Preset(read_table(path, label_column), title=path.stem)
    if suffix == ".json" or _looks_like_json(path):
        if label_column is not None:
            raise UsageError("--label-column applies to CSV and .npy files, not to a preset")
        return load_scene(path)
    if label_column is None and csv_column_count(path) in (3, None):
        return load_scene(path)
    return Preset(read_table(path, label_column), title=path.stem)
def _is_flag_field(field: str | None) -> bool:
    """True when a preset field is set by a command-line flag (--algorithm, --param, --max-iter, …)."""
    return bool(field) and (field.startswith("params.") or field in ("algorithm", "kernel", "features", "max_iter"))


def _flag_of(field: str | None) -> str:
    """The command-line flag that set a preset field ('params.eps' → '--param eps')."""
    if field and field.startswith("params."):
        return f"--param {field[len('params.'):]}"
    return {"max_iter": "--max-iter"}.get(field or "", f"--{field}")


def _looks_like_json(path: Path) -> bool:
    from percviz.core.errors import PresetError

    try:
        with open(path, "rb") as fh:
            return fh.read(4096).lstrip()[:1] == b"{"
    except (FileNotFoundError, PermissionError, IsADirectoryError):
        raise
    except OSError as e:  # /proc/self/mem: a "regular" file whose read fails with EIO
        raise PresetError(path, None, f"cannot be read ({e.strerror or e}); is it a real file?") from None


# ---------------------------------------------------------------------------------------------------
# percviz solve
# ---------------------------------------------------------------------------------------------------
