"""Euclidean distances in the input space from points to the curve f = 0, for any two-class decision function.

The foot of the perpendicular from x_i is found by Akaho's projection iteration (12) with the identity metric,

    x̂^[l+1] = x_i − ∇f(x̂^[l]) · (f(x̂^[l]) − (x̂^[l] − x_i)·∇f(x̂^[l])) / ‖∇f(x̂^[l])‖²,

a Newton-type step onto the linearization of f at x̂^[l]. Its fixed points are the critical points of the
distance on the curve, and by (13)–(17) it is unstable where the curve bends more than |λ| (∇f = λ d): there
the step is slowed down (halved, for that point only, whenever it stops shrinking), as the seed suggests.
Since the iteration is local, it is started from several seeds: x_i itself and, in the plane, the nearest
sample of each piece of the zero contour (marching squares on a dense grid). The nearest converged foot wins,
and it is checked against the sampled contour: it may not be farther than the nearest sample by more than
the grid's cell diagonal (otherwise that sample, pushed onto f = 0 along ∇f, is used).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from percviz.core._projection_tail import compiled_rows, compiled_step, rbf_terms
from percviz.core.batched_eval import evaluator, hessian
from percviz.core.decision import DecisionFunction, DerivativeExpansion, KernelExpansion, ZeroDecision
from percviz.core.grid import ViewGrid, contour_lines
from percviz.core.kernels import RBFKernel

#: Default grid (per side) on which the zero contour is sampled.
DEFAULT_RESOLUTION = 240
#: |f|/‖∇f‖ (the linearized distance to the curve) below which a foot counts as on the curve.
ON_CURVE = 1e-9
#: When this few rows of (12) are still moving, each is finished in one compiled call (_projection_tail).
TAIL_ROWS = 2


#: Floating-point operations the search may take (≈ 10 s here); a costlier one is declined (search_too_costly).
SEARCH_WORK = 2e9


def search_too_costly(decision: DecisionFunction, n: int, d: int) -> str | None:
    """Why the input distances of n points in R^d would take too long (an explicit map of many columns), or None.

    Each point's search takes ~1,000 evaluations of f and ∇f, each O(d̂) (O(d̂·d) without the monomial tree), and
    its polish ~30 Hessians of 2d gradients each."""
    from percviz.core.decision import FeatureLinear, _monomial_degree

    if not isinstance(decision, FeatureLinear) or d <= 2:
        return None
    cols = int(np.size(decision.weights))
    per_eval = cols if _monomial_degree(decision.features) is not None else cols * d
    work = float(n) * per_eval * (1000 + 60 * d)
    if work <= SEARCH_WORK:
        return None
    return (f"not computed: the distances to f = 0 of {n:,} points in R^{d} through {cols:,} feature columns would "
            f"take about {work / SEARCH_WORK * 10:.0f} s; use fewer columns (a lower degree) or a kernel")


@dataclass(frozen=True)
class Projection:
    """Where (12) went from given starts: feet, and per point whether it converged and whether it was slowed."""

    feet: np.ndarray
    converged: np.ndarray
    slowed: np.ndarray


def _far_step(xi, xl, f, g, Gg, gg):
    """(12)'s step (delta, ‖delta‖, lost) without squaring a huge f/‖∇f‖; lost rows get delta = 0."""
    root = np.sqrt(gg)
    with np.errstate(over="ignore", invalid="ignore"):
        delta = xi - (Gg / root[:, None]) * ((f - ((xl - xi) * g).sum(1)) / root)[:, None] - xl
    lost = ~np.isfinite(delta).all(axis=1)
    delta[lost] = 0.0
    big = np.maximum(np.abs(delta).max(axis=1), 1e-300)
    return delta, big * np.sqrt(((delta / big[:, None]) ** 2).sum(1)), lost


