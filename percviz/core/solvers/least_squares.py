"""Minimum squared-error procedures (DHS §5.8): the pseudoinverse, Widrow–Hoff LMS and recursive least squares."""

from __future__ import annotations

import numpy as np

from percviz.core.params import ParamSet, ParamSpec
from percviz.core.solvers import _linear as L
from percviz.core.solvers.base import Solver, Status, register

_MARGIN_PARAMS = (L.MARGIN_VECTOR, L.B_PLUS, L.B_MINUS)


class _SquaredError(Solver):
    """Base: J_s(a) = ‖Ya − b‖² with the margin vector b chosen by the parameters."""

    family = L.LEAST_SQUARES_FAMILY
    representation = "features"
    views = L.WEIGHT_VIEWS
    metric_keys = ("j_squared", "error_norm", "weight_norm", "train_errors", "margin")

    def _setup(self):
        self._Y = np.asarray(self.problem.Y)
        self._b = L.margin_vector(self)
        self.a = np.zeros(self._Y.shape[1])

    def _final_status(self) -> Status:
        """An optimizer's end: a separator claim only when every a·y_i > 0."""
        return Status.SEPARATOR if L.separates(self._Y, self.a) else Status.CONVERGED

    def _squared_state(self, msg: str, extra: dict | None = None) -> dict:
        s = self._Y @ self.a
        e = s - self._b
        metrics = {"j_squared": float(e @ e), "error_norm": float(np.sqrt(e @ e))}
        metrics.update(extra or {})
        if self.status is Status.SEPARATOR:
            msg += " The vector separates the samples."
        elif self.status.done:
            msg += f" The vector misclassifies {int((s <= 0).sum())} of {len(self._b)} samples."
        return L.state(self, self.a, metrics, msg, s)


@register
class MSE(_SquaredError):
    """a = Y⁺ b in one step (least squares; the shortest solution when YᵗY is singular)."""

    name = "mse"
    display_name = "MSE by the pseudoinverse"
    description = "Least-squares solution of Ya = b: b = 1, or Fisher's n/n₁, n/n₂ (Fisher's direction)."
    default_max_iter = 1
    params = ParamSet(_MARGIN_PARAMS)

    def _reset(self):
        self._setup()

    def _update(self):
        self.a = np.linalg.lstsq(self._Y, self._b, rcond=None)[0]
        return ()

    def _halt(self):
        return self._final_status() if self.iteration >= 1 else None

    def _state(self):
        if self.iteration == 0:
            return self._squared_state("a = 0; one step computes a = Y⁺b.")
        return self._squared_state(f"a = Y⁺b with b = {self.values['margin_vector']}.")


@register
class LMS(_SquaredError):
    """Widrow–Hoff: a ← a + η(k)(b_k − a·y^k) y^k for every sample in turn (k counts single-sample steps)."""

    name = "lms"
    display_name = "LMS (Widrow–Hoff)"
    description = "Single-sample descent on J_s with a decreasing rate; tends to the MSE solution."
    metric_keys = _SquaredError.metric_keys + ("step_size",)
    default_max_iter = 100000
    params = ParamSet(
        (
            ParamSpec("eta", float, 0.01, 0, None, low_open=True, help="η(1), the first learning rate."),
            ParamSpec(
                "schedule",
                "choice",
                "1/k",
                choices=("1/k", "1/(1+k/m)", "constant"),
                help="η(k) = η(1)/k; η(1)/(1 + k/m), decreasing about once per m steps; or constant.",
            ),
            ParamSpec("m", int, 0, 0, 10**9, help="m in η(1)/(1 + k/m); 0 means the number of samples n."),
            L.MAX_PASSES,
            *_MARGIN_PARAMS,
        )
    )

    def _reset(self):
        self._setup()
        m = self.values["m"] or len(self._b)
        self._eta = L.schedule(self.values["schedule"], self.values["eta"], m)
        self._step = None

    def _update(self):
        n = len(self._b)
        k = self.iteration + 1
        i = (k - 1) % n
        y = self._Y[i]
        self._step = self._eta(k)
        self.a = self.a + self._step * (self._b[i] - self.a @ y) * y
        return (i,)

    def _halt(self):
        if L.diverged(self.a, self):
            return self._diverged_because(
                f"LMS diverged at step {self.iteration}: η(1) = {self.values['eta']:g} is too large for these "
                "features; lower η or center and scale the points."
            )
        mp = self.values["max_passes"]
        if mp and self.iteration >= mp * len(self._b):
            return Status.MAX_ITER
        return None

    @property
    def passes(self) -> float:
        return self.iteration / len(self._b)

    def _state(self):
        msg = f"{self.iteration} single-sample steps ({self.passes:.4g} passes)."
        return self._squared_state(msg, {"step_size": self._step})


