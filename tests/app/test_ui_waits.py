"""The UI thread never sleeps on another thread's work (issue 10, the soak's wall-clock gaps; bench/gap_watchdog.py
found each cause): a 10 ms QTimer keeps ticking while the other thread is held at the point where the UI used to wait."""

from __future__ import annotations

import threading

import numpy as np
from PySide6.QtCore import QTimer

from percviz.app.background import BackgroundThread, Task
from percviz.app.main_window import MainWindow
from percviz.core import features as core_features
from percviz.core.data import PointSet
from percviz.core.problem import Problem
from percviz.core.scene import SceneModel, Settings


class _Ticks:
    """Counts the turns of the UI thread's event loop (a 10 ms timer)."""

    def __init__(self):
        self.count = 0
        self.timer = QTimer()
        self.timer.setInterval(10)
        self.timer.timeout.connect(self._tick)
        self.timer.start()

    def _tick(self) -> None:
        self.count += 1


def _points(n: int = 40, seed: int = 5) -> PointSet:
    rng = np.random.default_rng(seed)
    X = np.vstack([rng.normal((-1, 0.5), 0.7, (n // 2, 2)), rng.normal((1, -0.5), 0.7, (n - n // 2, 2))])
    return PointSet(X, np.repeat([0, 1], n // 2))


def test_an_algorithm_change_does_not_wait_for_another_problems_phi(qtbot, monkeypatch):
    """Another Problem's φ(X) is held inside its transform on a thread (as a Task building a heavy map's solver
    is); the window changes algorithm, building its new Problem's φ(X) and Y on the UI thread, and keeps turning.
    With functools.cached_property (one lock per class on Python 3.11) the change waited for the held one."""
    w = MainWindow(SceneModel(_points(), Settings(algorithm="perceptron", features="rff:dim=50")), install_classroom=False)
    qtbot.addWidget(w)
    w.show()
    assert w.session.wait_idle(30)
    other = Problem(_points(seed=6), "affine", "rff:dim=50")
    inside, release = threading.Event(), threading.Event()
    transform = core_features.RandomFourier.transform

    def held(self, X):
        if X is other.X:
            inside.set()
            release.wait(20)
        return transform(self, X)

    monkeypatch.setattr(core_features.RandomFourier, "transform", held)
    holder = threading.Thread(target=lambda: other.Phi, daemon=True)
    holder.start()
    try:
        assert inside.wait(10)
        ticks = _Ticks()
        combo = w.controls.algorithm
        QTimer.singleShot(0, lambda: combo.setCurrentIndex(
            next(i for i in range(combo.count()) if combo.itemData(i, 256) == "batch-perceptron")))
        qtbot.waitUntil(lambda: w.session.solver_cls is not None and w.session.solver_cls.name == "batch-perceptron"
                        and w.session.problem is not None and ticks.count >= 20, timeout=15000)
        assert holder.is_alive(), "the change waited until the other Problem's φ(X) was let go"
        assert "Y" in w.session.problem.__dict__ and w.session.problem.Y.shape == (40, 51)
        assert w.session.problem is not other
    finally:
        release.set()
        holder.join(20)
    w.step_action.trigger()
    qtbot.waitUntil(lambda: w.session.current is not None and w.session.current.iteration >= 1, timeout=10000)
    assert np.isfinite(np.asarray(w.session.current.weights)).all()
    w.close()


def test_starting_a_task_does_not_wait_for_its_thread_to_be_scheduled(qtbot, monkeypatch):
    """A new thread that gets no core for a while (held before its first instruction, as on a loaded machine):
    Task.start returns at once, the UI keeps turning, and the result still arrives. threading.Thread.start waits
    for the new thread to run; the UI thread slept there up to 0.3 s per Task in the soak."""
    go = threading.Event()
    ticks = _Ticks()
    seen_at_start = []
    bootstrap = threading.Thread._bootstrap_inner

    def late(self):
        go.wait(20)
        bootstrap(self)

    monkeypatch.setattr(BackgroundThread, "_bootstrap_inner", late)
    task = Task(name="percviz-late")
    got = []
    task.done.connect(got.append)
    task.start(lambda: seen_at_start.append(ticks.count) or "result")
    assert task.running  # it counts as running before its thread has started
    QTimer.singleShot(0, lambda: None)
    qtbot.waitUntil(lambda: ticks.count >= 20, timeout=15000)
    go.set()
    qtbot.waitUntil(lambda: got == ["result"], timeout=15000)
    assert seen_at_start and seen_at_start[0] >= 20  # the thread ran only after the UI had turned 20 times
    assert task.wait(5000) and not task.running
