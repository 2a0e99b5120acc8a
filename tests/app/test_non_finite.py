"""Nothing non-finite (or too large to draw) reaches a view: diverged runs draw a bounded picture, never raise."""

from __future__ import annotations

import math

import numpy as np
import pytest

from percviz.app.panels.canvas import LEVEL_LIMIT, CanvasView, stepped_level
from percviz.app.panels.panel import drawable
from percviz.app.panels.weight_view import WeightView
from percviz.core.data import PointSet
from percviz.core.decision import FeatureLinear
from percviz.core.features import parse_features
from percviz.core.problem import Problem
from percviz.core.scene import SceneModel
from percviz.core.solvers import get_solver, load_all
from percviz.core.solvers.base import Snapshot, Status

load_all()
POINTS = PointSet(np.array([[-1.0, 1.0], [1.5, 1.0], [-1.0, -1.5], [1.0, -1.0]]), np.array([0, 0, 1, 1]))


def _snap(weights, k=1):
    a = np.asarray(weights, dtype=float)
    return Snapshot(iteration=k, status=Status.RUNNING, message="", weights=a, metrics={},
                    decision=FeatureLinear(parse_features("linear"), a))


def test_the_colour_scale_stays_finite_for_a_diverging_decision_function():
    assert stepped_level(None, 1.7e308) == LEVEL_LIMIT and math.isfinite(stepped_level(None, math.inf))
    assert drawable([1.0, -2e99]) and not drawable([1.0, 1e101]) and not drawable([np.nan]) and drawable([])


@pytest.mark.parametrize("scale", [1e306, np.inf])
def test_canvas_and_weight_view_draw_a_diverged_iterate_without_raising(qtbot, scale):
    scene = SceneModel(POINTS)
    canvas, weights = CanvasView(scene), WeightView(scene)
    for view in (canvas, weights):
        qtbot.addWidget(view)
        view.resize(400, 300)
        view.show()
    prob = Problem(POINTS)
    cls = get_solver("perceptron")
    weights.set_problem(prob, cls)
    canvas.set_problem(prob, cls)
    good, bad = _snap([0.2, -0.5, 1.0], 1), _snap([scale, -scale, scale], 2)
    for snap in (good, bad):
        weights.set_history([good, snap] if snap is bad else [good])
        weights.set_snapshot(snap)
        canvas.set_snapshot(snap)
        canvas.redraw_now()
    assert "diverged" in canvas.message.text() and not canvas.message.isHidden()
    lo, hi = canvas.image.getLevels()
    assert math.isfinite(lo) and math.isfinite(hi)
    (x0, x1), (y0, y1) = weights.plot.getViewBox().viewRange()
    assert all(math.isfinite(v) and abs(v) < 1e100 for v in (x0, x1, y0, y1))


@pytest.mark.parametrize("scale", [1e-42, 1e-200, 1e-300, 1e-320])
def test_a_tiny_decision_function_is_shaded_finite_on_its_own_scale(qtbot, scale):
    """f ≈ 1e-42 on the points: the image shows f·10⁴² (its float32 scale factor overflowed to inf before: a soak warning)."""
    scene = SceneModel(POINTS)
    canvas = CanvasView(scene)
    qtbot.addWidget(canvas)
    canvas.resize(400, 300)
    canvas.show()
    canvas.set_problem(Problem(POINTS), get_solver("perceptron"))
    canvas.set_snapshot(_snap([0.2 * scale, -0.5 * scale, scale]))
    with np.errstate(over="raise", invalid="raise", divide="raise"):  # underflow (to 0) is harmless here
        canvas.redraw_now()
    image = np.asarray(canvas.image.image, dtype=np.float64)
    lo, hi = canvas.image.getLevels()
    assert np.isfinite(image).all() and math.isfinite(lo) and math.isfinite(hi) and hi > 0
    assert canvas.message.isHidden()
    # the boundary 0.2 - 0.5x + y = 0 (φ = (1, x, y)) is drawn from the exact (float64) affine f
    x, y = canvas.boundary_curve.getData()
    if scale < 1e-308:  # subnormal weights hold a few bits only: finite levels and image are all there is to ask
        return
    assert x is not None and len(x) >= 2 and np.allclose(0.2 - 0.5 * x + y, 0, atol=1e-9)
    if scale >= 1e-42:  # within float32's range the shading keeps f's sign on both sides, on a ×10⁴² bar
        assert image.min() < 0 < image.max()
        assert "10⁴²" in canvas.colorbar.axis.labelText
