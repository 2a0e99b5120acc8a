"""The G-norm resolution of a float32 G (n > 4096): ‖p‖_G computed on it stays within the resolution of ‖p‖_G in
float64 (scikit-learn's kernel, math.fsum), for the p that matter near a certificate; ISNKPVN on a float32 G ends
where it ends on the float64 one."""

import math

import numpy as np
import pytest
from sklearn.metrics.pairwise import rbf_kernel

from percviz.core import dense_gram
from percviz.core.data import PointSet
from percviz.core.problem import Problem
from percviz.core.solvers import Status, get_solver
from percviz.core.solvers.von_neumann import G_NORM_RESOLUTION

GAMMA = 8.0


def near_pairs(n: int, gaps, seed: int = 0) -> tuple[np.ndarray, np.ndarray, list[tuple[int, int]]]:
    """n points in the square with random labels; among them pairs a gap apart with opposite labels."""
    rng = np.random.default_rng(seed)
    X = rng.uniform(-1, 1, size=(n, 2))
    y = np.where(rng.random(n) < 0.5, 1.0, -1.0)
    pairs = []
    for k, gap in enumerate(gaps):
        i, j = 2 * k, 2 * k + 1
        X[j] = X[i] + [gap, 0.0]
        y[j] = -y[i]
        pairs.append((i, j))
    return X, y, pairs


def exact_norm(X, y, p) -> float:
    """‖p‖_G in float64 on p's support, by scikit-learn's RBF kernel (G = diag(y) K diag(y), K_ii = 1); the sum
    exactly rounded (math.fsum) on small supports, in float64 blocks on large ones (error ~1e-13 there)."""
    S = np.flatnonzero(p)
    v = p[S] * y[S]
    if S.size <= 300:
        K = rbf_kernel(X[S], X[S], gamma=GAMMA)
        return math.sqrt(max(math.fsum((np.outer(v, v) * K).ravel()), 0.0))
    total = sum(float(v[k : k + 512] @ (rbf_kernel(X[S[k : k + 512]], X[S], gamma=GAMMA) @ v))
                for k in range(0, S.size, 512))
    return math.sqrt(max(total, 0.0))


def test_a_float32_g_norm_is_within_its_resolution_of_float64():
    n = 4200  # above dense_gram.F32_MIN_N: 'auto' stores G in float32
    X, y, pairs = near_pairs(n, [3e-3, 1e-3, 3e-4, 1e-4, 3e-5, 1e-5, 1e-6])
    problem = Problem(PointSet.from_signed(X, y), kernel=f"rbf:gamma={GAMMA}")
    G = problem.gram
    assert not G.exact
    res = dense_gram.g_norm_resolution(G, G_NORM_RESOLUTION)
    assert 1e-4 < res < 1e-2  # coarser than float64's 1e-7, fine enough for the default ε = 1e-3 to be reached
    assert dense_gram.g_norm_resolution(Problem(PointSet.from_signed(X[:50], y[:50]), "rbf").gram) == 1e-7
    rng = np.random.default_rng(1)
    ps = []
    for i, j in pairs:  # the near-certificates ½(e_i + e_j): float32 rounds 1 − K_ij
        p = np.zeros(n)
        p[[i, j]] = 0.5
        ps.append(p)
    close = np.flatnonzero(np.hypot(*(X - X[0]).T) < 0.05)  # a neighbourhood of both labels, balanced
    p = np.zeros(n)
    p[close] = rng.random(close.size)
    for sign in (1, -1):
        side = close[y[close] == sign]
        p[side] /= 2 * p[side].sum()
    ps.append(p)
    ps += [rng.dirichlet(np.full(n, a)) for a in (1.0, 0.05)]  # dense and spread-out weights
    worst = 0.0
    for p in ps:
        computed = math.sqrt(max(float(p @ (G @ p)), 0.0))  # what the solvers compute on the float32 G
        worst = max(worst, abs(computed - exact_norm(X, y, p)))
    assert worst <= res
    assert worst > 1e-7  # float32 really is coarser here than float64's resolution


def test_isnkpvn_on_a_float32_g_ends_where_float64_does():
    """Twins a hair apart with opposite labels, shuffled: on the float32 G the old resolution (1e-7) let the run
    claim a certificate that float64 then refused; now each ends with a certificate confirmed in float64."""
    rng = np.random.default_rng(0)
    Z = rng.uniform(-1, 1, size=(150, 2))
    X = np.repeat(Z, 2, axis=0)
    X[1::2, 0] += 3e-5
    y = np.tile([1.0, -1.0], 150)
    perm = rng.permutation(300)
    X, y = X[perm], y[perm]
    runs = {}
    for dtype in ("float32", "float64"):
        problem = Problem(PointSet.from_signed(X, y), kernel=f"rbf:gamma={GAMMA}", gram_dtype=dtype)
        runs[dtype] = (problem, get_solver("isnkpvn")(problem, eps=3e-6, bound=False).advance(6000))
    for problem, snap in runs.values():
        assert snap.status is Status.CERTIFICATE
        assert dense_gram.float64_norm(problem, snap.p) <= 3e-6
        assert exact_norm(X, y, snap.p) <= 3e-6 * (1 + 1e-9)


@pytest.mark.parametrize("n", [100, 4097, 10_000, 30_000])
def test_the_float32_resolution_bounds_the_storage_rounding(n):
    """At least √(3u): rounding G_ij and p_j to float32 alone moves pᵀGp by up to 3u·pᵀ|G|p (u = 2⁻²⁴)."""
    G = type("G32", (), {"exact": False, "n": n})()
    res = dense_gram.g_norm_resolution(G)
    assert math.sqrt(3 * 2.0**-24) < res < math.sqrt((3 + n) * 2.0**-24)  # below the worst-case γ_n bound
