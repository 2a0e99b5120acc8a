"""The run caption over the canvas (algorithm, iteration, margin, outcome) and the canvas's title line."""

from __future__ import annotations

from PySide6.QtCore import QObject

from percviz.app.context import AppContext
from percviz.app.panels.overlays import RunOverlay, attach_run_overlay
from percviz.app.theme import Theme


class RunCaption(QObject):
    """Feeds the caption the run's algorithm and snapshots; titles the canvas by the kind of algorithm."""

    def __init__(self, ctx: AppContext, theme: Theme):
        super().__init__(ctx.window)
        self.ctx = ctx
        canvas = ctx.panels["canvas"]
        self.overlay: RunOverlay = attach_run_overlay(canvas, theme)
        self.solver_cls = None
        self.shown = None  # the last snapshot the caption shows (None: none since the algorithm was set)
        ctx.feed.subscribe(problem=self._on_problem, snapshot=self._on_snapshot, owner=self)
        self._set_solver(ctx.session.solver_cls)
        if ctx.session.current is not None:
            self._on_snapshot(ctx.session.current)
        self._title_canvas(ctx.session.solver_cls)

    def _set_solver(self, solver_cls) -> None:
        self.solver_cls, self.shown = solver_cls, None
        self.overlay.set_solver(solver_cls)

    def _on_snapshot(self, snapshot) -> None:
        self.shown = snapshot
        self.overlay.show_snapshot(snapshot)

    def _on_problem(self, _problem, solver_cls) -> None:
        """A new run: the caption starts over, except for a dragged point's rerun of the same algorithm (it keeps
        the last caption until the rerun's snapshot, like the canvas keeps its picture: one repaint per move)."""
        self._title_canvas(solver_cls)
        if self.ctx.scene.dragging and solver_cls is self.solver_cls and self.shown is not None:
            return
        self._set_solver(solver_cls)

    def _title_canvas(self, solver_cls) -> None:
        """Multi-class scenes show class regions (argmax), two-class ones the decision function f."""
        multi = solver_cls is not None and solver_cls.representation == "multiclass"
        self.ctx.panels["canvas"].title.setText("Class regions  argmax_j f_j(x)" if multi else "Decision function  f(x)")
