"""Support vector machines, hard and soft margin, with any kernel of the core: the `svm` algorithm.

`svm` solves the dual by SMO (method=smo, the default: smo.SMO, LIBSVM's method) or by Clarabel's interior-point
QP (method=interior-point: the class SVM below, the exact reference whose iterates can be replayed); `smo` is an
old name that opens `svm` with method=smo. The rest of this docstring is about the interior point.

The classic formulation with an intercept: f(x) = Σ_i α_i y_i K(x_i, x) + b, found from the dual
    max Σα_i − ½ Σ_ij α_i α_j y_i y_j K_ij   s.t.  Σ α_i y_i = 0,  0 ≤ α_i (≤ C for the soft margin).
The kernel is used raw (not normalized) and b is free and unpenalized, as in LIBSVM/scikit-learn's SVC, so
the answers match SVC(kernel='precomputed'). With the affine kernel 1 + x·z the constant feature is
penalized while b is not; with `linear` (x·z) plus b this is the textbook linear SVM.

Clarabel is an interior-point method: each step of this solver shows its iterate after one more interior-point
iteration (re-solving with a growing iteration limit: Clarabel is deterministic, so these are its true iterates;
at most 25 evenly spaced ones, and none beyond 400 points), and the last step is the converged solution. The
bias is the multiplier of the constraint Σ α_i y_i = 0. Support vectors are told apart by complementarity.
For the linear and affine kernels the snapshot also carries the weights (b, w1, …, wd) of f(x) = w·x + b, in
the order of the augmented map (1, x1, …, xd).

Live mode passes the last run's α (`SVM(problem, warm_start=alpha)`): when the iterates are not replayed, the QP
to the solution is then solved on a working set that starts at those support vectors and takes in every point
that violates its margin until none does (`solve_on_working_set`): the same interior-point solver, on fewer points,
and the KKT conditions of the whole dual are checked before the result is used (else the whole QP is solved).

Hard margin on data that the kernel's feature space cannot separate has no solution: this is decided before
solving by a linear program whose optimum is 0 (separable) or at least 1 (a proof that it is not), and refused
with a DataError suggesting the soft margin. For the linear and affine kernels the program is the notes' min τ
on the rows y_i (1, x_i); for the others it is min τ s.t. y_i((Kc)_i + β) + τ ≥ 1 over free (c, β), which by
the representer argument decides separability in the kernel's feature space (see lp.kernel_separable).
"""

from __future__ import annotations

from dataclasses import replace
from typing import ClassVar

import numpy as np

from percviz.core.decision import KernelExpansion
from percviz.core.errors import DataError
from percviz.core.kernel_witness import nonseparability_confirmed
from percviz.core.params import ParamSet, ParamSpec
from percviz.core.solvers.base import Solver, Status, register, weight_reach
from percviz.core.solvers.lp import kernel_separable, min_tau
from percviz.core.solvers.smo import SMO

#: Above this many points the interior-point iterates are not replayed (each replay re-solves the QP).
MAX_POINTS_FOR_ITERATES = 400
#: At most this many intermediate iterates are shown.
MAX_REPLAYED_STEPS = 25

from percviz.core.dual_qp import (  # noqa: E402,F401  (the dual QP lives below the solvers: akaho.py uses it)
    _OK, KKT_TOL, MAX_JOINING, MAX_WORKING_ROUNDS, MAX_WORKING_SHARE, QPIterate, WorkingSetSolve, solve_dual,
    solve_on_working_set,
)