def project(
    decision: DecisionFunction, X, start, Ginv=None, max_iter=200, max_step=None
) -> Projection:
    """Iterate (12) from `start` for each x_i (G_i⁻¹ = Ginv[i], identity when None), slowing down unstable rows.

    max_iter and max_step are numbers or one per row. A move is never longer than max_step (default: a fifth
    of the points' span): where ∇f is nearly 0, as far from an RBF curve, the full step of (12) would throw the
    point out of the picture. Each row is iterated on its own; the rows still moving are evaluated in one batch.
    """
    X = np.atleast_2d(np.asarray(X, dtype=float))
    out = np.array(np.atleast_2d(np.asarray(start, dtype=float)), copy=True)
    m = X.shape[0]
    if max_step is None:
        max_step = _max_step(X, out)
    fg = evaluator(decision)
    if Ginv is not None and _is_identity(Ginv):
        Ginv = None  # G⁻¹g = g exactly: the same iterates without the batched matrix products
    converged = np.zeros(m, dtype=bool)
    slowed = np.zeros(m, dtype=bool)
    # the live rows, compacted: ids into the batch, x_i, the iterate, its rate, last step, scale and step bound
    ids = np.arange(m)
    xi, xl = X.copy(), out.copy()
    rate, last = np.ones(m), np.full(m, np.inf)
    sc = 1.0 + np.abs(X).max(axis=1)
    ms = np.broadcast_to(np.asarray(max_step, dtype=float), (m,)).copy()
    Gi = None if Ginv is None else np.asarray(Ginv, dtype=float)
    left = np.broadcast_to(np.asarray(max_iter, dtype=int), (m,)).copy()  # iterations each row may still take
    terms = rbf_terms(decision) if Gi is None else None
    rows = compiled_rows() if terms is not None and terms[0].size else None
    one = compiled_step() if Gi is None and X.shape[1] == 2 else None  # the batch's bookkeeping, same bits
    todo, least = int(left.max(initial=0)), (TAIL_ROWS if rows is not None else 0)
    if one is not None:
        with np.errstate(over="ignore", invalid="ignore"):  # fg's, as below; the compiled step returns −1 where
            while todo and ids.size > least:  # numpy's bookkeeping would see an overflow: that iteration in numpy
                f, g = fg(xl)
                k = one(np.ascontiguousarray(f, dtype=float), np.ascontiguousarray(g, dtype=float), ids, xi, xl,
                        rate, last, sc, ms, left, out, converged, slowed, ON_CURVE)
                if k < 0:
                    break
                todo -= 1
                if k < ids.size:
                    ids, xi, xl, rate, last, sc, ms, left = (v[:k] for v in (ids, xi, xl, rate, last, sc, ms, left))
    for _ in range(todo):
        if ids.size == 0:
            break
        if rows is not None and ids.size <= TAIL_ROWS:  # the last few rows: each to its end in one compiled call
            xl, last, rate = xl.copy(), last.astype(float), rate.astype(float)
            conv, slow = np.zeros(ids.size, dtype=bool), np.zeros(ids.size, dtype=bool)
            rows(xi, xl, rate, last, sc.astype(float), ms.astype(float), left.astype(np.int64), *terms, ON_CURVE,
                 conv, slow)
            converged[ids[conv]] = True
            slowed[ids[slow]] = True
            break
        with np.errstate(over="ignore", invalid="ignore"):  # a huge ∇f (f of points at 1e-300) is caught below
            f, g = fg(xl)  # one pass over the kernel rows of the live points
            Gg = g if Gi is None else np.einsum("mab,mb->ma", Gi, g)
            gg = (g * Gg).sum(1)
        if not (gg.min() > 1e-300 and np.isfinite(gg.max() + np.abs(f).max())):
            ok = np.isfinite(gg) & (gg > 1e-300) & np.isfinite(f)
        else:
            ok = None
        if ok is not None:  # ∇f = 0 (or non-finite): (12) is undefined here, the row stops where it is
            out[ids[~ok]] = xl[~ok]
            ids, xi, xl, rate, last, sc, ms, left = (v[ok] for v in (ids, xi, xl, rate, last, sc, ms, left))
            f, g, Gg, gg = f[ok], g[ok], Gg[ok], gg[ok]
            Gi = None if Gi is None else Gi[ok]
        with np.errstate(over="ignore", invalid="ignore"):
            delta = xi - Gg * ((f - ((xl - xi) * g).sum(1)) / gg)[:, None] - xl
            step = np.sqrt((delta * delta).sum(1))
        far = ~np.isfinite(step)
        if far.any():  # f/‖∇f‖² overflowed (‖∇f‖² near 1e-300): those rows' step through Gg/‖∇f‖, scaled norms
            delta[far], step[far], lost = _far_step(xi[far], xl[far], f[far], g[far], Gg[far], gg[far])
            left[np.flatnonzero(far)[lost]] = 1  # a foot beyond the floats: that row stops where it is, unconverged
        done = (np.abs(f) / np.sqrt(gg) <= ON_CURVE * sc) & (step <= 1e-10 * sc)
        grow = step >= last
        anydone = done.any()
        if anydone:
            converged[ids[done]] = True
            grow &= ~done
        if grow.any():  # the step stopped shrinking: the unstable case of (17), so slow this point down
            rate[grow] *= 0.5
            slowed[ids[grow]] = True
        over = step > ms  # the full step, or one of length max_step (ms/step overflowed for points at 1e12)
        move = (rate * np.where(over, ms / np.where(over, step, 1.0), 1.0))[:, None] * delta
        if anydone:
            move[done] = 0.0  # a converged row stays where it is
        xl = xl + move
        last = step
        left -= 1
        stop = done | (rate <= 1e-6) | (left <= 0)
        if anydone or stop.any():
            keep = ~stop
            out[ids[stop]] = xl[stop]
            ids, xi, xl, rate, last, sc, ms, left = (v[keep] for v in (ids, xi, xl, rate, last, sc, ms, left))
            Gi = None if Gi is None else Gi[keep]
    out[ids] = xl
    return Projection(out, converged, slowed)


