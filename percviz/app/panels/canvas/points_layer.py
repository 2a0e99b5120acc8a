"""The scene's points (+ and − differ by shape as well as colour; 1, 2, 3… for a multi-class machine), a stable
subsample of those in view above percviz.app.panels.point_decimation.DRAW_CAP, patched spot by spot after an edit."""

from __future__ import annotations

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QRectF
from PySide6.QtGui import QColor, QPainterPath

from percviz.app.panels.canvas.layer import CanvasLayer
from percviz.app.panels.canvas_viewbox import PassiveScatter
from percviz.app.panels.point_decimation import PointDecimator


def bold_symbols() -> dict[str, QPainterPath]:
    """A bolder "+" and "−" than pyqtgraph's, readable from the back of a lecture hall."""
    plus = QPainterPath()
    a, b = 0.5, 0.17
    pts = [(-a, -b), (-b, -b), (-b, -a), (b, -a), (b, -b), (a, -b), (a, b), (b, b), (b, a), (-b, a), (-b, b), (-a, b)]
    plus.moveTo(*pts[0])
    for p in pts[1:]:
        plus.lineTo(*p)
    plus.closeSubpath()
    minus = QPainterPath()
    minus.addRect(QRectF(-0.5, -0.17, 1.0, 0.34))
    return {"+": plus, "_": minus}


def spot_hash(X: np.ndarray, cls: np.ndarray) -> np.ndarray:
    """A 64-bit hash of each drawn spot's (x, y, class) bits, to match spots across an edit."""
    bits = np.ascontiguousarray(X, dtype=np.float64).view(np.uint64).reshape(-1, 2)
    with np.errstate(over="ignore"):
        h = bits[:, 0] * np.uint64(0x9E3779B97F4A7C15) ^ bits[:, 1] * np.uint64(0xC2B2AE3D27D4EB4F)
        return h ^ (np.asarray(cls, dtype=np.uint64) * np.uint64(0x165667B19E3779F9))


def _multiclass(solver_cls) -> bool:
    return solver_cls is not None and solver_cls.representation == "multiclass"


