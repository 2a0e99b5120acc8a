"""The solver worker and the run session: coalescing, pause, speed, errors, restart, bounded history."""

from __future__ import annotations

import time
from types import SimpleNamespace

import numpy as np
import pytest
from PySide6.QtWidgets import QApplication

from percviz.app.run import heap
from percviz.app.run import rho as rho_module
from percviz.app.run import worker as worker_mod
from percviz.app.run.session import FINISHED, INVALID, RunSession, SnapshotHistory
from percviz.app.run.worker import SnapshotWorker, live_threads
from percviz.core.data import PointSet
from percviz.core.scene import SceneModel, Settings
from percviz.core.solvers import get_solver
from percviz.core.solvers.base import Solver, Status


class Recorder:
    """Records a signal's emissions (qtbot.waitSignal's slot disconnects itself during the emission,
    which was seen to hang PySide 6.11 once in a few hundred runs)."""

    def __init__(self, signal):
        self.calls: list[tuple] = []
        signal.connect(lambda *args: self.calls.append(args))

    def wait(self, qtbot, timeout=2000, check=lambda *args: True) -> tuple:
        qtbot.waitUntil(lambda: any(check(*c) for c in self.calls), timeout=timeout)
        return next(c for c in self.calls if check(*c))


def _done(status=False):
    return SimpleNamespace(status=SimpleNamespace(done=status))


def _counter(n, sleep=0.0, fail_at=None):
    for i in range(n):
        if sleep:
            time.sleep(sleep)
        if i == fail_at:
            raise ValueError("boom at update 3")
        yield SimpleNamespace(i=i, status=SimpleNamespace(done=i == n - 1))


@pytest.fixture
def worker(qapp):
    # As the app does before a run (percviz.app.run.heap): a full collection of the test process's heap,
    # triggered mid-burst, stalls the UI thread by 50–100 ms while a 300,000 updates/s generator fills the buffer.
    heap.settle(force=True)
    w = SnapshotWorker()
    yield w
    assert w.stop()


def _collect(qtbot, worker, start, until, timeout=5.0):
    got, readies = [], [0]

    def on_ready():
        readies[0] += 1
        got.extend(s for _j, s in worker.take())

    worker.ready.connect(on_ready)
    start()
    end = time.monotonic() + timeout
    while not until(got) and time.monotonic() < end:
        # Events every few ms, as the app's poll timer does. (A QEventLoop left to wait for 5 ms sat idle for
        # 120-190 ms here while this 300,000 updates/s generator held the GIL, once feature-view tests had run:
        # only in the test process, never in bench/bench_app.py's real event loop.)
        QApplication.processEvents()
        time.sleep(0.002)
    worker.ready.disconnect(on_ready)
    return got, readies[0]


class WorkerClock:
    """The worker's clock, moved by the test (or by each update): its pacing is then independent of load."""

    def __init__(self):
        self.now = 1000.0

    def monotonic(self) -> float:
        return self.now

    @staticmethod
    def sleep(seconds: float) -> None:
        time.sleep(seconds)


@pytest.fixture
def clock(monkeypatch):
    c = WorkerClock()
    monkeypatch.setattr(worker_mod, "time", c)
    return c


def test_fast_generator_is_coalesced_to_display_rate(qtbot, clock, worker):
    # 20,000 updates as fast as possible, each 1/3000 s of the worker's clock: all arrive in order, in at most
    # ~60 deliveries per second of that clock (6.7 s of it)
    def timed_counter(n):
        for s in _counter(n):
            clock.now += 1 / 3000
            yield s

    worker.set_job(1, timed_counter(20000))
    start = clock.now
    got, readies = _collect(qtbot, worker, lambda: worker.play(fast=True), lambda g: bool(g) and g[-1].i == 19999,
                            timeout=60.0)
    elapsed = clock.now - start
    its = [s.i for s in got]
    assert its[0] == 0 and its[-1] == 19999 and its == sorted(set(its))
    assert len(its) >= 10000  # only a UI stalled for > MAX_BUFFERED snapshots sees a thinned buffer
    assert readies <= 60 * elapsed + 3, (readies, elapsed)