def _max_step(X: np.ndarray, start: np.ndarray) -> float:
    """A fifth of the span of the points and the starts (at least 1/5)."""
    span = float(np.ptp(np.concatenate([X, start]), axis=0).max(initial=0.0)) if len(X) else 0.0
    return 0.2 * max(span, 1.0)


def _is_identity(Ginv) -> bool:
    Ginv = np.asarray(Ginv)
    return Ginv.ndim == 3 and Ginv.shape[1] == Ginv.shape[2] and bool((Ginv == np.eye(Ginv.shape[1])).all())


def project_many(decision: DecisionFunction, X, starts, Ginv=None, max_iter=200) -> list[Projection]:
    """project() from each start set in `starts`, all in one batch; each set keeps its own default max_step.

    max_iter: one number or one per set; Ginv: None, or the stacked (len(starts)·n, d, d) metrics of all rows.
    """
    X = np.atleast_2d(np.asarray(X, dtype=float))
    starts = [np.atleast_2d(np.asarray(s, dtype=float)) for s in starts]
    if not starts:
        return []
    n, k = len(X), len(starts)
    steps = np.concatenate([np.full(n, _max_step(X, s)) for s in starts])
    iters = np.repeat(np.broadcast_to(np.asarray(max_iter, dtype=int), (k,)), n)
    p = project(decision, np.concatenate([X] * k), np.concatenate(starts), Ginv, iters, steps)
    return [Projection(p.feet[r * n:(r + 1) * n], p.converged[r * n:(r + 1) * n], p.slowed[r * n:(r + 1) * n])
            for r in range(k)]


@dataclass(frozen=True)
class InputDistances:
    """Each point's input-space distance to f = 0, its foot, and the input-space margin (None with a reason)."""

    distances: np.ndarray  # (n,), inf where no curve point was found
    feet: np.ndarray  # (n, d)
    f_at_points: np.ndarray  # f(x_i)
    misclassified: np.ndarray  # y_i f(x_i) ≤ 0 (all False without labels)
    margin: float | None
    reason: str  # why margin is None ("" otherwise)
    resolution: float | None  # cell diagonal of the contour sampling (None when not sampled, d ≠ 2)
    slowed: int  # points whose (12) iteration had to be slowed down
    other_branch: int  # points whose nearest foot came from a contour seed, not from x_i itself

    @property
    def has_curve(self) -> bool:
        return bool(np.isfinite(self.distances).any())


