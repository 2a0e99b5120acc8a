"""View ▸ input distances: on the canvas, a segment from each point to the nearest point of the curve f = 0.

A canvas layer (percviz.app.panels.canvas.layer): the canvas draws it with the others and restyles it on every
theme or scale change. The distances come from percviz.core.input_distance, computed on a
percviz.app.run.background.Task (the app's one way off the UI thread; no polling); a newer snapshot cancels an
older computation.
"""

from __future__ import annotations

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QObject, Signal
from PySide6.QtWidgets import QLabel

from percviz.app.panels.canvas.layer import CanvasLayer
from percviz.app.run.background import Task
from percviz.core.glossary import MARGINS, margin_text
from percviz.core.input_distance import InputDistances, input_distances


def _compute(decision, X, y) -> InputDistances | None:
    if decision.n_outputs != 1 or len(X) == 0:
        return None
    return input_distances(decision, X, y)


def caption_text(res: InputDistances | None, snap, solver_cls=None) -> str:
    """'input-space distance d_x = 0.252 · SVM margin γ(w) = 0.103' (or why there is none); names from core.glossary."""
    term = MARGINS["input"]
    if res is None:
        return f"{term.short}: two classes only"
    parts = [f"{term.short} = {res.margin:.3g}" if res.margin is not None else f"no {term.name}"]
    fm = snap.metrics.get("margin") if snap is not None else None
    if fm is not None and np.isfinite(fm):
        parts.append(margin_text(solver_cls, dict(snap.metrics), lambda v: f"{v:.3g}") or f"margin {fm:.3g}")
    return "  ·  ".join(parts)


class InputDistanceLayer(QObject, CanvasLayer):
    """Segments x_i → foot of the perpendicular on f = 0 (and Akaho's x̂_i when the snapshot has them)."""

    name = "input distances"
    updated = Signal()

    def __init__(self, canvas, parent=None):
        QObject.__init__(self, parent or canvas)
        self.segments = pg.PlotCurveItem(connect="pairs", antialias=True)
        self.feet = pg.ScatterPlotItem(pxMode=True, size=6, symbol="o")
        self.estimates = pg.ScatterPlotItem(pxMode=True, size=9, symbol="x")
        self.caption = QLabel("")
        self.caption.setObjectName("input_margin")
        self.caption.setAccessibleName("input margin")
        self.result: InputDistances | None = None
        self.enabled = False
        self._task: Task | None = None  # the computation whose result is wanted
        self._cancelled: list[Task] = []  # cancelled ones whose threads may still run (shutdown waits)
        self._snap = None
        canvas.add_layer(self)  # attach, theme, problem and the snapshot shown
        self.set_enabled(False)

    def attach(self, canvas) -> None:
        super().attach(canvas)
        for z, it in ((15, self.segments), (16, self.feet), (16, self.estimates)):
            it.setZValue(z)
            canvas.plot.addItem(it)

    def apply_theme(self, theme, scale=None) -> None:
        colour = theme.foreground if theme is not None else "#303030"
        self.segments.setPen(pg.mkPen(colour, width=1.5, style=pg.QtCore.Qt.PenStyle.DotLine))
        self.feet.setPen(pg.mkPen(colour, width=1.2))
        self.feet.setBrush(pg.mkBrush(255, 255, 255, 230))
        self.estimates.setPen(pg.mkPen("#b06000", width=1.6))

    def draw(self, snapshot) -> None:
        if snapshot is not None and snapshot is not self._snap:  # the canvas shows a snapshot not computed yet
            self.set_snapshot(snapshot)

    def set_enabled(self, on: bool) -> None:
        self.enabled = bool(on)
        for it in (self.segments, self.feet, self.estimates):
            it.setVisible(self.enabled)
        self.caption.setVisible(self.enabled)
        if self.enabled and self._snap is not None:
            self.set_snapshot(self._snap)

    def set_snapshot(self, snap) -> None:
        """Recompute for this snapshot (off the UI thread) when the layer is shown."""
        self._snap = snap
        if not self.enabled or snap is None or self.canvas.problem is None:
            return
        pts = self.canvas.problem.points
        if pts.n != self.canvas.scene_model.n:
            return
        X = np.array(pts.X, dtype=float)
        y = pts.y if pts.n and pts.classes.max() <= 1 else None
        self._cancel()
        task = self._task = Task(self, name="percviz-input-distances")
        task.done.connect(lambda res, t=task: self._finished(t, X, res, snap))
        task.failed.connect(lambda text, t=task: self._failed(t, text))
        task.start(_compute, snap.decision, X, y)

    def _cancel(self) -> None:
        task, self._task = self._task, None
        if task is not None:
            task.cancel()  # a running computation finishes on its thread; its result is dropped
            self._cancelled = [t for t in self._cancelled if t.running] + [task]

    def wait(self, timeout: float = 30.0) -> None:
        """Block until the pending computation is drawn (tests, screenshots); TimeoutError after `timeout` s."""
        task = self._task
        if task is None:
            return
        if not task.wait(int(1000 * timeout)):
            raise TimeoutError(f"input distances not computed within {timeout} s")
        task.deliver()

    def _finished(self, task, X, res, snap) -> None:
        if task is self._task:
            self._task = None
            self._draw(X, res, snap)

    def _failed(self, task, text: str) -> None:
        if task is self._task:  # say it, draw nothing
            self._task = None
            self._clear()
            self.caption.setText(f"input distances unavailable: {text}")

    def _clear(self) -> None:
        self.segments.setData([], [])
        self.feet.setData([])
        self.estimates.setData([])

    def _draw(self, X: np.ndarray, res: InputDistances | None, snap) -> None:
        self.result = res
        self.caption.setText(caption_text(res, snap, self.canvas.solver_cls))
        self.caption.setToolTip(f"{MARGINS['input'].tooltip}")
        self.caption.setMinimumWidth(self.caption.sizeHint().width())  # the status bar would squeeze it
        if res is None or not res.has_curve:
            self._clear()
            self.updated.emit()
            return
        ok = np.isfinite(res.distances) & np.isfinite(res.feet).all(axis=1)
        starts, ends = X[ok], res.feet[ok]
        pairs = np.empty((2 * len(starts), 2))
        pairs[0::2], pairs[1::2] = starts, ends
        self.segments.setData(pairs[:, 0], pairs[:, 1], connect="pairs")
        self.feet.setData(ends[:, 0], ends[:, 1])
        est = snap.feet
        if est is not None and len(est) == len(X) and np.isfinite(est).all():
            self.estimates.setData(est[:, 0], est[:, 1])
        else:
            self.estimates.setData([])
        self.updated.emit()

    def segment_data(self) -> tuple[np.ndarray, np.ndarray]:
        """(starts, ends) of the segments drawn now."""
        x, y = self.segments.getData()
        if x is None or len(x) == 0:
            return np.zeros((0, 2)), np.zeros((0, 2))
        P = np.column_stack([x, y])
        return P[0::2], P[1::2]

    def shutdown(self, wait_ms: int = 3000) -> bool:
        """The window closes: drop the computation and wait for its threads (True when none runs)."""
        self._cancel()
        return all(t.wait(wait_ms) for t in self._cancelled)
