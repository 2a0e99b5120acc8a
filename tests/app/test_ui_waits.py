"""The UI thread never sleeps on another thread's work (issue 10, the soak's wall-clock gaps; bench/gap_watchdog.py
found each cause): a 10 ms QTimer keeps ticking while the other thread is held at the point where the UI used to wait."""

from __future__ import annotations

import threading
import time

import numpy as np
import pytest
from PySide6.QtCore import QTimer

from percviz.app.run.background import BackgroundThread, Task
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
            assert release.wait(20), "the test's gate was never opened"
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
        assert go.wait(20), "the test's gate was never opened"
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


def test_the_ui_keeps_turning_while_rls_sets_up_its_large_matrix(qtbot, monkeypatch):
    """RLS with a 4,001-dimensional φ-map starts from R = r0·I (128 MB) on the solver thread. np.eye's diagonal
    write held the GIL while it touched every page (seconds on a loaded machine: the window stood still); now
    the UI's timer keeps ticking through the set-up, and R and the first weights are those of r0·I."""
    from percviz.app.run.worker import SnapshotWorker
    from percviz.core.solvers import get_solver
    from percviz.core.solvers.least_squares import RLS

    ticks = _Ticks()
    spans, millis, cpu = [], [], []
    reset = RLS._reset

    def timed(self):
        t0 = time.perf_counter()
        c0 = time.thread_time()
        k0 = ticks.count
        reset(self)
        millis.append(1e3 * (time.perf_counter() - t0))  # for the message only
        cpu.append(1e3 * (time.thread_time() - c0))  # the solver thread's own CPU time in the set-up
        spans.append(ticks.count - k0)

    monkeypatch.setattr(RLS, "_reset", timed)
    problem = Problem(_points(30), "affine", "rff:dim=4000")
    solver = get_solver("rls")(problem, max_iter=5)
    worker = SnapshotWorker()
    got = []
    worker.ready.connect(lambda: got.extend(worker.take()))
    worker.set_job(1, solver.snapshots(), steps=2)
    try:
        qtbot.waitUntil(lambda: len(got) >= 2, timeout=120000)
    finally:
        worker.stop(120000)
    (turned,) = spans
    (ms,) = millis
    (busy,) = cpu
    # counted, not timed: the UI's 10 ms timer turns during the set-up (a GIL held throughout gives 0 or 1). A set-up
    # of 11 ms (fresh zero pages on an idle machine) leaves room for one turn only: the turns asked for grow with the
    # set-up's own CPU time, which load does not lengthen, up to 3 (np.eye's GIL-held write: ≥ 30 ms, 0 or 1 turns)
    assert turned >= min(3, int(busy // 10)), f"the UI turned {turned} times in {ms:.0f} ms ({busy:.0f} ms CPU) of RLS set-up"
    d = problem.Y.shape[1]
    assert d == 4001
    first = got[0][1]
    np.testing.assert_array_equal(np.asarray(first.weights), np.zeros(d))
    y = problem.Y[0]
    r0 = solver.values["r0"]
    # after one Sherman–Morrison step from r0·I: R = r0·I − r0² y yᵗ/(1 + r0 yᵗy), checked on a few entries
    den = 1 + r0 * (y @ y)
    for i, j in ((0, 0), (5, 9), (4000, 17)):
        expected = (r0 if i == j else 0.0) - r0 * r0 * y[i] * y[j] / den
        assert solver.R[i, j] == pytest.approx(expected, rel=1e-9, abs=1e-12)



def test_edits_during_a_slow_margin_run_one_margin_thread_at_a_time(qtbot, monkeypatch):
    """Each edit of a kernel algorithm's scene restarts ρ_K; a cancelled one runs on until its LP returns. Ten
    clicks while every ρ_K is held: at most one `percviz-margin` thread at a time (one per click piled up eight in
    the soak, and the UI waited for a core), and the last scene's ρ_K still arrives."""
    from PySide6.QtCore import QPoint, QPointF, Qt
    from PySide6.QtTest import QTest

    from percviz.app.run import rho as rho_module
    from percviz.app.run.background import live_threads

    release = threading.Event()
    compute = rho_module.compute_rho

    def held(problem):
        assert release.wait(30), "the test's gate was never opened"
        return compute(problem)

    monkeypatch.setattr(rho_module, "compute_rho", held)
    w = MainWindow(SceneModel(_points(20), Settings(algorithm="nkp", kernel="rbf:gamma=0.5")), install_classroom=False)
    qtbot.addWidget(w)
    w.show()
    canvas = w.panels["canvas"]
    canvas.viewbox.setRange(xRange=(-3, 3), yRange=(-3, 3), padding=0)
    vp = canvas.plot.viewport()
    most = 0
    try:
        for k in range(10):
            p = canvas.plot.mapFromScene(canvas.viewbox.mapViewToScene(QPointF(-2.0 + 0.4 * k, 2.0 - 0.3 * k)))
            QTest.mouseClick(vp, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier, QPoint(round(p.x()), round(p.y())))
            qtbot.wait(40)
            most = max(most, len([t for t in live_threads() if t.name == "percviz-margin"]))
        assert w.scene.n == 30
    finally:
        release.set()
    assert most <= 1, f"{most} margin threads at once"
    problem = w.session.problem
    qtbot.waitUntil(lambda: w.session.rho(wait=False) is not None and w.session.problem is problem, timeout=60000)
    assert w.session.rho(wait=False) == pytest.approx(compute(problem), rel=1e-9)
    qtbot.waitUntil(lambda: not [t for t in live_threads() if t.name == "percviz-margin"], timeout=60000)
    w.close()
