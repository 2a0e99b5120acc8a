"""The curves' plots: one PlotItem per metric group, kept and restyled in place, their ranges and marks."""

from __future__ import annotations

import math

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import Qt
from PySide6.QtGui import QFontMetricsF
from PySide6.QtWidgets import QCheckBox

from percviz.app.panels.curves.axes import _DecadeAxis, _fit_axis_label, _IterationAxis
from percviz.app.panels.curves.ranges import (
    GROUPS,
    OFF_SCALE,
    PLOT_FLOOR_LINES,
    _show_as_dots,
    fit_range,
    group_of,
    nice_ceil,
)
from percviz.core.solvers.base import METRICS


class CurvesPlots:
    """Builds, styles and ranges the plots of the metric groups."""

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
        pool = self._pool
        for k, g in self._curve_group.items():  # the last algorithm's curves leave their plots
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
        self._curve_styles(keys)
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

    def _curve_styles(self, keys) -> None:
        """Each curve's colour and line style in the current theme (colours unique across the plots)."""
        t = self.theme
        palette = self._palette()
        solid = [k for k in keys if k != "bound"]
        self.colors = {k: palette[i % len(palette)] for i, k in enumerate(solid)}
        # a colour used twice is told apart by its line style (and its legend mark)
        self._styles = {k: Qt.PenStyle.SolidLine if i < len(palette) else Qt.PenStyle.DashDotLine
                        for i, k in enumerate(solid)}
        self.colors["bound"], self._styles["bound"] = t.margin, Qt.PenStyle.DashLine

    def _restyle_curves(self) -> None:
        """The curves shown, in the theme's pens, in place: their data, ranges and plots stay (a theme or scale
        change rebuilt them all, and pushed every value again)."""
        t = self.theme
        self._curve_styles(self._keys)
        for k, c in self.curves.items():
            c.setPen(pg.mkPen(self.colors[k], width=t.line_width, style=self._styles[k]))
            if c.opts.get("symbol") is not None:
                _show_as_dots(c)  # a lone value's dots take the new colour
        self._update_legend()

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
        sheet = t.field_style_sheet("check")  # as Theme.style_fields gives the window's: a box made later needs it too
        box.setProperty("base_style", sheet)
        box.setStyleSheet(sheet)

    def plot_floor(self) -> int:
        """The least height of a plot: PLOT_FLOOR_LINES tick-label lines and the iteration axis under them."""
        line = QFontMetricsF(self.theme.font()).height()
        axis = max((p.getAxis("bottom").height() for p in self.plots.values()), default=2 * line)
        return math.ceil(PLOT_FLOOR_LINES * line + axis + 12)

    def _arrange(self) -> None:
        """Stack the plots in a column, or side by side when the panel is much wider than tall or too short to give
        each plot its floor (a lecturer reads two labelled y values on every plot)."""
        shown = list(self.plots.values())
        room = self.layout_widget.height() if self.layout_widget.isVisible() else self.height()
        wide = self.width() > 2.2 * max(1, self.height()) or room < len(shown) * self.plot_floor()
        if wide == self._wide and shown == self._arranged:
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

    def _mark_single(self, single: bool) -> None:
        """A lone value (iteration 0) has no line to draw: show it as a dot until a second one arrives."""
        if single == self._single:
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
        if self._single:
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
