"""Balanced Winnow (DHS §5.5.3): multiplicative updates of two nonnegative weight vectors a⁺ and a⁻."""

from __future__ import annotations

import numpy as np

from percviz.core.errors import DataError
from percviz.core.params import ParamSet, ParamSpec
from percviz.core.solvers import _linear as L
from percviz.core.solvers.base import Solver, register

#: a⁺ and a⁻ are rescaled together when they grow past this; sign((a⁺ − a⁻)·y) does not change.
_RESCALE_AT = 1e100


@register
class BalancedWinnow(L.ScanPasses, Solver):
    """On a mistake (sign((a⁺ − a⁻)·y) ≠ z) a⁺_i *= α^(z y_i) and a⁻_i *= α^(−z y_i); a⁺ = a⁻ = 1 at the start."""

    name = "winnow"
    display_name = "Balanced Winnow"
    no_fit_on_overlap = "Winnow's multiplicative updates assume a sparse separable target; on overlap they oscillate"
    family = L.PERCEPTRON_FAMILY
    description = "Multiplicative mistake-driven updates; few mistakes when most features are irrelevant."
    representation = "features"
    views = L.WEIGHT_VIEWS
    metric_keys = ("weight_norm", "train_errors", "margin", "mistakes")
    default_max_iter = 100000
    params = ParamSet(
        (
            ParamSpec("alpha", float, 2.0, 1, 1e6, low_open=True, help="Promotion factor α > 1."),
            L.MAX_PASSES,
        )
    )

    def _reset(self):
        # With the normalized rows z·φ(x) a mistake is (a⁺ − a⁻)·(zφ) ≤ 0 (sign 0 ≠ z), the notes' test.
        self._Y = np.asarray(self.problem.Y)
        big = float(np.abs(self._Y).max()) * np.log(self.values["alpha"])
        if big > 600:
            raise DataError(
                f"Winnow's factor α^y would overflow: |φ(x)| reaches {np.abs(self._Y).max():.3g} with "
                f"α = {self.values['alpha']:g}. Scale the points down, lower α or choose a smaller feature map."
            )
        d = self._Y.shape[1]
        self.a_pos, self.a_neg = np.ones(d), np.ones(d)
        self.scan = L.CyclicScan(len(self._Y), lambda s: s <= 0, self.values["max_passes"])
        self._stop = None

    @property
    def a(self) -> np.ndarray:
        return self.a_pos - self.a_neg

    def _update(self):
        i = self.scan.next
        alpha = self.values["alpha"]
        self.a_pos = self.a_pos * alpha ** self._Y[i]
        self.a_neg = self.a_neg * alpha ** (-self._Y[i])
        top = max(self.a_pos.max(), self.a_neg.max())
        if top > _RESCALE_AT:
            self.a_pos, self.a_neg = self.a_pos / top, self.a_neg / top
        self.scan.corrected(i)
        return (i,)

    def _halt(self):
        self._stop, status = self.scan.halt(self._Y, self.a)
        return status

    def _state(self):
        a = self.a
        msg = f"{self.iteration} mistakes, pass {self.scan.passes_used}."
        if self._stop == "max_passes":
            msg += f" Stopped after max_passes = {self.values['max_passes']}."
        return L.state(self, a, {"mistakes": self.iteration}, msg, self.scan.scores)