def default_rect(X, pad: float = 0.5) -> tuple[float, float, float, float]:
    """The points' bounding box grown by `pad` of its span on each side (at least 1 unit)."""
    X = np.atleast_2d(np.asarray(X, dtype=float))
    lo, hi = X.min(axis=0), X.max(axis=0)
    span = np.maximum(hi - lo, 1.0)
    lo, hi = lo - pad * span, hi + pad * span
    return float(lo[0]), float(hi[0]), float(lo[1]), float(hi[1])


def contour_samples(decision: DecisionFunction, rect, resolution: int) -> tuple[list[np.ndarray], float]:
    """The zero contour of f on a resolution² grid over rect: a list of polylines, and the cell diagonal."""
    grid = ViewGrid.fit(*rect, resolution)
    F = grid_values(decision, grid)
    lines = contour_lines(F, 0.0, grid.xs, grid.ys)
    pieces = [p for p in np.split(lines, np.flatnonzero(np.isnan(lines[:, 0]))) if len(p)] if len(lines) else []
    pieces = [p[np.isfinite(p[:, 0])] for p in pieces]
    hx = (grid.x_max - grid.x_min) / max(grid.nx - 1, 1)
    hy = (grid.y_max - grid.y_min) / max(grid.ny - 1, 1)
    return [p for p in pieces if len(p)], float(np.hypot(hx, hy))


def grid_values(decision: DecisionFunction, grid: ViewGrid) -> np.ndarray:
    """f on the grid, (ny, nx). For RBF expansions in the plane from per-axis factors, since
    exp(−γ‖z − x̂_j‖²) = exp(−γ(z₁ − x̂_j1)²)·exp(−γ(z₂ − x̂_j2)²): one (ny × 2m)(2m × nx) product, not nx·ny·m exps."""
    rbf = isinstance(getattr(decision, "kernel", None), RBFKernel)
    if rbf and isinstance(decision, DerivativeExpansion) and decision.bases.shape[1] == 2:
        nz = np.flatnonzero((decision.a != 0) | (decision.b != 0).any(axis=1))
        B, a, b = decision.bases[nz], decision.a[nz], decision.b[nz]
        gam = decision.kernel.gamma
        dx, dy = grid.xs[:, None] - B[None, :, 0], grid.ys[:, None] - B[None, :, 1]
        Ex, Ey = np.exp(-gam * dx * dx), np.exp(-gam * dy * dy)
        # f = bias + Σ_j k_j(z) (a_j + 2γ b_j·(z − x̂_j)), split into the terms in z₁ and in z₂
        left = np.concatenate([Ey, Ey * (2.0 * gam * b[:, 1] * dy)], axis=1)
        right = np.concatenate([Ex * (a + 2.0 * gam * b[:, 0] * dx), Ex], axis=1)
        return float(decision.bias) + left @ right.T
    if rbf and isinstance(decision, KernelExpansion) and decision.centers.shape[1] == 2:
        nz = np.flatnonzero(decision.coef)
        C, c, gam = decision.centers[nz], decision.coef[nz], decision.kernel.gamma
        Ex = np.exp(-gam * (grid.xs[:, None] - C[None, :, 0]) ** 2)
        Ey = np.exp(-gam * (grid.ys[:, None] - C[None, :, 1]) ** 2)
        return float(decision.bias) + Ey @ (Ex * c).T
    return np.asarray(decision(grid.points()), dtype=float).reshape(grid.shape)


def crossing_seeds(decision: DecisionFunction, X, fx, k: int) -> list[np.ndarray]:
    """Points of f = 0 on the segments from each x_i to its k nearest points of the other sign (bisection).

    Dimension-free seeds for (12) where no contour can be sampled; rows without such a segment keep x_i.
    """
    X = np.asarray(X, dtype=float)
    pos, neg = np.flatnonzero(fx > 0), np.flatnonzero(fx < 0)
    if pos.size == 0 or neg.size == 0:
        return []
    from scipy.spatial import cKDTree

    out = []
    n = len(X)
    k = min(k, max(pos.size, neg.size))
    order = np.zeros((n, k), dtype=int)
    found = np.zeros((n, k), dtype=bool)
    for mine, theirs in ((pos, neg), (neg, pos)):  # k nearest of the other sign, O(n k) memory
        kk = min(k, theirs.size)
        dist, idx = cKDTree(X[theirs]).query(X[mine], k=kk)
        idx = np.asarray(idx).reshape(mine.size, kk)
        order[mine, :kk] = theirs[idx]
        found[mine, :kk] = np.isfinite(np.asarray(dist).reshape(mine.size, kk))
    for r in range(k):
        j = order[:, r]
        ok = found[:, r]
        lo, hi = X.copy(), np.where(ok[:, None], X[j], X)
        flo = fx.copy()
        for _ in range(40):
            mid = 0.5 * (lo + hi)
            fm = np.asarray(decision(mid), dtype=float)
            same = np.sign(fm) == np.sign(flo)
            lo = np.where(same[:, None], mid, lo)
            flo = np.where(same, fm, flo)
            hi = np.where(same[:, None], hi, mid)
        out.append(np.where(ok[:, None], 0.5 * (lo + hi), X))
    return out


