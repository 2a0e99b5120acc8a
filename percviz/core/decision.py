"""Decision functions a snapshot carries, evaluable anywhere in the input space R^d (the plane on the canvas)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from percviz.core.features import FeatureMap
from percviz.core.gram_operator import kernel_features
from percviz.core.kernels import Kernel


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


@dataclass(frozen=True, eq=False)
class FeatureLinear(DecisionFunction):
    """f(x) = a·φ(x) (weights of shape (d̂,)) or g_k(x) = a_k·φ(x) (weights of shape (c, d̂))."""

    features: FeatureMap
    weights: np.ndarray

    def __post_init__(self):
        object.__setattr__(self, "weights", _frozen(self.weights))
        object.__setattr__(self, "n_outputs", 1 if self.weights.ndim == 1 else int(self.weights.shape[0]))

    def __call__(self, Z):
        Phi = self.features.transform(np.atleast_2d(np.asarray(Z, dtype=float)))
        return Phi @ self.weights if self.weights.ndim == 1 else Phi @ self.weights.T

    def affine(self):
        if self.weights.ndim != 1:
            return None
        return self.features.affine_coefficients(self.weights)

    def affine_weights(self, d):
        if self.weights.ndim != 1:
            return None
        return self.features.affine_weights(self.weights, d)
