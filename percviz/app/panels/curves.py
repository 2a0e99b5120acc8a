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

import html
import math

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QSize, Qt, Signal
from PySide6.QtGui import QFontMetrics, QFontMetricsF, QPainter
from PySide6.QtWidgets import QCheckBox, QHBoxLayout, QLabel, QSizePolicy, QVBoxLayout, QWidget

from percviz.app.panels.panel import Panel
from percviz.app.theme import Theme, theme_for
from percviz.core.glossary import MARGINS, degenerate_note, margin_term
from percviz.core.solvers.base import METRICS

#: Groups in display order: (id, title).
GROUPS = (("norms", "Norms, criteria"), ("margins", "Margin"), ("counts", "Counts"))
#: Legend labels shorter than METRICS' where those are long.
SHORT_LABELS = {"bound": "bound", "margin": "margin", "train_errors": "errors", "support_vectors": "support vectors"}
#: A bound more than this many times above the curves it bounds is left out of a linear plot's range.
OFF_SCALE = 20.0
#: A plot's y axis is at least this many tick-label lines tall (two labels a line apart: _DecadeAxis).
PLOT_FLOOR_LINES = 4.5
#: The y range is re-fitted when the data fill less than this fraction of it.
MIN_FILL = 0.45


def nice_ceil(v: float) -> float:
    """The smallest of 1, 1.2, 1.5, 2, 2.5, 3, 4, 5, 6, 8 × 10^k that is ≥ v (v > 0)."""
    if not v > 0:
        return 1.0
    e = math.floor(math.log10(v))
    for m in (1, 1.2, 1.5, 2, 2.5, 3, 4, 5, 6, 8, 10):
        if m * 10.0**e >= v * (1 - 1e-12):
            return m * 10.0**e
    return 10.0 ** (e + 1)


def fit_range(current, lo: float, hi: float, log: bool) -> tuple[float, float]:
    """A y range containing [lo, hi]: `current` when it still fits well, else [lo, hi] with some room."""
    if current is not None:
        a, b = current
        if a <= lo and hi <= b and (hi - lo) >= MIN_FILL * (b - a):
            return current
    span = hi - lo
    if span <= 0:
        pad = 0.5 if log else max(0.1 * abs(hi), 0.5)
        return lo - pad, hi + pad
    return lo - 0.08 * span, hi + 0.08 * span


def group_of(key: str, keys) -> str:
    """Which plot a metric goes to: its declared `MetricInfo.group` (a bound goes with what it bounds)."""
    group = METRICS[key].group
    if group == "bound":
        return "counts" if "mistakes" in keys else "norms"
    return group


class _Buffers:
    """Iterations and metric values with amortized O(1) appends (capacity doubling)."""

    def __init__(self, keys, degenerate=None):
        self.keys = tuple(keys)
        self.degenerate = degenerate  # metrics → True when the margin is undefined (glossary.degenerate_note)
        self.n = 0
        self.it = np.empty(256)
        self.values = {k: np.empty(256) for k in self.keys}

    @property
    def last_iteration(self) -> int:
        return int(self.it[self.n - 1]) if self.n else -1

    def append(self, snap) -> None:
        if self.n == len(self.it):
            self.it = np.concatenate([self.it, np.empty(self.n)])
            self.values = {k: np.concatenate([v, np.empty(self.n)]) for k, v in self.values.items()}
        self.it[self.n] = snap.iteration
        m = snap.metrics
        # an SVM with w = 0 has no margin (1/‖w‖ would read 1e8): the curve has a gap there
        no_margin = self.degenerate is not None and self.degenerate(dict(m))
        for k in self.keys:
            v = None if (k == "margin" and no_margin) else m.get(k)
            self.values[k][self.n] = np.nan if v is None else v
        self.n += 1

    def series(self, key: str):
        return self.it[: self.n], self.values[key][: self.n]


