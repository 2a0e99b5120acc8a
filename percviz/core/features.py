"""Explicit feature maps φ: R^d → R^d̂ for the weight-vector procedures (the notes' φ-functions); d = 2 on the canvas."""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from itertools import combinations_with_replacement
from math import comb
from typing import ClassVar

import numpy as np

from percviz.core.data import as_rows as _rows
from percviz.core.errors import DataError
from percviz.core.params import ParamSet, Parametrized, ParamSpec, from_spec, registrar

FEATURE_MAPS: dict[str, type["FeatureMap"]] = {}


#: Class decorator: make a feature map available by its short name.
register_features = registrar(FEATURE_MAPS, "feature map")


@dataclass(frozen=True)
class FeatureMap(Parametrized):
    """Base class: transform(X) gives the n×d̂ matrix of φ(x_i) (first column 1 when augmented)."""

    kind: ClassVar[str] = "feature map"
    #: True when a·φ(x) is affine in x, so level sets are exact lines.
    affine_in_input: ClassVar[bool] = False

    def dimension(self, d: int = 2) -> int:
        """d̂, the length of φ(x) for x in R^d."""
        return int(self.transform(np.zeros((1, d))).shape[1])

    def transform(self, X) -> np.ndarray:
        raise NotImplementedError

    def term_names(self, d: int = 2) -> list[str]:
        """Readable names of the components of φ on R^d, e.g. ['1', 'x1', 'x2']."""
        return [f"φ{i}" for i in range(self.dimension(d))]

    def affine_weights(self, a, d: int = 2) -> tuple[np.ndarray, float] | None:
        """(w, b) with a·φ(x) = w·x + b on R^d, or None when not affine."""
        return None

    def affine_coefficients(self, a) -> tuple[float, float, float] | None:
        """(w1, w2, b) with a·φ(x) = w·x + b on the plane, or None when not affine."""
        wb = self.affine_weights(a, 2)
        return None if wb is None else (float(wb[0][0]), float(wb[0][1]), float(wb[1]))


def _with_ones(M: np.ndarray) -> np.ndarray:
    """The columns of M after a first column of ones (the bias term of φ)."""
    return np.column_stack([np.ones(M.shape[0]), M])


def _augmented_weights(a, d: int) -> tuple[np.ndarray, float]:
    """(w, b) of a·(1, x1, …, xd) = w·x + b."""
    a = np.asarray(a, dtype=float)
    return a[1 : d + 1].copy(), float(a[0])


def variable_names(d: int) -> list[str]:
    """x1, x2, …, xd."""
    return [f"x{i + 1}" for i in range(d)]


@register_features
@dataclass(frozen=True)
class AugmentedLinear(FeatureMap):
    """φ(x) = (1, x1, …, xd): the augmented vectors of the notes."""

    name: ClassVar[str] = "linear"
    display_name: ClassVar[str] = "Augmented linear (1, x1, x2)"
    affine_in_input: ClassVar[bool] = True

    def transform(self, X):
        return _with_ones(_rows(X))

    def term_names(self, d: int = 2):
        return ["1"] + variable_names(d)

    def affine_weights(self, a, d: int = 2):
        return _augmented_weights(a, d)


def parse_features(spec: "str | FeatureMap") -> FeatureMap:
    """Build a feature map from a spec such as 'linear', 'quadratic' or 'poly:degree=3'."""
    if isinstance(spec, FeatureMap):
        return spec
    return from_spec(FEATURE_MAPS, "feature map", spec)


@register_features
@dataclass(frozen=True)
class AugmentedLinear1D(FeatureMap):
    """φ(x) = (1, x1): the notes' one-dimensional augmented vectors (x2, … are ignored); d̂ = 2."""

    name: ClassVar[str] = "linear1d"
    display_name: ClassVar[str] = "1-D augmented (1, x1)"
    affine_in_input: ClassVar[bool] = True

    def transform(self, X):
        return _with_ones(_rows(X)[:, :1])

    def term_names(self, d: int = 2):
        return ["1", "x1"]

    def affine_weights(self, a, d: int = 2):
        a = np.asarray(a, dtype=float)
        w = np.zeros(d)
        w[0] = a[1]
        return w, float(a[0])


#: Refuse polynomial maps with more terms than this (C(k + d, d) grows fast with the input dimension d).
MAX_TERMS = 200_000


def monomial_exponents(degree: int, d: int = 2) -> list[tuple[int, ...]]:
    """Exponent tuples of the monomials of R^d by total degree, x1's power falling first.

    For d = 2: 1, x1, x2, x1², x1x2, x2², x1³, … (the notes' order); C(degree + d, d) terms in all.
    """
    out = []
    for t in range(degree + 1):
        for idx in combinations_with_replacement(range(d), t):
            e = [0] * d
            for i in idx:
                e[i] += 1
            out.append(tuple(e))
    return out


