"""Grid evaluation of decision functions: equals the naive sum, caches per point, exact level curves."""

from dataclasses import dataclass
from typing import ClassVar

import numpy as np
import pytest

from percviz.core.decision import FeatureLinear, KernelExpansion, ZeroDecision
from percviz.core.features import parse_features
from percviz.core.grid import GridEvaluator, ViewGrid, contour_segments, line_in_rect, naive_image, sample_image
from percviz.core.kernels import Kernel, parse_kernel

GRID = ViewGrid(-3.0, 3.0, -2.0, 2.5, 60, 45)


def _reference(decision, grid):
    """Σ_i coef_i K(z, x_i) + bias in float64, written out independently of the evaluator."""
    Z = grid.points()
    K = decision.kernel(Z, decision.centers)
    return (K @ decision.coef + decision.bias).reshape(grid.shape)


def _close(a, b):
    scale = max(1.0, float(np.abs(b).max()))
    return float(np.abs(np.asarray(a, float) - b).max()) / scale


@pytest.mark.parametrize(
    "spec", ["rbf:gamma=0.7", "laplacian:gamma=0.3", "poly:degree=3,c=1", "poly:degree=6,c=0", "poly:degree=1,c=2", "affine", "linear"]
)
def test_kernel_image_equals_naive_sum(spec):
    rng = np.random.default_rng(3)
    X = rng.normal(size=(40, 2))
    X[7] = X[3]  # two points at the same place share one cache row
    coef = rng.normal(size=40)
    coef[::6] = 0.0
    d = KernelExpansion(parse_kernel(spec), X, coef, bias=0.25)
    img = GridEvaluator().evaluate(d, GRID)
    assert img.dtype == np.float32 and img.shape == (45, 60)
    assert _close(img, _reference(d, GRID)) < 2e-6


def test_incremental_frames_stay_exact():
    """Many frames where one coefficient changes (the perceptron's update) match the naive sum."""
    rng = np.random.default_rng(4)
    k = parse_kernel("rbf:gamma=0.5")
    X = rng.uniform(-3, 3, size=(80, 2))
    coef = np.zeros(80)
    ev = GridEvaluator()
    for step in range(120):
        coef[rng.integers(80)] += rng.choice([-1.0, 1.0])
        if step % 17 == 0:
            coef *= 0.9  # every coefficient changes: a full product
        d = KernelExpansion(k, X, coef)
        img = ev.evaluate(d, GRID)
    assert _close(img, _reference(d, GRID)) < 1e-5
    assert ev.rows_computed == len(np.unique(np.flatnonzero(coef)))


@dataclass(frozen=True)
class TanhKernel(Kernel):
    """A kernel the evaluator knows nothing about (not separable, not polynomial): cached full columns."""

    name: ClassVar[str] = "tanh-test"

    def gram(self, X, Z):
        return np.tanh(0.5 * X @ Z.T + 1.0)

    def diag(self, X):
        return np.tanh(0.5 * np.einsum("ij,ij->i", X, X) + 1.0)


@pytest.mark.parametrize("k", [TanhKernel(), parse_kernel("laplacian:gamma=0.4")])
def test_moved_point_costs_one_row_and_is_exact(k):
    rng = np.random.default_rng(5)
    X = rng.normal(size=(30, 2))
    coef = rng.normal(size=30)
    ev = GridEvaluator()
    ev.evaluate(KernelExpansion(k, X, coef), GRID)
    assert ev.rows_computed == 30
    ev.evaluate(KernelExpansion(k, X, coef * 2.0), GRID)  # only coefficients changed: no kernel rows
    assert ev.rows_computed == 30
    X2 = X.copy()
    X2[11] = (0.5, -0.25)
    d = KernelExpansion(k, X2, coef)
    img = ev.evaluate(d, GRID)
    assert ev.rows_computed == 31
    assert _close(img, _reference(d, GRID)) < 2e-6


def test_kernel_or_grid_change_invalidates_the_cache():
    rng = np.random.default_rng(6)
    X = rng.normal(size=(25, 2))
    coef = rng.normal(size=25)
    ev = GridEvaluator()
    ev.evaluate(KernelExpansion(parse_kernel("rbf:gamma=0.5"), X, coef), GRID)
    d = KernelExpansion(parse_kernel("rbf:gamma=2"), X, coef)
    img = ev.evaluate(d, GRID)
    assert ev.rows_computed == 25  # a fresh cache for the new γ
    assert _close(img, _reference(d, GRID)) < 2e-6
    other = ViewGrid(-1.0, 1.0, -1.0, 1.0, 30, 30)
    assert _close(ev.evaluate(d, other), _reference(d, other)) < 2e-6


def test_over_budget_falls_back_to_direct_evaluation():
    rng = np.random.default_rng(7)
    d = KernelExpansion(TanhKernel(), rng.normal(size=(50, 2)), rng.normal(size=50))
    ev = GridEvaluator(budget_mb=0.01)  # 10 kB: not even one column of 2700 floats per point fits 50 points
    assert _close(ev.evaluate(d, GRID), _reference(d, GRID)) < 2e-6


