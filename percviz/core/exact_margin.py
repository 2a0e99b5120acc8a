"""Exact certificates of ρ_K for kernels computable in rational arithmetic (linear, affine, polynomial): issue 28.

With K̂_ij = y_i y_j K(x_i, x_j) exact (Fractions of the stored floats) and b_i = y_i φ(x_i)/√K_ii, any rational
c ≥ 0, c ≠ 0 certifies both ends of an interval for ρ_K = sup_{‖w‖ = 1} min_i b_i·w:
  p_i = c_i √K_ii / Σ_j c_j √K_jj lies in the simplex, so ρ_K ≤ ‖Σ p_i b_i‖ = √(cᵀK̂c) / Σ_j c_j √K_jj;
  w = Σ_j c_j y_j φ(x_j) gives ρ_K ≥ min_i (K̂c)_i / (√K_ii √(cᵀK̂c)) when cᵀK̂c > 0;
  cᵀK̂c = 0 exactly is Gordan's witness: no separator, ρ_K ≤ 0.
Only the square roots are not rational; they are taken in 60-400-digit decimals and the ends rounded outward, so
a margin of 1e-300 is resolved as well as one of 0.5. ρ_K = 0 exactly (0 on the boundary of the hull) is proved by
a Gordan witness together with a rational u ≠ 0 with y_i u·ψ(x_i) ≥ 0 on the monomials ψ (some > 0).
"""

from __future__ import annotations

import itertools
import math
from decimal import Decimal, localcontext
from fractions import Fraction

import numpy as np

from percviz.core import exact_linalg

#: Largest support solved exactly; larger supports of Wolfe's p are left to the floating-point interval.
MAX_SUPPORT = 12
#: Largest n × |support| kernel values computed in fractions.
MAX_EVALS = 200_000
#: Largest number of small supports enumerated when looking for a Gordan witness.
MAX_SUBSETS = 3000


def exact_kernel(kernel):
    """K(x, z) on lists of Fractions, exactly, or None for kernels that are not rational (RBF, Laplacian)."""
    name = getattr(kernel, "name", "")
    dot = lambda x, z: sum((a * b for a, b in zip(x, z)), Fraction(0))  # noqa: E731
    if name == "linear":
        return dot
    if name == "affine":
        return lambda x, z: 1 + dot(x, z)
    if name == "poly":
        deg, c = int(kernel.degree), Fraction(float(kernel.c))
        return lambda x, z: (dot(x, z) + c) ** deg
    return None


class ExactRows:
    """The points as Fractions with K and the signs: the exact K̂ entries a certificate needs, cached."""

    def __init__(self, problem):
        self.K = exact_kernel(problem.kernel)
        X = np.asarray(problem.X, dtype=float)
        self.X = [[Fraction(float(v)) for v in row] for row in X]
        self.y = [int(v) for v in np.asarray(problem.y)]
        self.n = len(self.X)
        self._diag: dict[int, Fraction] = {}
        self._col: dict[int, list[Fraction]] = {}

    def diag(self, i: int) -> Fraction:
        if i not in self._diag:
            self._diag[i] = self.K(self.X[i], self.X[i])
        return self._diag[i]

    def col(self, j: int) -> list[Fraction]:
        """K̂_ij for every i."""
        if j not in self._col:
            xj, yj = self.X[j], self.y[j]
            self._col[j] = [yi * yj * self.K(xi, xj) for xi, yi in zip(self.X, self.y)]
        return self._col[j]


def _sqrt(q: Fraction, prec: int) -> Decimal:
    with localcontext() as ctx:
        ctx.prec = prec
        return (Decimal(q.numerator) / Decimal(q.denominator)).sqrt()


def _down(v: Decimal) -> float:
    """A float ≤ v (v's decimal rounded to a float, then one step down when needed)."""
    f = float(v)
    return f if Decimal(f) <= v else float(np.nextafter(f, -np.inf))


def _up(v: Decimal) -> float:
    f = float(v)
    return f if Decimal(f) >= v else float(np.nextafter(f, np.inf))


