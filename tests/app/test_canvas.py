"""The canvas with real mouse events: placing, dragging, deleting points; what it draws for a snapshot."""

import time

import numpy as np
import pytest
from helpers import canvas_pos
from PySide6.QtCore import QEvent, QPointF, QRectF, Qt
from PySide6.QtGui import QMouseEvent
from PySide6.QtWidgets import QApplication

from percviz.app.panels.canvas import MAX_SLACK_LABELS, CanvasView, stepped_level
from percviz.app.panels.canvas.tooltip import point_tooltip
from percviz.core.data import PointSet
from percviz.core.decision import FeatureLinear
from percviz.core.features import parse_features
from percviz.core.problem import Problem
from percviz.core.scene import SceneModel
from percviz.core.solvers import get_solver, load_all
from percviz.core.solvers.base import Snapshot, Status

load_all()

POINTS = PointSet(np.array([[-1.0, 1.0], [1.5, 1.0], [-1.0, -1.5], [1.0, -1.0]]), np.array([0, 0, 1, 1]))


def _shown_canvas(qtbot, scene) -> CanvasView:
    """A 640×520 canvas on the screen, viewing [-3, 3]²."""
    view = CanvasView(scene)
    qtbot.addWidget(view)
    view.resize(640, 520)
    view.show()
    qtbot.waitExposed(view)
    view.viewbox.setRange(xRange=(-3, 3), yRange=(-3, 3), padding=0)
    return view


@pytest.fixture
def canvas(qtbot):
    view = _shown_canvas(qtbot, SceneModel(POINTS))
    QApplication.processEvents()
    return view


def _px(canvas):
    return max(canvas.viewbox.viewPixelSize())


def _click(qtbot, canvas, x, y, button=Qt.MouseButton.LeftButton, mods=Qt.KeyboardModifier.NoModifier):
    qtbot.mouseClick(canvas.plot.viewport(), button, mods, canvas_pos(canvas, x, y))


def _move(canvas, x, y, buttons=Qt.MouseButton.NoButton):
    time.sleep(0.02)  # pyqtgraph's scene drops mouse moves faster than its rate limit
    vp = canvas.plot.viewport()
    p = QPointF(canvas_pos(canvas, x, y))
    ev = QMouseEvent(QEvent.Type.MouseMove, p, vp.mapToGlobal(p), Qt.MouseButton.NoButton, buttons, Qt.KeyboardModifier.NoModifier)
    QApplication.sendEvent(vp, ev)
    QApplication.processEvents()


def test_clicks_place_points_with_the_right_label_and_coordinates(qtbot, canvas):
    scene = canvas.scene_model
    _click(qtbot, canvas, 0.5, 2.0)
    _click(qtbot, canvas, -2.0, 0.25, Qt.MouseButton.RightButton)
    _click(qtbot, canvas, 2.0, -2.0, mods=Qt.KeyboardModifier.ShiftModifier)
    canvas.current_class = 2
    _click(qtbot, canvas, 0.0, 0.0)
    pts = scene.points
    assert pts.n == 8
    np.testing.assert_allclose(pts.X[4:], [[0.5, 2.0], [-2.0, 0.25], [2.0, -2.0], [0.0, 0.0]], atol=2 * _px(canvas))
    assert pts.classes[4:].tolist() == [0, 1, 1, 2]


def test_drag_moves_a_point_in_one_undo_step(qtbot, canvas):
    scene = canvas.scene_model
    vp = canvas.plot.viewport()
    qtbot.mousePress(vp, Qt.MouseButton.LeftButton, pos=canvas_pos(canvas, -1.0, 1.0))
    for t in np.linspace(0, 1, 6)[1:]:
        _move(canvas, -1.0 + 1.5 * t, 1.0 + 0.5 * t, Qt.MouseButton.LeftButton)
    qtbot.mouseRelease(vp, Qt.MouseButton.LeftButton, pos=canvas_pos(canvas, 0.5, 1.5))
    assert scene.n == 4
    np.testing.assert_allclose(scene.points.X[0], [0.5, 1.5], atol=2 * _px(canvas))
    assert scene.undo()
    np.testing.assert_allclose(scene.points.X[0], [-1.0, 1.0])
    assert not scene.can_undo  # the whole drag was one step