def _push_onto_curve(decision: DecisionFunction, P: np.ndarray, iters: int = 30) -> np.ndarray:
    """Newton steps on f alone along ∇f (x ← x − f ∇f/‖∇f‖²): moves sampled points onto f = 0."""
    P = P.copy()
    fg = evaluator(decision)
    for _ in range(iters):
        f, g = fg(P)
        gg = np.einsum("ma,ma->m", g, g)
        ok = gg > 1e-300
        P[ok] -= (f[ok] / gg[ok])[:, None] * g[ok]
    return P


def input_distances(
    decision: DecisionFunction,
    X,
    y=None,
    *,
    rect: tuple[float, float, float, float] | None = None,
    resolution: int = DEFAULT_RESOLUTION,
    seeds: int = 4,
    exact_lines: bool = True,
) -> InputDistances:
    """Distances from the rows of X to f = 0 and the input-space margin (smallest distance; labels y ±1).

    With exact_lines, a decision that is affine in the plane (f = w·x + b) gets the closed form |f|/‖w‖.
    """
    return _distances(decision, X, y, rect, resolution, seeds, exact_lines, None, True)[0]


def distances_and_projection(
    decision: DecisionFunction, X, y, start, Ginv=None, *, rect=None, resolution: int = DEFAULT_RESOLUTION,
    seeds: int = 4, exact_lines: bool = True, max_iter: int = 200, polish: bool = True,
) -> tuple[InputDistances, Projection]:
    """input_distances(...) and project(decision, X, start, Ginv, max_iter), the projection batched with the search.

    polish=False keeps the search as it was before the KKT polish (_on_curve): the input-space SVM's steps use it,
    so that its iterates stay those of the algorithm as written; its reported margin is measured polished."""
    return _distances(decision, X, y, rect, resolution, seeds, exact_lines, (start, Ginv, max_iter), polish)


