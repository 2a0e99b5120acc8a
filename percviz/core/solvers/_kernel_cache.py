"""Kernel columns K(X, x_i) computed on demand and kept in a least-recently-used cache of bounded size."""

from __future__ import annotations

from collections import OrderedDict

import numpy as np

from percviz.core.errors import DataError
from percviz.core.kernels import AffineKernel, Kernel, LinearKernel, RBFKernel


class KernelColumns:
    """Columns of the n×n kernel matrix, never the whole matrix: memory is O(n) beyond `budget_bytes`."""

    def __init__(self, kernel: Kernel, X: np.ndarray, budget_bytes: float):
        self.kernel = kernel
        self.X = np.ascontiguousarray(X, dtype=float)
        n = self.X.shape[0]
        self.capacity = int(max(2, min(n, budget_bytes // max(8 * n, 1))))
        self.diag = np.asarray(kernel.diag(self.X), dtype=float)
        if not np.isfinite(self.diag).all():
            raise DataError(f"The {kernel.spec} kernel overflows on these points; scale the data down.")
        self._XT = np.ascontiguousarray(self.X.T)
        self._sq = np.einsum("ij,ij->i", self.X, self.X) if isinstance(kernel, RBFKernel) else None
        self._cols: OrderedDict[int, np.ndarray] = OrderedDict()
        self.computed = 0  # columns evaluated so far (misses), for the benchmark
        # SMO's curvatures are kept too when the budget holds every column twice (else made from the column)
        self._curv: dict[int, np.ndarray] | None = {} if budget_bytes >= 16.0 * n * n else None

    def __call__(self, i: int) -> np.ndarray:
        """K(x_t, x_i) for every t (read-only)."""
        col = self._cols.get(i)
        if col is not None:
            self._cols.move_to_end(i)
            return col
        col = self._compute(i)
        if len(self._cols) >= self.capacity:
            self._cols.popitem(last=False)
        self._cols[i] = col
        return col

    def curvature(self, i: int, tau: float = 1e-12) -> np.ndarray:
        """max(K_ii + K_tt − 2 K_it, tau) for every t: the second derivative along the pair direction (i, t)."""
        a = None if self._curv is None else self._curv.get(i)
        if a is None:
            a = self(i) * -2.0
            a += self.diag
            a += self.diag[i]
            np.maximum(a, tau, out=a)
            a.setflags(write=False)
            if self._curv is not None:
                self._curv[i] = a
        return a

    def _compute(self, i: int) -> np.ndarray:
        self.computed += 1
        if self._sq is not None:  # RBF: ‖x_t − x_i‖² = ‖x_t‖² + ‖x_i‖² − 2 x_t·x_i, one pass fewer than gram()
            d2 = self.X @ (-2.0 * self.X[i])
            d2 += self._sq
            d2 += self._sq[i]
            np.maximum(d2, 0.0, out=d2)
            col = np.exp(d2 * -self.kernel.gamma, out=d2)
        else:
            col = np.asarray(self.kernel(self.X, self.X[i : i + 1]), dtype=float).reshape(-1)
        col[i] = self.diag[i]  # the same K(x_i, x_i) as the diagonal, whatever the rounding of the formula
        if not np.isfinite(col).all():
            raise DataError(f"The {self.kernel.spec} kernel overflows on these points; scale the data down.")
        col.setflags(write=False)
        return col

    def loop_kernel(self) -> tuple:
        """(kind, X, ‖x‖², γ) for SMO's loop, which computes the columns of these kernels itself (kind 0: not)."""
        from percviz.core.solvers._smo_loop import FILL_AFFINE, FILL_LINEAR, FILL_NONE, FILL_RBF

        kind = {RBFKernel: FILL_RBF, LinearKernel: FILL_LINEAR, AffineKernel: FILL_AFFINE}.get(type(self.kernel))
        if kind is None or self.X.shape[1] == 0:
            return (FILL_NONE, np.zeros((1, 1)), np.zeros(1), 0.0)
        sq = self._sq if self._sq is not None else np.zeros(len(self.X))
        return (kind, self.X, sq, float(self.kernel.gamma) if kind == FILL_RBF else 0.0)

    def block(self, idx: np.ndarray) -> np.ndarray:
        """The columns K(X, x_i) for i in idx as the rows of one array.

        Every entry is computed the same way whatever idx holds (so the iterates never depend on the cache size):
        the dot products x_i·x_t of the RBF, linear and affine kernels term by term over the few coordinates,
        not by BLAS (whose summation order follows the block's shape); other kernels one column at a time.
        """
        idx = np.asarray(idx, dtype=np.int64)
        self.computed += len(idx)
        X, kind = self.X, type(self.kernel)
        if kind in (RBFKernel, LinearKernel, AffineKernel) and X.shape[1] <= 8:
            XT = self._XT
            dot = XT[0] * X[idx, 0, None]  # the products and sums of x_i·x_t in the same order for any block
            for k in range(1, X.shape[1]):
                dot += XT[k] * X[idx, k, None]
            if kind is RBFKernel:
                dot *= -2.0
                dot += self._sq
                dot += self._sq[idx, None]
                np.maximum(dot, 0.0, out=dot)
                rows = np.exp(dot * -self.kernel.gamma, out=dot)
            else:
                rows = dot + 1.0 if kind is AffineKernel else dot
        else:
            rows = np.empty((len(idx), X.shape[0]))
            for r, i in enumerate(idx):
                rows[r] = np.asarray(self.kernel(X, X[i : i + 1]), dtype=float).reshape(-1)
        rows[np.arange(len(idx)), idx] = self.diag[idx]
        if not np.isfinite(rows).all():
            raise DataError(f"The {self.kernel.spec} kernel overflows on these points; scale the data down.")
        return rows

    def expansion(self, idx: np.ndarray, coef: np.ndarray, chunk_bytes: float = 32e6) -> np.ndarray:
        """Σ_k coef_k K(X, x_{idx_k}) in blocks of at most `chunk_bytes` (O(n) memory beyond the block)."""
        n = self.X.shape[0]
        out = np.zeros(n)
        step = int(max(1, chunk_bytes // max(8 * n, 1)))
        for s in range(0, len(idx), step):
            block = idx[s : s + step]
            out += np.asarray(self.kernel(self.X, self.X[block]), dtype=float) @ coef[s : s + step]
        return out
