"""The weight-space and feature-space panels: what they support, hover linking, and real pictures."""


import numpy as np
import pytest
from PySide6.QtCore import QPointF, Qt
from PySide6.QtGui import QMouseEvent
from PySide6.QtWidgets import QApplication

from percviz.app.panels.feature_view import FeatureView
from percviz.app.theme import theme_for
from percviz.app.panels.weight_view import WeightView
from percviz.core import PointSet, Problem
from percviz.core.datasets import one_dimensional, separable, xor
from percviz.core.scene import SceneModel
from percviz.core.decision import ZeroDecision
from percviz.core.solvers import get_solver
from percviz.core.solvers.base import Snapshot, Status

SCENES = {
    "separable-1d": (one_dimensional, "linear1d"),
    "separable-2d": (separable, "linear"),
    "xor": (xor, "linear"),
}


def _view(qtbot, cls, points, size=(560, 480)):
    v = cls(SceneModel(points))
    qtbot.addWidget(v)
    v.resize(*size)
    v.show()
    qtbot.waitExposed(v)
    return v


def _run(problem, name, steps=40):
    solver = get_solver(name)(problem, max_iter=steps)
    return list(solver.snapshots())


def _show(view, problem, name, steps=40):
    cls = get_solver(name)
    view.set_problem(problem, cls)
    if hasattr(view, "wait_ready"):
        assert view.wait_ready(30000)
    hist = _run(problem, name, steps)
    view.set_history(hist)
    view.set_snapshot(hist[-1])
    QApplication.processEvents()
    return hist


def _move_mouse(view, x, y):
    """Move the mouse over data point (x, y) of the view's plot."""
    vb = view.plot.getViewBox()
    scene_pt = vb.mapViewToScene(QPointF(float(x), float(y)))
    pos = view.plot.mapFromScene(scene_pt)
    ev = QMouseEvent(QMouseEvent.MouseMove, QPointF(pos), QPointF(view.plot.viewport().mapToGlobal(pos)),
                     Qt.NoButton, Qt.NoButton, Qt.NoModifier)
    QApplication.sendEvent(view.plot.viewport(), ev)
    QApplication.processEvents()


def _non_blank(image) -> int:
    """Number of distinct colours in a downsampled copy (a blank panel has one or two)."""
    small = image.scaled(160, 140)
    return len({small.pixel(x, y) for x in range(small.width()) for y in range(small.height())})


# --- what the panels serve -----------------------------------------------------------------------
def test_weight_view_explains_itself_for_kernel_and_multiclass_algorithms(qtbot):
    ok, why = WeightView.supports(get_solver("snkp"))
    assert not ok and "kernel algorithm" in why and "feature-space panel" in why
    ok, why = WeightView.supports(get_solver("linear-machine"))
    assert not ok and "one weight vector per class" in why
    assert WeightView.supports(get_solver("perceptron")) == (True, "")
    v = _view(qtbot, WeightView, xor())
    v.set_problem(Problem(xor()), get_solver("snkp"))
    assert v.showing_message and "kernel algorithm" in v.message.text()
    v.set_problem(Problem(xor(), features="quadratic"), get_solver("perceptron"))
    assert v.showing_message and "at most 3 weights" in v.message.text() and "has 6" in v.message.text()
    v.set_problem(Problem(xor()), get_solver("perceptron"))
    assert not v.showing_message and v.mode == "2d"


def test_feature_view_serves_two_class_algorithms_only(qtbot):
    ok, why = FeatureView.supports(get_solver("kesler"))
    assert not ok and "multi-class" in why
    assert FeatureView.supports(get_solver("snkp"))[0] and FeatureView.supports(get_solver("perceptron"))[0]
    v = _view(qtbot, FeatureView, xor())
    v.set_problem(Problem(xor()), get_solver("kesler"))
    assert v.showing_message and "multi-class" in v.message.text()
    v.set_problem(None, get_solver("snkp"))
    assert v.showing_message


def test_feature_view_title_says_exact_or_how_much_it_captures(qtbot):
    pts = separable()
    v = _view(qtbot, FeatureView, pts)
    _show(v, Problem(pts, kernel="affine"), "snkp")
    assert "exact (rank r = 3 ≤ 3)" in v.title.text()
    _show(v, Problem(pts, kernel="rbf:gamma=0.5"), "snkp", steps=5)
    assert "approximate: top 3 components capture" in v.title.text() and "% of trace" in v.title.text()
    share = v.picture.embedding.captured
    assert f"{100 * share:.1f}%" in v.title.text()