def test_pause_stops_at_once_and_step_advances_one(qtbot, worker):
    worker.set_interval(0.0)
    worker.set_job(1, _counter(10**6, sleep=0.001))
    worker.play()
    qtbot.wait(100)
    worker.pause()
    qtbot.waitUntil(lambda: not worker.busy, timeout=1000)
    n = len(worker.take())
    assert n > 5
    qtbot.wait(100)
    assert worker.take() == []  # nothing after the pause
    worker.step(1)
    qtbot.waitUntil(lambda: not worker.busy, timeout=1000)
    assert len(worker.take()) == 1


def test_speed_sets_updates_per_second(qtbot, clock, worker):
    # 20 updates/s: each 1/20 s of the worker's clock brings exactly one update, a stopped clock none
    worker.set_interval(1 / 20)
    worker.set_job(1, _counter(10**6))
    worker.play()
    got = []
    qtbot.waitUntil(lambda: bool(got.extend(worker.take()) or got), timeout=5000)  # the first at once
    for k in range(2, 12):
        clock.now += 1 / 20
        qtbot.waitUntil(lambda: bool(got.extend(worker.take())) or len(got) >= k, timeout=5000)
    qtbot.wait(150)  # the clock stands still: nothing more is due
    got.extend(worker.take())
    worker.pause()
    assert [s.i for _j, s in got] == list(range(11))


def test_error_is_reported_and_thread_keeps_serving(qtbot, worker):
    failed = Recorder(worker.failed)
    worker.set_job(7, _counter(10, fail_at=3), steps=10, who="Broken")
    job, text = failed.wait(qtbot)
    assert job == 7 and "ValueError" in text and "boom at update 3" in text and "Broken" in text
    assert [s.i for _j, s in worker.take()] == [0, 1, 2]
    assert worker.thread.isRunning()
    worker.set_job(8, _counter(3), steps=3)
    qtbot.waitUntil(lambda: not worker.busy, timeout=2000)
    assert [s.i for _j, s in worker.take()] == [0, 1, 2]


def test_new_job_discards_stale_snapshots(qtbot, worker):
    worker.set_job(1, _counter(10**6, sleep=0.001))
    worker.play()
    qtbot.wait(30)
    worker.set_job(2, _counter(5), steps=5)
    qtbot.waitUntil(lambda: not worker.busy, timeout=2000)
    assert {j for j, _s in worker.take()} == {2}


def test_stop_during_a_run_ends_the_thread(qapp):
    w = SnapshotWorker()
    w.set_job(1, _counter(10**7))
    w.play(fast=True)
    time.sleep(0.05)
    assert w.stop(5000)
    assert not w.thread.isRunning()
    assert w.thread not in live_threads()


def test_history_memory_is_bounded_and_keeps_first_and_recent():
    h = SnapshotHistory(capacity=1000, min_capacity=10)
    items = [SimpleNamespace(iteration=i) for i in range(20000)]
    for k in range(0, 20000, 137):
        h.extend(items[k:k + 137])
    assert len(h) <= 1000
    its = [s.iteration for s in h]
    assert its[0] == 0 and its[-1] == 19999
    assert its == sorted(its)
    assert its[-400:] == list(range(19600, 20000))  # the newest stay at full resolution
    assert h.thinned


def test_history_capacity_follows_snapshot_size():
    h = SnapshotHistory(capacity=5000, budget_bytes=100 * 2**20, min_capacity=10)
    big = SimpleNamespace(alpha=np.zeros(20000), p=np.zeros(20000), weights=None, decision=None)
    h.extend([big])
    assert h.capacity == 100 * 2**20 // (2 * 160000 + 512)


# -- the session ----------------------------------------------------------------------------------------

def _two_clouds(n=20, seed=0):
    rng = np.random.default_rng(seed)
    X = np.r_[rng.normal(1.5, 0.4, (n, 2)), rng.normal(-1.5, 0.4, (n, 2))]
    return PointSet(X, np.r_[np.zeros(n, int), np.ones(n, int)])


@pytest.fixture
def session(qapp):
    scene = SceneModel(_two_clouds(), Settings(algorithm="perceptron"))
    s = RunSession(scene)
    s.wait_idle()
    yield s
    s.shutdown()


