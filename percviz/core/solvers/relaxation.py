"""Relaxation procedures with margin (DHS §5.6): descent on J_r = ½ Σ_{a·y ≤ b} (a·y − b)² / ‖y‖²."""

from __future__ import annotations

import numpy as np

from percviz.core.certify import refute_nonseparable
from percviz.core.errors import DataError
from percviz.core.params import ParamSet, ParamSpec
from percviz.core.solvers import _linear as L
from percviz.core.solvers.base import Solver, Status, register

#: η may go up to this bound; past 2 the convergence proof fails (overrelaxation beyond the theory).
ETA_LIMIT = 4.0

MARGIN = ParamSpec("b", float, 1.0, 0, None, help="Margin b: samples with a·y < b are corrected (b > 0 advised).")


def _eta_spec(default: float) -> ParamSpec:
    return ParamSpec(
        "eta",
        float,
        default,
        0,
        ETA_LIMIT,
        low_open=True,
        help="Relaxation factor η: < 1 under-, > 1 overrelaxation; the theory needs 0 < η < 2.",
    )


def j_relaxation(scores: np.ndarray, sq_norms: np.ndarray, b: float) -> float:
    """J_r = ½ Σ over a·y ≤ b of (a·y − b)² / ‖y‖²."""
    v = np.minimum(scores - b, 0.0)
    return float(0.5 * np.sum(v * v / sq_norms))


def _check_rows(solver: Solver) -> np.ndarray:
    Y = np.asarray(solver.problem.Y)
    sq = np.einsum("ij,ij->i", Y, Y)
    if (sq == 0).any():
        i = int(np.flatnonzero(sq == 0)[0])
        raise DataError(
            f"Sample {i} has φ(x) = 0 with the {solver.problem.features.spec} map, so relaxation cannot "
            "divide by ‖y‖²; move that point or use a map with a constant term (e.g. linear)."
        )
    return sq


def _eta_warning(eta: float) -> str:
    if eta >= 2:
        return f" Warning: η = {eta:g} ≥ 2 is overrelaxation beyond the theory; convergence is not guaranteed."
    return ""


@register
class Relaxation(L.ScanPasses, Solver):
    """DHS Algorithm 9: when a·y^k < b, a ← a + η (b − a·y^k)/‖y^k‖² y^k; separation checked at pass ends."""

    name = "relaxation"
    display_name = "Single-sample relaxation with margin"
    no_fit_on_overlap = "single-sample relaxation does not converge on non-separable data; its last iterate is arbitrary"
    family = L.RELAXATION_FAMILY
    description = "Moves a a fraction η of the way to each violated hyperplane a·y = b, one sample at a time."
    representation = "features"
    views = L.WEIGHT_VIEWS
    metric_keys = ("j_relaxation", "weight_norm", "train_errors", "margin", "mistakes")
    default_max_iter = 100000
    params = ParamSet((MARGIN, _eta_spec(1.0), L.MAX_PASSES))

    def _reset(self):
        self._Y = np.asarray(self.problem.Y)
        self._sq = _check_rows(self)
        self.a = np.zeros(self._Y.shape[1])
        b = self.values["b"]
        # The notes correct when δ = b − a·y > 0 and test for a separator only at the end of a pass.
        self.scan = L.CyclicScan(
            len(self._Y), lambda s: b - s > 0, self.values["max_passes"], pass_end_ok=lambda s: (s > 0).all()
        )
        self._stop = None

    def _update(self):
        i = self.scan.next
        y = self._Y[i]
        delta = self.values["b"] - self.a @ y
        self.a = self.a + self.values["eta"] * delta / (y @ y) * y
        self.scan.corrected(i)
        return (i,)

    def _halt(self):
        if L.diverged(self.a, self):
            return self._diverged_because(
                f"Relaxation diverged at correction {self.iteration}: η = {self.values['eta']:g} overshoots each "
                "hyperplane too far. Choose 0 < η < 2, where convergence is proved."
            )
        self._stop, status = self.scan.halt(self._Y, self.a)
        return status

    def _state(self):
        s = self.scan.scores_of(self._Y, self.a)
        b = self.values["b"]
        msg = f"{self.iteration} corrections, pass {self.scan.passes_used}."
        if self.status is Status.SEPARATOR:
            msg += f" Every a·y_i > 0 at the end of the pass (min a·y_i / b = {s.min() / b:.3g})." if b > 0 else ""
        elif self.status is Status.CONVERGED:
            msg += " A whole pass made no correction, yet some a·y_i = 0: with b = 0 the rule can stall on the " \
                   "boundary of the solution region. Use a margin b > 0."
        elif self._stop == "max_passes":
            msg += f" Stopped after max_passes = {self.values['max_passes']}."
        msg += _eta_warning(self.values["eta"])
        return L.state(
            self, self.a, {"j_relaxation": j_relaxation(s, self._sq, b), "mistakes": self.iteration}, msg, s
        )