def _show_as_dots(curve) -> None:
    """Dots of the curve's own colour at its values: what shows a curve that has no segment to draw."""
    colour = curve.opts["pen"].color() if hasattr(curve.opts["pen"], "color") else "w"
    style = {"symbol": "o", "symbolSize": 7, "symbolPen": pg.mkPen(colour), "symbolBrush": pg.mkBrush(colour)}
    if any(curve.opts[k] != v for k, v in style.items()):  # one restyle (the four setters restyled four times)
        curve.opts.update(style)
        curve.updateItems(styleUpdate=True)


class CurvesView(QWidget, Panel):
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
        if "curves" not in getattr(solver_cls, "views", ("curves",)) or not getattr(solver_cls, "metric_keys", ()):
            return False, f"{solver_cls.display_name} reports no convergence metrics."
        return True, ""

    def set_problem(self, problem, solver_cls) -> None:
        """A new run: empty the buffers; rebuild the plots when the algorithm reports other metrics."""
        self._problem = problem
        keys = tuple(k for k in getattr(solver_cls, "metric_keys", ()) if k in METRICS) if solver_cls else ()
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
        for g, entry in getattr(self, "_pool", {}).items():  # restyled in place: a new PlotItem costs ~15 ms
            self._style_plot(g, *entry)
            _fit_axis_label(entry[0])  # the name's room at the new type size
        self._build_plots(self.buffers.keys)  # new curves in the theme's pens
        self._dirty = True
        self.flush()

    # -- plots -------------------------------------------------------------------------------------
    def _palette(self) -> list[str]:
        t = self.theme
        return [t.foreground, *t.class_colors]

    def _build_plots(self, keys) -> None:
        """One plot per metric group of keys. A group's plot, axes, cursor, reference line and log box are kept
        for the next algorithm that has the group, and for a new theme (restyled: `_style_plot`); building a
        PlotItem costs ~15 ms, three per algorithm change were the soak's worst stall. Only its curves are new;
        the layout is only rebuilt when the plots shown change."""
        t = self.theme
        pool = getattr(self, "_pool", {})
        self._pool = pool
        for k, g in getattr(self, "_curve_group", {}).items():  # the last algorithm's curves leave their plots
            if g in pool and k in self.curves:
                pool[g][0].removeItem(self.curves[k])
        for box in self.log_boxes.values():
            box.hide()
        self.plots, self.curves, self.log_boxes, self.cursors, self.references = {}, {}, {}, {}, {}
        self._references_drawn = False
        self._curve_group: dict = {}
        self._keys = tuple(keys)
        self._y_ranges, self._x_max, self._pushed, self.off_scale = {}, None, -1, {}
        self._blank_ranges = set()
        self._single = False  # new curves have no dots yet: a lone first value gets them again (a theme change)
        groups = {g: [k for k in keys if group_of(k, keys) == g] for g, _ in GROUPS}
        palette = self._palette()
        solid = [k for k in keys if k != "bound"]
        self.colors = {k: palette[i % len(palette)] for i, k in enumerate(solid)}
        # a colour used twice is told apart by its line style (and its legend mark)
        self._styles = {k: Qt.PenStyle.SolidLine if i < len(palette) else Qt.PenStyle.DashDotLine
                        for i, k in enumerate(solid)}
        self.colors["bound"], self._styles["bound"] = t.margin, Qt.PenStyle.DashLine
        first = None
        for g, title in GROUPS:
            members = groups[g]
            if not members:
                continue
            if g not in pool:
                pool[g] = self._new_plot(g, title)
            p, cursor, ref, box = pool[g]
            linked = p.vb.linkedView(p.vb.XAxis)
            if first is None:
                first = p
                if linked is not None:
                    p.setXLink(None)
            elif linked is not first.vb:  # (re-linking a linked plot costs ~3 ms of range signals)
                p.setXLink(first)
            for k in members:
                pen = pg.mkPen(self.colors[k], width=t.line_width, style=self._styles[k])
                c = p.plot([], [], pen=pen, connect="finite")
                c.setDownsampling(auto=True, method="peak")
                c.opts["autoDownsampleFactor"] = 1.0  # min and max per pixel column (pyqtgraph's 5 draws 10)
                c.setClipToView(True)
                self.curves[k] = c
                self._curve_group[k] = g
            cursor.hide()
            self.cursors[g] = cursor
            ref.hide()
            if g == "margins" or (g == "norms" and "p_g_norm" in members):
                self.references[g] = ref
            default = g == "norms" and any(METRICS[k].log_default for k in members if k != "bound")
            box.blockSignals(True)
            box.setChecked(self._log_choice.get(g, default))  # a choice made by hand survives rebuilds
            box.blockSignals(False)
            box.show()
            self.log_boxes[g] = box
            self.plots[g] = p
            p.setLogMode(y=box.isChecked())
            p.vb.disableAutoRange()  # setLogMode turns pyqtgraph's auto-range back on
        self._arrange()
        self._update_references()

    def _new_plot(self, g: str, title: str):
        """A group's plot with its axes, cursor line, reference line and log box (kept in the pool)."""
        p = pg.PlotItem(axisItems={"left": _DecadeAxis("left"), "bottom": _IterationAxis("bottom")})
        p.showGrid(x=False, y=False)
        p.setMenuEnabled(False)
        p.hideButtons()
        p.vb.disableAutoRange()
        p.vb.sigRangeChangedManually.connect(lambda *_, g=g: self.following.__setitem__(g, False))
        for name in ("left", "bottom"):
            p.getAxis(name).enableAutoSIPrefix(False)
        cursor = pg.InfiniteLine(angle=90, movable=False)
        cursor.setZValue(50)
        cursor.hide()
        p.addItem(cursor, ignoreBounds=True)
        ref = pg.InfiniteLine(angle=0, movable=False)
        ref.hide()
        p.addItem(ref, ignoreBounds=True)
        box = QCheckBox(f"log {title.split(',')[0].lower()}")
        box.setAccessibleName(f"log scale {g}")
        box.setToolTip(f"Logarithmic y axis for the plot '{title}'")
        box.toggled.connect(lambda on, g=g: self._set_log(g, on))
        self.box_row.addWidget(box, 0, Qt.AlignmentFlag.AlignTop)
        box.hide()
        p.vb.sigResized.connect(lambda *_, p=p: _fit_axis_label(p))
        self._style_plot(g, p, cursor, ref, box)
        return p, cursor, ref, box

    def _style_plot(self, g: str, p, cursor, ref, box) -> None:
        """A group's plot in the current theme: axes, their name, the cursor and reference lines, the log box."""
        t = self.theme
        font = t.font()
        label_style = {"color": t.foreground, "font-size": f"{t.font_pt:.0f}pt"}
        t.style_axes([p.getAxis("left"), p.getAxis("bottom")])
        title = dict(GROUPS)[g]
        p.setLabel("left", title.split(",")[0].lower(), **label_style)  # the x axis is named in the title row
        cursor.setPen(pg.mkPen(t.highlight, width=t.thin_line_width))
        ref.setPen(pg.mkPen(t.foreground, width=t.thin_line_width * 1.3, style=Qt.PenStyle.DotLine))
        box.setFont(font)

    def resizeEvent(self, ev) -> None:
        super().resizeEvent(ev)
        if ev.oldSize().width() != ev.size().width():
            self.updateGeometry()  # the legend wraps to another number of lines
        self._fit_legend()
        self._arrange()

    def plot_floor(self) -> int:
        """The least height of a plot: PLOT_FLOOR_LINES tick-label lines and the iteration axis under them."""
        line = QFontMetricsF(self.theme.font()).height()
        axis = max((p.getAxis("bottom").height() for p in self.plots.values()), default=2 * line)
        return math.ceil(PLOT_FLOOR_LINES * line + axis + 12)

    def minimumSizeHint(self) -> QSize:
        """Room for the title row, the legend and one row of plots at their floor (side by side if need be)."""
        hint = super().minimumSizeHint()
        if self.layout_widget.isHidden():
            return hint
        legend = self._legend_height() if self._legend_fits else 0
        return QSize(hint.width(), self._head_height() + legend + self.plot_floor())

    def _head_height(self) -> int:
        return max(self.title.sizeHint().height(), *(b.sizeHint().height() for b in self.log_boxes.values()), 0)

    def _legend_height(self) -> int:
        return max(0, self.legend.heightForWidth(max(1, self.width()))) if self.legend.text() else 0

    def _fit_legend(self, again: bool = False) -> None:
        """The legend only where the panel can hold it and its plots at their floor in half the column (at 3× in
        1280×800 its 4 lines left the plots a 10 px strip); then the title row's tooltip names the curves."""
        parent = self.parentWidget()
        budget = 0.5 * parent.height() if parent is not None and parent.height() > 0 else math.inf
        fits = self._head_height() + self._legend_height() + self.plot_floor() <= budget
        if fits != self._legend_fits or again:
            self._legend_fits = fits
            self.legend.setVisible(fits)
            self.title.setToolTip(self.legend.toolTip() if not fits else "Metrics of the run against the iteration k")
            self.updateGeometry()

    def _arrange(self) -> None:
        """Stack the plots in a column, or side by side when the panel is much wider than tall or too short to give
        each plot its floor (a lecturer reads two labelled y values on every plot)."""
        shown = list(self.plots.values())
        room = self.layout_widget.height() if self.layout_widget.isVisible() else self.height()
        wide = self.width() > 2.2 * max(1, self.height()) or room < len(shown) * self.plot_floor()
        if wide == getattr(self, "_wide", None) and shown == getattr(self, "_arranged", None):
            return  # the same plots in the same places: re-adding them cost a layout pass (~5 ms a plot)
        self._wide, self._arranged = wide, shown
        ci = self.layout_widget.ci
        for p in list(ci.items):
            ci.removeItem(p)
        for i, p in enumerate(shown):
            ci.addItem(p, row=0 if wide else i, col=i if wide else 0)

    def _set_log(self, group: str, on: bool) -> None:
        self._log_choice[group] = on
        self.plots[group].setLogMode(y=on)
        self.plots[group].vb.disableAutoRange()
        self._y_ranges.pop(group, None)
        self.following[group] = True
        self._pushed = -1
        self._update_references()
        self._dirty = True
        self.flush()

    def _follow_again(self) -> None:
        """Axis ranges follow the data again (after a pan or zoom by hand)."""
        self.following = {g: True for g in self.plots}
        self._y_ranges, self._x_max, self._pushed = {}, None, -1
        self._blank_ranges = set()

    def _update_references(self) -> None:
        for g, ref in self.references.items():
            rho = self.rho
            if rho is None or (self.log_boxes[g].isChecked() and rho <= 0):
                ref.hide()
                continue
            ref.setValue(math.log10(rho) if self.log_boxes[g].isChecked() else rho)
            ref.show()
        self._update_legend()

    def _update_legend(self) -> None:
        """One wrapping line naming every curve in its colour (dashed: the bound; dotted: ρ_K), plot by plot."""
        keys = self._keys
        groups = []
        rho_named = False
        for g, title in GROUPS:
            if g not in self.plots:
                continue
            entries = []
            for k in self.curves:
                if group_of(k, keys) != g:
                    continue
                mark = _MARKS[self._styles[k]]
                label = self._label(k)
                if k == "bound" and self.off_scale.get(g) is not None:
                    label += " (far above the plot)"
                entries.append(f"<span style='color:{self.colors[k]}'>{mark}&nbsp;{_nb(label)}</span>")
            ref = self.references.get(g)
            if ref is not None and ref.isVisible() and self.rho is not None:
                entries.append(_nb("┈ ρ_K" if rho_named else f"┈ ρ_K = {self.rho:.3g}"))
                rho_named = True
            groups.append(f"<b>{_nb(title.split(',')[0])}:</b>&nbsp;" + "&nbsp;&nbsp; ".join(entries))
        self.legend.setText("&nbsp;&nbsp;&nbsp;&nbsp; ".join(groups))
        tips = [f"<b>{html.escape(self._label(k))}</b>: {html.escape(self._help(k))}" for k in self.curves]
        if self.rho is not None:
            tips.append(f"<b>┈ ρ_K</b>: {html.escape(MARGINS['rho'].tooltip)}")
        self.legend.setToolTip("<br>".join(tips))
        self._fit_legend(again=True)  # its lines count in the panel's least height

    def _label(self, key: str) -> str:
        """A curve's name in the legend; the margin says which margin it is (core.glossary)."""
        if key == "margin":
            return margin_term(self.solver_cls).short
        return SHORT_LABELS.get(key, METRICS[key].label)

    def _help(self, key: str) -> str:
        return margin_term(self.solver_cls).tooltip if key == "margin" else METRICS[key].help

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

    def _mark_single(self, single: bool) -> None:
        """A lone value (iteration 0) has no line to draw: show it as a dot until a second one arrives."""
        if single == getattr(self, "_single", False):
            return
        self._single = single
        for c in self.curves.values():
            if single:
                _show_as_dots(c)
            else:
                c.setSymbol(None)

    def _mark_lonely(self) -> None:
        """A curve with values but no two finite ones in a row (the margin is undefined at α = 0) has no segment
        to draw either: it keeps its dots, so every plot shows something from the first step."""
        if getattr(self, "_single", False):
            return
        for k, c in self.curves.items():
            if k not in self.buffers.keys:
                continue
            y = self.buffers.series(k)[1]
            if self.log_boxes[group_of(k, self.buffers.keys)].isChecked():
                y = np.where(y > 0, y, np.nan)
            ok = np.isfinite(y)
            lonely = bool(ok.any()) and not bool((ok[1:] & ok[:-1]).any())
            if lonely:
                _show_as_dots(c)
            elif c.opts.get("symbol") is not None:
                c.setSymbol(None)

    def _update_ranges(self) -> None:
        """Axis ranges in steps: most frames leave them (and the cached axes and grids) as they are."""
        b = self.buffers
        if not self.plots:
            return
        x_max = nice_ceil(max(b.last_iteration, 1))
        first = next(iter(self.plots.values()))  # the others are linked to its x axis
        if x_max != self._x_max and all(self.following.get(g, True) for g in self.plots):
            first.vb.setXRange(0, x_max, padding=0.02)  # room for the labels of the first and last ticks
        for g, p in self.plots.items():
            if not self.following.get(g, True):
                continue
            span = self._y_span(g)
            if span is None:  # nothing to show yet (an SVM's margin at iteration 0): not the last scene's range
                if g not in self._y_ranges and g not in self._blank_ranges:
                    self._blank_ranges.add(g)
                    p.vb.setYRange(0.0, 1.0, padding=0.02)
                continue
            self._blank_ranges.discard(g)
            rng = fit_range(self._y_ranges.get(g), *span, self.log_boxes[g].isChecked())
            if rng != self._y_ranges.get(g):
                self._y_ranges[g] = rng
                p.vb.setYRange(*rng, padding=0.02)
        self._x_max = x_max

    def _y_span(self, g: str):
        """(lo, hi) of the group's finite values (log10 on a log axis) and its reference line; None if empty.

        On a linear axis a bound far above the curves it bounds (OFF_SCALE times their largest value) is
        left out of the range, so they stay readable; the legend says so (the log toggle shows it)."""
        log = self.log_boxes[g].isChecked()
        spans = {}
        for k in self.curves:
            if group_of(k, self._keys) != g or k not in self.buffers.keys:
                continue
            y = self.buffers.series(k)[1]
            if log:
                y = y[y > 0]
                y = np.log10(y) if len(y) else y
            y = y[np.isfinite(y)]
            if len(y):
                spans[k] = (float(y.min()), float(y.max()))
        off = None
        rest = [v for k, v in spans.items() if k != "bound"]
        if not log and "bound" in spans and rest:
            top = max(max(abs(a), abs(b)) for a, b in rest)
            if spans["bound"][0] > OFF_SCALE * max(top, 1.0):
                off = spans.pop("bound")[0]
        changed = (off is None) != (self.off_scale.get(g) is None)
        self.off_scale[g] = off
        if changed:
            self._update_legend()
        if not spans:
            return None
        lo, hi = min(a for a, _ in spans.values()), max(b for _, b in spans.values())
        ref = self.references.get(g)
        if ref is not None and ref.isVisible():
            lo, hi = min(lo, ref.value()), max(hi, ref.value())
        return lo, hi

    def series(self, key: str):
        """(iterations, values) recorded for a metric (for tests and export)."""
        return self.buffers.series(key)


