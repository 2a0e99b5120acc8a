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

from percviz.core.decision import DecisionFunction, ZeroDecision
from percviz.core.grid import ViewGrid, contour_lines

#: Default grid (per side) on which the zero contour is sampled.
DEFAULT_RESOLUTION = 240
#: |f|/‖∇f‖ (the linearized distance to the curve) below which a foot counts as on the curve.
ON_CURVE = 1e-9


@dataclass(frozen=True)
class Projection:
    """Where (12) went from given starts: feet, and per point whether it converged and whether it was slowed."""

    feet: np.ndarray
    converged: np.ndarray
    slowed: np.ndarray


def project(
    decision: DecisionFunction, X, start, Ginv=None, max_iter: int = 200, max_step: float | None = None
) -> Projection:
    """Iterate (12) from `start` for each x_i (G_i⁻¹ = Ginv[i], identity when None), slowing down unstable rows.

    A move is never longer than max_step (default: a fifth of the points' span): where ∇f is nearly 0, as
    far from an RBF curve, the full step of (12) would throw the point out of the picture.
    """
    X = np.atleast_2d(np.asarray(X, dtype=float))
    x = np.array(np.atleast_2d(np.asarray(start, dtype=float)), copy=True)
    m = X.shape[0]
    if max_step is None:
        span = float(np.ptp(np.concatenate([X, x]), axis=0).max(initial=0.0)) if m else 0.0
        max_step = 0.2 * max(span, 1.0)
    scale = 1.0 + np.abs(X).max(axis=1)
    rate = np.ones(m)
    last_step = np.full(m, np.inf)
    converged = np.zeros(m, dtype=bool)
    slowed = np.zeros(m, dtype=bool)
    live = np.ones(m, dtype=bool)
    for _ in range(max_iter):
        idx = np.flatnonzero(live)
        if idx.size == 0:
            break
        xi, xl = X[idx], x[idx]
        f, g = _value_and_gradient(decision, xl)  # one pass over the kernel rows of the live points
        Gg = g if Ginv is None else np.einsum("mab,mb->ma", Ginv[idx], g)
        gg = np.einsum("ma,ma->m", g, Gg)
        ok = np.isfinite(gg) & (gg > 1e-300) & np.isfinite(f)
        live[idx[~ok]] = False  # ∇f = 0 (or non-finite): (12) is undefined here
        idx, xi, xl, f, Gg, gg, g = idx[ok], xi[ok], xl[ok], f[ok], Gg[ok], gg[ok], g[ok]
        target = xi - Gg * ((f - np.einsum("ma,ma->m", xl - xi, g)) / gg)[:, None]
        step = np.linalg.norm(target - xl, axis=1)
        on_curve = np.abs(f) / np.sqrt(gg) <= ON_CURVE * scale[idx]
        done = on_curve & (step <= 1e-10 * scale[idx])
        converged[idx[done]] = True
        live[idx[done]] = False
        grow = (step >= last_step[idx]) & ~done
        if grow.any():  # the step stopped shrinking: the unstable case of (17), so slow this point down
            rate[idx[grow]] *= 0.5
            slowed[idx[grow]] = True
        move = ~done
        shrink = np.minimum(1.0, max_step / np.maximum(step, 1e-300))
        x[idx[move]] = xl[move] + (rate[idx[move]] * shrink[move])[:, None] * (target[move] - xl[move])
        last_step[idx] = step
        live &= rate > 1e-6
    return Projection(x, converged, slowed)


def _value_and_gradient(decision: DecisionFunction, Z) -> tuple[np.ndarray, np.ndarray]:
    """(f, ∇f) at the rows of Z, in one pass when the decision shares its kernel rows (DecisionFunction's default)."""
    both = getattr(decision, "value_and_gradient", None)
    if both is None:
        return np.asarray(decision(Z), dtype=float), np.asarray(decision.gradient(Z), dtype=float)
    f, g = both(Z)
    return np.asarray(f, dtype=float), np.asarray(g, dtype=float)


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
    F = np.asarray(decision(grid.points()), dtype=float).reshape(grid.shape)
    lines = contour_lines(F, 0.0, grid.xs, grid.ys)
    pieces = [p for p in np.split(lines, np.flatnonzero(np.isnan(lines[:, 0]))) if len(p)] if len(lines) else []
    pieces = [p[np.isfinite(p[:, 0])] for p in pieces]
    hx = (grid.x_max - grid.x_min) / max(grid.nx - 1, 1)
    hy = (grid.y_max - grid.y_min) / max(grid.ny - 1, 1)
    return [p for p in pieces if len(p)], float(np.hypot(hx, hy))


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
    for _ in range(iters):
        f, g = _value_and_gradient(decision, P)
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
    X = np.atleast_2d(np.asarray(X, dtype=float))
    n, d = X.shape
    if decision.n_outputs != 1:
        raise ValueError("input-space distances are defined for two classes (a single f) only")
    fx = np.asarray(decision(X), dtype=float) if n else np.zeros(0)
    mis = np.zeros(n, dtype=bool) if y is None else (np.asarray(y, dtype=float) * fx <= 0)
    dist, feet = np.full(n, np.inf), X.copy()
    wb = decision.affine_weights(d)  # f = w·x + b in R^d: the closed form, no iteration
    if n == 0 or isinstance(decision, ZeroDecision) or (wb is not None and not np.any(wb[0])):
        return InputDistances(dist, feet, fx, mis, None, "no curve f = 0 (f is constant)", None, 0, 0)
    if exact_lines and wb is not None:
        w = np.asarray(wb[0], dtype=float)
        m = float(np.abs(w).max())  # ‖w‖ and w·w through u = w/m: w of 1e300 (points at 1e-300) would overflow
        u = w / m
        nu = float(np.linalg.norm(u))
        dist = np.abs(fx) / m / nu
        feet = X - ((fx / m) / (nu * nu))[:, None] * u
        return InputDistances(dist, feet, fx, mis, *_margin(dist, mis, y), None, 0, 0)
    # in the plane a sampled contour backs (12) up; elsewhere slowed-down points get more iterations
    iters = 200 if d == 2 else 1000
    candidates = [project(decision, X, X, max_iter=iters)]
    from_contour = [False]
    resolution_used = None
    nearest_sample = np.full(n, np.inf)
    nearest_point = X.copy()
    if d != 2:  # no contour to sample: seeds where the segments to points of the other sign cross f = 0
        for start in crossing_seeds(decision, X, fx, seeds):
            candidates.append(project(decision, X, start, max_iter=iters))
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
                start = pts[order[r], np.arange(n)]
                candidates.append(project(decision, X, start))
                from_contour.append(True)
            k = order[0]
            nearest_sample = dists[k, np.arange(n)]
            nearest_point = pts[k, np.arange(n)]
    other = np.zeros(n, dtype=bool)
    slowed = np.zeros(n, dtype=bool)
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
    return InputDistances(dist, feet, fx, mis, margin, reason, resolution_used, int(slowed.sum()), int(other.sum()))


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
