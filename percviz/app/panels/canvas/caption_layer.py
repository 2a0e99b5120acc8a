"""The run's caption on the canvas: iteration, status and margin of the snapshot shown, top left over the plot.

The classroom's larger caption (percviz.app.panels.overlays.RunOverlay, with its line in the title row) takes
its place when attached (`take_over`); it is then restyled through this layer with every other layer, so a theme
or scale change reaches it even while its text stays the same (issue 25, point 1).
"""

from __future__ import annotations

import numpy as np
from PySide6.QtCore import QRectF, Qt
from PySide6.QtGui import QColor, QPen
from PySide6.QtWidgets import QGraphicsRectItem, QGraphicsSimpleTextItem

from percviz.app.panels.canvas.layer import CanvasLayer
from percviz.core.glossary import MARGINS, margin_text


def caption_parts(snap, solver_cls) -> list[str]:
    """['iteration 12', 'separator found', 'normalized margin m(α) = 0.0123', …] of a snapshot."""
    parts = [f"iteration {snap.iteration}", snap.status.text]
    margin = margin_text(solver_cls, dict(snap.metrics), lambda v: f"{v:.3g}", snap.status)
    if margin:  # which margin, as everywhere (core.glossary)
        parts.append(margin)
    im = snap.metrics.get("input_margin")  # measured in the plane (input-space SVM)
    if im is not None and np.isfinite(im):
        parts.append(f"{MARGINS['input'].short} = {im:.3g}")
    return parts


class CaptionLayer(CanvasLayer):
    """A screen-fixed text with a translucent box behind it (or, once taken over, the classroom's caption)."""

    name = "caption"

    def __init__(self):
        self.box = QGraphicsRectItem()
        self.box.setZValue(99)
        self.box.setPen(QPen(Qt.PenStyle.NoPen))
        self.text = QGraphicsSimpleTextItem()
        self.text.setPos(12, 8)
        self.text.setZValue(100)
        self.run_overlay = None  # the classroom's caption, when it took this one's place
        self.shown = True  # False: no caption over the plot (a race lane writes its own under the canvas)

    def attach(self, canvas) -> None:
        super().attach(canvas)
        self.box.setParentItem(canvas.viewbox)
        self.text.setParentItem(canvas.viewbox)

    def take_over(self, run_overlay) -> None:
        """The classroom's caption replaces this one (kept, transparent) and is restyled with the layers."""
        self.run_overlay = run_overlay
        for own in (self.text, self.box):
            own.setOpacity(0.0)

    def apply_theme(self, theme, scale=None) -> None:
        t = theme
        self.text.setFont(t.font(t.font_pt * 1.15, bold=True))
        self.text.setBrush(QColor(t.foreground))
        box = QColor(t.background)
        box.setAlpha(215)
        self.box.setBrush(box)
        self.fit_box()
        if self.run_overlay is not None:
            self.run_overlay.apply_theme(theme)

    def clear(self) -> None:
        self.text.setText("")
        self.fit_box()

    def draw(self, snap) -> None:
        if snap is None:
            return
        if not self.shown:
            self.clear()
            return
        parts = caption_parts(snap, self.canvas.solver_cls)
        self.text.setText("   ·   ".join(parts))
        if self.text.boundingRect().width() > self.canvas.viewbox.width() - 30:
            self.text.setText("\n".join(parts))  # a narrow view: one item per line
        self.fit_box()

    def fit_box(self) -> None:
        r = self.text.boundingRect()
        self.box.setVisible(bool(self.text.text()))
        self.box.setRect(QRectF(6, 5, r.width() + 12, r.height() + 6))
