"""Convergence curves: the solver's metrics against the iteration, in up to three stacked plots.

The metrics a solver reports (`metric_keys`, labelled by `percviz.core.solvers.METRICS`) are grouped
by scale: norms and other positive quantities that shrink or grow geometrically (log scale by
default), margins and objectives (signed, linear scale), and counts (training errors, mistakes).
The theoretical bound is drawn dashed next to what it bounds (the mistakes when the solver counts
them, else the norms). ρ_K, given once per scene by `set_reference`, is a dotted reference line in
the margin plot (the margin can approach it) and in the norm plot when ‖p‖_G is shown (‖p_k‖_G ≥ ρ_K).
Values are kept in growing numpy buffers and pushed to pyqtgraph at most at the display rate;
while the history is scrubbed, a vertical line marks the iteration shown.
"""

from __future__ import annotations

import math

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import Qt, QTimer, Signal
from PySide6.QtWidgets import QCheckBox, QHBoxLayout, QLabel, QVBoxLayout, QWidget

from percviz.app.theme import Theme, theme_for
from percviz.core.solvers.base import METRICS

#: Metric keys plotted with the counts (integers), and with the margins (signed, linear).
COUNT_KEYS = ("train_errors", "mistakes", "support_vectors", "outer")
SIGNED_KEYS = ("margin", "loss", "objective")
#: Groups in display order: (id, title).
GROUPS = (("norms", "Norms and criteria"), ("margins", "Margin and objective"), ("counts", "Counts"))
#: Minimum milliseconds between two pushes of the buffers to the plots.
FLUSH_MS = 33


def group_of(key: str, keys) -> str:
    """Which plot a metric goes to (see the module docstring)."""
    if key == "bound":
        return "counts" if "mistakes" in keys else "norms"
    if key in COUNT_KEYS:
        return "counts"
    if key in SIGNED_KEYS:
        return "margins"
    info = METRICS.get(key)
    return "norms" if info is None or info.log_default else "margins"


class _Buffers:
    """Iterations and metric values with amortized O(1) appends (capacity doubling)."""

    def __init__(self, keys):
        self.keys = tuple(keys)
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
        for k in self.keys:
            v = m.get(k)
            self.values[k][self.n] = np.nan if v is None else v
        self.n += 1

    def series(self, key: str):
        return self.it[: self.n], self.values[key][: self.n]


