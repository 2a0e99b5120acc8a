"""Decision functions a snapshot carries, evaluable anywhere in the input space R^d (the plane on the canvas)."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from percviz.core.features import FeatureMap
from percviz.core.gram_operator import kernel_features
from percviz.core.kernels import Kernel, PolynomialKernel, RBFKernel


#: Kernel evaluations K(Z, centres) above this many entries (32 MB) go by feature map or in blocks.
EVAL_BLOCK = 2**22


def _frozen(a) -> np.ndarray:
    a = np.array(a, dtype=float, copy=True)
    a.setflags(write=False)
    return a


class DecisionFunction:
    """f: R^d → R (two classes, sign gives the label) or R^d → R^c (multi-class, argmax)."""

    n_outputs: int = 1

    def __call__(self, Z) -> np.ndarray:
        raise NotImplementedError

    def predict(self, Z) -> np.ndarray:
        """Class index 0..c-1 (two-class: f > 0 → class 0 '+', else class 1 '−')."""
        v = self(Z)
        if self.n_outputs == 1:
            return np.where(v > 0, 0, 1)
        return np.argmax(v, axis=1)

    def affine(self) -> tuple[float, float, float] | None:
        """(w1, w2, b) when f(x) = w·x + b exactly on the plane (two-class only), else None."""
        return None

    def affine_weights(self, d: int) -> tuple[np.ndarray, float] | None:
        """(w, b) when f(x) = w·x + b exactly on R^d (two-class only), else None."""
        return None

    def gradient(self, Z) -> np.ndarray:
        """∇f at each row of Z (two-class): shape (m, d); central differences unless a subclass knows better."""
        return _fd_gradient(self, Z)

    def value_and_gradient(self, Z) -> tuple[np.ndarray, np.ndarray]:
        """(f, ∇f) at the rows of Z in one pass where a subclass can share the kernel rows; else two calls."""
        return np.asarray(self(Z), dtype=float), np.asarray(self.gradient(Z), dtype=float)

    def hessian(self, Z) -> np.ndarray:
        """∇²f at each row of Z (two-class): shape (m, d, d); central differences of the gradient by default."""
        Z = np.atleast_2d(np.asarray(Z, dtype=float))
        cols = []
        for c in range(Z.shape[1]):
            h = _FD_STEP * max(1.0, float(np.abs(Z).max(initial=0.0)))
            e = np.zeros(Z.shape[1])
            e[c] = h
            cols.append((self.gradient(Z + e) - self.gradient(Z - e)) / (2 * h))
        H = np.stack(cols, axis=2)
        return 0.5 * (H + np.swapaxes(H, 1, 2))


#: Relative step of the central differences behind the default gradient and Hessian.
_FD_STEP = 1e-5

#: Rows of Z evaluated at once by DerivativeExpansion (bounds the (rows, n, d) temporaries).
_CHUNK = 4096


def _fd_gradient(f: DecisionFunction, Z) -> np.ndarray:
    Z = np.atleast_2d(np.asarray(Z, dtype=float))
    h = _FD_STEP * max(1.0, float(np.abs(Z).max(initial=0.0)))
    cols = []
    for c in range(Z.shape[1]):
        e = np.zeros(Z.shape[1])
        e[c] = h
        cols.append((np.asarray(f(Z + e)) - np.asarray(f(Z - e))) / (2 * h))
    return np.stack(cols, axis=1)


@dataclass(frozen=True, eq=False)
class ZeroDecision(DecisionFunction):
    """f ≡ 0: no separator yet (every point counts as misclassified)."""

    n_outputs: int = 1

    def __call__(self, Z):
        Z = np.atleast_2d(np.asarray(Z, dtype=float))
        return np.zeros(Z.shape[0]) if self.n_outputs == 1 else np.zeros((Z.shape[0], self.n_outputs))

    def affine(self):
        return (0.0, 0.0, 0.0) if self.n_outputs == 1 else None

    def affine_weights(self, d):
        return (np.zeros(d), 0.0) if self.n_outputs == 1 else None
    def gradient(self, Z):
        return np.zeros(np.atleast_2d(np.asarray(Z, dtype=float)).shape)

    def hessian(self, Z):
        m, d = np.atleast_2d(np.asarray(Z, dtype=float)).shape
        return np.zeros((m, d, d))


@dataclass(frozen=True, eq=False)
class KernelExpansion(DecisionFunction):
    """f(x) = Σ_i coef_i K(centers_i, x) + bias.

    For the paper's algorithms coef_i = α_i y_i / √K(x_i, x_i), so y_j f(x_j)/√K(x_j, x_j) = (Gα)_j;
    rkhs_norm is ‖f‖_K = ‖α‖_G when known.
    """

    kernel: Kernel
    centers: np.ndarray
    coef: np.ndarray
    bias: float = 0.0
    rkhs_norm: float | None = None
    #: f at the centres themselves without new kernel evaluations (core.dense_gram.CentreValues), or None.
    on_centers: object = field(default=None, repr=False)

    def __post_init__(self):
        coef = _frozen(self.coef).reshape(-1)
        centers = _frozen(self.centers)
        d = centers.shape[-1] if centers.ndim == 2 else (centers.size // coef.size if coef.size else 2)
        object.__setattr__(self, "centers", centers.reshape(coef.size, d))
        object.__setattr__(self, "coef", coef)

    def __call__(self, Z):
        Z = np.atleast_2d(np.asarray(Z, dtype=float))
        nz = np.flatnonzero(self.coef)
        if nz.size == 0:
            return np.full(Z.shape[0], float(self.bias))
        C, c = self.centers[nz], self.coef[nz]
        if Z.shape[0] * nz.size <= EVAL_BLOCK:
            return self.kernel(Z, C) @ c + self.bias
        w = kernel_features(self.kernel, C)  # a finite feature map: f = φ(z)·Σ c_i φ(x_i), O((m + n)D)
        if w is not None:
            return kernel_features(self.kernel, Z) @ (w.T @ c) + self.bias
        rows = max(1, EVAL_BLOCK // nz.size)  # else K(Z, C) in row blocks of at most EVAL_BLOCK entries
        return np.concatenate([self.kernel(Z[i : i + rows], C) @ c for i in range(0, Z.shape[0], rows)]) + self.bias

    def normalized(self, Z) -> np.ndarray:
        """f(x) / (‖f‖_K √K(x, x)): the normalized margin a point at x would have (sign included)."""
        f = self(Z)
        norm = self.rkhs_norm if self.rkhs_norm else 1.0
        return f / (norm * np.sqrt(self.kernel.diag(np.atleast_2d(Z))))

    def affine(self):
        ab = self.kernel.affine_coefficients(self.centers, self.coef)
        if ab is None:
            return None
        return ab[0], ab[1], ab[2] + float(self.bias)

    def affine_weights(self, d):
        wb = self.kernel.affine_weights(self.centers, self.coef)
        if wb is None:
            return None
        w = np.zeros(d) if self.coef.size == 0 else np.asarray(wb[0], dtype=float)
        return w, float(wb[1]) + float(self.bias)
    def gradient(self, Z):
        from percviz.core.kernel_derivatives import is_differentiable, k_x

        Z = np.atleast_2d(np.asarray(Z, dtype=float))
        nz = np.flatnonzero(self.coef)
        if nz.size == 0:
            return np.zeros(Z.shape)
        if not is_differentiable(self.kernel):  # Laplacian: the kernel's subgradient (sign(0) = 0)
            return np.einsum("mnd,n->md", self.kernel.grad_x(Z, self.centers[nz]), self.coef[nz])
        return np.einsum("mnd,n->md", k_x(self.kernel, Z, self.centers[nz]), self.coef[nz])

    def hessian(self, Z):
        from percviz.core.kernel_derivatives import K_xx, is_differentiable

        if not is_differentiable(self.kernel):
            return super().hessian(Z)
        Z = np.atleast_2d(np.asarray(Z, dtype=float))
        nz = np.flatnonzero(self.coef)
        return np.einsum("mnab,n->mab", K_xx(self.kernel, Z, self.centers[nz]), self.coef[nz])


def _monomial_degree(features) -> int | None:
    """The degree of a map whose columns are the plain monomials (quadratic, poly), else None."""
    from percviz.core.features import Polynomial, Quadratic

    if isinstance(features, Quadratic):
        return 2
    return features.degree if isinstance(features, Polynomial) else None


@dataclass(frozen=True, eq=False)
class FeatureLinear(DecisionFunction):
    """f(x) = a·φ(x) (weights of shape (d̂,)) or g_k(x) = a_k·φ(x) (weights of shape (c, d̂))."""

    features: FeatureMap
    weights: np.ndarray

    def __post_init__(self):
        object.__setattr__(self, "weights", _frozen(self.weights))
        object.__setattr__(self, "n_outputs", 1 if self.weights.ndim == 1 else int(self.weights.shape[0]))

    def __call__(self, Z):
        Z = np.atleast_2d(np.asarray(Z, dtype=float))
        W = self.weights if self.weights.ndim == 1 else self.weights.T
        rows = max(1, EVAL_BLOCK // max(1, self.weights.shape[-1]))  # φ(Z) in row blocks: a 300² grid of a
        if Z.shape[0] <= rows:  # 5,000-column map was 3.2 GB at once (input distances of rff:dim=5000)
            return self.features.transform(Z) @ W
        return np.concatenate([self.features.transform(Z[i:i + rows]) @ W for i in range(0, Z.shape[0], rows)])

    def affine(self):
        if self.weights.ndim != 1:
            return None
        return self.features.affine_coefficients(self.weights)

    def affine_weights(self, d):
        if self.weights.ndim != 1:
            return None
        return self.features.affine_weights(self.weights, d)

    def gradient(self, Z):
        from percviz.core.feature_jacobians import feature_jacobian

        if self.weights.ndim != 1:
            raise ValueError("gradient: a multi-class decision has no single f")
        Z = np.atleast_2d(np.asarray(Z, dtype=float))
        degree = _monomial_degree(self.features)
        if degree is not None and Z.shape[1] > 2 and Z.shape[0]:  # no m×d̂×d Jacobian: reverse mode, O(m·d̂)
            from percviz.core.feature_jacobians import monomial_gradient

            rows = max(1, EVAL_BLOCK // max(1, self.weights.size))
            return np.concatenate([monomial_gradient(Z[i:i + rows], degree, self.weights)
                                   for i in range(0, Z.shape[0], rows)])
        rows = max(1, EVAL_BLOCK // max(1, self.weights.size * Z.shape[1]))  # the m×d̂×d Jacobian in row blocks
        return np.concatenate([np.einsum("mkd,k->md", feature_jacobian(self.features, Z[i:i + rows]), self.weights)
                               for i in range(0, Z.shape[0], rows)]) if Z.shape[0] else np.zeros((0, Z.shape[1]))


@dataclass(frozen=True, eq=False)
class DerivativeExpansion(DecisionFunction):
    """f(x) = Σ_j a_j k(x̂_j, x) + Σ_j b_j·k_x(x̂_j, x) + bias: Akaho's ω = Σ_j {a_j φ(x̂_j) + b_jᵀψ(x̂_j)}.

    Bases x̂ (n×d), coefficients a (n,) and b (n×d); any input dimension d, any kernel of kernel_derivatives.
    """

    kernel: Kernel
    bases: np.ndarray
    a: np.ndarray
    b: np.ndarray
    bias: float = 0.0
    rkhs_norm: float | None = None

    def __post_init__(self):
        bases = _frozen(self.bases)
        bases = bases.reshape(bases.shape[0], -1) if bases.ndim != 2 else bases
        object.__setattr__(self, "bases", bases)
        object.__setattr__(self, "a", _frozen(self.a).reshape(-1))
        object.__setattr__(self, "b", _frozen(self.b).reshape(bases.shape))

    def _active(self) -> np.ndarray:
        return np.flatnonzero((self.a != 0) | (self.b != 0).any(axis=1))

    def __call__(self, Z):
        from percviz.core.kernel_derivatives import k_x

        Z = np.atleast_2d(np.asarray(Z, dtype=float))
        nz = self._active()
        out = np.full(Z.shape[0], float(self.bias))
        if nz.size == 0:
            return out
        B, a, b = self.bases[nz], self.a[nz], self.b[nz]
        kern = self.kernel
        for s in range(0, Z.shape[0], _CHUNK):
            Zc = Z[s : s + _CHUNK]
            # b_j·k_x(x̂_j, z), k_x(u, z) = ∂k(u, z)/∂u, from one kernel matrix where the form is known
            if isinstance(kern, RBFKernel):  # k_x(u, z) = −2γ k(u, z)(u − z)
                K = kern(Zc, B)
                bz = Zc @ b.T
                out[s : s + _CHUNK] += K @ a - 2.0 * kern.gamma * (K @ np.einsum("jd,jd->j", b, B) - (K * bz).sum(1))
            elif isinstance(kern, PolynomialKernel):  # k_x(u, z) = p (u·z + c)^{p−1} z
                S = Zc @ B.T + kern.c
                p = kern.degree
                out[s : s + _CHUNK] += S**p @ a + p * ((S ** (p - 1)) * (Zc @ b.T)).sum(1)
            else:
                out[s : s + _CHUNK] += kern(Zc, B) @ a + np.einsum("jmd,jd->m", k_x(kern, B, Zc), b)
        return out

    def gradient(self, Z):
        from percviz.core.kernel_derivatives import K_xy, k_x

        Z = np.atleast_2d(np.asarray(Z, dtype=float))
        nz = self._active()
        if nz.size == 0:
            return np.zeros(Z.shape)
        B, a, b = self.bases[nz], self.a[nz], self.b[nz]
        return np.einsum("mjd,j->md", k_x(self.kernel, Z, B), a) + np.einsum("mjab,jb->ma", K_xy(self.kernel, Z, B), b)

    def value_and_gradient(self, Z):
        """(f, ∇f) from one kernel matrix per block: the closed forms below for RBF and poly (any d), else two calls.

        RBF, with c_j(z) = a_j + 2γ b_j·(z − x̂_j) and w_j = k(z, x̂_j) c_j:
            f = bias + Σ_j w_j,   ∇f = −2γ (Σ_j w_j (z − x̂_j)) + 2γ Σ_j k(z, x̂_j) b_j.
        poly, with s_j = z·x̂_j + c:
            f = bias + Σ_j a_j s_j^p + p s_j^{p−1} b_j·z,
            ∇f = Σ_j (p a_j s_j^{p−1} + p(p−1) s_j^{p−2} b_j·z) x̂_j + p s_j^{p−1} b_j.
        """
        Z = np.atleast_2d(np.asarray(Z, dtype=float))
        kern = self.kernel
        if not isinstance(kern, (RBFKernel, PolynomialKernel)):
            return super().value_and_gradient(Z)
        nz = self._active()
        f = np.full(Z.shape[0], float(self.bias))
        g = np.zeros(Z.shape)
        if nz.size == 0:
            return f, g
        B, a, b = self.bases[nz], self.a[nz], self.b[nz]
        for s in range(0, Z.shape[0], _CHUNK):
            Zc = Z[s : s + _CHUNK]
            bz = Zc @ b.T
            if isinstance(kern, RBFKernel):
                K = kern(Zc, B)
                gam = kern.gamma
                w = K * (a + 2.0 * gam * (bz - np.einsum("jd,jd->j", b, B)))
                sw = w.sum(1)
                f[s : s + _CHUNK] += sw
                g[s : s + _CHUNK] = -2.0 * gam * (sw[:, None] * Zc - w @ B) + 2.0 * gam * (K @ b)
            else:
                p, S = kern.degree, Zc @ B.T + kern.c
                Sp1 = S ** (p - 1)
                f[s : s + _CHUNK] += (S**p) @ a + p * (Sp1 * bz).sum(1)
                coef = p * Sp1 * a + (p * (p - 1) * S ** (p - 2) * bz if p >= 2 else 0.0)
                g[s : s + _CHUNK] = coef @ B + p * (Sp1 @ b)
        return f, g

    def hessian(self, Z):
        from percviz.core.kernel_derivatives import K_xx, K_xyx

        Z = np.atleast_2d(np.asarray(Z, dtype=float))
        nz = self._active()
        B, a, b = self.bases[nz], self.a[nz], self.b[nz]
        return np.einsum("mjab,j->mab", K_xx(self.kernel, Z, B), a) + np.einsum(
            "mjacb,jc->mab", K_xyx(self.kernel, Z, B), b
        )

    def affine_weights(self, d):
        if not self.kernel.affine_in_input or self.bases.shape[1] != d:
            return None
        w = self.a @ self.bases + self.b.sum(axis=0)
        const = float(self.a.sum()) if self.kernel.name == "affine" else 0.0
        return np.asarray(w, dtype=float), const + float(self.bias)

    def affine(self):
        if not self.kernel.affine_in_input or self.bases.shape[1] != 2:
            return None
        w = self.a @ self.bases + self.b.sum(axis=0)
        const = float(self.a.sum()) if self.kernel.name == "affine" else 0.0
        return float(w[0]), float(w[1]), const + float(self.bias)
