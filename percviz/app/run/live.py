"""Live mode: every edit (add, drag, delete, undo, kernel or parameter change) reruns the algorithm to its end.

Reset is not an edit: it goes back to iteration 0 so that the run can be stepped through by hand.

Built on the session's public API only: each `problemChanged` (the session restarts on every edit) is followed,
one event-loop turn later, by the run to its end: its first LIVE_SYNC_S seconds through `advance_sync` (most runs at
n ≤ 200 end there, so the final boundary is drawn before the next mouse move), the rest by `run_to_end()` on the
worker. A run over the budget shows its latest state (the session delivers frames while running) and the Live
box says it is still running. History and scrubbing work on the finished run.
While a point is dragged a rerun keeps only a snapshot per stride of updates (the final boundary first: no
per-step snapshot, metrics or decision function is built in between), skips the bound metric's ρ_K, and runs the
interior-point `svm` as one QP to its solution (Live edits never replay its iterates); once the drag pauses
LIVE_SETTLE_MS (or ends) the scene is rerun once with its per-step history and bound, so History and scrubbing work on
the finished run. The canvas keeps the last boundary until the rerun's first snapshot replaces it.
The algorithm runs as written, from its own start, except as its class declares (core.solvers.base.Solver's
capabilities; no solver name is listed here): `warm_start = "alpha"` (the SVMs) starts from the last finished run's
α mapped to the edited points (a moved point keeps its α, a deleted one's is dropped, an added one gets 0): the same
optimum, fewer steps to it (SMO starts there; the interior-point QP takes it as its working set, svm.py); with
`warm_start_on_reset = False` (the input-space SVM) only edits get it, Reset replays every QP whole.
`warm_start = "weights"` (the single-sample perceptrons) starts from the last finished weights only when the user
asks (Run menu). `live_on_worker` (an update of ~0.1–1 s) sends the whole rerun to the worker.
"""

from __future__ import annotations

import dataclasses
import time

import numpy as np
from PySide6.QtCore import QObject, Qt, QTimer, Signal
from PySide6.QtGui import QAction, QKeySequence

from percviz.app.run.session import FINISHED, RUNNING
from percviz.app.timing import LIVE_RETRY_MS, LIVE_SETTLE_MS, LIVE_SYNC_S, RERUN_MAX_S


#: Above this many points the whole Live run goes to the worker (the UI thread never waits for an update).
SYNC_MAX_POINTS = 500


