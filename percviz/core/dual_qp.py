"""The SVM dual as a convex QP (Clarabel's interior point), whole or on a working set; shared by the interior-point
SVM (solvers/svm.py) and Akaho's input-space SVM (core/akaho.py), which sits below the solvers."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

_OK = {"Solved", "AlmostSolved"}


@dataclass(frozen=True)
class QPIterate:
    """Dual coefficients α, the bias b and Clarabel's status after some interior-point iterations."""

    alpha: np.ndarray
    bias: float
    status: str
    iterations: int


def solve_dual(K, y, C: float | None, max_iter: int = 200, linear=None) -> QPIterate:
    """The SVM dual as a Clarabel QP; C = None for the hard margin. `linear` replaces the 1s of Σα_i (Akaho's ĝ_i)."""
    import clarabel  # lazy, like scipy.sparse: neither is needed to list the solvers
    import scipy.sparse as sp

    K = np.asarray(K, dtype=float)
    y = np.asarray(y, dtype=float)
    n = len(y)
    # Solve with K/s and C·s (α = α′/s gives the same f and b): Clarabel's absolute tolerances then fit any
    # data scale. s is the mean K(x, x), 1 for RBF and Laplacian.
    s = float(np.mean(np.abs(np.diag(K)))) or 1.0
    Q = (y[:, None] * y[None, :]) * (K / s)
    P = sp.csc_matrix(np.triu(0.5 * (Q + Q.T)))
    rows = [sp.csc_matrix(y[None, :]), -sp.identity(n, format="csc")]  # yᵀα = 0; −α ≤ 0
    rhs = [np.zeros(1), np.zeros(n)]
    if C is not None:
        rows.append(sp.identity(n, format="csc"))  # α ≤ C
        rhs.append(np.full(n, float(C) * s))
    A = sp.vstack(rows, format="csc")
    cones = [clarabel.ZeroConeT(1), clarabel.NonnegativeConeT(A.shape[0] - 1)]
    settings = clarabel.DefaultSettings()
    settings.verbose = False
    settings.max_iter = int(max_iter)
    settings.tol_gap_abs = settings.tol_gap_rel = settings.tol_feas = 1e-9
    # The dual is never unbounded here (hard margin is checked by LP first); with a huge C the default
    # infeasibility tolerances can misreport it as such.
    settings.tol_infeas_abs = settings.tol_infeas_rel = 1e-14
    lin = np.ones(n) if linear is None else np.asarray(linear, dtype=float)
    sol = clarabel.DefaultSolver(P, -lin, A, np.concatenate(rhs), cones, settings).solve()
    # KKT: Qα − 1 + z₀ y − μ + λ = 0, so for a free support vector y_i(f₀(x_i) + z₀) = 1: b = z₀.
    status = str(sol.status).split(".")[-1]
    return QPIterate(np.array(sol.x, dtype=float) / s, float(sol.z[0]), status, int(sol.iterations))


#: A working-set solve stops trying (and the whole QP is solved) after this many rounds, or past this share of n.
MAX_WORKING_ROUNDS = 10
#: At most this many of the most violated points join the working set per round.
MAX_JOINING = 20
MAX_WORKING_SHARE = 0.6
#: A point left out of the working set must have y_i f(x_i) ≥ 1 − KKT_TOL (then α_i = 0 is optimal for it).
KKT_TOL = 1e-7


@dataclass(frozen=True)
class WorkingSetSolve:
    """The dual's solution found on a working set: the points it kept, its QP rounds and interior-point iterations."""

    qp: QPIterate
    size: int
    rounds: int
    iterations: int


def solve_on_working_set(K, y, C: float | None, start) -> WorkingSetSolve | None:
    """The SVM dual solved by Clarabel on a working set W (chunking, as in Osuna, Freund and Girosi's decomposition).

    α is 0 outside W. A point outside W with y_i f(x_i) < 1 − KKT_TOL would gain from α_i > 0: those join W and the
    QP on W is solved again (the most violated first). Once none is left, α meets the KKT conditions of the whole dual (α_i = 0 with
    y_i f(x_i) ≥ 1 outside W, the QP's own conditions on W), so it is the whole QP's solution. None when W does not
    settle within MAX_WORKING_ROUNDS or outgrows MAX_WORKING_SHARE of the points (solve the whole QP then)."""
    K = np.asarray(K, dtype=float)
    y = np.asarray(y, dtype=float)
    n = len(y)
    W = np.zeros(n, dtype=bool)
    W[np.asarray(start)] = True
    iterations = 0
    for rounds in range(1, MAX_WORKING_ROUNDS + 1):
        idx = np.flatnonzero(W)
        if len(idx) > MAX_WORKING_SHARE * n or len(np.unique(y[idx])) < 2:
            return None
        qp = solve_dual(K[np.ix_(idx, idx)], y[idx], C)
        iterations += qp.iterations
        if qp.status not in _OK:
            return None
        f = K[:, idx] @ (qp.alpha * y[idx]) + qp.bias
        violated = ~W & (y * f < 1.0 - KKT_TOL)
        if not violated.any():
            alpha = np.zeros(n)
            alpha[idx] = qp.alpha
            return WorkingSetSolve(QPIterate(alpha, qp.bias, qp.status, qp.iterations), len(idx), rounds, iterations)
        worst = np.flatnonzero(violated)
        worst = worst[np.argsort((y * f)[worst])][:MAX_JOINING]  # the most violated join first
        W[worst] = True
    return None
