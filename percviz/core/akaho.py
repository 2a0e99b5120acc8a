"""Akaho's input-space margin maximization (seed 001, eqs. 3–18): one outer step of the reconstructed Algorithm 1.

ω̂ = Σ_j {â_j φ(x̂_j) + b̂_jᵀ ψ(x̂_j)} with ψ = ∇φ, and f(x) = ω̂·φ(x) + f₀ (a DerivativeExpansion). A step:
  1. the temporaries p̂, q̂, r̂, ĝ (6) and ŝ, t̂, û at the current projection points x̂ (d̂_i = x̂_i − x_i);
  2. the kernel-form dual (8)–(9), maximize Σ ĝ_i α_i − ½ αᵀQα, α ≥ 0 (≤ C for the soft margin), Σ y_i α_i = 0,
     by the SVM's Clarabel QP;
  3. the new coefficients (10) and the bias (11), on the bases x̂;
  4. the projection points x̂_i refined by (12) under the new f;
  5. ω re-projected onto the new bases x̂ (restricted to the support vectors) by least squares (18).

The fragment lacks the box of Algorithm 1; the choices made here (said again in docs/input-space.md):
  - the soft margin is the box 0 ≤ α_i ≤ C on the same dual (slacks on the linearized constraint (5));
  - the bias (11) is averaged over the free support vectors (0 < α_i < C), or taken from the QP's multiplier
    of Σ y_i α_i = 0 when there is none (the two agree on free support vectors);
  - β in (10) uses G_j (the fragment prints G_i inside a sum over j);
  - (12) moves along G_i⁻¹q̂_i, the G-metric foot of the linearized curve (the fragment prints q̂_i; both are
    the same for the identity metric);
  - the support vectors kept by (18) are J_0 ∪ … ∪ J_k (α_i > 1e-7 max α at some step), the union the text
    bounds the count by;
  - a tiny ridge (1e-10 of the mean diagonal) keeps the Gram matrix Q of the v_i positive definite for Clarabel.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import scipy.linalg

from percviz.core.batched_eval import evaluator, hessian
from percviz.core.decision import DerivativeExpansion
from percviz.core.kernel_derivatives import K_xy, k_x
from percviz.core.kernels import Kernel

#: α_i above this fraction of max α makes x_i a support vector of the step (interior-point α are never 0).
SV_FRACTION = 1e-7


@dataclass(frozen=True)
class Omega:
    """ω̂ = Σ_j {a_j φ(B_j) + b_jᵀ ψ(B_j)} and the bias f₀."""

    bases: np.ndarray
    a: np.ndarray
    b: np.ndarray
    f0: float

    def decision(self, kernel: Kernel, rkhs_norm: float | None = None) -> DerivativeExpansion:
        return DerivativeExpansion(kernel, self.bases, self.a, self.b, self.f0, rkhs_norm)


@dataclass(frozen=True)
class Temporaries:
    """What the dual (8) needs at the current x̂: p̂, q̂, r̂, ĝ, ‖q̂_i‖²_{G⁻¹}, G⁻¹q̂ and Q_ij = v_i·v_j."""

    p: np.ndarray
    q: np.ndarray
    r: float
    g: np.ndarray
    qq: np.ndarray
    Gq: np.ndarray
    Q: np.ndarray


def temporaries(kernel: Kernel, X, Xh, omega: Omega, y, Ginv) -> Temporaries:
    """The temporaries of §3.2–3.3 at x̂ = Xh (ω̂ must have its bases at Xh)."""
    X, Xh, y = np.asarray(X, float), np.asarray(Xh, float), np.asarray(y, float)
    a, b = omega.a, omega.b
    d = Xh - X
    K = kernel(Xh, Xh)
    kx = k_x(kernel, Xh, Xh)  # kx[i, j] = ∂k(x̂_i, x̂_j)/∂x̂_i = ψ(x̂_i)·φ(x̂_j)
    Kxy = K_xy(kernel, Xh, Xh)  # Kxy[i, j] = ψ(x̂_i)·ψ(x̂_j)ᵀ
    p = K @ a + np.einsum("jid,jd->i", kx, b)
    q = np.einsum("ijd,j->id", kx, a) + np.einsum("ijab,jb->ia", Kxy, b)
    r = float(a @ p + np.einsum("id,id->", b, q))
    Gq = np.einsum("iab,ib->ia", Ginv, q)
    qq = np.einsum("ia,ia->i", q, Gq)
    g = np.sqrt(np.maximum(qq, 0.0) / r)  # (6)
    s = K + np.einsum("ia,ijab,jb->ij", d, Kxy, d) - np.einsum("ia,ija->ij", d, kx) - np.einsum("ja,jia->ij", d, kx)
    t = (
        np.einsum("ia,ija->ij", Gq, kx)
        - np.einsum("ia,ijab,jb->ij", Gq, Kxy, d)
        - (qq / r)[:, None] * (p - np.einsum("jd,jd->j", d, q))[None, :]
    ) / (g * r)[:, None]
    u = (np.einsum("ia,ijab,jb->ij", Gq, Kxy, Gq) - np.outer(qq, qq) / r) / (np.outer(g, g) * r * r)
    Q = np.outer(y, y) * s - y[None, :] * t - y[:, None] * t.T + u  # (8)
    Q = 0.5 * (Q + Q.T)
    return Temporaries(p, q, r, g, qq, Gq, Q)


@dataclass(frozen=True)
class DualStep:
    """The solution of (8)–(9) and the new ω (10)–(11), still on the bases x̂ of the step."""

    alpha: np.ndarray
    omega: Omega
    objective: float
    status: str
    support: np.ndarray
    qp_bias: float  # the QP's multiplier of Σ y_i α_i = 0 (equals f₀ of (11) on free support vectors)


def solve_on_working_set(Q, g, y, C: float | None, start):
    """The dual (8)–(9) solved by Clarabel on a working set W (chunking, as svm.solve_on_working_set), or None.

    Outside W α_i = 0 is optimal when ∂W/∂α_i = ĝ_i − (Qα)_i − y_i z₀ ≤ tol (z₀ the multiplier of Σ y_i α_i = 0);
    the most violated points join W and the QP on W is solved again until none is left, so that α meets the KKT
    conditions of the whole dual. None when W does not settle (the whole QP is solved then).
    """
    from percviz.core.dual_qp import MAX_JOINING, MAX_WORKING_ROUNDS, MAX_WORKING_SHARE, QPIterate, solve_dual

    n = len(y)
    W = np.zeros(n, dtype=bool)
    W[np.asarray(start, dtype=int)] = True
    tol = 1e-7 * max(1.0, float(np.abs(g).max(initial=0.0)))
    for _ in range(MAX_WORKING_ROUNDS):
        idx = np.flatnonzero(W)
        if len(idx) > MAX_WORKING_SHARE * n or len(np.unique(y[idx])) < 2:
            return None
        sub = Q[np.ix_(idx, idx)]
        qp = solve_dual(np.outer(y[idx], y[idx]) * sub, y[idx], C, linear=g[idx])
        if qp.status not in ("Solved", "AlmostSolved"):
            return None
        alpha = np.zeros(n)
        alpha[idx] = np.maximum(qp.alpha, 0.0)
        gain = g - Q[:, idx] @ alpha[idx] - y * qp.bias
        violated = ~W & (gain > tol)
        if not violated.any():
            return QPIterate(alpha, qp.bias, qp.status, qp.iterations)
        worst = np.flatnonzero(violated)
        W[worst[np.argsort(-gain[worst])[:MAX_JOINING]]] = True
    return None


def solve_step(kernel: Kernel, Xh, y, omega: Omega, tmp: Temporaries, C: float | None, X, start=None) -> DualStep:
    """Solve the kernel-form dual with the SVM's Clarabel QP, then apply (10) and (11).

    `start` (indices, Live's warm start): the QP is solved on a working set grown from them, checked against the
    whole dual's KKT conditions (solve_on_working_set); the whole QP when that does not settle.
    """
    from percviz.core.dual_qp import solve_dual

    y = np.asarray(y, float)
    n = len(y)
    Q = tmp.Q + np.eye(n) * (1e-10 * max(float(np.mean(np.diag(tmp.Q))), 1e-300))
    sol = solve_on_working_set(Q, tmp.g, y, C, start) if start is not None and len(start) else None
    if sol is None:
        # solve_dual builds y_i y_j K_ij: hand it K = y y Q so that its quadratic form is exactly Q
        sol = solve_dual(np.outer(y, y) * Q, y, C, linear=tmp.g)
    alpha = np.maximum(sol.alpha, 0.0)
    if C is not None:
        alpha = np.minimum(alpha, C)
    a_new, b_new = update_coefficients(alpha, y, np.asarray(Xh, float) - np.asarray(X, float), omega, tmp)
    top = float(alpha.max(initial=0.0))
    support = alpha > SV_FRACTION * top if top > 0 else np.zeros(n, dtype=bool)
    free = support & (alpha < (C * (1 - 1e-6) if C is not None else np.inf)) & (alpha > 1e-6 * top)
    Qa = tmp.Q @ alpha
    f0 = float(np.mean(y[free] * (tmp.g[free] - Qa[free]))) if free.any() else sol.bias  # (11)
    objective = float(tmp.g @ alpha - 0.5 * alpha @ tmp.Q @ alpha)
    return DualStep(alpha, Omega(np.array(Xh, float), a_new, b_new, f0), objective, sol.status, support, sol.bias)


def update_coefficients(alpha, y, d, omega: Omega, tmp: Temporaries) -> tuple[np.ndarray, np.ndarray]:
    """(10): ω = Σ_i α_i v_i written on the bases, a_i = α_i y_i + β â_i, b_i = −α_i(y_i d̂_i + G⁻¹q̂_i/(ĝ_i r̂)) + β b̂_i."""
    alpha, y = np.asarray(alpha, float), np.asarray(y, float)
    beta = float(np.sum(alpha * tmp.qq / (tmp.g * tmp.r * tmp.r)))
    a_new = alpha * y + beta * omega.a
    b_new = -alpha[:, None] * (y[:, None] * d + tmp.Gq / (tmp.g * tmp.r)[:, None]) + beta * omega.b
    return a_new, b_new


def reproject(kernel: Kernel, omega: Omega, new_bases, keep, X) -> tuple[Omega, float]:
    """(18): ω̂ on the bases new_bases[keep] fitting f_old on T = {x_i, x̂_old, x̂_new} by least squares.

    Returns the new ω̂ (zero coefficients outside `keep`) and the RMS misfit on T relative to the RMS of f_old.
    """
    new_bases = np.asarray(new_bases, float)
    T = np.concatenate([np.asarray(X, float), omega.bases, new_bases])
    target = omega.decision(kernel)(T)
    idx = np.flatnonzero(keep)
    B = new_bases[idx]
    n, dim = new_bases.shape
    cols = [kernel(T, B), np.transpose(k_x(kernel, B, T), (1, 0, 2)).reshape(len(T), -1), np.ones((len(T), 1))]
    A = np.concatenate(cols, axis=1)
    coef = scipy.linalg.lstsq(A, target, cond=1e-9, lapack_driver="gelsy")[0]
    a = np.zeros(n)
    b = np.zeros((n, dim))
    a[idx] = coef[: len(idx)]
    b[idx] = coef[len(idx) : len(idx) * (1 + dim)].reshape(len(idx), dim)
    misfit = float(np.sqrt(np.mean((A @ coef - target) ** 2)) / max(np.sqrt(np.mean(target**2)), 1e-300))
    return Omega(new_bases.copy(), a, b, float(coef[-1])), misfit


def rkhs_norm_sq(kernel: Kernel, omega: Omega) -> float:
    """‖ω‖² = Σ_i (a_i p_i + b_i·q_i) with p, q at the bases (r̂ of §3.3): p_i = f(x̂_i) − f₀ and q_i = ∇f(x̂_i)."""
    active = (omega.a != 0) | (omega.b != 0).any(axis=1)  # the other bases add 0
    if not active.any():
        return 0.0
    f, q = evaluator(omega.decision(kernel))(omega.bases[active])
    return float(omega.a[active] @ (f - omega.f0) + np.einsum("id,id->", omega.b[active], q))


def linearized_distances(decision, X, Xh, y, Ginv) -> np.ndarray:
    """y_i (3): the signed linearized G-distance y_i (f(x̂_i) − ∇f(x̂_i)·d̂_i)/‖∇f(x̂_i)‖_{G⁻¹}."""
    X, Xh = np.asarray(X, float), np.asarray(Xh, float)
    f, g = decision.value_and_gradient(Xh)
    norm = np.sqrt(np.maximum(np.einsum("ia,iab,ib->i", g, Ginv, g), 1e-300))
    return np.asarray(y, float) * (f - np.einsum("ia,ia->i", g, Xh - X)) / norm


def unstable_feet(decision, X, feet) -> np.ndarray:
    """(13)–(17): True where the foot is an unstable equilibrium of (12), |c_j| ≥ |λ| for a tangent curvature c_j."""
    X, feet = np.asarray(X, float), np.asarray(feet, float)
    d = feet - X
    dn = np.linalg.norm(d, axis=1)
    out = np.zeros(len(X), dtype=bool)
    live = np.flatnonzero(dn > 1e-9 * (1.0 + np.abs(X).max(axis=1)))
    if live.size == 0:
        return out
    g = evaluator(decision)(feet[live])[1]
    H = hessian(decision, feet[live])
    u = d[live] / dn[live, None]
    lam = np.einsum("ia,ia->i", g, u) / dn[live]  # ∇f = λ d (13)
    dim = X.shape[1]
    if dim < 2:
        return out
    # all feet at once: an orthonormal basis whose first column is ±u (QR of [u, I]), its other columns T span
    # the tangent space, and the c_j of (16) are the eigenvalues of Tᵀ ∇²f T
    M = np.concatenate([u[:, :, None], np.broadcast_to(np.eye(dim), (len(live), dim, dim))], axis=2)
    T = np.linalg.qr(M)[0][:, :, 1:dim]
    c = np.linalg.eigvalsh(np.transpose(T, (0, 2, 1)) @ H @ T)  # batched products: O(n d³), not einsum's O(n d⁴)
    out[live] = np.max(np.abs(c), axis=1) >= np.abs(lam)
    return out
