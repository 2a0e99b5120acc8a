"""f and ∇f of a decision function at many small batches of points, with the per-call set-up paid once.

The projection (12) evaluates (f, ∇f) at the few still-moving points hundreds of times; the decision's own
value_and_gradient re-selects its active bases and re-checks its kernel on every call. `evaluator(decision)`
does that once and returns a function Z ↦ (f, ∇f) that performs the same arithmetic as
DerivativeExpansion.value_and_gradient for the RBF and polynomial kernels (so the iterates of (12) are today's:
later outer steps amplify rounding differences), one kernel matrix for a KernelExpansion with the RBF kernel,
and the decision's own method otherwise.
"""

from __future__ import annotations

from typing import Callable

import numpy as np

from percviz.core._projection_tail import compiled_rbf_glue
from percviz.core.decision import DecisionFunction, DerivativeExpansion, KernelExpansion
from percviz.core.kernels import PolynomialKernel, RBFKernel

FG = Callable[[np.ndarray], tuple[np.ndarray, np.ndarray]]


def evaluator(decision: DecisionFunction) -> FG:
    """Z ↦ (f(Z), ∇f(Z)) for a two-class decision, its constant parts prepared once."""
    if isinstance(decision, DerivativeExpansion) and isinstance(decision.kernel, (RBFKernel, PolynomialKernel)):
        return _derivative_expansion(decision)
    if isinstance(decision, KernelExpansion) and isinstance(decision.kernel, RBFKernel):
        return _rbf_expansion(decision)
    wb = _affine(decision)
    if wb is not None:  # f = w·z + c: ∇f = w everywhere (no n×n×d×d derivative tensors)
        w, c = wb
        return lambda Z: (np.asarray(Z, dtype=float) @ w + c, np.broadcast_to(w, np.shape(Z)).copy())
    both = getattr(decision, "value_and_gradient", None)
    if both is None:
        return lambda Z: (np.asarray(decision(Z), dtype=float), np.asarray(decision.gradient(Z), dtype=float))

    def fg(Z):
        f, g = both(Z)
        return np.asarray(f, dtype=float), np.asarray(g, dtype=float)

    return fg


def _affine(decision: DecisionFunction):
    """(w, c) of a kernel expansion with the linear or affine kernel (f = w·z + c on R^d), else None."""
    if isinstance(decision, (DerivativeExpansion, KernelExpansion)) and decision.kernel.affine_in_input:
        d = (decision.bases if isinstance(decision, DerivativeExpansion) else decision.centers).shape[1]
        wb = decision.affine_weights(d)
        return None if wb is None else (np.asarray(wb[0], dtype=float), float(wb[1]))
    return None


def _derivative_expansion(dec: DerivativeExpansion) -> FG:
    nz = np.flatnonzero((dec.a != 0) | (dec.b != 0).any(axis=1))
    bias = float(dec.bias)
    if nz.size == 0:
        return lambda Z: (np.full(len(Z), bias), np.zeros(np.shape(Z)))
    B, a, b = dec.bases[nz], dec.a[nz], dec.b[nz]
    kern = dec.kernel
    if isinstance(kern, RBFKernel):
        gam = kern.gamma
        bb = np.einsum("jd,jd->j", b, B)
        BB = np.einsum("ij,ij->i", B, B)
        BT, bT = np.ascontiguousarray(B.T), np.ascontiguousarray(b.T)

        def fg(Z):
            Z = np.asarray(Z, dtype=float)
            d2 = np.einsum("ij,ij->i", Z, Z)[:, None] + BB[None, :] - 2.0 * (Z @ BT)
            np.maximum(d2, 0.0, out=d2)
            K = np.exp(-gam * d2)  # RBFKernel.gram
            w = K * (a + 2.0 * gam * (Z @ bT - bb))
            sw = w.sum(1)
            return bias + sw, -2.0 * gam * (sw[:, None] * Z - w @ B) + 2.0 * gam * (K @ b)

        glue = compiled_rbf_glue()
        if glue is None:
            return fg
        exponent, weights, value_gradient = glue
        mg, c2, m2 = -gam, 2.0 * gam, -2.0 * gam

        def fg_compiled(Z):
            # fg's elementwise parts in the plane compiled (the same IEEE operations, so the same bits); the
            # products, exp and the row sums stay numpy's. A non-finite part (numpy may see an overflow): fg as was.
            Z = np.asarray(Z, dtype=float)
            if Z.ndim != 2 or Z.shape[1] != 2 or not Z.flags.c_contiguous:
                return fg(Z)
            t, ok = exponent(Z, Z @ BT, BB, mg)
            if not ok:
                return fg(Z)
            K = np.exp(t, out=t)
            w, ok = weights(K, Z @ bT, a, bb, c2)
            if not ok:
                return fg(Z)
            sw = w.sum(1)
            f, g, ok = value_gradient(sw, Z, w @ B, K @ b, bias, m2, c2)
            return (f, g) if ok else fg(Z)

        return fg_compiled
    p, c = kern.degree, kern.c
    BT, bT = np.ascontiguousarray(B.T), np.ascontiguousarray(b.T)

    def fg(Z):
        Z = np.asarray(Z, dtype=float)
        bz = Z @ bT
        S = Z @ BT + c
        Sp1 = S ** (p - 1)
        f = bias + ((S**p) @ a + p * (Sp1 * bz).sum(1))
        coef = p * Sp1 * a + (p * (p - 1) * S ** (p - 2) * bz if p >= 2 else 0.0)
        return f, coef @ B + p * (Sp1 @ b)

    return fg


