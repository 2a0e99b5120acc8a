"""Shared by the Live tests (test_live.py, test_live_rate.py): their window and the canvas's widget coordinates."""

from __future__ import annotations

import helpers
import pytest
from PySide6.QtCore import QPoint

from percviz.core.presets import SHIPPED_DIR


@pytest.fixture
def live_window(hall_window):
    """The real main window (1280×800) on the shipped 80-point separable scene."""
    return hall_window(SHIPPED_DIR / "notes-80-separable.json")


def canvas_pos(w, x: float, y: float) -> QPoint:
    """The canvas viewport's pixel at data point (x, y) of window `w` (for QTest mouse events)."""
    return helpers.canvas_pos(w.panels["canvas"], x, y)
