"""The classic Perceptron of §2 on the rows y_i φ(x_i), mistake-driven, smallest index first."""

from __future__ import annotations

import numpy as np

from percviz.core.decision import FeatureLinear
from percviz.core.solvers.base import Solver, Status, register


@register
class Perceptron(Solver):
    """Algorithm 'Perceptron' (§2): w_0 = 0; while some sign(w·x_i) ≠ y_i, w += y_i x_i (first such i)."""

    name = "perceptron"
    display_name = "Perceptron"
    family = "Perceptrons (Ramdas & Peña)"
    description = "Rosenblatt's perceptron on the augmented rows; halts at a separator (Novikoff bound)."
    representation = "features"
    views = frozenset({"canvas", "curves", "weight"})
    metric_keys = ("margin", "weight_norm", "train_errors", "mistakes", "bound")

    def _reset(self):
        Y = self.problem.Y
        self._Y = np.asarray(Y)
        self.w = np.zeros(Y.shape[1])
        self._scores = np.zeros(Y.shape[0])  # y_i w·x_i, kept up to date in O(n d̂) per update
        # Novikoff: at most max_i ‖x_i‖² / ρ² mistakes, ρ the max-margin of the rows (computed lazily).
        self._bound = None

    def _update(self):
        i = int(np.flatnonzero(self._scores <= 0)[0])  # sign(0) ≠ y_i: w = 0 misclassifies every row
        self.w = self.w + self._Y[i]
        self._scores = self._Y @ self.w
        return (i,)

    def _halt(self):
        return Status.SEPARATOR if (self._scores > 0).all() else None

    def _state(self):
        nw = float(np.linalg.norm(self.w))
        margin = float(self._scores.min() / nw) if nw > 0 else None
        return {
            "decision": FeatureLinear(self.problem.features, self.w),
            "weights": self.w,
            "metrics": {
                "margin": margin,
                "weight_norm": nw,
                "train_errors": int((self._scores <= 0).sum()),
                "mistakes": self.iteration,
            },
        }
