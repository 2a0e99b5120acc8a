"""The G-geometry of Ramdas & Peña (§3–§5): G-norm, L(α), normalized margins, and the optimal margin ρ_K.

ρ_K is computed in three exact steps on a factor B of the Gram matrix (rows b_i with b_i·b_j = G_ij):
  1. the max-margin cone program max t s.t. B w ≥ t·1, ‖w‖ ≤ 1 (Clarabel): a w with min_i b_i·w > 0 proves
     separability, and the program's multipliers are the witness p = argmin over the simplex of ‖p‖_G,
     polished on its active set; ρ_K = ‖p‖_G (Lemma 3 plus the minimax theorem) and the interval
     [min_i b_i·w/‖w‖, ‖p‖_G] certifies it;
  2. otherwise separability is decided by an LP (HiGHS): max t s.t. B w ≥ t·1, −1 ≤ w ≤ 1 (t > 0 ⟺ some
     Gα > 0, Gordan), whose w certifies the lower end if the cone program's did not;
  3. when not separable, p is a Gordan witness (an LP vertex, made exact on its support) and
     ρ_K = −(radius of the largest G-ball inside the hull of the b_i) (Theorem "margininf"): 0 when an LP
     finds 0 on the hull's boundary, else read off the hull's facets (Qhull) when the rank of G is at most
     HULL_MAX_RANK; beyond that ρ_K is only bracketed (MarginResult.exact is False).
The ball and the sup over ‖α‖_G = 1 live in the span of the y_i φ̃(x_i) — the paper's footnote notes that
over the whole RKHS ρ_K would be 0 — and that is the ρ_K that Lemmas 7 and 8 use.
"""

from __future__ import annotations

import dataclasses
import threading
import weakref
from dataclasses import dataclass

import numpy as np

from percviz.core.errors import DataError
from percviz.core.params import ParamSpec

EPS = np.finfo(float).eps
#: Largest rank of G for which the non-separable ρ_K is read off the hull's facets (Qhull's cost grows fast).
HULL_MAX_RANK = 8


# -- the G-norm and the quantities built on it ------------------------------------------------------------
def g_norm(G: np.ndarray, alpha: np.ndarray, Galpha: np.ndarray | None = None) -> float:
    """‖α‖_G = √(αᵀGα) (rounding below zero clipped to 0)."""
    Ga = G @ alpha if Galpha is None else Galpha
    return float(np.sqrt(max(float(alpha @ Ga), 0.0)))


def loss(G: np.ndarray, alpha: np.ndarray, Galpha: np.ndarray | None = None) -> float:
    """L(α) = max_i −(Gα)_i + ½‖α‖²_G (eq. "lossag"); negative ⇒ Gα > 0 (Lemma 1)."""
    Ga = G @ alpha if Galpha is None else Galpha
    return float(-Ga.min() + 0.5 * max(float(alpha @ Ga), 0.0))


def normalized_margin(G: np.ndarray, alpha: np.ndarray, Galpha: np.ndarray | None = None) -> float | None:
    """min_i (Gα)_i / ‖α‖_G: the normalized margin of f = Σ α_i y_i φ̃(x_i); None when ‖α‖_G = 0."""
    Ga = G @ alpha if Galpha is None else Galpha
    nrm = g_norm(G, alpha, Ga)
    return float(Ga.min() / nrm) if nrm > 0 else None


def separates(Galpha: np.ndarray, alpha: np.ndarray | None, l1: float | None = None) -> bool:
    """The exit test Gα > 0, read in floating point: every (Gα)_i above the rounding level 4n·eps·‖α‖_1.

    (|G_ij| ≤ 1, so a product G·α carries errors up to about n·eps·‖α‖_1; below that, Gα > 0 is noise,
    e.g. α = 1/n on a set whose hull has 0 at its centre.)
    """
    return bool(Galpha.min() > rounding_level(Galpha.size, alpha, l1))


def rounding_level(n: int, alpha: np.ndarray | None, l1: float | None = None) -> float:
    """4n·eps·‖α‖_1 (l1 = ‖α‖_1 when known): values of (Gα)_i at or below this count as ≤ 0."""
    if l1 is None:
        l1 = float(np.abs(alpha).sum())
    return 4.0 * n * EPS * l1


