"""Which points the canvas draws: all of them up to a cap, else a stable subsample of those in view (exact when zoomed in)."""

from __future__ import annotations

import numpy as np

#: Above this many points the canvas draws a subsample (pyqtgraph repaints every spot on every frame).
DRAW_CAP = 10_000


def coordinate_ranks(X: np.ndarray, seed: int = 0) -> np.ndarray:
    """A pseudo-random rank per point read from its coordinates' bits (a splitmix64 mix), so a point keeps its
    rank when others are added, deleted (indices shift) or moved; O(n)."""
    b = np.ascontiguousarray(X, dtype=np.float64).view(np.uint64).reshape(len(X), -1)
    h = np.full(len(X), np.uint64(seed) ^ np.uint64(0x9E3779B97F4A7C15))
    with np.errstate(over="ignore"):  # (uint64 arithmetic wraps, as the mix intends)
        for col in b.T:
            h = (h ^ col) * np.uint64(0xBF58476D1CE4E5B9)
            h ^= h >> np.uint64(31)
            h *= np.uint64(0x94D049BB133111EB)
            h ^= h >> np.uint64(29)
    return h


class PointDecimator:
    """A fixed pseudo-random rank per point (`coordinate_ranks`); in a view holding more than `cap` points, the
    `cap` of lowest rank are drawn. An edit of one point changes at most a point or two of the drawing (a fresh
    permutation at every change of n redrew a different 10,000 of 100,000 points after each add or delete)."""

    def __init__(self, cap: int = DRAW_CAP, seed: int = 0):
        self.cap = int(cap)
        self._seed = seed
        self._rank = np.zeros(0, dtype=np.uint64)
        self._ranked: np.ndarray | None = None  # the (immutable) coordinate array the ranks belong to

    def shown(self, X: np.ndarray, view: tuple[tuple[float, float], tuple[float, float]] | None) -> np.ndarray | None:
        """Indices to draw, or None for all of them (at most `cap` points, or no view yet)."""
        n = len(X)
        if n <= self.cap:
            return None
        if self._ranked is not X:
            self._rank, self._ranked = coordinate_ranks(X, self._seed), X
        idx = np.arange(n)
        if view is not None:
            (x0, x1), (y0, y1) = view
            # a margin of half the view on each side, so a small pan does not show an empty border
            dx, dy = 0.5 * (x1 - x0), 0.5 * (y1 - y0)
            inside = (X[:, 0] >= x0 - dx) & (X[:, 0] <= x1 + dx) & (X[:, 1] >= y0 - dy) & (X[:, 1] <= y1 + dy)
            idx = np.flatnonzero(inside)
        if len(idx) > self.cap:
            idx = np.sort(idx[np.argpartition(self._rank[idx], self.cap)[: self.cap]])
        return idx
