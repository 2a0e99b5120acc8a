"""Rotating the 3-D feature picture: the rotation matrices, the first view, the mouse drag."""

from __future__ import annotations

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import Qt


def _axis_rotation(axis: int, degrees: float) -> np.ndarray:
    """Rotation about coordinate axis 0 or 1 (screen x or y) by the given angle."""
    a = np.radians(degrees)
    c, s_ = np.cos(a), np.sin(a)
    if axis == 0:
        return np.array([[1, 0, 0], [0, c, -s_], [0, s_, c]])
    return np.array([[c, 0, s_], [0, 1, 0], [-s_, 0, c]])


def initial_rotation(coords: np.ndarray, nearest: np.ndarray | None) -> np.ndarray:
    """Rows (screen x, screen y, towards the viewer) showing the hull broadside.

    When the hull misses the origin, its nearest point's direction is laid along screen x, so the gap
    between 0 and the hull (ρ_K) is seen at its true length; the view looks along the direction in
    which the points spread least. A small tilt keeps the picture three-dimensional.
    """
    P = np.asarray(coords, dtype=float)
    if nearest is not None and np.linalg.norm(nearest) > 1e-12:
        u = nearest / np.linalg.norm(nearest)
        Q = P - np.outer(P @ u, u)
        w, V = np.linalg.eigh(Q.T @ Q)
        cand = [V[:, k] - (V[:, k] @ u) * u for k in range(3)]
        cand = [c for c in cand if np.linalg.norm(c) > 1e-9]
        view = cand[0] / np.linalg.norm(cand[0])  # least spread first (eigh sorts ascending)
        ex = u
    else:
        w, V = np.linalg.eigh(P.T @ P)
        view, ex = V[:, 0], V[:, 2]
    ey = np.cross(view, ex)
    R = np.vstack([ex, ey, view])
    return _axis_rotation(0, -20.0) @ _axis_rotation(1, 25.0) @ R


def _in_simplex(v) -> bool:
    v = np.asarray(v, dtype=float)
    return bool(v.size and v.min() >= -1e-12 and abs(v.sum() - 1.0) < 1e-9)


class _RotatingViewBox(pg.ViewBox):
    """A ViewBox where a left drag rotates the 3-D picture instead of panning."""

    def __init__(self, panel):
        super().__init__()
        self.panel = panel

    def mouseDragEvent(self, ev, axis=None):
        if self.panel.is_3d and ev.button() == Qt.LeftButton:
            ev.accept()
            d = ev.pos() - ev.lastPos()
            self.panel.rotate(0.5 * d.x(), 0.5 * d.y())
        else:
            super().mouseDragEvent(ev, axis)
