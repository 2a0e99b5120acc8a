"""The perceptrons of Ramdas & Peña §2–§3: the classic Perceptron and the Normalized Perceptron on the rows
y_i φ(x_i), and the classic dual kernel perceptron. Ties go to the smallest index."""

from __future__ import annotations

import math

import numpy as np

from percviz.core import gram
from percviz.core.data import format_point
from percviz.core.decision import FeatureLinear, KernelExpansion
from percviz.core.errors import DataError
from percviz.core.params import ParamSet
from percviz.core.solvers._linear import initial_weights, start_weights
from percviz.core.solvers.base import Solver, Status, register

FAMILY = "Perceptrons (Ramdas & Peña)"


def _rows_margin(solver: Solver, key: str, rows: np.ndarray):
    """The optimal (unnormalized) margin of the given rows, memoized on the problem; None when turned off."""
    return gram.margin_if(
        solver.problem, solver.values["bound"], key, lambda: gram.margin_of_rows(rows), on_gram=False
    )


@register
class Perceptron(Solver):
    """Algorithm 'Perceptron' (§2): w_0 = 0; while some sign(w·x_i) ≠ y_i, w += y_i x_i (first such i)."""

    name = "perceptron"
    display_name = "Perceptron"
    family = FAMILY
    description = "Rosenblatt's perceptron on the augmented rows; halts at a separator (Novikoff bound)."
    representation = "features"
    views = frozenset({"canvas", "curves", "weight", "feature"})
    metric_keys = ("margin", "weight_norm", "train_errors", "mistakes", "bound")
    params = ParamSet((gram.BOUND_PARAM,))
    default_max_iter = 10000

    def __init__(self, problem, *, max_iter=None, warm_start=None, **values):
        """`warm_start`: w_0 other than 0 (Live's opt-in restart from the last weights; Novikoff's bound then
        does not apply and is not shown)."""
        self._warm = initial_weights(warm_start)
        super().__init__(problem, max_iter=max_iter, **values)

    def _reset(self):
        self._Y = np.asarray(self.problem.Y)
        self.w = start_weights(self._warm, self._Y.shape[1])
        self._scores = self._Y @ self.w  # y_i w·φ(x_i), updated in O(n d̂) per mistake
        self._bound: float | None = None
        self._bound_done = self._warm is not None and self._warm.shape == self.w.shape  # w_0 ≠ 0: no bound

    def _update(self):
        i = int(np.flatnonzero(self._scores <= 0)[0])  # sign(0) ≠ y_i: w = 0 misclassifies every row
        self.w = self.w + self._Y[i]
        self._scores = self._Y @ self.w
        return (i,)

    def _halt(self):
        return Status.SEPARATOR if (self._scores > 0).all() else None

    def _novikoff(self):
        """Block–Novikoff: at most max_i ‖y_i φ(x_i)‖² / ρ² mistakes, ρ the max-margin of the rows."""
        if not self._bound_done:
            m = _rows_margin(self, "rho_rows", self._Y)
            if m is not None and m.separable:
                self._bound = gram.over_rho_squared(float((self._Y**2).sum(axis=1).max()), m.rho)
            self._bound_done = True
        return self._bound

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
                "bound": self._novikoff(),
            },
        }


@register
class NormalizedPerceptron(Solver):
    """Algorithm 'Normalized Perceptron' (§2) on the normalized rows x̂_i = y_iφ(x_i)/‖y_iφ(x_i)‖.

    w_0 = 0; while X̂w_k > 0 fails: θ_k = 1/(k+1), w_{k+1} = (1−θ_k)w_k + θ_k x̂_j with j = argmin_i x̂_i·w_k
    (p(w_k) is that vertex of the simplex; smallest index on ties). Bound: 1/ρ_2² iterations.
    """

    name = "normalized-perceptron"
    display_name = "Normalized Perceptron"
    no_fit_on_overlap = "the normalized perceptron's last iterate on non-separable data is arbitrary"
    family = FAMILY
    description = (
        "Averages the most-misclassified normalized row into w with weight 1/(k+1); w stays a convex "
        "combination of the rows (alpha). A separator within 1/ρ₂² iterations."
    )
    representation = "features"
    views = frozenset({"canvas", "curves", "weight", "feature"})
    metric_keys = ("margin", "weight_norm", "train_errors", "bound")
    params = ParamSet((gram.BOUND_PARAM,))
    default_max_iter = 100000

    def _reset(self):
        Y = np.asarray(self.problem.Y)
        norms = np.linalg.norm(Y, axis=1)
        bad = np.flatnonzero(~(norms > 0))
        if bad.size:
            i = int(bad[0])
            x = self.problem.X[i]
            raise DataError(
                f"Point {i} at {format_point(x)} has φ(x) = 0 with the {self.problem.features.spec} "
                "feature map, so it cannot be normalized. Move or delete that point."
            )
        self._X = Y / norms[:, None]
        n, d = self._X.shape
        self.w = np.zeros(d)
        self.alpha = np.zeros(n)  # w = Σ α_i x̂_i with α in the simplex after the first update
        self._scores = np.zeros(n)  # x̂_i·w
        self._bound: float | None = None
        self._bound_done = False

    def _update(self):
        j = int(np.argmin(self._scores))
        th = 1.0 / (self.iteration + 1)
        self.w = (1.0 - th) * self.w + th * self._X[j]
        self.alpha *= 1.0 - th
        self.alpha[j] += th
        self._scores = (1.0 - th) * self._scores + th * (self._X @ self._X[j])
        return (j,)

    def _halt(self):
        return Status.SEPARATOR if gram.separates(self._scores, self.alpha) else None

    def _state(self):
        if not self._bound_done:
            m = _rows_margin(self, "rho_rows_normalized", self._X)
            self._bound = gram.over_rho_squared(1.0, m.rho) if m is not None and m.separable else None
            self._bound_done = True
        nw = float(np.linalg.norm(self.w))
        return {
            "decision": FeatureLinear(self.problem.features, self.w),
            "weights": self.w,
            "alpha": self.alpha,
            "metrics": {
                "margin": float(self._scores.min() / nw) if nw > 0 else None,
                "weight_norm": nw,
                "train_errors": int((self._scores <= 0).sum()),
                "bound": self._bound,
            },
        }


