"""Rings: on the point(s) that triggered the update shown, and on the point hovered (here or in another panel)."""

from __future__ import annotations

import pyqtgraph as pg
from PySide6.QtCore import Qt

from percviz.app.panels.canvas.layer import CanvasLayer
from percviz.app.panels.canvas_viewbox import PassiveScatter


class TriggerRingLayer(CanvasLayer):
    """A ring in the highlight colour on each point the snapshot names as its trigger."""

    name = "trigger"

    def __init__(self):
        self.ring = PassiveScatter(pxMode=True)
        self.pen = None

    def attach(self, canvas) -> None:
        super().attach(canvas)
        self.ring.setZValue(21)
        canvas.plot.addItem(self.ring)

    def apply_theme(self, theme, scale=None) -> None:
        self.pen = pg.mkPen(theme.highlight, width=1.5 * theme.line_width)

    def clear(self) -> None:
        self.ring.setData([])

    def draw(self, snap) -> None:
        if snap is None:
            return
        scene = self.canvas.scene_model
        idx = [i for i in snap.triggers if 0 <= i < scene.n]
        if not idx:
            self.ring.setData([])
            return
        self.ring.setData(pos=scene.points.X[idx], size=self.canvas.theme.marker_size * 2.1, symbol="o", brush=None,
                          pen=self.pen)


class HoverRingLayer(CanvasLayer):
    """A dotted ring on the hovered point: the canvas's own hover, else one hovered in another panel."""

    name = "hover"

    def __init__(self):
        self.ring = PassiveScatter(pxMode=True)
        self.pen = None
        self.hovered = -1  # the canvas's own hover (−1: none)
        self.external: int | None = None  # a point hovered in another panel

    def attach(self, canvas) -> None:
        super().attach(canvas)
        self.ring.setZValue(22)
        canvas.plot.addItem(self.ring)

    def apply_theme(self, theme, scale=None) -> None:
        self.pen = pg.mkPen(theme.foreground, width=theme.thin_line_width, style=Qt.PenStyle.DotLine)
        self.redraw()

    def redraw(self) -> None:
        i = self.external if self.external is not None else (self.hovered if self.hovered >= 0 else None)
        scene = self.canvas.scene_model
        if i is None or i >= scene.n:
            self.ring.setData([])
            return
        self.ring.setData(pos=scene.points.X[[i]], size=self.canvas.theme.marker_size * 2.4, symbol="o", brush=None,
                          pen=self.pen)
