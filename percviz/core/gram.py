"""The G-geometry of Ramdas & Peña (§3–§5): G-norm, L(α), normalized margins, and the optimal margin ρ_K.

ρ_K is computed on G itself (percviz.core.min_norm: Wolfe's active-set method for min_{p ∈ Δ} pᵀGp, whose
optimality test reads every column of G) and its verdict is Gordan's alternative, read above rounding:
  separable      α = p has min_i (Gp)_i above the rounding level of a product G·p (so Gα > 0 on G);
                 then ρ_K = min ‖p‖_G (Lemma 3 and the minimax theorem) and [min_i (Gp)_i/‖p‖_G, ‖p‖_G]
                 certifies it;
  not separable  p has |(Gp)_i| at most half that level for every i: Gp = 0 up to rounding, a Gordan witness
                 (no α then has Gα above the level: pᵀGα would be both ≤ and > it). ρ_K ≤ 0 is then
                 −(radius of the largest G-ball inside the hull of the rows, Theorem "margininf"), read
                 off the hull's facets (Qhull) on a factor of G when that is cheap and of rank at most
                 HULL_MAX_RANK; otherwise only bracketed (MarginResult.exact is False);
  undecided      neither (ρ_K below what double precision resolves on G, or the time budget ran out): the
                 interval is returned, straddling 0.
The ball and the sup over ‖α‖_G = 1 live in the span of the y_i φ̃(x_i) — the paper's footnote notes that
over the whole RKHS ρ_K would be 0 — and that is the ρ_K that Lemmas 7 and 8 use.
"""

from __future__ import annotations

import dataclasses
import math
import threading
from contextlib import contextmanager
import time
import weakref
from dataclasses import dataclass

import numpy as np

from percviz.core import min_norm
from percviz.core.kernel_witness import confirm_nonseparable
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


def over_rho_squared(scale: float, rho: float) -> float | None:
    """A bound scale/ρ² (Block–Novikoff, the smoothed rates), or None when it is no finite number (ρ² underflows)."""
    v = (scale / rho) / rho if rho > 0 else math.inf  # ρ² itself underflows to 0 below 1e-162
    return v if math.isfinite(v) else None


@dataclass(frozen=True, eq=False)
class MarginResult:
    """The optimal margin of a set of signed rows (ρ_K for a problem's normalized signed Gram matrix G).

    separable     True iff certified on G: α = p has Gα > 0 above rounding (Gordan's first alternative).
    decided       False when neither alternative is certified (`verdict` "undecided"): then separable is
                  False, rho is 0.0 and interval (lo ≤ 0 ≤ hi) is all that is known.
    rho           ρ_K = sup_{‖α‖_G = 1} min_i (Gα)_i. Separable: the certified lower end of `interval`
                  (the margin an explicit separator achieves), always > 0; when the interval is wide `exact` is
                  False and `resolved` tells whether the paper's bounds may use it. Not separable and `exact`:
                  −(radius of the largest G-ball in the hull, Theorem "margininf"); not `exact`: 0.0, the
                  certified upper bound (so |rho| never overstates |ρ_K| and the paper's bounds stay valid).
    p             the witness in the simplex: argmin ‖p‖_G (separable: ‖p‖_G = ρ_K; not separable: Gp = 0 up
                  to rounding, a Gordan certificate; undecided: the best point reached).
    alpha         separable only: α = p/‖p‖²_G, the hard-margin (SVM) solution in canonical scaling:
                  min_i (Gα)_i = 1 and ‖α‖_G = 1/ρ_K; `direction` is the unit-norm max-margin α = p/‖p‖_G.
                  (The minimizer of L(α) is p itself: L(p) = −½ρ_K².) None otherwise.
    interval      (lo, hi) with lo ≤ ρ_K ≤ hi, both certified by the returned vectors or the hull.
    exact         whether rho is known to 1e-6 relative (hi − lo ≤ 1e-6·|rho|).
    rank          the rank of the factor of G used for the non-separable value, −1 when none was needed.
    lp_value      min_i (Gp)_i on G for the returned p, the separability test's value (> rounding ⟹ separable).
    complete      False when the time budget ended the computation first (optimal_margin resumes it).
    budget        the seconds the computation was given; seconds, what it took.
    """

    separable: bool
    rho: float
    p: np.ndarray
    alpha: np.ndarray | None
    interval: tuple[float, float]
    exact: bool
    rank: int
    lp_value: float
    decided: bool = True
    complete: bool = True
    budget: float = float("inf")
    seconds: float = 0.0

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
        if not self.decided:
            return False
        if not self.separable:
            return True
        lo, hi = self.interval
        return lo > 0 and hi - lo <= 1e-3 * hi

    @property
    def verdict(self) -> str:
        """'separable', 'not separable' or 'undecided' (Gordan's alternative, as certified on G)."""
        return "separable" if self.separable else "not separable" if self.decided else "undecided"

    @property
    def direction(self) -> np.ndarray | None:
        """The unit-G-norm max-margin coefficients p/‖p‖_G (margin ρ_K), or None when not separable."""
        if self.alpha is None:
            return None
        return self.alpha / np.sqrt(self.alpha.sum())  # α = p/‖p‖²_G with Σ p = 1: Σ α = 1/‖p‖²_G


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


