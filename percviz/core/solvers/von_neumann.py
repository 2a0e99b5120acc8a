"""The primal–dual algorithms of Ramdas & Peña §5–§6: NVN, SNKPVN(q, δ) and ISNKPVN(γ, ε).

Each stops with a separator (Gα > 0), a certificate (p in the simplex with a small ‖p‖_G: the Gordan
witness of §5) or the iteration limit.
"""

from __future__ import annotations

import math

import numpy as np

from percviz.core import budget, gram
from percviz.core.dense_gram import build_dense, dense_bytes, float64_norm, g_norm_resolution
from percviz.core.gram_operator import DenseGram
from percviz.core.params import ParamSet, ParamSpec
from percviz.core.solvers.base import Solver, Status, register
from percviz.core.solvers.smoothed import SmoothedIterates, kernel_state

FAMILY = "Von Neumann & primal–dual (Ramdas & Peña)"

#: Below this, a computed ‖p‖_G cannot be told from 0: p·Gp carries rounding of about 1e-15 (a float64 G; a
#: float32 G resolves less: dense_gram.g_norm_resolution).
G_NORM_RESOLUTION = 1e-7


def l2_prox(q: np.ndarray):
    """p^q_μ(α) = argmin_p ⟨Gα, p⟩ + μ/2‖p − q‖² = the simplex projection of q − Gα/μ (§6)."""

    def prox(Galpha: np.ndarray, mu: float) -> np.ndarray:
        return gram.project_simplex(q - Galpha / mu)

    return prox


def initial_q(problem, choice: str) -> np.ndarray:
    """The prox centre q: uniform 1/n, or half the mass on each class ('balanced')."""
    n = problem.n
    if choice == "balanced":
        pos = problem.y > 0
        return np.where(pos, 0.5 / pos.sum(), 0.5 / (~pos).sum())
    return np.full(n, 1.0 / n)


def snkpvn_bound(n: int, k: int, q_norm: float, margin) -> float | None:
    """2√(2n)/ρ_K iterations when separable (Lemma 7); else Lemma 8 corrected: ‖p_k‖_G ≤ 2√(2n)/(k+1)·min{1, ‖q‖_G/|ρ_K|}."""
    if margin is None:
        return None
    c = 2.0 * math.sqrt(2.0 * n)
    if margin.separable:
        return c / margin.rho
    ratio = q_norm / abs(margin.rho) if margin.rho != 0 else math.inf
    return c / (k + 1) * min(1.0, ratio)


EPS_SPEC = ParamSpec(
    "eps", float, 1e-3, 1e-6, 1.0, high_open=True,
    help="Certificate accuracy ε: stop once ‖p‖_G ≤ ε (p in the simplex proves near-infeasibility).",
)


@register
class NVN(Solver):
    """Normalized Von Neumann (§5), kernelized, with the exact line search.

    p_0 = 1/n; j = argmin (Gp_k)_j; θ_k = argmin over [0, 1] of ‖(1−λ)p_k + λe_j‖_G; p_{k+1} = (1−θ_k)p_k + θ_k e_j.
    Exit tests, in this order: Gp_k > 0 (α = p_k separates, as Epelman–Freund use w_k), then ‖p_k‖_G ≤ ε
    (certificate). The bound metric is the von Neumann decay ‖p_k‖_G ≤ 1/√(k + ‖p_0‖_G⁻²), valid
    while no separator has been found (each step then has (Gp_k)_j ≤ 0).
    """

    name = "nvn"
    display_name = "Normalized Von Neumann (NVN)"
    starts_away_from_zero = True  # p_0 = 1/n
    no_fit_on_overlap = "von Neumann's iterate heads for a certificate p (the origin of the hull), not a classifier"
    family = FAMILY
    description = (
        "Frank–Wolfe on ½‖p‖²_G over the simplex with exact line search: drives ‖p‖_G to 0 when no "
        "separator exists (≈1/ε² steps), and stops early at a separator α = p."
    )
    representation = "kernel"
    views = frozenset({"canvas", "curves", "feature"})
    metric_keys = ("p_g_norm", "alpha_g_norm", "margin", "loss", "train_errors", "bound")
    params = ParamSet((EPS_SPEC,))
    default_max_iter = 300000

    def _reset(self):
        self._G = self.problem.gram
        n = self.problem.n
        self.p = np.full(n, 1.0 / n)
        self.Gp = self._G @ self.p
        self._sq = max(float(self.p @ self.Gp), 0.0)
        self._inv0 = 1.0 / self._sq if self._sq > 0 else math.inf

    def _update(self):
        j = int(np.argmin(self.Gp))
        a, b = self._sq, float(self.Gp[j])
        den = a - 2.0 * b + self._G.diag()[j]  # ‖p − e_j‖²_G
        th = min(max((a - b) / den, 0.0), 1.0) if den > 0 else 0.0
        self.p *= 1.0 - th
        self.p[j] += th
        self.Gp *= 1.0 - th
        self.Gp += th * self._G.column(j)
        self._sq = max(float(self.p @ self.Gp), 0.0)
        return (j,)

    def _halt(self):
        if gram.separates(self.Gp, self.p):
            return Status.SEPARATOR
        if math.sqrt(self._sq) <= self.values["eps"]:
            return Status.CERTIFICATE
        return None

    def _state(self):
        nrm = math.sqrt(self._sq)
        bound = 1.0 / math.sqrt(self.iteration + self._inv0) if self.status is not Status.SEPARATOR else None
        msg = (
            f"ε-certificate: ‖p‖_G = {nrm:.3g} ≤ ε = {self.values['eps']:g}, so no separator has a margin above ε "
            "(one with a smaller margin may still exist)"
            if self.status is Status.CERTIFICATE
            else ""
        )
        return kernel_state(self, self.p, self.Gp, {"p_g_norm": nrm, "bound": bound}, p=self.p, message=msg)