def _distances(decision, X, y, rect, resolution, seeds, exact_lines, extra, polish):
    """input_distances, and the projection from extra = (start, Ginv, max_iter) in the same batch (or None)."""
    X = np.atleast_2d(np.asarray(X, dtype=float))
    alone = (lambda: None) if extra is None else (lambda: project(decision, X, extra[0], extra[1], extra[2]))
    n, d = X.shape
    if decision.n_outputs != 1:
        raise ValueError("input-space distances are defined for two classes (a single f) only")
    fx = np.asarray(decision(X), dtype=float) if n else np.zeros(0)
    mis = np.zeros(n, dtype=bool) if y is None else (np.asarray(y, dtype=float) * fx <= 0)
    dist, feet = np.full(n, np.inf), X.copy()
    wb = decision.affine_weights(d)  # f = w·x + b in R^d: the closed form, no iteration
    if n == 0 or isinstance(decision, ZeroDecision) or (wb is not None and not np.any(wb[0])):
        return InputDistances(dist, feet, fx, mis, None, "no curve f = 0 (f is constant)", None, 0, 0), alone()
    if exact_lines and wb is not None:
        w = np.asarray(wb[0], dtype=float)
        m = float(np.abs(w).max())  # ‖w‖ and w·w through u = w/m: w of 1e300 (points at 1e-300) would overflow
        u = w / m
        nu = float(np.linalg.norm(u))
        dist = np.abs(fx) / m / nu
        feet = X - ((fx / m) / (nu * nu))[:, None] * u
        return InputDistances(dist, feet, fx, mis, *_margin(dist, mis, y), None, 0, 0), alone()
    # in the plane a sampled contour backs (12) up; elsewhere slowed-down points get more iterations
    iters = 200 if d == 2 else 1000
    starts, from_contour = [X], [False]
    resolution_used = None
    nearest_sample = np.full(n, np.inf)
    nearest_point = X.copy()
    if d != 2:  # no contour to sample: seeds where the segments to points of the other sign cross f = 0
        for start in crossing_seeds(decision, X, fx, seeds):
            starts.append(start)
            from_contour.append(True)
    if d == 2:
        pieces, resolution_used = contour_samples(decision, rect or default_rect(X), resolution)
        best_by_piece = []
        from scipy.spatial import cKDTree

        for P in pieces:  # nearest sample of each piece: a k-d tree keeps memory O(n + |P|)
            dj, j = cKDTree(P).query(X)
            best_by_piece.append((np.asarray(dj, dtype=float), P[j]))
        if best_by_piece:
            dists = np.stack([b[0] for b in best_by_piece])  # (pieces, n)
            pts = np.stack([b[1] for b in best_by_piece])  # (pieces, n, 2)
            order = np.argsort(dists, axis=0)[:seeds]
            for r in range(order.shape[0]):
                starts.append(pts[order[r], np.arange(n)])
                from_contour.append(True)
            k = order[0]
            nearest_sample = dists[k, np.arange(n)]
            nearest_point = pts[k, np.arange(n)]
    iters_each = [iters] * len(starts)
    Ginv = None
    if extra is not None:
        starts.append(extra[0])
        iters_each.append(extra[2])
        if extra[1] is not None and not _is_identity(extra[1]):  # the others' G⁻¹ = I (the same iterates)
            Ginv = np.concatenate([np.broadcast_to(np.eye(d), (n * (len(starts) - 1), d, d)), extra[1]])
    candidates = project_many(decision, X, starts, Ginv, iters_each)
    extra_projection = candidates.pop() if extra is not None else None
    other = np.zeros(n, dtype=bool)
    slowed = np.zeros(n, dtype=bool)
    if polish:
        candidates = _on_curve(decision, X, candidates)
    for c, fc in zip(candidates, from_contour):
        dc = np.where(c.converged, np.linalg.norm(c.feet - X, axis=1), np.inf)
        bar = dist.copy()
        fin = np.isfinite(bar)
        bar[fin] -= 1e-12 * (1.0 + bar[fin])
        better = dc < bar
        dist = np.where(better, dc, dist)
        feet[better] = c.feet[better]
        other = np.where(better, fc, other)
        slowed |= c.slowed
    if resolution_used is not None:
        # the nearest foot must not lose to the sampled contour by more than the sampling resolution
        bad = np.flatnonzero(dist > nearest_sample + resolution_used)
        if bad.size:
            pushed = _push_onto_curve(decision, nearest_point[bad])
            dp = np.linalg.norm(pushed - X[bad], axis=1)
            f_ok = np.abs(decision(pushed)) <= 1e-9 * (1.0 + np.abs(fx[bad]))
            use = f_ok & (dp < dist[bad])
            dist[bad[use]] = dp[use]
            feet[bad[use]] = pushed[use]
            other[bad[use]] = True
    on = fx == 0
    dist[on], feet[on] = 0.0, X[on]
    margin, reason = _margin(dist, mis, y)
    found = InputDistances(dist, feet, fx, mis, margin, reason, resolution_used, int(slowed.sum()), int(other.sum()))
    return found, extra_projection


