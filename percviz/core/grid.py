"""Fast evaluation of a snapshot's decision function on a view grid (float32), and its level curves.

The canvas redraws the decision function many times a second while an algorithm animates, so the
evaluation must cost far less than the naive Σ_i coef_i K(z, x_i) over every grid point z:

- affine decision functions (``decision.affine()`` is not None) are evaluated in closed form;
- kernel expansions cache, per point (keyed on the grid and the point's coordinates), what the point
  contributes: for product kernels (RBF, Laplacian) K(z, x) = k₁(z₁ − x₁)·k₂(z₂ − x₂), so a point needs
  only its two factor rows (nx + ny values) and the whole image is one (ny × n)(n × nx) product; other
  kernels cache the full column K(grid, x_i). Only new or moved points cost kernel evaluations, and when
  few coefficients changed since the last frame only those are added in (f += Δcoef · rows);
- polynomial kernels need no cache at all: Σ_i coef_i (z·x_i + c)^p is a polynomial of degree p in z,
  evaluated from its (p+1)(p+2)/2 coefficients (`polynomial_image`);
- explicit feature maps cache φ(grid) and need one matrix product per frame; random Fourier features
  are separable instead: cos(ω₁z₁ + ω₂z₂ + c) = cos(ω₁z₁)cos(ω₂z₂ + c) − sin(ω₁z₁)sin(ω₂z₂ + c), so the
  image is two (ny × D)(D × nx) products from D·(nx + ny) cosines (D = 5000 on 256² would be 330 million);
- multi-class decision functions return c planes; their argmax gives the regions.

Memory (percviz.core.budget): `GridEvaluator.plan` estimates what an evaluation allocates before it allocates
(φ(grid), per-axis cosines, the image planes) and gives a coarser grid over the same rectangle when the grid
would exceed the budget, or refuses in one line when not even MIN_SIDE × MIN_SIDE fits; the caches (per-point
rows, K(X, centres), φ(X)) hold at most `cache_budget()`, beyond which values are computed in blocks, uncached.
"""

from __future__ import annotations

import contextlib
from dataclasses import dataclass
from typing import Callable

import numpy as np

from percviz.core import budget
from percviz.core.decision import EVAL_BLOCK, DecisionFunction, FeatureLinear, KernelExpansion
from percviz.core.dense_gram import kernel_matrix
from percviz.core.features import RandomFourier

#: Product kernels K(z, x) = h(z₁ − x₁)·h(z₂ − x₂): kernel name → h(gamma, difference).
SEPARABLE_FACTORS: dict[str, Callable[[float, np.ndarray], np.ndarray]] = {
    "rbf": lambda gamma, d: np.exp(-gamma * d * d),
    "laplacian": lambda gamma, d: np.exp(-gamma * np.abs(d)),
}

_POOLS = None


def one_blas_thread():
    """Run BLAS single-threaded inside (threadpoolctl, when installed; else no change).

    The grid products are small (a few ms); a multi-threaded BLAS competing with a solver thread or
    other processes on two cores stalls them by tens of milliseconds, which a redraw cannot afford.
    """
    global _POOLS
    if _POOLS is None:
        try:
            # scipy.linalg brings its own OpenBLAS, loaded on first import: a controller made before it never
            # limits it, and the solver thread's LAPACK calls (input-space SVM's lstsq) ran two spinning threads
            import scipy.linalg  # noqa: F401
            from threadpoolctl import ThreadpoolController

            _POOLS = ThreadpoolController()
        except Exception:  # not installed, or no BLAS found: leave the threads alone
            _POOLS = False
    return _POOLS.limit(limits=1, user_api="blas") if _POOLS else contextlib.nullcontext()


#: Refresh an incrementally updated image from scratch after this many incremental frames (float32 drift).
_REFRESH_EVERY = 32

#: The caches of a GridEvaluator hold at most this (bytes), and at most an eighth of the memory budget.
CACHE_BYTES = 192 * 2**20
#: A grid is never coarsened below this many cells a side: below, the drawing is refused.
MIN_SIDE = 16


