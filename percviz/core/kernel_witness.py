"""Is a kernel's "not separable" true of the points, not just of G in double precision? (issue 10 audit)

A Gordan witness read on the rounded G (‖p‖_G = 0 to rounding) is a proof only when G's rounding cannot hide the
separating direction. It can: with points 1e-12 apart (or scaled by 1e-30), an RBF or affine G rounds to ±1
everywhere although the points are separable. The truth is decided here without G:
- RBF and Laplacian kernels are strictly positive definite, so φ(x_1), …, φ(x_m) of distinct points are linearly
  independent: Σ p_i y_i φ(x_i) = 0 with p ≥ 0, p ≠ 0 only if some point carries both labels.
- linear, affine and polynomial kernels have an explicit feature map (monomials, with positive weights that do not
  change separability): the exact, scale-free LP of core.certify on those rows decides.
"""

from __future__ import annotations

import numpy as np

from percviz.core.features import monomial_exponents

#: Largest n × (number of monomials) the explicit LP is asked to decide (beyond it: not confirmed).
MAX_LP_ENTRIES = 4_000_000


def both_labels_at_one_point(X, y) -> bool:
    """Whether two equal points carry opposite labels (exactly equal coordinates)."""
    X = np.asarray(X, dtype=float)
    if len(X) < 2:
        return False
    _, inverse = np.unique(X, axis=0, return_inverse=True)
    inverse = inverse.ravel()
    y = np.asarray(y)
    first = np.full(inverse.max() + 1, 0.0)
    first[inverse] = y  # any representative label per location
    return bool((y != first[inverse]).any())


def explicit_rows(kernel, X, y, bias: bool = False) -> np.ndarray | None:
    """Rows y_i ψ(x_i) for the kernel's monomials ψ (columns of X prescaled to max |·| = 1), or None.

    bias: the feature space of K + 1 (a separate bias term, as the SVM's f = Σ c_j K(x_j, ·) + β)."""
    name = getattr(kernel, "name", "")
    X = np.asarray(X, dtype=float)
    m = np.abs(X).max(axis=0, initial=0.0)
    Z = X / np.where(m > 0, m, 1.0)  # a positive column scaling of every monomial: same separability
    if name == "linear":
        exps = [e for e in monomial_exponents(1, Z.shape[1]) if sum(e) == 1]
    elif name == "affine":
        exps = monomial_exponents(1, Z.shape[1])
    elif name == "poly":
        deg = int(kernel.degree)
        exps = [e for e in monomial_exponents(deg, Z.shape[1]) if kernel.c > 0 or sum(e) in (deg, 0 if bias else deg)]
    else:
        return None
    if bias and name == "linear":
        exps = monomial_exponents(1, Z.shape[1])
    if len(exps) * len(Z) > MAX_LP_ENTRIES:
        return None
    E = np.asarray(exps, dtype=float)
    F = np.prod(Z[:, None, :] ** E[None, :, :], axis=2)
    return np.asarray(y, dtype=float)[:, None] * F


def nonseparability_confirmed(problem, kernel=None, X=None, y=None, bias: bool = False) -> bool:
    """True when the points themselves (not G's rounding) admit no separator in the kernel's feature space.

    problem: a Problem (its kernel, X, y), or None with kernel, X and y given; bias: with a bias term (K + 1)."""
    return confirm_nonseparable(problem, kernel, X, y, bias) == "confirmed"


def confirm_nonseparable(problem, kernel=None, X=None, y=None, bias: bool = False,
                         time_limit: float | None = None) -> str:
    """'confirmed', 'refuted' (not confirmed: separable, or no method here) or 'timeout' (the exact LP ran out of
    its time_limit seconds, or had none left): nonseparability_confirmed with a time budget."""
    from percviz.core.certify import exact_separability

    if problem is not None:
        kernel, X, y = problem.kernel, problem.X, problem.y
    name = getattr(kernel, "name", "")
    if name in ("rbf", "laplacian"):
        return "confirmed" if both_labels_at_one_point(X, y) else "refuted"
    rows = explicit_rows(kernel, X, y, bias)
    if rows is None:
        return "refuted"
    v = exact_separability(rows, time_limit)
    return "confirmed" if v.separable is False else ("timeout" if v.timed_out else "refuted")
