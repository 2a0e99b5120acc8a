"""Random Fourier features on a view grid: the separable evaluation equals φ(z)·a computed point by point."""

from __future__ import annotations

import tracemalloc

import numpy as np

from percviz.core.decision import FeatureLinear
from percviz.core.features import parse_features
from percviz.core.grid import GridEvaluator, ViewGrid


def _direct(features, W, grid):
    """φ(z)·a from the feature map's own transform, one grid point at a time."""
    Z = grid.points()
    Phi = np.array([features.transform(z[None, :])[0] for z in Z])
    out = Phi @ np.atleast_2d(W).T
    return out.T.reshape((-1,) + grid.shape)


def test_fourier_image_matches_the_feature_map_two_class_and_multiclass():
    fm = parse_features("rff:dim=300,gamma=0.7,seed=4")
    rng = np.random.default_rng(0)
    grid = ViewGrid.fit(-2.0, 3.0, -1.0, 1.5, 24)
    ev = GridEvaluator()
    a = rng.normal(size=301)
    F = ev.evaluate(FeatureLinear(fm, a), grid)
    ref = _direct(fm, a, grid)[0]
    assert F.shape == grid.shape and np.abs(ref).max() > 1
    np.testing.assert_allclose(F, ref, atol=2e-4 * np.abs(ref).max())
    W = rng.normal(size=(3, 301))
    F3 = ev.evaluate(FeatureLinear(fm, W), grid)
    np.testing.assert_allclose(F3, _direct(fm, W, grid), atol=2e-4 * np.abs(F3).max())
    # the training-point values agree with the decision function itself
    X = rng.normal(size=(50, 2))
    np.testing.assert_allclose(ev.at_points(FeatureLinear(fm, a), X), FeatureLinear(fm, a)(X), atol=1e-4)


def test_a_large_feature_dimension_needs_no_grid_sized_feature_matrix():
    fm = parse_features("rff:dim=5000")
    fm.frequencies()
    tracemalloc.start()
    try:
        GridEvaluator().evaluate(FeatureLinear(fm, np.ones(5001)), ViewGrid.fit(-1.0, 1.0, -1.0, 1.0, 256))
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 100 * 2**20  # φ(grid) itself would be 256² × 5001 float32 = 1.3 GB