@register
class KernelPerceptron(Solver):
    """The classic dual kernel perceptron: f = Σ α_i y_i K(x_i, ·), α_0 = 0; cycling through i = 0, 1, …,
    a mistake y_i f(x_i) ≤ 0 makes α_i += 1. Halts after a full pass without mistakes (every y_i f(x_i) > 0).

    One update is one mistake. y_i f(x_i) = √K_ii (G β)_i with β = α ⊙ √K, so G's row i updates Gβ in O(n);
    the alpha_g_norm metric is ‖f‖_K = ‖β‖_G and margin is the normalized margin min_i (Gβ)_i/‖β‖_G.
    Bound (Novikoff): max_i K(x_i, x_i)/γ² mistakes, γ = sup_{‖f‖_K = 1} min_i y_i f(x_i).
    """

    name = "kernel-perceptron"
    display_name = "Kernel Perceptron (dual)"
    family = FAMILY
    description = "Mistake-driven perceptron on the kernel, cycling through the points in order; α_i counts mistakes on point i."
    representation = "kernel"
    views = frozenset({"canvas", "curves", "feature"})
    metric_keys = ("alpha_g_norm", "margin", "train_errors", "mistakes", "bound")
    params = ParamSet((gram.BOUND_PARAM,))
    default_max_iter = 100000

    def _reset(self):
        self._G = self.problem.gram
        self._sk = np.sqrt(self.problem.self_kernel)
        n = self.problem.n
        self.alpha = np.zeros(n)
        self._Gb = np.zeros(n)  # G β, β = α ⊙ √K: sign of y_i f(x_i)
        self._next = 0  # where the cyclic scan resumes
        self._bound: float | None = None
        self._bound_done = False

    def _update(self):
        wrong = np.flatnonzero(self._Gb <= gram.rounding_level(self.problem.n, self.alpha * self._sk))
        later = wrong[wrong >= self._next]
        i = int(later[0] if later.size else wrong[0])
        self.alpha[i] += 1.0
        self._Gb += self._sk[i] * self._G.column(i)
        self._next = (i + 1) % self.problem.n
        return (i,)

    def _halt(self):
        return Status.SEPARATOR if gram.separates(self._Gb, self.alpha * self._sk) else None

    def _novikoff(self):
        if not self._bound_done:
            sk = self._sk
            m = gram.margin_if(
                self.problem, self.values["bound"], "rho_raw_kernel",
                lambda: gram.margin_of_rows(gram.cached_factor(self.problem) * sk[:, None]),
            )
            if m is not None and m.separable:
                self._bound = gram.over_rho_squared(float(self.problem.self_kernel.max()), m.rho)
            self._bound_done = True
        return self._bound

    def _state(self):
        beta = self.alpha * self._sk
        nrm = math.sqrt(max(float(beta @ self._Gb), 0.0))  # ‖f‖_K
        coef = self.alpha * self.problem.y
        return {
            "decision": KernelExpansion(self.problem.kernel, self.problem.X, coef, 0.0, nrm),
            "alpha": self.alpha,
            "metrics": {
                "alpha_g_norm": nrm,
                "margin": float(self._Gb.min() / nrm) if nrm > 0 else None,
                "train_errors": int((self._Gb <= 0).sum()),
                "mistakes": self.iteration,
                "bound": self._novikoff(),
            },
        }
