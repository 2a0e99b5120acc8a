"""One way to run background work (percviz.app.run.background): results on the UI thread, cancel, bounded exit."""

from __future__ import annotations

import subprocess
import sys
import threading
import time

from PySide6.QtWidgets import QApplication

from percviz.app.run.background import Task, live_threads


def _collect(task: Task) -> dict:
    got: dict = {"progress": [], "done": [], "failed": [], "threads": set()}
    task.progress.connect(lambda v: (got["progress"].append(v), got["threads"].add(threading.current_thread())))
    task.done.connect(lambda v: got["done"].append(v))
    task.failed.connect(lambda t: got["failed"].append(t))
    return got


def test_a_generator_task_reports_progress_then_its_result_on_the_ui_thread(qtbot):
    def count(n):
        for i in range(n):
            yield i * i
        return "end"

    task = Task(name="percviz-test")
    got = _collect(task)
    task.start(count, 4)
    qtbot.waitUntil(lambda: bool(got["done"]), timeout=5000)
    assert got["progress"] == [0, 1, 4, 9] and got["done"] == ["end"] and not got["failed"]
    assert got["threads"] == {threading.main_thread()}
    assert task.wait(2000)


def test_a_failure_is_one_clear_message_and_a_cancelled_task_emits_nothing(qtbot):
    task = Task(name="the test job")
    got = _collect(task)
    task.start(lambda: 1 / 0)
    qtbot.waitUntil(lambda: bool(got["failed"]), timeout=5000)
    assert got["failed"][0].startswith("Internal error in the test job: ZeroDivisionError")
    slow = Task(name="percviz-slow")
    got2 = _collect(slow)
    release = threading.Event()

    def stages():
        yield 1
        assert release.wait(5), "the test's gate was never opened"
        yield 2

    slow.start(stages)
    slow.cancel()
    release.set()
    assert slow.wait(5000)
    qtbot.wait(50)
    assert got2 == {"progress": [], "done": [], "failed": [], "threads": set()}
    assert not [t for t in live_threads() if t.name.startswith("percviz-slow")]


_EXIT_WHILE_COMPUTING = """
import time
from PySide6.QtWidgets import QApplication
from percviz.app.main_window import MainWindow
from percviz.app.run.session import RunSession
RunSession._compute_rho = staticmethod(lambda problem: (time.sleep(600), print("LP ended", flush=True)))  # 10 min
app = QApplication([])
w = MainWindow(install_classroom=False)  # the default scene runs a kernel algorithm: ρ_K starts at once
w.session.run_to_end()
t = time.monotonic()
while time.monotonic() - t < 0.5:
    app.processEvents()
print("exiting", flush=True)
"""


def test_the_interpreter_exits_at_once_while_a_long_computation_runs():
    # the LP takes 10 minutes: an exit that waited for it would overrun the 2-minute time-out (start-up included)
    out = subprocess.run([sys.executable, "-c", _EXIT_WHILE_COMPUTING], capture_output=True, text=True, timeout=120,
                         env={**__import__("os").environ, "QT_QPA_PLATFORM": "offscreen"})
    assert out.returncode == 0, out.stderr[-2000:]
    assert "exiting" in out.stdout and "LP ended" not in out.stdout


_RESULT_AFTER_THE_APP = """
import threading, time
from PySide6.QtWidgets import QApplication
import shiboken6
from percviz.app.run import background
app = QApplication([])
go = threading.Event()
task = background.Task(name="percviz-late")
task.start(lambda: (go.wait(10), "late")[1])  # its result arrives after the application object is gone
relay = background._relay()
shiboken6.delete(relay)  # what the interpreter's teardown does to the relay while the thread still runs
go.set()
assert task.wait(5000)
print("ended", flush=True)
"""


def test_a_task_finishing_after_the_application_is_gone_reports_nothing_on_stderr():
    out = subprocess.run([sys.executable, "-c", _RESULT_AFTER_THE_APP], capture_output=True, text=True, timeout=60,
                         env={**__import__("os").environ, "QT_QPA_PLATFORM": "offscreen"})
    assert out.returncode == 0 and "ended" in out.stdout, out.stderr[-2000:]
    assert "Signal source has been deleted" not in out.stderr and "Traceback" not in out.stderr, out.stderr[-2000:]


_WINDOW_LEFT_OPEN = """
import numpy as np
from PySide6.QtCore import QEventLoop, QTimer
from PySide6.QtWidgets import QApplication
from percviz.app.main_window import MainWindow
from percviz.core.data import PointSet
app = QApplication([])
w = MainWindow()
w.show()
X = np.random.default_rng(3).uniform(-3, 3, size=(40, 2))
w.scene.set_points(PointSet(X, (X[:, 0] + X[:, 1] > 0).astype(int)), undoable=False)
loop = QEventLoop()
QTimer.singleShot(1500, loop.quit)
loop.exec()
print("ended", flush=True)
"""


def test_a_script_that_exits_with_the_window_open_reports_nothing_on_stderr(tmp_path):
    # a researcher's script (or percviz.show) that never closes the window: the interpreter's teardown deletes the
    # C++ window first, then its docks hide (a visibilityChanged reached the deleted window: a RuntimeError)
    env = {**__import__("os").environ, "QT_QPA_PLATFORM": "offscreen", "PERCVIZ_CONFIG_DIR": str(tmp_path / "c"),
           "PERCVIZ_DATA_DIR": str(tmp_path / "d")}
    out = subprocess.run([sys.executable, "-c", _WINDOW_LEFT_OPEN], capture_output=True, text=True, timeout=120,
                         env=env)
    assert out.returncode == 0 and "ended" in out.stdout, out.stderr[-2000:]
    assert "Traceback" not in out.stderr and "Error" not in out.stderr, out.stderr[-2000:]


def test_a_finished_or_cancelled_task_lets_go_of_its_receivers_and_its_parent(qtbot):
    # a 10,000-action soak grew to 4.5 GB: every restart's Task stayed a child of the session, its receivers'
    # closures holding the problem (φ(X) of rff:dim=5000)
    import gc
    import weakref

    from PySide6.QtCore import QObject

    class Big:
        pass

    parent = QObject()
    for cancel in (False, True):
        big = Big()
        ref = weakref.ref(big)
        task = Task(parent, name="percviz-test")
        got = []
        task.done.connect(lambda v, b=big: got.append((v, b)))
        release = threading.Event()
        task.start(lambda: release.wait(5) and "result")
        if cancel:
            task.cancel()
        release.set()
        assert task.wait(5000)
        if not cancel:
            qtbot.waitUntil(lambda: bool(got), timeout=5000)
            assert got[0][0] == "result"
        del big, got
        QApplication.processEvents()
        gc.collect()
        assert ref() is None, "the receiver's closure is still held"
        assert task.parent() is None and not parent.findChildren(Task)
