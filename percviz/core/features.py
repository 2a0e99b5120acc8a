"""Explicit feature maps φ: R² → R^d̂ for the weight-vector procedures (the notes' φ-functions)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

import numpy as np

from percviz.core.errors import SpecError
from percviz.core.params import ParamSet, Parametrized, ParamSpec
from percviz.core.spec import parse_spec

FEATURE_MAPS: dict[str, type["FeatureMap"]] = {}


def register_features(cls: type["FeatureMap"]) -> type["FeatureMap"]:
    """Class decorator: make a feature map available by its short name."""
    if cls.name in FEATURE_MAPS:
        raise ValueError(f"feature map {cls.name!r} registered twice")
    FEATURE_MAPS[cls.name] = cls
    return cls


@dataclass(frozen=True)
class FeatureMap(Parametrized):
    """Base class: transform(X) gives the n×d̂ matrix of φ(x_i) (first column 1 when augmented)."""

    kind: ClassVar[str] = "feature map"
    #: True when a·φ(x) is affine in x, so level sets are exact lines.
    affine_in_input: ClassVar[bool] = False

    def dimension(self) -> int:
        """d̂, the length of φ(x)."""
        return int(self.transform(np.zeros((1, 2))).shape[1])

    def transform(self, X) -> np.ndarray:
        raise NotImplementedError

    def term_names(self) -> list[str]:
        """Readable names of the components of φ, e.g. ['1', 'x1', 'x2']."""
        return [f"φ{i}" for i in range(self.dimension())]

    def affine_coefficients(self, a) -> tuple[float, float, float] | None:
        """(w1, w2, b) with a·φ(x) = w·x + b, or None when not affine."""
        return None


@register_features
@dataclass(frozen=True)
class AugmentedLinear(FeatureMap):
    """φ(x) = (1, x1, x2): the augmented vectors of the notes."""

    name: ClassVar[str] = "linear"
    display_name: ClassVar[str] = "Augmented linear (1, x1, x2)"
    affine_in_input: ClassVar[bool] = True

    def transform(self, X):
        X = np.atleast_2d(np.asarray(X, dtype=float))
        return np.column_stack([np.ones(X.shape[0]), X])

    def term_names(self):
        return ["1", "x1", "x2"]

    def affine_coefficients(self, a):
        a = np.asarray(a, dtype=float)
        return float(a[1]), float(a[2]), float(a[0])


def parse_features(spec: "str | FeatureMap") -> FeatureMap:
    """Build a feature map from a spec such as 'linear', 'quadratic' or 'poly:degree=3'."""
    if isinstance(spec, FeatureMap):
        return spec
    name, raw = parse_spec(spec, "feature-map")
    if name not in FEATURE_MAPS:
        raise SpecError(f"Unknown feature map '{name}'. Known feature maps: {', '.join(FEATURE_MAPS)}.")
    cls = FEATURE_MAPS[name]
    return cls(values=cls.params.validate(raw, f"the {name} feature map"))


@register_features
@dataclass(frozen=True)
class AugmentedLinear1D(FeatureMap):
    """φ(x) = (1, x1): the notes' one-dimensional augmented vectors (x2 is ignored); d̂ = 2."""

    name: ClassVar[str] = "linear1d"
    display_name: ClassVar[str] = "1-D augmented (1, x1)"
    affine_in_input: ClassVar[bool] = True

    def transform(self, X):
        X = np.atleast_2d(np.asarray(X, dtype=float))
        return np.column_stack([np.ones(X.shape[0]), X[:, 0]])

    def term_names(self):
        return ["1", "x1"]

    def affine_coefficients(self, a):
        a = np.asarray(a, dtype=float)
        return float(a[1]), 0.0, float(a[0])


def monomial_exponents(degree: int) -> list[tuple[int, int]]:
    """(i, j) for x1^i x2^j, by total degree, x1's power falling: 1, x1, x2, x1², x1x2, x2², x1³, …"""
    return [(t - j, j) for t in range(degree + 1) for j in range(t + 1)]


_SUPERSCRIPT = str.maketrans("0123456789", "⁰¹²³⁴⁵⁶⁷⁸⁹")