class _WholeLabel(QLabel):
    """A one-line label that shows its text, or its part before a double space, only whole (never "Converge…")."""

    @property
    def shown_text(self) -> str:
        fm = QFontMetrics(self.font())
        return next((t for t in (self.text(), self.text().split("  ")[0]) if fm.horizontalAdvance(t) <= self.width()), "")

    def paintEvent(self, event) -> None:
        painter = QPainter(self)
        painter.setFont(self.font())
        painter.setPen(self.palette().color(self.foregroundRole()))
        painter.drawText(self.rect(), int(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter), self.shown_text)
        painter.end()


def _fit_axis_label(p: pg.PlotItem) -> None:
    """The y axis's name only where the plot is tall enough for it (the legend names every plot anyway):
    a short plot at a projector's font showed 'margi' and 'count'."""
    ax = p.getAxis("left")
    if not ax.labelText:
        return
    need = QFontMetricsF(ax.label.font()).horizontalAdvance(ax.labelText) + 6
    fits = p.vb.height() >= need
    if fits != ax.label.isVisible():
        p.showLabel("left", fits)


_MARKS = {Qt.PenStyle.SolidLine: "━", Qt.PenStyle.DashLine: "┅", Qt.PenStyle.DashDotLine: "-·-"}


def _nb(text: str) -> str:
    """HTML-escaped text whose spaces never break a line (the legend wraps between entries only)."""
    return html.escape(text).replace(" ", "&nbsp;")


