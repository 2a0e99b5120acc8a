"""Autosave of the unsaved scene, and finding what a crashed session left behind.

Each running window owns `autosave-<id>.json` (the scene), `autosave-<id>.meta.json` (where it came
from, when) and holds `autosave-<id>.lock` (a QLockFile) while it lives. A clean exit deletes all
three. At the next start, an autosave whose lock can be taken belonged to a process that died
(QLockFile treats the lock of a process that is no longer running as stale): it is offered back.

The folder is `PERCVIZ_DATA_DIR` if set (tests/conftest.py sets a temporary one), else
QStandardPaths.AppDataLocation. `PERCVIZ_AUTOSAVE_MS` overrides the interval (default 5 s).

The timer's write runs on a background `Task` (percviz.app.run.background): the UI thread only takes the scene's
Preset, which is immutable (its PointSet's arrays are read-only), and the thread builds the text in chunks
(`preset_text`, identical to presets.preset_to_json but checked by round trip instead of a whole re-parse, so the
GIL is never held long) and writes it with the same temp file + rename. At 100,000 points the whole-document
way took 0.85–2.8 s on the UI thread per edit. `save_now()` still writes on the calling thread.
"""

from __future__ import annotations

import json
import os
import time
import uuid
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

import numpy as np
from PySide6.QtCore import QCoreApplication, QLockFile, QObject, QStandardPaths, QTimer

from percviz.app.run.background import Task
from percviz.app.prefs import env_dir
from percviz.app.timing import DEFAULT_INTERVAL_MS, STALE_TMP_S

DATA_ENV = "PERCVIZ_DATA_DIR"
INTERVAL_ENV = "PERCVIZ_AUTOSAVE_MS"
#: Autosaves of dead sessions kept to offer back (newest first); older ones are deleted at a start. A script or
#: batch run killed 81 times left 81 of them, none of which could ever be offered.
MAX_ORPHANS = 5


def data_dir() -> Path:
    """The user's data folder for percviz (created if needed)."""
    folder = env_dir(DATA_ENV)
    if folder is None:
        app = QCoreApplication.instance()
        named = app is not None and app.organizationName() and app.applicationName()
        base = QStandardPaths.writableLocation(
            QStandardPaths.AppDataLocation if named else QStandardPaths.GenericDataLocation
        )
        folder = base if named else os.path.join(base, "percviz")
    path = Path(folder) / "autosave"
    path.mkdir(parents=True, exist_ok=True)
    return path


def interval_ms() -> int:
    try:
        return max(50, int(os.environ.get(INTERVAL_ENV, DEFAULT_INTERVAL_MS)))
    except ValueError:
        return DEFAULT_INTERVAL_MS


@dataclass
class Orphan:
    """An autosave left by a session that did not exit cleanly; `claim` holds its lock until discarded."""

    path: Path
    source: str | None
    saved_at: float
    title: str
    claim: QLockFile

    def discard(self) -> None:
        """Delete the autosave and its companions (after it was restored or declined)."""
        for p in _companions(self.path):
            _unlink(p)
        self.claim.unlock()




def _owner_dead(lock_path: Path) -> bool:
    """True when the session that owned this lock is gone (the lock is taken, then released and removed)."""
    lock = QLockFile(str(lock_path))
    lock.setStaleLockTime(0)
    if not lock.tryLock(0):
        return False
    lock.unlock()
    return True


def clean_leftovers(folder: Path | None = None) -> int:
    """Delete what killed sessions left without a scene to offer: stale locks, orphan .meta.json, old .tmp files.

    An autosave (.json) of a dead session is kept: `find_orphans` offers it back. Returns the files removed."""
    folder = folder or data_dir()
    before = sum(1 for _ in folder.iterdir())
    for meta in folder.glob("autosave-*.meta.json"):
        scene = meta.with_name(meta.name[: -len(".meta.json")] + ".json")
        if not scene.exists() and _owner_dead(scene.with_suffix(".lock")):  # taking and releasing removes it
            _unlink(meta)
    for lock in folder.glob("autosave-*.lock"):
        if not lock.with_suffix(".json").exists() and _owner_dead(lock):
            _unlink(lock)
    now = time.time()
    for tmp in folder.glob("*.tmp"):
        try:
            old = now - tmp.stat().st_mtime > STALE_TMP_S
        except OSError:
            continue
        if old:
            _unlink(tmp)
    return before - sum(1 for _ in folder.iterdir())