def test_feature_view_min_norm_point_is_rho_and_p_point_has_its_g_norm(qtbot):
    pts = separable()
    prob = Problem(pts, kernel="affine")
    v = _view(qtbot, FeatureView, pts)
    hist = _show(v, prob, "snkp")
    from percviz.core.gram import optimal_margin

    assert v.picture.min_norm.norm == pytest.approx(optimal_margin(prob).rho, abs=1e-6)
    p = hist[-1].p
    pt = v.picture.embedding.combine(p)
    assert np.linalg.norm(pt) == pytest.approx(np.sqrt(p @ prob.G @ p), abs=1e-9)
    k = hist[-1].iteration
    assert f"‖p({k})‖_G = {np.sqrt(p @ prob.G @ p):.4g}" in v.readout.text()
    assert f"ρ_K = {v.picture.min_norm.norm:.4g}" in v.readout.text()


# --- the weight-space pictures ----------------------------------------------------------------------
def test_one_dimensional_weight_view_is_the_notes_figure(qtbot):
    pts = one_dimensional()
    v = _view(qtbot, WeightView, pts)
    _show(v, Problem(pts, features="linear1d"), "perceptron")
    assert v.mode == "1d"
    assert "101.31° to 135.00°" in v.title.text()
    np.testing.assert_allclose(v.cone1.shortest, [-1.5, 2.5], atol=1e-9)
    assert "a* = (-1.5, 2.5)" in v.readout.text()
    # with φ = (1, x1, x2) the same points give the same picture: a2 plays no part
    _show(v, Problem(pts, features="linear"), "perceptron")
    assert v.mode == "1d" and "101.31° to 135.00°" in v.title.text() and "x2 = 0" in v.caption.text()


def test_far_hemisphere_iterate_is_drawn_at_the_edge_not_as_a_point(qtbot):
    pts = separable()
    prob = Problem(pts)
    v = _view(qtbot, WeightView, pts)
    v.set_problem(prob, get_solver("perceptron"))
    c = v.cone2.projection.center
    near = c + 0.1 * v.cone2.projection.basis[0]
    for i, a in enumerate((near, -near)):
        v.set_snapshot(Snapshot(iteration=i, status=Status.RUNNING, decision=ZeroDecision(), metrics={}, weights=a))
    labels = [it.toPlainText() for it in v._dynamic if hasattr(it, "toPlainText")]
    assert any("far side (a·c ≤ 0)" in s for s in labels)
    arrows = [it for it in v._dynamic if type(it).__name__ == "ArrowItem"]
    assert len(arrows) == 1
    x0, x1, y0, y1 = v.cone2.view
    assert x0 <= arrows[0].pos().x() <= x1 and y0 <= arrows[0].pos().y() <= y1


def test_empty_cone_says_so_and_keeps_the_constraints(qtbot):
    v = _view(qtbot, WeightView, xor())
    _show(v, Problem(xor()), "perceptron", steps=12)
    assert "the cone is empty — no linear separator" in v.title.text()
    assert len(v._segments) == 4
    # the four XOR rows sum to 0, so the perceptron is back at a = 0 every 4 updates: no direction to draw
    assert "a(12) = 0" in v.readout.text()
    assert not any(hasattr(it, "toPlainText") and it.toPlainText().startswith("a(12)") for it in v._dynamic)


def test_the_empty_cone_label_wraps_inside_a_narrow_view(qtbot):
    v = _view(qtbot, WeightView, xor(), size=(270, 480))
    _show(v, Problem(xor()), "perceptron", steps=12)
    label = v._empty_label
    assert label is not None and "the cone is empty" in label.textItem.toPlainText()
    from PySide6.QtGui import QFontMetricsF

    view_width = v.plot.getViewBox().width()
    one_line = QFontMetricsF(label.textItem.font()).horizontalAdvance("the cone is empty — no linear separator")
    assert one_line > view_width  # on one line it would be cut, as it was
    assert label.textItem.boundingRect().width() <= view_width  # px: the label ignores the view's scaling


# --- hover linking ------------------------------------------------------------------------------------
def test_hovering_a_constraint_line_emits_its_point_and_highlight_draws_it(qtbot):
    pts = one_dimensional()
    v = _view(qtbot, WeightView, pts)
    _show(v, Problem(pts, features="linear1d"), "perceptron")
    z = v.reduction.Z[2]
    on_line = 2.0 * np.array([-z[1], z[0]]) / np.linalg.norm(z)
    with qtbot.waitSignal(v.pointHovered, timeout=2000) as sig:
        _move_mouse(v, *on_line)
    assert sig.args == [2] and v.highlighted == 2 and v._highlight_items
    v.highlight_point(-1)
    assert v.highlighted is None and not v._highlight_items
    v.highlight_point(0)
    assert v.highlighted == 0 and len(v._highlight_items) == 3


