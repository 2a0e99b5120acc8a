"""Gradient descent on J_s with many more feature columns than points keeps H = 2YᵗY factored (issue 28)."""

import numpy as np
import pytest

from percviz.core.data import PointSet
from percviz.core.features import parse_features
from percviz.core.problem import Problem
from percviz.core.solvers import descent, get_solver


def _problem(n=10, dim=400, seed=3):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 2))
    cls = (X[:, 0] + 0.3 * X[:, 1] < 0).astype(int)
    return Problem(PointSet(X, cls), features=parse_features(f"rff:dim={dim},gamma=0.5,seed=1"))


def _iterates(monkeypatch, factored_from, step, k=25):
    monkeypatch.setattr(descent, "FACTORED_FROM", factored_from)
    solver = get_solver("gradient-descent")(_problem(), step=step, max_iter=k)
    snaps = list(solver.snapshots())
    return solver, np.array([s.weights for s in snaps]), [s.status.value for s in snaps]


@pytest.mark.parametrize("step", ["optimal", "fixed", "newton"])
def test_the_factored_hessian_gives_the_dense_iterates(monkeypatch, step):
    dense, a_dense, st_dense = _iterates(monkeypatch, 10**9, step)
    fact, a_fact, st_fact = _iterates(monkeypatch, 16, step)
    assert dense.H is not None and fact.H is None  # the two paths really differ
    assert st_fact == st_dense
    scale = np.abs(a_dense).max()
    assert np.abs(a_fact - a_dense).max() <= 1e-9 * scale


def test_the_largest_eigenvalue_is_that_of_the_dense_hessian(monkeypatch):
    monkeypatch.setattr(descent, "FACTORED_FROM", 16)
    solver = get_solver("gradient-descent")(_problem())
    solver.start()
    Y = np.asarray(solver.problem.Y)
    expect = np.linalg.eigvalsh(2 * Y.T @ Y)[-1]  # the d̂×d̂ matrix, built here only
    assert solver.H is None and solver._lam_max == pytest.approx(expect, rel=1e-12)


def test_a_wide_map_is_evaluated_in_row_blocks_with_the_same_values(monkeypatch):
    from percviz.core import decision as D

    rng = np.random.default_rng(5)
    fm = parse_features("rff:dim=300,gamma=0.5,seed=2")
    f = D.FeatureLinear(fm, rng.normal(size=fm.transform(np.zeros((1, 2))).shape[1]))
    Z = rng.normal(size=(1000, 2))
    whole, grad = f(Z), f.gradient(Z)
    monkeypatch.setattr(D, "EVAL_BLOCK", 300 * 7)  # 7 rows a block
    assert np.allclose(f(Z), whole, rtol=1e-13, atol=1e-13)
    assert np.allclose(f.gradient(Z), grad, rtol=1e-12, atol=1e-12)


@pytest.mark.slow
def test_gradient_descent_on_5000_random_features_stays_small(tmp_path):
    """rff:dim=5000 on 12 points peaked at 4.5 GB (the d̂×d̂ Hessian, then φ of the whole distance grid)."""
    import tracemalloc

    from percviz import cli
    from percviz.core.presets import Preset

    rng = np.random.default_rng(0)
    X = rng.normal(size=(12, 2))
    pts = PointSet(X, (X[:, 0] <= 0).astype(int))
    preset = Preset(pts, algorithm="gradient-descent", features="rff:dim=5000,gamma=0.5,seed=0", max_iter=200)
    tracemalloc.start()
    try:
        result = cli.solve(preset)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert result["status"] in ("separator", "max_iter")
    assert peak < 400e6, f"peak {peak / 1e6:.0f} MB"
