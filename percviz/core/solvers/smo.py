"""The SVM dual solved by sequential minimal optimization (SMO), one pair of coefficients per step.

The same problem as the interior-point `svm` solver (and LIBSVM/scikit-learn's SVC): f(x) = Σ α_i y_i K(x_i, x) + b
from  min_α ½ αᵀQα − eᵀα  s.t.  yᵀα = 0,  0 ≤ α_i ≤ C,  Q_ij = y_i y_j K_ij.
With the gradient g = Qα − e and F_t = −y_t g_t, the KKT conditions read m(α) ≤ M(α) where
    m = max {F_t : t ∈ I_up},   I_up  = {t : α_t < C, y_t = +1  or  α_t > 0, y_t = −1}   (α_t y_t can grow)
    M = min {F_t : t ∈ I_low},  I_low = {t : α_t < C, y_t = −1  or  α_t > 0, y_t = +1}   (α_t y_t can shrink)
and the run stops when the violation m − M is below `tol`: the stopping rule of LIBSVM, whose `eps` is SVC's `tol`.

Each step moves one pair (i, j) along the direction d_i = y_i, d_j = −y_j that keeps yᵀα = 0. Working-set
selection uses second-order information (Fan, Chen and Lin, JMLR 6 (2005), their WSS 2): i attains m; j maximizes
the decrease b²/a of the objective along that direction, over t ∈ I_low with b = m − F_t > 0 and
a = K_ii + K_tt − 2K_it (the curvature; a ≤ 0 is replaced by a tiny τ). The exact step is δ = b/a, clipped to the
box; then F changes by −δ (K_·i − K_·j), one pass over two kernel columns. Columns are computed on demand and kept
in an LRU cache (`cache_mb`); nothing of size n×n is ever built for the soft margin.

Hard margin: the box is unbounded above (C = ∞; LIBSVM has no hard margin and users pass a huge C instead). The
sets I_up, I_low and the clipping then only use the bound α ≥ 0, so the solution is the exact hard-margin one.
Data that the kernel cannot separate are refused before solving: by the LP of `svm` on the rows y_i (1, x_i) for
the linear and affine kernels; for RBF and Laplacian kernels (strictly positive definite) only a place carrying
both labels can prevent it; the polynomial kernels need the LP on the n×n kernel matrix (built once). The LP is
skipped when an explicit f = s + b already separates the points strictly, which proves them separable: the
class means' difference or Fisher's direction (cold, kernels affine in x), the previous α or the polished warm
start (warm).

The bias is LIBSVM's: the mean of F over the free coefficients (0 < α_t < C), or the midpoint (m + M)/2 when
there are none. Dual objective, ‖w‖² = αᵀQα, slacks and training errors all follow from F in O(n), so the
snapshots are cheap; `advance(n)`/`run()` build only the last one.

Warm start (for Live mode): `SMO(problem, warm_start=alpha)` starts from `alpha` (one value per point of the
new problem: keep the previous α of a moved point, drop a removed one, 0 for an added one) projected onto the
feasible set {0 ≤ α ≤ C, yᵀα = 0}: onto the face where only its free coefficients move, if that face is not
empty, else where only the positive ones move, else the plain projection (`warm_start_alpha`, `project_feasible`);
the start then has no new support vectors. Newton steps on its free set then finish the start (`newton_polish`,
a primal active-set method: exact solves of the small KKT system of the face), because SMO's tail is slow: after
deleting a support vector most of the 13–470 pairs it took at n = 200 went from a violation of 1e-2 to tol.
The default is α = 0, the algorithm as written.
"""

from __future__ import annotations

import math
import os
from typing import Any, ClassVar

import numpy as np

