"""Convergence curves: the solver's metrics against the iteration, in up to three stacked plots.

The metrics a solver reports (`metric_keys`, labelled by `percviz.core.solvers.METRICS`) are grouped
by scale: norms, criteria and other positive quantities that shrink or grow geometrically (log scale
by default when one of them is declared log-scaled), margins, L(α) and objectives (signed, linear),
and counts (training errors, mistakes, support vectors).
The theoretical bound is drawn dashed next to what it bounds (the mistakes when the solver counts
them, else the norms). ρ_K, given once per scene by `set_reference`, is a dotted reference line in
the margin plot (the margin can approach it) and in the norm plot when ‖p‖_G is shown (‖p_k‖_G ≥ ρ_K).
Values are kept in growing numpy buffers and pushed to pyqtgraph at most at the display rate;
while the history is scrubbed, a vertical line marks the iteration shown.
"""

from __future__ import annotations

import html
import math

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import Qt, QTimer, Signal
from PySide6.QtWidgets import QCheckBox, QGraphicsItem, QHBoxLayout, QLabel, QVBoxLayout, QWidget

from percviz.app.theme import Theme, theme_for
from percviz.core.solvers.base import METRICS

#: Metric keys plotted with the counts (integers), and with the margins (signed, linear).
COUNT_KEYS = ("train_errors", "mistakes", "support_vectors", "outer")
SIGNED_KEYS = ("margin", "loss", "objective")
#: Groups in display order: (id, title).
GROUPS = (("norms", "Norms, criteria"), ("margins", "Margin"), ("counts", "Counts"))
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
    return "norms"  # norms, criteria J ≥ 0, step sizes: positive, often spanning decades


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
        self._log_choice: dict[str, bool] = {}
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
        self._keys = tuple(keys)
        groups = {g: [k for k in keys if group_of(k, keys) == g] for g, _ in GROUPS}
        font = t.font()
        label_style = {"color": t.foreground, "font-size": f"{t.font_pt:.0f}pt"}
        first = None
        for g, title in GROUPS:
            members = groups[g]
            if not members:
                continue
            p = pg.PlotItem(axisItems={"left": _DecadeAxis("left")})
            _shrinkable(p.titleLabel)
            p.showGrid(x=True, y=True, alpha=0.25)
            p.setMenuEnabled(False)
            p.hideButtons()
            for name in ("left", "bottom"):
                ax = p.getAxis(name)
                ax.setPen(pg.mkPen(t.foreground, width=1))
                ax.setTextPen(pg.mkPen(t.foreground))
                ax.setTickFont(font)
            p.setLabel("bottom", "iteration k", **label_style)
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
                self.references[g] = ref
            box = QCheckBox(f"log {title.split(',')[0].lower()}")
            box.setAccessibleName(f"log scale {g}")
            box.setToolTip(f"Logarithmic y axis for the plot '{title}'")
            default = g == "norms" and any(METRICS[k].log_default for k in members if k != "bound")
            box.setChecked(self._log_choice.get(g, default))  # a choice made by hand survives rebuilds
            box.toggled.connect(lambda on, g=g: self._set_log(g, on))
            self.toolbar.addWidget(box)
            self.log_boxes[g] = box
            self.plots[g] = p
            p.setLogMode(y=box.isChecked())
        self._wide = None
        self._arrange()
        self._update_references()

    def resizeEvent(self, ev) -> None:
        super().resizeEvent(ev)
        self._arrange()

    def _arrange(self) -> None:
        """Stack the plots in a column, or side by side when the panel is much wider than tall."""
        wide = self.width() > 2.2 * max(1, self.height())
        if wide == getattr(self, "_wide", None):
            return
        self._wide = wide
        ci = self.layout_widget.ci
        for p in self.plots.values():
            if p in ci.items:
                ci.removeItem(p)
        for i, p in enumerate(self.plots.values()):
            ci.addItem(p, row=0 if wide else i, col=i if wide else 0)

    def _set_log(self, group: str, on: bool) -> None:
        self._log_choice[group] = on
        self.plots[group].setLogMode(y=on)
        self._update_references()
        self._dirty = True
        self.flush()

    def _update_references(self) -> None:
        for g, ref in self.references.items():
            rho = self.rho
            if rho is None or (self.log_boxes[g].isChecked() and rho <= 0):
                ref.hide()
                continue
            ref.setValue(math.log10(rho) if self.log_boxes[g].isChecked() else rho)
            ref.show()
        self._update_titles()

    def _update_titles(self) -> None:
        """Each plot's title names its curves in their colours (a legend that never hides the data)."""
        t = self.theme
        keys = self._keys
        for g, p in self.plots.items():
            parts = [f"<b>{dict(GROUPS)[g]}</b>"]
            for k, c in self.curves.items():
                if group_of(k, keys) != g:
                    continue
                col = c.opts["pen"].color().name()
                mark = "┅" if k == "bound" else "━"
                label = "bound" if k == "bound" else METRICS[k].label
                parts.append(f"<span style='color:{col}'>{mark}&nbsp;{html.escape(label).replace(' ', '&nbsp;')}</span>")
            ref = self.references.get(g)
            if ref is not None and ref.isVisible() and self.rho is not None:
                parts.append(f"┈&nbsp;ρ_K&nbsp;=&nbsp;{self.rho:.3g}")
            p.setTitle("&nbsp;&nbsp; ".join(parts), color=t.foreground, size=f"{t.font_pt:.0f}pt", justify="left")


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


class _DecadeAxis(pg.AxisItem):
    """Log axes labelled at the decades (or at 1, 2, 5 × 10^k on short ranges), never crowded."""

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
        return [(None, values)]


def _shrinkable(label) -> None:
    """Let a plot be narrower than its title (the title is clipped; the plots stay in view)."""
    original = label.updateMin

    def update_min():
        original()
        label.setMinimumWidth(0)
        for hint in (Qt.SizeHint.MinimumSize, Qt.SizeHint.PreferredSize):
            label._sizeHint[hint] = (0, label._sizeHint[hint][1])
        label.updateGeometry()

    label.updateMin = update_min
    label.setFlag(QGraphicsItem.GraphicsItemFlag.ItemClipsChildrenToShape, True)
