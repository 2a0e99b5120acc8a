"""Margin and slack geometry for drawing: the slack segments end on the margin line, checked point by point."""

from __future__ import annotations

import numpy as np

from percviz.core.margin_geometry import closest_margin, slacks


def test_slack_segments_of_an_affine_f_end_where_y_f_reaches_the_level():
    rng = np.random.default_rng(2)
    X = rng.normal(size=(40, 2))
    y = np.where(rng.random(40) < 0.5, 1.0, -1.0)
    w, b = np.array([0.7, -1.3]), 0.2
    fx = X @ w + b
    starts, ends, xi = slacks(X, y, fx, 1.0, (w[0], w[1], b))
    inside = y * fx < 1.0  # the points with slack: on the wrong side or inside the margin
    assert len(starts) == inside.sum() > 5
    np.testing.assert_array_equal(starts, X[inside])
    np.testing.assert_allclose(xi, 1.0 - (y * fx)[inside])
    np.testing.assert_allclose(y[inside] * (ends @ w + b), 1.0, atol=1e-12)  # each end is on y f = 1
    d = ends - starts  # and the segment is perpendicular to the line (parallel to w)
    np.testing.assert_allclose(d[:, 0] * w[1] - d[:, 1] * w[0], 0.0, atol=1e-12)


def test_without_an_affine_f_only_the_values_are_given_and_the_closest_margin_needs_a_strict_separator():
    X = np.array([[0.0, 0.0], [1.0, 0.0]])
    y = np.array([1.0, -1.0])
    starts, ends, xi = slacks(X, y, np.array([0.5, -2.0]), 1.0, None)
    np.testing.assert_array_equal(starts, ends)
    np.testing.assert_allclose(xi, [0.5])
    assert closest_margin(np.array([0.5, -0.25]), y) == 0.25
    assert closest_margin(np.array([0.5, 0.0]), y) is None and closest_margin(np.array([]), y[:0]) is None