def test_session_step_play_reset(qtbot, session):
    assert [h.iteration for h in session.history] == [0]
    session.step()
    session.wait_idle()
    assert session.current.iteration == 1
    session.run_to_end()
    qtbot.waitUntil(lambda: session.state == FINISHED, timeout=3000)
    assert session.latest.status is Status.SEPARATOR
    its = [h.iteration for h in session.history]
    assert its == list(range(len(its)))
    session.reset()
    session.wait_idle()
    assert [h.iteration for h in session.history] == [0]


def test_scene_edit_restarts_and_keeps_algorithm(qtbot, session):
    session.run_to_end()
    qtbot.waitUntil(lambda: session.state == FINISHED, timeout=3000)
    changed = Recorder(session.problemChanged)
    session.scene.add_point(0.1, 0.2, 1)
    problem, cls = changed.wait(qtbot)
    assert cls is get_solver("perceptron") and problem.n == 41
    session.wait_idle()
    assert [h.iteration for h in session.history] == [0]
    assert session.scene.settings.algorithm == "perceptron"


def test_one_class_only_is_a_message_and_recovers(qtbot, session):
    errors = Recorder(session.errorRaised)
    session.scene.set_points(PointSet([[0, 1], [1, 1]], [0, 0]))
    assert "no − point" in errors.wait(qtbot)[0]
    assert session.state == INVALID and session.problem is None
    session.step()  # nothing to run: no crash
    session.scene.add_point(-1, -1, 1)
    session.wait_idle()
    assert session.state != INVALID and session.current.iteration == 0


def test_zero_self_kernel_is_a_message(qtbot, session):
    get_solver("nkp")
    errors = Recorder(session.errorRaised)
    with session.batch():
        session.scene.set_points(PointSet([[0, 0], [1, 1], [-1, -1]], [0, 0, 1]))
        session.scene.set_settings(algorithm="nkp", kernel="linear", params={})
    text = errors.wait(qtbot)[0]
    assert "K(x, x)" in text and "Point 0" in text
    assert session.problem is None


class _Broken(Solver):
    name, display_name, family = "broken-test", "Broken test solver", "Tests"
    representation = "features"

    def _reset(self):
        self.k = 0

    def _update(self):
        self.k += 1
        if self.k == 3:
            raise FloatingPointError("overflow in update 3")
        return (0,)

    def _halt(self):
        return None

    def _state(self):
        from percviz.core.decision import ZeroDecision

        return {"decision": ZeroDecision(), "metrics": {}}


def test_worker_error_reaches_the_user_and_history_is_kept(qtbot, monkeypatch, session):
    import percviz.app.run.session as mod

    monkeypatch.setattr(mod, "get_solver", lambda name: _Broken)
    session.restart()
    session.wait_idle()
    errors = Recorder(session.errorRaised)
    session.play()
    assert "overflow in update 3" in errors.wait(qtbot)[0]
    assert [h.iteration for h in session.history] == [0, 1, 2]
    assert session.state == INVALID
    assert session.worker.thread.isRunning()


def test_rho_is_computed_in_the_background_for_kernel_algorithms(qtbot, session):
    from percviz.core.gram import optimal_margin

    assert session.rho(wait=False) is None  # the perceptron works on explicit weights: no ρ_K line
    rhos = Recorder(session.rhoChanged)
    session.scene.set_settings(algorithm="nkp", params={})
    (rho,) = rhos.wait(qtbot, 5000, lambda r: r is not None)
    expected = optimal_margin(session.problem).rho
    assert rho == pytest.approx(expected) and expected > 0  # two separated clouds
    assert session.rho(wait=False) == pytest.approx(expected)


def test_expensive_restarts_coalesce_and_end_on_the_last_edit(qtbot, session):
    problems = []

    def slow_panel(problem, _cls):  # a panel that needs 60 ms to take a new problem
        problems.append(problem)
        time.sleep(0.06)

    session.problemChanged.connect(slow_panel)
    session.scene.begin_drag()
    for k in range(12):  # a drag: 12 moves, 10 ms apart
        session.scene.move_point(0, 1.0 + 0.1 * k, 1.0)
        qtbot.wait(10)
    session.scene.end_drag()
    session.wait_idle()
    assert 2 <= len(problems) < 10
    assert problems[-1].X[0, 0] == pytest.approx(2.1)  # the last edit is never lost
    assert session.problem is problems[-1]