from percviz.core.decision import KernelExpansion
from percviz.core.errors import DataError
from percviz.core.kernel_witness import nonseparability_confirmed
from percviz.core.kernels import LaplacianKernel, RBFKernel
from percviz.core.params import ParamSet, ParamSpec
from percviz.core.problem import Problem
from percviz.core.solvers._kernel_cache import KernelColumns
from percviz.core.solvers._smo_loop import (
    NEED,
    NUMPY_ENV,
    OPTIMAL,
    SHRINK,
    UNBOUNDED,
    PairState,
)
from percviz.core.solvers._smo_run import accumulate, run_pairs
from percviz.core.solvers._smo_newton import newton_polish
from percviz.core.solvers.base import Solver, Status, weight_reach
from percviz.core.solvers.lp import kernel_separable, min_tau

#: The curvature used when a = K_ii + K_jj − 2K_ij ≤ 0 (LIBSVM's τ).
TAU = 1e-12
#: Kernel columns computed together when the loop asks for one (and the cache holds all n).
PREFETCH = 4
#: Up to this many points the loop's first missing column brings the whole kernel matrix (one evaluation).
WHOLE_MATRIX = 400
#: The largest working set of the warm start's Newton steps (a (k+1)² linear solve each; beyond it plain SMO).
WARM_NEWTON_MAX_SET = 600


def project_feasible(alpha, y, C: float, movable=None) -> np.ndarray | None:
    """The Euclidean projection of alpha onto {0 ≤ α_i ≤ C, Σ α_i y_i = 0} (C may be inf).

    With a mask `movable`, only those coefficients change (the others keep their values clipped to [0, C]):
    the projection onto that face of the set, or None when the movable ones cannot restore Σ α_i y_i = 0.
    The projection is clip(alpha − λy, 0, C) on the movable coefficients, for the λ that solves
    h(λ) = Σ y_i clip(alpha_i − λ y_i, 0, C) = r (r: minus the share of the fixed ones); h is piecewise linear and
    non-increasing, so λ is found exactly by bisection over its breakpoints and one linear interpolation.
    """
    a = np.asarray(alpha, dtype=float)
    y = np.asarray(y, dtype=float)
    if a.shape != y.shape:
        raise DataError(f"The warm start has {a.size} values for {y.size} points: give one α per point.")
    if not np.isfinite(a).all():
        raise DataError("The warm start has non-finite values: start from α = 0 instead.")
    p = np.clip(a, 0.0, C)
    move = np.ones(a.shape, dtype=bool) if movable is None else np.asarray(movable, dtype=bool)
    scale = max(1.0, float(p.sum()) if np.isfinite(C) else float(np.abs(p).sum()))
    if np.array_equal(p, a) and abs(float(y @ p)) <= 1e-13 * scale:
        return p  # already feasible (to rounding): moving a point keeps α as it was
    am, ym = a[move], y[move]
    target = -float(y[~move] @ p[~move])
    lam = _level(am, ym, C, target)
    if lam is None:
        return None
    pm = np.clip(am - lam * ym, 0.0, C)
    # a coefficient within rounding of a bound is put on it: 1e-18 left where 0 was meant would be a new
    # support vector (and a KKT violation) for SMO
    tiny = 1e-14 * max(1.0, float(pm.max(initial=0.0)))
    pm[pm <= tiny] = 0.0
    if np.isfinite(C):
        pm[pm >= C - tiny] = C
    p[move] = pm
    return p