def test_drag_on_empty_space_pans_instead(qtbot, canvas):
    vp = canvas.plot.viewport()
    before = canvas.viewbox.viewRange()[0][0]
    qtbot.mousePress(vp, Qt.MouseButton.LeftButton, pos=canvas_pos(canvas, 0.0, 0.0))
    for t in np.linspace(0, 1, 6)[1:]:
        _move(canvas, 1.0 * t, 0.0, Qt.MouseButton.LeftButton)
    qtbot.mouseRelease(vp, Qt.MouseButton.LeftButton, pos=canvas_pos(canvas, 1.0, 0.0))
    assert canvas.scene_model.n == 4 and not canvas.scene_model.can_undo
    assert canvas.viewbox.viewRange()[0][0] < before - 0.5


def test_ctrl_click_and_delete_remove_points(qtbot, canvas):
    scene = canvas.scene_model
    _click(qtbot, canvas, 1.5 + 3 * _px(canvas), 1.0, mods=Qt.KeyboardModifier.ControlModifier)
    assert scene.n == 3 and [1.5, 1.0] not in scene.points.X.tolist()
    hovered = []
    canvas.pointHovered.connect(hovered.append)
    _move(canvas, -1.0, -1.5)
    assert hovered[-1] == scene.nearest(-1.0, -1.5)
    qtbot.keyClick(canvas.plot, Qt.Key.Key_Delete)
    assert scene.n == 2 and [-1.0, -1.5] not in scene.points.X.tolist()
    _move(canvas, 1.0, -1.0)
    qtbot.keyClick(canvas.plot.viewport(), Qt.Key.Key_Backspace)
    assert scene.points.X.tolist() == [[-1.0, 1.0]]


def test_cursor_coordinates_are_reported(qtbot, canvas):
    seen = []
    canvas.cursorMoved.connect(lambda x, y: seen.append((x, y)))
    _move(canvas, 1.25, -0.75)
    assert seen and np.allclose(seen[-1], (1.25, -0.75), atol=2 * _px(canvas))


def _snapshot(decision, **kw):
    kw.setdefault("status", Status.RUNNING)
    return Snapshot(iteration=kw.pop("iteration", 3), decision=decision, metrics={"margin": 0.1}, **kw)


def test_linear_decision_draws_exact_boundary_and_margin_lines(canvas):
    # f(x) = x2 − 0.5 x1 + 0.25 (a·φ with φ = (1, x1, x2)): the boundary is the line x2 = 0.5 x1 − 0.25
    prob = Problem(canvas.scene_model.points)
    canvas.set_problem(prob, None)
    a = np.array([0.25, -0.5, 1.0])
    canvas.set_snapshot(_snapshot(FeatureLinear(parse_features("linear"), a), triggers=(2,)))
    canvas.redraw_now()
    x, y = canvas.boundary_curve.getData()
    pts = np.column_stack([x, y])
    pts = pts[np.isfinite(pts).all(axis=1)]
    assert len(pts) == 2 and np.ptp(pts[:, 0]) > 6  # one exact line crossing the whole view
    np.testing.assert_allclose(pts @ a[1:] + a[0], 0.0, atol=1e-9)
    # margin lines at ±δ with δ = min_i y_i f(x_i) pass through the closest point
    X, yl = prob.X, prob.y
    f = X @ a[1:] + a[0]
    delta = np.min(yl * f)
    assert delta > 0
    mx, my = canvas.margin_curve.getData()
    M = np.column_stack([mx, my])
    M = M[np.isfinite(M).all(axis=1)]
    levels = np.unique(np.round(M @ a[1:] + a[0], 9))
    np.testing.assert_allclose(levels, [-delta, delta], atol=1e-9)
    # the trigger ring sits on point 2
    tx, ty = canvas.trigger_ring.getData()
    assert np.allclose([tx[0], ty[0]], X[2])
    # the colour map is symmetric, clipped at the "nice" number just above the largest |f(x_i)| = 1.75
    lo, hi = canvas.image.getLevels()
    assert np.isclose(-lo, hi) and np.abs(f).max() == 1.75 and hi == 2.0