def _monomial_name(i: int, j: int) -> str:
    def power(v, p):
        return "" if p == 0 else v if p == 1 else v + str(p).translate(_SUPERSCRIPT)

    return (power("x1", i) + power("x2", j)) or "1"


def _monomials(X, degree: int) -> np.ndarray:
    X = np.atleast_2d(np.asarray(X, dtype=float))
    x1, x2 = X[:, 0], X[:, 1]
    return np.column_stack([x1**i * x2**j for i, j in monomial_exponents(degree)])


@register_features
@dataclass(frozen=True)
class Quadratic(FeatureMap):
    """φ(x) = (1, x1, x2, x1², x1x2, x2²): the notes' full quadratic (ring example), in their order."""

    name: ClassVar[str] = "quadratic"
    display_name: ClassVar[str] = "Full quadratic (1, x1, x2, x1², x1x2, x2²)"

    def transform(self, X):
        return _monomials(X, 2)

    def term_names(self):
        return [_monomial_name(i, j) for i, j in monomial_exponents(2)]


@register_features
@dataclass(frozen=True)
class Polynomial(FeatureMap):
    """All monomials x1^i x2^j with i + j ≤ degree: C(degree + 2, 2) terms, ordered as `quadratic`."""

    name: ClassVar[str] = "poly"
    display_name: ClassVar[str] = "Full polynomial of degree k"
    params: ClassVar[ParamSet] = ParamSet(
        (ParamSpec("degree", int, 3, 1, 12, help="Highest total degree k of the monomials x1^i x2^j."),)
    )

    @property
    def affine_in_input(self) -> bool:  # type: ignore[override]
        return self.degree == 1

    def transform(self, X):
        return _monomials(X, self.degree)

    def term_names(self):
        return [_monomial_name(i, j) for i, j in monomial_exponents(self.degree)]

    def affine_coefficients(self, a):
        if self.degree != 1:
            return None
        a = np.asarray(a, dtype=float)
        return float(a[1]), float(a[2]), float(a[0])


@register_features
@dataclass(frozen=True)
class RandomFourier(FeatureMap):
    """φ(x) = (1, √(2/D) cos(ω_j·x + c_j)), ω_j ~ N(0, 2γI), c_j ~ U[0, 2π) from the seed.

    Then φ(x)·φ(z) − 1 ≈ exp(−γ‖x − z‖²) (Rahimi & Recht); the leading 1 gives the bias weight.
    """

    name: ClassVar[str] = "rff"
    display_name: ClassVar[str] = "Random Fourier features (RBF approximation)"
    params: ClassVar[ParamSet] = ParamSet(
        (
            ParamSpec("dim", int, 100, 1, 5000, help="Number D of random cosine features."),
            ParamSpec("gamma", float, 1.0, 0, None, low_open=True, help="RBF width γ in exp(−γ‖x − z‖²)."),
            ParamSpec("seed", int, 0, 0, 2**32 - 1, help="Seed of the random frequencies and phases."),
        )
    )

    def _draws(self) -> tuple[np.ndarray, np.ndarray]:
        cached = self.__dict__.get("_cache")
        if cached is None:
            r = np.random.default_rng(self.seed)
            omega = r.normal(0.0, np.sqrt(2.0 * self.gamma), size=(self.dim, 2))
            phase = r.uniform(0.0, 2 * np.pi, size=self.dim)
            cached = (omega, phase)
            object.__setattr__(self, "_cache", cached)
        return cached

    def frequencies(self) -> tuple[np.ndarray, np.ndarray]:
        """The random frequencies ω (D × 2) and phases c (D,) of the features."""
        return self._draws()

    def transform(self, X):
        X = np.atleast_2d(np.asarray(X, dtype=float))
        omega, phase = self._draws()
        return np.column_stack([np.ones(X.shape[0]), np.sqrt(2.0 / self.dim) * np.cos(X @ omega.T + phase)])

    def term_names(self):
        return ["1"] + [f"cos(ω{j + 1}·x + c{j + 1})" for j in range(self.dim)]
