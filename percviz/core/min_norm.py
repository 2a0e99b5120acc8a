"""The minimum G-norm point of the simplex, min_{p ∈ Δ} pᵀGp, by Wolfe's active-set ("corral") method.

Ramdas & Peña's ρ_K² is this minimum when the set is separable (Lemma 3 with the minimax theorem), and 0 with
a Gordan witness otherwise. Wolfe's method only touches the columns of G on its working set S (the corral):
each major step adds the column j = argmin_j (Gp)_j that violates the optimality condition (Gp)_j ≥ pᵀGp, each
minor step solves the corral's affine minimum-norm problem exactly (a bordered (|S|+1)² system) and steps back
into the simplex when a weight turns negative. The optimality test runs on the full G, so the answer is
checked on all n points, and a warm start (the support of an earlier p) is simply the first corral.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np

EPS = np.finfo(float).eps


class DenseColumns:
    """Column access to a dense symmetric PSD matrix G (n×n)."""

    def __init__(self, G: np.ndarray):
        self.G = G
        self.n = G.shape[0]
        self.scale = float(np.abs(np.diagonal(G)).max()) if self.n else 0.0  # max |G_ij| (PSD)
        self.width = self.n  # terms in one product (Gα)_i, for the rounding level

    def cols(self, S: np.ndarray) -> np.ndarray:
        return self.G[S].T  # G is symmetric: rows are contiguous, columns strided

    def block(self, S: np.ndarray) -> np.ndarray:
        return self.G[np.ix_(S, S)]

    def matvec(self, v: np.ndarray) -> np.ndarray:
        """G·v; for a sparse v (a corral's p) over its support only: the same sum, the zero terms left out."""
        S = np.flatnonzero(v)
        if S.size > self.n // 4:
            return self.G @ v
        return v[S] @ self.G[S]  # G symmetric: Σ_j v_j G_ji, rows contiguous


class RowColumns:
    """Column access to G = R Rᵀ from the rows R (n×r), never forming the n×n matrix."""

    def __init__(self, R: np.ndarray):
        self.R = R
        self.n = R.shape[0]
        self.scale = float(np.einsum("ij,ij->i", R, R).max()) if self.n else 0.0
        self.width = self.n + R.shape[1]  # Rᵀα sums n terms, then R·(Rᵀα) sums r

    def cols(self, S: np.ndarray) -> np.ndarray:
        return self.R @ self.R[S].T

    def block(self, S: np.ndarray) -> np.ndarray:
        return self.R[S] @ self.R[S].T

    def matvec(self, v: np.ndarray) -> np.ndarray:
        return self.R @ (self.R.T @ v)


@dataclass
class MinNormRun:
    """The state Wolfe's method ends in: p (on the simplex), Gp = G·p on the full G, and why it stopped."""

    p: np.ndarray
    Gp: np.ndarray
    reason: str  # "optimal", "zero" (a Gordan witness), "rounding" (pᵀGp below rounding), "budget", "stalled"
    majors: int


def rounding_level(op, l1: float = 1.0) -> float:
    """4·width·eps·max|G|·‖α‖_1: the most rounding can move one computed (Gα)_i (a sum of `width` products)."""
    return 4.0 * op.width * EPS * op.scale * l1


#: Bytes the corral's n×|S| columns may take; with MAX_CORRAL, the size budget of one run.
CORRAL_BYTES = 256 * 2**20
MAX_CORRAL = 3000


def min_norm_point(op, p0: np.ndarray | None = None, deadline: float | None = None,
                   max_corral: int | None = None) -> MinNormRun:
    """Wolfe's method on the column oracle `op`, from p0 (a point of the simplex) or the vertex e_0.

    Stops when the gap pᵀGp − min_j (Gp)_j is at rounding level (optimal), when ‖Gp‖_∞ is at rounding level
    (a Gordan witness: p certifies that no α has Gα > 0 beyond rounding), at `deadline` (time.perf_counter()
    seconds), some time after pᵀGp fell below rounding without reaching a witness, or when the corral would
    exceed max_corral columns (default: MAX_CORRAL, and CORRAL_BYTES for its n×|S| columns).
    """
    n = op.n
    if max_corral is None:
        max_corral = max(2, min(MAX_CORRAL, CORRAL_BYTES // (8 * max(n, 1))))
    zero = rounding_level(op) / 2  # |(Gp)_i| at or below this is 0 up to rounding, for p in the simplex
    if p0 is not None and p0.shape == (n,) and p0.sum() > 0:
        S = np.flatnonzero(p0 > 0)
        lam = p0[S] / p0[S].sum()
    else:
        S = np.array([0])
        lam = np.ones(1)
    corral = Corral(op, S)
    lam, C = _minor_steps(corral, lam, op.cols(corral.S))
    Gp = C @ lam
    reason, majors, retried = "stalled", 0, False
    start, below = time.perf_counter(), None
    while True:
        now = time.perf_counter()
        if deadline is not None and now > deadline:
            reason = "budget"
            break
        if np.abs(Gp).max() <= zero:
            reason = "zero"
            break
        q = float(lam @ Gp[corral.S])
        if q <= 2 * zero and below is None:
            # min_i (Gp)_i ≤ pᵀGp ≤ rounding now and at every later p: only a witness can still be certified;
            # give it as long again as the descent took (at least 50 ms), then stop
            below = now + max(now - start, 0.05)
        if below is not None and now > below:
            reason = "rounding"
            break
        j = int(np.argmin(Gp))
        if q - Gp[j] <= 1e-13 * q + 8 * EPS * op.scale:
            reason = "optimal"
            break
        if corral.has(j) or corral.S.size >= max_corral:
            if not retried and corral.S.size < max_corral:
                retried = True  # rounding: the best column is in the corral; solve it afresh once
                corral._refactor()
                lam, C = _minor_steps(corral, lam, C)
                Gp = C @ lam
                continue
            break  # still stalled, or the corral is too big
        majors += 1
        retried = False
        cj = op.cols(np.array([j]))
        corral.add(j, cj[corral.S, 0], float(cj[j, 0]))
        lam = np.append(lam, 0.0)
        C = np.column_stack([C, cj])
        lam, C = _minor_steps(corral, lam, C)
        Gp = C @ lam
    p = np.zeros(n)
    p[corral.S] = lam
    return MinNormRun(p, op.matvec(p), reason, majors)


def _minor_steps(corral: "Corral", lam: np.ndarray, C: np.ndarray):
    """Move lam toward the corral's affine minimum-norm point, dropping the columns whose weight reaches 0."""
    for _ in range(corral.S.size + 1):
        w = corral.affine_min_norm()
        if w.min() > 0:
            return w, C
        neg = np.flatnonzero(w <= 0)
        denom = lam[neg] - w[neg]  # > 0 unless lam_i = w_i = 0
        ratio = np.where(denom > 0, lam[neg] / np.where(denom > 0, denom, 1.0), 0.0)
        k = int(np.argmin(ratio))
        lam = lam + float(ratio[k]) * (w - lam)  # the furthest point toward w that stays in the simplex
        lam[neg[k]] = 0.0
        corral.remove_many(np.flatnonzero(lam <= 0))
        keep = lam > 0
        lam, C = lam[keep] / lam[keep].sum(), C[:, keep]
    return lam, C


class Corral:
    """The working set S with a Cholesky factor L of H = 11ᵀ + G_SS (Wolfe's choice: positive definite while
    the corral is affinely independent), grown by a row in O(|S|²) and refactored by LAPACK after a drop.

    G_SS w = μ·1 with 1ᵀw = 1 is H w = (1 + μ)·1, so w = H⁻¹1/(1ᵀH⁻¹1): two triangular solves. A corral that
    is numerically dependent (no Cholesky) falls back to least squares on the bordered KKT system.
    """

    def __init__(self, op, S: np.ndarray):
        from scipy.linalg import solve_triangular

        self._tri = solve_triangular
        self.op = op
        self.S = np.asarray(S, dtype=int)
        self._members = set(self.S.tolist())
        self._refactor()

    def has(self, j: int) -> bool:
        return j in self._members

    def _refactor(self) -> None:
        H = self.op.block(self.S) + 1.0
        try:
            self.L = np.linalg.cholesky(H)
        except np.linalg.LinAlgError:
            self.L = None

    def add(self, j: int, g_Sj: np.ndarray, g_jj: float) -> None:
        """Append column j, given G[S, j] and G[j, j]."""
        self.S = np.append(self.S, j)
        self._members.add(j)
        if self.L is None:
            self._refactor()
            return
        h = g_Sj + 1.0
        l = self._tri(self.L, h, lower=True, check_finite=False)
        d2 = g_jj + 1.0 - float(l @ l)
        if not d2 > 1e-14 * (g_jj + 1.0):
            self._refactor()  # (numerically) dependent on the corral: try LAPACK, else least squares
            return
        k = l.size
        L = np.zeros((k + 1, k + 1))
        L[:k, :k] = self.L
        L[k, :k] = l
        L[k, k] = np.sqrt(d2)
        self.L = L

    def remove_many(self, ts: np.ndarray) -> None:
        """Drop the corral's columns at positions ts (near the end: the factor by rank-one updates, O(|S|²))."""
        ts = sorted((int(t) for t in ts), reverse=True)
        refactor = self.L is None or self.S.size - ts[-1] > 64  # a long Python loop: LAPACK's refactor is faster
        for t in ts:
            self._members.discard(int(self.S[t]))
            self.S = np.delete(self.S, t)
            if not refactor:
                self.L = _cholesky_delete(self.L, t)
        if refactor:
            self._refactor()

    def affine_min_norm(self) -> np.ndarray:
        """Weights w (Σ w = 1) of the minimum-norm point of the corral's affine hull."""
        k = self.S.size
        if self.L is not None:
            v = self._tri(self.L, np.ones(k), lower=True, check_finite=False)
            w = self._tri(self.L.T, v, lower=False, check_finite=False)
            s = w.sum()
            if np.isfinite(s) and s > 0:
                return w / s
        A = np.empty((k + 1, k + 1))
        A[0, 0] = 0.0
        A[0, 1:] = A[1:, 0] = 1.0
        A[1:, 1:] = self.op.block(self.S)
        rhs = np.zeros(k + 1)
        rhs[0] = 1.0
        w = np.linalg.lstsq(A, rhs, rcond=None)[0][1:]
        s = w.sum()
        return w / s if s != 0 and np.isfinite(s) else np.full(k, 1.0 / k)


def _cholesky_delete(L: np.ndarray, t: int) -> np.ndarray:
    """The Cholesky factor of L Lᵀ without row and column t: the trailing block takes back the rank-one
    term its column below t carried (L₃₃L₃₃ᵀ + l l ᵀ, by the usual hyperbolic-free rotations)."""
    k = L.shape[0]
    x = L[t + 1:, t].copy()
    out = np.delete(np.delete(L, t, axis=0), t, axis=1)
    T = out[t:, t:]  # a view: updated in place
    for i in range(k - 1 - t):
        r = float(np.hypot(T[i, i], x[i]))
        c, s = r / T[i, i], x[i] / T[i, i]
        T[i, i] = r
        if i + 1 < T.shape[0]:
            T[i + 1:, i] = (T[i + 1:, i] + s * x[i + 1:]) / c
            x[i + 1:] = c * x[i + 1:] - s * T[i + 1:, i]
    return out
