"""Text cut or overlapping in a window, measured with QFontMetrics and item bounding boxes (issue 25 point 7).

`text_problems(root)` walks the visible widgets under root and the pyqtgraph plots in them and returns one line per
problem: a one-line label, button or check box whose text is wider than its room; a wrapping label taller than its
box; a plot's text item outside its view box or over another text item of the same view; two tick labels of an axis
over each other. A text elided on purpose with its whole text in the tooltip is not a problem.
"""

from __future__ import annotations

import pyqtgraph as pg
from PySide6.QtCore import QRectF
from PySide6.QtGui import QFontMetricsF, QImage, QPainter, QTextDocument
from PySide6.QtWidgets import QAbstractButton, QCheckBox, QComboBox, QLabel, QStyle, QStyleOptionComboBox, QWidget

#: Pixels a text may pass its box by (antialiasing, the font's side bearings).
SLACK = 2.0


def _shown(w: QWidget) -> bool:
    return w.isVisible() and w.width() > 0 and w.height() > 0


def _plain(label: QLabel) -> str:
    if label.textFormat() == 0 or "<" not in label.text():  # Qt.PlainText, or no markup
        return label.text()
    doc = QTextDocument()
    doc.setHtml(label.text())
    return doc.toPlainText()


def _label_problem(label: QLabel) -> str | None:
    text = _plain(label).strip()
    if not text or label.pixmap() is not None and not label.pixmap().isNull():
        return None
    room = label.contentsRect()
    if label.wordWrap():
        need = label.heightForWidth(room.width()) if label.hasHeightForWidth() else label.sizeHint().height()
        if need > room.height() + SLACK and need > label.sizeHint().height() - 1e-9 and need - room.height() > SLACK:
            return f"wrapped text taller than its box ({need} > {room.height()} px): {text[:60]!r}"
        return None
    shown = getattr(label, "shown_text", None)  # a label that paints only a whole part of its text says which
    if shown is not None:
        text = shown
    if shown is not None or label.textFormat() == 0 or "<" not in label.text():
        fm = QFontMetricsF(label.font())
        widest = max((fm.horizontalAdvance(line) for line in text.splitlines()), default=0.0)
    else:  # rich text: laid out as QLabel does, in the label's font
        doc = QTextDocument()
        doc.setDefaultFont(label.font())
        doc.setDocumentMargin(0)
        doc.setHtml(label.text())
        widest = doc.idealWidth()
    if widest > room.width() + SLACK and text not in label.toolTip():
        return f"text wider than its box ({widest:.0f} > {room.width()} px): {text[:60]!r}"
    return None


def _button_problem(button: QAbstractButton) -> str | None:
    text = button.text().replace("&", "")
    if not text:
        return None
    fm = QFontMetricsF(button.font())
    need = fm.horizontalAdvance(text) + (button.iconSize().width() + 4 if not button.icon().isNull() else 0)
    room = button.width() - (20 if isinstance(button, QCheckBox) else 8)
    if need > room + SLACK and text not in button.toolTip():
        return f"button text wider than the button ({need:.0f} > {room} px): {text!r}"
    return None


def _combo_problem(combo: QComboBox) -> str | None:
    text = getattr(combo, "shown_text", None) or combo.currentText()  # a WholeNameCombo shows a whole short name
    if not text:
        return None
    fm = QFontMetricsF(combo.font())
    opt = QStyleOptionComboBox()
    combo.initStyleOption(opt)
    room = combo.style().subControlRect(QStyle.ComplexControl.CC_ComboBox, opt,
                                        QStyle.SubControl.SC_ComboBoxEditField, combo).width()
    if fm.horizontalAdvance(text) > room + SLACK and text not in combo.toolTip():
        return f"combo text wider than the box ({fm.horizontalAdvance(text):.0f} > {room} px): {text!r}"
    return None


def plot_problems(plot: pg.PlotWidget, name: str) -> list[str]:
    out = []
    vb = plot.getPlotItem().getViewBox() if isinstance(plot, pg.PlotWidget) else plot.vb
    inside = vb.sceneBoundingRect().adjusted(-SLACK, -SLACK, SLACK, SLACK)
    texts = [it for it in vb.addedItems if isinstance(it, pg.TextItem) and it.isVisible()
             and it.textItem.toPlainText().strip()]
    boxes = []
    for it in texts:
        box = it.mapRectToScene(it.boundingRect())
        text = it.textItem.toPlainText().strip()
        if box.intersects(inside) and not inside.contains(box):  # (wholly outside: not drawn, not cut)
            out.append(f"{name}: label cut at the view's edge: {text[:40]!r}")
        boxes.append((box.adjusted(SLACK, SLACK, -SLACK, -SLACK), text))
    for i, (a, ta) in enumerate(boxes):
        for b, tb in boxes[i + 1:]:
            if a.intersects(b):
                out.append(f"{name}: labels overlap: {ta[:30]!r} and {tb[:30]!r}")
    return out


def axis_label_rects(axis: pg.AxisItem) -> list[tuple[QRectF, str]]:
    """The tick labels an axis draws: (rectangle in the axis's coordinates, text)."""
    img = QImage(10, 10, QImage.Format.Format_ARGB32)
    painter = QPainter(img)  # generateDrawSpecs measures with a painter's font metrics
    try:
        specs = axis.generateDrawSpecs(painter)
    finally:
        painter.end()
    return [] if specs is None else [(QRectF(rect), text) for rect, _flags, text in specs[2]]


def _axis_problems(plot_item: pg.PlotItem, name: str) -> list[str]:
    out = []
    for side in ("left", "bottom"):
        axis = plot_item.getAxis(side)
        if not axis.isVisible() or axis.style.get("showValues") is False:
            continue
        rects = axis_label_rects(axis)
        for i, (a, ta) in enumerate(rects):
            for b, tb in rects[i + 1:]:
                if a.adjusted(1, 1, -1, -1).intersects(b):
                    out.append(f"{name}: {side} ticks overlap: {ta!r} and {tb!r}")
    return out


def text_problems(root: QWidget) -> list[str]:
    """Every cut or overlapping text visible under root (one line each)."""
    out = []
    for w in [root, *root.findChildren(QWidget)]:
        if not _shown(w):
            continue
        named = w
        while named is not None and not named.accessibleName() and named is not root:
            named = named.parentWidget()
        where = (named.accessibleName() if named is not None else "") or type(w).__name__
        problem = None
        if isinstance(w, QLabel):
            problem = _label_problem(w)
        elif isinstance(w, QAbstractButton):
            problem = _button_problem(w)
        elif isinstance(w, QComboBox):
            problem = _combo_problem(w)
        if problem:
            out.append(f"{where}: {problem}")
        if isinstance(w, pg.PlotWidget):
            out += plot_problems(w, where)
            out += _axis_problems(w.getPlotItem(), where)
        elif isinstance(w, pg.GraphicsLayoutWidget):
            for item in w.ci.items:
                if isinstance(item, pg.PlotItem) and item.isVisible():
                    out += _axis_problems(item, where)
    return out
