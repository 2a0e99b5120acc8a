"""Windows started without a screen clean up what killed sessions left (issue 28: 81 locks piled up)."""

import os
import subprocess
import sys

from PySide6.QtCore import QCoreApplication, QLockFile

from percviz.app.classroom.autosave import MAX_ORPHANS
from percviz.core.presets import TEMP_SUFFIX, SHIPPED_DIR


def _dead_pid() -> int:
    p = subprocess.Popen([sys.executable, "-c", "pass"])
    assert p.wait(timeout=60) == 0
    return p.pid


def _leave_dead_session(folder, i: int, with_scene: bool) -> None:
    """The files a killed window leaves: its lock (owner dead), and its autosave if it had edits."""
    lock = folder / f"autosave-dead{i}.lock"
    lock.write_text(f"{_dead_pid()}\npython\n\n")  # QLockFile's format: pid, app name, host
    if with_scene:
        (folder / f"autosave-dead{i}.json").write_text((SHIPPED_DIR / "xor-rbf.json").read_text())
        os.utime(folder / f"autosave-dead{i}.json", (1_000_000 + i, 1_000_000 + i))


def test_an_offscreen_start_removes_dead_locks_and_keeps_only_the_newest_autosaves(hall_window, tmp_path):
    data = tmp_path / "data" / "autosave"  # autosave.data_dir() under hall_window's PERCVIZ_DATA_DIR
    data.mkdir(parents=True, exist_ok=True)
    for i in range(12):
        _leave_dead_session(data, i, with_scene=i % 2 == 0)  # 6 with a scene, 6 bare locks
    assert QLockFile(str(data / "autosave-dead1.lock")).tryLock(0)  # the format is a stale lock indeed
    w = hall_window(SHIPPED_DIR / "thin-margin.json")
    for _ in range(5):
        QCoreApplication.processEvents()
    assert w.classroom.files.autosaver.folder == data
    scenes = sorted(p.name for p in data.glob("autosave-dead*.json"))
    locks = sorted(p.name for p in data.glob("autosave-dead*.lock"))
    assert len(scenes) == MAX_ORPHANS == 5
    assert scenes == [f"autosave-dead{i}.json" for i in (10, 2, 4, 6, 8)]  # the oldest (0) went
    assert all(not (data / f"autosave-dead{i}.lock").exists() for i in range(1, 12, 2))
    assert len(locks) <= MAX_ORPHANS
    assert w.isVisible()


def test_a_start_removes_a_killed_saves_temp_beside_a_recent_scene(hall_window, tmp_path):
    from percviz.app.prefs import Preferences

    folder = tmp_path / "lectures"
    folder.mkdir()
    scene = folder / "week3.json"
    scene.write_text((SHIPPED_DIR / "xor-rbf.json").read_text())
    Preferences().add_recent(scene)
    temp = folder / f".week3.json.{_dead_pid()}-x1y2z3{TEMP_SUFFIX}"
    temp.write_text("{")
    hall_window(SHIPPED_DIR / "thin-margin.json")
    for _ in range(5):
        QCoreApplication.processEvents()
    assert not temp.exists() and scene.exists()