def test_kernel_boundary_follows_the_zero_level(canvas):
    prob = Problem(canvas.scene_model.points, kernel="rbf:gamma=0.8")
    canvas.set_problem(prob, None)
    alpha = np.array([1.0, 0.5, 1.0, 0.25])
    snap = _snapshot(prob.expansion(alpha, rkhs_norm=1.0), alpha=alpha)
    canvas.set_snapshot(snap)
    canvas.redraw_now()
    x, y = canvas.boundary_curve.getData()
    P = np.column_stack([x, y])
    P = P[np.isfinite(P).all(axis=1)]
    assert len(P) > 50
    f_scale = np.abs(snap.decision(prob.X)).max()
    assert np.abs(snap.decision(P)).max() < 0.02 * f_scale  # on the zero level up to grid interpolation
    # halos: one per point with α_i > 0, larger for larger α
    pos, sizes = canvas.halo_data()
    assert len(pos) == 4
    size_of = {tuple(p): s for p, s in zip(pos, sizes)}
    assert size_of[tuple(prob.X[0])] > size_of[tuple(prob.X[3])]


def test_certificate_halos_use_p(canvas):
    prob = Problem(canvas.scene_model.points)
    canvas.set_problem(prob, None)
    p = np.array([0.0, 0.5, 0.5, 0.0])
    snap = _snapshot(prob.expansion(np.ones(4)), status=Status.CERTIFICATE, alpha=np.ones(4), p=p)
    canvas.set_snapshot(snap)
    canvas.redraw_now()
    pos, _ = canvas.halo_data()
    assert sorted(map(tuple, pos)) == sorted(map(tuple, prob.X[[1, 2]]))


def test_multiclass_regions(canvas):
    pts = PointSet(np.array([[0.0, 2.0], [2.0, -1.0], [-2.0, -1.0]]), np.array([0, 1, 2]))
    canvas.scene_model.set_points(pts)
    canvas.set_problem(Problem(pts), None)
    W = np.array([[0.0, 0.0, 1.0], [0.0, 1.0, -0.5], [0.0, -1.0, -0.5]])
    canvas.set_snapshot(_snapshot(FeatureLinear(parse_features("linear"), W)))
    canvas.redraw_now()
    assert canvas.image.image.ndim == 3 and canvas.image.image.shape[2] == 4
    assert not canvas.colorbar.isVisible()
    x, y = canvas.boundary_curve.getData()
    P = np.column_stack([x, y])
    P = P[np.isfinite(P).all(axis=1)]
    g = np.sort(parse_features("linear").transform(P) @ W.T, axis=1)
    assert np.abs(g[:, -1] - g[:, -2]).max() < 0.05  # on the boundaries the two best scores tie


def test_bursts_of_snapshots_evaluate_once(qtbot, canvas):
    prob = Problem(canvas.scene_model.points, kernel="rbf:gamma=0.5")
    canvas.set_problem(prob, None)
    QApplication.processEvents()
    calls = []
    orig = canvas.evaluator.evaluate
    canvas.evaluator.evaluate = lambda d, g: calls.append(g) or orig(d, g)
    for k in range(10):
        canvas.set_snapshot(_snapshot(prob.expansion(np.full(4, k + 1.0)), iteration=k))
    qtbot.waitUntil(lambda: len(calls) >= 1, timeout=2000)
    QApplication.processEvents()
    assert len(calls) == 1 and calls[0].nx == 128  # one coarse evaluation for the burst
    qtbot.waitUntil(lambda: len(calls) == 2, timeout=2000)  # then refined at full resolution
    assert calls[1].nx == 256


def test_new_problem_clears_the_picture(canvas):
    prob = Problem(canvas.scene_model.points)
    canvas.set_problem(prob, None)
    canvas.set_snapshot(_snapshot(prob.expansion(np.ones(4)), triggers=(1,), alpha=np.ones(4)))
    canvas.redraw_now()
    assert len(canvas.boundary_curve.getData()[0]) > 0
    canvas.set_problem(None, None)
    assert canvas.boundary_curve.getData()[0] is None or len(canvas.boundary_curve.getData()[0]) == 0
    assert len(canvas.halo_data()[0]) == 0 and canvas.image.image is None


