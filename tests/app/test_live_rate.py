"""Live drags at n = 100 on the real window: every move gets its own final boundary, cheaply (one algorithm of each
family); the SVM is solved on a working set; a run over its budget shows its latest state. Counts and CPU time, never wall-clock rates (bench/bench_live.py)."""

from __future__ import annotations

import numpy as np
import pytest
from PySide6.QtCore import QEvent, QObject, Qt
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication, QWidget

from percviz.app.run import panel_feed
from helpers import canvas_pos
from percviz.core.data import PointSet



def _separable(n, seed=1):
    rng = np.random.default_rng(seed)
    X = rng.uniform(-3, 3, size=(4 * n, 2))
    X = X[np.abs(X[:, 0] + 0.5 * X[:, 1]) > 0.4][:n]
    return PointSet(X, (X[:, 0] + 0.5 * X[:, 1] < 0).astype(int))


def _count_calls(monkeypatch, obj, name, keep_kwargs=False) -> list:
    calls = []
    original = getattr(obj, name)

    def counted(*args, **kwargs):
        calls.append((args, kwargs) if keep_kwargs else args)
        return original(*args, **kwargs)

    monkeypatch.setattr(obj, name, counted)
    return calls


def test_each_move_of_a_live_drag_gets_its_own_final_boundary_and_the_pause_brings_the_history(
        qtbot, live_window, monkeypatch):
    w = live_window
    with w.session.batch():
        w.scene.set_points(_separable(100), undoable=False)
        w.scene.set_settings(algorithm="fixed-increment", kernel="affine", features="linear", params={})
    for name in ("weight", "feature"):
        w.view_actions[name].setChecked(True)
    qtbot.waitUntil(lambda: w.docks["weight"].isVisible() and w.docks["feature"].isVisible())  # every view open
    canvas = w.panels["canvas"]
    canvas.viewbox.setRange(xRange=(-4, 4), yRange=(-4, 4), padding=0)
    w.classroom.live.set_on(True)
    qtbot.waitUntil(lambda: w.session.finished, timeout=10000)
    qtbot.waitUntil(lambda: w.panels["weight"].problem is w.session.problem, timeout=10000)
    qtbot.waitUntil(lambda: not w.panels["feature"].feed.stale, timeout=10000)
    weight_problems = _count_calls(monkeypatch, w.panels["weight"], "set_problem")
    feature_problems = _count_calls(monkeypatch, w.panels["feature"], "set_problem")
    curve_problems = _count_calls(monkeypatch, w.panels["curves"], "set_problem")
    # a loaded machine's stall between two moves must not count as the drag's pause: the pause is made long
    monkeypatch.setattr(panel_feed, "DRAG_PAUSE_MS", 3000)
    monkeypatch.setattr(w.panels["curves"], "drag_refresh", 3.0)
    w.classroom.live._settle.setInterval(2000)
    i = int(np.argmax(w.scene.points.X[:, 0] + 0.5 * w.scene.points.X[:, 1]))  # the farthest + point
    x0, y0 = w.scene.points.X[i]
    vp = canvas.plot.viewport()
    QTest.mousePress(vp, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier, canvas_pos(w, x0, y0))
    QTest.mouseMove(vp, canvas_pos(w, x0 - 0.4, y0))  # beyond pyqtgraph's drag distance: the drag starts
    qtbot.waitUntil(lambda: w.scene.dragging and w.session.finished, timeout=5000)
    x0 -= 0.4
    moves, served, sparse = 30, 0, []
    for k in range(1, moves + 1):
        target = (x0 - 0.05 * k, y0 - 0.03 * k)
        QTest.mouseMove(vp, canvas_pos(w, *target))
        s = w.session

        def drawn() -> bool:  # the canvas shows this move's finished run, its line on that run's f = 0
            snap = s.latest
            if not (s.finished and canvas.snapshot is snap and np.allclose(s.problem.points.X[i], target, atol=0.05)):
                return False
            bx, by = canvas.boundary_curve.getData()
            if bx is None or not len(bx):
                return False
            f = snap.decision(np.column_stack([bx, by]))
            return bool(np.abs(f).max() <= 1e-6 * np.abs(snap.decision(s.problem.X)).max())

        # a deferred restart (a loaded machine) still serves this move: wait for it
        qtbot.waitUntil(drawn, timeout=5000)
        served += 1
        if s.sparse and s.latest.iteration > 2:  # a drag's run: no snapshot per update
            sparse.append(len(s.history_store) < s.latest.iteration + 1)
    QTest.mouseRelease(vp, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier, canvas_pos(w, *target))
    assert served == moves  # every move: its own finished boundary on the canvas
    assert sparse and all(sparse), sparse  # a drag's runs keep a snapshot per stride of updates
    # the heavy views waited for the pause, the curves followed now and then: a move costs the run and the canvas
    # (a dock the window shows again catches up at once, by design: at most that once)
    assert len(weight_problems) <= 1 and len(feature_problems) <= 1, (len(weight_problems), len(feature_problems))
    assert len(curve_problems) < moves // 2, len(curve_problems)
    # the pause: the full run (one snapshot per update) for History and scrubbing, and the heavy views catch up
    s = w.session
    qtbot.waitUntil(lambda: s.finished and len(s.history_store) == s.latest.iteration + 1, timeout=10000)
    qtbot.waitUntil(lambda: w.panels["weight"].problem is s.problem, timeout=10000)
    qtbot.waitUntil(lambda: curve_problems and curve_problems[-1][0] is s.problem, timeout=10000)
    last = s.current.iteration
    s.scrub(-1)
    assert s.current.iteration == last - 1
    assert np.allclose(s.problem.points.X[i], target, atol=0.05)