def test_hovering_a_feature_point_emits_its_index(qtbot):
    v = _view(qtbot, FeatureView, xor())
    _show(v, Problem(xor()), "snkpvn", steps=5)
    target = v._points_screen[3, :2]
    with qtbot.waitSignal(v.pointHovered, timeout=2000) as sig:
        _move_mouse(v, *target)
    assert sig.args == [3] and v._highlight_items
    v.highlight_point(1)
    assert v.highlighted == 1


def test_rotating_the_3d_feature_view_keeps_it_exact(qtbot):
    pts = separable()
    v = _view(qtbot, FeatureView, pts)
    _show(v, Problem(pts), "snkp")
    before = v._points_screen.copy()
    v.rotate(30, -10)
    after = v._points_screen
    assert not np.allclose(before, after)
    # an orthographic rotation keeps every distance between points
    d0 = np.linalg.norm(before[:5, None] - before[None, :5], axis=2)
    d1 = np.linalg.norm(after[:5, None] - after[None, :5], axis=2)
    np.testing.assert_allclose(d0, d1, atol=1e-12)


# --- screenshots ------------------------------------------------------------------------------------------
@pytest.mark.parametrize("scene", sorted(SCENES))
def test_screenshots_are_not_blank(qtbot, tmp_path, scene):
    make, feats = SCENES[scene]
    pts: PointSet = make()
    for cls, alg in ((WeightView, "perceptron"), (FeatureView, "snkpvn")):
        v = _view(qtbot, cls, pts)
        v.apply_theme(theme_for("light"))
        _show(v, Problem(pts, features=feats), alg, steps=30)
        assert not v.showing_message
        img = v.grab().toImage()
        path = tmp_path / f"{cls.__name__}-{scene}.png"
        assert img.save(str(path))
        assert _non_blank(img) > 20, path


def test_feature_view_direction_is_read_off_the_decision_function(qtbot):
    pts = separable()
    prob = Problem(pts, kernel="affine")
    v = _view(qtbot, FeatureView, pts)
    for alg in ("snkp", "kernel-perceptron"):
        hist = _show(v, prob, alg, steps=15)
        snap = hist[-1]
        d, name = v._direction(snap)
        scores = prob.y * snap.decision(prob.X) / np.sqrt(prob.self_kernel)  # = Gα for the paper's α
        np.testing.assert_allclose(v.picture.embedding.coords @ d, scores, atol=1e-9)
        if alg == "snkp":
            np.testing.assert_allclose(scores, prob.G @ snap.alpha, atol=1e-9)


def test_nkp_alpha_is_drawn_as_a_hull_point_with_its_g_norm(qtbot):
    pts = separable()
    prob = Problem(pts, kernel="affine")
    v = _view(qtbot, FeatureView, pts)
    hist = _show(v, prob, "nkp", steps=10)
    a = hist[-1].alpha
    k = hist[-1].iteration
    assert f"‖α({k})‖_G = {np.sqrt(a @ prob.G @ a):.4g}" in v.readout.text(), v.readout.text()


# --- large scenes: nothing heavy on the UI thread -----------------------------------------------------------
def _big(n, seed=3):
    """n points split by the line x1 + 0.5 x2 = 0.1 with a gap (separable)."""
    r = np.random.default_rng(seed)
    X = r.uniform(-1, 1, (3 * n, 2))
    s = X[:, 0] + 0.5 * X[:, 1] - 0.1
    X = X[np.abs(s) > 0.05][:n]
    return PointSet(X, np.where(X[:, 0] + 0.5 * X[:, 1] > 0.1, 0, 1))