def test_panel_contract(canvas):
    class NoCanvas:
        views = frozenset({"curves"})
        display_name = "X"

    assert CanvasView.supports(NoCanvas)[0] is False
    assert canvas.accessibleName() == "canvas"
    canvas.highlight_point(1)
    assert len(canvas.hover_ring.getData()[0]) == 1
    canvas.highlight_point(-1)
    assert len(canvas.hover_ring.getData()[0]) == 0


def test_double_click_places_one_point_and_hover_explains_the_point(qtbot, canvas):
    # a real double click: press/release, then the second press arrives as a double-click event
    _click(qtbot, canvas, 2.0, 2.0)
    qtbot.mouseDClick(canvas.plot.viewport(), Qt.MouseButton.LeftButton, pos=canvas_pos(canvas, 2.0, 2.0))
    assert canvas.scene_model.n == 5
    _move(canvas, 1.5, 1.0)
    assert canvas.plot.viewport().toolTip().startswith("point 1 (+) at (1.5, 1)")


def test_every_registered_algorithm_draws(canvas):
    """Each solver's real snapshots (iteration 0 and a few updates) draw without error on the canvas."""
    from percviz.core.solvers import SOLVERS, load_all

    load_all()
    rng = np.random.default_rng(0)
    X = np.concatenate([rng.normal((-1.5, 1.0), 0.5, (8, 2)), rng.normal((1.5, -1.0), 0.5, (8, 2)), rng.normal((1.5, 1.5), 0.4, (6, 2))])
    two = PointSet(X[:16], np.repeat([0, 1], 8))
    three = PointSet(X, np.repeat([0, 1, 2], [8, 8, 6]))
    drawn = 0
    for name, cls in sorted(SOLVERS.items()):
        if not CanvasView.supports(cls)[0]:
            continue
        pts = three if cls.representation == "multiclass" else two
        kernel = "rbf:gamma=0.5" if cls.representation == "kernel" else "affine"
        canvas.scene_model.set_points(pts, undoable=False)
        prob = Problem(pts, kernel=kernel)
        solver = cls(prob, max_iter=30)
        canvas.set_problem(prob, cls)
        snaps = list(solver.snapshots())
        for snap in snaps[:3] + snaps[-2:]:
            canvas.set_snapshot(snap)
            canvas.redraw_now()
        if snaps[-1].status == Status.SEPARATOR:  # a separator runs between the blobs, inside the view
            x, _ = canvas.boundary_curve.getData()
            assert x is not None and np.isfinite(x).sum() >= 2, name
            drawn += 1
    assert drawn >= 8


def test_colour_scale_moves_in_nice_steps():
    assert stepped_level(None, 1.75) == 2.0 and stepped_level(None, 0.031) == pytest.approx(0.04)
    assert stepped_level(2.0, 1.1) == 2.0  # within a factor 2 below: unchanged (no colour bar redraw)
    assert stepped_level(2.0, 0.9) == 1.0 and stepped_level(2.0, 2.1) == 2.5


def _svm_run(kernel="affine"):
    rng = np.random.default_rng(3)
    X = np.vstack([rng.normal((0, 1), 0.9, (12, 2)), rng.normal((1.2, -0.3), 0.9, (12, 2))])
    pts = PointSet(X, np.repeat([0, 1], 12))
    prob = Problem(pts, kernel=kernel)
    cls = get_solver("svm")
    snap = list(cls(prob, margin="soft", C=1.0).snapshots())[-1]
    return pts, prob, cls, snap


