"""Seeded scene families whose margin ρ_K shrinks in controlled steps (and non-separable ones for ε-sweeps).

A family maps a level t in (0, 1] and a seed to a PointSet; smaller t means a thinner margin (separable
families) or nothing changes but the accuracy ε asked for (the `flip` family, swept over ε instead).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

import numpy as np

from percviz.core import datasets
from percviz.core.data import PointSet
from percviz.core.errors import ParameterError


def _alternating(n: int) -> np.ndarray:
    """Signs +1, −1, +1, … (class 0, 1, 0, …): both classes present for every n ≥ 2."""
    return np.where(np.arange(n) % 2 == 0, 1, -1)


def toward_line(t: float, seed: int = 0, n: int = 40) -> PointSet:
    """Points at heights ±[0.2, 1] around the line x₂ = 0, squeezed toward it by t: margin ∝ t."""
    r = np.random.default_rng(seed)
    s = _alternating(n)
    x1 = r.uniform(-1.0, 1.0, n)
    x2 = s * r.uniform(0.2, 1.0, n)
    return PointSet(np.column_stack([x1, t * x2]), (s < 0).astype(int))


def toward_circle(t: float, seed: int = 0, n: int = 40) -> PointSet:
    """Points at radius 1 ± t·[0.5, 1] (+ outside, − inside the unit circle): a round margin ∝ t."""
    r = np.random.default_rng(seed)
    s = _alternating(n)
    radius = 1.0 + s * t * r.uniform(0.5, 1.0, n)
    angle = r.uniform(0.0, 2.0 * np.pi, n)
    return PointSet(np.column_stack([radius * np.cos(angle), radius * np.sin(angle)]), (s < 0).astype(int))


def notes_gap(t: float, seed: int = 1) -> PointSet:
    """The notes' thin-gap construction: the 80 samples plus four points 0.3·t from the generating line."""
    return datasets.thin_gap(0.3 * t, seed)


def flipped_duplicate(t: float = 1.0, seed: int = 0, n: int = 40) -> PointSet:
    """The line family at 0.3 plus a copy of point 0 with the other label: ρ_K = 0 under RBF (not separable)."""
    base = toward_line(0.3, seed, n)
    X = np.vstack([base.X, base.X[:1]])
    return PointSet(X, np.r_[base.classes, 1 - base.classes[0]])


@dataclass(frozen=True)
class Family:
    """A named scene family with the kernel and φ-map it is meant for and its default sweep."""

    name: str
    make: Callable[..., PointSet]
    description: str
    kernel: str
    features: str
    separable: bool = True
    levels: tuple[float, ...] = tuple(np.geomspace(0.5, 0.02, 6))
    eps: tuple[float, ...] = ()

    def scene(self, t: float, seed: int) -> PointSet:
        if not (np.isfinite(t) and 0 < t <= 1):
            raise ParameterError(f"A family level t must be in (0, 1]. Got {t!r} instead.")
        return self.make(float(t), int(seed))


FAMILIES: dict[str, Family] = {
    f.name: f
    for f in (
        Family("line", toward_line, "40 points squeezed toward the line x₂ = 0 (affine kernel)", "affine", "linear"),
        Family("circle", toward_circle, "40 points pushed onto the unit circle (RBF γ = 1; quadratic φ)",
               "rbf:gamma=1", "quadratic"),
        Family("gap", notes_gap, "the notes' 80 samples with four points 0.3·t from the line", "affine", "linear",
               levels=tuple(np.geomspace(1.0, 0.1, 5))),
        Family("flip", flipped_duplicate, "the line scene with one point duplicated under the other label "
               "(ρ_K = 0 with RBF): certificates against ε", "rbf:gamma=1", "linear", separable=False,
               levels=(1.0,), eps=tuple(np.geomspace(0.1, 0.003, 6))),
    )
}


def get_family(name: str) -> Family:
    """The family registered under `name`, or a ParameterError naming the known ones."""
    if name not in FAMILIES:
        raise ParameterError(f"Unknown scene family '{name}'. Known families: {', '.join(FAMILIES)}.")
    return FAMILIES[name]
