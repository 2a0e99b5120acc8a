"""The former ρ_K method, kept as a reference for the benchmark and the tests: exact steps on a factor B of G.

  1. the max-margin cone program max t s.t. B w ≥ t·1, ‖w‖ ≤ 1 (Clarabel), its multipliers polished on their
     active set as the witness p;
  2. otherwise an LP (HiGHS) max t s.t. B w ≥ t·1, −1 ≤ w ≤ 1 decides separability;
  3. when not separable, a Gordan witness from an LP vertex and the hull's inradius (gram._hull_margin).
Its verdicts are read on the factor B (eigenvalues of G near rounding dropped), not on G: percviz.core.gram's
optimal_margin decides on G itself. Every LP here has a time limit (LP_TIME_LIMIT), so a run always ends.
"""

from __future__ import annotations

import numpy as np

from percviz.core.gram import EPS, MarginResult, _hull_margin, _linprog, _origin_on_boundary, signed_factor

#: Seconds each HiGHS call may take (the Gordan-witness LP ran > 900 s at n = 200 without one).
LP_TIME_LIMIT = 60.0


def reference_margin(problem) -> MarginResult:
    """ρ_K of a Problem by the former method (the cone program on the eigen-factor of G); not memoized."""
    return cone_margin_of_factor(signed_factor(problem))


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
        options={"primal_feasibility_tolerance": 1e-10, "dual_feasibility_tolerance": 1e-10, "time_limit": LP_TIME_LIMIT},
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
    res = _linprog(np.zeros(n), A_eq=A_eq, b_eq=b_eq, bounds=[(0, None)] * n, method="highs-ds",
                   options={"time_limit": LP_TIME_LIMIT})
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


def cone_margin_of_factor(B: np.ndarray) -> MarginResult:
    """The optimal margin of the factor rows B by the cone program, its LPs and the hull (the former method)."""
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