def test_big_feature_picture_is_computed_off_the_ui_thread(qtbot, monkeypatch):
    import threading
    import time

    from percviz.app.panels.feature import job as fv
    from percviz.core.gram import optimal_margin

    real = fv.compute_witness

    on_ui_thread = []

    def slow_witness(problem, G, features_mode):  # the margin QP of a hard scene takes seconds
        on_ui_thread.append(threading.current_thread() is threading.main_thread())
        time.sleep(0.4)
        return real(problem, G, features_mode)

    monkeypatch.setattr(fv, "compute_witness", slow_witness)
    pts = _big(1600)
    prob = Problem(pts, kernel="affine")
    v = _view(qtbot, FeatureView, pts)
    ticks = []
    timer = __import__("PySide6.QtCore", fromlist=["QTimer"]).QTimer()
    timer.timeout.connect(lambda: ticks.append(1))
    timer.start(10)
    t0 = time.thread_time()
    v.set_problem(prob, get_solver("snkp"))
    assert time.thread_time() - t0 < 0.5  # no eigendecomposition, hull or QP here (measured ~2 ms of CPU)
    assert v.showing_message and "Computing the feature-space picture of 1600 points" in v.message.text()
    early = Snapshot(iteration=3, status=Status.RUNNING, decision=ZeroDecision(), metrics={}, p=np.full(1600, 1 / 1600))
    v.set_snapshot(early)  # arrives before the picture: kept, drawn when it is ready
    assert v.wait_ready(30000)
    timer.stop()
    # the witness QP ran on the job's thread, and the UI's 10 ms timer kept turning meanwhile (counted)
    assert on_ui_thread == [False] and len(ticks) >= 5, (on_ui_thread, len(ticks))
    assert not v.showing_message and v.picture.embedding.exact  # rank 3 found by the randomized solver
    assert v.picture.min_norm.norm == pytest.approx(optimal_margin(prob).rho, abs=1e-6)
    assert "‖p(3)‖_G" in v.readout.text()
    G = prob.G
    C = v.picture.embedding.coords
    idx = np.arange(0, 1600, 97)
    np.testing.assert_allclose(C[idx] @ C[idx].T, G[np.ix_(idx, idx)], atol=1e-8)


def test_closing_the_feature_view_mid_computation_leaves_no_thread(qtbot, monkeypatch):
    import time

    from percviz.app.panels.feature import job as fv

    monkeypatch.setattr(fv, "compute_witness", lambda *a: time.sleep(0.5) or None)
    pts = _big(400)
    v = _view(qtbot, FeatureView, pts)
    v.set_problem(Problem(pts, kernel="rbf:gamma=2"), get_solver("snkp"))
    assert v.computing
    job = v._job
    assert job.isRunning()
    v.close()
    assert not job.isRunning() and not v.computing
    QApplication.processEvents()
    assert v.showing_message  # the cancelled job drew nothing


def test_feature_view_skips_a_rho_k_of_minutes_and_says_so(qtbot, monkeypatch):
    from percviz.core import gram

    monkeypatch.setattr(gram, "BOUND_MAX_N", 250)  # stands for 1500: an RBF ρ_K there is minutes of work
    pts = _big(300)
    prob = Problem(pts, kernel="rbf:gamma=2")
    calls = []
    monkeypatch.setattr(gram, "optimal_margin", lambda *a: calls.append(a) or pytest.fail("ρ_K was computed"))
    v = _view(qtbot, FeatureView, pts)
    v.set_problem(prob, get_solver("snkp"))
    assert v.wait_ready(30000)
    QApplication.processEvents()
    assert not calls and v.picture is not None and v.picture.min_norm is None
    assert "ρ_K not computed: over 250 points" in v.readout.text()
    assert gram.margin_affordable(Problem(pts, kernel="affine"))  # linear/affine kernels are always cheap


def test_a_newer_problem_supersedes_a_running_job(qtbot):
    big, small = _big(700), xor()
    v = _view(qtbot, FeatureView, big)
    v.set_problem(Problem(big, kernel="affine"), get_solver("snkpvn"))
    assert v.computing
    v.set_problem(Problem(small), get_solver("snkpvn"))
    assert v.wait_ready(30000)
    for _ in range(5):
        QApplication.processEvents()
    assert len(v.G) == 4 and v.picture.min_norm is not None and not v.picture.min_norm.separable
    from percviz.app.run.background import live_threads

    for thread in live_threads():  # the superseded job ends on its own
        assert thread.wait(30000), thread.name


def test_weight_view_draws_thousands_of_constraints_as_few_items(qtbot):
    import time

    pts = _big(2000)
    prob = Problem(pts)
    v = _view(qtbot, WeightView, pts)
    t0 = time.thread_time()
    v.set_problem(prob, get_solver("perceptron"))
    QApplication.processEvents()
    setup = time.thread_time() - t0
    assert setup < 1.5, setup  # the UI thread's CPU time: measured ~70 ms; 38 s before the lines became one item
    items = v.plot.getViewBox().addedItems
    curves = [it for it in items if type(it).__name__ == "PlotCurveItem" and it.isVisible()]
    assert len(curves) <= 2 * 3 + 1  # two classes × (walls, near, far) + the ring path at most
    labels = [it for it in items if type(it).__name__ == "TextItem" and it in [lab for lab, *_ in v._line_labels]]
    assert 0 < len(labels) <= 30
    hist = _run(prob, "perceptron", steps=20)
    costs = []
    for s in hist:
        t0 = time.thread_time()
        v.set_snapshot(s)
        costs.append(time.thread_time() - t0)
    assert np.median(costs) < 0.05, costs