def iterate_metrics(alpha: np.ndarray, Galpha: np.ndarray) -> dict[str, float | None]:
    """alpha_g_norm, margin, loss and train_errors of an iterate, in O(n) from a maintained Gα."""
    sq = max(float(alpha @ Galpha), 0.0)
    nrm = float(np.sqrt(sq))
    mn = float(Galpha.min())
    return {
        "alpha_g_norm": nrm,
        "margin": mn / nrm if nrm > 0 else None,
        "loss": -mn + 0.5 * sq,
        "train_errors": int(np.count_nonzero(Galpha <= 0)),  # y_i f(x_i) ≤ 0 counts as an error
    }


def project_simplex(v) -> np.ndarray:
    """Euclidean projection of v onto the simplex {p ≥ 0, Σ p = 1}, by sorting (O(n log n))."""
    v = np.asarray(v, dtype=float)
    u = np.sort(v)[::-1]
    css = np.cumsum(u)
    css -= 1.0
    # j u_j > Σ_{i≤j} u_i − 1 holds exactly for j = 1..k (u is sorted): count them
    k = int(np.count_nonzero(u * _arange1(v.size) > css))
    tau = css[k - 1] / k
    out = v - tau
    np.maximum(out, 0.0, out=out)
    return out


_ARANGE = np.arange(1.0, 2.0)


def _arange1(n: int) -> np.ndarray:
    """1, 2, …, n as floats (cached: the projection runs once per iteration)."""
    global _ARANGE
    if _ARANGE.size < n:
        _ARANGE = np.arange(1.0, n + 1.0)
    return _ARANGE[:n]


# -- the optimal margin -----------------------------------------------------------------------------------
def _linprog(*args, **kwargs):
    """scipy's linprog, imported on first use (scipy.optimize adds ~0.5 s to the app's launch)."""
    from scipy.optimize import linprog

    return linprog(*args, **kwargs)


@dataclass(frozen=True, eq=False)
class MarginResult:
    """The optimal margin of a set of signed rows (ρ_K for a problem's normalized signed Gram matrix G).

    separable     True iff some α has Gα > 0 (decided by the LP; equivalently no p in the simplex has ‖p‖_G = 0).
    rho           ρ_K = sup_{‖α‖_G = 1} min_i (Gα)_i. Separable: the certified lower end of `interval`
                  (the margin an explicit separator achieves), always > 0; when the interval is wide (ρ_K
                  below what double precision resolves, e.g. RBF with random labels) `exact` is False and
                  `resolved` tells whether the paper's bounds may use it. Not separable and `exact`: −(radius of the largest
                  G-ball in the hull, Theorem "margininf"); not `exact`: 0.0, the certified upper bound
                  (so |rho| never overstates |ρ_K| and the paper's bounds stay valid).
    p             the witness in the simplex: argmin ‖p‖_G (separable: ‖p‖_G = ρ_K; otherwise ‖p‖_G ≈ 0,
                  a Gordan certificate).
    alpha         separable only: α = p/‖p‖²_G, the hard-margin (SVM) solution in canonical scaling:
                  min_i (Gα)_i = 1 and ‖α‖_G = 1/ρ_K; `direction` is the unit-norm max-margin α = p/‖p‖_G.
                  (The minimizer of L(α) is p itself: L(p) = −½ρ_K².) None when not separable.
    interval      (lo, hi) with lo ≤ ρ_K ≤ hi, both certified by the returned vectors or the hull.
    exact         whether rho is known to 1e-6 relative (hi − lo ≤ 1e-6·|rho| + 1e-12).
    rank          the numerical rank of the Gram matrix (dimension of the span of the rows).
    lp_value      the optimum t of the separability program (the cone program's ρ when separable, else the
                  LP's t ≤ 0): > 0 ⟺ separable.
    """

    separable: bool
    rho: float
    p: np.ndarray
    alpha: np.ndarray | None
    interval: tuple[float, float]
    exact: bool
    rank: int
    lp_value: float

    def __post_init__(self):
        for name in ("p", "alpha"):
            a = getattr(self, name)
            if a is not None:
                a = np.array(a, dtype=float, copy=True)
                a.setflags(write=False)
                object.__setattr__(self, name, a)

    @property
    def resolved(self) -> bool:
        """Whether rho is known well enough for the paper's bounds (2√(2 log n)/ρ_K, 1/ρ_K², …).

        Separable: the certified interval is positive and at most 0.1% wide. Not separable: always (rho is
        then exact or 0, an upper bound on ρ_K ≤ 0, which keeps Lemma 8's min{1, ‖q‖_G/|ρ_K|} valid).
        """
        if not self.separable:
            return True
        lo, hi = self.interval
        return lo > 0 and hi - lo <= 1e-3 * hi

    @property
    def direction(self) -> np.ndarray | None:
        """The unit-G-norm max-margin coefficients p/‖p‖_G (margin ρ_K), or None when not separable."""
        if self.alpha is None:
            return None
        return self.alpha * (self.interval[1] ** 2 / max(self.interval[1], 1e-300))


