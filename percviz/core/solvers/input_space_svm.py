"""Akaho's input-space SVM: the kernel machine whose smallest Euclidean distance from x_i to f = 0 is largest.

Algorithm 1 as reconstructed from the seed's text (its box is missing): step 0 is the ordinary SVM (x̂_i = x_i,
ω̂ from the SVM dual, b̂ = 0); each later step is one outer step of percviz.core.akaho (temporaries, dual QP
(8)–(9), updates (10)–(11), projections (12), re-projection (18)). Following the text, a step can lower the
margin, so after `steps` steps (5 in the paper's simulations) the step with the largest estimated margin is
kept, and the last snapshot shows it.

Choices beyond the fragment: the estimated margin of a step is min_i y_i·(3) at that step's projection points,
so step 0's estimate also uses the feet on the SVM's curve; with the identity metric, when (12) from x̂^old
settles on a branch of f = 0 farther than the nearest foot found by input_distance (multi-seeded), x̂_i jumps
to the nearest foot. The measured input-space margin (exact, Euclidean) is reported beside the estimate.

Live's warm start (`warm_start` = the last finished run's α on the edited points): every step is computed as
above; only its QPs (the SVM's and each step's dual (8)–(9)) are solved on a working set grown from the last
support vectors and checked against the whole dual's KKT conditions (else the whole QP is solved), the same
optimum to Clarabel's tolerance. The feet are not warm-started: each step's are the nearest found by the
contour-backed search, as in the cold run. Reset and Step (no warm start) solve every QP whole.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import ClassVar

import numpy as np

from percviz.core import akaho
from percviz.core.errors import DataError
from percviz.core.input_distance import InputDistances, default_rect, distances_and_projection, input_distances
from percviz.core.kernel_derivatives import require_differentiable
from percviz.core.params import ParamSet, ParamSpec
from percviz.core.solvers.base import Status, register, weight_reach
from percviz.core.solvers.svm import SVM, solve_dual, solve_on_working_set

_OK = {"Solved", "AlmostSolved"}
#: Grid of the zero-contour sampling behind each step's measured margin (the feet themselves are exact).
MEASURE_RESOLUTION = 160
#: Larger sets are refused (the temporaries are n²·d², each step re-solves the QP and projects every point).
MAX_POINTS = 300
#: Floating-point trouble inside a step stops the run (the best step so far is kept) instead of drawing garbage.
_RAISE = {"divide": "raise", "invalid": "raise", "over": "raise", "under": "ignore"}


@dataclass(frozen=True)
class Step:
    """One outer step's result: ω (bases x̂ of the step), its projection points and measures."""

    index: int
    omega: akaho.Omega
    feet: np.ndarray
    alpha: np.ndarray
    estimate: float
    measured: InputDistances
    objective: float
    notes: tuple[str, ...]


