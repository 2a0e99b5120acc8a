"""Helpers shared by the GUI tests: where a click on a data point lands."""

from __future__ import annotations

from PySide6.QtCore import QPoint


def canvas_pos(canvas, x: float, y: float) -> QPoint:
    """The viewport pixel of data point (x, y) on a CanvasView: where a click or drag there lands."""
    p = canvas.view_to_widget(x, y)
    return QPoint(round(p.x()), round(p.y()))
