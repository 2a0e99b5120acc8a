"""The Gram operator: factored G = F Fᵀ for finite feature maps agrees with the dense G, iterate by iterate."""

import tracemalloc

import numpy as np
import pytest

from percviz.core import gram
from percviz.core.data import PointSet
from percviz.core.errors import DataError
from percviz.core.gram_operator import DenseGram, FactoredGram, gram_bytes, kernel_features
from percviz.core.kernels import parse_kernel
from percviz.core.problem import Problem
from percviz.core.solvers import get_solver, load_all
from percviz.core.solvers._factored import FullScan, HullWalk

load_all()

FINITE = ["linear", "affine", "poly:degree=2", "poly:degree=3,c=0.5", "poly:degree=2,c=0"]
KERNEL_ALGORITHMS = ["nkp", "snkp", "nvn", "snkpvn", "isnkpvn", "kernel-perceptron"]


def _points(n: int, seed: int, gap: float = 0.0) -> PointSet:
    """Two labelled clouds in the plane, away from the origin (the linear kernel needs x ≠ 0)."""
    rng = np.random.default_rng(seed)
    X = rng.uniform(-1, 1, size=(3 * n, 2))
    s = X[:, 0] + 0.5 * X[:, 1] - 0.2 + 0.3 * np.sin(3 * X[:, 1])
    keep = (np.abs(s) > gap) & (np.linalg.norm(X, axis=1) > 0.05)
    X, s = X[keep][:n], s[keep][:n]
    return PointSet.from_signed(X + np.array([0.3, 0.1]), np.where(s > 0, 1, -1))


@pytest.mark.parametrize("spec", FINITE)
@pytest.mark.parametrize("dim", [2, 3])
def test_feature_map_reproduces_the_kernel_matrix(spec, dim):
    X = np.random.default_rng(dim).normal(size=(40, dim))
    k = parse_kernel(spec)
    Phi = kernel_features(k, X)
    np.testing.assert_allclose(Phi @ Phi.T, k(X, X), rtol=1e-12, atol=1e-12)


def test_polynomial_width_is_the_number_of_monomials():
    X = np.zeros((1, 2))
    assert kernel_features(parse_kernel("poly:degree=6,c=1"), X).shape[1] == 28  # C(6 + 2, 2)
    assert kernel_features(parse_kernel("poly:degree=6,c=0"), X).shape[1] == 7  # degree-6 monomials only
    assert kernel_features(parse_kernel("rbf"), X) is None


@pytest.mark.parametrize("spec", FINITE)
def test_factored_operator_matches_the_dense_matrix(spec):
    pts = _points(50, 1)
    dense = Problem(pts, spec, gram_form="dense").gram
    fac = Problem(pts, spec, gram_form="factored").gram
    assert isinstance(dense, DenseGram) and isinstance(fac, FactoredGram)
    G = dense.dense()
    v = np.random.default_rng(2).normal(size=(50, 3))
    np.testing.assert_allclose(fac @ v, G @ v, atol=1e-12)
    np.testing.assert_allclose(fac.column(7), G[:, 7], atol=1e-13)
    np.testing.assert_allclose(fac.block([1, 4, 9], [0, 4]), G[np.ix_([1, 4, 9], [0, 4])], atol=1e-13)
    np.testing.assert_allclose(fac.diag(), 1.0, atol=1e-14)
    assert fac.quad(v[:, 0]) == pytest.approx(float(v[:, 0] @ G @ v[:, 0]), abs=1e-12)
    np.testing.assert_allclose(fac.dense(), G, atol=1e-13)


def test_auto_form_factors_large_finite_problems_only():
    assert isinstance(Problem(_points(1200, 3), "affine").gram, FactoredGram)
    assert isinstance(Problem(_points(1200, 3), "poly:degree=3").gram, FactoredGram)
    assert isinstance(Problem(_points(200, 3), "affine").gram, DenseGram)  # small: the kernel's own rounding


@pytest.mark.parametrize("spec", ["affine", "linear", "poly:degree=2", "poly:degree=3,c=0.5"])
@pytest.mark.parametrize("name", KERNEL_ALGORITHMS)
def test_factored_and_dense_paths_give_the_same_iterates(name, spec):
    pts = _points(150, 4, gap=0.01)  # n > 64 with D = 3: NKP's hull walk is exercised on the affine kernel
    runs = []
    for form in ("dense", "factored"):
        solver = get_solver(name)(Problem(pts, spec, gram_form=form), max_iter=400)
        runs.append(list(solver.snapshots()))
    dense, fac = runs
    assert len(dense) == len(fac) > 1
    for a, b in zip(dense, fac):
        assert (a.iteration, a.status, a.triggers) == (b.iteration, b.status, b.triggers)
        np.testing.assert_allclose(a.alpha, b.alpha, rtol=1e-9, atol=1e-12)
        for key in ("alpha_g_norm", "p_g_norm"):  # squared: a norm of ~1e-9 is the root of rounding-level αᵀGα
            if a.metrics.get(key) is not None:
                assert b.metrics[key] ** 2 == pytest.approx(a.metrics[key] ** 2, rel=1e-8, abs=1e-13)
        if a.metrics.get("loss") is not None:
            assert b.metrics["loss"] == pytest.approx(a.metrics["loss"], rel=1e-8, abs=1e-10)
        if a.metrics.get("margin") is not None:  # min_i (Gα)_i: the margin divided by a ‖α‖_G that may be ~0
            nrm = "alpha_g_norm" if "alpha_g_norm" in a.metrics else "p_g_norm"
            ga, gb = (s.metrics["margin"] * s.metrics[nrm] for s in (a, b))
            assert gb == pytest.approx(ga, abs=1e-10)


