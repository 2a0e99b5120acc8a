"""The normalized signed Gram matrix G as an operator: dense n×n, or factored G = F Fᵀ with F of width D ≪ n.

For kernels with a finite feature map (linear, affine, polynomial) F's rows are y_i φ(x_i)/√K(x_i, x_i), so G·v
costs O(nD) and a column O(nD), and the n×n matrix is never built unless asked for (`dense()`, within the memory
budget). Other kernels (RBF, Laplacian) keep the dense matrix, refused before allocation beyond the budget.
"""

from __future__ import annotations

import math
import os
import re
from collections import Counter
from itertools import combinations_with_replacement

import numpy as np

from percviz.core.dense_gram import build_dense, dense_bytes, shared_dense, storage_dtype
from percviz.core.errors import DataError

#: Feature maps wider than this are not factored (G·v would cost n·D, no cheaper than the dense product).
MAX_FACTOR_WIDTH = 512
#: 'auto' factors G only above this many points: below it the dense G is cheap (≤ 8 MB), and keeping it
#: keeps the rounding, hence the tie-breaking on symmetric classroom sets (XOR), exactly that of the kernel matrix.
FACTOR_MIN_N = 1000
#: Dense n×n float64 matrices alive while G is built (kernel matrix, products, the symmetrized copy).
DENSE_BUILD_MATRICES = 3.5
BUDGET_ENV = "PERCVIZ_MEMORY_BUDGET"
DEFAULT_BUDGET = 4 * 2**30
FORMS = ("auto", "dense", "factored")


def budget_bytes() -> int:
    """The memory budget: PERCVIZ_MEMORY_BUDGET (bytes, or with K/M/G/T) if set and valid, else 4 GiB."""
    raw = os.environ.get(BUDGET_ENV, "").strip().upper().removesuffix("B").removesuffix("I")
    m = re.fullmatch(r"(\d+(?:\.\d*)?)\s*([KMGT]?)", raw)
    if not m:
        return DEFAULT_BUDGET
    return int(float(m.group(1)) * 1024 ** " KMGT".index(m.group(2) or " "))


def require_dense(n: int, count: float, kernel_spec: str) -> None:
    """Refuse, in one line, building `count` n×n float64 matrices beyond the memory budget."""
    need, budget = 8.0 * count * n * n, budget_bytes()
    if need > budget:
        most = int(math.sqrt(budget / (8.0 * count)))
        raise DataError(
            f"The {n:,}×{n:,} Gram matrix of the {kernel_spec} kernel would need about {need / 2**30:.3g} GiB; "
            f"the memory budget is {budget / 2**30:.3g} GiB. Use at most {most:,} points with this kernel, a kernel "
            f"with a finite feature map (linear, affine, poly), or raise {BUDGET_ENV} (e.g. {int(need / 2**30) + 1}G)."
        )


def _poly_features(U: np.ndarray, degree: int) -> np.ndarray | None:
    """Φ with Φ Φᵀ = (U Uᵀ)^degree: √(multinomial) · Π u_k^{a_k} over the multisets a of size degree."""
    m = U.shape[1]
    if math.comb(m + degree - 1, degree) > MAX_FACTOR_WIDTH:
        return None
    cols = []
    for combo in combinations_with_replacement(range(m), degree):
        counts = Counter(combo)
        coef = math.factorial(degree)
        col = np.ones(U.shape[0])
        for k, a in counts.items():
            coef //= math.factorial(a)
            col = col * U[:, k] ** a
        cols.append(math.sqrt(coef) * col)
    return np.column_stack(cols)


def kernel_features(kernel, X) -> np.ndarray | None:
    """Φ (n×D) with Φ Φᵀ = K(X, X) when the kernel has a finite feature map of width ≤ MAX_FACTOR_WIDTH, else None."""
    X = np.atleast_2d(np.asarray(X, dtype=float))
    name = getattr(kernel, "name", "")
    if name == "linear":
        return X.copy()
    if name == "affine":
        return np.column_stack([np.ones(X.shape[0]), X])
    if name == "poly":
        c = float(kernel.c)
        U = np.column_stack([np.full(X.shape[0], math.sqrt(c)), X]) if c > 0 else X
        return _poly_features(U, int(kernel.degree))
    return None


class GramOperator:
    """G (n×n, symmetric, unit diagonal) through products: G·v, columns, blocks, the diagonal, vᵀGv."""

    #: The n×D factor F with G = F Fᵀ, or None for a dense G.
    factor: np.ndarray | None = None
    #: False when G is stored in float32 (claims are then re-checked in float64 on the points).
    exact: bool = True

    def __init__(self, n: int, kernel_spec: str):
        self.n, self.kernel_spec = n, kernel_spec
        self._dense: np.ndarray | None = None
        self._diag = np.ones(n)
        self._diag.setflags(write=False)

    @property
    def shape(self) -> tuple[int, int]:
        return (self.n, self.n)

    def __matmul__(self, v):
        return self.matvec(v)

    def matvec(self, v) -> np.ndarray:
        """G·v for a vector (n,) or a block of columns (n, k)."""
        raise NotImplementedError

    def column(self, i: int) -> np.ndarray:
        """G[:, i] (= G[i] by symmetry)."""
        raise NotImplementedError

    def block(self, rows, cols=None) -> np.ndarray:
        """G[rows][:, cols] (cols defaults to rows)."""
        raise NotImplementedError

    def columns(self, idx) -> np.ndarray:
        """G[:, idx] as an n×k array."""
        return self.block(np.arange(self.n), idx)

    def diag(self) -> np.ndarray:
        """The diagonal (1 for a normalized G, to rounding)."""
        return self._diag

    def quad(self, v) -> float:
        """vᵀ G v (rounding below zero clipped to 0)."""
        v = np.asarray(v, dtype=float)
        return max(float(v @ self.matvec(v)), 0.0)

    def dense(self) -> np.ndarray:
        """The n×n matrix (read-only), built once; refused beyond the memory budget."""
        raise NotImplementedError