def test_soft_margin_svm_draws_margins_at_plus_minus_one_and_every_slack(qtbot):
    pts, prob, cls, snap = _svm_run()
    view = CanvasView(SceneModel(pts))
    qtbot.addWidget(view)
    view.resize(640, 520)
    view.set_problem(prob, cls)
    view.set_snapshot(snap)
    view.redraw_now()
    w1, w2, b = snap.decision.affine()
    w = np.array([w1, w2])
    M = np.column_stack(view.margin_curve.getData())
    M = M[np.isfinite(M).all(axis=1)]
    np.testing.assert_allclose(np.unique(np.round(M @ w + b, 7)), [-1.0, 1.0], atol=1e-6)
    # slacks ξ_i = max(0, 1 − y_i f(x_i)): one segment per point inside the band, ending on its margin line
    f = prob.X @ w + b
    xi = np.maximum(0.0, 1.0 - prob.y * f)
    inside = np.flatnonzero(xi > 1e-6)
    assert 0 < len(inside) < len(xi)
    assert xi.sum() == pytest.approx(snap.metrics["slack_sum"], rel=1e-6)
    segs, labels = view.slack_data()
    starts, ends = segs[0::2], segs[1::2]
    assert len(starts) == len(inside)
    np.testing.assert_allclose(np.sort(starts, axis=0), np.sort(prob.X[inside], axis=0))
    which = [int(np.argmin(np.hypot(*(prob.X - s).T))) for s in starts]
    np.testing.assert_allclose(prob.y[which] * (ends @ w + b), 1.0, atol=1e-9)  # on y f = 1
    np.testing.assert_allclose(np.hypot(*(ends - starts).T), xi[which] / np.linalg.norm(w), rtol=1e-9)
    # the largest slacks are written next to their points, and a hovered point tells its own
    # (those that would cover a larger slack's label are left out)
    assert labels[0] == f"ξ={xi.max():.2g}" and 1 <= len(labels) <= min(len(inside), MAX_SLACK_LABELS)
    j = int(np.argmax(xi))
    assert point_tooltip(view, j).endswith(f"slack ξ = {xi[j]:.3g}")


def test_kernel_svm_margins_are_the_plus_minus_one_levels(qtbot):
    pts, prob, cls, snap = _svm_run("rbf:gamma=0.5")
    view = CanvasView(SceneModel(pts))
    qtbot.addWidget(view)
    view.resize(640, 520)
    view.viewbox.setRange(xRange=(-3, 4), yRange=(-3, 4), padding=0)
    view.set_problem(prob, cls)
    view.set_snapshot(snap)
    view.redraw_now()
    M = np.column_stack(view.margin_curve.getData())
    M = M[np.isfinite(M).all(axis=1)]
    assert len(M) > 20
    np.testing.assert_allclose(np.abs(snap.decision(M)), 1.0, atol=0.05)  # grid contours of f = ±1


def test_disabled_widgets_are_greyed_by_the_theme_palette():
    from PySide6.QtGui import QColor, QPalette

    from percviz.app.theme import THEMES, theme_for

    for name in THEMES:
        t = theme_for(name)
        pal = t.palette()
        for role in (QPalette.ButtonText, QPalette.WindowText, QPalette.Text):
            on, off = pal.color(QPalette.Active, role), pal.color(QPalette.Disabled, role)
            assert on == QColor(t.foreground) and off == QColor(t.disabled_text)
            bg = QColor(t.panel)
            # strictly between the panel colour and the text colour in lightness
            assert min(bg.lightness(), on.lightness()) < off.lightness() < max(bg.lightness(), on.lightness())


def test_run_caption_takes_the_corner_with_fewest_points(qtbot):
    from percviz.app.panels.overlays import attach_run_overlay

    X = np.array([[-2.6 + 0.1 * i, 2.6 - 0.1 * j] for i in range(4) for j in range(4)] + [[2.5, -2.5]])
    scene = SceneModel(PointSet(X, np.r_[np.zeros(16, int), 1]))
    view = _shown_canvas(qtbot, scene)
    caption = attach_run_overlay(view)
    caption.set_solver(get_solver("perceptron"))
    caption.show_snapshot(_snapshot(FeatureLinear(parse_features("linear"), np.array([0.0, 1.0, 1.0]))))
    QApplication.processEvents()
    assert caption.isVisible() and caption.corner == "top-right"
    area = caption._area()
    assert caption.geometry().right() <= area.right() and caption.geometry().top() >= area.top()
    scene.add_point(2.5, 2.5, 0)  # a point moves in under it: the caption moves to a free corner
    scene.add_point(2.3, 2.5, 0)
    assert caption.corner == "bottom-left"