@register
class BatchRelaxation(Solver):
    """DHS Algorithm 8: a ← a + η Σ_{a·y ≤ b} (b − a·y)/‖y‖² y (optionally ÷ |Y_k|); stops when all a·y_i > 0."""

    name = "batch-relaxation"
    display_name = "Batch relaxation with margin"
    family = L.RELAXATION_FAMILY
    description = "Gradient descent on J_r: one step from all samples with a·y ≤ b at once."
    representation = "features"
    views = L.WEIGHT_VIEWS
    metric_keys = ("j_relaxation", "weight_norm", "train_errors", "margin")
    default_max_iter = 100000
    params = ParamSet(
        (
            MARGIN,
            _eta_spec(1.0),
            ParamSpec(
                "mean",
                bool,
                True,
                help="Divide the sum by the number |Y_k| of violated samples, so that every 0 < η < 2 is a "
                "stable step (λ_max of Σ y yᵗ/‖y‖² is at most |Y_k|). Off: DHS's literal sum, which needs a "
                "much smaller η on many samples.",
            ),
        )
    )

    def _reset(self):
        self._Y = np.asarray(self.problem.Y)
        self._sq = _check_rows(self)
        self.a = np.zeros(self._Y.shape[1])
        self._stalled = False

    def _update(self):
        b = self.values["b"]
        s = self._Y @ self.a
        act = np.flatnonzero(s <= b)
        w = (b - s[act]) / self._sq[act]
        step = self.values["eta"] * (w @ self._Y[act])
        if self.values["mean"] and act.size:
            step = step / act.size
        self._stalled = not np.any(step)
        self.a = self.a + step
        return tuple(act)

    def _halt(self):
        s = self._Y @ self.a
        if (s > 0).all():
            return Status.SEPARATOR
        if L.diverged(self.a, self):
            return self._diverged_because(
                f"Batch relaxation diverged at step {self.iteration}: η is too large for the summed step; "
                "lower η or turn 'mean' on."
            )
        if self._stalled and j_relaxation(s, self._sq, self.values["b"]) > 0:
            # The step Σ w_i y_i vanished with every w_i = (b − a·y_i)/‖y_i‖² > 0: a nonnegative, non-zero
            # combination of samples is 0 (Gordan), so no separating vector exists; the exact LP confirms it.
            self._refuted = refute_nonseparable(self._Y, self.problem)
            return Status.CONVERGED if self._refuted else Status.NONSEPARABLE
        if self._stalled or (self.iteration == 0 and (s >= self.values["b"]).all()):
            return Status.CONVERGED  # J_r = 0 but some a·y_i = 0: only possible with b = 0
        return None

    def _state(self):
        s = self._Y @ self.a
        b = self.values["b"]
        msg = f"{self.iteration} batch steps; {int((s <= b).sum())} samples with a·y ≤ {b:g}."
        jr = j_relaxation(s, self._sq, b)
        if self.status is Status.NONSEPARABLE:
            msg += (
                f" The corrections of the violated samples cancel (the step is 0 while J_r = {jr:.4g} > 0): a nonnegative "
                "combination of samples vanishes, so no separating vector exists (confirmed by the exact LP)."
            )
        elif self.status is Status.CONVERGED and jr > 0:
            msg += (
                f" The step vanished with J_r = {jr:.4g} > 0, but no proof is claimed: "
                f"{getattr(self, '_refuted', '')}."
            )
        elif self.status is Status.CONVERGED:
            msg += " J_r = 0 but some a·y_i = 0: with b = 0 the rule stalls on the boundary. Use b > 0."
        msg += _eta_warning(self.values["eta"])
        return L.state(self, self.a, {"j_relaxation": j_relaxation(s, self._sq, b)}, msg, s)
