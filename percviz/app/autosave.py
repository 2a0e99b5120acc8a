"""Autosave of the unsaved scene, and finding what a crashed session left behind.

Each running window owns `autosave-<id>.json` (the scene), `autosave-<id>.meta.json` (where it came
from, when) and holds `autosave-<id>.lock` (a QLockFile) while it lives. A clean exit deletes all
three. At the next start, an autosave whose lock can be taken belonged to a process that died
(QLockFile treats the lock of a process that is no longer running as stale): it is offered back.

The folder is `PERCVIZ_DATA_DIR` if set (tests/conftest.py sets a temporary one), else
QStandardPaths.AppDataLocation. `PERCVIZ_AUTOSAVE_MS` overrides the interval (default 5 s).
"""

from __future__ import annotations

import json
import os
import time
import uuid
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from PySide6.QtCore import QCoreApplication, QLockFile, QObject, QStandardPaths, QTimer

from percviz.app.prefs import env_dir

DATA_ENV = "PERCVIZ_DATA_DIR"
INTERVAL_ENV = "PERCVIZ_AUTOSAVE_MS"
DEFAULT_INTERVAL_MS = 5000


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


#: A temporary file older than this (s) belongs to a write that was killed (a live write takes milliseconds).
STALE_TMP_S = 60.0


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
    return found


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
        self.timer = QTimer(self)
        self.timer.setInterval(interval or interval_ms())
        self.timer.timeout.connect(self.save_now)
        self.timer.start()

    def mark_dirty(self, *_args) -> None:
        self._dirty = True

    def save_now(self) -> bool:
        """Write the autosave now if something changed since the last one; True if written."""
        if not self._dirty:
            return False
        self._dirty = False
        preset = self._snapshot()
        if preset is None:
            self.discard()
            return False
        from percviz.core.presets import save_preset

        try:
            meta = {"source": self._source(), "time": time.time(), "title": getattr(preset, "title", ""),
                    "pid": os.getpid()}
            _write_json(self.path.with_suffix(".meta.json"), meta)
            save_preset(preset, self.path)
        except (OSError, ValueError) as e:  # a full disk must not break editing; retry at the next tick
            self.last_error = f"Autosave to {self.path} failed: {e}"
            self._dirty = True
            return False
        self.last_error = ""
        return True

    def discard(self) -> None:
        """Delete this session's autosave (the scene was saved, or has no unsaved changes)."""
        self._dirty = False
        _unlink(self.path)
        _unlink(self.path.with_suffix(".meta.json"))

    def close(self) -> None:
        """Clean exit: stop, delete the autosave, release the lock."""
        self.timer.stop()
        self.discard()
        self._lock.unlock()


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