def test_live_solves_the_interior_point_svm_on_a_working_set_and_reset_still_steps_its_iterates(qtbot, live_window, monkeypatch):
    import percviz.core.dual_qp as qp
    import percviz.core.solvers.svm as svm

    w = live_window
    with w.session.batch():
        w.scene.set_points(_separable(60), undoable=False)
        w.scene.set_settings(algorithm="svm", kernel="rbf:gamma=0.5", features="linear",
                             params={"method": "interior-point"})
    w.classroom.live.set_on(True)
    qtbot.waitUntil(lambda: w.session.finished, timeout=10000)
    solves = _count_calls(monkeypatch, qp, "solve_dual", keep_kwargs=True)
    w.scene.add_point(2.9, 2.9, 0)
    qtbot.waitUntil(lambda: w.session.finished and w.session.problem.n == w.scene.n, timeout=10000)
    live = w.session.latest
    # QPs to the solution, not one per replayed interior-point iterate: on a working set that starts at the last
    # support vectors and takes in the points violating their margin (one solve per round, fewer points than n)
    n = w.session.problem.n
    sizes = [len(args[1]) for args, _kw in solves]
    assert 1 <= len(sizes) <= qp.MAX_WORKING_ROUNDS and max(sizes) < n, sizes
    assert "working set" in live.message
    assert [s.iteration for s in w.session.history] == [0, 1]
    replayed = svm.SVM(w.session.problem, max_iter=200).run()  # the default: every iterate replayed
    assert replayed.iteration > 1
    assert live.metrics["objective"] == pytest.approx(replayed.metrics["objective"], rel=1e-6)
    X = w.session.problem.X
    assert np.sign(live.decision(X)).tolist() == np.sign(replayed.decision(X)).tolist()
    # Reset is not an edit: the iterates are there to step through by hand
    w.controls.request_reset()
    w.session.wait_idle()
    w.session.advance_sync(1000)
    assert w.session.latest.iteration == replayed.iteration


def test_a_live_run_over_its_budget_shows_its_latest_state_and_says_it_is_still_running(qtbot, live_window):
    w = live_window
    with w.session.batch():
        w.scene.set_points(_separable(100), undoable=False)
        # LMS with a tiny step: far more than 20,000 updates, so it runs on the worker
        w.scene.set_settings(algorithm="lms", kernel="affine", features="linear", params={}, max_iter=10**6)
    w.classroom.live.set_on(True)
    box = w.controls.live_box
    canvas = w.panels["canvas"]
    for edit in ("add", "drag"):
        if edit == "add":
            w.scene.add_point(-2.9, -2.9, 1)
        else:
            w.scene.begin_drag()
            w.scene.move_point(0, *(w.scene.points.X[0] + 0.1))
        s = w.session
        qtbot.waitUntil(lambda: s.state == "running" and canvas.snapshot is not None  # this run's, not the last one's
                        and canvas.snapshot.iteration > 0 and any(h is canvas.snapshot for h in s.history[-64:]),
                        timeout=10000)
        first = canvas.snapshot
        assert not first.status.done and "still running" in box.text()
        assert s.problem.points.X.shape[0] == w.scene.n and np.array_equal(s.problem.points.X, w.scene.points.X)
        qtbot.waitUntil(lambda: canvas.snapshot.iteration > first.iteration, timeout=10000)  # the latest state
        assert s.state == "running" and "still running" in box.text()
        s.pause()
        assert "still running" not in box.text()
        if edit == "drag":
            w.scene.end_drag()