def test_a_presets_view_settings_are_applied_colour_map_levels_shading_halos(canvas):
    from percviz.core.presets import ViewSettings

    prob = Problem(canvas.scene_model.points)
    canvas.set_problem(prob, get_solver("perceptron"))
    a = np.array([0.25, -0.5, 1.0])
    snap = Snapshot(3, Status.RUNNING, FeatureLinear(parse_features("linear"), a), {}, alpha=np.array([1.0, 0, 2, 0]))
    canvas.set_snapshot(snap)
    canvas.redraw_now()
    assert canvas.image.isVisible() and len(canvas.halo_data()[0]) == 2
    default_lut = canvas.image.lut
    canvas.apply_view(ViewSettings(colormap="viridis", levels=(0.0, 0.5), shading=False, halos=False))
    canvas.redraw_now()
    assert not canvas.image.isVisible() and len(canvas.halo_data()[0]) == 0
    x, y = canvas.level_curve.getData()
    P = np.column_stack([x, y])
    P = P[np.isfinite(P).all(axis=1)]
    np.testing.assert_allclose(P @ a[1:] + a[0], 0.5, atol=1e-9)  # the extra level f = 0.5, exactly
    canvas.apply_view(ViewSettings(colormap="viridis"))
    canvas.redraw_now()
    assert canvas.image.isVisible() and not np.array_equal(canvas.image.lut, default_lut)


def test_a_very_long_boundary_is_drawn_aliased_and_a_short_one_smooth(qtbot, canvas):
    # rff:dim=200 with random weights: f = 0 is a maze of thousands of vertices (an antialiased stroke of
    # 12,000 took 230–450 ms per paint on the UI thread); the affine line stays antialiased.
    from percviz.app.panels.canvas import SMOOTH_VERTICES

    prob = Problem(canvas.scene_model.points)
    canvas.set_problem(prob, None)
    phi = parse_features("rff:dim=200,gamma=30,seed=0")
    a = np.random.default_rng(0).normal(size=phi.dimension(2))
    canvas.set_snapshot(_snapshot(FeatureLinear(phi, a)))
    canvas.redraw_now()
    qtbot.waitUntil(lambda: not canvas.computing_picture, timeout=20000)
    n = len(canvas.boundary_curve.getData()[0])
    assert n > SMOOTH_VERTICES and canvas.boundary_curve.opts["antialias"] is False
    canvas.set_snapshot(_snapshot(FeatureLinear(parse_features("linear"), np.array([0.25, -0.5, 1.0]))))
    canvas.redraw_now()
    assert len(canvas.boundary_curve.getData()[0]) == 2 and canvas.boundary_curve.opts["antialias"] is True


def test_multiclass_regions_with_scores_near_the_float32_limit_are_finite_colours(canvas):
    # the 10k soak: class scores of ±3e38 (finite in float32, from huge weights on large features) overflowed in
    # their differences and NaN colours were cast to uint8 ("overflow in subtract", "invalid value in cast")
    import warnings

    from percviz.core.grid import ViewGrid

    grid = ViewGrid.fit(-3, 3, -3, 3, 64)
    P = grid.points()
    F = np.stack([P[:, 1], P[:, 0] - 0.5 * P[:, 1], -P[:, 0] - 0.5 * P[:, 1]]).reshape((3,) + grid.shape)
    F = (F / np.abs(F).max() * 3e38).astype(np.float32)
    rect = QRectF(grid.x_min, grid.y_min, grid.x_max - grid.x_min, grid.y_max - grid.y_min)
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)
        canvas.image_layer.draw_regions(F, rect)
    img = canvas.image.image
    assert img.ndim == 3 and img.dtype == np.uint8
    assert len(np.unique(img[..., :3].reshape(-1, 3), axis=0)) >= 3  # three regions, not one garbage colour