@register
class SNKPVN(Solver):
    """SNKPVN(q, δ) (§6): α_0 = q, μ_0 = 2n, ℓ2 prox p^q_μ; exits at Gα_k > 0 (separator) or ‖p_k‖_G < δ."""

    name = "snkpvn"
    display_name = "Smoothed NKP–Von Neumann (SNKPVN)"
    starts_away_from_zero = True
    family = FAMILY
    description = (
        "Smoothed perceptron with the ℓ2 prox centred at q: a separator within 2√(2n)/ρ_K steps, or p with "
        "‖p‖_G < δ (Lemma 8: ‖p_k‖_G ≤ 2√(2n)/(k+1)·min{1, ‖q‖_G/|ρ_K|})."
    )
    representation = "kernel"
    views = frozenset({"canvas", "curves", "feature"})
    metric_keys = ("alpha_g_norm", "p_g_norm", "margin", "loss", "mu", "train_errors", "bound", "delta")
    params = ParamSet(
        (
            ParamSpec("delta", float, 1e-3, 1e-6, 1.0, help="Accuracy δ: return p once ‖p‖_G < δ."),
            ParamSpec(
                "q", "choice", "uniform", choices=("uniform", "balanced"),
                help="Prox centre q: uniform 1/n, or half of the mass on each class.",
            ),
            gram.BOUND_PARAM,
        )
    )
    default_max_iter = 50000

    def _reset(self):
        G = self.problem.gram
        self.q = initial_q(self.problem, self.values["q"])
        Gq = G @ self.q
        self.q_norm = math.sqrt(max(float(self.q @ Gq), 0.0))
        self.it = SmoothedIterates(G, self.q, 2.0 * self.problem.n, l2_prox(self.q), Galpha0=Gq)
        self._margin = None
        self._bound_done = False

    def _update(self):
        return (self.it.step(),)

    def _halt(self):
        if self.it.separated:
            return Status.SEPARATOR
        if self.it.p_norm < self.values["delta"]:
            return Status.CERTIFICATE
        return None

    def _state(self):
        if not self._bound_done:
            self._margin = gram.margin_if(self.problem, self.values["bound"])
            self._bound_done = self._margin is not None  # asked again (cheaply) until ρ_K is known
        it = self.it
        bound = snkpvn_bound(self.problem.n, it.k, self.q_norm, self._margin)
        extra = {"p_g_norm": it.p_norm, "mu": it.mu, "bound": bound, "delta": self.values["delta"]}
        msg = (
            f"δ-certificate: ‖p‖_G = {it.p_norm:.3g} < δ, so no separator has a margin above δ"
            if self.status is Status.CERTIFICATE
            else ""
        )
        return kernel_state(self, it.alpha, it.Ga, extra, p=it.p, message=msg)