def _reduce_rows(R: np.ndarray) -> np.ndarray:
    """Coordinates of the rows in an orthonormal basis of their span (drops numerically null directions)."""
    U, s, _ = np.linalg.svd(R, full_matrices=False)
    if s.size == 0 or s[0] == 0:
        return np.zeros((R.shape[0], 0))
    keep = s > s[0] * max(R.shape) * EPS * 10
    return U[:, keep] * s[keep]


def _factor_from_gram(M: np.ndarray) -> np.ndarray:
    """B with B Bᵀ = M up to the numerical null space, from the eigen-decomposition of the PSD matrix M."""
    w, V = np.linalg.eigh(M)
    if w[-1] <= 0:
        return np.zeros((M.shape[0], 0))
    keep = w > w[-1] * M.shape[0] * EPS * 10
    return V[:, keep] * np.sqrt(w[keep])


def signed_factor(problem) -> np.ndarray:
    """Rows b_i with b_i·b_j = G_ij for a Problem: explicit for the linear/affine kernels, else from eigh(G)."""
    name = getattr(problem.kernel, "name", "")
    if name in ("linear", "affine"):
        d = problem.self_kernel  # also refuses K(x, x) = 0, naming the point
        F = problem.X if name == "linear" else np.column_stack([np.ones(problem.n), problem.X])
        return _reduce_rows(F * (problem.y / np.sqrt(d))[:, None])
    F = problem.gram.factor  # the n×D factor of a finite feature map (polynomial kernels): no n×n eigh
    return _reduce_rows(F) if F is not None else _factor_from_gram(np.asarray(problem.G))


def _separability_lp(B: np.ndarray) -> tuple[float, np.ndarray]:
    """max t s.t. B w ≥ t·1, −1 ≤ w ≤ 1, t ≤ 1 (HiGHS); (t, w). t > 0 iff the rows are strictly separable."""
    n, r = B.shape
    scale = float(np.abs(B).max())
    c = np.zeros(r + 1)
    c[-1] = -1.0
    A = np.hstack([-B / scale, np.ones((n, 1))])
    bounds = [(-1.0, 1.0)] * r + [(None, 1.0)]
    res = _linprog(
        c, A_ub=A, b_ub=np.zeros(n), bounds=bounds, method="highs",
        options={"primal_feasibility_tolerance": 1e-10, "dual_feasibility_tolerance": 1e-10},
    )
    if res.status != 0:
        raise RuntimeError(f"the separability LP failed: {res.message}")
    return float(-res.fun) * scale, np.asarray(res.x[:r], dtype=float)


#: Below this many rows the cone program is solved on all of them at once; above, on a growing working set.
WORKING_SET_MIN_ROWS = 150


