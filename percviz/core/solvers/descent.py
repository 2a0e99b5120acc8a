"""Gradient descent (DHS §5.4): on J_s with fixed, optimal and Newton steps, and the batch perceptron on J_p."""

from __future__ import annotations

import numpy as np

from percviz.core.errors import DataError
from percviz.core.params import ParamSet, ParamSpec
from percviz.core.solvers import _linear as L
from percviz.core.solvers.base import Solver, Status, register


@register
class BatchPerceptron(Solver):
    """DHS Algorithm 3: a(k+1) = a(k) + η(k) Σ_{y ∈ Y_k} y, Y_k the samples with a(k)·y ≤ b."""

    name = "batch-perceptron"
    display_name = "Batch perceptron"
    family = L.PERCEPTRON_FAMILY
    description = "Gradient descent on J_p: adds η(k) times the sum of all misclassified samples."
    representation = "features"
    views = L.WEIGHT_VIEWS
    metric_keys = ("j_perceptron", "j_perceptron_margin", "weight_norm", "train_errors", "margin", "step_size")
    default_max_iter = 100000
    params = ParamSet(
        (
            ParamSpec("eta", float, 1.0, 0, None, low_open=True, help="η(1), the first learning rate."),
            ParamSpec(
                "schedule",
                "choice",
                "constant",
                choices=("constant", "1/k", "1/sqrt(k)", "k"),
                help="η(k) = η(1), η(1)/k, η(1)/√k or η(1)·k (k counts updates).",
            ),
            ParamSpec("b", float, 0.0, 0, None, help="Margin b ≥ 0: a sample is in Y_k while a·y ≤ b."),
        )
    )

    def _reset(self):
        self._Y = np.asarray(self.problem.Y)
        self.a = np.zeros(self._Y.shape[1])
        self._eta = L.schedule(self.values["schedule"], self.values["eta"])
        self._step = None

    def _update(self):
        mis = np.flatnonzero(self._Y @ self.a <= self.values["b"])
        self._step = self._eta(self.iteration + 1)
        self.a = self.a + self._step * self._Y[mis].sum(axis=0)
        return tuple(mis)

    def _halt(self):
        s = self._Y @ self.a
        if (s > self.values["b"]).all():
            return Status.SEPARATOR  # b ≥ 0, so every a·y_i > 0
        return None

    def _state(self):
        s = self._Y @ self.a
        b = self.values["b"]
        wrong = int((s <= b).sum())
        msg = f"{self.iteration} updates; {wrong} samples with a·y ≤ {b:g}."
        return L.state(
            self,
            self.a,
            {
                "j_perceptron": L.j_perceptron(s),
                "j_perceptron_margin": L.j_perceptron_margin(s, b) if b > 0 else None,
                "step_size": self._step,
            },
            msg,
            s,
        )


#: From this many feature columns (and more than twice the points), H is kept factored as Y's thin SVD.
FACTORED_FROM = 256


