"""NKP's iterate on a factored G = F Fᵀ: O(D) per update plus an exact argmin oracle instead of O(n) vector work."""

from __future__ import annotations

import numpy as np

from percviz.core import gram
from percviz.core.gram_operator import FactoredGram

class HullWalk:
    """argmin_i F_i·w by descent along the edges of the convex hull of the rows (D ≤ 3, once O(n log n)).

    A linear function's local minimum over a polytope's vertex graph is its global minimum, so walking from the
    best of the last few answers to a better neighbour until none is better finds argmin_i F_i·w; NKP's successive
    w are close or return to recent worst points (e.g. the two rows ±F_i of a point given both labels), so a
    walk is a few edges. Points sharing a row are one vertex, answered by their smallest index.
    """

    def __init__(self, F: np.ndarray):
        from scipy.spatial import ConvexHull

        order = np.lexsort(F.T[::-1])
        Fs = F[order]
        new = np.ones(len(order), dtype=bool)
        new[1:] = np.any(Fs[1:] != Fs[:-1], axis=1)
        starts = np.flatnonzero(new)
        self._first = np.minimum.reduceat(order, starts)  # smallest index of each distinct row
        self.rows = np.ascontiguousarray(Fs[starts])
        tri = ConvexHull(self.rows).simplices
        m = np.int64(len(self.rows))
        a, b = tri.astype(np.int64).T[[0, 1, 2, 1, 2, 0]], tri.astype(np.int64).T[[1, 2, 0, 0, 1, 2]]
        code = np.sort((a * m + b).ravel())
        code = code[np.r_[True, code[1:] != code[:-1]]]  # each directed edge once, sorted by its tail
        self._nbr = code % m
        self._ptr = np.searchsorted(code // m, np.arange(m + 1))
        self._recent = np.full(8, int(tri[0, 0]))  # the last answers: walks start from the best of them

    def __call__(self, w: np.ndarray) -> tuple[int, float]:
        """(j, F_j·w) with j = argmin_i F_i·w."""
        rows, nbr, ptr, recent = self.rows, self._nbr, self._ptr, self._recent
        v = rows[recent] @ w
        i = int(np.argmin(v))
        j, vj = int(recent[i]), float(v[i])
        while True:
            nb = nbr[ptr[j]:ptr[j + 1]]
            v = rows[nb] @ w
            i = int(np.argmin(v))
            if not v[i] < vj:
                break
            j, vj = int(nb[i]), float(v[i])
        if j not in recent:
            recent[1:] = recent[:-1].copy()
            recent[0] = j
        return int(self._first[j]), vj


class FullScan:
    """argmin_i F_i·w by the full product (any D; O(nD) per call)."""

    def __init__(self, F: np.ndarray):
        self.F = F

    def __call__(self, w: np.ndarray) -> tuple[int, float]:
        g = self.F @ w
        j = int(np.argmin(g))
        return j, float(g[j])


def argmin_oracle(F: np.ndarray):
    """The fastest exact argmin_i F_i·w available for F: the hull walk for D = 3 in general position, else a scan."""
    if F.shape[1] == 3 and F.shape[0] > 64:
        from scipy.spatial import QhullError

        try:
            return HullWalk(F)
        except (QhullError, ValueError):  # flat or degenerate rows (e.g. all points on a line)
            pass
    return FullScan(F)


class FactoredNKP:
    """α_k = c/k with c_j counting the steps that chose point j (θ_k = 1/(k+1) makes α_k the running average of
    the chosen vertices), and w_k = Fᵀα_k = s/k with s the sum of the chosen rows, so Gα_k = F w_k.

    argmin_j (Gα_k)_j comes from argmin_oracle; the exit test Gα_k > 0 reads that same minimum and is confirmed on
    the whole of F w_k (O(nD), once) before a separator is claimed.
    """

    def __init__(self, G: FactoredGram):
        self.F = G.factor
        self.n = self.F.shape[0]
        self._argmin = argmin_oracle(self.F)
        self.counts = np.zeros(self.n)
        self.s = np.zeros(self.F.shape[1])
        self.k = 0
        self._next: tuple[int, float] | None = None  # (argmin_j (Gα_k)_j, its value) once known

    @property
    def w(self) -> np.ndarray:
        return self.s / self.k if self.k else self.s.copy()

    @property
    def alpha(self) -> np.ndarray:
        return self.counts / self.k if self.k else self.counts.copy()

    @property
    def Ga(self) -> np.ndarray:
        return self.F @ self.w

    def _worst(self) -> tuple[int, float]:
        if self._next is None:
            self._next = self._argmin(self.w) if self.k else (0, 0.0)  # Gα_0 = 0: the smallest index
        return self._next

    def step(self) -> int:
        """α_{k+1} = (1 − θ_k)α_k + θ_k e_j, j = argmin_j (Gα_k)_j; returns j."""
        j = self._worst()[0]
        self.counts[j] += 1.0
        self.s += self.F[j]
        self.k += 1
        self._next = None
        return j

    def separated(self) -> bool:
        """Gα_k > 0 above rounding (gram.separates with ‖α_k‖₁ = 1), checked on every point before it is claimed."""
        level = gram.rounding_level(self.n, None, 1.0)
        if self.k == 0 or self._worst()[1] <= level:
            return False
        Ga = self.Ga
        if gram.separates(Ga, None, 1.0):
            return True
        j = int(np.argmin(Ga))  # (only if rounding fooled the candidates: take the true minimum)
        self._next = (j, float(Ga[j]))
        return False
