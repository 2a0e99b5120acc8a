"""Kernels K(x, z) on R^d (the plane on the canvas), with their diagonals and input gradients ∂K(x, z)/∂x."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

import numpy as np

from percviz.core.data import as_rows as _as2d
from percviz.core.params import ParamSet, Parametrized, ParamSpec, from_spec, registered, registrar

KERNELS: dict[str, type["Kernel"]] = {}


#: Class decorator: make a kernel available by its short name.
register_kernel = registrar(KERNELS, "kernel")


@dataclass(frozen=True)
class Kernel(Parametrized):
    """Base class: subclasses set name/display_name/params and implement gram, diag, grad_x."""

    kind: ClassVar[str] = "kernel"
    #: True when f(x) = Σ c_i K(x_i, x) is affine in x (so level sets are exact lines).
    affine_in_input: ClassVar[bool] = False
    #: True when K(x, x) = 1 for every x (no normalization needed).
    unit_diagonal: ClassVar[bool] = False

    def __call__(self, X, Z) -> np.ndarray:
        """The kernel matrix K[i, j] = K(X[i], Z[j])."""
        return self.gram(_as2d(X), _as2d(Z))

    def gram(self, X: np.ndarray, Z: np.ndarray) -> np.ndarray:
        raise NotImplementedError

    def diag(self, X) -> np.ndarray:
        """K(x_i, x_i) for each row (ones for a unit-diagonal kernel)."""
        if self.unit_diagonal:
            return np.ones(_as2d(X).shape[0])
        raise NotImplementedError

    def grad_x(self, X, Z) -> np.ndarray:
        """∂K(x, z)/∂x at x = X[i], z = Z[j]: shape (len(X), len(Z), d)."""
        raise NotImplementedError

    def affine_weights(self, centers, coef) -> tuple[np.ndarray, float] | None:
        """(w, b) with Σ_i coef_i K(centers_i, x) = w·x + b on R^d, or None when not affine."""
        return None

    def affine_coefficients(self, centers, coef) -> tuple[float, float, float] | None:
        """(w1, w2, b) with Σ_i coef_i K(centers_i, x) = w·x + b on the plane; None when not affine or d ≠ 2."""
        wb = self.affine_weights(centers, coef)
        if wb is None or wb[0].shape != (2,):
            return None
        return float(wb[0][0]), float(wb[0][1]), float(wb[1])


@register_kernel
@dataclass(frozen=True)
class LinearKernel(Kernel):
    """Homogeneous linear kernel K(x, z) = x·z (needs x ≠ 0 for normalization)."""

    name: ClassVar[str] = "linear"
    display_name: ClassVar[str] = "Linear (homogeneous) x·z"
    affine_in_input: ClassVar[bool] = True

    def gram(self, X, Z):
        return X @ Z.T

    def diag(self, X):
        X = _as2d(X)
        return np.einsum("ij,ij->i", X, X)

    def grad_x(self, X, Z):
        X, Z = _as2d(X), _as2d(Z)
        return np.broadcast_to(Z[None, :, :], (X.shape[0], Z.shape[0], Z.shape[1])).copy()

    def affine_weights(self, centers, coef):
        return np.asarray(coef, dtype=float) @ _as2d(centers), 0.0


@register_kernel
@dataclass(frozen=True)
class AffineKernel(Kernel):
    """Affine linear kernel K(x, z) = 1 + x·z: the augmented vectors (1, x) of the notes."""

    name: ClassVar[str] = "affine"
    display_name: ClassVar[str] = "Affine linear 1 + x·z"
    affine_in_input: ClassVar[bool] = True

    def gram(self, X, Z):
        return 1.0 + X @ Z.T

    def diag(self, X):
        X = _as2d(X)
        return 1.0 + np.einsum("ij,ij->i", X, X)

    grad_x = LinearKernel.grad_x  # ∂(1 + x·z)/∂x = ∂(x·z)/∂x = z

    def affine_weights(self, centers, coef):
        coef = np.asarray(coef, dtype=float)
        return coef @ _as2d(centers), float(coef.sum())


@register_kernel
@dataclass(frozen=True)
class PolynomialKernel(Kernel):
    """Polynomial kernel K(x, z) = (x·z + c)^degree."""

    name: ClassVar[str] = "poly"
    display_name: ClassVar[str] = "Polynomial (x·z + c)^d"
    params: ClassVar[ParamSet] = ParamSet(
        (
            ParamSpec("degree", int, 2, 1, 12, help="Degree d of the polynomial (x·z + c)^d."),
            ParamSpec("c", float, 1.0, 0.0, 1e6, help="Offset c ≥ 0; c = 0 gives the homogeneous kernel."),
        )
    )

    def gram(self, X, Z):
        return (X @ Z.T + self.c) ** self.degree

    def diag(self, X):
        X = _as2d(X)
        return (np.einsum("ij,ij->i", X, X) + self.c) ** self.degree

    def grad_x(self, X, Z):
        X, Z = _as2d(X), _as2d(Z)
        inner = X @ Z.T + self.c
        return self.degree * (inner ** (self.degree - 1))[:, :, None] * Z[None, :, :]


@register_kernel
@dataclass(frozen=True)
class RBFKernel(Kernel):
    """Gaussian RBF kernel K(x, z) = exp(−γ‖x − z‖²)."""

    name: ClassVar[str] = "rbf"
    display_name: ClassVar[str] = "Gaussian RBF exp(−γ‖x−z‖²)"
    unit_diagonal: ClassVar[bool] = True
    params: ClassVar[ParamSet] = ParamSet(
        (ParamSpec("gamma", float, 0.5, 0.0, 1e6, low_open=True, help="Width γ > 0: larger γ, narrower bumps."),)
    )

    def gram(self, X, Z):
        d2 = (
            np.einsum("ij,ij->i", X, X)[:, None]
            + np.einsum("ij,ij->i", Z, Z)[None, :]
            - 2.0 * (X @ Z.T)
        )
        np.maximum(d2, 0.0, out=d2)
        return np.exp(-self.gamma * d2)

    def grad_x(self, X, Z):
        X, Z = _as2d(X), _as2d(Z)
        k = self.gram(X, Z)
        return -2.0 * self.gamma * k[:, :, None] * (X[:, None, :] - Z[None, :, :])


@register_kernel
@dataclass(frozen=True)
class LaplacianKernel(Kernel):
    """Laplacian kernel K(x, z) = exp(−γ‖x − z‖₁) (as scikit-learn's laplacian_kernel)."""

    name: ClassVar[str] = "laplacian"
    display_name: ClassVar[str] = "Laplacian exp(−γ‖x−z‖₁)"
    unit_diagonal: ClassVar[bool] = True
    params: ClassVar[ParamSet] = ParamSet(
        (ParamSpec("gamma", float, 0.5, 0.0, 1e6, low_open=True, help="Width γ > 0 of exp(−γ‖x−z‖₁)."),)
    )

    def gram(self, X, Z):
        from scipy.spatial.distance import cdist  # one n×m pass, not an n×m×d temporary

        return np.exp(-self.gamma * cdist(X, Z, "cityblock"))

    def grad_x(self, X, Z):
        # The L1 distance is not differentiable where a coordinate ties; sign(0) = 0 picks a subgradient.
        X, Z = _as2d(X), _as2d(Z)
        diff = X[:, None, :] - Z[None, :, :]
        k = np.exp(-self.gamma * np.abs(diff).sum(axis=2))
        return -self.gamma * k[:, :, None] * np.sign(diff)


def parse_kernel(spec: "str | Kernel") -> Kernel:
    """Build a kernel from a spec such as 'rbf:gamma=0.5', 'poly:degree=3,c=1' or 'affine'."""
    if isinstance(spec, Kernel):
        return spec
    aliases = {"gaussian": "rbf", "polynomial": "poly", "affine-linear": "affine", "laplace": "laplacian"}
    return from_spec(KERNELS, "kernel", spec, aliases)


def make_kernel(name: str, **values) -> Kernel:
    """Build a kernel by name with typed parameter values."""
    return registered(KERNELS, name, "kernel")(values=values)