def test_hover_picks_the_nearest_constraint_line_among_many(qtbot):
    from percviz.core.geometry import line_segment

    pts = _big(120, seed=5)
    v = _view(qtbot, WeightView, pts)
    v.set_problem(Problem(pts), get_solver("perceptron"))
    pic = v.cone2
    (x0, x1), (y0, y1) = v.plot.getViewBox().viewRange()
    box = (x0, x1, y0, y1)
    norms = np.linalg.norm(pic.normals, axis=1)
    best = None
    for i in range(len(pic.normals)):  # a point on some line, as far as possible from every other line
        seg = line_segment(pic.normals[i], pic.offsets[i], box)
        if seg is None:
            continue
        for f in np.linspace(0.1, 0.9, 9):
            q = seg[0] + f * (seg[1] - seg[0])
            others = [abs(pic.normals[j] @ q + pic.offsets[j]) / norms[j] for j in range(len(norms)) if j != i]
            if best is None or min(others) > best[0]:
                best = (min(others), i, q)
    _, i, q = best
    with qtbot.waitSignal(v.pointHovered, timeout=2000) as sig:
        _move_mouse(v, *q)
    assert sig.args == [i] and v.highlighted == i


def test_presentation_scale_in_a_narrow_dock_keeps_the_plot_large(qtbot):
    pts = xor()
    for cls, alg in ((WeightView, "perceptron"), (FeatureView, "snkpvn")):
        v = _view(qtbot, cls, pts, size=(260, 740))
        v.apply_theme(theme_for("light", 2))
        _show(v, Problem(pts), alg, steps=9)
        for _ in range(3):
            QApplication.processEvents()
        assert v.plot.height() >= 0.55 * v.height(), (cls.__name__, v.plot.height(), v.height())
        assert v.caption.isHidden() and v.caption.text() in v.plot.toolTip()  # not lost: on hover
        v.resize(900, 800)
        for _ in range(3):
            QApplication.processEvents()
        assert not v.caption.isHidden() and not v.title.isHidden()


def test_a_moved_point_keeps_the_last_big_picture_faded_until_the_new_one_is_ready(qtbot):
    pts = _big(300)
    v = _view(qtbot, FeatureView, pts)
    v.set_problem(Problem(pts, kernel="affine"), get_solver("snkp"))
    assert v.wait_ready(30000) and not v.showing_message
    X = pts.X.copy()
    X[0] += 0.01
    moved = PointSet(X, pts.classes)
    v.set_problem(Problem(moved, kernel="affine"), get_solver("snkp"))
    assert not v.showing_message and "Computing the feature-space picture of 300 points" in v.title.text()
    assert v.plot.getViewBox().opacity() < 1 and v._hover_index(np.zeros(2), 1.0) is None
    assert v.wait_ready(30000)
    assert v.plot.getViewBox().opacity() == 1 and v.picture is not None and "Feature space of" in v.title.text()


def test_weight_path_fed_piecemeal_and_thinned_equals_the_path_built_at_once(qtbot):
    from percviz.app.run.session import SnapshotHistory

    r = np.random.default_rng(4)
    pts = PointSet(r.normal(0, 1, (300, 2)), r.integers(0, 2, 300))  # not separable: runs all 600 updates
    prob = Problem(pts)
    hist = _run(prob, "perceptron", 600)
    fed, whole = _view(qtbot, WeightView, pts), _view(qtbot, WeightView, pts)
    for v in (fed, whole):
        v.set_problem(prob, get_solver("perceptron"))
    store = SnapshotHistory(capacity=300, min_capacity=16)  # thins twice on the way to 600
    for k in range(0, len(hist), 37):
        store.extend(hist[k:k + 37])
        fed.set_run(store.items, store.items[-1])
    assert store.thinned
    whole.set_run(store.items, store.items[-1])
    np.testing.assert_array_equal(fed._path(), whole._path())
    assert len(fed._weights) == len(store)  # thinned iterations do not pile up