class PointsLayer(CanvasLayer):
    """The points item: set whole with numpy (`set_spots`) or patched where an edit changed it (`patch_spots`)."""

    name = "points"

    def __init__(self):
        self.item = PassiveScatter(pxMode=True)
        self.decimator, self.shown = PointDecimator(), None
        self.drawn_for = None  # the coordinate array the points item shows
        self.drawn_spots = None  # (positions, classes, style, hashes) of the points item's spots, in its order
        self.symbols = bold_symbols()
        self.brushes: list = []
        self.pen = None
        self.style_key = None
        self.multi = False

    def attach(self, canvas) -> None:
        super().attach(canvas)
        self.item.setZValue(20)
        canvas.plot.addItem(self.item)

    def set_problem(self, problem, solver_cls) -> None:
        if self.multi != _multiclass(solver_cls):
            self.multi = _multiclass(solver_cls)
            self.redraw()  # the classes' shapes: 1, 2, 3… for a multi-class machine, + and − otherwise

    def apply_theme(self, theme, scale=None) -> None:
        t = theme
        scale = t.scale if scale is None else scale
        key = tuple(QColor(t.class_color(k)).rgba() for k in range(6)) + (QColor(t.foreground).rgba(), scale)
        if key == self.style_key:  # the same look: the drawn spots keep their pens and brushes
            return
        self.style_key = key
        fg = QColor(t.foreground)
        self.brushes = [pg.mkBrush(t.class_color(k)) for k in range(6)]
        self.pen = pg.mkPen(fg.red(), fg.green(), fg.blue(), 210, width=max(1.0, 0.8 * scale))

    def redraw(self) -> None:
        """Draw the scene's points as they are now (patched when only a few changed)."""
        t = self.canvas.theme
        pts = self.canvas.scene_model.points
        self.drawn_for = pts.X  # (immutable: a new array after every edit)
        if pts.n == 0:
            self.item.setData([])
            self.drawn_spots = None
            return
        symbols = tuple(self.symbols.get(s, s) for s in (t.class_symbol(k, self.multi) for k in range(6)))
        X, cls = pts.X, pts.classes
        shown = self.decimator.shown(X, self.canvas.viewbox.viewRange())  # None: every point
        self.shown = shown
        if shown is not None:
            X, cls = X[shown], cls[shown]
        style = (symbols, id(self.pen), id(self.brushes), t.marker_size)
        if not self.patch_spots(X, cls, style):
            self.set_spots(X, cls, t.marker_size * 1.35, symbols, self.brushes, self.pen)
            self.drawn_spots = (np.array(X, dtype=float), np.array(cls), style, spot_hash(X, cls))

    def redecimate(self) -> None:
        """Redraw the points if the view now shows a different subsample (exact once it holds at most the cap)."""
        if self.canvas.scene_model.n <= self.decimator.cap:
            return
        shown = self.decimator.shown(self.canvas.scene_model.points.X, self.canvas.viewbox.viewRange())
        if shown is None or self.shown is None or not np.array_equal(shown, self.shown):
            self.redraw()

    def set_spots(self, X, cls, size, symbols, brushes, pen) -> None:
        """All the spots at once: the record pyqtgraph's setData(pos, size, symbol=[…], brush=[…], pen) builds,
        filled class by class with numpy (setData spends ~30 ms of per-spot Python on 10,000 spots).

        Relies on pyqtgraph 0.14's ScatterPlotItem internals (`data` records, `fragmentAtlas`, `sourceRect`),
        as `patch_spots` does; a test compares the record and the picture with setData's.
        """
        item = self.item
        item.clear()
        item.setPen(pen, update=False)
        item.setSize(size, update=False)
        data = np.empty(len(X), dtype=item.data.dtype)  # object fields start as None, as in addPoints
        data["size"], data["visible"] = -1, True  # -1: the item's size (opts), as addPoints leaves it
        data["x"], data["y"] = X[:, 0], X[:, 1]
        k = np.asarray(cls) % 6
        table = {"symbol": np.empty(6, dtype=object), "brush": np.empty(6, dtype=object)}
        for j in range(6):
            table["symbol"][j], table["brush"][j] = symbols[j], brushes[j]
        data["symbol"], data["brush"] = table["symbol"][k], table["brush"][k]
        if item.opts["pxMode"] and item.opts["useCache"]:  # each class's place in the symbol atlas, looked up once
            used = np.unique(k)
            rects = item.fragmentAtlas[[(symbols[j], item.opts["size"], item.opts["pen"], brushes[j]) for j in used]]
            for j, rect in zip(used, rects):
                data["sourceRect"][k == j] = rect
        item.data = data
        self._changed(item)
        item.updateSpots(data)
        item.sigPlotChanged.emit(item)

    @staticmethod
    def _changed(item) -> None:
        item.prepareGeometryChange()
        item.informViewBoundsChanged()
        item.bounds = [None, None]
        item.invalidate()

    def patch_spots(self, X, cls, style) -> bool:
        """Swap only the spots that changed (an edit changes at most a few of the drawn ones); False: redraw all.

        Re-setting 10,000 spots costs pyqtgraph ~30 ms of per-spot Python; a move, add or delete changes one or
        two. Spots are matched by a 64-bit hash of (x, y, class); any repeated hash falls back to a full redraw.
        """
        drawn, item = self.drawn_spots, self.item
        if drawn is None or drawn[2] != style or len(item.data) != len(drawn[0]):
            return False
        new_h = spot_hash(X, cls)
        keep, add = np.isin(drawn[3], new_h), ~np.isin(new_h, drawn[3])
        if (~keep).sum() + add.sum() > 64 or len(np.unique(new_h)) != len(new_h):
            return False
        if keep.all() and not add.any():
            return True
        if not keep.all():
            item.data["item"][...] = None  # (pyqtgraph's SpotItems refer to rows of the old array)
            item.data = item.data[keep]
        symbols, brushes = style[0], self.brushes
        if add.any():
            item.addPoints(pos=X[add], symbol=[symbols[k % 6] for k in cls[add]],
                           brush=[brushes[k % 6] for k in cls[add]])
        else:
            self._changed(item)
        self.drawn_spots = (np.concatenate([drawn[0][keep], X[add]]), np.concatenate([drawn[1][keep], cls[add]]),
                            style, np.concatenate([drawn[3][keep], new_h[add]]))
        return True
