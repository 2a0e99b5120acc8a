"""Convergence curves: the solver's metrics against the iteration, in up to three stacked plots.

The metrics a solver reports (`metric_keys`, labelled by `percviz.core.solvers.METRICS`) are grouped
by scale: norms, criteria and other positive quantities that shrink or grow geometrically (log scale
by default when one of them is declared log-scaled) including objectives (SVM dual, LP), margins and L(α) (signed, linear),
and counts (training errors, mistakes, support vectors).
The theoretical bound is drawn dashed next to what it bounds (the mistakes when the solver counts
them, else the norms). ρ_K, given once per scene by `set_reference`, is a dotted reference line in
the margin plot (the margin can approach it) and in the norm plot when ‖p‖_G is shown (‖p_k‖_G ≥ ρ_K).
Values are kept in growing numpy buffers and pushed to pyqtgraph when the session delivers a frame (it paces
them to the display rate); no grid lines (they were most of a repaint's cost);
while the history is scrubbed, a vertical line marks the iteration shown.

Drawing cost: the axis ranges are set here, not by pyqtgraph's auto-range, and change in steps (the
iteration axis grows to the next "nice" number, the y range only when the data leaves it or fills
less than half of it), so most frames repaint cached axes and grids and only the curves change.
A pan or zoom by hand stops the following until the next run.
Legend: one line above the plots (wrapping at any width and scale) names every curve in its colour,
group by group; colours are unique across the plots.
"""

from __future__ import annotations

import math

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QSize, Qt, Signal
from PySide6.QtWidgets import QCheckBox, QHBoxLayout, QLabel, QSizePolicy, QVBoxLayout, QWidget

from percviz.app.panels.curves.axes import _fit_axis_label, _WholeLabel
from percviz.app.panels.curves.legend import CurvesLegend
from percviz.app.panels.curves.plots import CurvesPlots
from percviz.app.panels.curves.ranges import _Buffers, group_of
from percviz.app.panels.panel import Panel
from percviz.app.theme import Theme, theme_for
from percviz.core.glossary import degenerate_note
from percviz.core.solvers.base import METRICS


