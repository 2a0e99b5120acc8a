"""NKP and SNKP of Ramdas & Peña §4: the normalized kernel perceptron and its smoothed, accelerated variant."""

from __future__ import annotations

import math
from typing import Callable

import numpy as np

from percviz.core import gram
from percviz.core.params import ParamSet
from percviz.core.solvers._factored import FactoredNKP
from percviz.core.solvers.base import Solver, Status, register

FAMILY = "Perceptrons (Ramdas & Peña)"


def kernel_state(solver: Solver, alpha, Galpha, metrics: dict, p=None, message: str = "") -> dict:
    """The snapshot fields of a kernel iterate α (decision f = Σ α_i y_i φ̃(x_i)), with the O(n) metrics."""
    m = gram.iterate_metrics(alpha, Galpha)
    m.update(metrics)
    if not message and solver.status is Status.SEPARATOR:
        message = f"Gα > 0: every point is on its side (normalized margin {m['margin']:.3g})"
    return {
        "decision": solver.problem.expansion(alpha, m["alpha_g_norm"]),
        "metrics": m,
        "alpha": alpha,
        "p": p,
        "message": message,
    }


def entropic_prox(Galpha: np.ndarray, mu: float) -> np.ndarray:
    """p_μ(α) = softmax(−Gα/μ), the minimizer of ⟨Gα, p⟩ + μ d(p) over the simplex (eq. "pmuf"), stably."""
    z = Galpha * (-1.0 / mu)
    z -= z.max()
    z[z < -700.0] = -np.inf  # e^z would be subnormal (slow in G·u) or 0: make it exactly 0
    np.exp(z, out=z)
    z /= z.sum()
    return z


class SmoothedIterates:
    """The iterates shared by SNKP and SNKPVN (α_k, μ_k, p_k), with one G·v per step (G: a GramOperator).

    Gα, Gp and Gu (u_k = p_{μ_k}(α_k)) are carried along: α_{k+1} and p_{k+1} are combinations of
    α_k, p_k, u_k and u_{k+1}, so only G u_{k+1} is new in each step.
    """

    def __init__(self, G, alpha0: np.ndarray, mu0: float,
                 prox: Callable[[np.ndarray, float], np.ndarray], Galpha0: np.ndarray | None = None):
        self.G, self.prox = G, prox
        self.k = 0
        self.mu = float(mu0)
        self.alpha = np.array(alpha0, dtype=float)
        self.Ga = G @ self.alpha if Galpha0 is None else np.array(Galpha0, dtype=float)
        self.u = prox(self.Ga, self.mu)  # p_0 := p_{μ_0}(α_0)
        self.Gu = G @ self.u
        self.p, self.Gp = self.u.copy(), self.Gu.copy()

    @property
    def separated(self) -> bool:
        """The exit test Gα_k > 0 (above rounding, see gram.separates); α_k stays in the simplex."""
        return gram.separates(self.Ga, None, 1.0)

    @property
    def p_norm(self) -> float:
        return float(math.sqrt(max(float(self.p @ self.Gp), 0.0)))

    def step(self) -> int:
        """One update of the algorithm; returns the index where u_k = p_{μ_k}(α_k) puts the most weight."""
        th = 2.0 / (self.k + 3)
        trigger = int(np.argmax(self.u))
        a, b, c = 1.0 - th, (1.0 - th) * th, th * th
        # α_{k+1} = (1−θ)(α_k + θ p_k) + θ² p_{μ_k}(α_k), and the same combination of the G-products
        self.alpha = _combine(a, self.alpha, b, self.p, c, self.u)
        self.Ga = _combine(a, self.Ga, b, self.Gp, c, self.Gu)
        self.mu *= 1.0 - th  # μ_{k+1} = (1−θ) μ_k
        self.u = self.prox(self.Ga, self.mu)
        self.Gu = self.G @ self.u  # the one product of the step: O(n²) dense, O(nD) factored
        # p_{k+1} = (1−θ) p_k + θ p_{μ_{k+1}}(α_{k+1})
        self.p = _combine(a, self.p, th, self.u)
        self.Gp = _combine(a, self.Gp, th, self.Gu)
        self.k += 1
        return trigger


def _combine(a: float, x: np.ndarray, b: float, y: np.ndarray, c: float = 0.0, z: np.ndarray | None = None) -> np.ndarray:
    """a x + b y (+ c z) in a new array, with one temporary."""
    out = x * a
    tmp = y * b
    out += tmp
    if z is not None:
        np.multiply(z, c, out=tmp)
        out += tmp
    return out