def _rbf_expansion(dec: KernelExpansion) -> FG:
    nz = np.flatnonzero(dec.coef)
    bias = float(dec.bias)
    if nz.size == 0:
        return lambda Z: (np.full(len(Z), bias), np.zeros(np.shape(Z)))
    C, c, gam = dec.centers[nz], dec.coef[nz], dec.kernel.gamma
    CC = np.einsum("ij,ij->i", C, C)
    CT = np.ascontiguousarray(C.T)

    def fg(Z):
        Z = np.asarray(Z, dtype=float)
        d2 = np.einsum("ij,ij->i", Z, Z)[:, None] + CC[None, :] - 2.0 * (Z @ CT)
        np.maximum(d2, 0.0, out=d2)
        w = np.exp(-gam * d2) * c  # ∇ Σ c_j k(z, C_j) = −2γ Σ c_j k(z, C_j)(z − C_j)
        sw = w.sum(1)
        return bias + sw, -2.0 * gam * (sw[:, None] * Z - w @ C)

    return fg


def hessian(decision: DecisionFunction, Z) -> np.ndarray:
    """∇²f at the rows of Z, (m, d, d): closed form for a DerivativeExpansion with the RBF kernel, else the decision's.

    With u_j = z − x̂_j, k_j = exp(−γ‖u_j‖²) and c_j = a_j + 2γ b_j·u_j (so f = f₀ + Σ_j k_j c_j):
        ∇²f = Σ_j k_j (4γ² c_j u_j u_jᵀ − 4γ² (b_j u_jᵀ + u_j b_jᵀ) − 2γ c_j I),
    O(m n d²) instead of the (m, n, d, d, d) third derivatives of the kernel.
    """
    Z = np.atleast_2d(np.asarray(Z, dtype=float))
    if _affine(decision) is not None:
        return np.zeros((Z.shape[0], Z.shape[1], Z.shape[1]))
    if not (isinstance(decision, DerivativeExpansion) and isinstance(decision.kernel, RBFKernel)):
        return np.asarray(decision.hessian(Z), dtype=float)
    nz = np.flatnonzero((decision.a != 0) | (decision.b != 0).any(axis=1))
    m, d = Z.shape
    if nz.size == 0:
        return np.zeros((m, d, d))
    B, a, b, gam = decision.bases[nz], decision.a[nz], decision.b[nz], decision.kernel.gamma
    U = Z[:, None, :] - B[None, :, :]  # (m, n, d)
    k = np.exp(-gam * np.einsum("mjd,mjd->mj", U, U))
    c = a + 2.0 * gam * np.einsum("mjd,jd->mj", U, b)
    kc = k * c
    Ut = np.swapaxes(U, 1, 2)  # (m, d, n): the sums over j as batched matrix products
    H = 4.0 * gam * gam * ((Ut * kc[:, None, :]) @ U)
    kbu = (k[:, :, None] * b[None, :, :]).transpose(0, 2, 1) @ U  # Σ_j k_j b_j u_jᵀ
    H -= 4.0 * gam * gam * (kbu + np.swapaxes(kbu, 1, 2))
    H -= 2.0 * gam * kc.sum(1)[:, None, None] * np.eye(d)
    return H
