"""The main window's status bar: its message in whole words (what has no room ends in '…', the whole in the tooltip),
the cursor's readout while the mouse is over the canvas, the point counts."""

from __future__ import annotations

from PySide6.QtCore import QEvent, QObject, QSize, Qt
from PySide6.QtGui import QFontMetrics
from PySide6.QtWidgets import QLabel, QSizePolicy, QStatusBar, QWidget

from percviz.app.panels.overlays import ReadoutLabel


def whole_words(text: str, fm: QFontMetrics, room: int) -> str:
    """text if it fits in room pixels, else its longest run of whole words followed by ' …' that does."""
    if fm.horizontalAdvance(text) <= room:
        return text
    words = text.split(" ")
    for k in range(len(words) - 1, 0, -1):
        head = " ".join(words[:k]).rstrip(" ,;:·=")
        if head and fm.horizontalAdvance(head + " …") <= room:
            return head + " …"
    return "…"


class StatusLine(QLabel):
    """Takes the left of a QStatusBar (its own painted message then has no room) and shows the bar's message."""

    def __init__(self, bar: QStatusBar):
        super().__init__("")
        self.setObjectName("status_message")
        self.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        self.full_text = ""
        bar.insertPermanentWidget(0, self, 1)
        bar.messageChanged.connect(self.show_text)

    @property
    def shown_text(self) -> str:
        """The part of the message painted (text_probe reads it)."""
        return self.text()

    def show_text(self, text: str) -> None:
        self.full_text = text
        self._fit()

    def minimumSizeHint(self) -> QSize:
        return QSize(0, super().minimumSizeHint().height())

    def resizeEvent(self, event) -> None:
        super().resizeEvent(event)
        self._fit()

    def changeEvent(self, event) -> None:
        super().changeEvent(event)
        self._fit()  # a new font (the presentation scale)

    def _fit(self) -> None:
        shown = whole_words(self.full_text, QFontMetrics(self.font()), self.contentsRect().width() - 2)
        if shown != self.text():
            self.setText(shown)
        tip = self.full_text if shown != self.full_text else ""
        if tip != self.toolTip():
            self.setToolTip(tip)


class StatusParts(QObject):
    """The bar's labels: the message (StatusLine), the cursor's readout, the point counts, an optional extra."""

    def __init__(self, bar: QStatusBar, canvas_viewport: QWidget, extra: QWidget | None = None):
        super().__init__(bar)
        self.line = StatusLine(bar)
        self.cursor = ReadoutLabel("x = -00.000   y = -00.000")  # as wide as its widest text, at any scale
        self.cursor.setObjectName("cursor")
        self.cursor.setAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        bar.addPermanentWidget(self.cursor)
        self.cursor.hide()  # until the mouse is over the canvas
        self.points = QLabel("")
        self.points.setObjectName("point_count")
        bar.addPermanentWidget(self.points)
        if extra is not None:
            bar.addPermanentWidget(extra)
        self._viewport = canvas_viewport
        canvas_viewport.installEventFilter(self)

    def show_cursor(self, x: float, y: float) -> None:
        self.cursor.setText(f"x = {x:.3f}   y = {y:.3f}")
        self.cursor.show()

    def eventFilter(self, obj, event) -> bool:
        """Off the canvas the cursor's readout gives its room to the message (at 3×: 465 of 1280 px)."""
        if event.type() == QEvent.Type.Leave and obj is self._viewport:
            self.cursor.hide()
        return super().eventFilter(obj, event)
