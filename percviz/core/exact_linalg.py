"""Gauss–Jordan elimination in exact arithmetic (Fractions): null spaces and consistent solves for certificates."""

from __future__ import annotations

from fractions import Fraction


def rref(A: list[list[Fraction]], ncols: int) -> list[int]:
    """Reduce the rows of A in place to reduced row echelon form over their first ncols columns; the pivot columns."""
    pivots: list[int] = []
    r = 0
    for col in range(ncols):
        if r == len(A):
            break
        piv = next((a for a in range(r, len(A)) if A[a][col] != 0), None)
        if piv is None:
            continue
        A[r], A[piv] = A[piv], A[r]
        inv = 1 / A[r][col]
        A[r] = [v * inv for v in A[r]]
        for a in range(len(A)):
            if a != r and A[a][col] != 0:
                f = A[a][col]
                A[a] = [u - f * v for u, v in zip(A[a], A[r])]
        pivots.append(col)
        r += 1
    return pivots


def null_space(A: list[list[Fraction]], ncols: int) -> list[list[Fraction]]:
    """A basis of {u : A u = 0} (each vector ncols Fractions, 1 at its own free column)."""
    R = [list(a) for a in A]
    pivots = rref(R, ncols)
    out = []
    for free in (c for c in range(ncols) if c not in pivots):
        u = [Fraction(0)] * ncols
        u[free] = Fraction(1)
        for a, col in enumerate(pivots):
            u[col] = -R[a][free]
        out.append(u)
    return out


def solve(A: list[list[Fraction]], b: list[Fraction]) -> list[Fraction] | None:
    """One exact solution of A u = b (free unknowns 0), or None when the system is inconsistent."""
    ncols = len(A[0]) if A else 0
    R = [list(a) + [bv] for a, bv in zip(A, b)]
    pivots = rref(R, ncols)
    if any(row[-1] != 0 and all(v == 0 for v in row[:-1]) for row in R):
        return None
    u = [Fraction(0)] * ncols
    for a, col in enumerate(pivots):
        u[col] = R[a][-1]
    return u