def bounds(rows: ExactRows, c: dict[int, Fraction], prec: int = 60) -> tuple[float, float] | None:
    """(lo, hi) with lo ≤ ρ_K ≤ hi certified by the rational c ≥ 0 (support → value); hi = 0.0 exactly for a
    Gordan witness (then lo is −inf: c says nothing about how negative ρ_K is). None when c is not usable."""
    if not c or min(c.values()) < 0 or sum(c.values()) <= 0:
        return None
    Kc = [Fraction(0)] * rows.n
    for j, cj in c.items():
        if cj:
            for i, v in enumerate(rows.col(j)):
                Kc[i] += cj * v
    q = sum(c[j] * Kc[j] for j in c)
    if q == 0:
        return -math.inf, 0.0
    with localcontext() as ctx:
        ctx.prec = prec
        den = sum(Decimal(cj.numerator) / Decimal(cj.denominator) * _sqrt(rows.diag(j), prec) for j, cj in c.items())
        sq = _sqrt(q, prec)
        hi = sq / den
        lo = min((Decimal(v.numerator) / Decimal(v.denominator)) / (_sqrt(rows.diag(i), prec) * sq)
                 for i, v in enumerate(Kc))
        slack = Decimal(10) ** (-(prec - 10))  # the decimals' own rounding, relative
        hi = hi * (1 + slack)
        lo = lo * (1 - slack) if lo > 0 else lo * (1 + slack)
    return _down(lo), _up(hi)


def _affine_min(rows: ExactRows, S, prec: int) -> list[Decimal] | None:
    """The weights p (summing to 1, any sign) of the min-norm point of the affine hull of {b_i : i ∈ S}, in `prec`
    digits, or None when the system is singular."""
    S = list(S)
    k = len(S)
    r = {i: _sqrt(rows.diag(i), prec) for i in S}
    if any(v == 0 for v in r.values()):
        return None
    with localcontext() as ctx:
        ctx.prec = prec
        G = [[Decimal(rows.col(j)[i].numerator) / Decimal(rows.col(j)[i].denominator) / (r[i] * r[j]) for j in S]
             for i in S]
        # [G 1; 1ᵀ 0] (p, −λ) = (0, 1): Gaussian elimination with partial pivoting in decimals
        A = [G[a] + [Decimal(1), Decimal(0)] for a in range(k)] + [[Decimal(1)] * k + [Decimal(0), Decimal(1)]]
        m = k + 1
        for col in range(m):
            piv = max(range(col, m), key=lambda a: abs(A[a][col]))
            if A[piv][col] == 0:
                return None
            A[col], A[piv] = A[piv], A[col]
            for a in range(m):
                if a != col and A[a][col] != 0:
                    f = A[a][col] / A[col][col]
                    A[a] = [u - f * v for u, v in zip(A[a], A[col])]
        return [A[a][m] / A[a][a] for a in range(k)]


def _as_c(rows: ExactRows, S, p: list[Decimal], prec: int) -> dict[int, Fraction]:
    """c_i = p_i/√K_ii as exact fractions of the decimals."""
    return {i: Fraction(pi / _sqrt(rows.diag(i), prec)) for i, pi in zip(S, p) if pi > 0}


def min_norm_on(rows: ExactRows, S, prec: int) -> dict[int, Fraction] | None:
    """Rational c on the support S: the min-norm point of the affine hull of {b_i : i ∈ S} in `prec` digits
    (c_i = p_i/√K_ii), or None when it leaves the simplex."""
    p = _affine_min(rows, S, prec)
    if p is None or min(p) < 0:
        return None
    return _as_c(rows, list(S), p, prec)


def _worst_row(rows: ExactRows, c: dict[int, Fraction]) -> int:
    """The row i with the smallest (K̂c)_i/√K_ii (to 17 digits): the one a better support needs."""
    Kc = [Fraction(0)] * rows.n
    for j, cj in c.items():
        for i, v in enumerate(rows.col(j)):
            Kc[i] += cj * v
    return min(range(rows.n), key=lambda i: float(Kc[i] / rows.diag(i) ** 0.5) if rows.diag(i) else 0.0)


def refined(rows: ExactRows, S, prec: int, steps: int = 30):
    """(c, (lo, hi)) from Wolfe's method in `prec`-digit decimals started on the support S (its major cycle adds the
    worst row, its minor cycle moves toward the affine minimizer until a weight reaches 0), or None."""
    S = list(S)
    p = _affine_min(rows, S, prec)
    if p is None or min(p) < 0:
        return None
    best = None
    with localcontext() as ctx:
        ctx.prec = prec
        for _ in range(steps):
            c = _as_c(rows, S, p, prec)
            b = bounds(rows, c, prec)
            if b is None:
                return best
            if best is None or b[1] - b[0] < best[1][1] - best[1][0]:
                best = (c, b)
            if b[0] > 0 and b[1] - b[0] <= 1e-9 * b[0] or len(S) >= MAX_SUPPORT:
                return best
            j = _worst_row(rows, c)
            if j in S:
                return best
            S, p = S + [j], p + [Decimal(0)]
            for _ in range(len(S)):  # the minor cycle
                q = _affine_min(rows, S, prec)
                if q is None:
                    return best
                if min(q) >= 0:
                    p = q
                    break
                theta = min(pi / (pi - qi) for pi, qi in zip(p, q) if qi < 0)
                p = [pi + theta * (qi - pi) for pi, qi in zip(p, q)]
                keep = [a for a, pi in enumerate(p) if pi > 0]
                S, p = [S[a] for a in keep], [p[a] for a in keep]
    return best