def _ticks_in(step: float, lo: float, hi: float) -> int:
    """How many multiples of step lie in [lo, hi]."""
    return max(0, math.floor(hi / step + 1e-9) - math.ceil(lo / step - 1e-9) + 1)


class _DecadeAxis(pg.AxisItem):
    """Log axes labelled at the decades (or at 1, 2, 5 × 10^k on short ranges), never crowded; on a linear axis
    the labels are at least 1.25 lines apart (a short plot at a projector's font piled 0, 0.2, …, 1.0 up)."""

    def tickSpacing(self, minVal, maxVal, size):
        levels = super().tickSpacing(minVal, maxVal, size)
        dif = maxVal - minVal
        if self.logMode or not levels or dif <= 0 or size <= 0 or self.orientation not in ("left", "right"):
            return levels
        line = QFontMetricsF(self.style.get("tickFont") or self.font()).height()
        major, steps = levels[0][0], 0
        while major / dif * size < 1.25 * line and steps < 12:  # the next of 1, 2, 5 × 10^k
            mantissa = major / 10 ** math.floor(math.log10(major))
            major *= 2.5 if round(mantissa) == 2 else 2.0
            steps += 1
        # a short plot: the coarsest of 1, 2, 2.5, 5 × 10^k that still labels two values (they are then more
        # than size/4 apart: a line at least on a plot PLOT_FLOOR_LINES lines tall)
        while _ticks_in(major, minVal, maxVal) < 2 and major > dif * 1e-6:
            mantissa = round(major / 10 ** math.floor(math.log10(major)), 6)
            major /= 1.25 if mantissa == 2.5 else 2.0
            steps += 1
        return levels if steps == 0 else [(major, 0.0)]

    def logTickValues(self, minVal, maxVal, size, stdTicks):
        decades = list(range(math.ceil(minVal), math.floor(maxVal) + 1))
        if len(decades) >= 2:
            step = max(1, math.ceil(len(decades) / max(2.0, size / 30.0)))
            return [(float(step), [float(d) for d in decades[::step]])]
        # less than two decades in view: 1, 2 and 5 times the powers of ten
        values = [
            d + math.log10(m) for d in range(math.floor(minVal), math.ceil(maxVal) + 1) for m in (1, 2, 5)
            if minVal <= d + math.log10(m) <= maxVal
        ]
        if len(values) < 2 and maxVal > minVal:
            # a narrow range (e.g. 0.31…0.33): evenly spaced round values, so the axis is never bare
            lo, hi = 10.0**minVal, 10.0**maxVal
            mag = 10.0 ** math.floor(math.log10((hi - lo) / 3))
            # the coarsest of 10, 5, 2, 1 × mag that labels two values (5 alone labelled only "5" on 2.75…9.75)
            for step in (10 * mag, 5 * mag, 2 * mag, mag, mag / 2):
                values = [math.log10(v) for v in np.arange(math.ceil(lo / step) * step, hi + step * 1e-9, step) if v > 0]
                if len(values) >= 2:
                    break
        return [(None, values)]

    def tickStrings(self, values, scale, spacing):
        if self.logMode and any(float(v) != round(float(v)) for v in values):  # not decades: '0.32', not '0.3'
            out = []
            for v in values:
                x = 10.0 ** float(v)
                out.append(f"{x:.3g}" if 1e-3 <= abs(x) < 1e4 else f"{x:.0e}".replace("e-0", "e-").replace("e+0", "e"))
            return out
        return super().tickStrings(values, scale, spacing)