@register
class GradientDescent(Solver):
    """Descent on J_s(a) = ‖Ya − b‖² (DHS §5.4.1): fixed η, optimal η(k) = ‖∇J‖²/∇Jᵗ H ∇J, or Newton."""

    name = "gradient-descent"
    display_name = "Gradient descent on J_s"
    family = L.LEAST_SQUARES_FAMILY
    description = "Minimizes the squared error ‖Ya − b‖²: fixed step 1/λ_max, optimal step, or Newton's step."
    representation = "features"
    views = L.WEIGHT_VIEWS
    metric_keys = ("j_squared", "gradient_norm", "step_size", "weight_norm", "train_errors", "margin")
    default_max_iter = 100000
    params = ParamSet(
        (
            ParamSpec(
                "step",
                "choice",
                "optimal",
                choices=("fixed", "optimal", "newton"),
                help="fixed η; optimal η(k) = ‖∇J‖² / ∇Jᵗ H ∇J (exact line search); Newton a − H⁻¹∇J.",
            ),
            ParamSpec("eta", float, 0.0, 0, None, help="Fixed step η; 0 means 1/λ_max(H), the notes' choice."),
            ParamSpec("tol", float, 1e-8, 0, None, low_open=True, help="Stop when ‖∇J‖ < tol."),
            L.MARGIN_VECTOR,
            L.B_PLUS,
            L.B_MINUS,
        )
    )

    def _reset(self):
        self._Y = np.asarray(self.problem.Y)
        self._b = L.margin_vector(self)
        n, d_hat = self._Y.shape
        if d_hat > max(2 * n, FACTORED_FROM):
            # H = 2YᵀY has rank ≤ n: keep Y's thin SVD Y = U S Vᵗ (n×d̂) instead of the d̂×d̂ matrix, whose
            # eigendecomposition took minutes and GBs at d̂ = 5000 (rff:dim=5000 on 12 points: 3.5 GB peak).
            self.H = None
            _, sv, self._Vt = np.linalg.svd(self._Y, full_matrices=False)
            lam = np.sort(2 * sv**2)
        else:
            self.H = 2 * self._Y.T @ self._Y  # the constant Hessian of J_s
            lam = np.linalg.eigvalsh(self.H)
        if not lam[-1] > 0:
            raise DataError("Every feature vector is zero, so J_s is constant; move the points or change φ.")
        self._lam = lam
        self._lam_max = lam[-1]
        self.a = np.zeros(self._Y.shape[1])
        self._grad = self._gradient()
        self._eta = None

    def _curvature(self, g):
        """gᵗ H g, with H = 2YᵗY (as 2‖Yg‖² when H is not built)."""
        if self.H is not None:
            return g @ self.H @ g
        yg = self._Y @ g
        return 2 * (yg @ yg)

    def _newton_step(self, g):
        """H⁺g, the least-squares solution of H s = g (lstsq's cut: eigenvalues below eps·d̂·λ_max are zero)."""
        if self.H is not None:
            return np.linalg.lstsq(self.H, g, rcond=None)[0]
        lam_desc = self._lam[::-1]  # the eigenvalues 2s² of H on the rows of Vᵗ, largest first
        keep = lam_desc > np.finfo(float).eps * self._Y.shape[1] * self._lam_max
        Vt = self._Vt[keep]
        return Vt.T @ ((Vt @ g) / lam_desc[keep])

    def _gradient(self):
        return 2 * self._Y.T @ (self._Y @ self.a - self._b)

    def _update(self):
        g = self._grad
        step = self.values["step"]
        if step == "newton":
            self._eta = 1.0
            self.a = self.a - self._newton_step(g)
        else:
            if step == "fixed":
                self._eta = self.values["eta"] or 1.0 / self._lam_max
            else:
                self._eta = (g @ g) / self._curvature(g)
            self.a = self.a - self._eta * g
        self._grad = self._gradient()
        return ()

    def _halt(self):
        if L.diverged(self.a, self):
            return self._diverged_because(
                f"Gradient descent diverged at step {self.iteration}: the fixed η is too large "
                f"(it must be below 2/λ_max = {2 / self._lam_max:.3g}); lower η or set it to 0."
            )
        if np.linalg.norm(self._grad) < self.values["tol"]:
            return Status.SEPARATOR if L.separates(self._Y, self.a) else Status.CONVERGED
        return None

    def _state(self):
        e = self._Y @ self.a - self._b
        msg = f"{self.iteration} {self.values['step']} steps; J_s = ‖Ya − b‖² = {e @ e:.6g}."
        if self.status is Status.CONVERGED:
            msg += " Converged to the MSE solution, which does not separate the samples."
        elif self.status is Status.SEPARATOR:
            msg += " Converged to the MSE solution; it separates the samples."
        return L.state(
            self,
            self.a,
            {"j_squared": float(e @ e), "gradient_norm": float(np.linalg.norm(self._grad)), "step_size": self._eta},
            msg,
        )
