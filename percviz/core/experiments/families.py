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


def fixed_margin(t: float, seed: int = 0, n: int = 40) -> PointSet:
    """n points whose affine-kernel margin ρ_K is exactly t, whatever n (the level t is ρ_K itself).

    With K = 1 + x·z the signed normalized feature of (x, y) is z = y(1, x)/√(1 + ‖x‖²) on the unit sphere of
    R³, and y·x₂ ≥ b(x₁) := t√((1 + x₁²)/(1 − t²)) is exactly u·z ≥ t for u = (0, 0, 1). Every point lies on
    or beyond b (+ above with x₁ in [−1, 0], − below with x₁ in [0, 1], x₂ at most 0.05 beyond b); the last two are
    the mirror pair (1, ±b(1)), whose z average to t·u. So ‖Σ p_i z_i‖ ≥ u·Σ p_i z_i ≥ t on the simplex,
    with equality at that pair: ρ_K = min_p ‖p‖_G = t (Lemma 3), the max-margin separator the line x₂ = 0.
    The pair comes last so that no algorithm meets it first by its tie rule.
    """
    if not 0 < t < 1 or n < 2:
        raise ParameterError(f"The fixed-margin family needs 0 < ρ_K < 1 and n ≥ 2. Got ρ_K = {t!r}, n = {n!r}.")
    u = np.random.default_rng(seed).random((n, 2))  # one (n, 2) draw: row i is the same for every n > i + 2
    s = _alternating(n).astype(float)
    s[-2:] = (1.0, -1.0)
    x1 = -s * u[:, 0]  # + on the left half, − on the right: the mean of the z is no separator
    x1[-2:] = 1.0
    edge = t * np.sqrt((1.0 + x1**2) / (1.0 - t * t))
    gap = 0.05 * u[:, 1]
    gap[-2:] = 0.0
    return PointSet(np.column_stack([x1, s * (edge + gap)]), (s < 0).astype(int))


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
    #: True when the level is ρ_K itself for every number of points n (a sweep over n may use it).
    fixed_margin: bool = False

    def scene(self, t: float, seed: int, n: int | None = None) -> PointSet:
        if not (np.isfinite(t) and 0 < t <= 1):
            raise ParameterError(f"A family level t must be in (0, 1]. Got {t!r} instead.")
        if n is None:
            return self.make(float(t), int(seed))
        return self.make(float(t), int(seed), n=int(n))


FAMILIES: dict[str, Family] = {
    f.name: f
    for f in (
        Family("line", toward_line, "40 points squeezed toward the line x₂ = 0 (affine kernel)", "affine", "linear"),
        Family("circle", toward_circle, "40 points pushed onto the unit circle (RBF γ = 1; quadratic φ)",
               "rbf:gamma=1", "quadratic"),
        Family("gap", notes_gap, "the notes' 80 samples with four points 0.3·t from the line", "affine", "linear",
               levels=tuple(np.geomspace(1.0, 0.1, 5))),
        Family("fixed", fixed_margin, "n points (40 unless swept over n) with ρ_K = t exactly under the affine "
               "kernel, for every n", "affine", "linear", levels=tuple(np.geomspace(0.3, 0.01, 6)), fixed_margin=True),
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
