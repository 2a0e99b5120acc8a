"""The brush (Edit ▸ Brush, key B): drag on the canvas to paint points of the chosen class; one undo step a stroke.

While the brush is on, a left drag on the canvas's plot sprays points around the cursor (`density` points per
brush width travelled, Gaussian `spread` in scene units); they are previewed as the stroke goes and become
scene points, in one undoable edit, when the button is released (a click without a drag sprays one dab).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QEvent, QObject, QPointF, Qt

from percviz.core.data import PointSet

if TYPE_CHECKING:
    from percviz.app.context import AppContext


class Brush(QObject):
    """An event filter on the canvas viewport that paints points while on."""

    def __init__(self, ctx: "AppContext", density: float = 4.0, spread: float = 0.3, seed: int = 0):
        super().__init__(ctx.window)
        self.ctx = ctx
        self.canvas = ctx.panels["canvas"]
        self.on = False
        self.density, self.spread = float(density), float(spread)
        self._rng = np.random.default_rng(seed)
        self._stroke: list[tuple[float, float]] = []
        self._last: tuple[float, float] | None = None
        self._painting = False
        self.preview = pg.ScatterPlotItem(size=8, pen=None, brush=pg.mkBrush(120, 120, 120, 160))
        self.preview.setZValue(100)
        self.canvas.plot.addItem(self.preview)
        self.canvas.plot.viewport().installEventFilter(self)

    def set_on(self, on: bool) -> None:
        self.on = bool(on)
        vp = self.canvas.plot.viewport()
        vp.setCursor(Qt.CursorShape.PointingHandCursor if self.on else Qt.CursorShape.CrossCursor)

    def _to_data(self, pos) -> tuple[float, float]:
        p = self.canvas.viewbox.mapSceneToView(self.canvas.plot.mapToScene(pos.toPoint() if isinstance(pos, QPointF) else pos))
        return float(p.x()), float(p.y())

    def eventFilter(self, obj, ev) -> bool:
        if not self.on:
            return False
        t = ev.type()
        if t == QEvent.Type.MouseButtonPress and ev.button() == Qt.MouseButton.LeftButton:
            self._painting, self._stroke = True, []
            self._last = self._to_data(ev.position())
            self._spray(*self._last, count=max(1, round(self.density)))
            return True
        if t == QEvent.Type.MouseMove and self._painting:
            x, y = self._to_data(ev.position())
            lx, ly = self._last
            travelled = np.hypot(x - lx, y - ly)
            width = max(self.spread, 1e-9)
            if travelled >= 0.5 * width:
                self._spray(x, y, count=max(1, round(self.density * travelled / width)))
                self._last = (x, y)
            return True
        if t == QEvent.Type.MouseButtonRelease and self._painting and ev.button() == Qt.MouseButton.LeftButton:
            self._painting = False
            self.commit()
            return True
        return False

    def _spray(self, x: float, y: float, count: int) -> None:
        pts = np.array([x, y]) + self.spread * self._rng.standard_normal((int(count), 2))
        self._stroke.extend(map(tuple, pts))
        P = np.array(self._stroke)
        self.preview.setData(P[:, 0], P[:, 1])

    def commit(self) -> int:
        """The stroke's points join the scene as one undoable edit; returns how many."""
        stroke, self._stroke = self._stroke, []
        self.preview.setData([], [])
        if not stroke:
            return 0
        scene = self.ctx.scene
        cls = int(self.ctx.controls.current_class)
        old = scene.points
        new = np.array(stroke, float)
        X = np.vstack([old.X, new]) if old.n else new
        classes = np.concatenate([old.classes, np.full(len(new), cls)]) if old.n else np.full(len(new), cls)
        scene.set_points(PointSet(X, classes))
        self.ctx.show_message(f"Painted {len(new)} points (Ctrl+Z removes the stroke).")
        return len(new)


__all__ = ["Brush"]