def _max_margin_socp(B: np.ndarray) -> tuple[np.ndarray, float, np.ndarray] | None:
    """max t s.t. B w ≥ t·1, ‖w‖ ≤ 1 (Clarabel, a second-order cone program); (w, t, p) or None on failure.

    Its optimum is max(ρ, 0) and the multipliers of B w ≥ t·1 sum to 1: they are the witness p (Lemma 3's
    duality). Unlike min ½‖Bᵀp‖² it works with ρ itself, not ρ², so a margin of 1e-9 is still resolved.
    Many rows: solved on a working set of the rows nearest the boundary, adding the violated ones until w
    satisfies all (the subset's program is a relaxation, so its optimum is then the full one).
    """
    n = B.shape[0]
    scale = float(np.linalg.norm(B, axis=1).max())
    if n < WORKING_SET_MIN_ROWS:
        return _socp_on(B, scale)
    chunk = max(50, n // 8)
    w0 = B.sum(axis=0)
    S = np.argsort(B @ w0, kind="stable")[:chunk] if np.any(w0) else np.arange(chunk)
    for _ in range(12):
        out = _socp_on(B[S], scale)
        if out is None or out[1] <= 0:
            break
        w, t, lam = out
        if np.count_nonzero(lam > 1e-6 * lam.max()) > S.size // 3:
            break  # most rows of the set are active (G near I, or a tiny margin): the full program is cheaper
        margins = B @ w
        bad = np.flatnonzero(margins < t * (1.0 - 1e-9))
        if bad.size == 0:
            p = np.zeros(n)
            p[S] = lam
            return w, t, p
        bad = bad[np.argsort(margins[bad], kind="stable")[:chunk]]
        S = np.union1d(S, bad)
        if S.size > n // 2:
            break
    return _socp_on(B, scale)


def _socp_on(B: np.ndarray, scale: float) -> tuple[np.ndarray, float, np.ndarray] | None:
    """The cone program of _max_margin_socp on the rows B (divided by `scale` for Clarabel's tolerances)."""
    import clarabel
    import scipy.sparse as sp

    n, r = B.shape
    Bs = sp.csc_matrix(B / scale)
    # variables (w, t); slacks: B w − t·1 ≥ 0 (n rows), then (1, w) in the second-order cone of dimension r + 1
    A = sp.bmat(
        [[-Bs, sp.csc_matrix(np.ones((n, 1)))], [sp.csc_matrix((1, r)), None], [-sp.identity(r), None]],
        format="csc",
    )
    b = np.concatenate([np.zeros(n), [1.0], np.zeros(r)])
    q = np.zeros(r + 1)
    q[-1] = -1.0
    settings = clarabel.DefaultSettings()
    settings.verbose = False
    settings.tol_gap_abs = settings.tol_gap_rel = settings.tol_feas = 1e-11
    settings.max_iter = 200
    settings.direct_solve_method = "qdldl"  # measured 1.5× faster than faer on this dense program (n = 500)
    settings.max_threads = 1  # the app runs this next to the solver thread on small machines
    sol = clarabel.DefaultSolver(sp.csc_matrix((r + 1, r + 1)), q, A, b,
                                 [clarabel.NonnegativeConeT(n), clarabel.SecondOrderConeT(r + 1)], settings).solve()
    x = np.asarray(sol.x, dtype=float)
    lam = np.maximum(np.asarray(sol.z, dtype=float)[:n], 0.0)
    if not (np.isfinite(x).all() and np.isfinite(lam).all()) or lam.sum() <= 0:
        return None
    return x[:r], float(x[-1]) * scale, lam / lam.sum()


def _min_norm_qp(B: np.ndarray) -> np.ndarray:
    """argmin over the simplex of ‖Bᵀp‖: the multipliers of the max-margin cone program (uniform if it fails)."""
    out = _max_margin_socp(B)
    return out[2] if out is not None else np.full(B.shape[0], 1.0 / B.shape[0])


def _certify(B: np.ndarray, p: np.ndarray) -> tuple[float, float]:
    """(lo, hi) = (min_i (Gp)_i/‖p‖_G, ‖p‖_G): Lemma 3 gives lo ≤ ρ_K ≤ hi for any p in the simplex."""
    z = B.T @ p
    hi = float(np.linalg.norm(z))
    lo = float((B @ z).min() / hi) if hi > 0 else -np.inf
    return lo, hi


def _polish(B: np.ndarray, p: np.ndarray, w: np.ndarray | None = None) -> np.ndarray:
    """p made exact on a guessed active set: the candidate whose certified interval is narrowest.

    Candidates: rows nearly active for z = Bᵀp, for the separator w, and the support of p (an interior-point
    answer is accurate to its tolerance only, so one guess may miss a row or keep an extra one).
    """
    z = B.T @ p
    zz = float(z @ z)
    sets = [np.flatnonzero(B @ z <= zz + 1e-7 * max(zz, 1e-300) + 1e-14)]
    sets += [np.flatnonzero(p > tol * p.max()) for tol in (1e-8, 1e-5, 1e-3)]
    if w is not None:
        bw = B @ w
        sets += [np.flatnonzero(bw <= bw.min() + tol * abs(bw.min())) for tol in (1e-9, 1e-7, 1e-5, 1e-3)]
    sets = list({tuple(a): a for a in sets}.values())  # each distinct guess once
    best, width = p, np.subtract(*_certify(B, p)[::-1])
    for active in sets:
        q = _exact_on(B, active, p)
        if q is not None:
            lo, hi = _certify(B, q)
            if hi - lo < width:
                best, width = q, hi - lo
    return best


def _exact_on(B: np.ndarray, active: np.ndarray, p: np.ndarray) -> np.ndarray | None:
    """The minimum-norm point of the affine hull of the rows `active`, if it lies in their simplex."""
    if active.size == 0 or active.size > B.shape[1] + 1:
        return None
    b0 = B[active[0]]
    D = B[active[1:]] - b0
    c = -np.linalg.lstsq(D.T, b0, rcond=None)[0] if D.size else np.zeros(0)
    wts = np.concatenate([[1.0 - c.sum()], c])
    if not np.isfinite(wts).all() or wts.min() < -1e-12:
        return None
    out = np.zeros_like(p)
    out[active] = np.maximum(wts, 0.0)
    return out / out.sum()


def _gordan_witness(B: np.ndarray) -> np.ndarray:
    """p in the simplex with Bᵀp = 0 (Gordan's alternative): a vertex from HiGHS, made exact on its support."""
    n, r = B.shape
    A_eq = np.vstack([B.T, np.ones((1, n))])
    b_eq = np.concatenate([np.zeros(r), [1.0]])
    res = _linprog(np.zeros(n), A_eq=A_eq, b_eq=b_eq, bounds=[(0, None)] * n, method="highs-ds")
    if res.status != 0:
        return _min_norm_qp(B)
    p = np.maximum(res.x, 0.0)
    p /= p.sum()
    S = np.flatnonzero(p > 0)
    if S.size <= r + 1:  # the basic solution solved exactly on its support
        w = np.linalg.lstsq(A_eq[:, S], b_eq, rcond=None)[0]
        if w.min() >= 0:
            q = np.zeros(n)
            q[S] = w / w.sum()
            if np.linalg.norm(B.T @ q) <= np.linalg.norm(B.T @ p):
                p = q
    return p


def _origin_on_boundary(B: np.ndarray) -> bool:
    """Whether 0 lies on the boundary of conv{b_i} (ρ_K = 0): some u ≠ 0 has B u ≤ 0 (LP over −1 ≤ u ≤ 1).

    B has full column rank, so B u ≤ 0 with u ≠ 0 makes −Σ_i (Bu)_i > 0; with 0 inside, only u = 0 is feasible.
    """
    n, r = B.shape
    res = _linprog(
        B.sum(axis=0), A_ub=B, b_ub=np.zeros(n), bounds=[(-1.0, 1.0)] * r, method="highs",
        options={"primal_feasibility_tolerance": 1e-10, "dual_feasibility_tolerance": 1e-10},
    )
    return res.status == 0 and -float(res.fun) > 1e-8 * n


def _hull_margin(B: np.ndarray) -> float | None:
    """−(distance from 0 to the boundary of conv{b_i}) when 0 lies in it; None when Qhull cannot say."""
    n, r = B.shape
    if r == 1:
        return -float(min(-B[:, 0].min(), B[:, 0].max()))
    if r > HULL_MAX_RANK or n <= r:
        return None
    from scipy.spatial import ConvexHull, QhullError

    try:
        hull = ConvexHull(B)
    except (QhullError, ValueError):
        return None
    # facets: normal·x + offset ≤ 0 inside, unit normals; the distance from 0 to facet f is −offset_f
    return float(min(0.0, hull.equations[:, -1].max()))


def margin_of_rows(R) -> MarginResult:
    """The optimal margin ρ = sup_{‖w‖=1} min_i w·r_i of signed rows r_i, with its witness (see MarginResult)."""
    R = np.asarray(R, dtype=float)
    if R.ndim != 2 or R.shape[0] == 0:
        raise DataError("The margin needs at least one point.")
    return _margin_of_factor(_reduce_rows(R))


def _margin_of_factor(B: np.ndarray) -> MarginResult:
    n, r = B.shape
    if r == 0:  # every row is zero
        p = np.full(n, 1.0 / n)
        return MarginResult(False, 0.0, p, None, (0.0, 0.0), True, 0, 0.0)
    if n <= 1:  # one row b with ‖b‖ = 1 (or tiny): ρ = ‖b‖ = min_i b_i·(b/‖b‖)
        nb = float(np.linalg.norm(B[0]))
        return MarginResult(True, nb, np.ones(1), np.ones(1) / nb**2, (nb, nb), True, r, nb)
    socp = _max_margin_socp(B)
    found = _separable_margin(B, socp)
    if found is not None:
        return found
    t, w_lp = _separability_lp(B)
    if t > 1e-9 * float(np.linalg.norm(B, axis=1).max()):  # the cone program missed it: the LP's box separator
        found = _separable_margin(B, socp, w_lp, t)
        if found is not None:
            return found
    p = _gordan_witness(B)
    rho = 0.0 if _origin_on_boundary(B) else _hull_margin(B)
    if rho is None:  # any unit vertex direction e_j gives a lower bound min_i G_ij
        lo = float(max(-1.0, (B @ B.T).min(axis=0).max() / float(np.linalg.norm(B, axis=1).max() or 1.0)))
        return MarginResult(False, 0.0, p, None, (min(lo, 0.0), 0.0), False, r, min(t, 0.0))
    rho = 0.0 if rho > -64 * EPS else rho  # 0 on the hull's boundary, up to rounding
    return MarginResult(False, rho, p, None, (rho, rho), True, r, min(t, 0.0))


def _separable_margin(B: np.ndarray, socp, w_lp: np.ndarray | None = None, t_lp: float | None = None):
    """The separable case (a MarginResult), or None unless an explicit w proves min_i b_i·w > 0 beyond rounding.

    socp is _max_margin_socp's (w, t, p) or None; w_lp the LP's separator when the cone program found none.
    rho is the certified lower end lo = max over those w of min_i b_i·w/‖w‖ (never ≤ 0); the witness p gives
    the upper end ‖Bᵀp‖. The tighter of the cone program's answer and its polish on the active set is kept.
    """
    n, r = B.shape
    if socp is not None:
        w, t, p = socp
    elif w_lp is not None:
        w, t, p = w_lp, float(t_lp), np.full(n, 1.0 / n)
    else:
        return None
    floor = 4.0 * r * EPS * float(np.linalg.norm(B, axis=1).max())  # rounding level of B w for unit w
    lo_w = max(_w_margin(B, v) for v in (w, w_lp) if v is not None)
    if not lo_w > floor:
        return None
    lo, hi = _certify(B, p)
    q = _polish(B, p, w)
    lo2, hi2 = _certify(B, q)
    if max(lo2, lo_w) > 0 and hi2 - max(lo2, lo_w) < hi - max(lo, lo_w):
        p, lo, hi = q, lo2, hi2
    lo = min(max(lo, lo_w), hi)
    alpha = p / (hi * hi)
    exact = hi - lo <= 1e-6 * lo
    return MarginResult(True, lo, p, alpha, (lo, hi), exact, r, t if t_lp is None else t_lp)


def _w_margin(B: np.ndarray, w: np.ndarray) -> float:
    """min_i b_i·w/‖w‖ (−inf for w = 0): a certified lower bound on ρ."""
    nw = float(np.linalg.norm(w))
    return float((B @ w).min()) / nw if nw > 0 else -np.inf


def margin_of_gram(M) -> MarginResult:
    """The optimal margin of the rows whose Gram matrix is the PSD matrix M (e.g. G, or D G D)."""
    M = np.asarray(M, dtype=float)
    if M.ndim != 2 or M.shape[0] != M.shape[1] or M.shape[0] == 0:
        raise DataError("The margin needs a square, non-empty Gram matrix.")
    return _margin_of_factor(_factor_from_gram(0.5 * (M + M.T)))


_CACHE: "weakref.WeakKeyDictionary[object, dict]" = weakref.WeakKeyDictionary()
_LOCK = threading.Lock()  # guards the cache's dictionaries only, never held during a computation
_KEY_LOCKS: "weakref.WeakKeyDictionary[object, dict]" = weakref.WeakKeyDictionary()


def cached_on(problem, key: str, compute):
    """compute() once per (problem instance, key); results live as long as the problem does.

    Each (problem, key) has its own lock, so a long computation (ρ_K of a big set) blocks only the callers
    that wait for that same value, not every other cached look-up.
    """
    with _LOCK:
        slot = _CACHE.setdefault(problem, {})
        if key in slot:
            return slot[key]
        lock = _KEY_LOCKS.setdefault(problem, {}).setdefault(key, threading.RLock())
    with lock:
        with _LOCK:
            if key in slot:
                return slot[key]
        value = compute()
        with _LOCK:
            slot[key] = value
        return value


def peek(problem, key: str = "rho_K"):
    """The value cached_on(problem, key) holds, or None when it is not computed yet; never waits or computes."""
    with _LOCK:
        try:
            return _CACHE.get(problem, {}).get(key)
        except TypeError:  # an object that cannot be weakly referenced has nothing cached
            return None


def optimal_margin(problem) -> MarginResult:
    """ρ_K of a Problem (normalized signed Gram matrix G, §3) with its witness; memoized on the problem."""
    if problem.n == 0:
        raise DataError("The margin needs points: place some + and − points first.")
    return cached_on(problem, "rho_K", lambda: _checked_on_gram(_margin_of_factor(cached_factor(problem)), problem.gram))


def cached_factor(problem) -> np.ndarray:
    """signed_factor(problem), memoized on the problem (the bound metrics and ρ_K share it)."""
    return cached_on(problem, "factor", lambda: signed_factor(problem))


def _checked_on_gram(m: MarginResult, G) -> MarginResult:
    """Widen a separable interval to ‖p‖_G computed on G itself (the factor drops eigenvalues near rounding)."""
    if not m.separable:
        return m
    lo, hi = m.interval
    hi_g = g_norm(G, m.p)  # G: an array or a GramOperator
    if hi_g <= hi:
        return m
    return dataclasses.replace(m, interval=(lo, hi_g), exact=hi_g - lo <= 1e-6 * lo)


#: The name the solvers use for the memoized ρ_K.
problem_margin = optimal_margin


# -- helpers the paper's solvers share ---------------------------------------------------------------------
#: The solver parameter that turns the ρ_K computation (for the `bound` metric) off, e.g. for huge n.
#: Above this many points the `bound` metric is skipped for kernels other than linear/affine (eigh is O(n³)).
BOUND_MAX_N = 1500
#: … and when the rank of G exceeds this (the cone program costs ~n·r² per step: 17 s at n = r = 1000).
BOUND_MAX_RANK = 600

BOUND_PARAM = ParamSpec(
    "bound", bool, True,
    help="Compute the optimal margin ρ_K once (a cone program; an LP too when not separable) for the paper's bound; "
    f"skipped automatically above {BOUND_MAX_N} points or when G has rank above {BOUND_MAX_RANK}, unless the "
    "kernel is linear or affine.",
)


def margin_affordable(problem, key: str = "rho_K") -> bool:
    """Whether the margin on G is cheap enough to compute unasked: already memoized, a linear/affine kernel,
    or at most BOUND_MAX_N points and rank BOUND_MAX_RANK (the same rule for the solvers, the app's ρ_K line
    and its feature-space ★, so none of them starts a computation of minutes)."""
    if getattr(problem.kernel, "name", "") in ("linear", "affine"):
        return True
    if problem.n > BOUND_MAX_N and getattr(problem.kernel, "name", "") == "poly":
        try:  # a polynomial kernel's explicit factor: the cone program works on n×D, never on n×n
            F = problem.gram.factor
        except DataError:
            return True  # let the computation itself report it
        if F is not None and F.shape[1] <= BOUND_MAX_RANK:
            return True
    with _LOCK:
        if key in _CACHE.get(problem, {}):
            return True
    if problem.n > BOUND_MAX_N:
        return False
    try:
        return cached_factor(problem).shape[1] <= BOUND_MAX_RANK
    except (np.linalg.LinAlgError, DataError):
        return True  # let the computation itself report it


def margin_if(problem, enabled: bool, key: str = "rho_K", compute=None, on_gram: bool = True) -> MarginResult | None:
    """The memoized margin for the `bound` metric, or None when turned off, too costly, not computable or not
    resolved (a separable ρ_K too small to certify: its bound would be meaningless).

    on_gram: the computation factors G (O(n³) unless the kernel is linear/affine); False for explicit rows.
    """
    if not enabled:
        return None
    if on_gram and not margin_affordable(problem, key):
        return None
    try:
        m = optimal_margin(problem) if compute is None else cached_on(problem, key, compute)
    except (RuntimeError, np.linalg.LinAlgError):
        return None
    return m if m.resolved else None