@register
class NKP(Solver):
    """Normalized Kernel Perceptron (§4): α_0 = 0, α_{k+1} = (1−θ_k)α_k + θ_k e_j, j = argmin (Gα_k)_j, θ_k = 1/(k+1)."""

    name = "nkp"
    display_name = "Normalized Kernel Perceptron (NKP)"
    no_fit_on_overlap = "the normalized perceptron's last iterate on non-separable data is wherever the cycling left it"
    family = FAMILY
    description = (
        "Subgradient method on L(α) = max_i −(Gα)_i + ½‖α‖²_G; moves α towards the worst-classified "
        "point. Finds a separator within 1/ρ_K² iterations."
    )
    representation = "kernel"
    views = frozenset({"canvas", "curves", "feature"})
    metric_keys = ("alpha_g_norm", "margin", "loss", "train_errors", "bound")
    params = ParamSet((gram.BOUND_PARAM,))
    default_max_iter = 100000

    def _reset(self):
        self._G = self.problem.gram
        self._fast = FactoredNKP(self._G) if self._G.factor is not None else None  # O(D + log n) updates
        n = self.problem.n
        self.alpha = np.zeros(n)
        self.Ga = np.zeros(n)
        self._margin = None
        self._bound_done = False

    def _update(self):
        if self._fast is not None:
            return (self._fast.step(),)
        j = int(np.argmin(self.Ga))  # p(α_k): the vertex of the smallest (Gα_k)_j, smallest index on ties
        th = 1.0 / (self.iteration + 1)
        self.alpha *= 1.0 - th
        self.alpha[j] += th
        self.Ga *= 1.0 - th
        self.Ga += th * self._G.column(j)  # G e_j, in O(n) dense, O(nD) factored
        return (j,)

    def _halt(self):
        if self._fast is not None:
            return Status.SEPARATOR if self._fast.separated() else None
        return Status.SEPARATOR if gram.separates(self.Ga, self.alpha) else None

    def _bound(self):
        if not self._bound_done:
            self._margin = gram.margin_if(self.problem, self.values["bound"])
            self._bound_done = self._margin is not None  # asked again (cheaply) until ρ_K is known
        m = self._margin
        return gram.over_rho_squared(1.0, m.rho) if m is not None and m.separable else None

    def _state(self):
        if self._fast is not None:
            self.alpha, self.Ga = self._fast.alpha, self._fast.Ga
        return kernel_state(self, self.alpha, self.Ga, {"bound": self._bound()})

    def _metrics(self):  # the recorded history: no decision function per update
        if self._fast is not None:
            self.alpha, self.Ga = self._fast.alpha, self._fast.Ga
        return {**gram.iterate_metrics(self.alpha, self.Ga), "bound": self._bound()}


@register
class SNKP(Solver):
    """Smoothed Normalized Kernel Perceptron (§4): α_0 = 1/n, μ_0 = 2, θ_k = 2/(k+3), p_μ = softmax(−Gα/μ)."""

    name = "snkp"
    display_name = "Smoothed Normalized Kernel Perceptron (SNKP)"
    starts_away_from_zero = True  # α_0 = 1/n
    family = FAMILY
    description = (
        "Nesterov-smoothed NKP with entropy prox: a separator within 2√(2 log n)/ρ_K iterations. "
        "The trigger is the point u_k = p_μk(α_k) weighs most."
    )
    representation = "kernel"
    views = frozenset({"canvas", "curves", "feature"})
    metric_keys = ("alpha_g_norm", "p_g_norm", "margin", "loss", "mu", "train_errors", "bound")
    params = ParamSet((gram.BOUND_PARAM,))
    default_max_iter = 20000

    def _reset(self):
        G = self.problem.gram
        n = self.problem.n
        self.it = SmoothedIterates(G, np.full(n, 1.0 / n), 2.0, entropic_prox)
        self._margin = None
        self._bound_done = False

    def _update(self):
        return (self.it.step(),)

    def _halt(self):
        return Status.SEPARATOR if self.it.separated else None

    def _bound(self):
        if not self._bound_done:
            self._margin = gram.margin_if(self.problem, self.values["bound"])
            self._bound_done = self._margin is not None  # asked again (cheaply) until ρ_K is known
        m = self._margin
        if m is None or not m.separable:
            return None
        b = 2.0 * math.sqrt(2.0 * math.log(self.problem.n)) / m.rho  # Theorem 1
        return b if math.isfinite(b) else None

    def _extra(self):
        return {"p_g_norm": self.it.p_norm, "mu": self.it.mu, "bound": self._bound()}

    def _state(self):
        return kernel_state(self, self.it.alpha, self.it.Ga, self._extra(), p=self.it.p)

    def _metrics(self):  # the recorded history: no decision function per update
        return {**gram.iterate_metrics(self.it.alpha, self.it.Ga), **self._extra()}
