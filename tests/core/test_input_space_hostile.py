"""Issue 28 on the input-space SVM: points in R¹, data too wide for its derivative tensors, and per-point input
distances to the nearest foot (View ▸ Input distances), each against an independent check."""

import subprocess
import sys
import time

import numpy as np
import pytest
from scipy.optimize import brentq, minimize
from sklearn.datasets import make_moons

from percviz.core import budget
from percviz.core.batched_eval import evaluator, hessian
from percviz.core.data import PointSet
from percviz.core.decision import DerivativeExpansion, KernelExpansion
from percviz.core.input_distance import input_distances
from percviz.core.kernels import parse_kernel
from percviz.core.problem import Problem
from percviz.core.solvers import get_solver


def _line_set(n=40, seed=1):
    x = np.random.default_rng(seed).normal(size=n)
    return PointSet(x[:, None], (x > 0).astype(int)), x


def _zeros_on_the_line(dec, lo, hi, cells=20000):
    """All zeros of f on [lo, hi]: sign changes on a fine grid, each refined by Brent's method."""
    t = np.linspace(lo, hi, cells + 1)
    f = dec(t[:, None])
    return np.array([brentq(lambda s: dec(np.array([[s]]))[0], t[i], t[i + 1], xtol=1e-14)
                     for i in np.flatnonzero(np.sign(f[:-1]) * np.sign(f[1:]) < 0)])


@pytest.mark.parametrize("kernel", ["affine", "rbf:gamma=1", "poly:degree=3,c=1"])
def test_forty_points_on_the_line_give_the_margin_to_the_nearest_zero_of_f(kernel):
    ps, x = _line_set()
    snap = get_solver("input-space-svm")(Problem(ps, kernel), margin="soft", C=1.0).run()
    zeros = _zeros_on_the_line(snap.decision, x.min() - 3, x.max() + 3)
    assert len(zeros)
    expect = np.min(np.abs(x[:, None] - zeros[None, :]), axis=1).min()
    assert snap.metrics["input_margin"] == pytest.approx(expect, rel=1e-8)


@pytest.mark.slow
def test_the_cli_solves_points_on_the_line(tmp_path):
    ps, x = _line_set()
    path = tmp_path / "d1.npy"
    np.save(path, np.column_stack([x, ps.classes]))
    out = subprocess.run([sys.executable, "-m", "percviz", "solve", str(path), "-a", "input-space-svm", "--json"],
                         capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert '"input_margin"' in out.stdout and "error" not in out.stderr


def test_wide_data_is_refused_before_the_derivative_tensors_are_allocated():
    X = np.random.default_rng(0).normal(size=(6, 20000))
    ps = PointSet(X, np.array([0, 1, 0, 1, 0, 1]))
    t = time.process_time()
    with pytest.raises(budget.BudgetError, match="input-derivative tensors"):
        get_solver("input-space-svm")(Problem(ps, "affine"))
    assert time.process_time() - t < 2.0
    # 8·n²·d²·4 bytes for the K_xy-sized tensors: 429 GiB here
    assert budget.input_derivative_bytes(6, 20000, False) == 8.0 * 36 * 20000**2 * budget.INPUT_SECOND_DERIVATIVES


@pytest.mark.slow
def test_the_cli_refuses_wide_data_in_one_line(tmp_path):
    X = np.random.default_rng(0).normal(size=(6, 20000))
    ps = PointSet(X, np.array([0, 1, 0, 1, 0, 1]))
    path = tmp_path / "wide.npy"
    np.save(path, np.column_stack([X, ps.classes]))
    out = subprocess.run([sys.executable, "-m", "percviz", "solve", str(path), "-a", "input-space-svm", "--json"],
                         capture_output=True, text=True, timeout=60)
    assert out.returncode != 0
    lines = out.stderr.strip().splitlines()
    assert len(lines) == 1 and "GiB" in lines[0] and "internal error" not in lines[0]


def test_a_small_wide_set_still_runs_within_the_budget():
    X = np.random.default_rng(0).normal(size=(6, 40))
    get_solver("input-space-svm")(Problem(PointSet(X, np.array([0, 1, 0, 1, 0, 1])), "rbf:gamma=0.02")).run()


def _slsqp(dec, x, starts):
    memo = {}

    def fg(z):  # SLSQP asks for f and ∇f at the same z in two calls: one evaluation serves both
        key = z.tobytes()
        if key not in memo:
            f, g = dec.value_and_gradient(z[None])
            memo.clear()
            memo[key] = (f[0], g[0])
        return memo[key]

    best = np.inf
    # maxiter 100: the runs that reach it wander off to a farther branch; 500 finds the same nearest distances to
    # 3e-10 relative (the test's tolerance is 1e-8, the error it guards against 1e-3) in three times the time
    for x0 in starts:
        res = minimize(lambda z: np.sum((z - x) ** 2), x0, jac=lambda z: 2 * (z - x), method="SLSQP",
                       constraints=[{"type": "eq", "fun": lambda z: fg(z)[0], "jac": lambda z: fg(z)[1]}],
                       options={"ftol": 1e-15, "maxiter": 100})
        f, g = dec.value_and_gradient(res.x[None])
        if abs(f[0]) <= 1e-10 * np.linalg.norm(g[0]):
            best = min(best, float(np.linalg.norm(res.x - x)))
    return best


@pytest.mark.slow
@pytest.mark.parametrize("kernel", ["rbf:gamma=2", "poly:degree=3,c=1"])
def test_input_distances_on_moons_reach_the_nearest_foot(kernel):
    """Before: 6 of these 50 points were up to 1.1e-3 relative too far with RBF γ = 2 (the issue's 4.6e-4 case)."""
    ps = PointSet(*make_moons(50, noise=0.1, random_state=0))
    pr = Problem(ps, kernel)
    dec = get_solver("svm")(pr).run().decision  # soft margin, C = 1
    near = input_distances(dec, pr.X, pr.y)
    f, g = dec.value_and_gradient(near.feet)
    assert np.max(np.abs(f) / np.linalg.norm(g, axis=1)) <= 1e-8
    rng = np.random.default_rng(1)
    for i in range(len(pr.X)):
        x = pr.X[i]
        starts = [x, near.feet[i]] + [near.feet[i] + 0.3 * rng.normal(size=2) for _ in range(4)]
        found = _slsqp(dec, x, starts)
        assert near.distances[i] <= found * (1 + 1e-8), i


@pytest.mark.parametrize("spec", ["rbf:gamma=0.7", "poly:degree=3,c=1", "affine", "linear"])
@pytest.mark.parametrize("d", [1, 2, 3])
def test_the_batched_f_gradient_and_hessian_are_the_decision_s_own(spec, d):
    r = np.random.default_rng(d)
    D = DerivativeExpansion(parse_kernel(spec), r.normal(size=(9, d)), r.normal(size=9), r.normal(size=(9, d)), 0.3)
    Z = r.normal(size=(7, d))
    f, g = evaluator(D)(Z)
    np.testing.assert_allclose(f, D(Z), rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(g, D.gradient(Z), rtol=1e-10, atol=1e-10)
    np.testing.assert_allclose(hessian(D, Z), D.hessian(Z), rtol=1e-9, atol=1e-9)
    if spec.startswith("rbf"):
        K = KernelExpansion(parse_kernel(spec), r.normal(size=(5, d)), r.normal(size=5), -0.2)
        f, g = evaluator(K)(Z)
        np.testing.assert_allclose(f, K(Z), rtol=1e-12, atol=1e-12)
        np.testing.assert_allclose(g, K.gradient(Z), rtol=1e-10, atol=1e-10)