def test_hull_walk_finds_the_minimum_of_a_full_scan():
    F = Problem(_points(3000, 5), "affine").gram.factor
    F = np.vstack([F, F[:10]])  # duplicates answer by their first index, like np.argmin
    walk, scan = HullWalk(F), FullScan(F)
    for w in np.random.default_rng(6).normal(size=(200, 3)) * 0.01:
        assert walk(w)[0] == scan(w)[0]


def test_margin_on_the_factor_matches_the_dense_eigen_factor():
    pts = _points(120, 7, gap=0.02)
    dense = gram.optimal_margin(Problem(pts, "poly:degree=3", gram_form="dense"))
    fac = gram.optimal_margin(Problem(pts, "poly:degree=3", gram_form="factored"))
    assert dense.separable and fac.separable
    assert fac.rho == pytest.approx(dense.rho, rel=1e-6)


def test_hundred_thousand_affine_points_run_without_an_n_by_n_matrix(monkeypatch):
    monkeypatch.setenv("PERCVIZ_MEMORY_BUDGET", "1G")
    n = 100_000
    problem = Problem(_points(n, 8, gap=1e-4), "affine")
    with pytest.raises(DataError, match="memory budget"):
        problem.G  # 80 GB: refused in one line, not attempted
    tracemalloc.start()
    try:
        snkp = get_solver("snkp")(problem, bound=False, max_iter=10**6)
        snkp.start()
        s1 = snkp.advance(40)
        nkp = get_solver("nkp")(problem, bound=False, max_iter=10**6)
        nkp.start()
        s2 = nkp.advance(3000)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 150 * 2**20  # O(n): an n×n float64 matrix would be 80 GB, one n-vector is 0.8 MB
    assert s1.iteration == 40 or s1.status.value == "separator"
    assert s2.iteration == 3000 or s2.status.value == "separator"
    for snap in (s1, s2):  # the iterates are real: Gα from the factor agrees with the snapshot's margin
        Ga = problem.gram @ np.asarray(snap.alpha)
        assert snap.metrics["margin"] == pytest.approx(Ga.min() / np.sqrt(problem.gram.quad(snap.alpha)), rel=1e-9)


def test_dense_kernels_are_refused_before_allocating(monkeypatch):
    monkeypatch.setenv("PERCVIZ_MEMORY_BUDGET", "256M")
    problem = Problem(_points(20_000, 9), "rbf:gamma=0.5")
    tracemalloc.start()
    try:
        with pytest.raises(DataError, match=r"budget is 256 MiB.*at most"):
            get_solver("snkp")(problem).start()
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 20 * 2**20


@pytest.mark.parametrize("spec", ["affine", "poly:degree=3", "rbf:gamma=0.5"])
def test_kernel_expansion_on_many_points_agrees_with_the_direct_sum(spec, monkeypatch):
    from percviz.core import decision
    from percviz.core.decision import KernelExpansion

    monkeypatch.setattr(decision, "EVAL_BLOCK", 2**12)  # the blocks of 2²² entries, scaled down with the data
    rng = np.random.default_rng(10)
    C, c, Z = rng.normal(size=(600, 2)), rng.normal(size=600), rng.normal(size=(1000, 2))
    assert Z.shape[0] * C.shape[0] > decision.EVAL_BLOCK  # the feature-map / blocked path, not one K(Z, C)
    assert Z.shape[0] * 10 > decision.EVAL_BLOCK  # φ(Z) of the cubic map (10 terms) in several row blocks too
    k = parse_kernel(spec)
    direct = k(Z, C) @ c
    np.testing.assert_allclose(KernelExpansion(k, C, c)(Z), direct, atol=1e-12 * np.abs(direct).max())


def test_memory_estimate_tells_the_factored_form_from_the_dense_one():
    big = Problem(_points(5000, 11), "poly:degree=6")
    assert gram_bytes(big) == 8.0 * 5000 * (28 + 8)
    # dense: G itself (float32 above 4096 points, core.dense_gram) and two float64 blocks of rows
    assert 4.0 * 5000**2 < gram_bytes(Problem(big.points, "rbf")) < 4.0 * 5000**2 + 10 * 2**20
    assert 8.0 * 5000**2 < gram_bytes(Problem(big.points, "rbf", gram_dtype="float64")) < 8.0 * 5000**2 + 10 * 2**20
    assert 4.0 * 5000**2 < gram_bytes(big, "dense") < 4.0 * 5000**2 + 10 * 2**20
