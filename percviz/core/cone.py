"""Geometry of the solution region {a : a·y_i > 0} in weight space (DHS §5.4): cone extent, walls, margin vector."""

from __future__ import annotations

import numpy as np

from percviz.core.errors import DataError


def _rows(Y, dim: int | None = None) -> np.ndarray:
    Y = np.atleast_2d(np.asarray(Y, dtype=float))
    if dim is not None and Y.shape[1] != dim:
        raise DataError(f"Expected normalized samples with {dim} components; got shape {Y.shape}.")
    if Y.shape[0] == 0:
        raise DataError("The solution region needs at least one sample.")
    return Y


def cone_extent_2d(Y) -> tuple[float, float] | None:
    """The open arc of directions θ (degrees) of a with a·y_i > 0 for all rows y_i ∈ R², or None if empty.

    Each sample allows the open half-circle (φ_i − 90°, φ_i + 90°), φ_i its angle; the arc is their
    intersection. lo lies in (−180°, 180°] and hi = lo + width (so hi may pass 180° when the arc wraps).
    """
    Y = _rows(Y, 2)
    if (np.linalg.norm(Y, axis=1) == 0).any():
        return None  # a·0 = 0 is never > 0
    phi = np.degrees(np.arctan2(Y[:, 1], Y[:, 0]))
    cand = np.sort(np.mod(np.r_[phi - 90.0, phi + 90.0], 360.0))
    gaps = np.r_[cand, cand[0] + 360.0]
    inside = []
    for lo, hi in zip(gaps[:-1], gaps[1:]):
        if hi - lo <= 1e-12:
            continue
        mid = np.radians(0.5 * (lo + hi))
        if (Y @ np.array([np.cos(mid), np.sin(mid)]) > 0).all():
            inside.append((lo, hi))
    if not inside:
        return None
    # The allowed arc is shorter than 180°, so its gaps are consecutive (possibly across 360°).
    if len(inside) > 1 and inside[0][0] == gaps[0] and inside[-1][1] == gaps[-1]:
        k = next(i for i in range(1, len(inside)) if inside[i][0] != inside[i - 1][1])
        inside = inside[k:] + [(lo + 360.0, hi + 360.0) for lo, hi in inside[:k]]
    lo, hi = inside[0][0], inside[-1][1]
    shift = 360.0 * np.floor((lo + 180.0) / 360.0)
    if lo - shift <= -180.0:
        shift -= 360.0
    return float(lo - shift), float(hi - shift)


def wall_offsets(Y, b: float = 1.0) -> np.ndarray:
    """How far each wall a·y_i = 0 moves inward for the margin region a·y_i ≥ b: b/‖y_i‖."""
    return b / np.linalg.norm(_rows(Y), axis=1)


def shortest_margin_vector(Y, b=1.0) -> np.ndarray | None:
    """The shortest a with a·y_i ≥ b_i for all i (a QP), or None when no such a exists (not separable).

    Clarabel solves it; the active set it finds is then solved exactly (min-norm a with a·y_i = b_i
    there) and kept when it satisfies the KKT conditions, so simple cases come out exact.
    """
    import clarabel
    import scipy.sparse as sp

    Y = _rows(Y)
    n, d = Y.shape
    bv = np.broadcast_to(np.asarray(b, dtype=float), (n,)).copy()
    if not (bv > 0).all():
        raise DataError("The margins b_i must be positive.")
    scale = max(float(np.abs(Y).max()), 1e-300)
    Ys = Y / scale  # a·y ≥ b ⇔ (scale·a)·(y/scale) ≥ b
    settings = clarabel.DefaultSettings()
    settings.verbose = False
    settings.tol_gap_abs = 1e-12
    settings.tol_gap_rel = 1e-12
    settings.tol_feas = 1e-12
    settings.max_iter = 400
    sol = clarabel.DefaultSolver(
        sp.identity(d, format="csc"),
        np.zeros(d),
        sp.csc_matrix(-Ys),
        -bv,
        [clarabel.NonnegativeConeT(n)],
        settings,
    ).solve()
    status = str(sol.status)
    if "Infeasible" in status:
        return None
    if "Solved" not in status:
        raise RuntimeError(f"the margin-vector QP failed ({status})")
    a = np.asarray(sol.x, dtype=float) / scale
    return _polish(Y, bv, a)


def _polish(Y: np.ndarray, b: np.ndarray, a: np.ndarray) -> np.ndarray:
    """Re-solve on the active set exactly; keep it if feasible with nonnegative multipliers."""
    slack = Y @ a - b
    act = np.flatnonzero(slack <= 1e-7 * np.maximum(1.0, np.abs(b)))
    if act.size == 0:
        return a
    YA = Y[act]
    lam = np.linalg.lstsq(YA @ YA.T, b[act], rcond=None)[0]
    exact = YA.T @ lam
    ok = (Y @ exact >= b - 1e-12 * np.maximum(1.0, np.abs(b))).all() and (lam >= -1e-12).all()
    return exact if ok and np.linalg.norm(exact) <= np.linalg.norm(a) * (1 + 1e-9) else a


def cone_rays_3d(Y, tol: float = 1e-12) -> np.ndarray:
    """Unit extreme rays of the closed cone {a ∈ R³ : a·y_i ≥ 0}, in cyclic order (empty when it is a ray or {0}).

    Candidates are the lines y_i × y_j where two walls meet; a ray is kept when it satisfies every
    constraint. For a pointed cone with interior, consecutive rays span its faces.
    """
    Y = _rows(Y, 3)
    norms = np.linalg.norm(Y, axis=1)
    Yn = Y[norms > 0] / norms[norms > 0, None]
    i, j = np.triu_indices(len(Yn), 1)
    C = np.cross(Yn[i], Yn[j])
    cn = np.linalg.norm(C, axis=1)
    C = C[cn > 1e-12] / cn[cn > 1e-12, None]
    C = np.vstack([C, -C])
    ok = (C @ Yn.T >= -tol * 1e3).all(axis=1)
    R = C[ok]
    if len(R) == 0:
        return np.empty((0, 3))
    uniq: list[np.ndarray] = []
    for r in R:
        if not any(np.linalg.norm(r - u) < 1e-9 for u in uniq):
            uniq.append(r)
    R = np.array(uniq)
    c = R.sum(axis=0)
    if np.linalg.norm(c) < 1e-12:
        return R
    c /= np.linalg.norm(c)
    e1 = np.cross(c, [1.0, 0, 0] if abs(c[0]) < 0.9 else [0, 1.0, 0])
    e1 /= np.linalg.norm(e1)
    e2 = np.cross(c, e1)
    order = np.argsort(np.arctan2(R @ e2, R @ e1))
    return R[order]