def cache_budget() -> int:
    """Bytes a GridEvaluator may keep cached: CACHE_BYTES, or an eighth of the memory budget if smaller."""
    return int(min(CACHE_BYTES, budget.budget_bytes() / 8))


def grid_bytes(decision: DecisionFunction, grid: "ViewGrid") -> float:
    """Bytes evaluating `decision` on `grid` allocates at its peak (images, φ(grid) or per-axis tables)."""
    m, c = grid.nx * grid.ny, max(1, int(decision.n_outputs))
    planes = 3 * 4.0 * c * m + 16.0 * m  # float32 output planes and temporaries, the grid points (float64)
    if decision.n_outputs == 1 and decision.affine() is not None:
        return planes
    if isinstance(decision, FeatureLinear):
        if isinstance(decision.features, RandomFourier):
            # cos/sin of ω·x per axis (float64 while computed, kept in float32), and one (ny × D) product term
            return planes + decision.features.dim * (40.0 * (grid.nx + grid.ny) + 8.0 * grid.ny)
        d_hat = decision.features.dimension()
        return planes + 20.0 * m * d_hat  # φ(grid): float64 columns, stacked, kept in float32
    if isinstance(decision, KernelExpansion):
        nnz = max(1, int(np.count_nonzero(decision.coef)))
        if decision.kernel.name in SEPARABLE_FACTORS:  # two factor rows per point (float64, then float32)
            return planes + 12.0 * nnz * (grid.nx + grid.ny)
        if decision.kernel.name == "poly":  # closed form: no per-point rows at all
            return planes
        # per-point columns are cached within cache_budget(); computing them (or a direct evaluation) works in
        # blocks of at most EVAL_BLOCK float64 values
        return planes + 16.0 * min(m * nnz, EVAL_BLOCK)
    return planes + 16.0 * m


@dataclass(frozen=True)
class ViewGrid:
    """An nx × ny grid of pixel centres covering [x_min, x_max] × [y_min, y_max]; images are (ny, nx)."""

    x_min: float
    x_max: float
    y_min: float
    y_max: float
    nx: int
    ny: int

    def __post_init__(self):
        if not (self.x_max > self.x_min and self.y_max > self.y_min):
            raise ValueError(f"empty view rectangle [{self.x_min}, {self.x_max}] × [{self.y_min}, {self.y_max}]")
        if self.nx < 2 or self.ny < 2:
            raise ValueError(f"a grid needs at least 2×2 points, got {self.nx}×{self.ny}")

    @classmethod
    def fit(cls, x_min: float, x_max: float, y_min: float, y_max: float, resolution: int) -> "ViewGrid":
        """Square cells, `resolution` of them along the longer side of the rectangle."""
        w, h = x_max - x_min, y_max - y_min
        cell = max(w, h) / resolution
        return cls(x_min, x_max, y_min, y_max, max(2, round(w / cell)), max(2, round(h / cell)))

    @property
    def key(self) -> tuple:
        return (self.x_min, self.x_max, self.y_min, self.y_max, self.nx, self.ny)

    @property
    def xs(self) -> np.ndarray:
        return self.x_min + (np.arange(self.nx) + 0.5) * ((self.x_max - self.x_min) / self.nx)

    @property
    def ys(self) -> np.ndarray:
        return self.y_min + (np.arange(self.ny) + 0.5) * ((self.y_max - self.y_min) / self.ny)

    @property
    def shape(self) -> tuple[int, int]:
        return (self.ny, self.nx)

    def points(self) -> np.ndarray:
        """The (ny·nx) × 2 grid points, x varying fastest (row-major images)."""
        gx, gy = np.meshgrid(self.xs, self.ys)
        return np.column_stack([gx.ravel(), gy.ravel()])


