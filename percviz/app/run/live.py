"""Live mode's controls: the toggle (key L, Run menu, the `live` check box), the drag's pause, ρ_K come late.

Every edit (add, drag, delete, undo, kernel or parameter change) reruns the algorithm to its end; Reset is not an
edit: it goes back to iteration 0 so that the run can be stepped through by hand. What a rerun does is the run
model's Live policy (percviz.app.run.live_policy.LivePolicy: warm starts as the solver class declares, a sparse run
while dragging); the session runs it on the worker (percviz.app.run.session.RunSession.set_live): the UI thread only
draws. This module only turns it on and off and reruns a paused drag in full: once a sparse run has finished and
the drag has paused `timing.LIVE_SETTLE_MS`, the scene is run once more with its per-step history and bound, so
History and scrubbing work on the finished run (the canvas keeps its picture until the rerun's).
"""

from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING

from PySide6.QtCore import QObject, Qt, QTimer, Signal
from PySide6.QtGui import QAction, QKeySequence

from percviz.app.run.model import FINISHED, RUNNING
from percviz.app.timing import LIVE_SETTLE_MS
from percviz.core.solvers import load_all

if TYPE_CHECKING:
    from percviz.app.context import AppContext


class LiveMode(QObject):
    """The Live toggle of one window, saved in presets and preferences."""

    toggled = Signal(bool)

    def __init__(self, ctx: "AppContext"):
        window = ctx.window
        super().__init__(window)
        self.ctx, self.prefs, self.session = ctx, ctx.prefs, ctx.session
        self.on = False
        self.action = QAction("&Live: rerun to the end on every edit", window, checkable=True)
        self.action.setObjectName("action_live")
        self.action.setShortcut(QKeySequence("L"))
        self.action.setShortcutContext(Qt.ShortcutContext.WindowShortcut)
        self.action.setStatusTip("Every edit reruns the algorithm to its end; drag a point and watch the boundary follow")
        self.action.toggled.connect(self.set_on)
        window.addAction(self.action)
        run_menu = ctx.menus.run
        run_menu.insertAction(run_menu.actions()[0] if run_menu.actions() else None, self.action)
        run_menu.insertSeparator(run_menu.actions()[1] if len(run_menu.actions()) > 1 else None)
        self.warm_action = QAction("Live: start perceptrons from the &last weights", window, checkable=True)
        self.warm_action.setObjectName("action_live_warm")
        warm = ", ".join(cls.display_name for cls in load_all().values() if cls.warm_start == "weights")
        self.warm_action.setStatusTip("Off: every Live rerun starts from a = 0, as the algorithm is written. On: "
                                      f"{warm or 'the perceptrons'} start from the last finished run's weights "
                                      "(few corrections after a small edit)")
        self.warm_action.setChecked(bool(self.prefs.live_warm))
        self.warm_action.toggled.connect(self._set_warm)
        window.addAction(self.warm_action)
        actions = run_menu.actions()
        after = actions.index(self.action) + 1
        run_menu.insertAction(actions[after] if after < len(actions) else None, self.warm_action)
        self.box = ctx.controls.live_box
        self.box.toggled.connect(self.set_on)
        s = self.session
        s.set_live(warm_weights=self.warm_action.isChecked(), gate=ctx.controls.forms_valid)
        self._settle = QTimer(self, singleShot=True, interval=LIVE_SETTLE_MS)
        self._settle.timeout.connect(self._run_settled)
        ctx.feed.subscribe(problem=lambda *_: self._settle.stop(), owner=self)  # a new run: no paused-drag rerun
        s.runStateChanged.connect(self._on_state)
        s.rhoChanged.connect(self._on_rho)
        window.presetLoaded.connect(self._on_preset)
        self.set_on(bool(self.prefs.live), remember=False)

    @property
    def runs(self) -> int:
        """Runs started by Live (tests and the benchmark count them)."""
        return self.session.live_runs

    def set_on(self, on: bool, remember: bool = True) -> None:
        """Turn Live on or off (on: the current scene runs to its end now)."""
        on = bool(on)
        for w in (self.action, self.box):
            if w.isChecked() != on:
                w.blockSignals(True)
                w.setChecked(on)
                w.blockSignals(False)
        changed = on != self.on
        self.on = on
        if remember:
            self.prefs.live = on
            self._note_in_view(on)
        if changed:
            self.toggled.emit(on)
            self.session.set_live(on=on)
        self._on_state(self.session.state)

    def _set_warm(self, on: bool) -> None:
        self.prefs.live_warm = bool(on)
        self.session.set_live(warm_weights=bool(on))

    def _note_in_view(self, on: bool) -> None:
        """The scene's view settings (saved with it) say Live as it is now."""
        window = self.ctx.window
        if window.view_settings is not None:
            window.view_settings = dataclasses.replace(window.view_settings, live=on)

    def _on_preset(self, preset) -> None:
        if preset.view.live is not None:
            self.set_on(bool(preset.view.live), remember=False)  # the scene's choice; the preference is the user's own
        else:
            self._note_in_view(self.on)

    def _run_settled(self) -> None:
        s = self.session
        if not (self.on and s.finished):
            return
        if not s.live.needs_full_run(s.sparse, s.latest, len(s.history_store)):
            s.ensure_rho()  # the sparse run is the full one (a few updates): only ρ_K is still to come
            return
        self.ctx.panels["canvas"].keep_picture()  # the same boundary: no blank frame until the rerun's
        s.rerun_live()  # a fresh Problem, to the end, this time in full

    def _on_rho(self, rho) -> None:
        """ρ_K arrived after the run it bounds had ended (the UI thread gave it a frame's time, gram.margin_wait):
        the same Problem is run once more from ρ_K's memo, quietly, so that its bound metric appears."""
        s, scene = self.session, self.ctx.scene
        if not s.live.wants_rho_rerun(rho, s.problem, s.solver_cls, s.latest, scene.settings, scene.dragging):
            return
        self.ctx.panels["canvas"].keep_picture()
        s.rerun_live(same_problem=True)  # the same Problem keeps ρ_K's memo

    def _on_state(self, state: str) -> None:
        if state == FINISHED and self.on and self.session.sparse:
            self._settle.start()
        text = "Live (still running…)" if self.on and state == RUNNING else "Live"
        if self.box.text() != text:  # (a Live run is said to be running only once it outlasts its quiet start)
            self.box.setText(text)
        tip = "Live: every edit reruns the algorithm to its end (L). " + ("The last run finished." if state == FINISHED else "")
        if self.box.toolTip() != tip:
            self.box.setToolTip(tip)


__all__ = ["LiveMode"]
