"""Perceptron warm starts (Live's opt-in): any finite a₀ still ends at a checked separator; a wrong-sized or
non-finite a₀ is ignored (a = 0, the algorithm as written)."""

from __future__ import annotations

import numpy as np
import pytest

from percviz.core.data import PointSet
from percviz.core.presets import SHIPPED_DIR, load_preset
from percviz.core.problem import Problem
from percviz.core.solvers import Status, get_solver

NAMES = ("fixed-increment", "variable-increment", "perceptron")


def _thin() -> Problem:
    return Problem(load_preset(SHIPPED_DIR / "thin-margin.json").points, kernel="affine")


@pytest.mark.parametrize("name", NAMES)
def test_a_separating_start_needs_no_correction_and_any_start_still_separates(name):
    pr = _thin()
    cold = get_solver(name)(pr).run()
    assert cold.status is Status.SEPARATOR and cold.iteration > 1000
    X = pr.points.X.copy()
    X[0] += 0.01  # a small drag of one point
    moved = Problem(PointSet(X, pr.points.classes), kernel="affine")
    Y = np.asarray(moved.Y)
    assert (Y @ cold.weights > 0).all()  # the old weights still separate the moved point here
    warm = get_solver(name)(moved, warm_start=cold.weights).run()
    assert warm.status is Status.SEPARATOR and warm.iteration == 0
    np.testing.assert_array_equal(warm.weights, cold.weights)
    rough = get_solver(name)(moved, warm_start=[5.0, -3.0, 2.0], max_iter=200000).run()
    assert rough.status is Status.SEPARATOR and (Y @ rough.weights > 0).all()


@pytest.mark.parametrize("bad", [[1.0, 2.0], [np.nan, 0.0, 1.0]])
def test_a_start_of_the_wrong_size_or_not_finite_is_ignored(bad):
    pr = _thin()
    cold = get_solver("perceptron")(pr).run()
    same = get_solver("perceptron")(pr, warm_start=bad).run()
    assert same.iteration == cold.iteration and cold.metrics["bound"] is not None
    np.testing.assert_array_equal(same.weights, cold.weights)


def test_a_warm_perceptron_shows_no_novikoff_bound():
    """Block–Novikoff counts mistakes from w₀ = 0; from another start it is no bound, so it is not shown."""
    pr = _thin()
    warm = get_solver("perceptron")(pr, warm_start=[0.0, 1.0, 0.0]).run()
    assert warm.metrics.get("bound") is None