class LiveMode(QObject):
    """The Live toggle of one window (key L, Run menu, the `live` check box), saved in presets and preferences."""

    toggled = Signal(bool)

    def __init__(self, window, prefs):
        super().__init__(window)
        self.window, self.prefs = window, prefs
        self.on = False
        self.runs = 0  # runs started by Live (tests and the benchmark count them)
        self.action = QAction("&Live: rerun to the end on every edit", window, checkable=True)
        self.action.setObjectName("action_live")
        self.action.setShortcut(QKeySequence("L"))
        self.action.setShortcutContext(Qt.ShortcutContext.WindowShortcut)
        self.action.setStatusTip("Every edit reruns the algorithm to its end; drag a point and watch the boundary follow")
        self.action.toggled.connect(self.set_on)
        window.addAction(self.action)
        run_menu = getattr(window, "run_menu", None)
        if run_menu is not None:
            run_menu.insertAction(run_menu.actions()[0] if run_menu.actions() else None, self.action)
            run_menu.insertSeparator(run_menu.actions()[1] if len(run_menu.actions()) > 1 else None)
        self.warm_action = QAction("Live: start perceptrons from the &last weights", window, checkable=True)
        self.warm_action.setObjectName("action_live_warm")
        self.warm_action.setStatusTip("Off: every Live rerun starts from a = 0, as the algorithm is written. On: the "
                                      "fixed-increment, variable-increment and Rosenblatt perceptrons start from the "
                                      "last finished run's weights (few corrections after a small edit)")
        self.warm_action.setChecked(bool(getattr(prefs, "live_warm", False)))
        self.warm_action.toggled.connect(lambda on: setattr(self.prefs, "live_warm", bool(on)))
        window.addAction(self.warm_action)
        if run_menu is not None:
            actions = run_menu.actions()
            after = actions.index(self.action) + 1 if self.action in actions else len(actions)
            run_menu.insertAction(actions[after] if after < len(actions) else None, self.warm_action)
        self.box = getattr(window.controls, "live_box", None)
        if self.box is not None:
            self.box.toggled.connect(self.set_on)
        s = window.session
        self._problem = s.problem
        self._finished = None  # (points, settings, α) of the last finished run with dual coefficients
        self._weights = None  # (settings, a) of the last finished run with explicit weights
        s.solver_options = self._options
        # A run made while dragging is sparse and skips the bound metric's ρ_K (an LP or QP on every move); once
        # the drag has paused (or ended) this long, the scene is run once more in full.
        self._bound_off, self._settled, self._sparse, self._quiet = False, False, False, False
        self._t_run, self._run_cost = 0.0, 0.0  # when the current Live run started, what the last one took (s)
        s.sparse_runs = lambda: self._sparse
        s.quiet_start_runs = lambda: self._quiet
        self._settle = QTimer(self, singleShot=True, interval=LIVE_SETTLE_MS)
        self._settle.timeout.connect(self._run_settled)
        self._retry = QTimer(self, singleShot=True, interval=LIVE_RETRY_MS)
        self._retry.timeout.connect(self._run)
        s.problemChanged.connect(self._on_problem)
        s.runStateChanged.connect(self._on_state)
        s.rhoChanged.connect(self._on_rho)
        self._rho_rerun = None  # the Problem last rerun because its ρ_K came after its run had ended
        window.presetLoaded.connect(self._on_preset)
        self.set_on(bool(prefs.live), remember=False)

    def set_on(self, on: bool, remember: bool = True) -> None:
        """Turn Live on or off (on: the current scene runs to its end now)."""
        on = bool(on)
        for w in (self.action, self.box):
            if w is not None and w.isChecked() != on:
                w.blockSignals(True)
                w.setChecked(on)
                w.blockSignals(False)
        changed = on != self.on
        self.on = on
        if remember:
            self.prefs.live = on
            view = getattr(self.window, "view_settings", None)
            if view is not None and hasattr(view, "live"):
                self.window.view_settings = dataclasses.replace(view, live=on)
        if changed:
            self.toggled.emit(on)
            if on:
                QTimer.singleShot(0, self._run)
        self._on_state(self.window.session.state)

    def _on_preset(self, preset) -> None:
        live = getattr(preset.view, "live", None)
        if live is not None:
            self.set_on(bool(live), remember=False)  # the scene's choice; the preference is the user's own
        elif getattr(self.window, "view_settings", None) is not None and hasattr(self.window.view_settings, "live"):
            self.window.view_settings = dataclasses.replace(self.window.view_settings, live=self.on)

    def _on_problem(self, problem, _solver_cls) -> None:
        # an edit builds a new Problem; Reset keeps the same one (iteration 0 stays, to step through by hand)
        fresh = problem is not self._problem
        self._settle.stop()
        self._problem = problem
        if self.on and problem is not None and fresh:
            QTimer.singleShot(0, self._run)  # after the session has finished its restart

    def _run(self) -> None:
        s = self.window.session
        if not self.on or s.problem is None or s.state == RUNNING or s.finished:
            return
        forms_valid = getattr(self.window.controls, "forms_valid", lambda: True)()
        if not forms_valid:
            return
        if s.update_in_flight:  # the worker is on the run's iteration 0 (its bound's ρ_K): look again, never wait
            self._retry.start()
            return
        self.runs += 1
        self._t_run = time.monotonic()
        # A short run is finished here at once, so that its final boundary is drawn before the next mouse move
        # restarts it (the worker's frames are paced for watching, not for this); it is shown once, at the end.
        # Beyond LIVE_SYNC_S the worker takes over and the canvas shows its latest state while it is still running.
        # one update of a large problem (or of a solver whose every update is heavy) may itself outlast the budget
        if s.problem.n <= SYNC_MAX_POINTS and not s.solver_cls.live_on_worker:
            s.advance_sync(10**9, seconds=LIVE_SYNC_S)
        if not s.finished and s.problem is not None:
            s.run_to_end()

    def _options(self, problem, solver_cls) -> dict:
        """What a Live rerun changes in the solver's construction: SMO's warm start; the interior-point SVM solved
        once, to its solution; while dragging, no ρ_K (and a sparse history, `sparse_runs`)."""
        self._bound_off, settled, self._settled, self._sparse = False, self._settled, False, False
        self._quiet = self.on and settled  # the paused drag's full rerun: the same boundary, shown once
        if not self.on:
            return {}
        out = self._warm_start(problem, solver_cls)
        if problem is self._problem and not solver_cls.warm_start_on_reset:
            out = {}  # Reset: the input-space SVM replays every QP whole, as written
        if problem is not self._problem:  # an edit (Reset keeps its Problem: stepping by hand starts from 0)
            out.update(self._weight_start(solver_cls))
        scene = self.window.scene
        names = solver_cls.params.names()
        params = dict(scene.settings.params)
        if "show_iterations" in names and problem is not self._problem:  # an edit, not Reset (step by hand)
            out["show_iterations"] = False  # one QP, not one per replayed interior-point iterate
        if scene.dragging and not settled:
            self._sparse = True
            if "bound" in names and params.get("bound", True):
                out["bound"], self._bound_off = False, True
        return out

    def _needs_full_run(self) -> bool:
        """The finished run skipped its bound, or its history is strided and a full rerun is affordable."""
        s = self.window.session
        last = s.latest
        if self._bound_off:
            return True
        thinned = s.sparse and last is not None and last.iteration + 1 > len(s.history_store)
        return thinned and self._run_cost <= RERUN_MAX_S

    def _run_settled(self) -> None:
        s = self.window.session
        if not (self.on and s.finished):
            return
        if not self._needs_full_run():
            s.ensure_rho()  # the sparse run is the full one (a few updates): only ρ_K is still to come
            return
        self._settled = True
        self._keep_picture()
        s.restart()  # a fresh Problem: Live runs it to the end, this time in full

    def _keep_picture(self) -> None:
        """The canvas keeps its picture until the rerun's (the same boundary: no blank frame in between)."""
        canvas = getattr(self.window, "panels", {}).get("canvas")
        if canvas is not None and hasattr(canvas, "keep_picture"):
            canvas.keep_picture()

    def _on_rho(self, rho) -> None:
        """ρ_K arrived after the run it bounds had ended (the UI thread gave it a frame's time, gram.margin_wait):
        the same Problem is run once more from ρ_K's memo, quietly, so that its bound metric appears."""
        s, scene = self.window.session, self.window.scene
        last, cls, problem = s.latest, s.solver_cls, s.problem
        if (rho is None or not self.on or not s.finished or problem is None or problem is self._rho_rerun
                or scene.dragging or self._bound_off or last is None or "bound" not in cls.metric_keys
                or last.metrics.get("bound") is not None or not dict(scene.settings.params).get("bound", True)):
            return
        if cls.warm_start == "alpha" or (self.warm_action.isChecked() and cls.warm_start == "weights"):
            return  # its run started from the last one's coefficients: a rerun from scratch would be another run
        self._rho_rerun, self._settled = problem, True  # (_options: a quiet rerun, shown once)
        self._keep_picture()
        s.restart(same_problem=True)  # the same Problem keeps ρ_K's memo
        QTimer.singleShot(0, self._run)  # (a restart on the same Problem is Reset, which Live does not run)

    def _warm_start(self, problem, solver_cls) -> dict:
        """SMO's warm start for a Live rerun: the last finished α on the edited points (else nothing)."""
        if not self.on or solver_cls.warm_start != "alpha" or self._finished is None:
            return {}
        old, settings, alpha = self._finished
        if settings != self.window.scene.settings or len(alpha) != old.n:
            return {}  # another kernel, C or algorithm: a different optimum, start cold
        new = problem.points
        if old.n == new.n and np.array_equal(old.classes, new.classes):
            return {"warm_start": np.array(alpha, dtype=float)}  # moves keep every point's α
        index = {(float(x), float(y), int(c)): i for i, ((x, y), c) in enumerate(zip(old.X, old.classes))}
        keys = ((float(x), float(y), int(c)) for (x, y), c in zip(new.X, new.classes))
        return {"warm_start": np.array([alpha[index[k]] if k in index else 0.0 for k in keys])}

    def _weight_start(self, solver_cls) -> dict:
        """The perceptrons' opt-in warm start: the last finished weights of the same settings (else nothing)."""
        if not (self.warm_action.isChecked() and solver_cls.warm_start == "weights"):
            return {}
        settings = self.window.scene.settings
        if self._weights is None or self._weights[0] != settings or dict(settings.params).get("average", "none") != "none":
            return {}  # another φ-map or algorithm (or averaged weights shown): start at 0
        return {"warm_start": np.array(self._weights[1], dtype=float)}

    def _remember(self) -> None:
        s = self.window.session
        snap = s.latest
        weights = getattr(snap, "weights", None) if snap is not None and snap.status.done else None
        if weights is not None and np.isfinite(weights).all():
            self._weights = (self.window.scene.settings, np.asarray(weights))
        if snap is not None and snap.status.done and getattr(snap, "alpha", None) is not None and s.problem is not None:
            self._finished = (s.problem.points, self.window.scene.settings, np.asarray(snap.alpha))

    def _on_state(self, state: str) -> None:
        if state == FINISHED:
            self._run_cost = time.monotonic() - self._t_run
            self._remember()
            if self.on and self.window.session.sparse:
                self._settle.start()
        if self.box is None:
            return
        if self.on and state == RUNNING:
            self.box.setText("Live (still running…)")
        else:
            self.box.setText("Live")
        self.box.setToolTip(
            "Live: every edit reruns the algorithm to its end (L). "
            + ("The last run finished." if state == FINISHED else "")
        )


__all__ = ["LiveMode"]
