"""View ▸ input distances: on the canvas, a segment from each point to the nearest point of the curve f = 0.

Self-contained: the layer adds its own pyqtgraph items to a canvas's plot and is fed snapshots (the main window
connects it to the session). The distances come from percviz.core.input_distance, computed on one worker
thread (a plain executor, not a QThread) and picked up by a timer; a newer snapshot makes an older result stale.
"""

from __future__ import annotations

from concurrent.futures import Future, ThreadPoolExecutor

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QObject, QTimer, Signal
from PySide6.QtWidgets import QLabel

from percviz.core.glossary import MARGINS, margin_text
from percviz.core.input_distance import InputDistances, input_distances

#: How often a pending computation is polled (ms).
POLL_MS = 25


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


class InputDistanceLayer(QObject):
    """Segments x_i → foot of the perpendicular on f = 0 (and Akaho's x̂_i when the snapshot has them)."""

    updated = Signal()

    def __init__(self, canvas, parent=None):
        super().__init__(parent or canvas)
        self.canvas = canvas
        self.segments = pg.PlotCurveItem(connect="pairs", antialias=True)
        self.feet = pg.ScatterPlotItem(pxMode=True, size=6, symbol="o")
        self.estimates = pg.ScatterPlotItem(pxMode=True, size=9, symbol="x")
        for z, it in ((15, self.segments), (16, self.feet), (16, self.estimates)):
            it.setZValue(z)
            canvas.plot.addItem(it)
        self.caption = QLabel("")
        self.caption.setObjectName("input_margin")
        self.caption.setAccessibleName("input margin")
        self.result: InputDistances | None = None
        self.enabled = False
        self._pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="input-distances")
        self._pending: Future | None = None
        self._wanted = 0
        self._snap = None
        self._timer = QTimer(self)
        self._timer.setInterval(POLL_MS)
        self._timer.timeout.connect(self._poll)
        self.apply_theme(getattr(canvas, "theme", None))
        self.set_enabled(False)

    def apply_theme(self, theme) -> None:
        colour = getattr(theme, "foreground", None) or "#303030"
        self.segments.setPen(pg.mkPen(colour, width=1.5, style=pg.QtCore.Qt.PenStyle.DotLine))
        self.feet.setPen(pg.mkPen(colour, width=1.2))
        self.feet.setBrush(pg.mkBrush(255, 255, 255, 230))
        self.estimates.setPen(pg.mkPen("#b06000", width=1.6))

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
        self._wanted += 1
        if self._pending is not None:
            self._pending.cancel()  # not started yet: drop it (a running one finishes and is ignored)
        self._pending = self._pool.submit(_compute, snap.decision, X, y)
        self._pending.generation = self._wanted  # type: ignore[attr-defined]
        self._pending.inputs = (X, snap)  # type: ignore[attr-defined]
        self._timer.start()

    def wait(self, timeout: float = 30.0) -> None:
        """Block until the pending computation is drawn (tests, screenshots)."""
        if self._pending is not None:
            self._pending.result(timeout)
            self._poll()

    def _poll(self) -> None:
        fut = self._pending
        if fut is None or not fut.done():
            return
        self._timer.stop()
        self._pending = None
        if fut.cancelled() or fut.generation != self._wanted:  # type: ignore[attr-defined]
            return
        X, snap = fut.inputs  # type: ignore[attr-defined]
        try:
            res = fut.result()
        except Exception as exc:  # say it, draw nothing
            self._clear()
            self.caption.setText(f"input distances unavailable: {exc}")
            return
        self._draw(X, res, snap)

    def _clear(self) -> None:
        self.segments.setData([], [])
        self.feet.setData([])
        self.estimates.setData([])

    def _draw(self, X: np.ndarray, res: InputDistances | None, snap) -> None:
        self.result = res
        self.caption.setText(caption_text(res, snap, getattr(self.canvas, "solver_cls", None)))
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
        est = getattr(snap, "feet", None)
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

    def shutdown(self) -> None:
        self._timer.stop()
        self._pool.shutdown(wait=True, cancel_futures=True)
