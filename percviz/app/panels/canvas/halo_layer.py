"""Halos sized by the weights α_i (or by p_i when the snapshot is a certificate of non-separability)."""

from __future__ import annotations

import numpy as np
import pyqtgraph as pg
from PySide6.QtGui import QColor

from percviz.app.panels.canvas.layer import CanvasLayer
from percviz.app.panels.canvas_viewbox import PassiveScatter
from percviz.core.solvers.base import Status

#: Halo sizes are rounded to this many steps (a handful of distinct symbols to render).
HALO_STEPS = 8
#: Above FEW_HALOS halos they grow less with the weight, and less again above DENSE_HALOS (they would hide the points).
FEW_HALOS, DENSE_HALOS = 24, 300
#: At most this many halos, the heaviest (a 100,000-point SNKP run weighs every point; 100k discs stall a frame).
MAX_HALOS = 2000


def snapshot_weights(snap, problem, n_scene: int):
    """Halo weights: p_i for a certificate, else α_i; (None, False) when they do not match the points."""
    w = snap.p if snap.status == Status.CERTIFICATE and snap.p is not None else snap.alpha
    if w is None or problem is None or len(w) != problem.n or problem.n != n_scene:
        return None, False
    return np.asarray(w, dtype=float), snap.status == Status.CERTIFICATE


class HaloLayer(CanvasLayer):
    """One scatter per class (and one for p of a certificate), so pen and brush are scalars."""

    name = "halos"

    def __init__(self):
        self.halo_items = [PassiveScatter(pxMode=True) for _ in range(7)]
        self.key: tuple | None = None
        self.styles: dict = {}

    def attach(self, canvas) -> None:
        super().attach(canvas)
        for z, it in enumerate(self.halo_items):
            it.setZValue(5 + z)
            canvas.plot.addItem(it)

    def apply_theme(self, theme, scale=None) -> None:
        t = theme
        w = max(1.0, t.scale if scale is None else scale)

        def rgba(c, a):
            q = QColor(c)
            return (q.red(), q.green(), q.blue(), a)

        hl = QColor(t.highlight)
        self.styles = {
            "halo_brushes": [pg.mkBrush(*rgba(t.class_color(k), 48)) for k in range(6)],
            "halo_pens": [pg.mkPen(*rgba(t.class_color(k), 170), width=w) for k in range(6)],
            "cert_brush": pg.mkBrush(hl.red(), hl.green(), hl.blue(), 90),
            "cert_pen": pg.mkPen(hl, width=w),
        }

    def clear(self) -> None:
        self.clear_halos()
        self.key = None

    def clear_halos(self) -> None:
        for it in self.halo_items:
            if len(it.data):
                it.setData([])

    def draw(self, snap) -> None:
        if snap is None:
            return
        if not self.canvas.view_settings["halos"]:
            self.clear()
            return
        scene = self.canvas.scene_model
        w, certificate = snapshot_weights(snap, self.canvas.problem, scene.n)
        if w is None or not np.any(w > 0):
            keep, rel = np.zeros(0, dtype=np.int64), np.zeros(0)
        else:
            keep = np.flatnonzero(w > 1e-3 * w.max())
            if len(keep) > MAX_HALOS:
                keep = np.sort(keep[np.argpartition(w[keep], -MAX_HALOS)[-MAX_HALOS:]])
            # halo area grows like the weight, in HALO_STEPS steps: pyqtgraph caches the few symbols, and
            # a frame whose rounded sizes did not change redraws no halo
            rel = np.ceil(np.sqrt(w[keep] / w.max()) * HALO_STEPS) / HALO_STEPS
        key = (keep.tobytes(), rel.tobytes(), certificate, id(self.canvas.theme), scene.points.X.tobytes())
        if key == self.key:
            return
        self.key = key
        self.clear_halos()
        if len(keep) == 0:
            return
        X, classes = scene.points.X, scene.points.classes
        # dense scenes get smaller halos: they overlap anyway, and large translucent discs cost most of a repaint
        grow = 1.8 if len(keep) <= FEW_HALOS else 1.1 if len(keep) <= DENSE_HALOS else 0.7
        sizes = self.canvas.theme.marker_size * (1.3 + grow * rel)
        st = self.styles
        if certificate:
            self.halo_items[6].setData(pos=X[keep], size=sizes, symbol="o", brush=st["cert_brush"], pen=st["cert_pen"])
            return
        which = classes[keep] % 6
        for k in np.unique(which):
            sel = which == k
            self.halo_items[k].setData(
                pos=X[keep[sel]], size=sizes[sel], symbol="o", brush=st["halo_brushes"][k], pen=st["halo_pens"][k]
            )

    def halo_data(self) -> tuple[np.ndarray, np.ndarray]:
        """Positions (m, 2) and pixel sizes (m,) of the halos drawn (for tests and tools)."""
        pos, size = [], []
        for it in self.halo_items:
            if len(it.data):
                x, y = it.getData()
                pos.append(np.column_stack([x, y]))
                size.append(np.array([p.size() for p in it.points()]))
        if not pos:
            return np.zeros((0, 2)), np.zeros(0)
        return np.concatenate(pos), np.concatenate(size)
