"""The dense signed Gram matrix G built in place, in row blocks: one n×n array and O(block·n) scratch.

G_ij = y_i y_j K(x_i, x_j)/√(K_ii K_jj) (§3) for kernels without a finite feature map (RBF, Laplacian), or on
request for any kernel. Each block of rows is computed in float64 in a reused scratch buffer (for the RBF
‖x‖² + ‖z‖² − 2x·z, clipped at 0, times −γ, exponentiated in place; for the Laplacian one cityblock cdist), scaled
by the signs, and stored, so the only large allocation is G itself. Above F32_MIN_N points G is stored in
float32 (half the memory, twice the G·v speed); every claim made on such a G is re-checked in float64 on the
points (`exact_columns`, `float64_norm`) before it is shown.
"""

from __future__ import annotations

import hashlib
import threading
import weakref

import numpy as np

from percviz.core import memory_budget as budget
from percviz.core.errors import DataError

#: 'auto' stores G in float32 above this many points (G in float64 would exceed 128 MiB).
F32_MIN_N = 4096
#: float64 scratch bytes per block of rows (a few MiB: the block's passes stay in cache).
BLOCK_BYTES = 4 * 2**20
#: Up to this many points G is computed as one block (8 MiB of scratch): the same operations on the same
#: arrays as kernel.gram(X, X), so classroom results (ties on symmetric sets) are unchanged to the last bit.
SINGLE_BLOCK_N = 1024
DTYPES = {"auto": None, "float64": np.float64, "float32": np.float32}


def storage_dtype(n: int, choice: str = "auto") -> np.dtype:
    """float32 above F32_MIN_N points for 'auto', else what `choice` names."""
    if choice not in DTYPES:
        raise ValueError(f"gram dtype must be one of {tuple(DTYPES)}, not {choice!r}")
    dt = DTYPES[choice] or (np.float32 if n > F32_MIN_N else np.float64)
    return np.dtype(dt)


