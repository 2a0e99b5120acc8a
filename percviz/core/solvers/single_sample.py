"""Single-sample perceptron rules of DHS §5.5: fixed increment, and variable increment with margin b.

One update is one correction (the notes' k); samples are cycled in stored order and a·y ≤ b counts
as a mistake. For non-separable data the displayed vector can be an average of the a(k) (DHS §5.5.3).
"""

from __future__ import annotations

import numpy as np

from percviz.core.params import ParamSet, ParamSpec
from percviz.core.solvers import _linear as L
from percviz.core.solvers.base import Solver, Status, register

AVERAGE = ParamSpec(
    "average",
    "choice",
    "none",
    choices=("none", "all", "late-half"),
    help="Show the rule's a(k) ('none'), the average of all a(k) so far, or of the later half of them "
    "(the notes' remedy for non-separable data).",
)


class _SingleSampleRule(L.ScanPasses, Solver):
    """Base: a(1) = a₀; when a(k)·y^k ≤ b, a(k+1) = a(k) + η(k) y^k (k counts corrections)."""

    family = L.PERCEPTRON_FAMILY
    representation = "features"
    views = L.WEIGHT_VIEWS
    metric_keys = ("j_perceptron", "j_perceptron_margin", "weight_norm", "train_errors", "margin", "mistakes")
    default_max_iter = 100000

    def _margin(self) -> float:
        return 0.0

    def _eta(self, k: int) -> float:
        return 1.0

    def __init__(self, problem, *, max_iter=None, warm_start=None, **values):
        """`warm_start`: a₀ other than 0 (Live's opt-in restart from the last weights; DHS's proofs allow any a₀)."""
        self._warm = L.initial_weights(warm_start)
        super().__init__(problem, max_iter=max_iter, **values)

    def _reset(self):
        self._Y = np.asarray(self.problem.Y)
        self.a = L.start_weights(self._warm, self._Y.shape[1])
        b = self._margin()
        self.scan = L.CyclicScan(len(self._Y), lambda s: s <= b, self.values["max_passes"])
        self._sums = [np.zeros_like(self.a), self.a.copy()]  # prefix sums of the path a(1), a(2), …
        self._stop: str | None = None

    def _update(self):
        i = self.scan.next
        k = self.iteration + 1
        self.a = self.a + self._eta(k) * self._Y[i]
        self.scan.corrected(i)
        self._sums.append(self._sums[-1] + self.a)
        return (i,)

    def _halt(self):
        self._stop, status = self.scan.halt(self._Y, self.a)
        return status

    def _shown(self) -> tuple[np.ndarray, str]:
        """The vector the snapshot shows: a(k), or an average of the path when asked for."""
        mode = self.values["average"]
        if mode == "none" or self.status is Status.SEPARATOR:
            return self.a, ""
        m = len(self._sums) - 1  # path length: a(1) … a(m)
        first = 0 if mode == "all" else m // 2
        avg = (self._sums[m] - self._sums[first]) / (m - first)
        errs = int((self._Y @ self.a <= 0).sum())
        return avg, f"Showing the average of a({first + 1}) … a({m}); the rule's own a(k) has {errs} errors."

    def _state(self):
        shown, note = self._shown()
        scores = self.scan.scores_of(self._Y, shown)
        b = self._margin()
        msg = f"{self.iteration} corrections, pass {self.scan.passes_used}."
        if self._stop == "fixpoint":
            msg = f"{self.iteration} corrections; pass {self.scan.passes_used} made none: every a·y_i > {b:g}."
        elif self._stop == "max_passes":
            msg += f" Stopped after max_passes = {self.values['max_passes']}."
        if note:
            msg += " " + note
        if self._warm is not None and self._warm.shape == self.a.shape:
            msg += " Started from the previous run's weights (Live warm start), not from a = 0."
        return L.state(
            self,
            shown,
            {
                "j_perceptron": L.j_perceptron(scores),
                "j_perceptron_margin": L.j_perceptron_margin(scores, b) if b > 0 else None,
                "mistakes": self.iteration,
            },
            msg,
            scores,
        )


@register
class FixedIncrement(_SingleSampleRule):
    """DHS Algorithm 4: a(k+1) = a(k) + y^k for every y^k with a(k)·y^k ≤ 0, cycling in stored order."""

    name = "fixed-increment"
    display_name = "Fixed-increment single-sample perceptron"
    description = "Adds each misclassified sample (a·y ≤ 0) in turn; stops after a pass without corrections."
    params = ParamSet((L.MAX_PASSES, AVERAGE))


@register
class VariableIncrement(_SingleSampleRule):
    """DHS Algorithm 5: a(k+1) = a(k) + η(k) y^k whenever a(k)·y^k ≤ b, with k counting corrections."""

    name = "variable-increment"
    display_name = "Variable-increment perceptron with margin"
    description = "Corrects every sample with a·y ≤ b by η(k)·y; η(k) = η, η/k or η/√k."
    params = ParamSet(
        (
            ParamSpec("b", float, 0.0, 0, None, help="Margin b ≥ 0: a sample is corrected while a·y ≤ b."),
            ParamSpec("eta", float, 1.0, 0, None, low_open=True, help="η(1), the first learning rate."),
            ParamSpec(
                "schedule",
                "choice",
                "constant",
                choices=("constant", "1/k", "1/sqrt(k)"),
                help="η(k) = η(1), η(1)/k or η(1)/√k (k counts corrections).",
            ),
            L.MAX_PASSES,
            AVERAGE,
        )
    )

    def _margin(self):
        return self.values["b"]

    def _reset(self):
        self._eta_k = L.schedule(self.values["schedule"], self.values["eta"])
        super()._reset()

    def _eta(self, k):
        return self._eta_k(k)