class _PaintPasses(QObject):
    """Counts the window repaints (UpdateRequest passes) in which some widget inside `root` painted."""

    def __init__(self, root):
        super().__init__()
        self.root, self.passes, self._painted = root, 0, False

    def eventFilter(self, obj, event):
        kind = event.type()
        if kind == QEvent.Type.UpdateRequest and isinstance(obj, QWidget) and obj.isWindow():
            self._painted = False
        elif kind == QEvent.Type.Paint and not self._painted and isinstance(obj, QWidget) and (
                obj is self.root or self.root.isAncestorOf(obj)):
            self._painted = True
            self.passes += 1
        return False


#: One algorithm of each family (and its scene: classes, kernel): each move of a drag gets its own final boundary.
FAMILIES = [
    ("batch-perceptron", 2, "affine"),
    ("mse", 2, "affine"),
    ("ho-kashyap-identity", 2, "affine"),
    ("lp-perceptron", 2, "affine"),
    ("svm", 2, "rbf:gamma=0.5"),
    ("smo", 2, "rbf:gamma=0.5"),
    ("kesler", 3, "affine"),
    ("normalized-perceptron", 2, "affine"),
    ("relaxation", 2, "affine"),
    ("snkpvn", 2, "rbf:gamma=0.5"),
]


def _three_classes(n, seed=2):
    rng = np.random.default_rng(seed)
    centres = np.array([[-2.0, -1.5], [2.0, -1.5], [0.0, 2.0]])
    c = np.arange(n) % 3
    return PointSet(centres[c] + 0.4 * rng.standard_normal((n, 2)), c)


@pytest.mark.parametrize("name,classes,kernel", FAMILIES)
def test_every_family_gets_a_final_boundary_per_real_mouse_move_and_the_controls_repaint_at_most_once(
        qtbot, live_window, monkeypatch, name, classes, kernel):
    w = live_window
    points = _separable(60) if classes == 2 else _three_classes(60)
    with w.session.batch():
        w.scene.set_points(points, undoable=False)
        w.scene.set_settings(algorithm=name, kernel=kernel, features="linear", params={})
    canvas = w.panels["canvas"]
    canvas.viewbox.setRange(xRange=(-4, 4), yRange=(-4, 4), padding=0)
    w.classroom.live.set_on(True)
    qtbot.waitUntil(lambda: w.session.finished, timeout=10000)
    monkeypatch.setattr(panel_feed, "DRAG_PAUSE_MS", 3000)  # a stalled machine must not fake the drag's pause
    w.classroom.live._settle.setInterval(2000)
    X = w.scene.points.X
    i = int(np.argmax(X[:, 0] + X[:, 1]))
    x0, y0 = X[i]
    vp = canvas.plot.viewport()
    QTest.mousePress(vp, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier, canvas_pos(w, x0, y0))
    QTest.mouseMove(vp, canvas_pos(w, x0 - 0.4, y0))  # beyond pyqtgraph's drag distance: the drag starts
    s = w.session
    qtbot.waitUntil(lambda: w.scene.dragging and s.finished, timeout=10000)
    x0 -= 0.4
    passes, runs = _PaintPasses(w.controls), []

    def restarted(problem, _cls):  # a rerun per scene move (a mouse move may bring more than one)
        runs.append(problem)

    s.problemChanged.connect(restarted)
    QApplication.instance().installEventFilter(passes)
    moves, served = 8, 0
    try:
        for k in range(1, moves + 1):
            target = (x0 - 0.04 * k, y0 - 0.03 * k)
            QTest.mouseMove(vp, canvas_pos(w, *target))

            def drawn() -> bool:  # this move's finished run is the one on the canvas
                return bool(s.finished and canvas.snapshot is s.latest and s.problem is not None
                            and np.allclose(s.problem.points.X[i], target, atol=0.05))

            qtbot.waitUntil(drawn, timeout=10000)
            served += 1
            QApplication.processEvents()  # its repaint
    finally:
        QApplication.instance().removeEventFilter(passes)
    s.problemChanged.disconnect(restarted)
    shown = []
    s.snapshotShown.connect(shown.append)
    QTest.mouseRelease(vp, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier, canvas_pos(w, *target))
    # the drag's end reruns the scene in full (History, scrubbing): the views go from the drag's last boundary
    # to the rerun's, never through its iteration 0
    live = w.classroom.live
    qtbot.waitUntil(lambda: s.finished and not live._settle.isActive() and s.latest is not None
                    and len(s.history_store) == s.latest.iteration + 1, timeout=15000)
    s.snapshotShown.disconnect(shown.append)
    assert all(snap.status.done for snap in shown), [snap.iteration for snap in shown]
    assert served == moves
    # the controls show each rerun's result once: no "Starting…"/Step-enabled frame in between, no extra repaints
    # of the status text (one pass more: the history label may still catch up with the drag's first move)
    assert runs and passes.passes <= len(runs) + 1, (passes.passes, len(runs))
    assert not w.controls.step_button.isEnabled() and "Starting" not in w.controls.status.text()
