"""The status bar's message as a label that shows whole words: what has no room ends in '…', the rest in its tooltip."""

from __future__ import annotations

from PySide6.QtCore import QSize
from PySide6.QtGui import QFontMetrics
from PySide6.QtWidgets import QLabel, QSizePolicy, QStatusBar


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
