"""Scale-invariant checks of separability claims on the notes' rows Y (y_i φ(x_i)), by an exact LP (HiGHS).

Separability of the rows is unchanged by positive scalings of Y's columns (a absorbs them) and of its rows
(each inequality a·y_i > 0 keeps its sign), so every test here works on Y with each column scaled to max |·| = 1
and each row to unit length: a point set and its copy scaled by 1e-300 get the same verdict.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class Verdict:
    """separable: True, False, or None (the LP could not decide); a: a separating vector of the original Y."""

    separable: bool | None
    a: np.ndarray | None = None
    detail: str = ""
    timed_out: bool = False  # the LP stopped at its time limit (separable is None)


def column_scales(Y) -> np.ndarray:
    """D with Y·diag(D) having max |entry| = 1 in every non-zero column (1 for zero columns)."""
    m = np.abs(np.asarray(Y, dtype=float)).max(axis=0, initial=0.0)
    return np.where(m > 0, 1.0 / np.where(m > 0, m, 1.0), 1.0)


def unit_rows(Y) -> tuple[np.ndarray, np.ndarray]:
    """(Y·diag(D) with unit rows, D): the scale-free form of the inequalities a·y_i > 0."""
    D = column_scales(Y)
    Z = np.asarray(Y, dtype=float) * D
    r = np.linalg.norm(Z, axis=1)
    return Z / np.where(r > 0, r, 1.0)[:, None], D


def exact_separability(Y, time_limit: float | None = None) -> Verdict:
    """Is there a with a·y_i > 0 for all i?  LP: find a′ with Z a′ ≥ 1 on the scale-free rows Z; a = D a′.

    time_limit: seconds HiGHS may spend (None: no limit); past it the verdict is None with timed_out set."""
    Y = np.asarray(Y, dtype=float)
    if Y.size == 0:
        return Verdict(None, None, "no samples")
    Z, D = unit_rows(Y)
    if (np.linalg.norm(Z, axis=1) == 0).any():
        return Verdict(False, None, "a sample is the zero vector, so a·y_i > 0 is impossible for it")
    if time_limit is not None and not time_limit > 0:
        return Verdict(None, None, "no time left for the exact LP", timed_out=True)
    from scipy.optimize import linprog  # lazy: scipy.optimize is slow to import
    options = {} if time_limit is None else {"time_limit": float(time_limit)}
    t0 = time.perf_counter()
    res = linprog(np.zeros(Z.shape[1]), A_ub=-Z, b_ub=-np.ones(len(Z)), bounds=[(None, None)] * Z.shape[1],
                  options=options)
    if res.status == 1 and time_limit is not None:
        return Verdict(None, None, f"the exact LP reached its time limit ({time_limit:.3g} s)", timed_out=True)
    if res.status == 2:  # HiGHS decides within its tolerances (1e-7): a margin below them also looks infeasible
        left = None if time_limit is None else time_limit - (time.perf_counter() - t0)
        if left is not None and left <= 0 and _opposite_rows(Y) is None:
            return Verdict(None, None, "no time left for the exact Gordan witness", timed_out=True)
        try:
            witness = gordan_witness(Y, Z, left)
        except TimeoutError:
            return Verdict(None, None, "the exact Gordan witness ran out of the time limit", timed_out=True)
        if witness is not None:
            return Verdict(False, None, "the exact LP on the scale-free rows is infeasible, and Gordan's witness "
                                        "p ≥ 0 with Σ p_i y_i = 0 holds in exact rational arithmetic")
        return Verdict(None, None, "the LP finds no separator, but no exact Gordan witness confirms it "
                                   "(a margin below the LP's tolerance)")
    if res.status == 0 and res.x is not None:
        a = D * res.x
        if (Y @ a > 0).all():
            return Verdict(True, a, "the exact LP found a separating vector")
        return Verdict(None, None, "the exact LP's vector misses a sample by rounding")
    return Verdict(None, None, f"the exact LP stopped: {res.message.strip()}")


#: Largest support of a Gordan witness solved in exact rational arithmetic (a vertex has at most D + 1 points).
MAX_EXACT_SUPPORT = 64


def _opposite_rows(Y) -> tuple[int, int] | None:
    """(i, j) with y_i = −y_j exactly (one point carrying both labels): ½(e_i + e_j) is an exact witness."""
    seen = {}
    for i, row in enumerate(np.asarray(Y, dtype=float)):
        j = seen.get((-row + 0.0).tobytes())
        if j is not None:
            return j, i
        seen.setdefault((row + 0.0).tobytes(), i)
    return None


def gordan_witness(Y, Z=None, time_limit: float | None = None) -> list | None:
    """Exact q ≥ 0 with Σ q = 1 and Σ q_i y_i = 0 (Fractions, on Y's rows as stored), or None if none is found.

    HiGHS's simplex gives a vertex p of {p ≥ 0, Σ p = 1, Zᵀp = 0} on the scale-free rows Z; its support S is then
    solved again exactly on Y: by Gordan's theorem such q proves that no a has every a·y_i > 0. Raises
    TimeoutError when the LP reaches time_limit seconds."""
    from fractions import Fraction

    from scipy.optimize import linprog

    from percviz.core import exact_linalg

    Y = np.asarray(Y, dtype=float)
    pair = _opposite_rows(Y)
    if pair is not None:
        q = [Fraction(0)] * len(Y)
        q[pair[0]] = q[pair[1]] = Fraction(1, 2)
        return q
    Z = unit_rows(Y)[0] if Z is None else Z
    n, m = Z.shape
    A = np.vstack([Z.T, np.ones((1, n))])
    b = np.r_[np.zeros(m), 1.0]
    options = {} if time_limit is None else {"time_limit": max(float(time_limit), 1e-3)}
    res = linprog(np.zeros(n), A_eq=A, b_eq=b, bounds=[(0, None)] * n, method="highs-ds", options=options)
    if res.status == 1 and time_limit is not None:
        raise TimeoutError("the Gordan witness LP reached its time limit")
    if res.status != 0 or res.x is None:
        return None
    S = np.flatnonzero(res.x > 1e-14)
    if S.size == 0 or S.size > MAX_EXACT_SUPPORT:
        return None
    # the (m + 1) × |S| system [Y_Sᵀ; 1ᵀ] q = (0, 1) in fractions (free unknowns set to 0)
    A = [[Fraction(float(Y[i, k])) for i in S] for k in range(m)] + [[Fraction(1)] * S.size]
    q = exact_linalg.solve(A, [Fraction(0)] * m + [Fraction(1)])
    if q is None:
        return None  # inconsistent: no exact witness on this support
    if min(q) < 0:
        return None
    full = [Fraction(0)] * n
    for i, v in zip(S, q):
        full[int(i)] = v
    # the proof itself, checked directly: Σ q_i y_i = 0 exactly and Σ q_i = 1
    if sum(q) != 1 or any(sum(qv * Fraction(float(Y[i, k])) for i, qv in zip(S, q)) != 0 for k in range(m)):
        return None
    return full


#: φ-maps made of monomials: φ(D x) for a positive diagonal D is φ(x) with positive column factors.
MONOMIAL_MAPS = ("linear", "linear1d", "quadratic", "poly")


def scale_free_rows(problem) -> np.ndarray | None:
    """y_i φ(x_i / m) with m the columns' max |x|, for monomial φ-maps (same separability as Y, and no monomial
    underflows or overflows: x² of 1e-300 is 0 in double precision); None for other maps."""
    if getattr(problem.features, "name", "") not in MONOMIAL_MAPS:
        return None
    X = np.asarray(problem.X, dtype=float)
    m = np.abs(X).max(axis=0, initial=0.0)
    Phi = np.asarray(problem.features.transform(X / np.where(m > 0, m, 1.0)), dtype=float)
    return np.asarray(problem.y, dtype=float)[:, None] * Phi


def _rows_merge_points(problem, Y) -> bool:
    """Whether two points with different coordinates and labels get equal rows up to sign (φ's rounding)."""
    X = np.asarray(problem.X, dtype=float)
    y = np.asarray(problem.y, dtype=float)
    Phi = np.asarray(Y, dtype=float) * y[:, None]
    _, inv = np.unique(Phi, axis=0, return_inverse=True)
    inv = inv.ravel()
    for g in np.unique(inv):
        idx = np.flatnonzero(inv == g)
        if len(idx) > 1 and len(set(y[idx])) > 1 and len(np.unique(X[idx], axis=0)) > 1:
            return True
    return False


def refute_nonseparable(Y, problem=None) -> str:
    """'' when the exact LP confirms that no a has every a·y_i > 0; otherwise why the proof cannot be shown.

    problem: also decide on the points themselves (scale_free_rows), not on φ as rounded at their scale."""
    v = exact_separability(Y)
    if v.separable is False and problem is not None:
        rows = scale_free_rows(problem)
        if rows is not None:
            v = exact_separability(rows)
        elif _rows_merge_points(problem, Y):
            return "in double precision the φ-map gives distinct points of both labels the same row"
    if v.separable is False:
        return ""
    if v.separable:
        return "the exact LP on the rescaled samples finds a separating vector"
    return f"the exact LP could not confirm it ({v.detail})"