class CurvesView(CurvesPlots, CurvesLegend, QWidget, Panel):
    """Metric curves of the current run; follows the run and marks the scrubbed iteration."""

    view, redraw_interval = "curves", 0.0  # a side frame after every snapshot frame, below the canvas

    drag_refresh = 0.5  # a dragged point's reruns: the curves follow twice a second, the boundary at every move

    pointHovered = Signal(int)

    def __init__(self, scene=None, parent=None, theme: Theme | None = None):
        super().__init__(parent)
        self.setObjectName("curves")
        self.setAccessibleName("curves")
        self.scene_model = scene
        self.theme = theme or theme_for()
        self.solver_cls = None
        self.rho: float | None = None
        self._references_drawn = False  # the reference lines and legend show self.rho
        self.shown_iteration: int | None = None
        self.buffers = _Buffers(())
        self.plots: dict[str, pg.PlotItem] = {}
        self.curves: dict[str, pg.PlotDataItem] = {}
        self._pool: dict = {}  # each metric group's plot, axes, cursor, reference line and log box, kept
        self._curve_group: dict = {}
        self._wide = self._arranged = None  # the arrangement last laid out
        self._single = False  # the curves show a lone first value as dots
        self._keys: tuple | None = None  # the metrics the curves are built for (None: none built yet)
        self.colors: dict[str, str] = {}
        self.log_boxes: dict[str, QCheckBox] = {}
        self.cursors: dict[str, pg.InfiniteLine] = {}
        self.references: dict[str, pg.InfiniteLine] = {}
        self.following: dict[str, bool] = {}
        self._y_ranges: dict[str, tuple[float, float]] = {}
        self._blank_ranges: set[str] = set()  # the plots set to a neutral range while they have nothing to show
        self.off_scale: dict[str, float | None] = {}  # group → the bound's lowest value when left above the plot
        self._x_max: float | None = None
        self._pushed = -1  # buffer length last given to the curves (-1: push again)
        self._dirty = False
        self._log_choice: dict[str, bool] = {}
        #: A preset's metric keys to plot (empty: the solver's own); see `apply_view`.
        self.view_curves: tuple[str, ...] = ()
        self._problem = None
        self._legend_fits = True  # the legend is shown (see _fit_legend)

        self.toolbar = QHBoxLayout()
        self.toolbar.setContentsMargins(4, 2, 4, 0)
        self.title = _WholeLabel("Convergence")
        self.title.setToolTip("Metrics of the run against the iteration k")
        self.title.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        self.toolbar.addWidget(self.title, 1)
        self.box_row = QHBoxLayout()
        self.box_row.setSpacing(12)
        self.toolbar.addLayout(self.box_row)
        self.legend = QLabel()
        self.legend.setObjectName("curves_legend")
        self.legend.setTextFormat(Qt.TextFormat.RichText)
        self.legend.setWordWrap(True)
        self.legend.setContentsMargins(4, 0, 4, 0)
        self.legend.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Minimum)
        self.message = QLabel("Run an algorithm to see its convergence curves.")
        self.message.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.message.setWordWrap(True)
        self.layout_widget = pg.GraphicsLayoutWidget()
        lay = QVBoxLayout(self)
        lay.setContentsMargins(0, 0, 0, 0)
        lay.setSpacing(0)
        lay.addLayout(self.toolbar)
        lay.addWidget(self.legend)
        lay.addWidget(self.message)
        lay.addWidget(self.layout_widget, 1)
        self.layout_widget.hide()
        self.apply_theme(self.theme)

    # -- the panel contract ------------------------------------------------------------------------
    @classmethod
    def supports(cls, solver_cls) -> tuple[bool, str]:
        if solver_cls is None:
            return True, ""
        if "curves" not in solver_cls.views or not solver_cls.metric_keys:
            return False, f"{solver_cls.display_name} reports no convergence metrics."
        return True, ""

    def set_problem(self, problem, solver_cls) -> None:
        """A new run: empty the buffers; rebuild the plots when the algorithm reports other metrics."""
        self._problem = problem
        keys = tuple(k for k in solver_cls.metric_keys if k in METRICS) if solver_cls else ()
        if self.view_curves and set(keys) & set(self.view_curves):  # a preset's choice of curves, if it applies
            keys = tuple(k for k in keys if k in self.view_curves)
        if solver_cls is not self.solver_cls or keys != self.buffers.keys:
            self.solver_cls = solver_cls
            self._build_plots(keys)
        self.buffers = _Buffers(keys, lambda m, cls=solver_cls: bool(degenerate_note(cls, m)))
        self.shown_iteration = None
        self._follow_again()
        ok, why = self.supports(solver_cls)
        if problem is None or not keys or not ok:
            self.message.setText(why or "Run an algorithm to see its convergence curves.")
            self.message.show()
            self.layout_widget.hide()
        else:
            self.message.hide()
            self.layout_widget.show()
        self.updateGeometry()
        self._dirty = True
        self.flush()

    def redraw_now(self) -> None:
        """Draw what is pending now (the Panel hook; same as flush)."""
        self.flush()

    def apply_view(self, view) -> None:
        """A preset's curves (which metrics; empty: all the solver reports) and log_y (every plot logarithmic)."""
        self.view_curves = tuple(view.curves)
        for g in ("norms", "margins", "counts"):
            self._log_choice.pop(g, None)
            if view.log_y:
                self._log_choice[g] = True
        if self.solver_cls is not None:
            self.solver_cls, solver_cls = None, self.solver_cls  # rebuild the plots with the new choice
            self.set_problem(self._problem, solver_cls)

    def set_snapshot(self, snapshot) -> None:
        """Append the snapshot if it is new; mark its iteration when it is an earlier one (scrubbing)."""
        if snapshot is None:
            return
        if snapshot.iteration > self.buffers.last_iteration:
            self.buffers.append(snapshot)
        self.shown_iteration = snapshot.iteration
        self._schedule()

    def set_run(self, snapshots, snapshot) -> None:
        """History and shown snapshot at once (the paced updates while animating)."""
        self.set_history(snapshots)
        self.set_snapshot(snapshot)

    def set_history(self, snapshots) -> None:
        """Append the snapshots newer than the last one recorded (the history may be thinned)."""
        if not snapshots:
            return
        last = self.buffers.last_iteration
        if snapshots[-1].iteration < last:  # a new run began without set_problem: start over
            self.buffers = _Buffers(self.buffers.keys, self.buffers.degenerate)
            self._follow_again()
            last = -1
        start = len(snapshots)
        while start > 0 and snapshots[start - 1].iteration > last:
            start -= 1
        for s in snapshots[start:]:
            self.buffers.append(s)
        self._schedule()

    def set_reference(self, rho: float | None) -> None:
        """ρ_K of the scene (None or NaN: not known)."""
        rho = None if rho is None or not math.isfinite(rho) else float(rho)
        if rho == self.rho and self._references_drawn:  # every restart says "not known" again (a Live drag: each move)
            return
        self.rho, self._references_drawn = rho, True
        self._update_references()
        self._y_ranges.clear()
        self._dirty = True
        self.flush()

    def freeze_ranges(self, snapshots) -> None:
        """Fit the axes to a whole run once and keep them there (an animation's frames share their axes)."""
        recorded = self.buffers
        self.buffers = _Buffers(recorded.keys, recorded.degenerate)
        for s in snapshots:
            self.buffers.append(s)
        self._follow_again()
        self._update_ranges()
        self.following = {g: False for g in self.plots}
        self.buffers = recorded
        self._pushed, self._dirty = -1, True
        self.flush()

    def restart_values(self) -> None:
        """Forget the recorded values but keep the axes (an animation drawn again from its first frame)."""
        self.buffers = _Buffers(self.buffers.keys, self.buffers.degenerate)
        self.shown_iteration = None
        self._pushed, self._dirty = -1, True
        self.flush()

    def highlight_point(self, index) -> None:  # curves have no points
        pass

    def apply_theme(self, theme) -> None:
        self.theme = theme
        self.layout_widget.setBackground(theme.background)
        self.title.setFont(theme.font(theme.font_pt, bold=True))
        self.title.setText("Convergence" if theme.presentation else "Convergence  (x axis: iteration k)")
        self.legend.setFont(theme.font(theme.font_pt * (0.8 if theme.presentation else 1.0)))
        self.message.setFont(theme.font())
        for g, entry in self._pool.items():  # restyled in place: a new PlotItem costs ~15 ms
            self._style_plot(g, *entry)
            _fit_axis_label(entry[0])  # the name's room at the new type size
        if self._keys == tuple(self.buffers.keys):
            self._restyle_curves()  # the same curves in the theme's pens; data and ranges stay
            self._arrange()
        else:
            self._build_plots(self.buffers.keys)
        self._dirty = True
        self.flush()

    def resizeEvent(self, ev) -> None:
        super().resizeEvent(ev)
        if ev.oldSize().width() != ev.size().width():
            self.updateGeometry()  # the legend wraps to another number of lines
        self._fit_legend()
        self._arrange()

    def minimumSizeHint(self) -> QSize:
        """Room for the title row, the legend and one row of plots at their floor (side by side if need be)."""
        hint = super().minimumSizeHint()
        if self.layout_widget.isHidden():
            return hint
        legend = self._legend_height() if self._legend_fits else 0
        return QSize(hint.width(), self._head_height() + legend + self.plot_floor())

    # -- pushing data ---------------------------------------------------------------------------------
    def _schedule(self) -> None:
        """Flush now: inside the caller's frame (paced by the session), while the solver thread is held off
        the GIL; a repaint left to a later timer would compete with the solver for the GIL."""
        self._dirty = True
        self.flush()

    def flush(self) -> None:
        """Push the buffers to the plots now (only what changed) and update the axis ranges."""
        if not self._dirty:
            return
        self._dirty = False
        b = self.buffers
        keys = b.keys
        if b.n != self._pushed:
            self._pushed = b.n
            for k, c in self.curves.items():
                if k not in keys:
                    c.setData([], [])
                    continue
                x, y = b.series(k)
                if self.log_boxes[group_of(k, keys)].isChecked():
                    y = np.where(y > 0, y, np.nan)
                c.setData(x, y, connect="finite", skipFiniteCheck=bool(np.isfinite(y).all()))
            self._mark_single(b.n == 1)
            self._mark_lonely()
            self._update_ranges()
        last = b.last_iteration
        scrubbing = self.shown_iteration is not None and 0 <= self.shown_iteration < last
        for cur in self.cursors.values():
            cur.setVisible(scrubbing)
            if scrubbing:
                cur.setValue(self.shown_iteration)

    def series(self, key: str):
        """(iterations, values) recorded for a metric (for tests and export)."""
        return self.buffers.series(key)
