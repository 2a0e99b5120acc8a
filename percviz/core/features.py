"""Explicit feature maps φ: R² → R^d̂ for the weight-vector procedures (the notes' φ-functions)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, ClassVar

import numpy as np

from percviz.core.errors import SpecError
from percviz.core.params import ParamSet
from percviz.core.spec import format_spec, parse_spec

FEATURE_MAPS: dict[str, type["FeatureMap"]] = {}


def register_features(cls: type["FeatureMap"]) -> type["FeatureMap"]:
    """Class decorator: make a feature map available by its short name."""
    if cls.name in FEATURE_MAPS:
        raise ValueError(f"feature map {cls.name!r} registered twice")
    FEATURE_MAPS[cls.name] = cls
    return cls


@dataclass(frozen=True)
class FeatureMap:
    """Base class: transform(X) gives the n×d̂ matrix of φ(x_i) (first column 1 when augmented)."""

    name: ClassVar[str] = ""
    display_name: ClassVar[str] = ""
    params: ClassVar[ParamSet] = ParamSet()
    #: True when a·φ(x) is affine in x, so level sets are exact lines.
    affine_in_input: ClassVar[bool] = False
    values: dict[str, Any] = field(default_factory=dict)

    def __post_init__(self):
        object.__setattr__(self, "values", self.params.validate(self.values, f"the {self.name} feature map"))

    def __getattr__(self, item):
        values = self.__dict__.get("values", {})
        if item in values:
            return values[item]
        raise AttributeError(item)

    @property
    def spec(self) -> str:
        return format_spec(self.name, self.values)

    def __str__(self) -> str:
        return self.spec

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