def _level(a: np.ndarray, y: np.ndarray, C: float, target: float) -> float | None:
    """The λ with Σ y_i clip(a_i − λ y_i, 0, C) = target, or None when no λ reaches it."""
    n_pos, n_neg = int((y > 0).sum()), int((y < 0).sum())
    # left of every breakpoint the − terms are 0 and the + terms C (or a_i − λ, slope −n₊, when C = ∞); right of
    # them the + terms are 0 and the − terms −C (or −(a_i + λ), slope −n₋): the range of h
    top = n_pos * C if n_pos else 0.0
    bottom = -n_neg * C if n_neg else 0.0
    if not bottom - 1e-12 <= target <= top + 1e-12 or a.size == 0:
        return None if a.size or abs(target) > 1e-12 else 0.0

    def g(lam: float) -> float:
        return float(y @ np.clip(a - lam * y, 0.0, C)) - target

    bps = [y * a, y * (a - C)] if np.isfinite(C) else [y * a]
    bp = np.unique(np.concatenate(bps))
    lo, hi = 0, len(bp) - 1
    g_lo, g_hi = g(bp[lo]), g(bp[hi])
    if g_lo <= 0:  # only with C = ∞ (or on the breakpoint itself): on the piece of slope −n₊ to the left
        return float(bp[lo] + g_lo / max(n_pos, 1))
    if g_hi >= 0:
        return float(bp[hi] + g_hi / max(n_neg, 1))
    while hi - lo > 1:
        mid = (lo + hi) // 2
        g_mid = g(bp[mid])
        if g_mid > 0:
            lo, g_lo = mid, g_mid
        else:
            hi, g_hi = mid, g_mid
    return float(bp[lo] + g_lo * (bp[hi] - bp[lo]) / (g_lo - g_hi))


def _separates(s: np.ndarray, y: np.ndarray) -> bool:
    """Whether f = s + b, for some bias b, puts every point strictly on its side (beyond rounding of s)."""
    gap = s[y > 0].min(initial=np.inf) - s[y < 0].max(initial=-np.inf)
    return bool(gap > 1e-9 * max(1.0, float(np.abs(s).max(initial=0.0))))


def warm_start_alpha(alpha, y, C: float) -> np.ndarray:
    """A feasible start for SMO near alpha that changes its pattern of bounds as little as possible.

    First only the free coefficients (0 < α < C) move, then every positive one, and only if neither can restore
    Σ α_i y_i = 0, all of them (the plain projection). The full projection would spread the share of a deleted
    point over every coefficient, turning zeros into new support vectors that SMO must then remove one by one.
    """
    a = np.clip(np.asarray(alpha, dtype=float), 0.0, C)
    for movable in ((a > 0) & (a < C), a > 0, None):
        p = project_feasible(alpha, y, C, movable)
        if p is not None:
            return p
    raise AssertionError("the projection onto a non-empty set always exists")  # pragma: no cover


