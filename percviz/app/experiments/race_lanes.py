"""One lane of the race window: its canvas (no caption over the data) with the lane's name above it and its
caption under it, worded like the main window's (iteration, the glossary's outcome words, which margin)."""

from __future__ import annotations

import math

from PySide6.QtCore import QRect, Qt
from PySide6.QtGui import QFontMetrics
from PySide6.QtWidgets import QLabel, QSizePolicy, QVBoxLayout, QWidget

from percviz.app.panels.canvas import CanvasView
from percviz.app.experiments.common import lane_color
from percviz.app.experiments.names import NBSP, lane_margin, lane_name, outcome_words


def fmt(v) -> str:
    """A value for a caption or the table: 4 significant digits, '' when there is none (never 'nan')."""
    if v is None or not math.isfinite(v):
        return ""
    return (f"{v:.4g}" if v == 0 or 1e-3 <= abs(v) < 1e5 else f"{v:.3e}").replace("-", "−")


class LaneCanvas(CanvasView):
    """A canvas whose run caption is drawn under it by its lane, not over the points."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.caption_layer.shown = False


class WrappedLabel(QLabel):
    """A label that wraps at spaces (values keep their symbol: non-breaking spaces) and asks for the height it needs."""

    def __init__(self, text: str = "", parent=None):
        super().__init__(text, parent)
        self.setWordWrap(True)
        self.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Minimum)
        self.setTextFormat(Qt.TextFormat.PlainText)

    def needed(self, width: int | None = None) -> QRect:
        """The rectangle its text takes when wrapped to `width` (its contents width by default)."""
        w = self.contentsRect().width() if width is None else width
        return QFontMetrics(self.font()).boundingRect(QRect(0, 0, max(1, w), 100000), Qt.TextFlag.TextWordWrap
                                                      | int(self.alignment()), self.text())

    def fits(self) -> bool:
        """Whether its whole text is shown: wrapped lines inside its contents rectangle, no word wider than it."""
        r, room = self.needed(), self.contentsRect()
        widest = max((QFontMetrics(self.font()).horizontalAdvance(w) for w in self.text().split()), default=0)
        return r.height() <= room.height() and widest <= room.width()


class Lane(QWidget):
    """The lane's name (in its colour), its canvas and its caption (iteration · outcome, then its margin)."""

    def __init__(self, index: int, lane, scene, theme=None, parent=None):
        super().__init__(parent)
        self.index, self.lane = index, lane
        self.margin_term = lane_margin(lane)
        self.canvas = LaneCanvas(scene, theme=theme)
        self.canvas.setAccessibleName(f"race-canvas-{index}")
        self.canvas.setMinimumSize(150, 120)
        self.name = lane_name(lane)
        self.title = self.canvas.title  # the canvas's own title row names the lane, in the lane's colour
        self.title.setText(self.name)
        self.title.setToolTip(self.name)
        self.title.setWordWrap(True)
        self.title.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Minimum)
        self.canvas.header.setStretchFactor(self.title, 100)  # the name takes the row, not the stretch after it
        self.caption = WrappedLabel()
        self.caption.setAccessibleName(f"race-caption-{index}")
        lay = QVBoxLayout(self)
        lay.setContentsMargins(0, 0, 0, 0)
        lay.setSpacing(2)
        lay.addWidget(self.canvas, 1)
        lay.addWidget(self.caption)
        self.restyle()

    def restyle(self) -> None:
        self.title.setStyleSheet(f"color: {lane_color(self.index)}; font-weight: bold")

    def show_snapshot(self, snap) -> None:
        self.canvas.set_snapshot(snap)
        if snap is None:
            self.caption.setText("")
            return
        head = f"iteration{NBSP}{snap.iteration} · {outcome_words(snap)}"
        value = fmt(snap.metrics.get("margin"))
        line = f"{self.margin_term.name} {self.margin_term.symbol}{NBSP}={NBSP}{value}" if value else ""
        self.caption.setText("\n".join(t for t in (head, line) if t))
        self.caption.setToolTip(self.caption.text().replace(NBSP, " ") + (f"\n{self.margin_term.tooltip}" if value else ""))
