"""The weight-space overlay: the iterates a(k), their path, the trigger lines of the shown step."""

from __future__ import annotations

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import Qt
from PySide6.QtGui import QPen

from percviz.app.panels.geometry_panel import (
    arrow_angle,
    color,
    cosmetic_pen,
    pen_style,
    scatter_style,
    segments_item,
)
from percviz.app.panels.weight.style import MAX_FAR_MARKS, TAIL, _iterate_color
from percviz.core.glossary import MARGINS


class WeightOverlay:
    """Draws what changes with each snapshot, on items made once per problem."""

    # the iterates ------------------------------------------------------------------------------
    # The dynamic items are made once per redraw and then only fed new data: adding and removing
    # graphics items costs far more than the drawing itself.
    def _make_dynamic_items(self) -> None:
        th = self.themed

        def col(t, alpha=None):
            return color(_iterate_color(t.dark), alpha)

        def arrow(item, t):
            item.setStyle(headLen=2.0 * t.marker_size, pen=pg.mkPen(col(t), width=2), brush=color(t.background))

        def label(item, t):
            item.setColor(col(t))
            item.fill = pg.mkBrush(color(t.background, 200))
            item.setFont(t.font(t.font_pt, bold=True))

        self._trigger_item = th(segments_item(np.zeros((0, 2, 2)), QPen(), z=-1, static=False),
                                pen_style(lambda t: cosmetic_pen(col(t).name(), 1.2 * t.line_width, 200, Qt.DashLine)))
        self._path_line = th(pg.PlotCurveItem(connect="finite"),
                             pen_style(lambda t: pg.mkPen(col(t, 200), width=t.thin_line_width)))
        self._tail_line = th(pg.PlotCurveItem(connect="finite"),
                             pen_style(lambda t: pg.mkPen(col(t, 220), width=t.thin_line_width)))
        self._path_dots = th(pg.ScatterPlotItem(symbol="o"),
                             scatter_style(lambda t: 0.45 * t.marker_size, lambda t: col(t, 160), lambda t: None))
        self._far_marks = th(pg.ScatterPlotItem(symbol="x"), scatter_style(
            lambda t: 0.7 * t.marker_size, lambda t: None, lambda t: pg.mkPen(col(t), width=1.5)))
        self._current = th(pg.ScatterPlotItem(symbol="o"), scatter_style(
            lambda t: 1.3 * t.marker_size, col, lambda t: pg.mkPen(t.background, width=2)))
        self._edge_arrow = th(pg.ArrowItem(angle=0, tipAngle=40, tailLen=None), arrow)
        self._iter_label = th(pg.TextItem("", anchor=(-0.15, 0.5)), label)
        for item, z in ((self._path_line, 43), (self._tail_line, 44), (self._path_dots, 44), (self._far_marks, 44), (self._current, 45),
                        (self._edge_arrow, 46), (self._iter_label, 47), (self._trigger_item, -1)):
            item.setZValue(z)
            item.hide()
            self.plot.addItem(item)
        self._dynamic_items = [self._trigger_item, self._path_line, self._tail_line, self._path_dots, self._far_marks, self._current,
                               self._edge_arrow, self._iter_label]

    def _draw_dynamic(self) -> None:
        if not self.mode or not self._dynamic_items:
            self._dynamic = []
            return
        shown: list = []
        A = self._path() if self.snapshot is not None else np.zeros((0, 0))
        self.set_readout(self._static_readout + self._iterate_readout(A))
        if len(A):
            shown += self._draw_triggers()
            if self.mode == "1d":
                shown += self._draw_iterates_1d(A @ self.reduction.M.T)
            else:
                shown += self._draw_iterates_2d(A)
        for item in self._dynamic_items:
            item.setVisible(any(item is s_ for s_ in shown))
        self._dynamic = shown

    def _iterate_readout(self, A: np.ndarray) -> list[tuple[str, str]]:
        """The current weights and their margin min_i a·yᵢ/‖a‖ (negative: some sample misclassified)."""
        if not len(A):
            return []
        a = A[-1]
        w = self.reduction.M @ a if self.mode == "1d" else a
        if not np.any(w):
            return [(f"{self._iterate_label()} = 0", _iterate_color(self.theme.dark))]
        margin = float(np.min(np.asarray(self.problem.Y) @ a) / np.linalg.norm(a))
        comps = ", ".join(f"{v:.3g}" for v in w)
        return [(f"{self._iterate_label()} = ({comps}), {MARGINS['geometric'].short} = {margin:.4g}",
                 _iterate_color(self.theme.dark))]

    def _draw_triggers(self) -> list:
        """The constraint(s) of the sample(s) that caused the last update, in the iterate's colour."""
        segs = []
        n = len(self._lines()[0])
        triggers = self.snapshot.triggers
        if len(triggers) > 3:  # a batch update: every misclassified sample, no single line to point at
            return []
        for i in triggers:
            if not 0 <= int(i) < n:
                continue
            if self.mode == "1d":
                z = self.reduction.Z[int(i)]
                d = np.array([-z[1], z[0]]) / np.linalg.norm(z)
                L = 4.0 * self._static_radius
                segs.append(np.array([-L * d, L * d]))
            elif int(i) in self._segments:
                segs.append(self._segments[int(i)])
        if not segs:
            return []
        S = np.array(segs)
        self._trigger_item.setData(S[:, :, 0].ravel(), S[:, :, 1].ravel(), connect="pairs")
        return [self._trigger_item]

    def _set_path(self, P: np.ndarray) -> list:
        """The iterate path: whole while short; when long a faint thinned trace, and the last TAIL iterates bold
        with dots (a long run is never a solid blob)."""
        t = self.theme
        col = _iterate_color(t.dark)
        long = len(P) > 2 * TAIL
        pen = pg.mkPen(color(col, 30), width=1.0) if long else pg.mkPen(color(col, 200), width=t.thin_line_width)
        self._path_line.setPen(pen)
        self._path_line.setData(P[:, 0], P[:, 1], connect="finite")
        shown = [self._path_line]
        tail = P[-TAIL:] if long else P
        if long:
            self._tail_line.setData(tail[:, 0], tail[:, 1], connect="finite")
            shown.append(self._tail_line)
        if len(tail) <= 60:
            good = np.all(np.isfinite(tail), axis=1)
            self._path_dots.setData(tail[good, 0], tail[good, 1])
            shown.append(self._path_dots)
        return shown

    def _draw_iterates_1d(self, B: np.ndarray) -> list:
        shown = self._set_path(B)
        cur = B[-1]
        self._current.setData([cur[0]], [cur[1]])
        return shown + [self._current] + self._set_label(self._iterate_label(), cur, (-0.15, 0.5))

    def _view_centre(self) -> tuple[np.ndarray, np.ndarray]:
        """The middle of the framed view and its half-widths (x, y)."""
        xmin, xmax, ymin, ymax = self.cone2.frame
        return np.array([(xmin + xmax) / 2, (ymin + ymax) / 2]), np.array([(xmax - xmin) / 2, (ymax - ymin) / 2])

    def _edge_position(self, direction) -> np.ndarray:
        """Where a point at infinity in this direction meets the edge of the view (just inside)."""
        centre, half = self._view_centre()
        d = np.atleast_2d(np.asarray(direction, dtype=float))
        out = centre + d * (0.93 / np.maximum((np.abs(d) / half).max(axis=1), 1e-12))[:, None]
        return out[0] if np.ndim(direction) == 1 else out

    def _draw_iterates_2d(self, A: np.ndarray) -> list:
        zero = ~(np.linalg.norm(A, axis=1) > 0)
        proj = self.cone2.projection.project(np.where(zero[:, None], self.cone2.projection.center, A))
        # NaN rows break the path: an iterate on the far hemisphere, or a = 0 (no direction at all),
        # is never drawn as a wrong point
        P = np.where(zero[:, None], np.nan, proj.points)
        far_rows = proj.far & ~zero
        shown = self._set_path(P)
        if far_rows.any():
            rows = np.flatnonzero(far_rows)
            if len(rows) > MAX_FAR_MARKS:  # on the edge they overlap anyway; thousands cost ~7 ms a frame
                rows = rows[np.unique(np.linspace(0, len(rows) - 1, MAX_FAR_MARKS).astype(int))]
            E = self._edge_position(proj.edge[rows])
            self._far_marks.setData(E[:, 0], E[:, 1])
            shown.append(self._far_marks)
        if zero[-1]:
            return shown  # the readout says a(k) = 0
        centre, half = self._view_centre()
        cur, far = P[-1], bool(proj.far[-1])
        off_view = far or bool((np.abs(cur - centre) > half).any())
        label = self._iterate_label()
        if off_view:
            d = proj.edge[-1] if far else (cur - centre) / np.linalg.norm(cur - centre)
            pos = self._edge_position(d)
            self._edge_arrow.setStyle(angle=arrow_angle(d))
            self._edge_arrow.setPos(float(pos[0]), float(pos[1]))
            shown.append(self._edge_arrow)
            label += " on the far side (a·c ≤ 0)" if far else " beyond the view"
            # the label sits inside the view, away from the edge the arrow points at (text y runs downwards)
            anchor = (1.05 if d[0] > 0 else -0.05, 0.5 if abs(d[1]) < 0.7 else (-0.3 if d[1] > 0 else 1.3))
        else:
            pos = cur
            self._current.setData([cur[0]], [cur[1]])
            shown.append(self._current)
            anchor = (-0.15, 0.5)
        return shown + self._set_label(label, pos, anchor)
