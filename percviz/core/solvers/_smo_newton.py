"""Newton steps on the free coefficients of the SVM dual: the polish of SMO's warm start after a small edit.

After an edit the previous optimum is close in α, but SMO's pair updates converge only linearly near the end
(most pairs are spent taking the KKT violation from 1e-2 down to tol). On a face of the box — the coefficients of
a working set W move, the others stay at their bounds — the dual is an equality-constrained quadratic and its
minimum is one linear solve. With u_s the change of v_s = y_s α_s (s ∈ W), F = y − Kv and b the multiplier of
Σ_t v_t = 0, the optimality conditions on the face read
    K_WW u + b·1 = F_W,   1ᵀu = 0                                   (the bordered KKT system)
(at the optimum every free F_s equals the bias b). The step along u is exact (the objective is quadratic) and
stops at the first coefficient that reaches a bound, which then leaves W (a primal active-set method); after a
full step the points at a bound whose KKT condition fails against b (F_t > b where v_t can grow, F_t < b where
it can shrink) join W. Every iterate is feasible and the objective never rises, so SMO can take over at any
point, and its own stopping rule decides.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np


def newton_polish(
    column: Callable[[int], np.ndarray],
    y: np.ndarray,
    alpha: np.ndarray,
    F: np.ndarray,
    C: float,
    tol: float,
    *,
    max_rounds: int = 40,
    max_set: int = 600,
) -> int:
    """Improve the feasible (alpha, F) in place by active-set Newton steps; return the number of linear solves.

    `column(i)` is the kernel column K(·, x_i); F must be y − K(y∘α). Stops when the KKT violation m − M is
    below `tol`, after `max_rounds` solves, or when the working set would exceed `max_set` coefficients.
    """
    pos = y > 0
    up = np.where(pos, alpha < C, alpha > 0)  # v_t can grow
    low = np.where(pos, alpha > 0, alpha < C)  # v_t can shrink
    i, j = int(np.where(up, F, -np.inf).argmax()), int(np.where(low, F, np.inf).argmin())
    if F[i] - F[j] < tol:
        return 0
    work = np.flatnonzero(up & low)  # the free coefficients
    if work.size < 2:  # nothing to solve on: the most violating pair joins (SMO's first choice)
        work = np.union1d(work, [i, j])
    cols = np.column_stack([column(int(s)) for s in work])  # K(·, x_s) for s in W, kept in step with W
    stuck = np.zeros(len(y), dtype=bool)  # dropped without a step since the last step: not to rejoin yet
    solves = 0
    while solves < max_rounds and work.size <= max_set:
        if work.size < 2:  # the most violating pair joins again (the affine kernel keeps few free coefficients)
            up = np.where(pos, alpha < C, alpha > 0)
            low = np.where(pos, alpha > 0, alpha < C)
            i, j = int(np.where(up, F, -np.inf).argmax()), int(np.where(low, F, np.inf).argmin())
            if F[i] - F[j] < tol:
                break
            new = np.setdiff1d([i, j], work)
            work, cols = np.append(work, new), np.column_stack([cols, *(column(int(t)) for t in new)])
            if work.size < 2:
                break
        k = work.size
        A = np.ones((k + 1, k + 1))
        A[:k, :k] = cols[work]
        A[k, k] = 0.0
        solves += 1
        Fw = F[work]
        u, b = _direction(A, np.append(Fw, 0.0))
        u -= u.mean()  # Σ u = 0 exactly, whatever the rounding of the solve: the step keeps yᵀα = 0
        slope = float(Fw @ u)  # the objective ½vᵀKv − Σα falls at rate Fᵀu along u
        if slope > 0:
            curv = float(u @ (A[:k, :k] @ u))
            step = slope / curv if curv > 1e-12 * slope else np.inf  # exact line search (1 for a Newton step)
            da = y[work] * u
            aw = alpha[work]
            with np.errstate(divide="ignore", invalid="ignore"):
                room = np.where(da > 0, (C - aw) / da, np.where(da < 0, aw / -da, np.inf))
            step = min(step, float(room.min()))
            if not np.isfinite(step):
                break  # unbounded along u (hard margin without a solution): SMO reports it
            alpha[work] = aw + step * da
            F -= cols @ (step * u)
            # coefficients that reached a bound, or came within rounding of one (relative to the operands, as in
            # the pair loop: a 1e-17 left by aw + step·da is not a support vector), are put on it and leave W
            new = alpha[work]
            low, top = 1e-14 * np.maximum(np.abs(aw), np.abs(step * da)), (1e-14 * C if C < np.inf else 0.0)
            at_c = ((room <= step) & (da > 0)) | (new >= C - top)
            at_0 = (((room <= step) & (da < 0)) | (new <= low)) & ~at_c
            hit = at_c | at_0
            if hit.any():
                alpha[work[at_c]] = C
                alpha[work[at_0]] = 0.0
                if step > 0:
                    stuck[:] = False
                stuck[work[hit]] = step == 0
                work, cols = work[~hit], cols[:, ~hit]
                continue
            stuck[:] = False
            if b is None:  # the line search ended inside along a ray: solve again on the same set
                continue
        if b is None:
            break
        # the point at a bound that violates its KKT condition most against b joins W (none: optimal to tol)
        up = np.where(pos, alpha < C, alpha > 0)
        low = np.where(pos, alpha > 0, alpha < C)
        excess = np.maximum(np.where(up, F - b, -np.inf), np.where(low, b - F, -np.inf))
        excess[(up & low) | stuck] = -np.inf
        excess[work] = -np.inf
        t = int(excess.argmax())
        if not excess[t] > 0.5 * tol:
            break
        work, cols = np.append(work, t), np.column_stack([cols, column(t)])
    np.clip(alpha, 0.0, C, out=alpha)
    return solves


def _direction(A: np.ndarray, rhs: np.ndarray) -> tuple[np.ndarray, float | None]:
    """(u, b) from the bordered system A [u; b] = rhs (b = None along a ray).

    By LU when K_WW is regular (RBF kernels). When it is singular (the affine kernel has rank 3; repeated or
    close points) and rhs has a part in A's null space, the quadratic of the face is flat along that part and
    falls without bound: u is then that part, scaled to a largest entry of 1 (the step then goes to the first
    bound); else the minimum-norm solution. Both by the eigendecomposition of the symmetric A.
    """
    k = len(rhs) - 1
    scale = 1.0 + float(np.abs(rhs).max())
    try:
        sol = np.linalg.solve(A, rhs)
        if np.isfinite(sol).all() and float(np.abs(A @ sol - rhs).max()) <= 1e-10 * scale:
            return sol[:k], float(sol[k])
    except np.linalg.LinAlgError:
        pass
    lam, V = np.linalg.eigh(A)
    coef = V.T @ rhs
    null = np.abs(lam) <= 1e-10 * float(np.abs(lam).max())
    flat = (V[:, null] @ coef[null])[:k]
    size = float(np.abs(flat).max(initial=0.0))
    if size > 1e-10 * scale:
        return flat / size, None
    sol = V[:, ~null] @ (coef[~null] / lam[~null])
    return sol[:k], float(sol[k])
