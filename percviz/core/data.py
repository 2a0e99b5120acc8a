"""Labelled point sets in R^d (d ≥ 1; the canvas shows d = 2): classes 0..c-1, with the signed ±1 view for two-class work."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from percviz.core.errors import DataError

#: Class 0 is drawn as "+", class 1 as "−"; the signed label of class 0 is +1, of class 1 is −1.
POSITIVE, NEGATIVE = 0, 1


def format_point(row, shown: int = 4) -> str:
    """A point's coordinates for a message: (x1, x2, …), the first few only."""
    vals = ", ".join(f"{float(v):g}" for v in row[:shown])
    return f"({vals}{', …' if len(row) > shown else ''})"


def as_rows(X) -> np.ndarray:
    """X as a float array of rows: one point (a 1-D array) becomes a 1×d matrix."""
    X = np.asarray(X, dtype=float)
    return X.reshape(1, -1) if X.ndim == 1 else X


#: Classes 0 … 63 (the preset format's limit).
MAX_CLASSES = 64


def _readonly(a: np.ndarray) -> np.ndarray:
    a = np.array(a, copy=True)
    a.setflags(write=False)
    return a


@dataclass(frozen=True, eq=False)
class PointSet:
    """Points X (n×d, finite, d ≥ 1; d = 2 for the canvas) with class indices 0..c-1; immutable."""

    X: np.ndarray
    classes: np.ndarray

    def __init__(self, X, classes):
        X = np.asarray(X, dtype=float)
        if X.size == 0 and X.ndim < 2:
            X = X.reshape(0, 2)
        if X.ndim != 2 or X.shape[1] < 1:
            raise DataError(
                f"Points must be an n×d array (one row of d ≥ 1 coordinates per point); got shape {X.shape}."
            )
        bad = ~np.isfinite(X).all(axis=1)
        if bad.any():
            i = int(np.flatnonzero(bad)[0])
            raise DataError(
                f"Point {i} has a non-finite coordinate {format_point(X[i])}; "
                "remove it or give it finite coordinates."
            )
        if (np.abs(X) > 1e150).any():
            i = int(np.flatnonzero((np.abs(X) > 1e150).any(axis=1))[0])
            raise DataError(f"Point {i} has a coordinate too large to compute with: {format_point(X[i])}.")
        c = np.asarray(classes)
        if c.shape != (X.shape[0],):
            raise DataError(f"Expected {X.shape[0]} class labels, got an array of shape {c.shape}.")
        if c.size and (not np.issubdtype(c.dtype, np.number) or np.any(c != np.round(c)) or c.min() < 0):
            raise DataError("Class labels must be whole numbers 0, 1, 2, …")
        object.__setattr__(self, "X", _readonly(X))
        object.__setattr__(self, "classes", _readonly(c.astype(np.int64)))

    @classmethod
    def from_signed(cls, X, y) -> "PointSet":
        """Build from ±1 labels (+1 → class 0 '+', −1 → class 1 '−')."""
        y = np.asarray(y)
        if y.size and not np.all(np.isin(y, (-1, 1))):
            raise DataError("Signed labels must be +1 or −1.")
        return cls(X, np.where(y > 0, POSITIVE, NEGATIVE))

    @classmethod
    def from_labels(cls, X, labels) -> "PointSet":
        """Build from file labels: {+1, −1} or {1, 0} are two-class (1 is '+'); else classes 0..c-1."""
        lab = np.asarray(labels, dtype=float)
        if lab.size and not np.isfinite(lab).all():
            raise DataError("Labels must be finite numbers.")
        if lab.size and np.any(lab != np.round(lab)):
            raise DataError("Labels must be whole numbers (+1/−1, 1/0, or classes 0, 1, 2, …).")
        vals = set(np.unique(lab).tolist())
        if vals <= {-1.0, 1.0} or vals <= {0.0, 1.0}:
            return cls(X, np.where(lab == 1, POSITIVE, NEGATIVE))
        if min(vals) < 0:
            raise DataError(f"Labels {sorted(vals)} mix negative numbers with classes; use +1/−1 or 0, 1, 2, ….")
        if max(vals) >= MAX_CLASSES:
            i = int(np.argmax(lab))
            raise DataError(
                f"Label {lab[i]:g} (point {i}) is not a class: use +1/−1, 1/0, or classes 0, 1, … {MAX_CLASSES - 1}."
            )
        return cls(X, lab.astype(np.int64))

    @property
    def n(self) -> int:
        return int(self.X.shape[0])

    @property
    def dim(self) -> int:
        """d, the number of coordinates of each point."""
        return int(self.X.shape[1])

    def require_plane(self, where: str = "The window") -> None:
        """Raise DataError unless the points are 2-D (the canvas and geometry views draw the plane)."""
        if self.dim != 2:
            raise DataError(
                f"{where} shows 2-D scenes, but these points have d = {self.dim} coordinates; run them with "
                "'percviz solve'/'percviz margin' or percviz.estimators, or reduce them to 2 columns first "
                "(e.g. with PCA)."
            )

    @property
    def n_classes(self) -> int:
        """Number of classes in use: max class index + 1 (at least 2)."""
        return max(2, int(self.classes.max()) + 1) if self.n else 2

    @property
    def y(self) -> np.ndarray:
        """Signed labels ±1; only for two-class data."""
        if self.n and self.classes.max() > 1:
            raise DataError(
                f"This algorithm needs two classes (+ and −), but the points use {self.n_classes} classes; "
                "choose a multi-class algorithm or relabel the points."
            )
        return np.where(self.classes == POSITIVE, 1.0, -1.0)

    def signed_labels(self) -> np.ndarray:
        """File labels: +1/−1 for two-class data, class indices otherwise."""
        if self.n and self.classes.max() > 1:
            return self.classes.copy()
        return np.where(self.classes == POSITIVE, 1, -1)

    def require_two_classes(self, who: str = "This algorithm") -> None:
        """Raise DataError unless both + and − points are present (and nothing else)."""
        y = self.y
        if self.n == 0:
            raise DataError(f"{who} needs points: place some + and − points first.")
        if not (y > 0).any() or not (y < 0).any():
            missing = "−" if (y > 0).all() else "+"
            raise DataError(
                f"{who} needs at least one point of each label; there is no {missing} point. "
                f"Add a {missing} point (right click places −, left click places +)."
            )

    def __len__(self) -> int:
        return self.n

    def __eq__(self, other) -> bool:
        return (
            isinstance(other, PointSet)
            and np.array_equal(self.X, other.X)
            and np.array_equal(self.classes, other.classes)
        )

    __hash__ = None  # type: ignore[assignment]