def gordan_on(rows: ExactRows, S) -> dict[int, Fraction] | None:
    """c ≥ 0, c ≠ 0 on S with K̂_SS c = 0 exactly (a one-dimensional null space of K̂_SS with one sign), or None."""
    S = list(S)
    N = exact_linalg.null_space([[rows.col(j)[i] for j in S] for i in S], len(S))
    if len(N) != 1:
        return None  # a witness on a smaller support exists then, or none
    c = N[0]
    if min(c) < 0:
        c = [-v for v in c]
    if min(c) < 0 or max(c) <= 0:
        return None
    return {i: v for i, v in zip(S, c)}


def small_supports(n: int, rank: int):
    """Every support of 2 … rank + 1 points when there are at most MAX_SUBSETS of them (a Gordan vertex has at
    most rank + 1 points), else none."""
    total = sum(math.comb(n, k) for k in range(2, rank + 2))
    if rank < 1 or total > MAX_SUBSETS:
        return
    for k in range(2, rank + 2):
        yield from itertools.combinations(range(n), k)


def monomial_exponents_of(kernel, d: int) -> list[tuple[int, ...]] | None:
    """The monomials of the kernel's explicit feature map (weights aside), or None."""
    from percviz.core.features import monomial_exponents

    name = getattr(kernel, "name", "")
    if name == "linear":
        return [e for e in monomial_exponents(1, d) if sum(e) == 1]
    if name == "affine":
        return monomial_exponents(1, d)
    if name == "poly":
        deg = int(kernel.degree)
        return [e for e in monomial_exponents(deg, d) if float(kernel.c) > 0 or sum(e) == deg]
    return None


def nonnegative_direction(problem) -> bool:
    """Whether a rational u ≠ 0 has y_i u·ψ(x_i) ≥ 0 for all i, one > 0 (exactly): then ρ_K ≥ 0.

    ψ: the kernel's monomials on X with each column scaled by a power of two (positive factors: the same signs).
    An LP on the scale-free rows gives u and its active rows; u is then taken into the exact null space of those
    rows (fractions) and checked on every row."""
    from scipy.optimize import linprog

    from percviz.core.certify import unit_rows

    X = np.asarray(problem.X, dtype=float)
    exps = monomial_exponents_of(problem.kernel, X.shape[1])
    if exps is None or len(exps) * len(X) > 20_000:
        return False
    m = np.abs(X).max(axis=0, initial=0.0)
    k = np.where(m > 0, np.frexp(np.where(m > 0, m, 1.0))[1], 0)
    Xs = X * 2.0 ** -k  # exact: a power of two
    y = np.asarray(problem.y, dtype=float)
    E = np.asarray(exps)
    M = y[:, None] * np.prod(Xs[:, None, :] ** E[None, :, :], axis=2)
    Z, D = unit_rows(M)
    n, r = Z.shape
    res = linprog(-Z.sum(axis=0), A_ub=-Z, b_ub=np.zeros(n), bounds=[(-1.0, 1.0)] * r, method="highs",
                  options={"time_limit": 10.0})
    if res.status != 0 or -res.fun <= 1e-9:
        return False
    zu = Z @ res.x
    active = np.flatnonzero(zu <= 1e-9 * max(zu.max(), 1e-300))
    XF = [[Fraction(float(v)) for v in row] for row in Xs]

    def row(i):
        out = []
        for e in exps:
            v = Fraction(int(y[i]))
            for xv, p in zip(XF[i], e):
                if p:
                    v *= xv ** p
            out.append(v)
        return out

    N = exact_linalg.null_space([row(i) for i in active], r)
    if not N:
        return False
    Nf = np.array([[float(v) for v in col] for col in N]).T  # r × k
    g, *_ = np.linalg.lstsq(Nf, D * res.x[:r], rcond=None)
    u = [sum(Fraction(float(gj)) * col[a] for gj, col in zip(g, N)) for a in range(r)]
    vals = [sum(a * b for a, b in zip(row(i), u)) for i in range(n)]
    return min(vals) >= 0 and max(vals) > 0


