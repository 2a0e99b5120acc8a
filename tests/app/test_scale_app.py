"""100,000 affine points in the real window under a 64 MiB memory budget: it opens, steps SNKP, draws, never builds n×n."""

from __future__ import annotations

import numpy as np
import pytest
from helpers import canvas_pos
from PySide6.QtCore import Qt
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QAbstractButton, QApplication, QLabel, QWidget

from percviz.app.main_window import MainWindow
from percviz.app.panels.point_decimation import DRAW_CAP, PointDecimator
from percviz.core.data import PointSet
from percviz.core.errors import PercvizError
from percviz.core.scene import SceneModel, Settings

N = 100_000


def _points(n: int) -> PointSet:
    rng = np.random.default_rng(13)
    X = rng.normal(0, 1, (n, 2))
    return PointSet(X, (X[:, 0] + 0.3 * X[:, 1] > 0).astype(np.int64))


@pytest.fixture
def big_window(qtbot, monkeypatch):
    monkeypatch.setenv("PERCVIZ_MEMORY_BUDGET", "64M")  # a 100k×100k float64 matrix is 75 GiB: any n×n is refused
    w = MainWindow(SceneModel(_points(N), Settings(algorithm="snkp", kernel="affine", max_iter=10**6)), install_classroom=False)
    qtbot.addWidget(w)
    w.show()
    qtbot.waitExposed(w)
    w.session.wait_idle()
    yield w
    w.session.pause()
    w.session.wait_idle()
    w.close()


def _named(window, name) -> QWidget:
    return next(x for x in window.findChildren(QWidget) if x.accessibleName() == name)


def test_snkp_steps_on_100k_affine_points_without_any_dense_gram(big_window, qtbot):
    w = big_window
    with pytest.raises(PercvizError, match="memory budget"):
        w.session.problem.G  # the budget really refuses n×n here, so the run below cannot have built one
    step = _named(w, "step")
    assert isinstance(step, QAbstractButton)
    for _ in range(3):
        QTest.mouseClick(step, Qt.MouseButton.LeftButton)
        qtbot.waitUntil(lambda: w.session.wait_idle(0.05, check=False), timeout=20000)
    QApplication.processEvents()
    snap = w.session.current
    assert snap is not None and snap.iteration >= 3
    alpha = np.asarray(snap.alpha)
    assert alpha.shape == (N,) and np.all(np.isfinite(alpha)) and abs(alpha.sum() - 1.0) < 1e-9  # α is in the simplex
    status = _named(w, "status")
    assert f"Iteration {snap.iteration}" in status.text() and "memory" not in status.text().lower()
    # the canvas draws a subsample of the points, at most the cap, and at most 2,000 halos
    canvas = w.panels["canvas"]
    assert 0 < len(canvas.points_item.data) <= DRAW_CAP
    assert sum(len(it.data) for it in canvas.halo_items) <= 2000
    # the feature view, whose embedding needs the n×n G, says so in one sentence instead
    texts = " ".join(lb.text() for lb in w.panels["feature"].findChildren(QLabel))
    assert "eigen-decomposition of the n×n Gram matrix" in texts and "100,000 points" in texts


def test_zooming_in_draws_a_point_the_full_view_left_out_and_hover_finds_it(big_window, qtbot):
    canvas = big_window.panels["canvas"]
    drawn = set(canvas.points_layer.shown.tolist())
    X = canvas.scene_model.points.X
    i = next(j for j in range(N) if j not in drawn and abs(X[j, 0]) < 1 and abs(X[j, 1]) < 1)
    # zoom in around point i until the view holds few points: the drawing is then exact
    canvas.viewbox.setRange(xRange=(X[i, 0] - 0.02, X[i, 0] + 0.02), yRange=(X[i, 1] - 0.02, X[i, 1] + 0.02), padding=0)
    QApplication.processEvents()
    assert i in set(canvas.points_layer.shown.tolist())
    QTest.mouseMove(canvas.plot.viewport(), canvas_pos(canvas, X[i, 0], X[i, 1]))
    QApplication.processEvents()
    assert canvas.hovered == i


def test_decimator_is_stable_capped_and_exact_when_the_view_holds_few_points():
    rng = np.random.default_rng(0)
    X = rng.uniform(-1, 1, (50_000, 2))
    d = PointDecimator(cap=1000)
    whole = ((-1.0, 1.0), (-1.0, 1.0))
    a, b = d.shown(X, whole), d.shown(X, whole)
    assert len(a) == 1000 and np.array_equal(a, b) and len(np.unique(a)) == 1000
    small = ((0.0, 0.04), (0.0, 0.04))  # with its half-view margin: 0.08² / 4 · 50,000 ≈ 80 points
    got = d.shown(X, small)
    inside = np.flatnonzero((X[:, 0] >= -0.02) & (X[:, 0] <= 0.06) & (X[:, 1] >= -0.02) & (X[:, 1] <= 0.06))
    assert 30 < len(inside) < 1000 and np.array_equal(got, inside)
    assert PointDecimator(cap=1000).shown(X[:1000], whole) is None  # up to the cap: every point


def test_run_to_end_on_100k_points_keeps_a_snapshot_per_stride_and_step_stays_one_update(big_window, qtbot):
    w = big_window
    w.session.scene.set_settings(algorithm="nkp")
    w.session.wait_idle()
    QTest.mouseClick(_named(w, "step"), Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: w.session.latest is not None and w.session.latest.iteration == 1, timeout=20000)
    w.session.run_to_end()
    qtbot.waitUntil(lambda: w.session.latest.iteration > 5 * len(w.session.history), timeout=30000)
    w.session.pause()
    w.session.wait_idle()
    its = [s.iteration for s in w.session.history]
    assert its[:2] == [0, 1] and all(b > a for a, b in zip(its, its[1:]))
    before = w.session.latest.iteration
    QTest.mouseClick(_named(w, "step"), Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: w.session.latest.iteration != before, timeout=20000)
    assert w.session.latest.iteration == before + 1
    alpha = np.asarray(w.session.latest.alpha)
    assert np.all(alpha >= 0) and abs(alpha.sum() - 1.0) < 1e-9