def find_orphans(folder: Path | None = None) -> list[Orphan]:
    """Autosaves of sessions that died, newest first (each one is claimed: locked by this process).

    Leftovers with nothing to offer are deleted first (`clean_leftovers`)."""
    folder = folder or data_dir()
    clean_leftovers(folder)
    found: list[Orphan] = []
    for path in folder.glob("autosave-*.json"):
        if path.name.endswith(".meta.json"):
            continue
        lock = QLockFile(str(path.with_suffix(".lock")))
        lock.setStaleLockTime(0)  # only a dead owner makes it stale, never its age
        if not lock.tryLock(0):
            continue  # another live window owns it
        meta = _read_meta(path)
        found.append(Orphan(path, meta.get("source"), float(meta.get("time", path.stat().st_mtime)),
                            str(meta.get("title", path.stem)), lock))
    found.sort(key=lambda o: o.saved_at, reverse=True)
    for old in found[MAX_ORPHANS:]:  # only the newest few are ever offered: the rest would pile up forever
        old.discard()
    return found[:MAX_ORPHANS]


def prune_orphans(folder: Path | None = None) -> int:
    """Without a screen to offer autosaves back: delete leftovers and all but the newest MAX_ORPHANS orphans.

    Returns how many orphans are kept for a later start that can ask (each one's lock released again)."""
    kept = find_orphans(folder)
    for o in kept:
        o.claim.unlock()
    return len(kept)


class Autosaver(QObject):
    """Writes the scene every few seconds while it has unsaved changes.

    `snapshot()` returns the preset to save, or None when the scene has nothing unsaved (then the
    autosave is deleted). Call `mark_dirty()` after every edit; `discard()` after a save.
    """

    def __init__(self, snapshot: Callable[[], object | None], parent: QObject | None = None,
                 folder: Path | None = None, interval: int | None = None,
                 source: Callable[[], str | None] = lambda: None):
        super().__init__(parent)
        self._snapshot, self._source = snapshot, source
        self.folder = folder or data_dir()
        ident = f"{os.getpid()}-{uuid.uuid4().hex[:8]}"
        self.path = self.folder / f"autosave-{ident}.json"
        self._lock = QLockFile(str(self.path.with_suffix(".lock")))
        self._lock.setStaleLockTime(0)
        self._lock.tryLock(0)
        self._dirty = False
        self.last_error = ""
        self._task: Task | None = None  # the background write in flight
        self._discards = 0  # discard() count: a write that started before a discard is deleted when it lands
        self.timer = QTimer(self)
        self.timer.setInterval(interval or interval_ms())
        self.timer.timeout.connect(self.save_in_background)
        self.timer.start()

    def mark_dirty(self, *_args) -> None:
        self._dirty = True

    @property
    def writing(self) -> bool:
        """A background write is in flight."""
        return self._task is not None and self._task.running

    def _take(self):
        """The (preset, meta) to write, or None (nothing unsaved: the autosave is deleted)."""
        if not self._dirty:
            return None
        self._dirty = False
        preset = self._snapshot()
        if preset is None:
            self.discard()
            return None
        meta = {"source": self._source(), "time": time.time(), "title": preset.title,
                "pid": os.getpid()}
        return preset, meta

    def save_now(self) -> bool:
        """Write the autosave now, on this thread, if something changed since the last one; True if written."""
        self._wait_for_write()
        job = self._take()
        if job is None:
            return False
        return self._written(write_autosave(self.path, *job))

    def save_in_background(self) -> None:
        """The timer's write: the scene's immutable Preset is taken here, its text built and written on a Task."""
        if self.writing:
            return  # still dirty: the next tick writes what changed since
        job = self._take()
        if job is None:
            return
        discards = self._discards
        self._task = Task(self, name="percviz-autosave")
        self._task.done.connect(lambda error: self._landed(error, discards))
        self._task.failed.connect(lambda text: self._landed(text, discards))
        self._task.start(write_autosave, self.path, *job)

    def _landed(self, error: str, discards: int) -> None:
        self._task = None
        if discards != self._discards:  # discarded while it was being written: it must not stay behind
            self.discard()
        else:
            self._written(error)

    def _written(self, error: str) -> bool:
        self.last_error = error
        if error:  # a full disk must not break editing; retry at the next tick
            self._dirty = True
        return not error

    def _wait_for_write(self) -> None:
        task = self._task
        if task is not None:
            task.wait()
            task.deliver()  # runs _landed now
            self._task = None

    def discard(self) -> None:
        """Delete this session's autosave (the scene was saved, or has no unsaved changes)."""
        self._dirty = False
        self._discards += 1
        _unlink(self.path)
        _unlink(self.path.with_suffix(".meta.json"))

    def close(self) -> None:
        """Clean exit: stop, let a write in flight land, delete the autosave, release the lock."""
        self.timer.stop()
        self._wait_for_write()
        self.discard()
        self._lock.unlock()