def _origin_on_boundary(B: np.ndarray, time_limit: float = 60.0) -> bool:
    """Whether 0 lies on the boundary of conv{b_i} (ρ_K = 0): some u ≠ 0 has B u ≤ 0 (LP over −1 ≤ u ≤ 1).

    B has full column rank, so B u ≤ 0 with u ≠ 0 makes −Σ_i (Bu)_i > 0; with 0 inside, only u = 0 is feasible.
    False also when HiGHS does not finish within time_limit seconds.
    """
    n, r = B.shape
    res = _linprog(
        B.sum(axis=0), A_ub=B, b_ub=np.zeros(n), bounds=[(-1.0, 1.0)] * r, method="highs",
        options={"primal_feasibility_tolerance": 1e-10, "dual_feasibility_tolerance": 1e-10,
                 "time_limit": max(time_limit, 0.01)},
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


def margin_of_rows(R, budget: float | None = None) -> MarginResult:
    """The optimal margin ρ = sup_{‖w‖=1} min_i w·r_i of signed rows r_i, with its witness (see MarginResult).

    Decided on G = R Rᵀ, reached through the rows (the n×n matrix is never formed).
    """
    R = np.asarray(R, dtype=float)
    if R.ndim != 2 or R.shape[0] == 0:
        raise DataError("The margin needs at least one point.")
    return _margin_on(min_norm.RowColumns(R), _budget(budget), factor=lambda: _reduce_rows(R))


#: Seconds optimal_margin spends by default before it answers with the interval it has (complete=False).
MARGIN_BUDGET = 20.0
#: Seconds the bound metrics may wait for ρ_K on their own thread (margin_if); beyond, the metric is absent.
SYNC_BUDGET = 0.25
#: Kernels whose feature space is finite-dimensional: eigenvalues of G below rounding are zeros there.
FINITE_RANK_KERNELS = ("linear", "affine", "poly")
#: Largest n for which the non-separable ρ_K < 0 is sought on the eigen-factor of G (eigh is O(n³)).
EIGH_MAX_N = 600


def _budget(budget: float | None) -> float:
    """The seconds a margin computation may take: given, else margin_if's on its thread, else MARGIN_BUDGET."""
    if budget is None:
        budget = getattr(_LOCAL, "budget", MARGIN_BUDGET)
    return max(float(budget), 0.0)


def _margin_on(op, budget: float, warm: np.ndarray | None = None, factor=None,
               finite_rank: bool = True, rows=None) -> MarginResult:
    """ρ_K on the PSD matrix behind the column oracle op, decided on it by Gordan's alternative (see MarginResult).

    factor() gives rows B with B Bᵀ ≈ G for the non-separable value −(inradius of the hull), or None to skip.
    finite_rank: the factor drops only rounding (linear, affine, polynomial kernels, explicit rows); for an
    RBF kernel it drops tiny but real eigenvalues, and its hull's inradius is then only a bound.
    rows: an explicit factor (min_norm.RowColumns) for Wolfe's steps, O(n·r) each instead of O(n) columns of G;
    the verdict and interval are still read on op (G) from the p it reaches.
    """
    t0 = time.perf_counter()
    if warm is None and rows is None:
        warm = _opposite_pair(op)  # one point with both labels: start at its exact witness (one pass over G)
    run = min_norm.min_norm_point(op if rows is None else rows, warm, deadline=t0 + budget)
    if rows is not None:  # the verdict is read on G itself
        run = dataclasses.replace(run, Gp=op.matvec(run.p))
    rl = min_norm.rounding_level(op)  # for p in the simplex (‖p‖_1 = 1)
    p, Gp = run.p, run.Gp
    # rounding of (Gp)_i and of pᵀGp: at most γ_width = width·eps/2 each (a sum of `width` products, ‖p‖_1 = 1)
    err = op.width * EPS * op.scale
    q = float(p @ Gp)
    hi = float(np.sqrt(max(q, 0.0) + err))  # ρ_K ≤ ‖p‖_G
    low = float(Gp.min())
    complete = run.reason in ("optimal", "zero", "rounding")  # "rounding": undecided for good, not for lack of time
    extra = {"complete": complete, "budget": budget}
    if low > rl:  # Gordan, first alternative: α = p has Gα > 0 beyond rounding (rl = 8 γ_width)
        lo = min((low - err) / hi, hi)  # ρ_K ≥ min_i (Gp)_i/‖p‖_G, each end moved by its rounding
        exact = complete and hi - lo <= 1e-6 * lo
        return MarginResult(True, lo, p, p / q, (lo, hi), exact, -1, low,
                            seconds=time.perf_counter() - t0, **extra)
    if float(np.abs(Gp).max()) <= rl / 2:  # Gordan, second alternative: Gp = 0 up to rounding
        rho, exact, rank = None, False, -1
        left = budget - (time.perf_counter() - t0)
        B = factor() if factor is not None and left > 0 else None
        if B is not None and B.shape[1] > 0:
            rank = B.shape[1]
            if _origin_on_boundary(B, left):  # (HiGHS keeps to the time left)
                rho = 0.0
            elif B.shape[0] * HULL_SECONDS_PER_ROW > budget - (time.perf_counter() - t0):
                extra["complete"] = False  # Qhull cannot be interrupted: no time for it in this budget
            else:
                rho = _hull_margin(B)
        if rho is not None:
            rho = 0.0 if rho > -64 * EPS * np.sqrt(op.scale) else rho  # 0 on the hull's boundary, up to rounding
        deadline = t0 + budget
        if rho is not None and (finite_rank or rho == 0.0):
            interval, exact = (rho, rho), True
        elif rho is not None:  # the factor's hull contains the true one's: its inradius only bounds |ρ_K| above
            rho, interval = 0.0, (max(rho, min(_vertex_bound(op, deadline), 0.0)), 0.0)
        else:
            rho, interval = 0.0, (min(_vertex_bound(op, deadline), 0.0), 0.0)
        return MarginResult(False, rho, p, None, interval, exact, rank, low,
                            seconds=time.perf_counter() - t0, **extra)
    # neither alternative is certified: ρ_K ≥ (min_i (Gp)_i − rounding)/‖p‖_G (≤ 0 here) and ρ_K ≤ ‖p‖_G
    vertex = _vertex_bound(op, t0 + budget)  # α = e_j: ρ_K ≥ max_j min_i G_ij/√G_jj
    lo = max(vertex, (low - err) / hi) if hi > 0 else vertex
    return MarginResult(False, 0.0, p, None, (min(lo, 0.0), hi), False, -1, low,
                        seconds=time.perf_counter() - t0, decided=False, **extra)


def _opposite_pair(op) -> np.ndarray | None:
    """½(e_i + e_j) for two rows with G_ij = −√(G_ii G_jj) (one point with both labels): ‖p‖_G = 0 exactly.

    Wolfe's method may stop a hair above 0 at such a set (rounding-level steps); starting at the pair, it
    starts at the witness. Dense G only (O(n²), like one product G·v).
    """
    if not isinstance(op, min_norm.DenseColumns) or op.n < 2:
        return None
    d = np.sqrt(np.maximum(np.diagonal(op.G), 0.0))
    for s in range(0, op.n, 1024):  # in row blocks: no second n×n array
        S = op.G[s:s + 1024] + np.outer(d[s:s + 1024], d)  # 0 exactly for φ̃_i = −φ̃_j, > 0 on the diagonal
        i, j = divmod(int(np.argmin(S)), op.n)
        if S[i, j] <= 4 * EPS * op.scale and s + i != j:
            i += s
            break
    else:
        return None
    p = np.zeros(op.n)
    p[[i, j]] = 0.5
    return p


#: Entries of G one block of _vertex_bound reads at a time (32 MiB of float64; 1024 columns up to 4096 points).
VERTEX_BLOCK = 2**22


def _vertex_bound(op, deadline: float = np.inf) -> float:
    """max_j min_i G_ij/√G_jj: the margin of the best single point α = e_j, a lower bound on ρ_K.

    O(n²): past the deadline (after the first block) the max over the columns read so far is returned, which
    bounds ρ_K from below all the same (each α = e_j does).
    """
    best = -np.inf
    width = max(1, min(1024, VERTEX_BLOCK // max(op.n, 1)))
    for s in range(0, op.n, width):
        S = np.arange(s, min(s + width, op.n))
        C = op.cols(S)
        d = np.sqrt(np.maximum(C[S, np.arange(S.size)], 1e-300))
        best = max(best, float((C.min(axis=0) / d).max()))
        if time.perf_counter() > deadline:
            break
    return best


#: Seconds Qhull takes per row of the factor, about (3-D rows on the unit sphere, all of them vertices): the
#: hull's inradius is skipped when it would overrun the budget (the memo then stays incomplete, to resume).
HULL_SECONDS_PER_ROW = 3e-5


def margin_of_gram(M, budget: float | None = None, finite_rank: bool = False) -> MarginResult:
    """The optimal margin of the rows whose Gram matrix is the PSD matrix M (e.g. G, or D G D), decided on M.

    finite_rank: M's eigenvalues below rounding are true zeros (then a non-separable ρ_K < 0 can be exact).
    """
    M = np.asarray(M, dtype=float)
    if M.ndim != 2 or M.shape[0] != M.shape[1] or M.shape[0] == 0:
        raise DataError("The margin needs a square, non-empty Gram matrix.")
    M = 0.5 * (M + M.T)
    factor = (lambda: _factor_from_gram(M)) if M.shape[0] <= EIGH_MAX_N else None
    return _margin_on(min_norm.DenseColumns(M), _budget(budget), factor=factor, finite_rank=finite_rank)


_CACHE: "weakref.WeakKeyDictionary[object, dict]" = weakref.WeakKeyDictionary()
_LOCK = threading.Lock()  # guards the cache's dictionaries only, never held during a computation
_KEY_LOCKS: "weakref.WeakKeyDictionary[object, dict]" = weakref.WeakKeyDictionary()


def _key_lock(problem, key: str):
    """The lock of one (problem, key): a long computation blocks only the callers waiting for that value."""
    with _LOCK:
        return _KEY_LOCKS.setdefault(problem, {}).setdefault(key, threading.RLock())


def cached_on(problem, key: str, compute):
    """compute() once per (problem instance, key); results live as long as the problem does.

    Each (problem, key) has its own lock, so a long computation (ρ_K of a big set) blocks only the callers
    that wait for that same value, not every other cached look-up.
    """
    with _LOCK:
        slot = _CACHE.setdefault(problem, {})
        if key in slot:
            return slot[key]
    with _key_lock(problem, key):
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


def _done(m, budget: float) -> bool:
    """Whether a memoized margin answers a request with this budget (complete, or computed with as much)."""
    return m is not None and (m.complete or m.budget >= budget)


def optimal_margin(problem, budget: float | None = None) -> MarginResult:
    """ρ_K of a Problem (normalized signed Gram matrix G, §3) with its witness, decided on G; memoized.

    budget: seconds to spend (MARGIN_BUDGET by default). A memo that ran out of time (complete=False) is
    resumed from its witness when asked again with a larger budget.
    """
    if problem.n == 0:
        raise DataError("The margin needs points: place some + and − points first.")
    budget = _budget(budget)
    m = peek(problem)
    if _done(m, budget):
        return m
    with _key_lock(problem, "rho_K"):
        m = peek(problem)
        if _done(m, budget):
            return m
        F = problem.gram.factor  # a finite feature map's n×D factor: Wolfe's columns in O(nD), no n×n matrix
        op = min_norm.RowColumns(F) if F is not None else _dense_columns(problem)
        warm = _same_point_both_labels(problem) if m is None else np.asarray(m.p)
        name = getattr(problem.kernel, "name", "")
        rows = min_norm.RowColumns(cached_factor(problem)) if name in ("linear", "affine") else None
        t0 = time.perf_counter()
        m = _margin_on(op, budget, warm, factor=lambda: _affordable_factor(problem),
                       finite_rank=name in FINITE_RANK_KERNELS, rows=rows)
        if m.decided and not m.separable:  # confirmed on the points, in what is left of the same budget
            why = confirm_nonseparable(problem, time_limit=budget - (time.perf_counter() - t0))
            if why != "confirmed":  # G's rounding, not the points, made Gp = 0 (e.g. RBF points 1e-12 apart)
                m = _unconfirmed(op, m, complete=m.complete and why != "timeout")
        from percviz.core.exact_margin import sharpen

        # exact ends from small rational certificates (linear, affine, poly kernels), in what is left of the budget
        m = sharpen(problem, m, deadline=t0 + budget)
        with _LOCK:
            _CACHE.setdefault(problem, {})["rho_K"] = m
        return m


def _unconfirmed(op, m: MarginResult, complete: bool | None = None) -> MarginResult:
    """The 'undecided' result for a Gordan witness on G that the points do not confirm (core.kernel_witness).

    ρ_K ≤ ‖p‖_G ≤ √(pᵀGp + rounding) still holds, and the lower end stays ≤ 0."""
    q = float(m.p @ op.matvec(m.p))
    hi = float(np.sqrt(max(q, 0.0) + op.width * EPS * op.scale))
    return MarginResult(False, 0.0, m.p, None, (min(m.interval[0], 0.0), hi), False, m.rank, m.lp_value,
                        decided=False, complete=m.complete if complete is None else complete, budget=m.budget,
                        seconds=m.seconds)


def _dense_columns(problem):
    """Wolfe's columns on a dense G: the stored matrix in float64, else float64 columns from the kernel (a
    float32 G would certify nothing: its entries carry 6e-8 of rounding)."""
    if problem.gram.exact:
        return min_norm.DenseColumns(np.asarray(problem.G))
    from percviz.core.dense_gram import ExactColumns

    return ExactColumns(problem)


def _same_point_both_labels(problem) -> np.ndarray | None:
    """½(e_i + e_j) for two equal points x_i = x_j with opposite labels (rows i, j of G are then exact
    negatives, so ‖p‖_G = 0 to rounding), or None; O(n log n) on the coordinates."""
    X = np.asarray(problem.X, dtype=float)
    if problem.n < 2 or X.ndim != 2:
        return None
    _, first, inverse = np.unique(X, axis=0, return_index=True, return_inverse=True)
    y = np.asarray(problem.y)
    other = np.flatnonzero(y != y[first[inverse.ravel()]])  # points whose first equal point has the other label
    if other.size == 0:
        return None
    p = np.zeros(problem.n)
    p[[first[inverse.ravel()[other[0]]], other[0]]] = 0.5
    return p


def _affordable_factor(problem) -> np.ndarray | None:
    """cached_factor(problem) when it is cheap (explicit for linear/affine, eigh up to EIGH_MAX_N points, 200
    for kernels of infinite rank)."""
    name = getattr(problem.kernel, "name", "")
    if name not in ("linear", "affine") and problem.n > (EIGH_MAX_N if name in FINITE_RANK_KERNELS else 200):
        return None  # (for RBF-like kernels the factor's hull only bounds ρ_K: not worth an eigh beyond 200)
    try:
        return cached_factor(problem)
    except np.linalg.LinAlgError:
        return None


def cached_factor(problem) -> np.ndarray:
    """signed_factor(problem), memoized on the problem (the bound metrics and ρ_K share it)."""
    return cached_on(problem, "factor", lambda: signed_factor(problem))


#: The name the solvers use for the memoized ρ_K.
problem_margin = optimal_margin


# -- helpers the paper's solvers share ---------------------------------------------------------------------
#: Above this many points the `bound` metric is skipped for kernels other than linear/affine (G is n×n).
BOUND_MAX_N = 1500
#: … and, for the margins read on the eigen-factor of G (not ρ_K itself), when its rank exceeds this.
BOUND_MAX_RANK = 600

BOUND_PARAM = ParamSpec(
    "bound", bool, True,
    help="Show the paper's bound, from the optimal margin ρ_K (Wolfe's method on G, given at most "
    f"{SYNC_BUDGET} s by the run; the bound is absent while ρ_K is not known or too thin to resolve); skipped "
    f"above {BOUND_MAX_N} points unless the kernel is linear or affine.",
)

_LOCAL = threading.local()  # the budget margin_if gives the computations it starts on this thread


def margin_affordable(problem, key: str = "rho_K") -> bool:
    """Whether the margin is cheap enough to compute unasked: already memoized, a linear/affine kernel, or at
    most BOUND_MAX_N points (the same rule for the solvers, the app's ρ_K line and its feature-space ★).

    ρ_K itself runs on G within a time budget; the other keys work on the eigen-factor of G, so they also need
    its rank to be at most BOUND_MAX_RANK.
    """
    if getattr(problem.kernel, "name", "") in ("linear", "affine"):
        return True
    if problem.n > BOUND_MAX_N and getattr(problem.kernel, "name", "") == "poly":
        try:  # a polynomial kernel's explicit factor: Wolfe's method and the eigen-factor work on n×D, never n×n
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
    if key == "rho_K":
        return True
    try:
        return cached_factor(problem).shape[1] <= BOUND_MAX_RANK
    except (np.linalg.LinAlgError, DataError):
        return True  # let the computation itself report it


@contextmanager
def margins_deferred(above_n: int):
    """On this thread, within it, margin_if only reads ρ_K's memo for problems of more than above_n points.

    The app's solver thread runs under it at 100,000 points: the app computes ρ_K once on its own background
    task after the scene has been still, instead of 0.25 s of it at iteration 0 of every restart of a drag.
    """
    before = getattr(_LOCAL, "defer_above", np.inf)
    _LOCAL.defer_above = above_n
    try:
        yield
    finally:
        _LOCAL.defer_above = before


@contextmanager
def margin_wait(seconds: float):
    """On this thread, within it, margin_if gives a margin at most `seconds` (computing it, or waiting for another
    thread's computation) instead of SYNC_BUDGET: a Live run on the UI thread has a frame's time, not a quarter second.
    What runs out is absent from that snapshot and asked for again at the next one (the app reruns a finished
    Live run once ρ_K arrives)."""
    before = getattr(_LOCAL, "wait", None)
    _LOCAL.wait = min(SYNC_BUDGET if before is None else before, max(float(seconds), 0.0))
    try:
        yield
    finally:
        if before is None:
            del _LOCAL.wait
        else:
            _LOCAL.wait = before


def margin_if(problem, enabled: bool, key: str = "rho_K", compute=None, on_gram: bool = True) -> MarginResult | None:
    """The memoized margin for the `bound` metric, or None when turned off, too costly, not known within
    SYNC_BUDGET seconds, not computable, or not resolved (undecided, or a separable ρ_K too thin to certify).

    Never blocks a run for long: what it starts gets SYNC_BUDGET seconds (a memo that ran out of time is kept,
    and a later optimal_margin with a larger budget, e.g. the app's background job, resumes it), and it waits at
    most SYNC_BUDGET seconds for a computation running on another thread (less within margin_wait). Cheap to call
    again: solvers may ask on every snapshot until the margin is known.
    on_gram: the computation works on G or its factor (n×n); False for explicit rows.
    """
    if not enabled:
        return None
    m = peek(problem, key)
    if m is None and key == "rho_K" and problem.n > getattr(_LOCAL, "defer_above", np.inf):
        return None  # (margins_deferred) another thread computes ρ_K: until then the memo is only read
    if m is None and on_gram and not margin_affordable(problem, key):
        return None
    if m is None or compute is None:
        lock = _key_lock(problem, key)
        # another thread computing it (the app's background job) is waited for as long as computing it here
        # could take; then its memo is read. (Not waiting left a short run's every bound absent: CI's Live test.)
        wait = getattr(_LOCAL, "wait", SYNC_BUDGET)  # (margin_wait)
        if not lock.acquire(timeout=wait):
            return None  # still computing after the wait: absent until then
        _LOCAL.budget = wait
        try:
            m = optimal_margin(problem, wait) if compute is None else cached_on(problem, key, compute)
        except (RuntimeError, np.linalg.LinAlgError):
            return None
        finally:
            del _LOCAL.budget
            lock.release()
    return m if m.resolved else None