def _on_curve(decision: DecisionFunction, X, candidates: list[Projection]) -> list[Projection]:
    """The candidates with the end points that (12) left unconverged polished by Newton's method on the KKT
    conditions, and `converged` true where a point of f = 0 that is a critical point of the distance was reached.

    Where the curve bends almost as much as the circle around x_i (|c_j| ≈ |λ| in (17)) the distance is nearly
    flat along it and (12) creeps, or is slowed down, without its step falling below 1e-10 in 200 iterations.
    Those end points were dropped, and a contour sample pushed onto f = 0 (up to 4.6e-4 relative farther than
    the nearest foot) won; Newton on z − x_i + μ∇f(z) = 0, f(z) = 0 converges from them to the foot.
    """
    rows = [np.flatnonzero(~c.converged) for c in candidates]
    if not sum(len(r) for r in rows):
        return candidates
    idx = np.concatenate([r for r in rows])
    Z = np.concatenate([c.feet[r] for c, r in zip(candidates, rows)])
    Zp, ok = kkt_polish(decision, X[idx], Z)
    out, at = [], 0
    for c, r in zip(candidates, rows):
        feet, conv = c.feet.copy(), c.converged.copy()
        feet[r[ok[at:at + len(r)]]] = Zp[at:at + len(r)][ok[at:at + len(r)]]
        conv[r] = ok[at:at + len(r)]
        out.append(Projection(feet, conv, c.slowed))
        at += len(r)
    return out


def kkt_polish(decision: DecisionFunction, X, Z, iters: int = 30) -> tuple[np.ndarray, np.ndarray]:
    """Newton's method on the KKT system of min ½‖z − x_i‖² s.t. f(z) = 0, from z = Z[i]; (feet, converged).

    Each step solves [[I + μ∇²f, ∇f], [∇fᵀ, 0]] (dz, dμ) = −(z − x + μ∇f, f), μ started at the least-squares
    multiplier. Converged: |f|/‖∇f‖ ≤ ON_CURVE·(1 + |x|∞) and the tangential residual below 1e-10 of that scale.
    """
    X, Z = np.atleast_2d(np.asarray(X, dtype=float)), np.array(np.atleast_2d(np.asarray(Z, dtype=float)))
    m, d = Z.shape
    scale = 1.0 + np.abs(X).max(axis=1)
    fg = evaluator(decision)
    ok = np.zeros(m, dtype=bool)
    if m == 0:
        return Z, ok
    with np.errstate(all="ignore"):
        f, g = fg(Z)
        mu = -np.einsum("ma,ma->m", Z - X, g) / np.einsum("ma,ma->m", g, g)
        live = np.isfinite(mu)
        for _ in range(iters):
            idx = np.flatnonzero(live)
            if idx.size == 0:
                break
            z, x, mm = Z[idx], X[idx], mu[idx]
            f, g = fg(z)
            gg = np.einsum("ma,ma->m", g, g)
            r = z - x + mm[:, None] * g
            tang = r - (np.einsum("ma,ma->m", r, g) / gg)[:, None] * g
            done = (np.abs(f) / np.sqrt(gg) <= ON_CURVE * scale[idx]) & (
                np.linalg.norm(tang, axis=1) <= 1e-10 * scale[idx])
            ok[idx[done]] = True
            live[idx[done]] = False
            go = ~done & np.isfinite(gg) & (gg > 1e-300)
            live[idx[~go]] = False
            idx, z, x, mm, f, g, r = idx[go], z[go], x[go], mm[go], f[go], g[go], r[go]
            if idx.size == 0:
                break
            A = np.zeros((idx.size, d + 1, d + 1))
            A[:, :d, :d] = np.eye(d) + mm[:, None, None] * hessian(decision, z)
            A[:, :d, d] = A[:, d, :d] = g
            rhs = -np.concatenate([r, f[:, None]], axis=1)
            try:
                sol = np.linalg.solve(A, rhs[:, :, None])[:, :, 0]
            except np.linalg.LinAlgError:
                live[idx] = False
                break
            fine = np.isfinite(sol).all(axis=1)
            live[idx[~fine]] = False
            Z[idx[fine]] = z[fine] + sol[fine, :d]
            mu[idx[fine]] = mm[fine] + sol[fine, d]
    return Z, ok


def _margin(dist: np.ndarray, mis: np.ndarray, y) -> tuple[float | None, str]:
    """The input-space margin min_i dist_i, or None and the reason."""
    n = len(dist)
    if y is None:
        return None, "no labels"
    if mis.any():
        return None, f"{int(mis.sum())} of {n} points are misclassified (on the wrong side of f = 0 or on it)"
    if not np.isfinite(dist).all():
        return None, f"no point of f = 0 found near {int((~np.isfinite(dist)).sum())} points"
    return float(dist.min()), ""
