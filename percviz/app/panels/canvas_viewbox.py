"""The canvas's interaction: a view box that turns clicks and point drags into scene edits; other drags pan.

`CanvasViewBox(scene, pick, click)` maps the mouse to data coordinates and calls plain functions: `pick(x, y)`
(the index of the point under the cursor, or None), `click(x, y, button, modifiers)` (place or delete a point),
and the scene's `begin_drag`/`move_point`/`end_drag` for a drag that starts on a point. Its items
(`PassiveScatter`) leave every click and drag to it.
"""

from __future__ import annotations

from typing import Callable

import pyqtgraph as pg
from PySide6.QtCore import Qt

from percviz.core.scene import SceneModel


class PassiveScatter(pg.ScatterPlotItem):
    """A scatter that leaves every click and drag to the view box (placing/moving points)."""

    def mouseClickEvent(self, ev):
        ev.ignore()

    def mouseDragEvent(self, ev):
        ev.ignore()


class CanvasViewBox(pg.ViewBox):
    """Routes clicks and point drags to the scene; other drags pan, the wheel zooms."""

    def __init__(self, scene: SceneModel, pick: Callable[[float, float], int | None],
                 click: Callable[[float, float, object, object], None]):
        super().__init__(lockAspect=True, enableMenu=False)
        self._scene, self._pick, self._click = scene, pick, click
        self._dragging: int | None = None

    def mouseClickEvent(self, ev):
        if ev.double():  # the first click of a double click already placed its point
            ev.accept()
            return
        if ev.button() in (Qt.MouseButton.LeftButton, Qt.MouseButton.RightButton):
            ev.accept()
            p = self.mapSceneToView(ev.scenePos())
            self._click(p.x(), p.y(), ev.button(), ev.modifiers())
        else:
            super().mouseClickEvent(ev)

    def mouseDragEvent(self, ev, axis=None):
        if ev.button() != Qt.MouseButton.LeftButton:
            return super().mouseDragEvent(ev, axis)
        if ev.isStart():
            p = self.mapSceneToView(ev.buttonDownScenePos())
            self._dragging = self._pick(p.x(), p.y())
            if self._dragging is not None:
                self._scene.begin_drag()
        if self._dragging is None:
            return super().mouseDragEvent(ev, axis)
        ev.accept()
        p = self.mapSceneToView(ev.scenePos())
        self._scene.move_point(self._dragging, p.x(), p.y())
        if ev.isFinish():
            self._dragging = None
            self._scene.end_drag()


def skip_hover_while_dragging(scene, model: SceneModel) -> None:
    """pyqtgraph looks for the items under the cursor on every mouse move (hover events, which no item may
    accept mid-drag); while a point is dragged that search is skipped (the canvas's own hover follows the mouse)."""
    send = scene.sendHoverEvents

    def send_hover(ev, exitOnly=False):  # noqa: N803 (pyqtgraph's name)
        if not (model.dragging and not exitOnly):
            send(ev, exitOnly)

    scene.sendHoverEvents = send_hover
