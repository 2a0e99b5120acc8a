"""What killed sessions leave in the autosave folder is cleaned at the next start; the autosave itself is offered."""

from __future__ import annotations

import os
import subprocess
import sys
import time

from PySide6.QtCore import QLockFile

from percviz.app.classroom.autosave import STALE_TMP_S, clean_leftovers, find_orphans

_DIE_HOLDING = """
import os, sys
from PySide6.QtCore import QLockFile
locks = [QLockFile(path) for path in sys.argv[1:]]
assert all(lock.tryLock(0) for lock in locks)
os._exit(0)  # killed: the locks stay on disk
"""


def _locks_of_dead_process(*paths) -> None:
    subprocess.run([sys.executable, "-c", _DIE_HOLDING, *map(str, paths)], check=True, timeout=60)
    assert all(p.exists() for p in paths)


def test_stale_locks_orphan_meta_and_old_tmp_files_are_removed_and_the_autosave_kept(qapp, tmp_path):
    _locks_of_dead_process(tmp_path / "autosave-1-a.lock", tmp_path / "autosave-2-b.lock", tmp_path / "autosave-3-c.lock")
    (tmp_path / "autosave-2-b.meta.json").write_text("{}")  # killed between the meta and the scene
    (tmp_path / "autosave-3-c.json").write_text("{}")  # a real autosave of a dead session: offered, not deleted
    (tmp_path / "autosave-3-c.meta.json").write_text("{}")
    old, fresh = tmp_path / ".autosave-1-a.json.x1.tmp", tmp_path / ".autosave-9-z.json.x2.tmp"
    for p in (old, fresh):
        p.write_text("partial")
    past = time.time() - 2 * STALE_TMP_S
    os.utime(old, (past, past))
    live = QLockFile(str(tmp_path / "autosave-4-d.lock"))  # this process's own window: alive, left alone
    assert live.tryLock(0)
    try:
        assert clean_leftovers(tmp_path) == 4
        left = sorted(p.name for p in tmp_path.iterdir())
        assert left == [".autosave-9-z.json.x2.tmp", "autosave-3-c.json", "autosave-3-c.lock",
                        "autosave-3-c.meta.json", "autosave-4-d.lock"]
        orphans = find_orphans(tmp_path)
        assert [o.path.name for o in orphans] == ["autosave-3-c.json"]
        for o in orphans:
            o.discard()
        assert sorted(p.name for p in tmp_path.iterdir()) == [".autosave-9-z.json.x2.tmp", "autosave-4-d.lock"]
    finally:
        live.unlock()