@register
class ISNKPVN(Solver):
    """ISNKPVN(γ, ε) (§6): q_0 = 1/n; δ_t = ‖q_t‖_G/γ; q_{t+1} = SNKPVN(q_t, δ_t); halt once δ_t < ε.

    One update is one step of the current SNKPVN call; starting a call is not an update. A call whose δ_t
    is at or below the resolution of the G-norm (G_NORM_RESOLUTION; in exact arithmetic, ‖q_t‖_G = 0)
    returns q_t at once, since SNKPVN(q, 0) could never exit. On a float32 G that resolution is that of
    float32 (g_norm_resolution, ~5e-3 at n = 5000): there q_t is returned only when ‖q_t‖_G in float64 on the
    points is ≤ ε (a certificate); when it differs from the float32 value by more than δ_t (float32 cannot
    resolve the call), the call restarts from q_t on G built in float64, so the run ends where float64 would
    (beyond the memory budget q_t is returned and its claim refused in float64, as every certificate on a
    float32 G); otherwise the call goes on. A call's certificate p found on a float32 G is checked the same way:
    above ε in float64, the call restarts in float64. The `bound` metric is the per-call one of SNKPVN, with k counted within the call.
    """

    name = "isnkpvn"
    display_name = "Iterated SNKPVN (ISNKPVN)"
    starts_away_from_zero = True
    family = FAMILY
    description = (
        "Restarts SNKPVN with a shrinking accuracy δ_t = ‖q_t‖_G/γ: a separator when one exists, else an "
        "ε-certificate, in time ∝ min{√n/|ρ_K|, √n/ε}·log."
    )
    representation = "kernel"
    views = frozenset({"canvas", "curves", "feature"})
    metric_keys = (
        "alpha_g_norm", "p_g_norm", "margin", "loss", "mu", "train_errors", "bound", "outer", "delta",
    )
    params = ParamSet(
        (
            ParamSpec("gamma", float, 2.0, 1.0, 10.0, low_open=True,
                      help="Shrink factor γ > 1 of the accuracy between calls: δ_t = ‖q_t‖_G/γ."),
            EPS_SPEC,
            gram.BOUND_PARAM,
        )
    )
    default_max_iter = 100000

    def _reset(self):
        self._G = self.problem.gram
        n = self.problem.n
        self.t = -1
        self._margin = None
        self._bound_done = False
        self.result: np.ndarray | None = None
        self._resolution = g_norm_resolution(self._G, G_NORM_RESOLUTION)
        self._resolved: tuple[int, bool] = (-1, False)  # (t, whether q_t is the answer) once checked in float64
        q = np.full(n, 1.0 / n)
        self._begin(q, self._G @ q)

    def _begin(self, q: np.ndarray, Gq: np.ndarray) -> None:
        """Start the call SNKPVN(q_t, δ_t)."""
        self.t += 1
        self.q = q.copy()
        self.q_norm = math.sqrt(max(float(q @ Gq), 0.0))
        self.delta = self.q_norm / self.values["gamma"]
        self.it = SmoothedIterates(self._G, q, 2.0 * q.size, l2_prox(self.q), Galpha0=Gq)

    def _update(self):
        return (self.it.step(),)

    def _q_is_answer(self) -> bool:
        """δ_t is at the resolution of G: is q_t the answer? On a float64 G, yes. On a float32 G, q_t is checked in
        float64 on the points (one G·q_t, O(n·|support|) kernel values, once per call): the answer when ‖q_t‖_G ≤ ε
        there; when float32 is off by more than δ_t (it cannot resolve this call), the run goes on with a float64 G
        from q_t, if the memory budget holds both; failing that q_t is returned (and its claim refused)."""
        if self._G.exact:
            return True
        if self._resolved[0] != self.t:
            exact = float64_norm(self.problem, self.q)
            unresolved = abs(exact - self.q_norm) > self.delta
            if exact > self.values["eps"] and unresolved and self._refine():
                return False
            self._resolved = (self.t, exact <= self.values["eps"] or unresolved)
        return self._resolved[1]

    def _refine(self) -> bool:
        """Restart the current call from q_t on G in float64 (built once), if the budget holds it beside the float32 G."""
        n = self.problem.n
        if dense_bytes(n, np.float64) + dense_bytes(n, np.float32) > budget.budget_bytes():
            return False
        self._G = DenseGram(build_dense(self.problem, np.float64), self.problem.kernel.spec)
        self._resolution = G_NORM_RESOLUTION
        self.t -= 1
        self._begin(self.q, self._G @ self.q)
        return True

    def _halt(self):
        while True:
            it = self.it
            if it.separated:
                return Status.SEPARATOR
            if self.delta <= self._resolution:  # ‖q_t‖_G may be 0 to working precision
                if self._q_is_answer():
                    self.result = self.q
                    return Status.CERTIFICATE
                if self.it is not it:  # the call restarted on a float64 G
                    continue
            if it.p_norm >= self.delta:
                return None
            if self.delta < self.values["eps"]:  # the call returned q_{t+1} = p_k, ‖q_{t+1}‖_G < δ_t < ε
                if not self._G.exact and float64_norm(self.problem, it.p) > self.values["eps"] and self._refine():
                    continue  # float32 said < δ_t, float64 says > ε: the call again from q_t, in float64
                self.result = it.p.copy()
                return Status.CERTIFICATE
            self._begin(it.p, it.Gp)

    def _state(self):
        if not self._bound_done:
            self._margin = gram.margin_if(self.problem, self.values["bound"])
            self._bound_done = self._margin is not None  # asked again (cheaply) until ρ_K is known
        it = self.it
        p = it.p if self.result is None else self.result
        pn = it.p_norm if self.result is None else math.sqrt(max(float(p @ (self._G @ p)), 0.0))
        extra = {
            "p_g_norm": pn,
            "mu": it.mu,
            "bound": snkpvn_bound(self.problem.n, it.k, self.q_norm, self._margin),
            "outer": self.t,
            "delta": self.delta,
        }
        msg = f"call t = {self.t}, δ_t = {self.delta:.3g}"
        if self.status is Status.CERTIFICATE:
            msg = (
                f"ε-certificate: ‖p‖_G = {pn:.3g} < ε = {self.values['eps']:g} after {self.t + 1} "
                f"call{'s' if self.t else ''}, so no "
                "separator has a margin above ε (one with a smaller margin may still exist)"
            )
        return kernel_state(self, it.alpha, it.Ga, extra, p=p, message=msg)