def block_rows(n: int) -> int:
    """Rows per block: all n up to SINGLE_BLOCK_N (one block, the whole-matrix arithmetic bit for bit), else
    BLOCK_BYTES of float64 scratch, at least 16."""
    if n <= SINGLE_BLOCK_N:
        return max(n, 1)
    return int(max(16, BLOCK_BYTES // (8 * n)))


def dense_bytes(n: int, dtype) -> float:
    """What build_dense allocates: G (n×n of dtype), up to two float64 scratch blocks and the finiteness test's
    booleans, the points' copies and the algorithms' n-vectors (32 of them)."""
    return float(np.dtype(dtype).itemsize) * n * n + (2 * 8.0 + 1) * block_rows(n) * n + 8.0 * 32 * n


def _sq(X: np.ndarray) -> np.ndarray:
    return np.einsum("ij,ij->i", X, X)


class _RBFRows:
    """Blocks of exp(−γ‖x − z‖²).

    exact: (‖x‖² + ‖z‖²) − 2 x·z, the operations of RBFKernel.gram in its order (bit for bit); else one
    product of augmented rows, [x, ‖x‖², 1]·[2γz, −γ, −γ‖z‖²] = −γ‖x − z‖² (the same formula, 4 passes fewer).
    """

    bounded = True  # values in [0, 1] for finite points: no finiteness test needed

    def __init__(self, kernel, X, Z, exact: bool):
        self.gamma, self.exact = float(kernel.gamma), exact
        sx, sz = _sq(X), _sq(Z)
        if exact:
            self.X, self.Z, self.sx, self.sz = X, Z, sx, sz
        else:
            g = self.gamma
            self.A = np.column_stack([X, sx, np.ones(len(X))])
            self.B = np.column_stack([2.0 * g * Z, np.full(len(Z), -g), -g * sz])

    def fill(self, r: slice, c: slice, out: np.ndarray, tmp: np.ndarray | None) -> None:
        if self.exact:
            np.add(self.sx[r, None], self.sz[None, c], out=out)
            np.dot(self.X[r], self.Z[c].T, out=tmp)
            tmp *= 2.0
            out -= tmp
            np.maximum(out, 0.0, out=out)
            out *= -self.gamma
        else:
            np.dot(self.A[r], self.B[c].T, out=out)
            np.minimum(out, 0.0, out=out)
        np.exp(out, out=out)


class _LaplacianRows:
    """Blocks of exp(−γ‖x − z‖₁): one cityblock cdist into the scratch, as LaplacianKernel.gram."""

    bounded = True

    def __init__(self, kernel, X, Z, exact: bool):
        self.gamma, self.X, self.Z = float(kernel.gamma), X, Z

    def fill(self, r, c, out, tmp) -> None:
        from scipy.spatial.distance import cdist

        cdist(self.X[r], self.Z[c], "cityblock", out=out)
        out *= -self.gamma
        np.exp(out, out=out)


class _KernelRows:
    """Any other kernel: its own gram on the block (block-sized temporaries only)."""

    bounded = False

    def __init__(self, kernel, X, Z, exact: bool):
        self.kernel, self.X, self.Z = kernel, X, Z

    def fill(self, r, c, out, tmp) -> None:
        out[...] = self.kernel.gram(self.X[r], self.Z[c])


def _rows(kernel, X, Z, exact: bool):
    cls = {"rbf": _RBFRows, "laplacian": _LaplacianRows}.get(getattr(kernel, "name", ""), _KernelRows)
    if cls is not _KernelRows and not (np.isfinite(X).all() and np.isfinite(Z).all()):
        cls = _KernelRows  # non-finite input: the plain kernel, and the finiteness test below reports it
    return cls(kernel, X, Z, exact)


def largest_dense_n(choice: str = "auto") -> int:
    """The most points whose dense G (stored as `choice` gives) fits in the memory budget."""
    room = budget.budget_bytes()
    n64 = int((room / 8.05) ** 0.5)
    n32 = int((room / 4.05) ** 0.5)
    if choice == "float32" or (choice == "auto" and n32 > F32_MIN_N):
        return n32
    return n64


def dense_what(problem, dtype=None) -> str:
    """'the 10,000×10,000 G of the rbf kernel in float32' (what a refusal names)."""
    n = problem.n
    dtype = np.dtype(dtype or storage_dtype(n, getattr(problem, "gram_dtype", "auto")))
    return f"the {n:,}×{n:,} G of the {problem.kernel.spec} kernel in {dtype.name}"


def dense_advice(problem) -> str:
    most = largest_dense_n(getattr(problem, "gram_dtype", "auto"))
    return f"Use at most {most:,} points with this kernel, or a kernel with a finite feature map (linear, affine, poly)"


def build_dense(problem, dtype=np.float64) -> np.ndarray:
    """G as a read-only n×n array of `dtype`, built in row blocks; refused beyond the memory budget first."""
    n, spec = problem.n, problem.kernel.spec
    dtype = np.dtype(dtype)
    budget.require(dense_bytes(n, dtype), dense_what(problem, dtype)[0].upper() + dense_what(problem, dtype)[1:],
                   dense_advice(problem))
    X = np.ascontiguousarray(problem.X, dtype=float)
    s = problem.y / np.sqrt(problem.self_kernel)
    G = np.empty((n, n), dtype=dtype)
    b = block_rows(n)
    full = b >= n  # one block: all of G as kernel.gram computes it, then symmetrized as ½(G + Gᵀ)
    rows = _rows(problem.kernel, X, X, exact=full)
    buf = np.empty(b * n)
    tmp = np.empty((n, n)) if full else None  # the exact order's second array (one block only)
    for i0 in range(0, n, b):
        i1, j0 = min(n, i0 + b), 0 if full else i0  # blocked: the rows' upper part only, mirrored below
        out = buf[: (i1 - i0) * (n - j0)].reshape(i1 - i0, n - j0)
        rows.fill(slice(i0, i1), slice(j0, n), out, tmp)
        if not rows.bounded and not np.isfinite(out).all():
            raise DataError(f"The {spec} kernel overflows on these points; scale the data down.")
        dst = G[i0:i1, j0:]
        if full:  # (s_i K_ij) s_j, in kernel.gram's order
            out *= s[i0:i1, None]
            out *= s[None, j0:]
            dst[...] = out
        else:
            out *= s[None, j0:]
            np.multiply(out, s[i0:i1, None], out=dst, casting="same_kind")
            tile = dst[:, : i1 - i0]  # the diagonal tile: its lower triangle from its upper one
            tile[...] = np.triu(tile) + np.triu(tile, 1).T
            G[i1:, i0:i1] = dst[:, i1 - i0 :].T
    if full:
        _symmetrize(G)
    np.fill_diagonal(G, 1.0)
    G.setflags(write=False)
    return G


#: Large dense Gs still alive, by what they were built from: a new Problem on the same points and kernel (the
#: app changing algorithm) shares the read-only array instead of building it again. Weak: never keeps one alive.
SHARE_MIN_N = 2000
_SHARED: "weakref.WeakValueDictionary[tuple, np.ndarray]" = weakref.WeakValueDictionary()
_SHARED_LOCK = threading.Lock()


def _points_key(problem, dtype) -> tuple:
    h = hashlib.blake2b(np.ascontiguousarray(problem.X, dtype=float).tobytes(), digest_size=16)
    h.update(np.ascontiguousarray(problem.y, dtype=float).tobytes())
    return (h.hexdigest(), problem.X.shape, problem.kernel.spec, np.dtype(dtype).str)


def shared_dense(problem, dtype, build) -> np.ndarray:
    """build(problem, dtype), or the same read-only G another live Problem on these points and kernel holds."""
    if problem.n < SHARE_MIN_N:
        return build(problem, dtype)
    key = _points_key(problem, dtype)
    with _SHARED_LOCK:
        G = _SHARED.get(key)
    if G is None:
        G = build(problem, dtype)
        with _SHARED_LOCK:
            _SHARED[key] = G
    return G


def _symmetrize(G: np.ndarray) -> None:
    """G ← ½(G + Gᵀ) in place (for the one-block build: G is then at most SINGLE_BLOCK_N² entries)."""
    if not np.array_equal(G, G.T):
        G[...] = 0.5 * (G + G.T)


def kernel_matrix(kernel, X, Z, dtype=np.float32) -> np.ndarray:
    """K(X, Z) as one len(X)×len(Z) array of `dtype`, computed in float64 row blocks (no full-size temporaries)."""
    X = np.ascontiguousarray(X, dtype=float)
    Z = np.ascontiguousarray(Z, dtype=float)
    n, m = X.shape[0], Z.shape[0]
    rows = _rows(kernel, X, Z, exact=False)
    out = np.empty((n, m), dtype=dtype)
    b = int(max(1, BLOCK_BYTES // (8 * max(m, 1))))
    buf = np.empty(min(b, n) * m)
    for i0 in range(0, n, b):
        i1 = min(n, i0 + b)
        blk = buf[: (i1 - i0) * m].reshape(i1 - i0, m)
        rows.fill(slice(i0, i1), slice(0, m), blk, None)
        out[i0:i1] = blk
    return out


class CentreValues:
    """f at an expansion's own centres from the problem's G: f(x_i) = (Gα)_i / s_i with s = y/√K(x, x) (one G·v)."""

    def __init__(self, gram, alpha, s):
        self.gram, self.s = gram, np.asarray(s, dtype=float)
        self.alpha = np.array(alpha, dtype=float)  # a copy: solvers update α in place after the snapshot

    def __call__(self) -> np.ndarray:
        return (self.gram @ self.alpha) / self.s


class ExactColumns:
    """Columns of G in float64 from the kernel on the points (O(n·k) each), for checks on a float32 G."""

    def __init__(self, problem):
        self.problem = problem
        self.X = np.ascontiguousarray(problem.X, dtype=float)
        self.s = problem.y / np.sqrt(problem.self_kernel)
        self.n = problem.n
        self.scale = 1.0  # a normalized G: max |G_ij| = 1
        self.width = self.n

    def cols(self, S) -> np.ndarray:
        S = np.asarray(S, dtype=np.intp)
        K = self.problem.kernel(self.X, self.X[S])
        return K * self.s[:, None] * self.s[S][None, :]

    def block(self, S) -> np.ndarray:
        S = np.asarray(S, dtype=np.intp)
        return self.cols(S)[S]

    def matvec(self, v) -> np.ndarray:
        """G·v over v's support, in column blocks."""
        v = np.asarray(v, dtype=float)
        S = np.flatnonzero(v)
        out = np.zeros(self.n)
        b = block_rows(self.n)
        for k in range(0, S.size, b):
            part = S[k : k + b]
            out += self.cols(part) @ v[part]
        return out


def float64_norm(problem, p) -> float:
    """‖p‖_G = √(pᵀGp) in float64 from the kernel on the points (no stored G)."""
    p = np.asarray(p, dtype=float)
    return float(np.sqrt(max(float(p @ ExactColumns(problem).matvec(p)), 0.0)))


#: Largest |support of p|² for which rbf_norm_by_differences evaluates the kernel pair by pair.
DIFFERENCE_PAIRS = 40_000_000


def rbf_norm_by_differences(problem, p) -> float | None:
    """‖p‖_G for an RBF kernel with ‖x − z‖² summed from coordinate differences, or None (support too large).

    The Gram matrix uses ‖x‖² + ‖z‖² − 2x·z, whose rounding (about 8·eps·‖x‖²) swamps ‖x − z‖² for close points
    far from the origin: at (0, 1000) and (0, 1000 + 2e-6) with γ = 1e6, K comes out 1e-4 off (audit 2, issue 10).
    """
    p = np.asarray(p, dtype=float)
    S = np.flatnonzero(p)
    if S.size * S.size > DIFFERENCE_PAIRS:
        return None
    X, w = np.asarray(problem.X, dtype=float)[S], p[S] * problem.y[S]
    rows = max(1, 2**22 // max(1, S.size * X.shape[1]))
    q = 0.0
    for k in range(0, S.size, rows):
        d2 = ((X[k:k + rows, None, :] - X[None, :, :]) ** 2).sum(axis=2)
        q += float(w[k:k + rows] @ (np.exp(-problem.kernel.gamma * d2) @ w))
    return float(np.sqrt(max(q, 0.0)))


def certificate_refuted(problem, p, tol) -> str:
    """'' unless ‖p‖_G on the points exceeds the certificate's tolerance (then why): checked when G is stored in
    float32 (in float64), and for RBF kernels whose ‖x‖² + ‖z‖² − 2x·z rounding could reach the tolerance."""
    g = problem.__dict__.get("gram")  # only a G that was built: weight-vector solvers never build one
    if g is None or p is None or tol is None:
        return ""
    if not g.exact:
        nrm = float64_norm(problem, p)
        return "" if nrm <= float(tol) else f"in float64 on the points ‖p‖_G = {nrm:.3g} > {float(tol):g}"
    if getattr(problem.kernel, "name", "") == "rbf":
        X = np.asarray(problem.X, dtype=float)
        err = 16 * np.finfo(float).eps * problem.kernel.gamma * float((X * X).sum(axis=1).max(initial=0.0))
        if err * float(np.abs(p).sum()) ** 2 > 1e-3 * float(tol) ** 2:  # the expansion's rounding could matter
            nrm = rbf_norm_by_differences(problem, p)
            if nrm is not None and nrm > float(tol):
                return (f"with ‖x − z‖² from coordinate differences (the Gram matrix's ‖x‖² + ‖z‖² − 2x·z rounds "
                        f"for close points far from the origin) ‖p‖_G = {nrm:.3g} > {float(tol):g}")
    return ""


#: The unit roundoff of float32 (2⁻²⁴).
F32_UNIT = 2.0**-24
#: λ of the probabilistic bound λ·√m·u on a float32 sum of m terms (Higham & Mary, SIAM J. Sci. Comput. 41
#: (2019)): it holds with probability at least 1 − 2·exp(−λ²/2) ≈ 1 − 3e-8 for λ = 6.
SUM_LAMBDA = 6.0


def g_norm_resolution(gram, floor: float = 1e-7) -> float:
    """The smallest ‖p‖_G (p in the simplex) that √(pᵀ(G·p)) computed on this G tells from 0.

    float64: `floor`. float32 (G normalized, |G_ij| ≤ 1, so pᵀ|G|p ≤ ‖p‖₁² = 1): storing G_ij and p_j in float32
    changes each product G_ij p_j by at most (2u + u²)|G_ij| p_j, the float32 sums of G·p add at most λ√n·u·|G|p
    (probabilistically; γ_n = n·u/(1 − n·u) in the worst case), and the float64 dot with p adds n·2⁻⁵³; so the
    computed pᵀGp is within E = (3u + λ√n·u + n·2⁻⁵³)·pᵀ|G|p ≤ E of the true one, and ‖p‖_G within √E of it.
    """
    if gram.exact:
        return floor
    n = gram.n
    return max(floor, float(np.sqrt((3.0 + SUM_LAMBDA * np.sqrt(n)) * F32_UNIT * (1 + 1e-6) + n * 2.0**-53)))
