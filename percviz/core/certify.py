"""Scale-invariant checks of separability claims on the notes' rows Y (y_i φ(x_i)), by an exact LP (HiGHS).

Separability of the rows is unchanged by positive scalings of Y's columns (a absorbs them) and of its rows
(each inequality a·y_i > 0 keeps its sign), so every test here works on Y with each column scaled to max |·| = 1
and each row to unit length: a point set and its copy scaled by 1e-300 get the same verdict.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class Verdict:
    """separable: True, False, or None (the LP could not decide); a: a separating vector of the original Y."""

    separable: bool | None
    a: np.ndarray | None = None
    detail: str = ""


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


def exact_separability(Y) -> Verdict:
    """Is there a with a·y_i > 0 for all i?  LP: find a′ with Z a′ ≥ 1 on the scale-free rows Z; a = D a′."""
    from scipy.optimize import linprog  # lazy: scipy.optimize is slow to import

    Y = np.asarray(Y, dtype=float)
    if Y.size == 0:
        return Verdict(None, None, "no samples")
    Z, D = unit_rows(Y)
    if (np.linalg.norm(Z, axis=1) == 0).any():
        return Verdict(False, None, "a sample is the zero vector, so a·y_i > 0 is impossible for it")
    res = linprog(np.zeros(Z.shape[1]), A_ub=-Z, b_ub=-np.ones(len(Z)), bounds=[(None, None)] * Z.shape[1])
    if res.status == 2:
        return Verdict(False, None, "the exact LP on the scale-free rows is infeasible")
    if res.status == 0 and res.x is not None:
        a = D * res.x
        if (Y @ a > 0).all():
            return Verdict(True, a, "the exact LP found a separating vector")
        return Verdict(None, None, "the exact LP's vector misses a sample by rounding")
    return Verdict(None, None, f"the exact LP stopped: {res.message.strip()}")


def refute_nonseparable(Y) -> str:
    """'' when the exact LP confirms that no a has every a·y_i > 0; otherwise why the proof cannot be shown."""
    v = exact_separability(Y)
    if v.separable is False:
        return ""
    if v.separable:
        return "the exact LP on the rescaled samples finds a separating vector"
    return f"the exact LP could not confirm it ({v.detail})"
