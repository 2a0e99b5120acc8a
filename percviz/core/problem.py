"""A problem: labelled points in R^d with the kernel (for dual algorithms) and the φ-map (for weight vectors)."""

from __future__ import annotations

import math

import numpy as np

from percviz.core.data import PointSet, format_point
from percviz.core.decision import KernelExpansion
from percviz.core.dense_gram import CentreValues
from percviz.core.errors import DataError
from percviz.core.features import FeatureMap, parse_features
from percviz.core.gram_operator import GramOperator, signed_gram
from percviz.core.kernels import Kernel, parse_kernel
from percviz.core.once import computed_once

#: K(x, x) at or below this is refused: the normalized feature φ(x)/√K(x, x) does not exist.
MIN_SELF_KERNEL = 1e-12
#: The same for a homogeneous kernel (linear, poly with c = 0), whose normalized G and claims do not depend on the
#: points' scale: only a K(x, x) too close to underflow to normalize in double precision is refused (2^-900 ≈ 1e-271).
MIN_SELF_KERNEL_HOMOGENEOUS = 2.0**-900


def scale_free_factor(X, kernel) -> float:
    """A power of two s for a homogeneous kernel on points whose K(x, x) nears underflow (≤ 2^-900 at a point off
    the origin), else 1: s·X has max |·| in [0.5, 1), the same G up to rounding and the same verdicts."""
    kernel = parse_kernel(kernel)
    X = np.asarray(X, dtype=float)
    if not homogeneous(kernel) or X.size == 0:
        return 1.0
    m = float(np.abs(X).max())
    off = X[np.any(X != 0, axis=1)]
    if m == 0 or not np.any(np.asarray(kernel.diag(off), dtype=float) <= MIN_SELF_KERNEL_HOMOGENEOUS):
        return 1.0
    return 2.0 ** -math.frexp(m)[1]


def homogeneous(kernel) -> bool:
    """K(s x, s z) = s^(2d) K(x, z): the linear kernel and the polynomial kernel with c = 0."""
    name = getattr(kernel, "name", "")
    return name == "linear" or (name == "poly" and float(getattr(kernel, "c", 1.0)) == 0.0)


class Problem:
    """Points plus the kernel and feature map an algorithm works with; caches the signed Gram operator and matrix G."""

    def __init__(self, points: PointSet, kernel: "str | Kernel" = "affine", features: "str | FeatureMap" = "linear",
                 *, gram_form: str = "auto", gram_dtype: str = "auto"):
        if not isinstance(points, PointSet):
            raise TypeError("points must be a PointSet")
        self.points = points
        self.gram_form = gram_form  # "auto" (factored when the kernel has a finite feature map), "dense", "factored"
        self.gram_dtype = gram_dtype  # a dense G's storage: "auto" (float32 above 4096 points), "float64", "float32"
        self.kernel = parse_kernel(kernel)
        self.features = parse_features(features)

    @property
    def n(self) -> int:
        return self.points.n

    @property
    def X(self) -> np.ndarray:
        return self.points.X

    @computed_once
    def y(self) -> np.ndarray:
        """Signed labels ±1 (raises DataError for more than two classes)."""
        return self.points.y

    @computed_once
    def self_kernel(self) -> np.ndarray:
        """K(x_i, x_i), checked to be positive so that φ̃ = φ/√K(x, x) exists."""
        d = np.asarray(self.kernel.diag(self.X), dtype=float)
        scale_free = homogeneous(self.kernel)
        bad = np.flatnonzero(~(d > (MIN_SELF_KERNEL_HOMOGENEOUS if scale_free else MIN_SELF_KERNEL)))
        if bad.size:
            i = int(bad[0])
            if scale_free and np.any(self.X[i] != 0):  # not at the origin: too small for double precision
                m = float(np.abs(self.X).max())
                raise DataError(
                    f"Point {i} at {format_point(self.X[i])} has K(x, x) = {d[i]:.3g} with the {self.kernel.spec} "
                    "kernel, too close to underflow to normalize in double precision. This kernel's verdicts do not "
                    f"depend on the points' scale: multiply the coordinates by about {2.0 ** -math.frexp(m)[1]:.3g}."
                )
            raise DataError(
                f"Point {i} at {format_point(self.X[i])} has K(x, x) = {d[i]:.3g} with the {self.kernel.spec} kernel, "
                "so it cannot be normalized. Move or delete that point, or use a kernel with K(x, x) > 0 "
                "(affine, RBF, polynomial with c > 0)."
            )
        if not np.isfinite(d).all():
            i = int(np.flatnonzero(~np.isfinite(d))[0])
            raise DataError(
                f"K(x, x) overflows at point {i} with the {self.kernel.spec} kernel; "
                "scale the data down or lower the degree."
            )
        return d

    @computed_once
    def gram(self) -> GramOperator:
        """G as an operator (G·v, columns, blocks): factored n×D for linear/affine/polynomial kernels, else dense."""
        return signed_gram(self, self.gram_form)

    @computed_once
    def G(self) -> np.ndarray:
        """The normalized signed Gram matrix G_ij = y_i y_j K(x_i, x_j)/√(K_ii K_jj) (§3) as an n×n array; read-only.

        Built on first use (refused beyond the memory budget); the algorithms use `gram` instead.
        """
        return self.gram.dense()

    @computed_once
    def Phi(self) -> np.ndarray:
        """The n×d̂ matrix of φ(x_i) for the weight-vector procedures; read-only."""
        P = np.asarray(self.features.transform(self.X), dtype=float)
        if not np.isfinite(P).all():
            raise DataError(f"The {self.features.spec} feature map overflows on these points; scale the data down.")
        P.setflags(write=False)
        return P

    @computed_once
    def Y(self) -> np.ndarray:
        """The notes' normalized samples: rows y_i φ(x_i) (sign-flipped for the − class); read-only."""
        Yh = self.Phi * self.y[:, None]
        Yh.setflags(write=False)
        return Yh

    def expansion(self, alpha, rkhs_norm: float | None = None) -> KernelExpansion:
        """The function f = Σ α_i y_i φ̃(x_i) of the paper as a decision function on R^d."""
        s = self.y / np.sqrt(self.self_kernel)
        coef = np.asarray(alpha, dtype=float) * s
        g = self.__dict__.get("gram")  # a G already built: f on the points is one G·α (core.dense_gram)
        return KernelExpansion(self.kernel, self.X, coef, 0.0, rkhs_norm,
                               on_centers=CentreValues(g, alpha, s) if g is not None else None)