class CurvesView(QWidget):
    """Metric curves of the current run; follows the run and marks the scrubbed iteration."""

    pointHovered = Signal(int)

    def __init__(self, scene=None, parent=None, theme: Theme | None = None):
        super().__init__(parent)
        self.setObjectName("curves")
        self.setAccessibleName("curves")
        self.scene_model = scene
        self.theme = theme or theme_for()
        self.solver_cls = None
        self.rho: float | None = None
        self.shown_iteration: int | None = None
        self.buffers = _Buffers(())
        self.plots: dict[str, pg.PlotItem] = {}
        self.curves: dict[str, pg.PlotDataItem] = {}
        self.log_boxes: dict[str, QCheckBox] = {}
        self.cursors: dict[str, pg.InfiniteLine] = {}
        self.references: dict[str, pg.InfiniteLine] = {}
        self._dirty = False
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.setInterval(FLUSH_MS)
        self._timer.timeout.connect(self.flush)

        self.toolbar = QHBoxLayout()
        self.toolbar.setContentsMargins(4, 2, 4, 0)
        self.title = QLabel("Convergence")
        self.toolbar.addWidget(self.title)
        self.toolbar.addStretch(1)
        self.message = QLabel("Run an algorithm to see its convergence curves.")
        self.message.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.message.setWordWrap(True)
        self.layout_widget = pg.GraphicsLayoutWidget()
        lay = QVBoxLayout(self)
        lay.setContentsMargins(0, 0, 0, 0)
        lay.setSpacing(0)
        lay.addLayout(self.toolbar)
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
        keys = tuple(k for k in getattr(solver_cls, "metric_keys", ()) if k in METRICS) if solver_cls else ()
        if solver_cls is not self.solver_cls or keys != self.buffers.keys:
            self.solver_cls = solver_cls
            self._build_plots(keys)
        self.buffers = _Buffers(keys)
        self.shown_iteration = None
        ok, why = self.supports(solver_cls)
        if problem is None or not keys or not ok:
            self.message.setText(why or "Run an algorithm to see its convergence curves.")
            self.message.show()
            self.layout_widget.hide()
        else:
            self.message.hide()
            self.layout_widget.show()
        self._dirty = True
        self.flush()

    def set_snapshot(self, snapshot) -> None:
        """Append the snapshot if it is new; mark its iteration when it is an earlier one (scrubbing)."""
        if snapshot is None:
            return
        if snapshot.iteration > self.buffers.last_iteration:
            self.buffers.append(snapshot)
        self.shown_iteration = snapshot.iteration
        self._schedule()

    def set_history(self, snapshots) -> None:
        """Append the snapshots newer than the last one recorded (the history may be thinned)."""
        if not snapshots:
            return
        last = self.buffers.last_iteration
        if snapshots[-1].iteration < last:  # a new run began without set_problem: start over
            self.buffers = _Buffers(self.buffers.keys)
            last = -1
        start = len(snapshots)
        while start > 0 and snapshots[start - 1].iteration > last:
            start -= 1
        for s in snapshots[start:]:
            self.buffers.append(s)
        self._schedule()

    def set_reference(self, rho: float | None) -> None:
        """ρ_K of the scene (None or NaN: not known)."""
        self.rho = None if rho is None or not math.isfinite(rho) else float(rho)
        self._update_references()

    def highlight_point(self, index) -> None:  # curves have no points
        pass

    def apply_theme(self, theme) -> None:
        self.theme = theme
        self.layout_widget.setBackground(theme.background)
        self.title.setFont(theme.font(theme.font_pt, bold=True))
        self.message.setFont(theme.font())
        self._build_plots(self.buffers.keys)
        self._dirty = True
        self.flush()

    # -- plots -------------------------------------------------------------------------------------
    def _palette(self) -> list[str]:
        t = self.theme
        return [t.foreground, *t.class_colors]

    def _build_plots(self, keys) -> None:
        t = self.theme
        self.layout_widget.clear()
        for box in self.log_boxes.values():
            self.toolbar.removeWidget(box)
            box.deleteLater()
        self.plots, self.curves, self.log_boxes, self.cursors, self.references = {}, {}, {}, {}, {}
        groups = {g: [k for k in keys if group_of(k, keys) == g] for g, _ in GROUPS}
        font = t.font()
        label_style = {"color": t.foreground, "font-size": f"{t.font_pt:.0f}pt"}
        first = None
        row = 0
        for g, title in GROUPS:
            members = groups[g]
            if not members:
                continue
            p = self.layout_widget.addPlot(row=row, col=0)
            row += 1
            p.setTitle(title, color=t.foreground, size=f"{t.font_pt:.0f}pt")
            p.showGrid(x=True, y=True, alpha=0.25)
            p.setMenuEnabled(False)
            p.hideButtons()
            for name in ("left", "bottom"):
                ax = p.getAxis(name)
                ax.setPen(pg.mkPen(t.foreground, width=1))
                ax.setTextPen(pg.mkPen(t.foreground))
                ax.setTickFont(font)
            p.setLabel("bottom", "iteration k", **label_style)
            legend = p.addLegend(offset=(-10, 6), labelTextColor=t.foreground, labelTextSize=f"{t.font_pt:.0f}pt")
            legend.setBrush(pg.mkBrush(QtColor(t.background, 200)))
            if first is None:
                first = p
            else:
                p.setXLink(first)
            palette = self._palette()
            for i, k in enumerate(members):
                info = METRICS[k]
                dashed = k == "bound"
                pen = pg.mkPen(
                    palette[i % len(palette)] if not dashed else t.margin,
                    width=t.line_width, style=Qt.PenStyle.DashLine if dashed else Qt.PenStyle.SolidLine,
                )
                c = p.plot([], [], pen=pen, name=info.label, connect="finite")
                c.setDownsampling(auto=True, method="peak")
                c.setClipToView(True)
                self.curves[k] = c
            cursor = pg.InfiniteLine(angle=90, movable=False, pen=pg.mkPen(t.highlight, width=t.thin_line_width))
            cursor.setZValue(50)
            cursor.hide()
            p.addItem(cursor, ignoreBounds=True)
            self.cursors[g] = cursor
            if g == "margins" or (g == "norms" and "p_g_norm" in members):
                ref_pen = pg.mkPen(t.foreground, width=t.thin_line_width * 1.3, style=Qt.PenStyle.DotLine)
                ref = pg.InfiniteLine(angle=0, movable=False, pen=ref_pen)
                ref.hide()
                p.addItem(ref)
                ref.legend_proxy = pg.PlotDataItem([], [], pen=ref_pen)  # the legend entry "ρ_K = …"
                ref.legend = legend
                self.references[g] = ref
            box = QCheckBox(f"log {title.split()[0].lower()}")
            box.setAccessibleName(f"log scale {g}")
            box.setToolTip(f"Logarithmic y axis for the plot '{title}'")
            box.setChecked(all(METRICS[k].log_default for k in members if k != "bound") and g == "norms")
            box.toggled.connect(lambda on, g=g: self._set_log(g, on))
            self.toolbar.addWidget(box)
            self.log_boxes[g] = box
            self.plots[g] = p
            p.setLogMode(y=box.isChecked())
        self._update_references()

    def _set_log(self, group: str, on: bool) -> None:
        self.plots[group].setLogMode(y=on)
        self._update_references()
        self._dirty = True
        self.flush()

    def _update_references(self) -> None:
        for g, ref in self.references.items():
            rho = self.rho
            if rho is None or (self.log_boxes[g].isChecked() and rho <= 0):
                ref.hide()
                ref.legend.removeItem(ref.legend_proxy)
                continue
            ref.setValue(math.log10(rho) if self.log_boxes[g].isChecked() else rho)
            ref.legend.removeItem(ref.legend_proxy)
            ref.legend.addItem(ref.legend_proxy, f"ρ_K = {rho:.3g}")
            ref.show()

    # -- pushing data ---------------------------------------------------------------------------------
    def _schedule(self) -> None:
        self._dirty = True
        if not self._timer.isActive():
            self._timer.start()

    def flush(self) -> None:
        """Push the buffers to the plots now."""
        if not self._dirty:
            return
        self._dirty = False
        b = self.buffers
        keys = b.keys
        for k, c in self.curves.items():
            if k not in keys:
                c.setData([], [])
                continue
            x, y = b.series(k)
            if self.log_boxes[group_of(k, keys)].isChecked():
                y = np.where(y > 0, y, np.nan)
            c.setData(x, y, connect="finite")
        last = b.last_iteration
        scrubbing = self.shown_iteration is not None and 0 <= self.shown_iteration < last
        for cur in self.cursors.values():
            cur.setVisible(scrubbing)
            if scrubbing:
                cur.setValue(self.shown_iteration)

    def series(self, key: str):
        """(iterations, values) recorded for a metric (for tests and export)."""
        return self.buffers.series(key)


def QtColor(spec: str, alpha: int):
    from PySide6.QtGui import QColor

    c = QColor(spec)
    c.setAlpha(alpha)
    return c
