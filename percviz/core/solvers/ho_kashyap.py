"""The Ho–Kashyap procedures (DHS §5.9): descent on ‖Ya − b‖² over a and b > 0, with a proof of
non-separability when the error e = Ya − b becomes ≤ 0 without vanishing.

Numbering: the snapshot of iteration k − 1 holds the notes' a(k), b(k) (iteration 0 is a(1) = Y⁺b(1)),
so the notes' "step k" is iteration k − 1.
"""

from __future__ import annotations

import numpy as np

from percviz.core.certify import column_scales, refute_nonseparable
from percviz.core.params import ParamSet, ParamSpec
from percviz.core.solvers import _linear as L
from percviz.core.solvers.base import Solver, Status, register

TOL = ParamSpec(
    "tol", float, 1e-9, 0, None, low_open=True, help="Non-separability is declared when the test quantity < tol."
)
_KEYS = ("j_squared", "error_norm", "e_plus_norm", "weight_norm", "train_errors", "margin")


class _HoKashyapBase(Solver):
    family = L.HO_KASHYAP_FAMILY
    representation = "features"
    views = L.WEIGHT_VIEWS
    metric_keys = _KEYS
    default_max_iter = 20000

    def _error(self):
        s = self._Y @ self.a
        return s, s - self.b

    def _common_state(self, msg: str, extra: dict | None = None) -> dict:
        s, e = self._error()
        ep = np.maximum(e, 0.0)
        metrics = {"j_squared": float(e @ e), "error_norm": float(np.sqrt(e @ e)), "e_plus_norm": float(np.sqrt(ep @ ep))}
        metrics.update(extra or {})
        return L.state(self, self.a, metrics, f"Step {self.iteration + 1} (the notes' k). " + msg, s)


def _confirmed(solver) -> Status:
    """NONSEPARABLE when the exact LP agrees that no separating vector exists; else CONVERGED, unclaimed."""
    why = refute_nonseparable(solver._Y, solver.problem)
    if not why:
        return Status.NONSEPARABLE
    solver._stop_note = (
        f"The test quantity fell below tol = {solver.values['tol']:g}, but no proof is claimed: {why}. "
        "Lower tol, or scale the points to about unit size."
    )
    return Status.CONVERGED


@register
class HoKashyap(_HoKashyapBase):
    """b(k+1) = b(k) + 2η e⁺(k), a(k+1) = Y⁺ b(k+1), with a(1) = Y⁺ b(1), b(1) > 0 and 0 < η < 1."""

    name = "ho-kashyap"
    display_name = "Ho–Kashyap"
    starts_away_from_zero = True  # a(1) = Y⁺b(1)
    start_is_an_update = True  # the notes' step 1
    description = "Learns the margin vector b with a; finds a separator or proves there is none (e ≤ 0, e ≠ 0)."
    params = ParamSet(
        (
            ParamSpec("eta", float, 0.5, 0, 1, low_open=True, high_open=True, help="Step η, 0 < η < 1."),
            ParamSpec("b1", float, 1.0, 0, None, low_open=True, help="Initial margins: b(1) = b1·1."),
            TOL,
        )
    )

    def _reset(self):
        self._Y = np.asarray(self.problem.Y)
        # Y⁺ through the column-scaled Y·D: (YD)⁺ = D⁻¹Y⁺ for full column rank, and Y·a (hence b and e) is the
        # projection of b on range(Y) either way; the scaling keeps pinv from dropping tiny columns as rank loss.
        D = column_scales(self._Y)
        self._pinv = D[:, None] * np.linalg.pinv(self._Y * D)
        self.b = self.values["b1"] * np.ones(len(self._Y))
        self.a = self._pinv @ self.b
        self._verdict = ""

    def _update(self):
        _, e = self._error()
        e_plus = 0.5 * (e + np.abs(e))
        grown = np.flatnonzero(e_plus > 0)
        self.b = self.b + 2 * self.values["eta"] * e_plus
        self.a = self._pinv @ self.b
        return tuple(grown)

    def _halt(self):
        # The notes' order: the separation test first, then e⁺ = 0 (within tol) proves non-separability.
        s, e = self._error()
        if (s > 0).all():
            return Status.SEPARATOR
        # e = Ya − b is free of the points' scale (a absorbs it) and proportional to b(1): compare with tol·b1.
        if 0.5 * (e + np.abs(e)).max() < self.values["tol"] * self.values["b1"]:
            return _confirmed(self)
        return None

    def _state(self):
        s, e = self._error()
        if self.status is Status.NONSEPARABLE:
            msg = (
                f"Proof of non-separability: e(k) = Ya − b ≤ 0 (largest component {e.max():.2g} < tol·b1 = "
                f"{self.values['tol'] * self.values['b1']:g}; confirmed by the exact LP) and e ≠ 0 (‖e‖² = {e @ e:.6g}). A separating â would give "
                "eᵗ Y â = 0 with Y â > 0, impossible for such e."
            )
        elif self.status is Status.SEPARATOR:
            msg = "Every a·y_i > 0: a separating vector."
        else:
            msg = f"{int((e > 0).sum())} margins b_i grow (e_i > 0)."
        return self._common_state(msg)


@register
class HoKashyapIdentity(_HoKashyapBase):
    """The R = I variant: b ← b + (e + |e|), a ← a + η(k) Yᵗ|e|, η(k) = ‖Yᵗ|e|‖² / ‖Y Yᵗ|e|‖² (optimal)."""

    name = "ho-kashyap-identity"
    display_name = "Ho–Kashyap, R = I (no pseudoinverse)"
    description = "Pseudoinverse-free Ho–Kashyap with the optimal step; Yᵗ|e| = 0 proves non-separability."
    metric_keys = _KEYS + ("gradient_norm", "step_size")
    params = ParamSet((TOL,))

    def _reset(self):
        self._Y = np.asarray(self.problem.Y)
        self.a = np.zeros(self._Y.shape[1])
        self.b = np.ones(len(self._Y))
        self._D = column_scales(self._Y)
        self._eta = None

    def _g(self):
        _, e = self._error()
        return e, self._Y.T @ np.abs(e)

    def _update(self):
        e, g = self._g()
        self._eta = (g @ g) / np.sum((self._Y @ g) ** 2)
        self.b = self.b + (e + np.abs(e))
        self.a = self.a + self._eta * g
        return tuple(np.flatnonzero(e > 0))

    def _halt(self):
        if L.separates(self._Y, self.a):
            return Status.SEPARATOR
        _, g = self._g()
        # ‖D·Yᵗ|e|‖ with D scaling Y's columns to max |·| = 1: rescaling a feature (or all points) changes nothing,
        # and on the notes' data (columns of size ≈ 1) it is their ‖Yᵗ|e|‖.
        if np.linalg.norm(self._D * g) < self.values["tol"]:
            return _confirmed(self)
        return None

    def _state(self):
        e, g = self._g()
        gn = float(np.linalg.norm(g))
        if self.status is Status.NONSEPARABLE:
            msg = (
                f"Proof of non-separability: Yᵗ|e| = 0 (‖Yᵗ|e|‖ = {gn:.2g}, column-scaled below tol; confirmed by "
                "the exact LP) with |e| ≥ 0, |e| ≠ 0: a "
                "nonnegative combination of the samples vanishes, so no a has every a·y_i > 0."
            )
        elif self.status is Status.SEPARATOR:
            msg = "Every a·y_i > 0: a separating vector."
        else:
            msg = f"‖Yᵗ|e|‖ = {gn:.3g}."
        return self._common_state(msg, {"gradient_norm": gn, "step_size": self._eta})
