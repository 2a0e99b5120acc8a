"""Slacks of a fixed-level (SVM) run: each point with ξ_i = max(0, level − y_i f(x_i)) > 0 gets a segment to its
margin line along the normal (affine f; length ξ_i/‖w‖) and its ξ_i written next to it (the MAX_SLACK_LABELS
largest, placed so that none covers another label, another point's marker or the view's edge)."""

from __future__ import annotations

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QPointF, QRectF
from PySide6.QtGui import QColor

from percviz.app.panels.canvas.layer import CanvasLayer, smooth_line
from percviz.core.margin_geometry import slacks

#: At most this many slack values ξ_i are written on the canvas (the largest ones).
MAX_SLACK_LABELS = 10
#: Where a ξ label may sit by its point (TextItem anchors): right-above first, then left-above, below.
SLACK_ANCHORS = ((-0.15, 1.0), (1.15, 1.0), (-0.15, 0.0), (1.15, 0.0))
#: Above this many points the ξ labels are placed against each other only (a marker test per point is too slow).
SLACK_MARKER_CAP = 2000


def label_fill(t) -> QColor:
    c = QColor(t.background)
    c.setAlpha(190)
    return c


class SlackLayer(CanvasLayer):
    """Segments and ξ labels of the points inside the margin band."""

    name = "slacks"

    def __init__(self):
        self.slack_curve = pg.PlotCurveItem(connect="pairs", antialias=True)
        self.slack_labels: list[pg.TextItem] = []
        self.shown = 0  # how many labels set_slacks wrote

    def attach(self, canvas) -> None:
        super().attach(canvas)
        self.slack_curve.setZValue(4)
        canvas.plot.addItem(self.slack_curve)
        canvas.viewbox.sigResized.connect(lambda *_: self.declutter())
        canvas.viewbox.sigRangeChanged.connect(lambda *_: self.declutter())  # the labels' pixel boxes moved

    def lines(self) -> tuple:
        return (self.slack_curve,)

    def clear(self) -> None:
        self.set_slacks(np.zeros((0, 2)), np.zeros((0, 2)), np.zeros(0))

    def apply_theme(self, theme, scale=None) -> None:
        t = theme
        self.slack_curve.setPen(pg.mkPen(t.foreground, width=max(1.0, 0.75 * t.line_width)))
        for label in self.slack_labels:
            label.setColor(t.foreground)
            label.setFont(t.font(0.85 * t.font_pt))
            label.fill = pg.mkBrush(label_fill(t))

    def draw_picture(self, pic) -> None:
        if pic.regions:
            return
        if pic.no_boundary:
            self.clear()
            return
        level, y, fx = pic.level, pic.y, pic.fx
        if level is None or y is None or len(fx) != len(y) or pic.preview:
            self.clear()
            return
        self.set_slacks(*slacks(pic.X, y, fx, level, pic.affine))

    def set_slacks(self, starts: np.ndarray, ends: np.ndarray, values: np.ndarray) -> None:
        if len(starts) and np.any(starts != ends):
            P = np.empty((2 * len(starts), 2))
            P[0::2], P[1::2] = starts, ends
            self.slack_curve.setData(P[:, 0], P[:, 1], connect="pairs")
            smooth_line(self.slack_curve, self.canvas.lines_smooth)
        else:
            self.slack_curve.setData([], [])
        order = np.argsort(-values)[:MAX_SLACK_LABELS]
        t = self.canvas.theme
        while len(self.slack_labels) < len(order):
            label = pg.TextItem(color=t.foreground, anchor=(-0.15, 1.0), fill=label_fill(t))
            label.setFont(t.font(0.85 * t.font_pt))
            label.setZValue(19)
            self.canvas.plot.addItem(label, ignoreBounds=True)
            self.slack_labels.append(label)
        for j, label in enumerate(self.slack_labels):
            if j < len(order):
                i = order[j]
                label.setText(f"ξ={values[i]:.2g}")
                label.setPos(float(starts[i, 0]), float(starts[i, 1]))
                label.show()
            else:
                label.hide()
        self.shown = len(order)
        self.declutter()

    def declutter(self) -> None:
        """Largest ξ first, each label by its point where it covers no label placed before it, else hidden (at
        2× the XOR soft margin's "ξ=1.2" sat under "ξ=0.96")."""
        if not self.shown:
            return
        taken: list[QRectF] = []
        viewbox = self.canvas.viewbox
        markers = self.marker_rects()  # (scene pixels) a label never hides another point's marker
        inside = viewbox.sceneBoundingRect()  # nor is it cut at the view's edge ('ξ=0.0003…')
        for label in self.slack_labels[:self.shown]:
            at = viewbox.mapViewToScene(label.pos())
            others = [m for m in markers if not m.contains(at)]  # its own point's marker: the label is by it
            for anchor in SLACK_ANCHORS:
                label.setAnchor(anchor)
                rect = label.mapRectToScene(label.boundingRect())  # where it is drawn, its padding included
                if inside.contains(rect) and not any(rect.intersects(r) for r in taken) \
                        and not any(rect.intersects(m) for m in others):
                    label.show()
                    taken.append(rect)
                    break
            else:
                label.hide()

    def marker_rects(self) -> list[QRectF]:
        """The scene-pixel boxes of the markers in view (none above SLACK_MARKER_CAP points)."""
        pts, viewbox = self.canvas.scene_model.points, self.canvas.viewbox
        if pts.n == 0 or pts.n > SLACK_MARKER_CAP:
            return []
        (x0, x1), (y0, y1) = viewbox.viewRange()
        X = pts.X[(pts.X[:, 0] >= x0) & (pts.X[:, 0] <= x1) & (pts.X[:, 1] >= y0) & (pts.X[:, 1] <= y1)]
        r = 0.5 * self.canvas.theme.marker_size * 1.35 * 0.8  # a little inside the drawn marker: labels may touch its rim
        out = []
        for x, y in X:
            c = viewbox.mapViewToScene(QPointF(float(x), float(y)))
            out.append(QRectF(c.x() - r, c.y() - r, 2 * r, 2 * r))
        return out

    def slack_data(self) -> tuple[np.ndarray, list[str]]:
        """The slack segments drawn ((2m, 2): start, end, ...) and the ξ labels shown (for tests and tools)."""
        x, y = self.slack_curve.getData()
        segs = np.zeros((0, 2)) if x is None else np.column_stack([x, y])
        return segs, [label.textItem.toPlainText() for label in self.slack_labels if label.isVisible()]