class _PointRows:
    """Per-point cached rows (kernel columns or separable factors) for one grid and one kernel."""

    def __init__(self, budget_bytes: int):
        self.budget = budget_bytes
        self.index: dict[tuple[float, float], int] = {}
        self.arrays: list[np.ndarray] = []  # each (capacity, width) float32
        self.used = 0
        self.computed = 0  # how many rows were ever computed (for tests and the benchmark)
        self.last_centers: np.ndarray | None = None
        self.last_rows: np.ndarray | None = None
        self.last_coef: np.ndarray | None = None  # per cache row, float32
        self.last_image: np.ndarray | None = None  # without bias
        self.incremental = 0

    def rows_for(self, centers: np.ndarray, width: int, make: Callable[[np.ndarray], list[np.ndarray]]) -> np.ndarray | None:
        """Cache row of each centre (make computes missing ones, `width` floats each); None when over budget."""
        if self.last_centers is not None and np.array_equal(self.last_centers, centers):
            return self.last_rows
        keys = [(float(a), float(b)) for a, b in centers]
        distinct = dict.fromkeys(keys)
        if len(distinct) * 4 * width > self.budget:
            return None
        missing = [k for k in distinct if k not in self.index]
        if missing:
            if (self.used + len(missing)) * 4 * width > self.budget:
                self._compact(distinct)
            new = make(np.array(missing, dtype=float))
            need = self.used + len(missing)
            cap = self.arrays[0].shape[0] if self.arrays else 0
            if need > cap:
                cap = min(max(need, 2 * cap, 16), self.budget // (4 * width))
                shapes = [a.shape[1] for a in new]
                grown = [np.empty((cap, w), np.float32) for w in shapes]
                for g, a in zip(grown, self.arrays):
                    g[: self.used] = a[: self.used]
                self.arrays = grown
            for a, rows in zip(self.arrays, new):
                a[self.used : need] = rows
            for j, k in enumerate(missing):
                self.index[k] = self.used + j
            self.used = need
            self.computed += len(missing)
            self._forget_image()
        rows = np.fromiter((self.index[k] for k in keys), dtype=np.int64, count=len(keys))
        self.last_centers, self.last_rows = centers.copy(), rows
        return rows

    def _compact(self, keep: set) -> None:
        """Drop the rows of points no longer present (moved or deleted)."""
        old = sorted((r, k) for k, r in self.index.items() if k in keep)
        order = np.array([r for r, _ in old], dtype=np.int64)
        self.arrays = [a[order].copy() for a in self.arrays]
        self.index = {k: j for j, (_, k) in enumerate(old)}
        self.used = len(old)
        self.last_centers = self.last_rows = None
        self._forget_image()

    def _forget_image(self) -> None:
        self.last_coef = self.last_image = None


class GridEvaluator:
    """Evaluates decision functions on view grids, caching what unchanged points contribute.

    `evaluate(decision, grid)` returns a float32 image of shape (ny, nx), or (c, ny, nx) for c outputs.
    """

    def __init__(self, budget_mb: float | None = None):
        """budget_mb: what the caches may hold (default: cache_budget())."""
        self.budget = int(budget_mb * 2**20) if budget_mb is not None else cache_budget()
        self._rows_key: tuple | None = None
        self._rows: _PointRows | None = None
        self._phi_key: tuple | None = None
        self._phi: np.ndarray | None = None
        self._diag_key: tuple | None = None
        self._diag: np.ndarray | None = None
        self._pts_key: tuple | None = None
        self._pts_gram: np.ndarray | None = None

    # -- the grid image ----------------------------------------------------------------
    @staticmethod
    def plan(decision: DecisionFunction, grid: "ViewGrid") -> "ViewGrid":
        """The grid to evaluate `decision` on within the memory budget: `grid`, or a coarser one over the same
        rectangle; BudgetError (one line) when not even MIN_SIDE cells a side fit."""
        need, limit = grid_bytes(decision, grid), budget.budget_bytes()
        if need <= limit:
            return grid
        side, coarse = max(grid.nx, grid.ny), grid
        while side > MIN_SIDE:
            side = max(MIN_SIDE, int(side * 0.8))
            coarse = ViewGrid.fit(grid.x_min, grid.x_max, grid.y_min, grid.y_max, side)
            if grid_bytes(decision, coarse) <= limit:
                return coarse
        budget.require(grid_bytes(decision, coarse), f"Drawing this decision function on a {coarse.nx}×{coarse.ny} grid",
                       "Use a smaller feature map")
        return coarse

    def evaluate(self, decision: DecisionFunction, grid: ViewGrid) -> np.ndarray:
        with one_blas_thread():
            return self._evaluate(decision, grid)

    def _evaluate(self, decision: DecisionFunction, grid: ViewGrid) -> np.ndarray:
        ab = decision.affine() if decision.n_outputs == 1 else None
        if ab is not None:
            return affine_image(ab, grid)
        if isinstance(decision, KernelExpansion):
            return self._kernel_image(decision, grid)
        if isinstance(decision, FeatureLinear):
            return self._feature_image(decision, grid)
        return naive_image(decision, grid)

    @property
    def rows_computed(self) -> int:
        """How many per-point kernel rows were computed for the current grid and kernel."""
        return self._rows.computed if self._rows is not None else 0

    def _kernel_image(self, d: KernelExpansion, grid: ViewGrid) -> np.ndarray:
        kernel = d.kernel
        if kernel.name == "poly" and type(kernel).__name__ == "PolynomialKernel":
            return polynomial_image(d, grid)
        key = (grid.key, type(kernel), kernel.spec)
        if key != self._rows_key:
            self._rows_key, self._rows = key, _PointRows(self.budget)
        cache = self._rows
        nz = np.flatnonzero(d.coef)
        if nz.size == 0:
            return np.full(grid.shape, d.bias, dtype=np.float32)
        centers, coef = d.centers[nz], d.coef[nz]
        factor = SEPARABLE_FACTORS.get(kernel.name)
        xs, ys = grid.xs, grid.ys
        if factor is not None:
            gamma = float(kernel.gamma)

            def make(C):
                return [factor(gamma, xs[None, :] - C[:, :1]), factor(gamma, ys[None, :] - C[:, 1:])]
        else:
            Z = None

            def make(C):
                nonlocal Z
                Z = grid.points() if Z is None else Z
                step = max(1, 2**22 // Z.shape[0])  # bound the float64 temporary to ~32 MB
                return [np.concatenate([kernel(C[i : i + step], Z) for i in range(0, len(C), step)])]

        width = grid.nx + grid.ny if factor is not None else grid.nx * grid.ny
        rows = cache.rows_for(centers, width, make)
        if rows is None:  # too many points for the cache budget at this resolution: evaluate directly
            return naive_image(d, grid)
        c = np.zeros(cache.used, dtype=np.float32)
        np.add.at(c, rows, coef.astype(np.float32))
        image = self._combine(cache, c, factor is not None, grid)
        return image + np.float32(d.bias) if d.bias else image

    @staticmethod
    def _combine(cache: _PointRows, c: np.ndarray, separable: bool, grid: ViewGrid) -> np.ndarray:
        """Σ_r c_r · row_r, incrementally when few coefficients changed since the last frame."""
        prev = cache.last_coef
        if prev is not None and prev.shape == c.shape and cache.incremental < _REFRESH_EVERY:
            changed = np.flatnonzero(c != prev)
            if changed.size <= max(1, c.size // 8):
                cache.incremental += 1
                image = cache.last_image.copy()
                if changed.size:
                    image += _weighted_sum(cache.arrays, changed, c[changed] - prev[changed], separable, grid)
                cache.last_coef, cache.last_image = c, image
                return image.copy()
        used = np.flatnonzero(c)
        image = _weighted_sum(cache.arrays, used, c[used], separable, grid)
        cache.incremental = 0
        cache.last_coef, cache.last_image = c, image
        return image.copy()

    def _feature_image(self, d: FeatureLinear, grid: ViewGrid) -> np.ndarray:
        if isinstance(d.features, RandomFourier):
            return self._fourier_image(d, grid)
        key = (grid.key, type(d.features), d.features.spec)
        if key != self._phi_key:
            self._phi_key = key
            self._phi = np.asarray(d.features.transform(grid.points()), dtype=np.float32)
        W = d.weights.astype(np.float32)
        if W.ndim == 1:
            return (self._phi @ W).reshape(grid.shape)
        return (self._phi @ W.T).T.reshape((W.shape[0],) + grid.shape)

    def _fourier_image(self, d: FeatureLinear, grid: ViewGrid) -> np.ndarray:
        """a₀ + √(2/D) Σ_j a_j cos(ω_j·z + c_j) on the grid, from per-axis cosines and sines (module docstring)."""
        fm = d.features
        key = (grid.key, "rff", fm.spec)
        if key != self._phi_key:
            omega, phase = fm.frequencies()
            ax = np.outer(omega[:, 0], grid.xs)
            ay = np.outer(omega[:, 1], grid.ys) + phase[:, None]
            self._phi_key = key
            self._phi = tuple(a.astype(np.float32) for a in (np.cos(ax), np.sin(ax), np.cos(ay), np.sin(ay)))
        cx, sx, cy, sy = self._phi
        W = np.atleast_2d(d.weights).astype(np.float32)
        scale = np.float32(np.sqrt(2.0 / fm.dim))
        out = np.empty((W.shape[0],) + grid.shape, dtype=np.float32)
        for k, w in enumerate(W):
            a = w[1:] * scale
            out[k] = (cy.T * a) @ cx - (sy.T * a) @ sx + w[0]
        return out[0] if d.weights.ndim == 1 else out

    # -- helpers for level curves ----------------------------------------------------------------
    def kernel_diag(self, kernel, grid: ViewGrid) -> np.ndarray:
        """√K(z, z) on the grid, cached (for the normalized margin f/(‖f‖√K(z, z)))."""
        key = (grid.key, type(kernel), kernel.spec)
        if key != self._diag_key:
            self._diag_key = key
            self._diag = np.sqrt(np.asarray(kernel.diag(grid.points()), dtype=float)).astype(np.float32).reshape(grid.shape)
        return self._diag

    def at_points(self, decision: DecisionFunction, X: np.ndarray) -> np.ndarray:
        """decision(X), caching K(X, centres) in float32 for kernel expansions (usually the Gram matrix)."""
        X = np.asarray(X, dtype=float)
        if isinstance(decision, FeatureLinear) and decision.affine() is None:
            fm = decision.features
            if 12.0 * len(X) * fm.dimension() > self.budget:  # φ(X) too large to keep: in row blocks, uncached
                return _in_blocks(decision, X, fm.dimension())
            key = (type(fm), fm.spec, X.tobytes())
            if key != self._pts_key:  # φ(X) of the training points: D cosines per point, once per scene
                self._pts_key, self._pts_gram = key, np.asarray(fm.transform(X), dtype=np.float32)
            W = decision.weights.astype(np.float32)
            with one_blas_thread():
                return (self._pts_gram @ (W if W.ndim == 1 else W.T)).astype(float)
        if not isinstance(decision, KernelExpansion) or decision.affine() is not None:
            return np.asarray(decision(X), dtype=float)
        k = decision.kernel
        if X.shape[0] * decision.centers.shape[0] > EVAL_BLOCK:  # large: no float64 K(X, centres) at all
            if decision.on_centers is not None and np.array_equal(X, decision.centers):
                return np.asarray(decision.on_centers(), dtype=float) + decision.bias  # one G·α on the problem's G
            if X.shape[0] * np.count_nonzero(decision.coef) <= 4 * EVAL_BLOCK:
                return np.asarray(decision(X), dtype=float)  # few non-zero coefficients: by blocks, uncached
        if 12.0 * len(X) * len(decision.centers) > self.budget:  # K(X, centres) too large to keep (n×n)
            self._pts_key = self._pts_gram = None
            return np.asarray(decision(X), dtype=float)  # KernelExpansion evaluates in blocks
        key = (type(k), k.spec, X.tobytes(), decision.centers.tobytes())
        if key != self._pts_key:
            big = X.shape[0] * decision.centers.shape[0] > EVAL_BLOCK  # built in float64 row blocks, stored float32
            K = kernel_matrix(k, X, decision.centers) if big else k(X, decision.centers).astype(np.float32)
            self._pts_key, self._pts_gram = key, K
        with one_blas_thread():
            return (self._pts_gram @ decision.coef.astype(np.float32)).astype(float) + decision.bias


def _in_blocks(decision: FeatureLinear, X: np.ndarray, d_hat: int) -> np.ndarray:
    """decision(X) in row blocks of at most EVAL_BLOCK feature values (φ(X) never whole)."""
    rows = max(1, EVAL_BLOCK // max(1, d_hat))
    return np.concatenate([np.asarray(decision(X[i : i + rows]), dtype=float) for i in range(0, len(X), rows)])


def _weighted_sum(arrays: list[np.ndarray], rows: np.ndarray, w: np.ndarray, separable: bool, grid: ViewGrid) -> np.ndarray:
    w = w.astype(np.float32)
    if separable:
        ax, ay = arrays
        return (ay[rows].T * w) @ ax[rows]
    return (w @ arrays[0][rows]).reshape(grid.shape)


def sample_image(F: np.ndarray, grid: ViewGrid, X: np.ndarray) -> np.ndarray:
    """Bilinear interpolation of a grid image at points X (clamped to the grid): O(n), for previews."""
    X = np.asarray(X, dtype=float).reshape(-1, 2)
    fx = (X[:, 0] - grid.x_min) / (grid.x_max - grid.x_min) * grid.nx - 0.5
    fy = (X[:, 1] - grid.y_min) / (grid.y_max - grid.y_min) * grid.ny - 0.5
    fx, fy = np.clip(fx, 0, grid.nx - 1), np.clip(fy, 0, grid.ny - 1)
    i0, j0 = np.minimum(fx.astype(int), grid.nx - 2), np.minimum(fy.astype(int), grid.ny - 2)
    tx, ty = fx - i0, fy - j0
    F = np.asarray(F, dtype=float)
    top = F[j0, i0] * (1 - tx) + F[j0, i0 + 1] * tx
    bottom = F[j0 + 1, i0] * (1 - tx) + F[j0 + 1, i0 + 1] * tx
    return top * (1 - ty) + bottom * ty


def polynomial_image(d: KernelExpansion, grid: ViewGrid) -> np.ndarray:
    """Σ_i coef_i (z·x_i + c)^p + bias in closed form: a polynomial of degree p in z.

    (z·x + c)^p = Σ_k C(p,k) c^(p−k) Σ_a C(k,a) (z₁x₁)^a (z₂x₂)^(k−a), so the image is
    Y^T M X with X[a] = z₁^a, Y[b] = z₂^b and M[b, a] = C(p, a+b) c^(p−a−b) C(a+b, a) Σ_i coef_i x_i1^a x_i2^b:
    O(n p²) for the moments plus O(grid · p) per frame, whatever the grid or the number of points.
    """
    from math import comb

    p, c0 = int(d.kernel.degree), float(d.kernel.c)
    nz = np.flatnonzero(d.coef)
    C, w = d.centers[nz], d.coef[nz]
    P1 = C[:, :1] ** np.arange(p + 1)[None, :]  # x_i1^a
    P2 = C[:, 1:] ** np.arange(p + 1)[None, :]  # x_i2^b
    moments = (P2 * w[:, None]).T @ P1  # [b, a] = Σ_i coef_i x_i1^a x_i2^b
    M = np.zeros((p + 1, p + 1))
    for a in range(p + 1):
        for b in range(p + 1 - a):
            k = a + b
            M[b, a] = comb(p, k) * c0 ** (p - k) * comb(k, a) * moments[b, a]
    X = grid.xs[None, :] ** np.arange(p + 1)[:, None]
    Y = grid.ys[None, :] ** np.arange(p + 1)[:, None]
    return (Y.T @ M @ X + d.bias).astype(np.float32)


def affine_image(ab: tuple[float, float, float], grid: ViewGrid) -> np.ndarray:
    """w·z + b on the grid in closed form (float32)."""
    w1, w2, b = ab
    xs, ys = grid.xs.astype(np.float32), grid.ys.astype(np.float32)
    return (np.float32(w1) * xs[None, :] + np.float32(w2) * ys[:, None] + np.float32(b)).astype(np.float32)


def naive_image(decision: DecisionFunction, grid: ViewGrid) -> np.ndarray:
    """decision(z) at every grid point, no caching (the reference, and the fallback)."""
    v = np.asarray(decision(grid.points()), dtype=np.float32)
    if v.ndim == 1:
        return v.reshape(grid.shape)
    return v.T.reshape((v.shape[1],) + grid.shape)


# -- level curves --------------------------------------------------------------------------------------
def contour_segments(F: np.ndarray, level: float, xs: np.ndarray, ys: np.ndarray) -> np.ndarray:
    """Marching squares: the level set {F = level} of an image F[j, i] sampled at (xs[i], ys[j]).

    Returns a (2m, 2) array of segment end points, pairs in a row (draw with connect="pairs").
    Saddle cells are resolved with the mean of the four corners.
    """
    return _marching_squares(F, level, xs, ys)[0]


def contour_lines(F: np.ndarray, level: float, xs: np.ndarray, ys: np.ndarray) -> np.ndarray:
    """The level set {F = level} as polylines: a (k, 2) array with NaN rows between the pieces.

    Joined polylines stroke cleanly with thick antialiased pens (no overlapping caps).
    """
    seg, ids = _marching_squares(F, level, xs, ys)
    if len(seg) == 0:
        return seg
    return _join(seg, ids)


def _marching_squares(F, level, xs, ys) -> tuple[np.ndarray, np.ndarray]:
    """Segment end points (2m, 2) and, for each end point, the id of the grid edge it lies on."""
    F = np.asarray(F, dtype=np.float64)
    xs, ys = np.asarray(xs, dtype=np.float64), np.asarray(ys, dtype=np.float64)
    ny, nx = F.shape
    above = F > level
    finite = np.isfinite(F)
    with np.errstate(divide="ignore", invalid="ignore"):
        # crossings on horizontal edges (j, i)–(j, i+1) and vertical edges (j, i)–(j+1, i)
        h = (above[:, :-1] != above[:, 1:]) & finite[:, :-1] & finite[:, 1:]
        th = (level - F[:, :-1]) / (F[:, 1:] - F[:, :-1])
        hx = xs[None, :-1] + th * (xs[1:] - xs[:-1])[None, :]
        hy = np.broadcast_to(ys[:, None], hx.shape)
        v = (above[:-1, :] != above[1:, :]) & finite[:-1, :] & finite[1:, :]
        tv = (level - F[:-1, :]) / (F[1:, :] - F[:-1, :])
        vy = ys[:-1, None] + tv * (ys[1:] - ys[:-1])[:, None]
        vx = np.broadcast_to(xs[None, :], vy.shape)
    hid = np.arange(ny * (nx - 1)).reshape(ny, nx - 1)
    vid = ny * (nx - 1) + np.arange((ny - 1) * nx).reshape(ny - 1, nx)
    # the four edges of cell (j, i): bottom, top, left, right, with their crossing points and ids
    edges = {
        "b": (h[:-1, :], hx[:-1, :], hy[:-1, :], hid[:-1, :]),
        "t": (h[1:, :], hx[1:, :], hy[1:, :], hid[1:, :]),
        "l": (v[:, :-1], vx[:, :-1], vy[:, :-1], vid[:, :-1]),
        "r": (v[:, 1:], vx[:, 1:], vy[:, 1:], vid[:, 1:]),
    }
    count = sum(e[0].astype(np.int8) for e in edges.values())
    pairs = []
    two = count == 2
    for a, b in (("b", "t"), ("b", "l"), ("b", "r"), ("t", "l"), ("t", "r"), ("l", "r")):
        pairs.append((two & edges[a][0] & edges[b][0], a, b))
    four = count == 4
    if four.any():
        centre = 0.25 * (F[:-1, :-1] + F[:-1, 1:] + F[1:, :-1] + F[1:, 1:]) > level
        same = centre == above[:-1, :-1]  # the centre joins corner (j, i) to (j+1, i+1): cut the other two
        pairs += [(four & same, "b", "r"), (four & same, "l", "t"), (four & ~same, "b", "l"), (four & ~same, "r", "t")]
    out, ids = [], []
    for mask, a, b in pairs:
        if mask.any():
            pa = np.column_stack([edges[a][1][mask], edges[a][2][mask]])
            pb = np.column_stack([edges[b][1][mask], edges[b][2][mask]])
            out.append(np.stack([pa, pb], axis=1).reshape(-1, 2))
            ids.append(np.column_stack([edges[a][3][mask], edges[b][3][mask]]).reshape(-1))
    if not out:
        return np.zeros((0, 2)), np.zeros(0, dtype=np.int64)
    return np.concatenate(out), np.concatenate(ids)


def _join(seg: np.ndarray, ids: np.ndarray) -> np.ndarray:
    """Chain segments that share a grid-edge crossing into polylines separated by NaN rows."""
    m = len(ids) // 2
    # end point k belongs to segment k // 2, its partner is k ^ 1; a grid edge holds at most two end points
    # (the two cells beside it): other[k] is the end point of the neighbouring segment on k's edge, or -1
    order = np.argsort(ids, kind="stable")
    same = ids[order[1:]] == ids[order[:-1]]
    other = np.full(2 * m, -1, dtype=np.int64)
    other[order[:-1][same]] = order[1:][same]
    other[order[1:][same]] = order[:-1][same]
    lone = np.ones(2 * m, dtype=bool)
    lone[order[:-1][same]] = lone[order[1:][same]] = False
    other_l = other.tolist()
    used = [False] * m
    pieces: list[np.ndarray] = []
    # start from open ends (edge ids seen once) first, then closed loops
    for k in np.flatnonzero(lone).tolist() + list(range(0, 2 * m, 2)):
        if used[k // 2]:
            continue
        piece = []
        while not used[k // 2]:
            used[k // 2] = True
            piece.append(k)
            last = k ^ 1
            k = other_l[last]
            if k < 0:
                break
        pieces.append(np.vstack([seg[piece], seg[last : last + 1]]))
    out = []
    for P in pieces:
        out.append(P)
        out.append(np.full((1, 2), np.nan))
    return np.concatenate(out[:-1])


def line_in_rect(ab: tuple[float, float, float], level: float, rect: tuple[float, float, float, float]) -> np.ndarray:
    """The exact segment of the line w·x + b = level inside rect (x_min, x_max, y_min, y_max); (0, 2) if none."""
    w1, w2, b = ab
    x0, x1, y0, y1 = rect
    if w1 == 0 and w2 == 0:
        return np.zeros((0, 2))
    pts = []
    if w2 != 0:
        for x in (x0, x1):
            y = (level - b - w1 * x) / w2
            if y0 <= y <= y1:
                pts.append((x, y))
    if w1 != 0:
        for y in (y0, y1):
            x = (level - b - w2 * y) / w1
            if x0 <= x <= x1:
                pts.append((x, y))
    if len(pts) < 2:
        return np.zeros((0, 2))
    P = np.array(pts)
    # the two extreme points along the line direction
    t = P @ np.array([-w2, w1])
    return P[[int(np.argmin(t)), int(np.argmax(t))]]