class SVM(Solver):
    """Maximum-margin classifier by the interior point: hard margin, or soft margin with penalty C on the slacks.

    The `svm` algorithm's method=interior-point (SupportVectorMachine); Akaho's input-space SVM builds on it.
    """

    name = "svm"
    display_name = "Support vector machine"
    family = "Support vector machines"
    description = (
        "The maximum-margin separator f(x) = Σ α_i y_i K(x_i, x) + b (hard margin, or soft margin with C), "
        "any kernel, solved by the Clarabel interior-point QP solver; one step per interior-point iteration."
    )
    representation = "kernel"
    views = frozenset({"canvas", "curves"})
    metric_keys = ("objective", "margin", "train_errors", "slack_sum", "support_vectors", "weight_norm", "weight_reach")
    params = ParamSet(
        (
            ParamSpec(
                "margin",
                "choice",
                "soft",
                choices=("hard", "soft"),
                help="'hard': every point outside the margin (separable data only); 'soft': slacks ξ_i cost C·ξ_i.",
            ),
            ParamSpec("C", float, 1.0, 0.0, 1e6, low_open=True, help="Soft-margin penalty C > 0 on Σ ξ_i."),
            ParamSpec(
                "show_iterations",
                bool,
                True,
                help=f"Step through Clarabel's interior-point iterates (up to {MAX_POINTS_FOR_ITERATES} points); "
                "off: one step to the solution.",
            ),
        )
    )
    default_max_iter = 200

    def __init__(self, problem, *, max_iter: int | None = None, warm_start=None, **values):
        # Live: the last run's α on these points (its support vectors start the working set); the QP to the
        # solution is then solved by chunking (solve_on_working_set) when its iterates are not replayed
        self._warm = None if warm_start is None else np.asarray(warm_start, dtype=float)
        super().__init__(problem, max_iter=max_iter, **values)

    #: The margin lines of an SVM are the level sets f = ±1 (y_i f(x_i) ≥ 1 − ξ_i), whatever the kernel.
    margin_level: ClassVar[float] = 1.0

    @property
    def _C(self) -> float | None:
        return None if self.values["margin"] == "hard" else float(self.values["C"])

    def _check_problem(self):
        super()._check_problem()
        X, y = self.problem.X, self.problem.y
        K = np.asarray(self.problem.kernel(X, X), dtype=float)
        if not np.isfinite(K).all():
            raise DataError(f"The {self.problem.kernel.spec} kernel overflows on these points; scale the data down.")
        self._K = 0.5 * (K + K.T)
        if self._C is None:
            if self.problem.kernel.affine_in_input:
                # linear/affine kernel plus the bias: f(x) = w·x + b, so test the 3-D rows y_i (1, x_i) directly
                res = min_tau(y[:, None] * np.column_stack([np.ones(len(y)), X]))
                ok, tau = res.value < 0.5, res.value
            else:
                ok, tau = kernel_separable(self._K, y)
            if not ok and not nonseparability_confirmed(None, self.problem.kernel, X, y, bias=True):
                raise DataError(  # the LP's infeasibility came from rounding (K or the rows at this scale)
                    f"The hard margin cannot be solved reliably here: in double precision the "
                    f"{self.problem.kernel.spec} kernel does not resolve these points (the LP min τ = {tau:.3g} "
                    "is not confirmed by the points themselves, which may well be separable). Scale the points to "
                    "about unit size, or use the soft margin (margin=soft)."
                )
            if not ok:
                raise DataError(
                    f"Not separable by the {self.problem.kernel.spec} kernel: use the soft margin (margin=soft) "
                    f"with a finite C, or a more flexible kernel. A hard-margin SVM needs separable points, and "
                    f"the LP min τ = {tau:.3g} > 0 proves these are not."
                )

    def _reset(self):
        y = self.problem.y
        self._y = y
        self._Q = (y[:, None] * y[None, :]) * self._K
        replay = self.values["show_iterations"] and self.problem.n <= MAX_POINTS_FOR_ITERATES
        self._working = None
        if not replay and self._warm is not None and len(self._warm) == self.problem.n:
            self._working = solve_on_working_set(self._K, y, self._C, np.flatnonzero(self._warm > 0))
        final = self._working.qp if self._working is not None else solve_dual(self._K, y, self._C)
        if final.status not in _OK:
            hint = "Use the soft margin (margin=soft)." if self._C is None else "Lower C or scale the points down."
            raise DataError(
                f"The SVM quadratic program could not be solved accurately (Clarabel status: {final.status}). "
                + hint
            )
        self._final = final
        total = max(final.iterations, 1)
        # Step j shows the iterate after schedule[j − 1] interior-point iterations (all of them, or an even
        # subset when there are many, since replaying iteration k costs k iterations).
        count = min(total, MAX_REPLAYED_STEPS) if replay else 1
        self._schedule = [int(v) for v in np.unique(np.round(np.linspace(total, 1, count)).astype(int))]
        self._steps = len(self._schedule)
        self._k = 0
        self._cached: tuple[int, QPIterate] | None = None

    @property
    def _current(self) -> QPIterate:
        """The iterate of step k, solved only when a snapshot needs it (so advance(n) skips the replays)."""
        if self._k == 0:
            return QPIterate(np.zeros(self.problem.n), 0.0, "start", 0)
        if self._at_solution():
            return self._final
        if self._cached is None or self._cached[0] != self._k:
            it = solve_dual(self._K, self._y, self._C, max_iter=self._schedule[self._k - 1])
            self._cached = (self._k, it)
        return self._cached[1]

    def _update(self):
        self._k += 1
        return ()

    def _at_solution(self) -> bool:
        return self._k >= self._steps

    def _scores(self) -> np.ndarray:
        a = self._current.alpha
        return self._y * (self._K @ (a * self._y) + self._current.bias)

    def _halt(self):
        if not self._at_solution():
            return None
        return Status.SEPARATOR if (self._scores() > 0).all() else Status.CONVERGED

    def _support(self, alpha, scores) -> np.ndarray:
        """Support vectors. Interior-point solutions are never exactly 0: near the optimum either α_i → 0 or the
        margin slack y_i f(x_i) − 1 → 0 (complementarity), so call x_i a support vector when α_i/max α beats it."""
        top = float(alpha.max(initial=0.0))
        if top <= 0:
            return np.zeros(alpha.shape, dtype=bool)
        return alpha / top > np.maximum(scores - 1.0, 0.0)

    def _state(self):
        it = self._current
        alpha = it.alpha
        w2 = float(max(alpha @ self._Q @ alpha, 0.0))
        wn = float(np.sqrt(w2))
        coef = alpha * self._y
        decision = KernelExpansion(self.problem.kernel, self.problem.X, coef, it.bias, wn or None)
        scores = self._y * (self._K @ coef + it.bias)
        slack = np.maximum(0.0, 1.0 - scores)
        sv = self._support(alpha, scores)
        # The halos show α on the support vectors only, within [0, C] (interior-point values are never exactly
        # 0 and may stray slightly outside); f itself keeps every α, since on ill-conditioned kernels the
        # small ones still matter.
        shown = np.clip(np.where(sv, alpha, 0.0), 0.0, self._C)
        wb = decision.affine_weights(self.problem.points.dim)
        return {
            "decision": decision,
            "alpha": shown,
            "weights": None if wb is None else np.concatenate([[wb[1]], wb[0]]),
            "metrics": {
                "objective": float(alpha.sum() - 0.5 * w2),
                # The metric's definition, min_i y_i f(x_i)/‖w‖: 1/‖w‖ for a hard-margin solution, below it
                # (negative with training errors) for a soft one.
                "margin": float(scores.min() / wn) if wn > 0 else None,
                "weight_norm": wn,
                "weight_reach": weight_reach(wn, self.problem, scores * self._y),
                "train_errors": int((scores <= 0).sum()),
                "slack_sum": float(slack.sum()),
                "support_vectors": int(sv.sum()),
            },
            "message": self._message(shown, sv, slack, wn),
        }

    def _message(self, alpha, sv, slack, wn) -> str:
        kind = "hard margin" if self._C is None else f"soft margin, C = {self._C:g}"
        if self._k == 0:
            return f"SVM ({kind}) on the {self.problem.kernel.spec} kernel: α = 0 before the first iteration."
        if not self._at_solution():
            done = self._schedule[self._k - 1]
            return f"Interior-point iteration {done} of {self._final.iterations} ({kind})."
        iters = self._final.iterations
        parts = [f"Solved ({kind}) in {iters} interior-point iterations: {int(sv.sum())} support vectors"]
        ws = self._working
        if ws is not None:
            parts[0] = (f"Solved ({kind}) on a working set of {ws.size} of {self.problem.n} points ({ws.rounds} QP "
                        f"solve{'s' if ws.rounds > 1 else ''}, {ws.iterations} interior-point iterations; every other "
                        f"point has y_i f(x_i) ≥ 1, so α_i = 0 is optimal there): {int(sv.sum())} support vectors")
        if self._C is not None:
            at_c = int((alpha >= self._C * (1 - 1e-6)).sum())
            parts[0] += f" ({at_c} at the bound C)"
            inside = int((slack > 1e-6).sum())
            parts.append(f"Σξ = {slack.sum():.4g} (ξ_i > 0 on {inside} points)" if inside else "no slack: ξ = 0")
        elif slack.max() > 1e-6:
            parts.append(f"margin constraints met to within {slack.max():.1e} (the margin is tiny for this kernel)")
        if wn > 0 and slack.max() <= 1e-6:
            parts.append(f"margin 1/‖w‖ = {1 / wn:.4g}")
        elif wn > 0:
            parts.append(f"1/‖w‖ = {1 / wn:.4g} is the width of the soft margin, not a margin of the data "
                         f"(min_i y_i f(x_i)/‖w‖ = {(1 - slack.max()) / wn:.4g})")
        if self._final.status != "Solved":
            parts.append("reduced accuracy")
        return "; ".join(parts) + "."