#: The decade axis for other log–log plots (the margin sweep).
DecadeAxis = _DecadeAxis


class _IterationAxis(pg.AxisItem):
    """Iteration counts as 20k, 1.5M, and major ticks far enough apart for their labels: five digits at a
    projector's font ran into each other on a narrow plot's axis."""

    def tickSpacing(self, minVal, maxVal, size):
        levels = super().tickSpacing(minVal, maxVal, size)
        dif = maxVal - minVal
        if not levels or dif <= 0 or size <= 0:
            return levels
        # iterations are whole numbers: no tick between two of them (never 0.2, 0.4, …)
        levels = [(max(1.0, step), offset) for step, offset in levels if step >= 1.0] or [(1.0, 0.0)]
        major = levels[0][0]
        metrics = QFontMetricsF(self.style.get("tickFont") or self.font())

        def room(step: float) -> float:  # the widest label at this step, and some space
            top = math.floor(max(abs(minVal), abs(maxVal)) / step) * step
            return 1.3 * metrics.horizontalAdvance(self.tickStrings([top], 1, step)[0])

        steps = 0
        while major / dif * size < room(major) and steps < 12:  # the next of 1, 2, 5 × 10^k
            mantissa = major / 10 ** math.floor(math.log10(major))
            major *= 2.5 if round(mantissa) == 2 else 2.0
            steps += 1
        return levels if steps == 0 else [(major, 0.0), (major / 5, 0.0)]

    def tickStrings(self, values, scale, spacing):
        out = []
        for v in values:
            v = float(v) * scale
            if abs(v) >= 1e6 and spacing * scale >= 1e5:
                out.append(f"{v / 1e6:g}M")
            elif abs(v) >= 1e3 and spacing * scale >= 1e3:  # "5k": a narrow plot at 3× had room for no "5000"
                out.append(f"{v / 1e3:g}k")
            else:
                out.append(f"{v:g}")
        return out