@register
class InputSpaceSVM(SVM):
    """Akaho (2002): maximize the margin measured in the input plane, starting from the ordinary SVM."""

    name = "input-space-svm"
    display_name = "Input-space SVM (Akaho)"
    starts_away_from_zero = True  # step 0 is the SVM's solution
    warm_start_on_reset = False  # Reset replays every QP whole, as written
    family = SVM.family
    description = (
        "Starts from the SVM and repeats Akaho's linearized dual QP, so that the distance from each point to the "
        "drawn curve f = 0 (not the feature-space margin) is maximized; keeps the step with the best estimate."
    )
    metric_keys = (
        "input_margin",
        "input_margin_estimate",
        "margin",
        "objective",
        "train_errors",
        "support_vectors",
        "weight_norm",
        "weight_reach",
    )
    params = ParamSet(
        (
            *(spec for spec in SVM.params.specs if spec.name in ("margin", "C")),
            ParamSpec("steps", int, 5, 1, 50, help="Outer steps of Algorithm 1 (the paper uses 5), then the best."),
            ParamSpec(
                "metric",
                "choice",
                "identity",
                choices=("identity", "standardized"),
                help="G_i: 'identity' (Euclidean distance) or 'standardized' (each coordinate over its spread).",
            ),
        )
    )
    default_max_iter = 51
    #: Margin lines follow the closest point: Akaho's f is not scaled so that the margin sits at f = ±1.
    margin_level: ClassVar[float | None] = None
    #: Each update (an outer step: a QP and a contour-backed projection) takes ~0.1–1 s: Live runs it on the
    #: worker only, so that the UI thread never waits for one during a drag.
    live_on_worker: ClassVar[bool] = True
    #: Its `margin` metric is min y·f/‖w‖ in feature space, as the SVM's; the plane's distance is `input_margin`.
    margin_kind: ClassVar[str] = "svm"

    def _check_problem(self):
        require_differentiable(self.problem.kernel, self.display_name)
        if self.problem.n > MAX_POINTS:
            raise DataError(
                f"The input-space SVM builds n²·d² temporaries and re-solves its QP at every step, so it is limited "
                f"to {MAX_POINTS} points; this set has {self.problem.n}. Use the SVM, or fewer points."
            )
        super()._check_problem()

    # -- the algorithm ---------------------------------------------------------------------------------
    def _metric(self) -> np.ndarray:
        X = self.problem.X
        n, d = X.shape
        if self.values["metric"] == "identity":
            return np.broadcast_to(np.eye(d), (n, d, d)).copy()
        spread = np.std(X, axis=0)
        spread = np.where(spread > 0, spread, 1.0)
        # G = diag(1/σ²): the distance in coordinates divided by their spread; G⁻¹ = diag(σ²)
        return np.broadcast_to(np.diag(spread**2), (n, d, d)).copy()

    def _reset(self):
        X, y = self.problem.X, self.problem.y
        self._y = y
        self._Ginv = self._metric()
        self._rect = default_rect(X) if X.shape[1] == 2 else None  # the contour is sampled in the plane only
        warm = self._warm if self._warm is not None and len(self._warm) == len(y) and np.isfinite(self._warm).all() else None
        self._warm_support = None if warm is None else warm > akaho.SV_FRACTION * max(float(warm.max(initial=0.0)), 1e-300)
        ws = None if warm is None else solve_on_working_set(self._K, y, self._C, np.flatnonzero(self._warm_support))
        svm = ws.qp if ws is not None else solve_dual(self._K, y, self._C)
        if svm.status not in _OK:
            hint = "Use the soft margin (margin=soft)." if self._C is None else "Lower C or scale the points down."
            raise DataError(f"The starting SVM could not be solved (Clarabel status: {svm.status}). {hint}")
        omega = akaho.Omega(X.copy(), svm.alpha * y, np.zeros_like(X), svm.bias)
        top = float(svm.alpha.max(initial=0.0))
        self._union = svm.alpha > akaho.SV_FRACTION * top
        self._last_support = self._union.copy()
        self._omega_hat = omega  # ω̂: the linearization point, bases at x̂
        self._xhat = X.copy()
        try:
            with np.errstate(**_RAISE):
                first = self._measure(0, omega, svm.alpha, float("nan"), ("the ordinary SVM (x̂_i = x_i)",))
        except (FloatingPointError, np.linalg.LinAlgError):
            with np.errstate(all="ignore"):
                measured = input_distances(omega.decision(self.problem.kernel), X, y, rect=self._rect,
                                           resolution=MEASURE_RESOLUTION)
            first = Step(0, omega, X.copy(), svm.alpha, float("nan"), measured, float("nan"),
                         ("the ordinary SVM; its curve is too flat or too steep at the points to linearize",))
        self._steps = [first]
        self._k = 0
        self._finished = False
        self._best: Step | None = None

    def _measure(self, k, omega, alpha, objective, notes) -> Step:
        """Project the points on the step's curve (12) and measure its margins."""
        dec = omega.decision(self.problem.kernel)
        X = self.problem.X
        start = X if k == 0 else self._xhat
        measured, proj = distances_and_projection(dec, X, self._y, start, self._Ginv, rect=self._rect,
                                                  resolution=MEASURE_RESOLUTION, polish=False)
        feet = proj.feet.copy()
        notes = list(notes)
        if self.values["metric"] == "identity":
            dist12 = np.where(proj.converged, np.linalg.norm(feet - X, axis=1), np.inf)
            md = measured.distances
            bar = np.full(len(md), np.inf)
            fin = np.isfinite(dist12)
            bar[fin] = dist12[fin] - 1e-9 * (1 + dist12[fin])
            jump = np.isfinite(md) & (md < bar)
            feet[jump] = measured.feet[jump]
            if jump.any():
                notes.append(f"(12) settled on a farther branch or did not converge for {int(jump.sum())} points: "
                             "they jump to the nearest foot")
        elif not proj.converged.all():
            notes.append(f"(12) did not converge for {int((~proj.converged).sum())} points")
        if proj.slowed.any():
            notes.append(f"(12) was unstable and slowed down for {int(proj.slowed.sum())} points")
        unstable = akaho.unstable_feet(dec, X, feet)
        if unstable.any():
            notes.append(f"{int(unstable.sum())} feet are unstable equilibria of (12) by (17) (|c_j| ≥ |λ|)")
        est = akaho.linearized_distances(dec, X, feet, self._y, self._Ginv)
        estimate = float(np.min(est)) if np.isfinite(est).all() else float("nan")
        return Step(k, omega, feet, np.asarray(alpha, float), estimate, measured, objective, tuple(notes))

    def _outer_step(self) -> Step | None:
        X, y, kernel = self.problem.X, self._y, self.problem.kernel
        k = self._k + 1
        tmp = akaho.temporaries(kernel, X, self._xhat, self._omega_hat, y, self._Ginv)
        if not (np.isfinite(tmp.Q).all() and np.isfinite(tmp.g).all() and tmp.r > 0 and (tmp.qq > 0).all()):
            self._stop_note = f"step {k}: ∇f vanishes at some x̂_i or the temporaries overflow; stopped"
            return None
        warm = None if self._warm_support is None else np.flatnonzero(self._warm_support | self._last_support)
        dual = akaho.solve_step(kernel, self._xhat, y, self._omega_hat, tmp, self._C, X, start=warm)
        self._last_support = dual.support
        if dual.status not in _OK:
            self._stop_note = f"step {k}: the linearized dual QP failed (Clarabel status {dual.status}); stopped"
            return None
        step = self._measure(k, dual.omega, dual.alpha, dual.objective, ())
        prev = self._steps[-1].estimate
        if np.isfinite(prev) and step.estimate < prev:
            lowered = f"this step lowered the estimated margin from {prev:.4g} to {step.estimate:.4g} (kept: the best)"
            step = replace(step, notes=step.notes + (lowered,))
        # (18): ω re-projected onto the new projection points, bases restricted to the support vectors so far
        self._union |= dual.support
        self._omega_hat, misfit = akaho.reproject(kernel, dual.omega, step.feet, self._union, X)
        if misfit > 1e-3:
            step = replace(step, notes=step.notes + (f"the re-projection (18) fits f only to {misfit:.1e} (relative RMS)",))
        self._xhat = step.feet
        return step

    def _update(self):
        if self._k < self.values["steps"] and not self._finished:
            try:
                with np.errstate(**_RAISE):
                    step = self._outer_step()
            except (FloatingPointError, np.linalg.LinAlgError) as exc:
                self._stop_note = f"step {self._k + 1}: numerical trouble ({exc}); stopped, the best step is kept"
                step = None
            if step is None:
                self._finished = True
            else:
                self._k += 1
                self._steps.append(step)
                return ()
        self._finished = True
        if self._best is not None:
            return ()
        best = max(self._steps, key=lambda s: s.estimate if np.isfinite(s.estimate) else -np.inf)
        # the steps' own search is the algorithm's (unpolished); the margin reported is measured to the nearest foot
        with np.errstate(all="ignore"):
            measured = input_distances(best.omega.decision(self.problem.kernel), self.problem.X, self._y,
                                       rect=self._rect, resolution=MEASURE_RESOLUTION)
        self._best = replace(best, measured=measured)
        return ()

    def _halt(self):
        if self._best is None:
            return None
        return Status.SEPARATOR if not self._best.measured.misclassified.any() else Status.CONVERGED

    # -- snapshots -------------------------------------------------------------------------------------
    def _state(self):
        step = self._best if self._best is not None else self._steps[-1]
        kernel = self.problem.kernel
        r = akaho.rkhs_norm_sq(kernel, step.omega)
        wn = float(np.sqrt(max(r, 0.0)))
        decision = step.omega.decision(kernel, wn or None)
        fx = decision(self.problem.X)
        scores = self._y * fx
        m = step.measured
        return {
            "decision": decision,
            "alpha": np.clip(step.alpha, 0.0, self._C),
            "feet": step.feet if step.index > 0 or self._best is not None else self.problem.X,
            "metrics": {
                "input_margin": m.margin,
                "input_margin_estimate": step.estimate if np.isfinite(step.estimate) else None,
                "margin": float(scores.min()) / wn if wn > 0 else None,
                "objective": step.objective if np.isfinite(step.objective) else None,
                "train_errors": int((scores <= 0).sum()),
                "support_vectors": int((step.alpha > akaho.SV_FRACTION * max(step.alpha.max(initial=0), 1e-300)).sum()),
                "weight_norm": wn,
                "weight_reach": weight_reach(wn, self.problem, fx),
            },
            "message": self._message(step, m),
        }

    def _message(self, step: Step, m: InputDistances) -> str:
        kind = "hard margin" if self._C is None else f"soft margin, C = {self._C:g}"
        measured = f"input-space margin {m.margin:.4g}" if m.margin is not None else f"no input-space margin ({m.reason})"
        est = f"estimate {step.estimate:.4g}" if np.isfinite(step.estimate) else "no estimate"
        if self._best is not None:
            head = (f"Best of steps 0–{len(self._steps) - 1} by the estimated margin: step {step.index} ({kind}); "
                    f"{measured}, {est}")
            start = self._steps[0].measured.margin
            if start is not None and m.margin is not None:
                head += f" (the SVM's: {start:.4g})"
            notes = [getattr(self, "_stop_note", "")] if getattr(self, "_stop_note", "") else []
        else:
            head = f"Step {step.index} of {self.values['steps']} ({kind}): {measured}, {est}"
            notes = list(step.notes)
        return "; ".join([head] + notes) + "."