#: How the `svm` algorithm solves its dual.
METHODS = ("smo", "interior-point")


def _union_params() -> ParamSet:
    """margin and C, the method, then each method's own parameters (the other method ignores them)."""
    smo = {spec.name: spec for spec in SMO.params.specs}
    ipm = {spec.name: spec for spec in SVM.params.specs}
    method = ParamSpec(
        "method",
        "choice",
        "smo",
        choices=METHODS,
        help="'smo': pairs of coefficients by SMO (LIBSVM's method, fast); 'interior-point': Clarabel's QP "
        "(the exact reference; its iterates can be replayed).",
    )
    own = [replace(smo[k], help=smo[k].help + " (method=smo)") for k in ("tol", "shrinking", "cache_mb")]
    show = replace(ipm["show_iterations"], help=ipm["show_iterations"].help + " (method=interior-point)")
    return ParamSet((ipm["margin"], ipm["C"], method, *own, show))


@register
class SupportVectorMachine(Solver):
    """The SVM, by SMO (default) or by the interior point: constructing it gives the method's solver."""

    name = "svm"
    display_name = "Support vector machine"
    family = "Support vector machines"
    description = (
        "The maximum-margin separator f(x) = Σ α_i y_i K(x_i, x) + b (hard margin, or soft margin with C), any "
        "kernel. method=smo (default): like LIBSVM, each step moves the pair (α_i, α_j) chosen by second-order "
        "working-set selection, until the KKT violation m − M is below tol; method=interior-point: Clarabel's QP, "
        "one step per interior-point iteration."
    )
    representation = "kernel"
    views = frozenset({"canvas", "curves"})
    metric_keys = SMO.metric_keys
    params = _union_params()
    default_max_iter = SMO.default_max_iter
    margin_level: ClassVar[float] = 1.0
    #: both methods start from a given α (SMO from it; the interior point's working set from its support)
    warm_start: ClassVar[str | None] = "alpha"

    def __new__(cls, problem=None, *args, **values):
        method = values.get("method", cls.params.defaults()["method"])
        impl = SVMByInteriorPoint if method == "interior-point" else SVMBySMO  # (a bad name: validation says so)
        obj = object.__new__(impl)
        if not issubclass(impl, cls):  # an alias class: Python calls __init__ only on instances of cls
            obj.__init__(problem, *args, **values)
        return obj

    @property
    def method(self) -> str:
        """Which method ran ('smo' or 'interior-point')."""
        return self.values["method"]


class SVMBySMO(SupportVectorMachine, SMO):
    """`svm` with method=smo."""


class SVMByInteriorPoint(SupportVectorMachine, SVM):
    """`svm` with method=interior-point."""


@register
class SMOName(SupportVectorMachine):
    """`smo`: the old name of the SVM by SMO, kept so that old presets, scripts and command lines open it."""

    name = "smo"
    display_name = "SVM by SMO (the svm algorithm, method=smo)"
    alias_of = "svm"
    alias_values = {"method": "smo"}
