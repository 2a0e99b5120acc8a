"""Pictures of weight space and feature space, computed exactly: no Qt here.

Weight space (the notes' "Geometry and terminology"): each normalized sample y_i gives the plane
a·y_i = 0 through the origin; the solution region {a : a·y_i > 0 ∀i} is a convex cone. With three
weights we draw directions by the gnomonic projection onto the plane tangent to the unit sphere at
c = mean of y_i/‖y_i‖: great circles become straight lines, so every constraint is a line and the cone
a convex polygon. With two weights (1-D data) the weight plane is drawn as it is. The cone's extent,
its walls and the shortest margin vector come from `percviz.core.cone`.

Feature space (the paper's §5): the points y_i φ̃(x_i) are embedded from the eigendecomposition of the
normalized signed Gram matrix G; the minimum-norm point of their convex hull has norm ρ_K when the data
are separable and is the origin when they are not (Gordan's theorem).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from percviz.core.cone import cone_extent_2d, shortest_margin_vector, wall_offsets

#: A direction a is on the near hemisphere when a·c exceeds this (a·c ≤ 0 cannot be projected).
NEAR_EPS = 1e-12


# ---------------------------------------------------------------------------------------------
# The minimum-norm point of a convex hull (Wolfe's algorithm on inner products only)
# ---------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class MinNormPoint:
    """x = Σ p_i z_i with p in the simplex of least norm; norm = ‖x‖ (= √(pᵀGp)).

    separable: True, False (0 is in the hull: confirmed), or None (undecided at this precision; `note` says why)."""

    p: np.ndarray
    norm: float
    separable: bool | None
    note: str = ""


def min_norm_point(G, tol: float = 1e-12, max_iter: int = 10_000) -> MinNormPoint:
    """Wolfe's minimum-norm-point algorithm on the Gram matrix G_ij = z_i·z_j.

    Returns the weights p ∈ Δ_n of the point of conv{z_i} nearest the origin. By Gordan's theorem the
    origin is in the hull (norm 0) exactly when no a has a·z_i > 0 for every i; otherwise
    max_{‖a‖=1} min_i a·z_i = ‖x‖ and x/‖x‖ is that a (the paper's Lemma 3 with this G).
    """
    G = np.asarray(G, dtype=float)
    n = G.shape[0]
    if n == 0:
        raise ValueError("min_norm_point needs at least one point")
    scale = float(np.max(np.diag(G))) or 1.0
    S = [int(np.argmin(np.diag(G)))]
    lam = np.array([1.0])
    for _ in range(max_iter):
        g = G[:, S] @ lam  # z_j·x for every j
        xx = float(lam @ G[np.ix_(S, S)] @ lam)
        if xx <= tol * tol * scale:
            break
        j = int(np.argmin(g))
        if xx - g[j] <= tol * scale or j in S:
            break
        S.append(j)
        lam = np.append(lam, 0.0)
        while True:  # minor cycle: move towards the affine minimizer of the corral S
            mu = _affine_minimizer(G[np.ix_(S, S)])
            if mu is None or np.all(mu > 1e-14):
                if mu is not None:
                    lam = mu
                break
            neg = mu <= 1e-14
            d = lam - mu
            theta = np.min(np.where(neg & (d > 0), lam / np.where(d > 0, d, 1.0), 1.0))
            lam = lam + theta * (mu - lam)
            keep = lam > 1e-14
            keep[np.argmax(lam)] = True
            S = [s for s, k in zip(S, keep) if k]
            lam = lam[keep] / lam[keep].sum()
    p = np.zeros(n)
    p[S] = lam
    p = np.clip(p, 0.0, None)
    p /= p.sum()
    norm = float(np.sqrt(max(p @ G @ p, 0.0)))
    return MinNormPoint(p, norm, norm > 1e-9 * np.sqrt(scale))


def _affine_minimizer(Gs: np.ndarray) -> np.ndarray | None:
    """Weights μ (Σμ = 1) of the least-norm point in the affine hull of the corral."""
    k = Gs.shape[0]
    A = np.zeros((k + 1, k + 1))
    A[:k, :k] = Gs
    A[:k, k] = A[k, :k] = 1.0
    rhs = np.zeros(k + 1)
    rhs[k] = 1.0
    try:
        sol = np.linalg.solve(A, rhs)
    except np.linalg.LinAlgError:
        return None
    return sol[:k] if np.all(np.isfinite(sol)) else None


# ---------------------------------------------------------------------------------------------
# Polygons: a convex region cut out of a box by half-planes (Sutherland–Hodgman, exact up to rounding)
# ---------------------------------------------------------------------------------------------
def box_polygon(xmin: float, xmax: float, ymin: float, ymax: float) -> np.ndarray:
    """The box as a counter-clockwise polygon (4×2)."""
    return np.array([[xmin, ymin], [xmax, ymin], [xmax, ymax], [xmin, ymax]], dtype=float)


def clip_halfplane(poly: np.ndarray, normal, offset: float) -> np.ndarray:
    """The part of a convex polygon where normal·p + offset ≥ 0."""
    if len(poly) == 0:
        return poly
    s = poly @ np.asarray(normal, dtype=float) + offset
    out = []
    m = len(poly)
    for k in range(m):
        p, q, sp, sq = poly[k], poly[(k + 1) % m], s[k], s[(k + 1) % m]
        if sp >= 0:
            out.append(p)
        if (sp > 0 > sq) or (sp < 0 < sq):
            out.append(p + (q - p) * (sp / (sp - sq)))
    out_arr = np.array(out, dtype=float).reshape(-1, 2)
    if len(out_arr) > 1:  # drop repeated vertices (a vertex exactly on the line)
        keep = np.linalg.norm(out_arr - np.roll(out_arr, 1, axis=0), axis=1) > 1e-12 * (1 + np.abs(out_arr).max())
        out_arr = out_arr[keep] if keep.any() else out_arr[:1]
    return out_arr


def polygon_area(poly: np.ndarray) -> float:
    """Signed area (positive for counter-clockwise vertices)."""
    if len(poly) < 3:
        return 0.0
    x, y = poly[:, 0], poly[:, 1]
    return 0.5 * float(np.dot(x, np.roll(y, -1)) - np.dot(y, np.roll(x, -1)))


def point_in_polygon(poly: np.ndarray, point) -> bool:
    """True when the point is strictly inside the convex polygon."""
    if len(poly) < 3:
        return False
    sign = 1.0 if polygon_area(poly) > 0 else -1.0
    e = np.roll(poly, -1, axis=0) - poly
    r = np.asarray(point, dtype=float) - poly
    cross = e[:, 0] * r[:, 1] - e[:, 1] * r[:, 0]
    return bool(np.all(sign * cross > 0))


def region(normals, offsets, box: np.ndarray) -> np.ndarray:
    """{p in box : normals_i·p + offsets_i ≥ 0 ∀i} as a convex polygon (possibly empty).

    The half-planes are applied most-violated first, and those the current polygon already satisfies
    are dropped at once (vectorized), so thousands of constraints cost a handful of clips.
    """
    poly = np.asarray(box, dtype=float)
    N = np.asarray(normals, dtype=float).reshape(-1, 2)
    h = np.asarray(offsets, dtype=float).reshape(-1)
    while len(N) and len(poly):
        worst = (poly @ N.T + h[None, :]).min(axis=0)
        cut = worst < 0
        if not cut.any():
            break
        N, h, worst = N[cut], h[cut], worst[cut]
        k = int(np.argmin(worst))
        poly = clip_halfplane(poly, N[k], h[k])
        N, h = np.delete(N, k, axis=0), np.delete(h, k)
    return poly


# ---------------------------------------------------------------------------------------------
# The gnomonic projection of directions in R³
# ---------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Projected:
    """Directions projected: points (m×2), far (a·c ≤ 0: no image) and edge directions (m×2, unit)."""

    points: np.ndarray
    far: np.ndarray
    edge: np.ndarray


@dataclass(frozen=True)
class Gnomonic:
    """Central projection from the origin onto the plane tangent to the unit sphere at `center`.

    A direction a with a·c > 0 maps to the point (a·e1, a·e2)/(a·c) of the plane, e1, e2 an orthonormal
    basis of c⊥; the plane's point (u, v) is the direction c + u e1 + v e2.
    """

    center: np.ndarray
    basis: np.ndarray  # 2×3, rows e1, e2

    @classmethod
    def at(cls, c) -> "Gnomonic":
        """The projection tangent at the direction c (normalized here)."""
        c = np.asarray(c, dtype=float)
        c = c / np.linalg.norm(c)
        # e1 ⟂ c chosen reproducibly: Gram–Schmidt on the coordinate axis least aligned with c.
        axis = np.zeros(3)
        axis[int(np.argmin(np.abs(c)))] = 1.0
        e1 = axis - (axis @ c) * c
        e1 /= np.linalg.norm(e1)
        e2 = np.cross(c, e1)
        return cls(c, np.vstack([e1, e2]))

    @classmethod
    def for_samples(cls, Y) -> "Gnomonic":
        """Tangent at the mean of the normalized samples y_i/‖y_i‖ (or, if that mean is 0, at their main axis)."""
        Y = np.asarray(Y, dtype=float)
        U = Y / np.linalg.norm(Y, axis=1, keepdims=True)
        c = U.mean(axis=0)
        if np.linalg.norm(c) < 1e-9:
            # The origin is the mean of the unit samples: the cone is empty and any tangent point will do;
            # the main axis keeps as many constraint lines as possible near the middle of the picture.
            c = np.linalg.eigh(U.T @ U)[1][:, -1]
        return cls.at(c)

    def project(self, A) -> Projected:
        """Project directions (rows of A); far ones (a·c ≤ 0) get an edge direction instead of a point."""
        A = np.atleast_2d(np.asarray(A, dtype=float))
        t = A @ self.center
        uv = A @ self.basis.T
        far = ~(t > NEAR_EPS * np.maximum(np.linalg.norm(A, axis=1), 1e-300))
        with np.errstate(divide="ignore", invalid="ignore"):
            pts = np.where(far[:, None], np.nan, uv / t[:, None])
        norm = np.linalg.norm(uv, axis=1, keepdims=True)
        edge = np.where(norm > 0, uv / np.where(norm > 0, norm, 1.0), np.array([[1.0, 0.0]]))
        return Projected(pts, far, edge)

    def lift(self, P) -> np.ndarray:
        """Unit directions (m×3) of plane points (m×2)."""
        P = np.atleast_2d(np.asarray(P, dtype=float))
        D = self.center[None, :] + P @ self.basis
        return D / np.linalg.norm(D, axis=1, keepdims=True)

    def constraint_lines(self, Y) -> tuple[np.ndarray, np.ndarray]:
        """Each plane a·y_i = 0 as the line n_i·p + h_i = 0; the side n_i·p + h_i > 0 has a·y_i > 0.

        A row with n_i = 0 (y_i parallel to c) has no line: its plane is parallel to the tangent plane.
        """
        Y = np.asarray(Y, dtype=float)
        return Y @ self.basis.T, Y @ self.center


# ---------------------------------------------------------------------------------------------
# The weight-space picture with three weights
# ---------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class ConePicture:
    """Everything the 2-D gnomonic picture of a solution cone needs.

    `polygon` is the cone ∩ {a·c > 0} ∩ view box; `bounded` says the cone's image lies inside the box
    (it is cut by the box only when the cone reaches the horizon a·c = 0, which happens when the samples
    span only a plane). `lines` are (normal, offset) per sample; `has_line[i]` is False when y_i ∥ c.
    """

    projection: Gnomonic
    normals: np.ndarray
    offsets: np.ndarray
    has_line: np.ndarray
    polygon: np.ndarray
    empty: bool
    bounded: bool
    box: np.ndarray  # (xmin, xmax, ymin, ymax) the polygon and lines are clipped to (4× the view)
    view: np.ndarray  # (xmin, xmax, ymin, ymax) worth showing: the cone fitted, or the lines around c
    overview: np.ndarray  # (xmin, xmax, ymin, ymax) square around c reaching every line: the cone among the constraints
    frame: np.ndarray  # (xmin, xmax, ymin, ymax) a rectangle the cone fills (its long axis along x), else `view`
    best: np.ndarray | None  # unit max-margin direction a*, None when the cone is empty
    best_margin: float  # max_{‖a‖=1} min_i a·y_i (≤ 0 … reported as 0 when empty)
    best_point: np.ndarray | None  # a* projected


#: The view never reaches further than this from the tangent point (tan 80°): beyond, it is all horizon.
MAX_VIEW_RADIUS = float(np.tan(np.radians(80.0)))


def cone_picture(Y, min_radius: float = 1.0) -> ConePicture:
    """The gnomonic picture of the solution cone of the rows of Y (n×3)."""
    Y = np.asarray(Y, dtype=float)
    if Y.ndim != 2 or Y.shape[1] != 3 or len(Y) == 0:
        raise ValueError("cone_picture needs an n×3 array of samples with n ≥ 1")
    proj = Gnomonic.for_samples(Y)
    normals, offsets = proj.constraint_lines(Y)
    scale = np.linalg.norm(Y, axis=1)
    has_line = np.linalg.norm(normals, axis=1) > 1e-12 * scale
    try:
        shortest = shortest_margin_vector(Y, 1.0)  # None exactly when the cone is empty
    except RuntimeError:  # the QP failed (badly scaled rows): drawn as no cone; the view asks the exact LP why
        shortest = None
    separable = shortest is not None
    best = best_pt = None
    if separable:
        best = shortest / np.linalg.norm(shortest)  # max over ‖a‖ = 1 of min a·y_i, which is 1/‖shortest‖
        best_pt = proj.project(best).points[0]
    # The cone's image inside a huge box tells whether it is bounded; then the view box is fitted to it.
    big = 1e6
    cone_big = region(normals, offsets, box_polygon(-big, big, -big, big)) if separable else np.zeros((0, 2))
    bounded = bool(len(cone_big) and np.abs(cone_big).max() < 0.5 * big)
    if bounded:  # turn the plane's basis so that the cone's long axis runs along x (a rotation about c)
        proj = _aligned(proj, cone_big)
        normals, offsets = proj.constraint_lines(Y)
        cone_big = region(normals, offsets, box_polygon(-big, big, -big, big))
        best_pt = proj.project(best).points[0]
    view = _view_box(normals, offsets, has_line, cone_big if bounded else None, min_radius)
    cx, cy, half = (view[0] + view[1]) / 2, (view[2] + view[3]) / 2, (view[1] - view[0]) / 2
    box = np.array([cx - 4 * half, cx + 4 * half, cy - 4 * half, cy + 4 * half])
    polygon = region(normals, offsets, box_polygon(*box)) if separable else np.zeros((0, 2))
    overview = _view_box(normals, offsets, has_line, None, min_radius)
    frame = _frame_box(cone_big) if bounded else view
    return ConePicture(
        projection=proj,
        normals=normals,
        offsets=offsets,
        has_line=has_line,
        polygon=polygon,
        empty=not separable,
        bounded=bounded,
        box=box,
        view=view,
        overview=overview,
        frame=frame,
        best=best,
        best_margin=1.0 / float(np.linalg.norm(shortest)) if separable else 0.0,
        best_point=best_pt,
    )


#: The framed view stretches one axis at most this much over the other (a thin cone stays recognisable).
MAX_STRETCH = 6.0


def _aligned(proj: Gnomonic, cone: np.ndarray) -> Gnomonic:
    """The same projection with its basis turned so that an elongated cone's principal axis is e1 (a round one as it is)."""
    P = cone - cone.mean(axis=0)
    if len(P) < 3:
        return proj
    _, sv, vt = np.linalg.svd(P, full_matrices=False)
    if sv[0] < 1.5 * sv[1]:
        return proj  # no long axis worth turning to
    vec = vt[0]
    e1 = vec @ proj.basis
    e1 /= np.linalg.norm(e1)
    return Gnomonic(proj.center, np.vstack([e1, np.cross(proj.center, e1)]))


def _frame_box(cone: np.ndarray) -> np.ndarray:
    """A rectangle around a bounded cone, 10% to spare on each side, no side shorter than 1/MAX_STRETCH of the other."""
    lo, hi = cone.min(axis=0), cone.max(axis=0)
    centre, half = (lo + hi) / 2, np.maximum(0.6 * (hi - lo), 1e-9)
    half = np.maximum(half, half.max() / MAX_STRETCH)
    return np.array([centre[0] - half[0], centre[0] + half[0], centre[1] - half[1], centre[1] + half[1]])


def _view_box(normals, offsets, has_line, cone, min_radius) -> np.ndarray:
    """A square around a bounded cone (1.5× its extent: the cone is what matters), else around c reaching
    every line's nearest point."""
    if cone is not None and len(cone):
        lo, hi = cone.min(axis=0), cone.max(axis=0)
        centre, half = (lo + hi) / 2, max(0.75 * float(np.max(hi - lo)), 0.05)
        return np.array([centre[0] - half, centre[0] + half, centre[1] - half, centre[1] + half])
    r = float(min_radius)
    ok = np.asarray(has_line, dtype=bool)
    if ok.any():  # each line's point nearest the tangent point should be visible
        N, h = np.asarray(normals, dtype=float)[ok], np.asarray(offsets, dtype=float)[ok]
        r = max(r, float(np.max(1.15 * np.abs(h) / np.linalg.norm(N, axis=1))))
    r = min(r, MAX_VIEW_RADIUS)
    return np.array([-r, r, -r, r])


def line_segment(normal, offset, box) -> np.ndarray | None:
    """The part of the line normal·p + offset = 0 inside the box (2×2), or None."""
    n = np.asarray(normal, dtype=float)
    nn = float(n @ n)
    if nn == 0:
        return None
    p0 = -offset * n / nn
    d = np.array([-n[1], n[0]]) / np.sqrt(nn)
    xmin, xmax, ymin, ymax = box
    lo, hi = -np.inf, np.inf
    for k, (a, b) in enumerate(((xmin, xmax), (ymin, ymax))):
        if abs(d[k]) < 1e-15:
            if not a <= p0[k] <= b:
                return None
            continue
        t1, t2 = (a - p0[k]) / d[k], (b - p0[k]) / d[k]
        lo, hi = max(lo, min(t1, t2)), min(hi, max(t1, t2))
    if lo >= hi:
        return None
    return np.array([p0 + lo * d, p0 + hi * d])


def line_segments(normals, offsets, box) -> tuple[np.ndarray, np.ndarray]:
    """Every line normals_i·p + offsets_i = 0 clipped to the box at once: (n×2×2 segments, n bools: inside)."""
    N = np.atleast_2d(np.asarray(normals, dtype=float))
    h = np.asarray(offsets, dtype=float).reshape(-1)
    nn = np.einsum("ij,ij->i", N, N)
    ok = nn > 0
    safe = np.where(ok, nn, 1.0)
    p0 = -(h / safe)[:, None] * N
    d = np.column_stack([-N[:, 1], N[:, 0]]) / np.sqrt(safe)[:, None]
    lo = np.full(len(N), -np.inf)
    hi = np.full(len(N), np.inf)
    for k, (a, b) in enumerate(((box[0], box[1]), (box[2], box[3]))):
        par = np.abs(d[:, k]) < 1e-15  # parallel to this slab: inside it or nowhere
        ok &= ~par | ((a <= p0[:, k]) & (p0[:, k] <= b))
        dk = np.where(par, 1.0, d[:, k])
        t1, t2 = (a - p0[:, k]) / dk, (b - p0[:, k]) / dk
        lo = np.where(par, lo, np.maximum(lo, np.minimum(t1, t2)))
        hi = np.where(par, hi, np.minimum(hi, np.maximum(t1, t2)))
    ok &= lo < hi
    lo, hi = np.where(ok, lo, 0.0), np.where(ok, hi, 0.0)
    segs = np.stack([p0 + lo[:, None] * d, p0 + hi[:, None] * d], axis=1)
    return segs, ok


def wall_indices(polygon, normals, offsets, rel_tol: float = 1e-9) -> np.ndarray:
    """Indices of the lines carrying an edge of the convex polygon (two of its vertices lie on them)."""
    P = np.asarray(polygon, dtype=float)
    N = np.atleast_2d(np.asarray(normals, dtype=float))
    if len(P) < 3 or not len(N):
        return np.zeros(0, dtype=int)
    norms = np.linalg.norm(N, axis=1)
    scale = float(np.abs(P).max()) + 1.0
    dist = np.abs(P @ N.T + np.asarray(offsets, dtype=float)[None, :]) / np.where(norms > 0, norms, np.inf)[None, :]
    return np.flatnonzero((dist < rel_tol * scale).sum(axis=0) >= 2)


# ---------------------------------------------------------------------------------------------
# The weight-space picture with two weights (1-D data)
# ---------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class LineReduction:
    """1-D data: weights a (d̂) act on the samples only through b = M a, with samples z_i = y_i (1, t_i)."""

    M: np.ndarray  # 2×d̂
    Z: np.ndarray  # n×2 normalized 1-D samples
    t: np.ndarray  # coordinate of each point along its line
    description: str


def line_reduction(Phi, y, X, term_names) -> LineReduction | None:
    """The 1-D weight plane of collinear data, or None when the picture is not 1-D.

    φ = (1, x1) is 1-D already. With φ = (1, x1, x2) and all points on one line x = x0 + t u
    (x0 the line's point nearest the origin), a·φ(x) = (a0 + a·x0) + (a·u) t, so (b0, b1) = M a.
    """
    Phi, y, X = np.asarray(Phi, float), np.asarray(y, float), np.asarray(X, float)
    names = list(term_names)
    if names == ["1", "x1"]:
        return LineReduction(np.eye(2), Phi * y[:, None], X[:, 0].copy(), "weights (a0, a1) of φ = (1, x1)")
    if names != ["1", "x1", "x2"] or len(X) == 0:
        return None
    C = X - X.mean(axis=0)
    _, s, Vt = np.linalg.svd(C, full_matrices=False)  # Vt only: never the n×n U
    spread = float(np.abs(X).max()) or 1.0
    if len(s) > 1 and s[1] > 1e-9 * spread:
        return None
    u = Vt[0] if s[0] > 1e-12 * spread else np.array([1.0, 0.0])
    if u[0] < 0 or (u[0] == 0 and u[1] < 0):
        u = -u
    normal = np.array([-u[1], u[0]])
    x0 = (X.mean(axis=0) @ normal) * normal
    t = (X - x0) @ u
    M = np.array([[1.0, x0[0], x0[1]], [0.0, u[0], u[1]]])
    Z = np.column_stack([y, y * t])
    if np.allclose(u, [1.0, 0.0]) and abs(x0[1]) < 1e-12:
        desc = "all points have x2 = 0: the weight a2 plays no part, so the picture is the (a0, a1) plane"
    else:
        desc = "the points lie on one line: b0 = a0 + a·x0 and b1 = a·u, t the position along the line"
    return LineReduction(M, Z, t, desc)


@dataclass(frozen=True)
class Cone1D:
    """The notes' 1-D picture: solution wedge, margin region a·z_i ≥ b, shortest margin vector."""

    empty: bool
    angles: tuple[float, float] | None  # the wedge's directions, degrees, lo < hi
    wedge: np.ndarray  # polygon (cone ∩ box)
    margin_region: np.ndarray  # polygon ({a·z_i ≥ b} ∩ box)
    wall_shift: np.ndarray  # b/‖z_i‖ per sample
    shortest: np.ndarray | None  # shortest a with a·z_i ≥ b ∀i
    best: np.ndarray | None  # its direction (unit)


def cone_1d(Z, b: float = 1.0, half: float = 1e4) -> Cone1D:
    """Solution wedge {a: a·z_i > 0} of 2-D samples, clipped to the box [-half, half]², and margin region."""
    Z = np.asarray(Z, dtype=float)
    box = box_polygon(-half, half, -half, half)
    shift = wall_offsets(Z, b)
    extent = cone_extent_2d(Z)
    try:
        shortest = shortest_margin_vector(Z, b) if extent is not None else None
    except RuntimeError:  # the QP failed (columns 1 and t ~ 1e6 apart): no cone drawn; the view asks the exact LP
        shortest = None
    if extent is None or shortest is None:
        e = np.zeros((0, 2))
        return Cone1D(True, None, e, e, shift, None, None)
    wedge = region(Z, np.zeros(len(Z)), box)
    margin = region(Z, -b * np.ones(len(Z)), box)
    return Cone1D(False, extent, wedge, margin, shift, shortest, shortest / np.linalg.norm(shortest))


# ---------------------------------------------------------------------------------------------
# Feature space: the embedding of y_i φ̃(x_i) from G, the hull, the min-norm point
# ---------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Embedding:
    """Coordinates (n×k) with coords @ coords.T = G when exact, else the top-k principal part."""

    coords: np.ndarray
    rank: int
    exact: bool
    captured: float  # fraction of trace(G) the k components carry
    eigenvalues: np.ndarray = field(repr=False)
    estimated: bool = False  # the components come from a randomized eigensolver (large n)

    @property
    def dim(self) -> int:
        return int(self.coords.shape[1])

    def combine(self, weights) -> np.ndarray:
        """Coordinates of Σ w_i y_i φ̃(x_i) (exact when the embedding is; else its projection)."""
        return np.asarray(weights, dtype=float) @ self.coords

    def title(self) -> str:
        if self.exact:
            return f"exact (rank r = {self.rank} ≤ 3)"
        how = " (randomized estimate)" if self.estimated else ""
        return f"approximate: top {self.dim} components{how} capture {100 * self.captured:.1f}% of trace"


#: Above this many points the embedding uses a randomized eigensolver instead of a full eigh (O(n³)).
PARTIAL_EIGEN_N = 1500


class Cancelled(Exception):
    """A background computation was told to stop."""


def _check(cancelled) -> None:
    if cancelled is not None and cancelled():
        raise Cancelled()


def top_eigenpairs(G, k: int, power_iters: int = 4, oversample: int = 10, seed: int = 0, cancelled=None):
    """The k largest eigenpairs of a PSD matrix by a randomized range finder with power iterations.

    Halko, Martinsson & Tropp (2011), Alg. 4.4 + 5.3: Q spans (G)^q Ω, then the eigenpairs of QᵀGQ. Cost
    O(n² (k + p) q) instead of O(n³); exact (to rounding) when rank G ≤ k + p.
    """
    n = G.shape[0]
    m = min(n, k + oversample)
    rng = np.random.default_rng(seed)
    Q = np.linalg.qr(G @ rng.standard_normal((n, m)))[0]
    for _ in range(power_iters):
        _check(cancelled)
        Q = np.linalg.qr(G @ Q)[0]
    B = Q.T @ G @ Q
    w, U = np.linalg.eigh(0.5 * (B + B.T))
    w, U = w[::-1], U[:, ::-1]
    return w, Q @ U


def embed_gram(G, max_dim: int = 3, rel_tol: float = 1e-10, partial: bool | None = None, cancelled=None) -> Embedding:
    """Embed points with Gram matrix G: G = V Λ Vᵀ, coords = V_k √Λ_k for the k largest eigenvalues.

    partial (default: n > PARTIAL_EIGEN_N) takes the top eigenpairs from `top_eigenpairs`; rank and
    exactness are then judged from the max_dim + 10 leading eigenvalues it estimates.
    """
    G = np.asarray(G, dtype=float)
    G = 0.5 * (G + G.T)
    if partial is None:
        partial = G.shape[0] > PARTIAL_EIGEN_N
    if partial:
        w, V = top_eigenpairs(G, max_dim, cancelled=cancelled)
    else:
        w, V = np.linalg.eigh(G)
        w, V = w[::-1], V[:, ::-1]
    _check(cancelled)
    top = float(max(w[0], 0.0)) if len(w) else 0.0
    rank = int(np.sum(w > rel_tol * max(top, 1e-300)))
    exact = rank <= max_dim
    k = max(1, min(rank, max_dim)) if exact else max_dim
    k = min(k, len(w))
    lam = np.clip(w[:k], 0.0, None)
    coords = V[:, :k] * np.sqrt(lam)[None, :]
    # Deterministic signs: the largest |coordinate| of each axis is positive.
    flip = np.sign(coords[np.argmax(np.abs(coords), axis=0), np.arange(k)])
    coords = coords * np.where(flip == 0, 1.0, flip)[None, :]
    trace = float(np.trace(G))
    captured = float(lam.sum() / trace) if trace > 0 else 1.0
    if k < 2:  # draw in a plane even when every point is on one line
        coords = np.column_stack([coords, np.zeros(len(coords))])
    return Embedding(coords, rank, exact, min(captured, 1.0), w, bool(partial and not exact))


@dataclass(frozen=True)
class Hull:
    """Convex hull of embedded points: affine dimension, boundary edges (index pairs), faces (index lists)."""

    dim: int
    vertices: np.ndarray  # indices of hull vertices
    edges: list[tuple[int, int]]
    faces: list[np.ndarray]  # 3-D: triangles (outward normals not needed); 2-D: one polygon in order


def convex_hull(P) -> Hull:
    """The hull of points in 2-D or 3-D, handling coincident, collinear and coplanar points."""
    P = np.asarray(P, dtype=float)
    n = len(P)
    if n == 0:
        return Hull(-1, np.zeros(0, int), [], [])
    centre = P.mean(axis=0)
    C = P - centre
    scale = float(np.abs(C).max()) if n else 0.0
    if scale < 1e-12:
        return Hull(0, np.array([0]), [], [])
    from scipy.spatial import ConvexHull, QhullError  # imported here: it adds ~0.5 s to the app's launch

    _, s, Vt = np.linalg.svd(C, full_matrices=False)
    adim = int(np.sum(s > 1e-9 * max(s[0], 1e-300)))
    if adim == 1:
        t = C @ Vt[0]
        i, j = int(np.argmin(t)), int(np.argmax(t))
        return Hull(1, np.array([i, j]), [(i, j)], [])
    if adim == 2:
        Q = C @ Vt[:2].T
        try:
            h = ConvexHull(Q)
        except QhullError:
            h = ConvexHull(Q, qhull_options="QJ")
        order = np.asarray(h.vertices)
        edges = [(int(order[k]), int(order[(k + 1) % len(order)])) for k in range(len(order))]
        return Hull(2, order, edges, [order])
    try:
        h = ConvexHull(P)
    except QhullError:
        h = ConvexHull(P, qhull_options="QJ")
    faces = [np.asarray(s_) for s_ in h.simplices]
    edge_set: set[tuple[int, int]] = set()
    # Draw only edges between non-coplanar facets, so flat faces split into triangles show no diagonals.
    for f, nbrs in enumerate(h.neighbors):
        for k, g in enumerate(nbrs):
            if g < f:
                continue
            if abs(float(h.equations[f][:3] @ h.equations[g][:3]) - 1.0) < 1e-9:
                continue
            a, b = (int(v) for v in np.delete(h.simplices[f], k))
            edge_set.add((min(a, b), max(a, b)))
    return Hull(3, np.asarray(h.vertices), sorted(edge_set), faces)


@dataclass(frozen=True)
class FeaturePicture:
    """The Gordan picture: embedding, hull, min-norm point (its weights p*, norm ρ_K or 0)."""

    embedding: Embedding
    hull: Hull
    min_norm: MinNormPoint | None  # None while it is still being computed
    min_point: np.ndarray | None  # embedded coordinates of the min-norm point

    def with_min_norm(self, mnp: MinNormPoint) -> "FeaturePicture":
        """The same picture with its min-norm point filled in."""
        return FeaturePicture(self.embedding, self.hull, mnp, self.embedding.combine(mnp.p))


def feature_picture(G, max_dim: int = 3, witness: MinNormPoint | None = None, min_norm: bool = True,
                    cancelled=None) -> FeaturePicture:
    """Embed G's points, hull them, and find the hull's point nearest the origin (in the full space).

    `witness` may bring that point from elsewhere (e.g. `percviz.core.gram.optimal_margin`, memoized on
    the problem): Wolfe's algorithm is quick at low rank but slow when G has high rank and most points
    are support vectors.
    """
    emb = embed_gram(G, max_dim, cancelled=cancelled)
    hull = convex_hull(emb.coords)
    _check(cancelled)
    pic = FeaturePicture(emb, hull, None, None)
    if witness is not None:
        return pic.with_min_norm(witness)
    return pic.with_min_norm(min_norm_point(G)) if min_norm else pic