#: Points per chunk of `preset_text` (a few milliseconds of json per chunk: the GIL is released in between).
POINT_CHUNK = 2000


def preset_text(preset) -> str:
    """presets.preset_to_json(preset), built and checked a chunk of points at a time (any thread).

    The fields other than the points are checked as load_preset checks them (on the preset without its
    points); the points and classes, which came from a PointSet (finite, whole classes), are checked by parsing
    each chunk back and comparing it with the arrays, so the file written always loads as this scene.
    """
    from percviz.core.data import PointSet
    from percviz.core.presets import preset_from_dict, preset_to_json

    X, c = preset.points.X, preset.points.classes
    if c.size and int(c.max()) > 63:
        raise ValueError("a preset holds class indices 0 … 63 only")
    head = preset_to_json(preset.replace(points=PointSet(X[:0], c[:0])))
    preset_from_dict(json.loads(head), "<autosave>")
    rows, sep = [], ", "
    for s in range(0, len(X), POINT_CHUNK):
        chunk = X[s:s + POINT_CHUNK]
        text = json.dumps(chunk.tolist(), allow_nan=False, separators=(sep, ": "))[1:-1]
        if not np.array_equal(np.asarray(json.loads("[" + text + "]"), dtype=float).reshape(-1, 2), chunk):
            raise ValueError(f"points {s}… do not read back as written")
        rows.append(text.replace("], [", "],\n    ["))
    points = "[\n    " + ",\n    ".join(rows) + "\n  ]" if rows else "[]"
    classes = json.dumps(c.tolist(), separators=(sep, ": "))
    for key, value in (("points", points), ("classes", classes)):
        empty = f'\n  "{key}": []'  # a top-level key starts a line; a string never holds a raw newline
        if head.count(empty) != 1:
            raise ValueError(f"no single '{key}' field in the preset text")
        head = head.replace(empty, f'\n  "{key}": {value}')
    return head


def write_autosave(path: Path, preset, meta: dict) -> str:
    """Write the meta file and the scene (temp file + rename each); "" when done, else what failed (any thread)."""
    from percviz.core.presets import atomic_write_text

    try:
        text = preset_text(preset)
        _write_json(path.with_suffix(".meta.json"), meta)
        atomic_write_text(path, text)
    except (OSError, ValueError) as e:
        return f"Autosave to {path} failed: {e}"
    return ""


def _companions(path: Path) -> list[Path]:
    return [path, path.with_suffix(".meta.json"), path.with_suffix(".lock")]


def _unlink(path: Path) -> None:
    """Delete a file if it is there."""
    try:
        path.unlink()
    except OSError:  # gone already, or not ours to delete
        pass


def _read_meta(path: Path) -> dict:
    try:
        meta = json.loads(path.with_suffix(".meta.json").read_text(encoding="utf-8"))
        return meta if isinstance(meta, dict) else {}
    except (OSError, ValueError):
        return {}


def _write_json(path: Path, doc: dict) -> None:
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(json.dumps(doc), encoding="utf-8")
    os.replace(tmp, path)