@pytest.mark.parametrize("spec", ["affine", "linear"])
def test_affine_closed_form_equals_kernel_sum(spec):
    rng = np.random.default_rng(8)
    d = KernelExpansion(parse_kernel(spec), rng.normal(size=(20, 2)), rng.normal(size=20), bias=-0.4)
    assert d.affine() is not None
    ev = GridEvaluator()
    assert _close(ev.evaluate(d, GRID), _reference(d, GRID)) < 2e-6
    assert ev.rows_computed == 0  # no kernel columns: the closed form w·z + b


def test_feature_maps_and_multiclass():
    feats = parse_features("linear")
    W = np.array([[0.5, 1.0, -0.5], [0.0, -1.0, 0.2], [-0.3, 0.1, 1.0]])
    d = FeatureLinear(feats, W)
    img = GridEvaluator().evaluate(d, GRID)
    assert img.shape == (3, 45, 60)
    ref = (feats.transform(GRID.points()) @ W.T).T.reshape(3, 45, 60)
    assert _close(img, ref) < 2e-6
    assert np.array_equal(img.argmax(axis=0), d.predict(GRID.points()).reshape(45, 60))
    two = FeatureLinear(feats, np.array([1.0, 2.0, -1.0]))
    assert _close(GridEvaluator().evaluate(two, GRID), naive_image(two, GRID)) < 2e-6
    assert np.all(GridEvaluator().evaluate(ZeroDecision(), GRID) == 0)


def test_points_evaluation_uses_the_same_function():
    rng = np.random.default_rng(9)
    X = rng.normal(size=(15, 2))
    d = KernelExpansion(parse_kernel("rbf:gamma=1"), X, rng.normal(size=15), bias=0.1)
    ev = GridEvaluator()
    np.testing.assert_allclose(ev.at_points(d, X), d(X), rtol=1e-5, atol=1e-6)


def test_contour_of_an_affine_function_lies_on_its_line():
    g = ViewGrid(-2.0, 2.0, -2.0, 2.0, 41, 37)
    w1, w2, b = 0.7, -1.3, 0.2
    F = w1 * g.xs[None, :] + w2 * g.ys[:, None] + b
    seg = contour_segments(F, 0.5, g.xs, g.ys)
    assert len(seg) >= 2 * 30
    np.testing.assert_allclose(seg @ [w1, w2] + b, 0.5, atol=1e-9)  # linear interpolation is exact here


def test_contour_of_a_circle():
    g = ViewGrid(-2.0, 2.0, -2.0, 2.0, 120, 120)
    F = 1.0 - g.xs[None, :] ** 2 - g.ys[:, None] ** 2
    seg = contour_segments(F, 0.0, g.xs, g.ys)
    r = np.hypot(seg[:, 0], seg[:, 1])
    assert np.abs(r - 1.0).max() < 2e-3
    # the segments close up: every end point is shared by exactly two segments
    _, counts = np.unique(np.round(seg, 9), axis=0, return_counts=True)
    assert np.all(counts == 2)


def test_contour_saddle_cells_give_two_segments():
    F = np.array([[1.0, -1.0], [-1.0, 1.0]])
    seg = contour_segments(F, 0.0, np.array([0.0, 1.0]), np.array([0.0, 1.0]))
    assert seg.shape == (4, 2)


def test_exact_line_in_rectangle():
    ab = (1.0, 2.0, -1.0)
    seg = line_in_rect(ab, 0.0, (-3.0, 3.0, -3.0, 3.0))
    assert seg.shape == (2, 2)
    np.testing.assert_allclose(seg @ [1.0, 2.0] - 1.0, 0.0, atol=1e-12)
    assert np.all(np.isclose(np.abs(seg), 3.0).any(axis=1))  # the end points are on the border
    assert line_in_rect(ab, 0.0, (10.0, 11.0, 10.0, 11.0)).shape == (0, 2)
    assert line_in_rect((0.0, 0.0, 1.0), 0.0, (-1.0, 1.0, -1.0, 1.0)).shape == (0, 2)


def test_grid_fit_has_square_cells():
    g = ViewGrid.fit(-4.0, 4.0, -1.0, 1.0, 200)
    assert (g.nx, g.ny) == (200, 50)
    with pytest.raises(ValueError):
        ViewGrid(0.0, 0.0, 0.0, 1.0, 10, 10)


def test_sampling_the_image_interpolates():
    g = ViewGrid(-2.0, 2.0, -1.0, 1.0, 40, 20)
    F = 0.5 * g.xs[None, :] - 2.0 * g.ys[:, None] + 1.0  # bilinear interpolation is exact for affine images
    X = np.array([[0.13, -0.4], [1.9, 0.9], [-1.0, 0.0]])
    np.testing.assert_allclose(sample_image(F, g, X), 0.5 * X[:, 0] - 2.0 * X[:, 1] + 1.0, atol=1e-12)


def test_polynomial_closed_form_needs_no_kernel_rows():
    rng = np.random.default_rng(10)
    d = KernelExpansion(parse_kernel("poly:degree=4,c=0.5"), rng.normal(size=(300, 2)), rng.normal(size=300), bias=1.0)
    ev = GridEvaluator()
    assert _close(ev.evaluate(d, GRID), _reference(d, GRID)) < 2e-6
    assert ev.rows_computed == 0