def explicit_rank(problem) -> int | None:
    """The rank of the monomial rows y_i ψ(x_i) (columns scaled by powers of two), or None for other kernels."""
    X = np.asarray(problem.X, dtype=float)
    exps = monomial_exponents_of(problem.kernel, X.shape[1])
    if exps is None or len(exps) * len(X) > 2_000_000:
        return None
    m = np.abs(X).max(axis=0, initial=0.0)
    k = np.where(m > 0, np.frexp(np.where(m > 0, m, 1.0))[1], 0)
    M = np.prod((X * 2.0 ** -k)[:, None, :] ** np.asarray(exps)[None, :, :], axis=2)
    cm = np.abs(M).max(axis=0)
    M = M / np.where(cm > 0, cm, 1.0)
    return int(np.linalg.matrix_rank(M))


def sharpen(problem, m, deadline: float = math.inf):
    """The MarginResult m of gram.optimal_margin, with ends made exact where a small rational certificate exists,
    and `exact` withdrawn where G's rounding hid directions the value depends on. m itself when nothing applies."""
    import dataclasses

    import time

    if exact_kernel(problem.kernel) is None or not np.isfinite(np.asarray(problem.X, dtype=float)).all():
        return m
    if time.perf_counter() >= deadline:
        return m  # no time left: the interval found so far stands
    rows = ExactRows(problem)
    p = np.asarray(m.p, dtype=float)
    S = [int(i) for i in np.flatnonzero(p > 1e-12 * p.max())] if p.size and p.max() > 0 else []
    cheap = 0 < len(S) <= MAX_SUPPORT and rows.n * len(S) <= MAX_EVALS
    lo, hi = m.interval
    if m.separable or not m.decided:
        for prec in (60, 400):
            found = refined(rows, S, prec) if cheap else None
            if found is None:
                break
            b = found[1]
            if b[0] > 0 and b[1] - b[0] < hi - max(lo, 0.0):
                exact = b[1] - b[0] <= 1e-6 * b[0] and m.complete
                q = _simplex_point(rows, found[0])  # the certificate's own witness p, and α = p/‖p‖²_G
                # α = p/‖p‖²_G as floats separates only when ρ_K² is above the rounding of p (n·eps): below, the
                # rational certificate proves separability but no float α shows it, so α is None (never inf)
                alpha = q / (b[1] * b[1]) if b[0] * b[0] > 64 * rows.n * np.finfo(float).eps else None
                return dataclasses.replace(m, separable=True, decided=True, rho=b[0], interval=b, exact=exact,
                                           p=q, alpha=alpha)
            if b[0] > 0 and b[1] - b[0] <= 1e-6 * b[0]:
                break
    if m.separable and m.decided:
        return m  # a separable verdict stands: ρ_K = 0 below is only for sets shown not to be separable
    # not separable or undecided: an exact Gordan witness, then whether 0 is on the hull's boundary (ρ_K = 0)
    witness = gordan_on(rows, S) if cheap else None
    if witness is None and not m.decided:
        exps = monomial_exponents_of(problem.kernel, np.asarray(problem.X).shape[1]) or ()
        for T in small_supports(rows.n, len(exps)):  # the exact rank is at most the number of monomials
            witness = gordan_on(rows, T)
            if witness is not None or time.perf_counter() >= deadline:
                break
    if witness is None and not m.decided or time.perf_counter() >= deadline:
        return m
    if witness is not None or m.decided:
        if nonnegative_direction(problem):
            return dataclasses.replace(m, separable=False, decided=True, rho=0.0, interval=(0.0, 0.0), exact=True,
                                       alpha=None)
    upper = 0.0
    if m.decided and m.exact and m.rho < 0:
        er = explicit_rank(problem)
        if er is None or m.rank < er:  # the factor of G lost directions that decide the hull's inradius
            return dataclasses.replace(m, rho=0.0, interval=(min(lo, -1e-300, _vertex_lower(problem)), upper),
                                       exact=False)
        return m
    if not m.decided:
        return dataclasses.replace(m, separable=False, decided=True, rho=0.0, interval=(min(lo, 0.0), upper),
                                   exact=False, alpha=None)
    return m


def _simplex_point(rows: ExactRows, c: dict[int, Fraction]) -> np.ndarray:
    """p_i = c_i √K_ii / Σ_j c_j √K_jj as floats."""
    p = np.zeros(rows.n)
    for i, ci in c.items():
        p[i] = float(ci) * math.sqrt(float(rows.diag(i)))
    return p / p.sum()


def _vertex_lower(problem) -> float:
    """−1: every b_i and w are unit vectors, so min_i b_i·w ≥ −1 (the lower end when nothing sharper is known)."""
    return -1.0