class SMO(Solver):
    """The SVM dual by sequential minimal optimization with second-order working-set selection (as LIBSVM).

    Not registered itself: it is the `svm` algorithm's method=smo (svm.SupportVectorMachine), also opened as `smo`.
    """

    name = "smo"
    display_name = "SVM by SMO (pairwise updates)"
    family = "Support vector machines"
    description = (
        "The same SVM as the interior-point solver (hard or soft margin, any kernel), solved like LIBSVM: each step "
        "moves the pair of coefficients (α_i, α_j) chosen by second-order working-set selection, so the two points "
        "and the boundary shifting can be watched; stops when the KKT violation m − M is below tol."
    )
    representation = "kernel"
    views = frozenset({"canvas", "curves"})
    metric_keys = (
        "objective",
        "kkt_gap",
        "margin",
        "train_errors",
        "slack_sum",
        "support_vectors",
        "weight_norm",
        "weight_reach",
    )
    params = ParamSet(
        (
            ParamSpec(
                "margin",
                "choice",
                "soft",
                choices=("hard", "soft"),
                help="'hard': every point outside the margin (separable data only; box α ≥ 0 without upper bound); "
                "'soft': slacks ξ_i cost C·ξ_i.",
            ),
            ParamSpec("C", float, 1.0, 0.0, 1e6, low_open=True, help="Soft-margin penalty C > 0 on Σ ξ_i."),
            ParamSpec(
                "tol",
                float,
                1e-3,
                0.0,
                1.0,
                low_open=True,
                help="Stop when the KKT violation m − M is below tol (the meaning of SVC's tol).",
            ),
            ParamSpec(
                "shrinking",
                bool,
                True,
                help="Leave the points held at a bound out of the pair selection for a while (as SVC's shrinking).",
            ),
            ParamSpec(
                "cache_mb",
                float,
                200.0,
                1.0,
                1e5,
                help="Memory for cached kernel columns, in MB (as SVC's cache_size).",
            ),
        )
    )
    default_max_iter = 10_000_000  # as LIBSVM's: max(10⁷, 100 n) pairs
    #: True: the pure-numpy loop; False: the compiled one; None: the compiled one unless PERCVIZ_SMO_NUMPY=1.
    _use_numpy: bool | None = None
    #: The margin lines of an SVM are the level sets f = ±1, whatever the kernel.
    margin_level: ClassVar[float] = 1.0
    #: Kernel columns are computed on demand (the memory budget does not count an n×n matrix).
    columns_on_demand: ClassVar[bool] = True

    def __init__(self, problem: Problem, *, max_iter: int | None = None, warm_start=None, **values: Any):
        self._warm = None if warm_start is None else np.array(warm_start, dtype=float)
        self._prepared: tuple[np.ndarray, np.ndarray, int] | None = None  # the polished warm start, made once
        super().__init__(problem, max_iter=max_iter, **values)
        if self._warm is not None and self._prepared is None:  # (the separability check may have made it)
            self._warm = warm_start_alpha(self._warm, self.problem.y, self._C)

    @property
    def _C(self) -> float:
        return np.inf if self.values["margin"] == "hard" else float(self.values["C"])

    def _check_problem(self):
        super()._check_problem()
        self._y = np.asarray(self.problem.y, dtype=float)
        self._cols = KernelColumns(self.problem.kernel, self.problem.X, self.values["cache_mb"] * 2**20)
        if self.values["margin"] == "hard":
            self._check_separable()

    def _check_separable(self):
        X, y = self.problem.X, self._y
        kernel = self.problem.kernel
        if isinstance(kernel, (RBFKernel, LaplacianKernel)):
            # strictly positive definite kernels: any labelling of distinct points is separable, so only a
            # place carrying both labels stops it (this keeps the hard margin O(n) in memory)
            inverse = np.unique(X, axis=0, return_inverse=True)[1].reshape(-1)
            pos = np.zeros(inverse.max() + 1, dtype=bool)
            neg = pos.copy()
            pos[inverse[y > 0]] = True
            neg[inverse[y < 0]] = True
            clash = np.flatnonzero(pos & neg)
            if not clash.size:
                self._check_resolved(X, y)
            if clash.size:
                i = int(np.flatnonzero(inverse == clash[0])[0])
                raise DataError(
                    f"A hard-margin SVM cannot separate point {i} at ({X[i, 0]:g}, {X[i, 1]:g}): the same place "
                    "carries both labels. Use the soft margin (margin=soft) with a finite C, or move the point."
                )
            return
        if self._separated_cheaply():  # an explicit separator proves it: the LP (most of a run's time) is not needed
            self._check_resolved(X, y)
            return
        if kernel.affine_in_input:  # f(x) = w·x + b: the LP on the 3-D rows y_i (1, x_i)
            tau = min_tau(y[:, None] * np.column_stack([np.ones(len(y)), X])).value
            ok = tau < 0.5
        else:
            K = np.asarray(self.problem.kernel(X, X), dtype=float)
            ok, tau = kernel_separable(0.5 * (K + K.T), y)
        if not ok and not nonseparability_confirmed(None, kernel, X, y, bias=True):
            raise DataError(  # the LP's infeasibility came from rounding (K or the rows at this scale)
                f"The hard margin cannot be solved reliably here: in double precision the {kernel.spec} kernel "
                f"does not resolve these points (the LP min τ = {tau:.3g} is not confirmed by the points "
                "themselves, which may well be separable). Scale the points to about unit size, or use the soft "
                "margin (margin=soft)."
            )
        if not ok:  # the same refusal, confirmed the same way, as the interior point's
            raise DataError(
                f"Not separable by the {kernel.spec} kernel: use the soft margin (margin=soft) with a finite C, "
                f"or a more flexible kernel. A hard-margin SVM needs separable points, and the LP min τ = "
                f"{tau:.3g} > 0 proves these are not."
            )
        self._check_resolved(X, y)

    def _check_resolved(self, X, y):
        """Refuse when the kernel cannot tell the closest + and − points apart in double precision (K(x, z) = K(x, x)
        to rounding): the hard margin's steps would then be unbounded (the interior point refuses these too)."""
        from scipy.spatial import cKDTree

        d, _ = cKDTree(X[y < 0]).query(X[y > 0])
        i = int(np.argmin(d))
        z = X[y > 0][i]
        w = X[y < 0][int(cKDTree(X[y < 0]).query(z)[1])]
        K = self.problem.kernel
        gap = float(K(z, z)[0, 0] + K(w, w)[0, 0] - 2 * K(z, w)[0, 0])
        if not gap > 1e-10 * float(abs(K(z, z)[0, 0])):
            raise DataError(
                f"The hard margin cannot be solved reliably here: in double precision the {K.spec} kernel does not "
                f"resolve these points (the closest + and − points are {d[i]:.3g} apart). Scale the points to about "
                "unit size, or use the soft margin (margin=soft)."
            )

    def _separated_cheaply(self) -> bool:
        """Whether a cheap candidate f = s + b separates the points strictly (a proof of separability).

        Cold, for kernels affine in x: the directions of the class means' difference and of Fisher's
        discriminant. Warm (a Live rerun): the previous expansion s = K(y∘α), then the polished warm start
        (the state the run starts from anyway, so it costs nothing extra when it separates).
        """
        y = self._y
        if self._warm is None:
            if not self.problem.kernel.affine_in_input:
                return False
            X = np.asarray(self.problem.X, dtype=float)
            pos, neg = X[y > 0], X[y < 0]
            diff = pos.mean(axis=0) - neg.mean(axis=0)
            within = np.atleast_2d(np.cov(pos.T, bias=True) + np.cov(neg.T, bias=True))
            within += 1e-9 * max(float(np.trace(within)), 1e-300) * np.eye(len(diff))
            try:
                fisher = np.linalg.solve(within, diff)
            except np.linalg.LinAlgError:
                fisher = diff
            return any(_separates(X @ w, y) for w in (diff, fisher) if np.isfinite(w).all())
        if self._warm.shape != y.shape or not np.isfinite(self._warm).all():
            return False  # the warm start's own check says what is wrong with it
        a = np.clip(self._warm, 0.0, None)
        sv = np.flatnonzero(a)
        if sv.size and _separates(self._cols.expansion(sv, a[sv] * y[sv]), y):
            return True
        a = self._warm_state()[0]
        sv = np.flatnonzero(a)
        return bool(sv.size) and _separates(self._cols.expansion(sv, a[sv] * y[sv]), y)

    def _warm_state(self) -> tuple[np.ndarray, np.ndarray, int]:
        """(α, F, Newton solves): the warm start projected onto the feasible set, then polished (made once)."""
        if self._prepared is None:
            y, C = self._y, self._C
            alpha = warm_start_alpha(self._warm, y, C)
            sv = np.flatnonzero(alpha)
            F = y - self._cols.expansion(sv, alpha[sv] * y[sv])  # F = y − Σ_s α_s y_s K(·, x_s)
            # Newton steps on the free set take the start the rest of the way (SMO's tail is slow)
            cap = min(self._cols.capacity, WARM_NEWTON_MAX_SET)
            solves = newton_polish(self._cols, y, alpha, F, C, self.values["tol"], max_set=cap)
            self._prepared = (alpha, F, solves)
        return self._prepared

    # -- state ------------------------------------------------------------------------------------------------
    def _reset(self):
        y, C = self._y, self._C
        n = len(y)
        st = PairState(y, self._cols.diag, C, TAU, float(self.values["tol"]), self._cols.capacity,
                       self._cols.loop_kernel())
        if self._warm is not None:
            alpha, F, self._solves = self._warm_state()
            st.alpha[:], st.F[:] = alpha, F
            st.sync_flags()
            at_c = np.flatnonzero(alpha == C)
            if np.isfinite(C) and at_c.size:
                st.Fbar[:] = self._cols.expansion(at_c, C * y[at_c])
        self._st = st
        self._numpy = self._use_numpy if self._use_numpy is not None else os.environ.get(NUMPY_ENV, "") == "1"
        self._alpha, self._F = st.alpha, st.F  # views kept in step with the loop's arrays
        self._tol = st.tol
        self._pair: tuple[int, int] | None = None
        st.ints[5] = min(n, 1000)
        st.ints[8] = int(bool(self.values["shrinking"]))
        self._stale = False  # F of the shrunk points is out of date (the loop updates the active set only)

    @property
    def _act(self) -> np.ndarray | None:
        """The active set (None: every point); the loop shrinks it itself."""
        st = self._st
        return None if st.n_act == len(self._y) else st.act[: st.n_act]

    def _set_active(self, act: np.ndarray | None):
        """Restrict the pair updates to the indices act (None: all of them; F is rebuilt on the others first)."""
        st = self._st
        if act is None:
            self._refresh()
        if act is None or len(act) == len(self._y):
            st.act[:] = np.arange(len(self._y))
            st.n_act = len(self._y)
            st.inactive[:] = False
        else:
            act = np.array(act)  # (it may be a view of st.act)
            st.act[: len(act)] = act
            st.n_act = len(act)
            st.inactive[:] = True
            st.inactive[act] = False

    def _refresh(self):
        """F = y − F̄ − K(y∘α_free) recomputed on the shrunk points (from the kernel, in blocks), when out of date."""
        if not self._stale or self._act is None:
            return
        self._stale = False
        out = np.ones(len(self._y), dtype=bool)
        out[self._act] = False
        rows = np.flatnonzero(out)
        a, y, st = self._alpha, self._y, self._st
        # the coefficients at C are summed up in F̄ by the loops (LIBSVM's G_bar): only the free ones here
        sv = np.flatnonzero((a > 0) & (a < self._C))
        cached = st.slot[sv] >= 0  # from the loop's cached columns (no kernel evaluations), the rest in blocks
        X, kernel = self._cols.X, self.problem.kernel
        acc = st.Fbar[rows]
        far = sv[~cached]
        step = int(max(1, 32e6 // max(8 * len(rows), 1)))
        for s in range(0, len(far), step):
            block = far[s : s + step]
            acc += np.asarray(kernel(X[rows], X[block]), dtype=float) @ (a[block] * y[block])
        near = sv[cached]
        accumulate(acc, rows, st.cache, st.slot[near], a[near] * y[near], self._numpy)
        self._F[rows] = y[rows] - acc

    def _violation(self, on_all: bool = False) -> float:
        """m − M over the active set (or every point), computed as the loop does (max b, b = m − F on I_low)."""
        st = self._st
        idx = slice(None) if on_all or self._act is None else self._act
        a, F, y, C = st.alpha[idx], st.F[idx], st.y[idx], st.C
        pos = y > 0
        up = np.where(pos, a < C, a > 0)
        if not up.any():
            return -np.inf
        m = float(F[up].max())
        low = np.where(pos, a > 0, a < C)
        return float(np.maximum(np.where(low, m - F, 0.0), 0.0).max())

    def _full_extremes(self) -> tuple[float, float]:
        """(m, M) over every point."""
        a, F, y, C = self._alpha, self._F, self._y, self._C
        pos = y > 0
        up, low = np.where(pos, a < C, a > 0), np.where(pos, a > 0, a < C)
        return float(F[up].max(initial=-np.inf)), float(F[low].min(initial=np.inf))

    def _pairs(self, count: int) -> int:
        """Up to `count` pair updates by the loop (fetching the kernel columns it asks for); the pairs done.

        Stops early when the active set is optimal to tol (the caller's halting test then decides), and shrinks
        in between when the shrinking counter is due, exactly as one pair per call would.
        """
        st, done = self._st, 0
        while done < count:
            k, why = run_pairs(st, count - done, self._numpy)
            done += k
            if k and self._act is not None:
                self._stale = True
            if why == NEED:  # (kernels the loop cannot fill) a column of the warm start's polish is reused
                t = int(st.ints[1])
                col = self._cols._cols.get(t)
                if col is not None:
                    st.store(t, col)
                    continue
                # when the cache holds every column, a block of the likely next ones in one kernel evaluation
                # (all of them for a few hundred points: one call costs less than several)
                n = len(self._y)
                if len(st.cache) < n:
                    idx = np.array([t], dtype=np.int64)
                elif n <= WHOLE_MATRIX:
                    idx = np.flatnonzero(st.slot < 0)
                else:
                    idx = st.missing(t, PREFETCH, self._numpy)
                if len(st.cache) >= n:  # nothing to evict: in one go
                    st.store_all(idx, self._cols.block(idx))
                else:
                    st.store(t, self._cols.block(idx)[0])
            elif why == SHRINK:  # (the loop shrinks by itself; it returns for the unshrinking only)
                self._shrink()
            elif why == UNBOUNDED:
                raise DataError("The SMO step is unbounded: the hard margin has no solution here; use the soft margin.")
            elif why == OPTIMAL:
                break
        if done:
            self._pair = (int(st.ints[2]), int(st.ints[3]))
        return done

    def _update(self):
        self._pairs(1)  # (the halting test after the last pair left the active set with a violation ≥ tol)
        return () if self._pair is None else self._pair

    def _base_advance(self, updates: int):
        """Fast-forward by batches of pairs (one loop call per batch) with the same pairs, shrinking and halting
        tests as one pair per step (the loop stops where that test could end the run); only the last snapshot
        is built."""
        if not self._started:
            self.start()
        if self.status.done:
            return self._last
        left = min(max(0, int(updates)), self.max_iter - self.iteration)
        moved, idle = False, 0
        while left > 0 and not self.status.done and idle < 2:
            k = self._pairs(left)
            moved, idle = moved or k > 0, 0 if k else idle + 1
            self.iteration += k
            left -= k
            halted = self._guarded_halt()
            if halted is not None:
                self.status = halted
            elif self.iteration >= self.max_iter:
                self.status = Status.MAX_ITER
        if moved or self.status.done:
            self._last = self._snapshot(self._pair or ())
        assert self._last is not None
        return self._last

    def _shrink(self):
        """Leave out of the pair updates the active points at a bound that the KKT conditions keep there for
        now: in I_up only with F_t < M (never the max m, never a j) or in I_low only with F_t > m (LIBSVM's rule,
        m and M over the active set). When m − M first falls below 10·tol, F is rebuilt and every point comes
        back once before shrinking again (LIBSVM's unshrinking)."""
        st = self._st
        if not st.ints[7] and self._violation() <= 10 * self._tol:
            st.ints[7] = 1
            self._set_active(None)
        idx = np.arange(len(self._y)) if self._act is None else self._act
        a, F, y, C = self._alpha[idx], self._F[idx], self._y[idx], self._C
        pos = y > 0
        up, low = np.where(pos, a < C, a > 0), np.where(pos, a > 0, a < C)
        m, M = float(F[up].max(initial=-np.inf)), float(F[low].min(initial=np.inf))
        stuck = (up & ~low & (F < M)) | (low & ~up & (F > m))
        if stuck.any():
            self._set_active(idx[~stuck])

    def _halt(self):
        if self._violation() >= self._tol:
            return None
        if self._act is not None:  # optimal on the active set: check every point, go on with all if not
            self._set_active(None)
            if self._violation() >= self._tol:
                self._st.ints[4] = self._st.ints[5] - 1  # and shrink again after the next pair (as LIBSVM)
                return None
        self._refresh()
        scores = self._scores()
        if (scores > 0).all():  # a separator claim: confirm it with the exact kernel expansion (in blocks)
            sv = np.flatnonzero(self._alpha)
            scores = self._y * (self._cols.expansion(sv, self._alpha[sv] * self._y[sv]) + self._bias())
        return Status.SEPARATOR if (scores > 0).all() else Status.CONVERGED

    def run(self):
        """Run to the end building only the first and last snapshots (the fast path of advance)."""
        self.start()
        return self.advance(self.max_iter)

    # -- what a snapshot shows -------------------------------------------------------------------------------
    def _bias(self) -> float:
        a, C = self._alpha, self._C
        free = (a > 0) & (a < C)
        if free.any():
            return float(self._F[free].mean())
        m, M = self._full_extremes()
        return 0.5 * (m + M)

    def _scores(self) -> np.ndarray:
        """y_t f(x_t) = 1 − y_t (F_t − b), since F_t = y_t − Σ_s α_s y_s K_ts."""
        return 1.0 - self._y * (self._F - self._bias())

    def _norm_w(self) -> float:
        a = self._alpha
        return float(np.sqrt(max(a.sum() - a @ (self._y * self._F), 0.0)))  # αᵀQα = αᵀ(g + e)

    def _decision(self, wn: float) -> KernelExpansion:
        return KernelExpansion(self.problem.kernel, self.problem.X, self._alpha * self._y, self._bias(), wn or None)

    def _metrics(self):
        self._refresh()
        a, y, F = self._alpha, self._y, self._F
        wn = self._norm_w()
        scores = self._scores()
        return {
            "objective": float(0.5 * (a.sum() + a @ (y * F))),  # eᵀα − ½αᵀQα = ½(eᵀα − αᵀg)
            "kkt_gap": max(float(np.subtract(*self._full_extremes())), 0.0),
            "margin": float(scores.min()) / wn if wn > 0 else None,  # min y f/‖w‖ as the SVM (negative with errors)
            "weight_norm": wn,
            "weight_reach": weight_reach(wn, self.problem, y - F),  # f(x_t) − b = y_t − F_t
            "train_errors": int((scores <= 0).sum()),
            "slack_sum": float(np.maximum(0.0, 1.0 - scores).sum()),
            "support_vectors": int((a > 0).sum()),
        }

    def _state(self):
        self._refresh()  # (the shrunk points' F is never read by the loop before it is rebuilt: the pairs stay)
        metrics = self._metrics()
        decision = self._decision(metrics["weight_norm"])
        wb = decision.affine_weights(self.problem.points.dim)  # (w, b) in any dimension, as the interior point's
        return {
            "decision": decision,
            "alpha": self._alpha,
            "weights": None if wb is None else np.concatenate([[wb[1]], wb[0]]),
            "metrics": metrics,
            "message": self._message(metrics),
        }

    def _message(self, metrics) -> str:
        kind = "hard margin" if self.values["margin"] == "hard" else f"soft margin, C = {self._C:g}"
        gap = f"KKT violation m − M = {metrics['kkt_gap']:.3g} (tol {self.values['tol']:g})"
        if self._pair is None:
            start = "α = 0" if self._warm is None else f"the warm start ({self._solves} Newton solves on its free set)"
            return f"SMO ({kind}) on the {self.problem.kernel.spec} kernel from {start}: {gap}."
        i, j = self._pair
        a = self._alpha
        if self.status.done and self.status is not Status.MAX_ITER:
            at_c = int((a >= self._C).sum())
            bound = f" ({at_c} at the bound C)" if np.isfinite(self._C) else ""
            return (
                f"Solved ({kind}) in {self.iteration} pair updates: {metrics['support_vectors']} support vectors"
                f"{bound}; {gap}."
            )
        return f"Pair ({i}, {j}): α_{i} = {a[i]:.4g}, α_{j} = {a[j]:.4g}; {gap}."
