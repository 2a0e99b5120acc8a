"""Live's policy, Qt-free: an edit reruns the algorithm to its end on the worker; what each rerun changes.

While a point is dragged a rerun keeps only a snapshot per stride of updates (`sparse`: the final boundary first),
skips the bound metric's ρ_K and runs an interior-point SVM as one QP to its solution (`show_iterations` off);
once the drag pauses the scene is rerun once in full (`settled`, shown quietly: the same boundary), so History and
scrubbing work on the finished run. The algorithm runs as written, from its own start, except as its class
declares (core.solvers.base.Solver's capabilities; no solver name here): `warm_start = "alpha"` starts from the
last finished run's α mapped to the edited points (a moved point keeps its α, a deleted one's is dropped, an added
one gets 0); with `warm_start_on_reset = False` only edits get it, Reset replays every QP whole.
`warm_start = "weights"` starts from the last finished weights only when the user asks (`warm_weights`).
"""

from __future__ import annotations

from typing import Any, Callable

import numpy as np

from percviz.app.timing import RERUN_MAX_S


class LivePolicy:
    """Whether edits rerun to the end, and the solver options, sparseness and quiet start of each rerun."""

    def __init__(self) -> None:
        self.on = False
        #: the perceptrons start from the last finished weights (Run menu; off: from a = 0, as written)
        self.warm_weights = False
        #: () → False while the run cannot start (an invalid parameter form); None: always
        self.gate: Callable[[], bool] | None = None
        self.settled = False  # the next rerun is the paused drag's full one (or ρ_K's): shown quietly, once
        self.bound_off = False  # the current run skipped its bound metric (a drag's run)
        self.sparse = False  # the current run keeps a snapshot per stride
        self.quiet = False  # the current run's unfinished start is not shown
        self.run_cost = 0.0  # seconds the last Live run took on the worker
        self.rho_rerun: Any = None  # the Problem last rerun because its ρ_K came after its run had ended
        self._alpha: tuple | None = None  # (points, settings, α) of the last finished run with dual coefficients
        self._weights: tuple | None = None  # (settings, a) of the last finished run with explicit weights

    def runs(self) -> bool:
        """Whether a new run should go to its end now."""
        return self.on and (self.gate is None or self.gate())

    def options(self, problem, solver_cls, settings, dragging: bool, edit: bool) -> dict:
        """The constructor keywords a rerun adds to the scene's (edit: new points or settings, not a Reset)."""
        settled, self.settled = self.settled, False
        self.bound_off, self.sparse, self.quiet = False, False, self.on and settled
        if not self.on:
            return {}
        out = self._alpha_start(problem, solver_cls, settings)
        if not edit and not solver_cls.warm_start_on_reset:
            out = {}  # Reset: the input-space SVM replays every QP whole, as written
        if edit:
            out.update(self._weight_start(solver_cls, settings))
        names = solver_cls.params.names()
        if "show_iterations" in names and edit:
            out["show_iterations"] = False  # one QP, not one per replayed interior-point iterate
        if dragging and not settled:
            self.sparse = True
            if "bound" in names and dict(settings.params).get("bound", True):
                out["bound"], self.bound_off = False, True
        return out

    def needs_full_run(self, sparse: bool, latest, kept: int) -> bool:
        """The finished run skipped its bound, or its history is strided (kept < updates) and a rerun is affordable."""
        if self.bound_off:
            return True
        thinned = sparse and latest is not None and latest.iteration + 1 > kept
        return thinned and self.run_cost <= RERUN_MAX_S

    def wants_rho_rerun(self, rho, problem, solver_cls, latest, settings, dragging: bool) -> bool:
        """ρ_K came after its run had ended: rerun the same Problem (from ρ_K's memo) so its bound metric appears."""
        if (rho is None or not self.on or problem is None or problem is self.rho_rerun or dragging or self.bound_off
                or latest is None or not latest.status.done or "bound" not in solver_cls.metric_keys
                or latest.metrics.get("bound") is not None or not dict(settings.params).get("bound", True)):
            return False
        # a run that started from the last one's coefficients: a rerun from scratch would be another run
        return not (solver_cls.warm_start == "alpha" or (self.warm_weights and solver_cls.warm_start == "weights"))

    def remember(self, snap, problem, settings) -> None:
        """A run finished: keep its α or weights for the next edit's warm start."""
        if snap is None or not snap.status.done:
            return
        weights = getattr(snap, "weights", None)
        if weights is not None and np.isfinite(weights).all():
            self._weights = (settings, np.asarray(weights))
        alpha = getattr(snap, "alpha", None)
        if alpha is not None and problem is not None:
            self._alpha = (problem.points, settings, np.asarray(alpha))

    def _alpha_start(self, problem, solver_cls, settings) -> dict:
        """The last finished α on the edited points (else nothing)."""
        if solver_cls.warm_start != "alpha" or self._alpha is None:
            return {}
        old, old_settings, alpha = self._alpha
        if old_settings != settings or len(alpha) != old.n:
            return {}  # another kernel, C or algorithm: a different optimum, start cold
        new = problem.points
        if old.n == new.n and np.array_equal(old.classes, new.classes):
            return {"warm_start": np.array(alpha, dtype=float)}  # moves keep every point's α
        index = {(float(x), float(y), int(c)): i for i, ((x, y), c) in enumerate(zip(old.X, old.classes))}
        keys = ((float(x), float(y), int(c)) for (x, y), c in zip(new.X, new.classes))
        return {"warm_start": np.array([alpha[index[k]] if k in index else 0.0 for k in keys])}

    def _weight_start(self, solver_cls, settings) -> dict:
        """The perceptrons' opt-in warm start: the last finished weights of the same settings (else nothing)."""
        if not (self.warm_weights and solver_cls.warm_start == "weights"):
            return {}
        if self._weights is None or self._weights[0] != settings or dict(settings.params).get("average", "none") != "none":
            return {}  # another φ-map or algorithm (or averaged weights shown): start at 0
        return {"warm_start": np.array(self._weights[1], dtype=float)}