_SUPERSCRIPT = str.maketrans("0123456789", "⁰¹²³⁴⁵⁶⁷⁸⁹")


def _monomial_name(exponents: tuple[int, ...]) -> str:
    """'x1²x2' (a '·' between factors once variables have two-digit indices, 'x3·x12')."""
    sep = "·" if len(exponents) >= 10 else ""
    parts = [
        f"x{v + 1}" + ("" if p == 1 else str(p).translate(_SUPERSCRIPT)) for v, p in enumerate(exponents) if p
    ]
    return sep.join(parts) or "1"


def _check_terms(degree: int, d: int) -> None:
    terms = comb(degree + d, d)
    if terms > MAX_TERMS:
        raise DataError(
            f"A polynomial map of degree {degree} on {d} coordinates has {terms:,} terms (limit {MAX_TERMS:,}); "
            "lower the degree, use a kernel (poly, rbf) instead, or reduce the number of columns."
        )


@lru_cache(maxsize=64)
def monomial_steps(degree: int, d: int) -> tuple[tuple[np.ndarray, np.ndarray], ...]:
    """Per degree t = 1..k: (parent, variable) index arrays, monomial j of degree t = parent j of degree t − 1 × x_v."""
    steps, last = [], np.zeros(1, dtype=np.intp)  # the last (largest) variable index of each monomial
    for _ in range(degree):
        counts = d - last  # a monomial ending in x_l extends by x_l, …, x_d (sorted indices: no repeats)
        parent = np.repeat(np.arange(last.size), counts)
        start = np.repeat(np.cumsum(counts) - counts, counts)
        var = last[parent] + np.arange(parent.size) - start
        steps.append((parent, var))
        last = var
    return tuple(steps)


@lru_cache(maxsize=16)
def _exponents2(degree: int) -> tuple[tuple[int, ...], ...]:
    """monomial_exponents(degree, 2), kept (a single point's φ is asked for thousands of times by a projection)."""
    return tuple(monomial_exponents(degree, 2))


def _monomials(X, degree: int) -> np.ndarray:
    X = _rows(X)
    n, d = X.shape
    _check_terms(degree, d)
    if d == 2:  # the canvas's case, one power per column (fast on big grids)
        x1, x2 = X[:, 0], X[:, 1]
        p1, p2 = [x1 ** e for e in range(degree + 1)], [x2 ** e for e in range(degree + 1)]  # each power once
        return np.column_stack([p1[e1] * p2[e2] for e1, e2 in _exponents2(degree)])
    blocks = [np.ones((n, 1))]
    for parent, var in monomial_steps(degree, d):  # one product per monomial, as a loop over them would take
        blocks.append(blocks[-1][:, parent] * X[:, var])
    return np.concatenate(blocks, axis=1)


def _monomial_names(degree: int, d: int) -> list[str]:
    _check_terms(degree, d)
    return [_monomial_name(e) for e in monomial_exponents(degree, d)]


@register_features
@dataclass(frozen=True)
class Quadratic(FeatureMap):
    """φ(x) = (1, x1, x2, x1², x1x2, x2²): the notes' full quadratic (ring example), in their order."""

    name: ClassVar[str] = "quadratic"
    display_name: ClassVar[str] = "Full quadratic (1, x1, x2, x1², x1x2, x2²)"

    def transform(self, X):
        return _monomials(X, 2)

    def term_names(self, d: int = 2):
        return _monomial_names(2, d)


@register_features
@dataclass(frozen=True)
class Polynomial(FeatureMap):
    """All monomials of total degree ≤ k: C(k + d, d) terms on R^d, ordered as `quadratic`."""

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

    def term_names(self, d: int = 2):
        return _monomial_names(self.degree, d)

    def affine_weights(self, a, d: int = 2):
        return _augmented_weights(a, d) if self.degree == 1 else None


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

    def _draws(self, d: int = 2) -> tuple[np.ndarray, np.ndarray]:
        """ω (D×d) and the phases c (D) for inputs in R^d; one draw per d, cached."""
        cache = self.__dict__.setdefault("_cache", {})
        if d not in cache:
            r = np.random.default_rng(self.seed)
            omega = r.normal(0.0, np.sqrt(2.0 * self.gamma), size=(self.dim, d))
            phase = r.uniform(0.0, 2 * np.pi, size=self.dim)
            cache[d] = (omega, phase)
        return cache[d]

    def frequencies(self) -> tuple[np.ndarray, np.ndarray]:
        """The random frequencies ω (D × 2) and phases c (D,) of the features."""
        return self._draws()

    def transform(self, X):
        X = _rows(X)
        omega, phase = self._draws(X.shape[1])
        return _with_ones(np.sqrt(2.0 / self.dim) * np.cos(X @ omega.T + phase))

    def term_names(self, d: int = 2):
        return ["1"] + [f"cos(ω{j + 1}·x + c{j + 1})" for j in range(self.dim)]
