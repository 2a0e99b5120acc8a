"""The GUI tests' one home for helpers (and bench/bench_app.py's): click positions, keys, settling, windows, ticks."""

from __future__ import annotations

import numpy as np
from PySide6.QtCore import QElapsedTimer, QEventLoop, QPoint, Qt, QThread, QTimer
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication


def canvas_pos(canvas, x: float, y: float) -> QPoint:
    """The viewport pixel of data point (x, y) on a CanvasView (or a main window's canvas): where a click lands."""
    if hasattr(canvas, "panels"):
        canvas = canvas.panels["canvas"]
    p = canvas.view_to_widget(x, y)
    return QPoint(round(p.x()), round(p.y()))


def click(canvas, x: float, y: float, button=Qt.MouseButton.LeftButton, mods=Qt.KeyboardModifier.NoModifier):
    """A click on the canvas (or a main window's canvas) at data point (x, y), then its events handled."""
    if hasattr(canvas, "panels"):
        canvas = canvas.panels["canvas"]
    QTest.mouseClick(canvas.plot.viewport(), button, mods, canvas_pos(canvas, x, y))
    QApplication.processEvents()


def settle(rounds: int = 5, ms: int = 20) -> None:
    """Let deferred layouts, coalesced redraws and timers run: `rounds` times events, then `ms` of waiting."""
    for _ in range(rounds):
        QApplication.processEvents()
        if ms:
            QTest.qWait(ms)


def finish(w):
    """Run the window's algorithm to its end and return the snapshot shown then."""
    w.session.run_to_end()
    w.session.wait_idle()
    QApplication.processEvents()
    return w.session.current


def spin(seconds: float) -> None:
    """Run the application's own event loop (as app.exec() does) for `seconds`."""
    loop = QEventLoop()
    QTimer.singleShot(int(seconds * 1000), loop.quit)
    loop.exec()


def shown_iteration(w) -> int:
    """The iteration of the snapshot the window shows once the run is idle (-1: none)."""
    w.session.wait_idle()
    snap = w.session.current
    return -1 if snap is None else snap.iteration


def press_key(w, key, mods=Qt.KeyboardModifier.NoModifier) -> None:
    """A key press where the keyboard focus is (as a person's would land), then the run idle."""
    QTest.keyClick(QApplication.focusWidget() or w, key, mods)
    QApplication.processEvents()
    w.session.wait_idle()


def noise_window(qtbot, n: int, seed: int):
    """The real main window, shown and idle, on n normal points with random labels (never separable: the
    perceptron runs until stopped, up to 10⁷ updates)."""
    from percviz.app.main_window import MainWindow
    from percviz.core.data import PointSet
    from percviz.core.scene import SceneModel, Settings

    rng = np.random.default_rng(seed)
    scene = SceneModel(PointSet(rng.normal(0, 1, (n, 2)), rng.integers(0, 2, n)),
                       Settings(algorithm="perceptron", max_iter=10**7))
    w = MainWindow(scene, install_classroom=False)
    qtbot.addWidget(w)
    w.show()
    qtbot.waitExposed(w)
    w.session.wait_idle()
    return w


class TickLog:
    """When a QTimer on the UI thread fired (ms since start()): its gaps are how long the event loop stalled."""

    def __init__(self, interval_ms: int = 10):
        self.ticks: list[int] = []
        self._clock = QElapsedTimer()
        self._timer = QTimer()
        self._timer.setInterval(interval_ms)
        self._timer.timeout.connect(lambda: self.ticks.append(self._clock.elapsed()))

    def start(self) -> None:
        self._clock.start()
        self._timer.start()

    def stop(self) -> None:
        self._timer.stop()

    def gaps(self) -> np.ndarray:
        """The times between ticks, the first from start()."""
        return np.diff([0, *self.ticks])


#: every QThread started from Python in this process (QThread.start is wrapped by track_qthread_starts): percviz
#: itself starts none (its background work is percviz.app.run.background's threads): a test's or a library's own
STARTED_QTHREADS: list[QThread] = []


def track_qthread_starts() -> None:
    """Record each QThread that Python starts, so that the suite's leak check needs no walk of every object (that
    walk, with the gc.unfreeze it needed, cost ~60 ms a test and made the heap's next settle walk everything)."""
    if getattr(QThread, "_percviz_tracked", False):
        return
    original = QThread.start

    def start(self, *args, **kwargs):
        STARTED_QTHREADS.append(self)
        return original(self, *args, **kwargs)

    QThread.start = start
    QThread._percviz_tracked = True


def started_qthreads_running() -> list[QThread]:
    """The recorded QThreads still running (the finished and the deleted ones are forgotten)."""
    running = []
    for t in list(STARTED_QTHREADS):
        try:
            alive = t is not QThread.currentThread() and t.isRunning()
        except RuntimeError:  # the C++ object is already gone
            alive = False
        (running.append if alive else STARTED_QTHREADS.remove)(t)
    return running


track_qthread_starts()
