"""A kill between a save's write and its rename leaves a temporary file; the next save or start removes it."""

import os
import signal
import subprocess
import sys
import textwrap
import time

import pytest

from percviz.core import presets
from percviz.core.presets import TEMP_SUFFIX, atomic_write_text, remove_stale_temps


def _dead_pid() -> int:
    p = subprocess.Popen([sys.executable, "-c", "pass"])
    assert p.wait(timeout=60) == 0
    return p.pid


def test_a_temp_of_a_dead_writer_goes_and_one_of_a_live_writer_stays(tmp_path):
    dead = tmp_path / f".scene.json.{_dead_pid()}-abc123{TEMP_SUFFIX}"
    live = tmp_path / f".scene.json.{os.getppid()}-def456{TEMP_SUFFIX}"  # our parent is alive
    user = tmp_path / "notes.tmp"  # not ours: never touched
    for p in (dead, live, user):
        p.write_text("{")
    assert remove_stale_temps(tmp_path) == 1
    assert not dead.exists() and live.exists() and user.exists()


def test_an_old_temp_goes_whatever_its_name_says(tmp_path, monkeypatch):
    old = tmp_path / f".scene.json.notapid{TEMP_SUFFIX}"
    old.write_text("{")
    assert remove_stale_temps(tmp_path) == 0
    t = time.time() - presets.STALE_TEMP_S - 10
    os.utime(old, (t, t))
    assert remove_stale_temps(tmp_path) == 1 and not old.exists()


@pytest.mark.skipif(os.name != "posix", reason="SIGKILL")
def test_a_save_killed_before_its_rename_leaves_a_temp_that_the_next_save_removes(tmp_path):
    target = tmp_path / "scene.json"
    target.write_text('{"old": true}')
    script = textwrap.dedent(f"""
        import os, time
        from percviz.core import presets
        os.replace = lambda a, b: (print("written", flush=True), time.sleep(60))
        presets.atomic_write_text({str(target)!r}, '{{"new": true}}')
    """)
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path))
    proc = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, text=True, env=env)
    assert proc.stdout.readline().strip() == "written"  # the temp is complete, the rename not done
    proc.send_signal(signal.SIGKILL)
    assert proc.wait(timeout=60) == -signal.SIGKILL
    left = list(tmp_path.glob(f".*{TEMP_SUFFIX}"))
    assert len(left) == 1 and target.read_text() == '{"old": true}'  # the user's file is the old one
    atomic_write_text(tmp_path / "other.json", "{}")  # any later save in the folder cleans up
    assert not left[0].exists() and list(tmp_path.glob(f".*{TEMP_SUFFIX}")) == []