@register
class RLS(_SquaredError):
    """Recursive least squares: R ← R − R y yᵗ R/(1 + yᵗ R y), a ← a + R y (b_k − a·y) (Sherman–Morrison)."""

    name = "rls"
    display_name = "Recursive least squares"
    description = "Stochastic Newton: after k samples a is their least-squares solution (plus a tiny ridge)."
    default_max_iter = 1000000
    params = ParamSet(
        (
            ParamSpec("r0", float, 1e3, 0, None, low_open=True, help="R₁ = r0·I; the ridge term is 1/r0."),
            ParamSpec("passes", int, 1, 1, 10**6, help="Passes through the samples (one gives the LS fit)."),
            *_MARGIN_PARAMS,
        )
    )

    def _reset(self):
        self._setup()
        # R₁ = r0·I. Not np.eye: its diagonal write holds the GIL while it first touches every page of the d×d
        # array (rff:dim=5000: 200 MB, up to 8 s on a loaded machine, the window frozen); an indexed write lets go.
        d = self._Y.shape[1]
        self.R = np.zeros((d, d))
        self.R[np.arange(d), np.arange(d)] = self.values["r0"]
        self._lost = False

    def _update(self):
        i = self.iteration % len(self._b)
        y = self._Y[i]
        Ry = self.R @ y
        den = 1 + y @ Ry
        # R stays positive definite in exact arithmetic, so 1 + yᵗRy ≥ 1; below that, rounding has taken over.
        self._lost = self._lost or not den >= 1 - 1e-9
        step = np.outer(Ry, Ry)
        step /= den
        self.R -= step  # in place, the same arithmetic as R − RyyᵗR/den: no two more d×d arrays per step
        self.a = self.a + self.R @ y * (self._b[i] - self.a @ y)
        return (i,)

    def _halt(self):
        if self._lost:
            return self._diverged_because(
                f"RLS lost positive definiteness at step {self.iteration} (1 + yᵗRy < 1, impossible in exact "
                "arithmetic): the recursion is ill-conditioned for these features. Use MSE, a lower-degree map "
                "or a smaller r0."
            )
        passes = self.values["passes"]
        if self.iteration >= passes * len(self._b):
            # a minimizes passes·J_s(a) + ‖a‖²/r0, which is at most its value passes·‖b‖² at a = 0.
            e = self._Y @ self.a - self._b
            value = passes * float(e @ e) + float(self.a @ self.a) / self.values["r0"]
            if not value <= passes * float(self._b @ self._b) * (1 + 1e-6):
                return self._diverged_because(
                    f"RLS's result fits worse than a = 0 (criterion {value:.3g} > {passes * self._b @ self._b:.3g}): "
                    "rounding ruined the recursion on these ill-conditioned features. Use MSE, a lower-degree "
                    "map or a smaller r0."
                )
            return self._final_status()
        return None

    def _state(self):
        msg = f"{self.iteration} samples seen: a is their least-squares fit (ridge 1/r0)."
        return self._squared_state(msg)
