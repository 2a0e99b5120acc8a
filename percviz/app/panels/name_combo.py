"""A combo box whose closed face shows the chosen name whole, or shortened at a word, never cut mid-word."""

from __future__ import annotations

import re

from PySide6.QtCore import QEvent, Qt
from PySide6.QtGui import QFont, QFontMetrics
from PySide6.QtWidgets import QComboBox, QStyle, QStyleOptionComboBox, QStylePainter

#: The abbreviation a name ends with: "Smoothed Normalized Kernel Perceptron (SNKP)" → "SNKP".
_ABBREVIATION = re.compile(r"^(?P<long>.*\S)\s*\((?P<short>[A-Z][A-Z0-9–-]+)\)$")
ELLIPSIS = "…"


def fitting_name(name: str, fits) -> str:
    """The longest of: the name; "ABBR — first words…"; the abbreviation; "first words…" that `fits`
    (a width test); the first word alone as a last resort (the caller elides it)."""
    name = name.strip()
    if fits(name):
        return name
    m = _ABBREVIATION.match(name)
    long, short = (m["long"], m["short"]) if m else (name, "")
    words = long.split()
    if short:
        for n in range(len(words) - 1, 0, -1):
            text = f"{short} — {' '.join(words[:n])}{ELLIPSIS}"
            if fits(text):
                return text
        if fits(short):
            return short
    for n in range(len(words) - 1, 0, -1):
        text = " ".join(words[:n]) + ELLIPSIS
        if fits(text):
            return text
    return short or words[0]


class WholeNameCombo(QComboBox):
    """A QComboBox that paints `shown_text` (see `fitting_name`) on its closed face; items and data are untouched."""

    def text_width(self) -> int:
        """The room for the text on the closed face (the style's edit field)."""
        opt = QStyleOptionComboBox()
        self.initStyleOption(opt)
        rect = self.style().subControlRect(QStyle.ComplexControl.CC_ComboBox, opt,
                                           QStyle.SubControl.SC_ComboBoxEditField, self)
        return rect.width() - 4  # the style's text margin

    @property
    def shown_text(self) -> str:
        fm, room = QFontMetrics(self.font()), self.text_width()
        text = fitting_name(self.currentText(), lambda t: fm.horizontalAdvance(t) <= room)
        return fm.elidedText(text, Qt.TextElideMode.ElideRight, room) if fm.horizontalAdvance(text) > room else text

    def paintEvent(self, event) -> None:
        painter = QStylePainter(self)
        opt = QStyleOptionComboBox()
        self.initStyleOption(opt)
        painter.drawComplexControl(QStyle.ComplexControl.CC_ComboBox, opt)
        opt.currentText = self.shown_text
        painter.drawControl(QStyle.ControlElement.CE_ComboBoxLabel, opt)

    def changeEvent(self, event) -> None:
        super().changeEvent(event)
        if event.type() == QEvent.Type.FontChange:
            self.fit_popup()  # a presentation font: the list grows with it

    def fit_popup(self) -> None:
        """The list as wide as its longest heading or name (bold headings measured bold), so each shows whole."""
        view, model = self.view(), self.model()
        widest = 0
        for i in range(self.count()):
            font = QFont(model.data(model.index(i, 0), Qt.ItemDataRole.FontRole) or view.font())
            font.setPointSizeF(view.font().pointSizeF())
            widest = max(widest, QFontMetrics(font).horizontalAdvance(self.itemText(i)))
        view.setMinimumWidth(widest + 12 * QFontMetrics(view.font()).averageCharWidth() // 4 + 40)
