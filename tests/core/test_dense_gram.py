"""The dense G built in place (core.dense_gram): equal to scikit-learn's kernels to rounding, refused beyond the
budget in one line before allocating, and claims made on a float32 G confirmed in float64."""

import re
import tracemalloc

import numpy as np
import pytest
from sklearn.metrics.pairwise import laplacian_kernel, rbf_kernel

from percviz.core import budget, dense_gram, gram
from percviz.core.data import PointSet
from percviz.core.grid import GridEvaluator
from percviz.core.problem import Problem
from percviz.core.solvers import get_solver
from percviz.core.solvers.base import Status, separator_refuted

REFERENCE = {"rbf": rbf_kernel, "laplacian": laplacian_kernel}


def _points(n, d=2, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    return PointSet.from_signed(X, np.where(X[:, 0] + 0.4 * np.sin(2 * X[:, 1]) > 0, 1.0, -1.0))


def _reference(pts, name, gamma):
    y = pts.y
    return REFERENCE[name](pts.X, gamma=gamma) * np.outer(y, y)


@pytest.mark.parametrize("name", ["rbf", "laplacian"])
@pytest.mark.parametrize("dtype, tol", [("float64", 1e-14), ("float32", 6e-8)])
@pytest.mark.parametrize("n, d, block_bytes", [(300, 2, None), (1300, 3, None), (257, 5, 8 * 257 * 16)])
def test_blocked_g_equals_scikit_learn_to_rounding(monkeypatch, name, dtype, tol, n, d, block_bytes):
    if block_bytes:  # small blocks on a small set: 16 rows at a time, mirrored
        monkeypatch.setattr(dense_gram, "SINGLE_BLOCK_N", 0)
        monkeypatch.setattr(dense_gram, "BLOCK_BYTES", block_bytes)
    pts = _points(n, d, seed=n)
    G = Problem(pts, f"{name}:gamma=0.7", gram_dtype=dtype).G
    assert G.dtype == np.dtype(dtype) and not G.flags.writeable
    np.testing.assert_allclose(G, _reference(pts, name, 0.7), rtol=0, atol=tol)
    assert np.array_equal(G, G.T) and (np.diagonal(G) == 1.0).all()


@pytest.mark.parametrize("spec", ["rbf:gamma=0.7", "laplacian:gamma=0.3", "affine", "poly:degree=3"])
def test_one_block_build_is_the_whole_matrix_formula_bit_for_bit(spec):
    # classroom sizes keep the kernel matrix's own rounding (ties on symmetric sets break as before)
    p = Problem(_points(700, seed=3), spec, gram_form="dense")
    s = p.y / np.sqrt(p.self_kernel)
    G = s[:, None] * p.kernel(p.X, p.X) * s[None, :]
    G = 0.5 * (G + G.T)
    np.fill_diagonal(G, 1.0)
    assert np.array_equal(p.G, G)


def test_float32_storage_above_the_threshold_and_float64_below():
    assert dense_gram.storage_dtype(dense_gram.F32_MIN_N) == np.float64
    assert dense_gram.storage_dtype(dense_gram.F32_MIN_N + 1) == np.float32
    assert dense_gram.storage_dtype(10**5, "float64") == np.float64
    with pytest.raises(ValueError):
        dense_gram.storage_dtype(10, "float16")


@pytest.mark.parametrize("name", ["rbf", "laplacian"])
def test_rectangular_kernel_matrix_in_blocks(monkeypatch, name):
    monkeypatch.setattr(dense_gram, "BLOCK_BYTES", 8 * 90 * 7)  # 7 rows per block
    rng = np.random.default_rng(5)
    X, Z = rng.normal(size=(50, 2)), rng.normal(size=(90, 2))
    K = dense_gram.kernel_matrix(dense_gram_kernel(name), X, Z, np.float64)
    np.testing.assert_allclose(K, REFERENCE[name](X, Z, gamma=0.4), rtol=0, atol=2e-15)


def dense_gram_kernel(name):
    from percviz.core.kernels import parse_kernel

    return parse_kernel(f"{name}:gamma=0.4")


def test_build_allocates_g_and_its_blocks_only():
    n = 3000
    p = Problem(_points(n, seed=1), "rbf:gamma=0.5", gram_dtype="float32")
    p.self_kernel, p.y  # noqa: B018
    dense_gram.build_dense(Problem(_points(1100), "rbf"), np.float32)  # imports and first calls
    tracemalloc.start()
    G = dense_gram.build_dense(p, np.float32)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    # before: ~5 float64 n×n temporaries (the kernel's ‖x‖² + ‖z‖², x·z, 2x·z, exp, the signed copies, G + Gᵀ)
    assert G.nbytes == 4 * n * n <= peak <= dense_gram.dense_bytes(n, np.float32) < 4 * n * n + 10 * 2**20


def test_the_budget_refuses_in_one_line_before_allocating(monkeypatch):
    monkeypatch.setenv(budget.ENV, "70M")
    p = Problem(_points(4500, seed=2), "laplacian:gamma=0.5")  # G in float32 (over 4096 points): 81 MB
    tracemalloc.start()
    with pytest.raises(budget.BudgetError) as err:
        p.G  # noqa: B018
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    text = str(err.value)
    assert "\n" not in text and "4,500×4,500 G of the laplacian:gamma=0.5 kernel in float32" in text
    assert "budget is 70 MiB" in text and budget.ENV in text
    most = int(re.search(r"at most ([0-9,]+) points", text).group(1).replace(",", ""))
    assert 4 * most**2 <= 70 * 2**20 < 4 * (1.02 * most) ** 2  # a float32 G of that many points fits, just
    assert peak < 5 * 2**20
    monkeypatch.setenv(budget.ENV, "100M")
    assert p.G.dtype == np.float32  # within the budget: built


def test_float32_and_float64_iterates_agree():
    base = _points(600, seed=4)  # plus its first point with the other label: ρ_K = 0, nothing stops early
    pts = PointSet.from_signed(np.vstack([base.X, base.X[:1]]), np.r_[base.y, -base.y[:1]])
    runs = {}
    for dt in ("float64", "float32"):
        p = Problem(pts, "rbf:gamma=2", gram_dtype=dt)
        runs[dt] = get_solver("snkp")(p, max_iter=60, bound=False).run()
        assert p.G.dtype == np.dtype(dt)
    a64, a32 = (np.asarray(runs[k].alpha) for k in ("float64", "float32"))
    assert runs["float64"].iteration == runs["float32"].iteration == 60
    np.testing.assert_allclose(a32, a64, rtol=0, atol=1e-6 * a64.max())
    assert runs["float32"].metrics["margin"] == pytest.approx(runs["float64"].metrics["margin"], rel=1e-4)


def _near_duplicate_pair():
    # x and x + 1e-4 with opposite labels: K = exp(−0.5·1e-8) rounds to 1 in float32, so the float32 G has
    # ‖½(e_0 + e_1)‖_G = 0 although in float64 it is 5e-5: the set is separable (the RBF kernel is PD).
    X = np.array([[0.3, 0.2], [0.3001, 0.2], [2.0, 1.0], [-1.5, 0.5]])
    return PointSet.from_signed(X, np.array([1.0, -1.0, 1.0, -1.0]))


@pytest.mark.parametrize("name, values", [("snkpvn", {"delta": 1e-6})])
def test_a_certificate_of_the_float32_g_alone_is_not_claimed(name, values):
    p = Problem(_near_duplicate_pair(), "rbf:gamma=0.5", gram_dtype="float32")
    snap = get_solver(name)(p, max_iter=5000, bound=False, **values).run()
    assert p.G[0, 1] == -1.0 and p.gram.quad(snap.p) < 1e-12  # float32 alone would claim ‖p‖_G < 1e-6
    assert snap.status is Status.CONVERGED and "Not claimed as a certificate" in snap.message
    assert dense_gram.float64_norm(p, snap.p) > 4e-5
    exact = get_solver(name)(Problem(_near_duplicate_pair(), "rbf:gamma=0.5"), max_iter=5000, bound=False,
                             **values).run()
    assert exact.status is Status.SEPARATOR  # what float64 finds: a separator, never a certificate


def test_isnkpvn_goes_on_in_float64_once_the_float32_g_cannot_resolve_its_call():
    """The float32 G has ‖½(e_0 + e_1)‖_G = 0, float64 5e-5: ISNKPVN, below float32's resolution, restarts its call
    on G in float64 and ends as on a float64 G, with a separator (the set is separable), never a certificate."""
    p = Problem(_near_duplicate_pair(), "rbf:gamma=0.5", gram_dtype="float32")
    solver = get_solver("isnkpvn")(p, max_iter=5000, bound=False, eps=1e-6)
    snap = solver.run()
    exact = get_solver("isnkpvn")(Problem(_near_duplicate_pair(), "rbf:gamma=0.5"), max_iter=5000, bound=False,
                                  eps=1e-6).run()
    assert snap.status is exact.status is Status.SEPARATOR
    assert solver._G.exact and not p.gram.exact  # the run's G became float64; the problem's stays float32
    assert (p.y * snap.decision(p.X) > 0).all()


def test_a_certificate_confirmed_in_float64_stands():
    X = np.array([[0.0, 0.0], [0.0, 0.0], [1.0, 0.5], [1.0, 0.5]])  # each point with both labels
    p = Problem(PointSet.from_signed(X, np.array([1.0, -1.0, 1.0, -1.0])), "rbf", gram_dtype="float32")
    snap = get_solver("nvn")(p, eps=1e-3).run()
    assert snap.status is Status.CERTIFICATE and dense_gram.float64_norm(p, snap.p) <= 1e-3


def test_a_separator_found_on_a_float32_g_is_checked_on_the_points_in_float64():
    p = Problem(_points(400, seed=6), "rbf:gamma=3", gram_dtype="float32")
    snap = get_solver("snkp")(p, max_iter=3000, bound=False).run()
    assert snap.status is Status.SEPARATOR
    assert separator_refuted(p, snap.decision, "kernel") == ""
    f = snap.decision(p.X)  # the float64 kernel sum on the points
    assert (p.y * f > 0).all()


def test_rho_k_on_a_float32_g_uses_float64_kernel_columns():
    pts = _points(300, seed=7)
    m64 = gram.optimal_margin(Problem(pts, "rbf:gamma=4"))
    m32 = gram.optimal_margin(Problem(pts, "rbf:gamma=4", gram_dtype="float32"))
    assert m64.separable and m32.separable
    assert m32.rho == pytest.approx(m64.rho, rel=1e-9)


def test_the_canvas_values_on_many_points_come_from_g():
    p = Problem(_points(2100, seed=8), "rbf:gamma=1")  # 2100² > 2²² kernel entries: no K(X, X) cache
    snap = get_solver("snkp")(p, max_iter=5, bound=False).run()
    fx = GridEvaluator().at_points(snap.decision, p.X)
    direct = snap.decision(p.X)
    np.testing.assert_allclose(fx, direct, rtol=0, atol=1e-12 * np.abs(direct).max())


def test_problems_on_the_same_points_and_kernel_share_one_live_g():
    import gc

    pts = _points(dense_gram.SHARE_MIN_N, seed=9)
    a, b = Problem(pts, "rbf:gamma=1"), Problem(pts, "rbf:gamma=1")
    assert a.G is b.G  # the app changing algorithm: no second build
    other = Problem(pts, "rbf:gamma=2")
    assert other.G is not a.G and not np.array_equal(other.G, a.G)
    moved = PointSet.from_signed(pts.X + 1e-9, pts.y)
    assert Problem(moved, "rbf:gamma=1").G is not a.G
    before = len(dense_gram._SHARED)
    del a, b
    gc.collect()
    assert len(dense_gram._SHARED) < before  # weak: a G nobody holds is freed


def test_the_canvas_values_of_an_earlier_snapshot_stay_its_own():
    p = Problem(_points(2100, seed=10), "rbf:gamma=1")
    s = get_solver("nkp")(p, bound=False)  # NKP updates α in place
    first = s.start() and s.step()
    expect = first.decision(p.X)
    s.advance(20)
    np.testing.assert_allclose(GridEvaluator().at_points(first.decision, p.X), expect, rtol=0,
                               atol=1e-12 * np.abs(expect).max())
