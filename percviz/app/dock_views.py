"""The window's views in docks: which are wanted (View menu), which the algorithm has, shown in one relayout."""

from __future__ import annotations

from contextlib import contextmanager
from typing import TYPE_CHECKING

import shiboken6
from PySide6.QtWidgets import QGraphicsView

from percviz.app.run.session import SPLIT_RESTART_N

if TYPE_CHECKING:
    from percviz.app.main_window import MainWindow


class DockViews:
    """The weight and feature docks: shown when the algorithm declares the view and the user wants it."""

    def __init__(self, window: "MainWindow"):
        self.window = window
        self._wanted = {"weight": True, "feature": True}
        self._user_panels: set[str] = set()  # the views ticked by hand (an example's own views close with it)
        self._updating_docks = False  # docks hidden or shown by a layout change, not closed by the user
        self._pending_view = None

    @property
    def wanted(self) -> dict[str, bool]:
        """name → wanted (ticked in the View menu)."""
        return self._wanted

    def set_pending_view(self, view) -> None:
        """The view a preset brings, applied by apply_pending_view (at once, or a turn later for a large scene)."""
        self._pending_view = view

    def panel_wanted(self, name: str) -> bool:
        if name == "canvas":
            return True
        if name == "curves":
            return self.window.curves_action.isChecked()
        return name in self.window.docks and self._wanted.get(name, False)

    def want_panel(self, name: str, on: bool) -> None:
        self._wanted[name] = on
        (self._user_panels.add if on else self._user_panels.discard)(name)
        self.window.quiet_relayout(lambda: self.update_docks(self.window.session.solver_cls))

    def on_dock_visibility(self, name: str, visible: bool) -> None:
        if self.window.closed or not shiboken6.isValid(self.window):  # docks hide while the window is destroyed (closed, or a
            return  # script's exit without close: the C++ window is gone first): nothing to remember or feed
        # (a panel shown again catches up by itself: percviz.app.run.panel_feed)
        # The user closed a dock with its title-bar button: remember it and untick the menu entry.
        if not visible and self.window.isVisible() and not self.window.docks[name].isVisible() and self.supported(name)[0]:
            if self.window.docks[name].isHidden() and not self._updating_docks:
                self._wanted[name] = False
                self._user_panels.discard(name)
                act = self.window.view_actions.get(name)
                if act is not None:
                    act.blockSignals(True)
                    act.setChecked(False)
                    act.blockSignals(False)

    @contextmanager
    def updating_docks(self):
        """Docks hidden or shown inside this block are a layout's doing: not taken as closed by the user."""
        before, self._updating_docks = self._updating_docks, True
        try:
            yield
        finally:
            self._updating_docks = before

    def want_view(self, name: str, on: bool = True) -> None:
        """Remember whether a geometry view (weight, feature) is wanted, without touching the menu."""
        self._wanted[name] = bool(on)

    def view_wanted(self, name: str) -> bool:
        """Whether a geometry view is wanted (ticked), shown or not (its algorithm may not have it)."""
        return self._wanted.get(name, True)

    def supported(self, name: str, solver_cls=None) -> tuple[bool, str]:
        solver_cls = solver_cls or self.window.session.solver_cls
        panel = self.window.panels.get(name)
        if panel is None or solver_cls is None:
            return False, ""
        ok, why = type(panel).supports(solver_cls)
        return bool(ok), why

    def update_docks(self, solver_cls) -> None:
        """Show the docks of the views the algorithm declares (and the user wants), hide the others.

        Only the layout is the window's: a panel shown catches up by itself (percviz.app.run.panel_feed). Showing
        and hiding docks is one layout pass and one repaint: updates are held until the layout is done.
        """
        changes = []
        for name, dock in self.window.docks.items():
            if name == "controls":
                continue
            ok, why = self.supported(name, solver_cls)
            act = self.window.view_actions.get(name)
            if act is not None:
                act.setEnabled(ok)
                act.setToolTip(why if not ok else "")
                act.setStatusTip(why if not ok else "")
            want = ok and self._wanted.get(name, False)
            if dock.isHidden() == want:
                changes.append((dock, want))
        if not changes:
            return
        before, self._updating_docks = self._updating_docks, True
        held = self.window.isVisible() and self.window.updatesEnabled()
        if held:
            self.window.setUpdatesEnabled(False)
        try:
            for dock, want in changes:
                dock.setVisible(want)
            if held and self.window.layout() is not None:
                self.window.layout().activate()  # the new geometry now, while nothing repaints
        finally:
            self._updating_docks = before
            if held:
                # the new layout repaints every panel (20–40 ms each): the canvas now, each other panel in a
                # turn of its own after it (FrameScheduler.first_draw), not all in this one
                # (their graphics views are held, not the panels: a held widget has no visible region until it repaints)
                later = [(name, p.findChildren(QGraphicsView)) for name, p in self.window.panels.items()
                         if name != "canvas" and p.isVisible()]
                for _, views in later:
                    for view in views:
                        view.setUpdatesEnabled(False)
                self.window.setUpdatesEnabled(True)
                for name, views in later:
                    self.window.session.frames.first_draw(f"{name}:repaint", lambda vs=views: [v.setUpdatesEnabled(True)
                                                                                       for v in vs])

    def user_panels(self) -> set[str]:
        """The views the user opened by hand (View menu) and has not closed since."""
        return set(self._user_panels)

    def sync_docks(self) -> None:
        """The docks of the views the algorithm declares and the user wants, whatever a restored layout said."""
        self.update_docks(self.window.session.solver_cls)

    def apply_pending_view(self) -> None:
        """The last loaded preset's view, once (a large scene's load applies it in the next turn)."""
        view, self._pending_view = self._pending_view, None
        if not self.window.closed:
            self.apply_view(view)

    def apply_view(self, view) -> None:
        if view is None:
            return
        for name in ("weight", "feature"):
            if name in self.window.docks:
                self._wanted[name] = name in view.panels
                act = self.window.view_actions.get(name)
                if act is not None:
                    act.blockSignals(True)
                    act.setChecked(self._wanted[name])
                    act.blockSignals(False)
        self.window.curves_action.setChecked("curves" in view.panels)
        self.update_docks(self.window.session.solver_cls)
        canvas = self.window.panels["canvas"]
        if view.range is not None:
            canvas.set_view_range(*view.range)
        else:
            canvas.fit_to_data()
        split = self.window.scene.n > SPLIT_RESTART_N and self.window.isVisible()
        now = [p for name, p in self.window.panels.items() if not split or name == "canvas"]
        for name, panel in self.window.panels.items():
            if panel not in now:  # a large scene: each other panel takes the view and draws in a turn of its own
                self.window.session.frames.first_draw(f"view:{name}", lambda p=panel: self._apply_panel_view(p, view))
        for panel in now:
            panel.apply_view(view)
        for panel in now:  # drawn again with the view applied
            panel.feed.invalidate()
        for panel in now:  # (heavy ones after a drag's pause)
            panel.catch_up(defer=True)

    @staticmethod
    def _apply_panel_view(panel, view) -> None:
        """One panel takes a preset's view and draws the run again with it (if it is shown)."""
        panel.apply_view(view)
        panel.feed.invalidate()
        panel.catch_up()

