"""Live mode on the real window: every edit reruns to the end; a drag shows the final boundary many times."""

from __future__ import annotations

import numpy as np
import pytest
from PySide6.QtCore import Qt
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication, QCheckBox

from helpers import canvas_pos
from percviz.app import timing
from percviz.app.run import live
from percviz.core.data import PointSet
from percviz.core.presets import SHIPPED_DIR, load_preset, save_preset



def _separable(n, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.uniform(-3, 3, size=(n, 2))
    keep = np.abs(X[:, 0] + 0.5 * X[:, 1]) > 0.4
    X = X[keep][:n]
    return PointSet(X, (X[:, 0] + 0.5 * X[:, 1] < 0).astype(int))


def _live_rbf_run(qtbot, w, n: int, algorithm: str) -> None:
    """n separable points, `algorithm` on the RBF kernel (γ = 0.5), live mode on; waits for the run's end."""
    with w.session.batch():
        w.scene.set_points(_separable(n), undoable=False)
        w.scene.set_settings(algorithm=algorithm, kernel="rbf:gamma=0.5", features="linear", params={})
    w.classroom.live.set_on(True)
    qtbot.waitUntil(lambda: w.session.finished, timeout=10000)


def test_live_toggle_key_menu_box_and_an_edit_runs_to_the_end(qtbot, live_window):
    w = live_window
    box = next(b for b in w.findChildren(QCheckBox) if b.accessibleName() == "live")
    assert not box.isChecked()
    assert w.classroom.live.action in w.run_menu.actions()
    w.panels["canvas"].plot.setFocus()
    QTest.keyClick(w.panels["canvas"].plot, Qt.Key.Key_L)
    assert box.isChecked() and w.classroom.live.on and w.classroom.prefs.live
    w.session.wait_idle()
    qtbot.waitUntil(lambda: w.session.finished, timeout=5000)
    assert w.session.current.status.value == "separator"
    j = int(np.flatnonzero(w.scene.points.classes == 0)[0])
    w.scene.add_point(*(w.scene.points.X[j] * 1.05), 0)  # beyond a + point: still separable
    QApplication.processEvents()
    qtbot.waitUntil(lambda: w.session.finished and w.session.problem.n == w.scene.n, timeout=5000)
    assert w.session.current.iteration > 0 and w.session.current.status.done
    # history and scrubbing work on the finished run
    last = w.session.current.iteration
    w.session.scrub(-1)
    assert w.session.current.iteration < last
    # Reset is not an edit: iteration 0 stays, to step by hand
    w.controls.request_reset()
    w.session.wait_idle()
    QApplication.processEvents()
    w.session.wait_idle()
    assert w.session.current.iteration == 0
    QTest.keyClick(w.panels["canvas"].plot, Qt.Key.Key_L)
    assert not box.isChecked() and not w.classroom.live.on


def test_live_is_saved_in_presets_and_the_default_scene_has_it_on(qtbot, live_window, tmp_path):
    w = live_window
    w.classroom.live.set_on(True)
    path = tmp_path / "live.json"
    save_preset(w.current_preset(), path)
    assert load_preset(path).view.live is True
    w.classroom.live.set_on(False)
    w.load_preset(load_preset(path))
    assert w.classroom.live.on
    w.load_preset(load_preset(SHIPPED_DIR / "thin-margin.json"))  # says nothing: the user's choice stays
    assert w.classroom.live.on
    w.classroom.live.set_on(False)
    w.load_preset(load_preset(SHIPPED_DIR / "default.json"))
    assert w.classroom.live.on


def test_dragging_a_point_with_live_on_updates_the_final_boundary_many_times(qtbot, live_window):
    w = live_window
    w.scene.set_points(_separable(100))
    w.scene.set_settings(algorithm="fixed-increment", params={})
    w.panels["canvas"].viewbox.setRange(xRange=(-4, 4), yRange=(-4, 4), padding=0)
    w.classroom.live.set_on(True)
    qtbot.waitUntil(lambda: w.session.finished, timeout=5000)
    finals = []
    w.session.snapshotShown.connect(lambda snap: finals.append(snap) if snap.status.done else None)
    i = int(np.argmax(w.scene.points.X[:, 0] + 0.5 * w.scene.points.X[:, 1]))  # the farthest + point
    x0, y0 = w.scene.points.X[i]
    vp = w.panels["canvas"].plot.viewport()
    QTest.mousePress(vp, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier, canvas_pos(w, x0, y0))
    moves = 40
    for k in range(1, moves + 1):
        QTest.mouseMove(vp, canvas_pos(w, x0 - 0.04 * k, y0 - 0.02 * k))
        QTest.qWait(15)
        assert w.scene.points.X[i][0] == pytest.approx(x0 - 0.04 * k, abs=0.05)
    QTest.mouseRelease(vp, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier,
                       canvas_pos(w, x0 - 0.04 * moves, y0 - 0.02 * moves))
    qtbot.waitUntil(lambda: w.session.finished, timeout=5000)
    QApplication.processEvents()
    assert len(finals) >= 10, len(finals)  # the final boundary was redrawn during the drag, not only at the end
    problems = {id(s.decision) for s in finals}
    assert len(problems) >= 10
    assert w.panels["canvas"].snapshot.status.done  # what the canvas shows now is a finished run
    assert w.session.problem.points.X[i][0] == pytest.approx(x0 - 0.04 * moves, abs=0.05)


def test_live_runs_are_computed_on_the_worker_and_end_where_a_headless_run_ends(qtbot, live_window, monkeypatch):
    """Every snapshot of a Live drag's reruns and of an added point's rerun is computed off the UI thread (no
    generator comes back to it), and the finished run shown is the one a headless run of the same scene reaches."""
    import threading

    from percviz.app.run import session as session_module
    from percviz.core.problem import Problem
    from percviz.core.solvers import get_solver

    w = live_window
    w.scene.set_points(_separable(80))
    w.scene.set_settings(algorithm="fixed-increment", kernel="affine", features="linear", params={})
    w.panels["canvas"].viewbox.setRange(xRange=(-4, 4), yRange=(-4, 4), padding=0)
    w.classroom.live.set_on(True)
    qtbot.waitUntil(lambda: w.session.finished, timeout=5000)
    on_ui, off_ui = [], []
    real = session_module.strided_snapshots

    def recorded(*args, **kwargs):
        for snap in real(*args, **kwargs):
            (on_ui if threading.current_thread() is threading.main_thread() else off_ui).append(snap)
            yield snap

    monkeypatch.setattr(session_module, "strided_snapshots", recorded)
    s = w.session
    runs = s.live_runs
    i = int(np.argmax(w.scene.points.X[:, 0] + 0.5 * w.scene.points.X[:, 1]))
    x0, y0 = w.scene.points.X[i]
    vp = w.panels["canvas"].plot.viewport()
    QTest.mousePress(vp, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier, canvas_pos(w, x0, y0))
    QTest.mouseMove(vp, canvas_pos(w, x0 - 0.4, y0))  # beyond pyqtgraph's drag distance: the drag starts
    x0 -= 0.4
    for k in range(1, 9):
        target = (x0 - 0.05 * k, y0 - 0.03 * k)
        QTest.mouseMove(vp, canvas_pos(w, *target))
        qtbot.waitUntil(lambda: s.finished and s.problem is not None
                        and np.allclose(s.problem.points.X[i], target, atol=0.05), timeout=5000)
    QTest.mouseRelease(vp, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier, canvas_pos(w, *target))
    w.scene.add_point(-2.5, 2.5, 1)
    qtbot.waitUntil(lambda: s.finished and s.problem is not None and s.problem.n == w.scene.n
                    and w.panels["canvas"].snapshot is s.latest, timeout=5000)
    assert s.live_runs >= runs + 9
    assert off_ui and on_ui == [], f"{len(on_ui)} snapshots computed on the UI thread"
    headless = get_solver("fixed-increment")(Problem(w.scene.points, "affine", "linear"), max_iter=w.scene.settings.max_iter).run()
    shown = w.panels["canvas"].snapshot
    assert shown.status.done and shown.iteration == headless.iteration
    assert np.allclose(shown.weights, headless.weights)


def _cold(problem, name="smo"):
    from percviz.core.solvers import get_solver

    snap = get_solver(name)(problem, max_iter=100_000).run()
    return snap


def test_live_smo_reruns_start_from_the_mapped_alpha_and_reach_the_cold_optimum(qtbot, live_window):
    w = live_window
    _live_rbf_run(qtbot, w, 120, "smo")
    i = int(np.argmax(w.scene.points.X[:, 0]))
    x, y = w.scene.points.X[i]
    for edit in (lambda: w.scene.move_point(i, x - 0.3, y + 0.1), lambda: w.scene.remove_point(3),
                 lambda: w.scene.add_point(-2.9, -2.9, 1)):
        edit()
        qtbot.waitUntil(lambda: w.session.finished and w.session.problem is not None, timeout=10000)
        warm, cold = w.session.latest, _cold(w.session.problem)
        assert warm.iteration < cold.iteration  # fewer pairs than from α = 0
        assert warm.metrics["objective"] == pytest.approx(cold.metrics["objective"], rel=1e-3)
        X = w.session.problem.X
        assert np.sign(warm.decision(X)).tolist() == np.sign(cold.decision(X)).tolist()


def test_heavy_views_catch_up_when_a_drag_pauses_not_on_every_move(qtbot, live_window):
    w = live_window
    weight = w.panels["weight"]
    assert w.docks["weight"].isVisible()
    first = w.session.problem
    assert weight.problem is first
    w.scene.begin_drag()
    w.scene.move_point(0, *(w.scene.points.X[0] + 0.05))
    qtbot.waitUntil(lambda: w.session.problem is not None and w.session.problem is not first, timeout=5000)
    assert weight.problem is first  # still the picture of before the move
    qtbot.waitUntil(lambda: weight.problem is w.session.problem, timeout=5000)  # the drag paused
    w.scene.end_drag()


def test_runs_during_a_drag_skip_the_bound_and_the_paused_drag_gets_it_back(qtbot, live_window):
    w = live_window
    _live_rbf_run(qtbot, w, 60, "snkp")
    assert w.session.latest.metrics.get("bound") is not None
    shown = []  # (problem, bound) of each finished snapshot shown from here on
    w.session.snapshotShown.connect(
        lambda snap: shown.append((w.session.problem, snap.metrics.get("bound"))) if snap.status.done else None)
    w.scene.begin_drag()
    x, y = w.scene.points.X[0]
    w.scene.move_point(0, x + 0.01, y)
    moved = w.session.problem
    qtbot.waitUntil(lambda: any(p is moved for p, _ in shown), timeout=10000)
    assert [b for p, b in shown if p is moved] == [None]  # no ρ_K while the point moves
    # paused: the full rerun finishes, and its bound comes with ρ_K (an LP of its own, possibly a moment later)
    qtbot.waitUntil(lambda: w.session.problem is not moved and w.session.finished
                    and w.session.latest.metrics.get("bound") is not None, timeout=10000)
    snap = w.session.latest
    bound = snap.metrics.get("bound")
    assert bound is not None and snap.iteration <= bound  # the paper's bound on the updates holds
    w.scene.end_drag()


def test_a_late_rho_never_holds_the_ui_thread_and_its_bound_comes_when_it_arrives(qtbot, live_window, monkeypatch):
    """Live SNKP: ρ_K of the edited scene is held back on every other thread (the session's ρ_K task, or the
    worker computing iteration 0's bound) until released. The UI thread never computes nor waits for it: the run
    is the worker's (no generator comes back to the UI thread), and the event loop keeps turning while ρ_K is held;
    once ρ_K arrives the finished snapshot carries the bound (Theorem 1: it bounds the updates), on the same Problem."""
    import threading

    from PySide6.QtCore import QTimer

    from percviz.core import gram

    w = live_window
    _live_rbf_run(qtbot, w, 60, "snkp")
    s = w.session
    release, real_margin, real_lock = threading.Event(), gram._margin_on, gram._key_lock
    held, ui_margins, ui_waits, turns = [], [], [], []

    def gated(*args, **kwargs):
        if threading.current_thread() is threading.main_thread():
            ui_margins.append(1)
        else:
            held.append(1)
            assert release.wait(10), "the test's gate was never opened"
        return real_margin(*args, **kwargs)

    class RecordedLock:
        """ρ_K's per-key lock: records how long the UI thread asks to wait for it (the wait it would block)."""

        def __init__(self, lock):
            self.lock = lock

        def acquire(self, blocking=True, timeout=-1):
            if threading.current_thread() is threading.main_thread():
                ui_waits.append(timeout if blocking else 0.0)
            return self.lock.acquire(blocking, timeout)

        def release(self):
            self.lock.release()

        def __enter__(self):
            self.acquire()
            return self

        def __exit__(self, *exc):
            self.release()

    monkeypatch.setattr(gram, "_margin_on", gated)
    monkeypatch.setattr(gram, "_key_lock", lambda *a: RecordedLock(real_lock(*a)))
    ticker = QTimer(interval=10)
    ticker.timeout.connect(lambda: turns.append(release.is_set()))
    ticker.start()
    x, y = w.scene.points.X[0]
    w.scene.move_point(0, x + 0.01, y)  # an edit, not a drag: the full run with its bound
    edited = s.problem
    qtbot.waitUntil(lambda: bool(held), timeout=10000)
    qtbot.waitUntil(lambda: turns.count(False) >= 20, timeout=10000)  # ρ_K held: the event loop still turns
    first = s.latest.metrics.get("bound") if s.finished else None
    release.set()
    qtbot.waitUntil(lambda: s.finished and s.latest.metrics.get("bound") is not None, timeout=10000)
    ticker.stop()
    assert s.problem is edited  # the same Problem: ρ_K's memo, not a second computation
    assert s.latest.iteration <= s.latest.metrics["bound"]
    assert ui_margins == [], "the UI thread computed ρ_K"
    assert all(0 <= t <= timing.LIVE_SYNC_S for t in ui_waits), ui_waits
    assert first is None


def test_perceptrons_warm_start_in_live_only_when_asked(qtbot, hall_window):
    """Thin-margin scene, fixed increment, Live on: by default an edit reruns the textbook algorithm from a = 0
    (thousands of corrections); with Run ▸ "start perceptrons from the last weights" a small edit needs a handful,
    and the result still separates every point. Reset (stepping by hand) always starts from 0."""
    w = hall_window(SHIPPED_DIR / "thin-margin.json")
    w.controls.select_algorithm("fixed-increment")
    w.classroom.live.set_on(True)
    qtbot.waitUntil(lambda: w.session.finished, timeout=60000)
    cold = w.session.current.iteration
    assert cold > 1000 and w.session.current.status.value == "separator"
    warm = w.findChild(type(w.step_action), "action_live_warm")
    assert warm in w.run_menu.actions() and not warm.isChecked()  # off: the algorithm as written

    def click_far_plus():
        j = int(np.flatnonzero(w.scene.points.classes == 0)[0])  # beyond a + point: still separable
        x, y = w.scene.points.X[j] * 1.02
        n = w.scene.n
        QTest.mouseClick(w.panels["canvas"].plot.viewport(), Qt.MouseButton.LeftButton,
                         Qt.KeyboardModifier.NoModifier, canvas_pos(w, x, y))
        qtbot.waitUntil(lambda: w.scene.n == n + 1 and w.session.finished and w.session.problem.n == n + 1,
                        timeout=60000)
        return w.session.current

    w.controls.class_selector.set_current_class(0)
    snap = click_far_plus()
    assert snap.iteration > 1000 and "warm start" not in snap.message  # still from 0
    warm.trigger()
    assert warm.isChecked() and w.classroom.prefs.live_warm
    snap = click_far_plus()
    assert snap.status.value == "separator" and snap.iteration < 100, snap.iteration
    assert "warm start" in snap.message
    Y = np.asarray(w.session.problem.Y)
    assert (Y @ np.asarray(snap.weights) > 0).all()  # every point strictly on its side, checked here
    w.controls.request_reset()
    w.session.wait_idle()
    QApplication.processEvents()
    w.session.wait_idle()
    assert w.session.current.iteration == 0 and not np.any(w.session.current.weights)  # by hand: from a = 0
    warm.trigger()
    assert not w.classroom.prefs.live_warm


def test_the_public_accessible_names_hold_on_the_full_window_live_included(live_window):
    """The names scripts and screen readers use (issue 12's contract), on the window a lecturer gets."""
    from PySide6.QtGui import QAction
    from PySide6.QtWidgets import QWidget

    names = {x.accessibleName() for x in live_window.findChildren(QWidget)}
    for name in ("canvas", "algorithm", "kernel", "step", "play", "reset", "speed", "history", "status", "live"):
        assert name in names, name
    assert any(n.startswith("param:") for n in names)
    actions = {a.objectName() for a in live_window.findChildren(QAction)}
    assert {"action_presentation", "action_live"} <= actions


def test_with_live_on_every_kind_of_edit_reruns_to_the_end(qtbot, hall_window):
    """Delete (Ctrl+click, Del), undo, redo, a kernel chosen in its box and a parameter typed + Enter: each one
    shows the finished run of the edited scene (only add and drag were tested)."""
    w = hall_window(SHIPPED_DIR / "xor-rbf.json")
    c = w.panels["canvas"]
    vp = c.plot.viewport()
    c.plot.setFocus()
    QTest.keyClick(c.plot, Qt.Key.Key_L)
    assert w.classroom.live.on

    def finished(n=None):
        qtbot.waitUntil(lambda: w.session.finished and w.session.problem is not None
                        and w.session.problem.n == w.scene.n, timeout=20000)
        QApplication.processEvents()
        assert w.session.current.status.done and c.snapshot is not None and c.snapshot.status.done
        if n is not None:
            assert w.scene.n == n
        return w.session.current

    finished()
    n = w.scene.n
    x, y = w.scene.points.X[0]
    QTest.mouseClick(vp, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.ControlModifier, canvas_pos(w, x, y))
    finished(n - 1)
    QTest.keyClick(c.plot, Qt.Key.Key_Z, Qt.KeyboardModifier.ControlModifier)
    finished(n)
    QTest.keyClick(c.plot, Qt.Key.Key_Z, Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.ShiftModifier)
    finished(n - 1)
    x, y = w.scene.points.X[1]
    QTest.mouseMove(vp, canvas_pos(w, x, y))
    QTest.keyClick(c.plot, Qt.Key.Key_Delete)  # Edit ▸ Delete point under the cursor
    finished(n - 2)
    box = w.controls.kernel
    box.setCurrentIndex(box.findData("poly"))  # as a pick in the kernel box does
    finished()
    assert w.session.problem.kernel.spec.startswith("poly")
    field = w.controls.kernel_form.editor("degree")
    QTest.mouseClick(field, Qt.MouseButton.LeftButton)
    field.selectAll()
    QTest.keyClicks(field, "3")
    QTest.keyClick(field, Qt.Key.Key_Return)
    finished()
    assert "degree=3" in w.session.problem.kernel.spec.replace(" ", "")
