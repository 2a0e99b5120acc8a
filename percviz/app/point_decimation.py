"""Which points the canvas draws: all of them up to a cap, else a stable subsample of those in view (exact when zoomed in)."""

from __future__ import annotations

import numpy as np

#: Above this many points the canvas draws a subsample (pyqtgraph repaints every spot on every frame).
DRAW_CAP = 10_000


class PointDecimator:
    """A fixed random rank per point; in a view holding more than `cap` points, the `cap` of lowest rank are drawn."""

    def __init__(self, cap: int = DRAW_CAP, seed: int = 0):
        self.cap = int(cap)
        self._seed = seed
        self._rank = np.zeros(0, dtype=np.int64)

    def shown(self, X: np.ndarray, view: tuple[tuple[float, float], tuple[float, float]] | None) -> np.ndarray | None:
        """Indices to draw, or None for all of them (at most `cap` points, or no view yet)."""
        n = len(X)
        if n <= self.cap:
            return None
        if len(self._rank) != n:
            self._rank = np.random.default_rng(self._seed).permutation(n)
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