class DenseGram(GramOperator):
    """G held as an n×n array (float64, or float32 for large RBF/Laplacian sets: core.dense_gram)."""

    def __init__(self, G: np.ndarray, kernel_spec: str = ""):
        super().__init__(G.shape[0], kernel_spec)
        self._dense = G
        self.dtype = G.dtype

    @property
    def exact(self) -> bool:
        """Whether G is float64 (claims made on a float32 G are re-checked in float64 before they are shown)."""
        return self.dtype == np.float64

    def matvec(self, v):
        if self.exact:
            return self._dense @ v
        # float32 storage: the product in float32 (never an n×n float64 copy), returned as float64
        return (self._dense @ np.asarray(v, dtype=self.dtype)).astype(float)

    def column(self, i):
        return self._dense[i]  # a row view of the symmetric matrix: no copy

    def block(self, rows, cols=None):
        rows = np.asarray(rows, dtype=np.intp)
        cols = rows if cols is None else np.asarray(cols, dtype=np.intp)
        return self._dense[np.ix_(rows, cols)]

    def dense(self):
        return self._dense


class FactoredGram(GramOperator):
    """G = F Fᵀ with F the n×D signed normalized features.

    Every entry, the diagonal included, is the computed F_i·F_j (1 ± a few eps on the diagonal), so G stays a
    Gram matrix to rounding: a point given both labels has F_j = −F_i and ‖e_i + e_j‖²_G = 0 exactly.
    """

    def __init__(self, F: np.ndarray, kernel_spec: str = ""):
        super().__init__(F.shape[0], kernel_spec)
        F = np.ascontiguousarray(F, dtype=float)
        F.setflags(write=False)
        self.factor = F
        self._diag = np.einsum("ij,ij->i", F, F)
        self._diag.setflags(write=False)

    @property
    def width(self) -> int:
        return self.factor.shape[1]

    def matvec(self, v):
        v = np.asarray(v, dtype=float)
        return self.factor @ (self.factor.T @ v)

    def column(self, i):
        return self.factor @ self.factor[i]

    def block(self, rows, cols=None):
        rows = np.asarray(rows, dtype=np.intp)
        cols = rows if cols is None else np.asarray(cols, dtype=np.intp)
        return self.factor[rows] @ self.factor[cols].T

    def quad(self, v):
        w = self.factor.T @ np.asarray(v, dtype=float)
        return float(w @ w)

    def dense(self):
        if self._dense is None:
            require_dense(self.n, 2, self.kernel_spec)
            G = self.factor @ self.factor.T
            G = 0.5 * (G + G.T)
            G.setflags(write=False)
            self._dense = G
        return self._dense


def dense_signed_gram(problem, dtype=np.float64) -> np.ndarray:
    """G_ij = y_i y_j K(x_i, x_j)/√(K_ii K_jj) as a read-only n×n array, built in place in row blocks
    (core.dense_gram), refused beyond the memory budget."""
    return build_dense(problem, dtype)


def signed_factor_rows(problem) -> np.ndarray | None:
    """F with rows y_i φ(x_i)/√K(x_i, x_i) (F Fᵀ = G) when the kernel has a finite feature map, else None."""
    Phi = kernel_features(problem.kernel, problem.X)
    if Phi is None:
        return None
    s = problem.y / np.sqrt(problem.self_kernel)  # self_kernel refuses K(x, x) ≤ 0, naming the point
    F = Phi * s[:, None]
    if not np.isfinite(F).all():
        raise DataError(f"The {problem.kernel.spec} kernel overflows on these points; scale the data down.")
    return F


def factored_width(problem, form: str = "auto") -> int | None:
    """D when signed_gram(problem, form) keeps G as its n×D factor, else None (a dense n×n G)."""
    n = problem.n
    finite = kernel_features(problem.kernel, problem.X[:1]) if n else None
    if finite is not None and form != "dense" and (form == "factored" or n > FACTOR_MIN_N):
        return finite.shape[1]
    return None


def gram_bytes(problem, form: str = "auto") -> float:
    """What signed_gram(problem, form) will hold, estimated without building it (for budget checks)."""
    D = factored_width(problem, form)
    if D is not None:
        return 8.0 * problem.n * (D + 8)  # F and a few n-vectors of the algorithms
    return dense_bytes(problem.n, storage_dtype(problem.n, getattr(problem, "gram_dtype", "auto")))


def signed_gram(problem, form: str = "auto") -> GramOperator:
    """G of a Problem: 'auto' factors it above FACTOR_MIN_N points when the kernel has a finite feature map."""
    if form not in FORMS:
        raise ValueError(f"gram form must be one of {FORMS}, not {form!r}")
    spec = problem.kernel.spec
    small = form == "auto" and problem.n <= FACTOR_MIN_N
    F = None if form == "dense" or small else signed_factor_rows(problem)
    if F is not None:
        return FactoredGram(F, spec)
    if form == "factored":
        raise DataError(f"The {spec} kernel has no finite feature map of width ≤ {MAX_FACTOR_WIDTH}; use the dense G.")
    dtype = storage_dtype(problem.n, getattr(problem, "gram_dtype", "auto"))
    return DenseGram(shared_dense(problem, dtype, dense_signed_gram), spec)