def test_pause_right_after_a_restart_still_shows_iteration_0(qtbot, session):
    session.set_speed(5)
    session.play()
    session.scene.add_point(0.3, 0.3, 0)  # restarts, still playing
    session.pause()
    session.wait_idle()
    assert session.current is not None and session.current.iteration in (0, 1)


class ClockReadings:
    """The frame scheduler's clock: the real one, with its last reading kept (the `now` a plan is made from)."""

    def __init__(self):
        self.last = 0.0

    def monotonic(self) -> float:
        self.last = time.monotonic()
        return self.last


def test_one_slow_frame_does_not_stall_the_animation(qtbot, session, monkeypatch):
    from percviz.app.run import frames as frames_mod

    rng = np.random.default_rng(4)
    session.scene.set_points(PointSet(rng.normal(0, 1, (50, 2)), rng.integers(0, 2, 50)))
    session.scene.set_settings(max_iter=10**7)
    session.wait_idle()
    clock = ClockReadings()
    monkeypatch.setattr(frames_mod, "time", clock)
    fr, plans, shown = session.frames, [], []
    real_done = fr._frame_done

    def frame_done(t0, main):  # how long after this frame the scheduler plans the next one (its own decision)
        real_done(t0, main)
        if main:
            plans.append(fr._next_frame - clock.last)

    def panel(snap):  # a panel whose first frame takes 0.8 s, then cheap
        if not shown:
            time.sleep(0.8)
        shown.append(snap.iteration)

    monkeypatch.setattr(fr, "_frame_done", frame_done)
    session.snapshotShown.connect(panel)
    session.run_to_end()
    qtbot.waitUntil(lambda: len(shown) >= 4 and len(plans) >= 3, timeout=10000)
    session.pause()
    # after the 0.8 s frame (Run to end gives the solver as long again) the next is planned within MAX_FRAME_WAIT:
    # at least two frames a second
    assert plans and max(plans) <= frames_mod.MAX_FRAME_WAIT + 1e-9, plans
    assert shown == sorted(shown) and len(set(shown)) == len(shown)


def test_closing_never_waits_for_a_long_margin_computation(qtbot, monkeypatch):
    import threading

    started, release = [], threading.Event()

    def slow_rho(problem):  # an LP on thousands of points: seconds, off the GIL (here until released)
        started.append(problem)
        assert release.wait(30), "the test's gate was never opened"
        return 0.25

    monkeypatch.setattr(rho_module, "compute_rho", slow_rho)
    rng = np.random.default_rng(3)
    X = np.vstack([rng.normal(1.5, 0.3, (20, 2)), rng.normal(-1.5, 0.3, (20, 2))])
    scene = SceneModel(PointSet(X, np.repeat([0, 1], 20)), Settings(algorithm="nkp"))
    s = RunSession(scene)
    qtbot.waitUntil(lambda: bool(started), timeout=3000)
    s.shutdown(timeout_ms=200)
    margin = [t for t in live_threads() if t.objectName() == "percviz-margin"]
    # the window closed while the computation was still held (it could not have waited for it), ...
    assert margin and all(t.isRunning() for t in margin) and not release.is_set()
    release.set()
    assert all(t.wait(5000) for t in margin)  # ... and the thread ends on its own, destroyed by nobody


def test_a_restart_with_2000_points_and_an_rbf_kernel_stays_on_the_ui_budget(qtbot):
    rng = np.random.default_rng(4)
    X = rng.normal(0, 1, (2000, 2))
    scene = SceneModel(PointSet(X, rng.integers(0, 2, 2000)), Settings(algorithm="nkp", kernel="rbf"))
    s = RunSession(scene)
    rhos = Recorder(s.rhoChanged)
    try:
        s.wait_idle(30)
        costs = []
        for _ in range(3):
            t0 = time.thread_time()
            s.restart()
            costs.append(time.thread_time() - t0)
        assert min(costs) < 0.05, costs  # no Gram factorization, no ρ_K on the UI thread (its CPU time)
        assert s.rho(wait=True) is None  # too costly above BOUND_MAX_N: no reference line rather than a frozen UI
        assert all(r == (None,) for r in rhos.calls)
        assert s.wait_idle(30) and s.current.iteration == 0
    finally:
        s.shutdown()
