"""The drawing grids under the memory budget (core/grid.py, core/budget.py): estimated before allocating, measured
with tracemalloc; a grid over the budget is coarsened over the same rectangle, or refused in one line."""

from __future__ import annotations

import tracemalloc

import numpy as np
import pytest

from percviz.core import budget
from percviz.core.decision import FeatureLinear, KernelExpansion
from percviz.core.features import parse_features
from percviz.core.grid import GridEvaluator, ViewGrid, grid_bytes, naive_image
from percviz.core.kernels import parse_kernel

FINE = ViewGrid(-2.0, 2.0, -1.5, 1.5, 256, 192)


def _poly12() -> FeatureLinear:
    fm = parse_features("poly:degree=12")  # 91 monomials: φ(grid) is the largest thing a drawing allocates
    return FeatureLinear(fm, np.random.default_rng(0).normal(size=fm.dimension()) * 1e-3)


def _peak(fn) -> float:
    tracemalloc.start()
    try:
        fn()
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def test_the_estimate_bounds_what_an_evaluation_allocates_and_is_not_far_above_it():
    for d in (_poly12(), FeatureLinear(parse_features("rff:dim=2000"), np.random.default_rng(1).normal(size=2001)),
              KernelExpansion(parse_kernel("rbf:gamma=2"), np.random.default_rng(2).normal(size=(300, 2)),
                              np.random.default_rng(3).normal(size=300))):
        peak = _peak(lambda: GridEvaluator().evaluate(d, FINE))
        est = grid_bytes(d, FINE)
        assert peak <= est, (type(d).__name__, peak, est)
        assert est <= 6 * peak + 2**20, (type(d).__name__, peak, est)


def test_a_grid_over_the_budget_is_coarsened_over_the_same_rectangle_and_drawn_within_it(monkeypatch):
    d = _poly12()
    assert grid_bytes(d, FINE) > 60 * 2**20  # ~120 MB at 256×192
    monkeypatch.setenv(budget.ENV, "40M")
    coarse = GridEvaluator.plan(d, FINE)
    assert (coarse.x_min, coarse.x_max, coarse.y_min, coarse.y_max) == (FINE.x_min, FINE.x_max, FINE.y_min, FINE.y_max)
    assert 32 <= coarse.nx < FINE.nx and coarse.ny < FINE.ny
    assert grid_bytes(d, coarse) <= 40 * 2**20
    image = []
    peak = _peak(lambda: image.append(GridEvaluator().evaluate(d, coarse)))
    assert peak <= 40 * 2**20
    ref = naive_image(d, coarse)
    assert image[0].shape == coarse.shape and np.max(np.abs(image[0] - ref)) <= 1e-5 * np.max(np.abs(ref))
    assert GridEvaluator.plan(d, coarse) == coarse  # what fits is kept as it is


def test_a_grid_that_fits_nowhere_is_refused_in_one_line(monkeypatch):
    monkeypatch.setenv(budget.ENV, "100K")
    with pytest.raises(budget.BudgetError) as err:
        GridEvaluator.plan(_poly12(), FINE)
    text = str(err.value)
    assert "\n" not in text and "16×" in text and budget.ENV in text and "feature map" in text


def test_values_at_the_points_beyond_the_cache_are_computed_in_blocks_and_not_kept(monkeypatch):
    from percviz.core import decision, grid

    for module in (decision, grid):
        monkeypatch.setattr(module, "EVAL_BLOCK", 2**16)  # blocks of 0.5 MB (2**22 values in the app)
    rng = np.random.default_rng(4)
    n = 1500
    X = rng.normal(size=(n, 2))
    d = KernelExpansion(parse_kernel("rbf:gamma=1"), X, rng.normal(size=n), bias=0.2)
    ev = GridEvaluator(budget_mb=4)  # K(X, X) in float32 would be 9 MB
    peak = _peak(lambda: ev.at_points(d, X))
    assert peak < 0.25 * 8 * n * n  # never the 18 MB float64 n×n matrix
    np.testing.assert_allclose(ev.at_points(d, X), d(X), rtol=1e-10)
    fm = parse_features("rff:dim=2000")
    w = rng.normal(size=2001)
    f = FeatureLinear(fm, w)
    peak = _peak(lambda: ev.at_points(f, X))
    assert peak < 0.25 * 8 * n * 2001  # never φ(X) whole (24 MB)
    np.testing.assert_allclose(ev.at_points(f, X), fm.transform(X) @ w, rtol=1e-9, atol=1e-9)


def test_the_caches_stay_within_an_eighth_of_a_small_budget(monkeypatch):
    monkeypatch.setenv(budget.ENV, "80M")
    assert GridEvaluator().budget == 10 * 2**20
