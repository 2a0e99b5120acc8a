"""Point-set generators for building scenes fast: blobs, two moons, circles, XOR, spirals, a separable set.

Every generator takes n (points), noise (Gaussian σ added to the coordinates, in scene units), seed, and
returns a PointSet in roughly [−3, 3]²; class 0 is "+", class 1 "−" (blobs: `classes` classes).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

import numpy as np

from percviz.core.data import PointSet
from percviz.core.errors import ParameterError


def _rng(seed: int) -> np.random.Generator:
    return np.random.default_rng(int(seed))


def _split(n: int, parts: int = 2) -> np.ndarray:
    """Class labels 0..parts-1 in (nearly) equal numbers."""
    return np.arange(n) % parts


def blobs(n: int, noise: float, seed: int, classes: int = 2) -> PointSet:
    """Gaussian blobs of σ = 0.5 + noise around centres on a circle of radius 2."""
    r = _rng(seed)
    c = _split(n, classes)
    angles = 2 * np.pi * np.arange(classes) / classes + np.pi / 4
    centres = 2.0 * np.column_stack([np.cos(angles), np.sin(angles)])
    return PointSet(centres[c] + (0.5 + noise) * r.standard_normal((n, 2)), c)


def two_moons(n: int, noise: float, seed: int) -> PointSet:
    """Two interleaved half circles of radius 1.5."""
    r = _rng(seed)
    c = _split(n)
    t = np.pi * r.uniform(0, 1, n)
    upper = np.column_stack([np.cos(t), np.sin(t)])
    lower = np.column_stack([1 - np.cos(t), 0.5 - np.sin(t)])
    X = 1.5 * (np.where(c[:, None] == 0, upper, lower) - [0.5, 0.25])
    return PointSet(X + noise * r.standard_normal((n, 2)), c)


def circles(n: int, noise: float, seed: int) -> PointSet:
    """A disc of radius 1 (+) inside a ring of radius 2.5 (−)."""
    r = _rng(seed)
    c = _split(n)
    t = r.uniform(0, 2 * np.pi, n)
    radius = np.where(c == 0, r.uniform(0, 1.0, n), r.uniform(2.2, 2.8, n))
    X = radius[:, None] * np.column_stack([np.cos(t), np.sin(t)])
    return PointSet(X + noise * r.standard_normal((n, 2)), c)


def xor(n: int, noise: float, seed: int) -> PointSet:
    """Four clusters at (±1.5, ±1.5): + where x1·x2 > 0."""
    r = _rng(seed)
    q = np.arange(n) % 4
    signs = np.array([[1, 1], [-1, -1], [1, -1], [-1, 1]], float)
    X = 1.5 * signs[q] + (0.4 + noise) * r.standard_normal((n, 2))
    return PointSet(X, (q >= 2).astype(int))


def spirals(n: int, noise: float, seed: int) -> PointSet:
    """Two interleaved spirals (one and a half turns each)."""
    r = _rng(seed)
    c = _split(n)
    t = np.sqrt(r.uniform(0.02, 1, n)) * 3 * np.pi
    radius = 3.0 * t / (3 * np.pi)
    phase = np.where(c == 0, 0.0, np.pi)
    X = radius[:, None] * np.column_stack([np.cos(t + phase), np.sin(t + phase)])
    return PointSet(X + noise * r.standard_normal((n, 2)), c)


def separable(n: int, noise: float, seed: int, margin: float = 0.5) -> PointSet:
    """Linearly separable with a chosen margin: every point at least `margin` from a random line through the
    middle (the noise moves points along the line only, so the margin holds whatever the noise)."""
    if not margin >= 0:
        raise ParameterError(f"The margin must be ≥ 0; got {margin}.")
    r = _rng(seed)
    c = _split(n)
    angle = r.uniform(0, np.pi)
    normal = np.array([np.cos(angle), np.sin(angle)])
    along = np.array([-normal[1], normal[0]])
    dist = margin + r.exponential(0.8, n)  # distance from the line, ≥ margin
    side = np.where(c == 0, 1.0, -1.0)
    s = r.uniform(-2.5, 2.5, n) + noise * r.standard_normal(n)
    return PointSet(side[:, None] * dist[:, None] * normal + s[:, None] * along, c)


@dataclass(frozen=True)
class Generator:
    """One generator as the dialog and the CLI offer it."""

    name: str
    label: str
    make: Callable[..., PointSet]
    extra: tuple[str, ...] = ()  # names of its own parameters ("margin", "classes")


GENERATORS: dict[str, Generator] = {
    g.name: g
    for g in (
        Generator("blobs", "Gaussian blobs", blobs, ("classes",)),
        Generator("moons", "Two moons", two_moons),
        Generator("circles", "Circles (disc in a ring)", circles),
        Generator("xor", "XOR (four clusters)", xor),
        Generator("spirals", "Two spirals", spirals),
        Generator("separable", "Linearly separable, chosen margin", separable, ("margin",)),
    )
}


def generate(name: str, n: int = 100, noise: float = 0.1, seed: int = 0, **extra) -> PointSet:
    """Points from the generator `name`; one clear message for bad values."""
    if name not in GENERATORS:
        raise ParameterError(f"Unknown generator '{name}'. Known: {', '.join(GENERATORS)}.")
    if not 2 <= int(n) <= 100_000:
        raise ParameterError(f"The number of points must be between 2 and 100000; got {n}.")
    if not (np.isfinite(noise) and noise >= 0):
        raise ParameterError(f"The noise must be a number ≥ 0; got {noise}.")
    g = GENERATORS[name]
    unknown = set(extra) - set(g.extra)
    if unknown:
        raise ParameterError(f"The {g.label} generator has no parameter {', '.join(sorted(unknown))}.")
    if "classes" in extra and not 2 <= int(extra["classes"]) <= 6:
        raise ParameterError(f"Blobs take 2 to 6 classes; got {extra['classes']}.")
    return g.make(int(n), float(noise), int(seed), **extra)


__all__ = ["GENERATORS", "Generator", "generate", "blobs", "circles", "separable", "spirals", "two_moons", "xor"]
