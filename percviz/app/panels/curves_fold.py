"""Presenting in a short window: the curves fold under a "Canvas | Curves" tab so the canvas keeps a plot a hall reads.

At 3× in 1280×800 the curves (at their readable floor) and the canvas's title row and axes left the canvas about
190 px of plot. While presenting, whenever the canvas and the curves stacked would leave the canvas's plot under
`plot_target` (300 px; at 3× or more also 45 % of the window's height), the curves leave the splitter for a tab of
their own on a bar under the views; otherwise the splitter gives the canvas at least that target. Leaving
presentation puts both back with the desk's splitter sizes exactly.
"""

from __future__ import annotations

import math
from typing import Callable

from PySide6.QtCore import QEvent, QObject, Qt, QTimer
from PySide6.QtWidgets import QTabBar, QToolBar
from percviz.app.timing import CURVES_FIT_DELAY_MS

#: The canvas's plot is never shorter than this while presenting (px), curves folded if need be.
PLOT_FLOOR_PX = 300
#: At 3× and more, the plot's share of the window's height to aim for.
PLOT_SHARE_3X = 0.45


class CurvesFold(QObject):
    """`window.classroom.presentation_layout.fold`: folds the curves under a tab while presenting in a short window."""

    def __init__(self, window, scale: Callable[[], float] = lambda: 1.0):
        """scale: the presentation's scale now (the plot's target height follows it)."""
        super().__init__(window)
        self.window = window
        self.scale = scale
        self.tabs = QTabBar()
        self.tabs.setObjectName("presentation_views")
        self.tabs.setAccessibleName("presentation views")
        self.tabs.addTab("Canvas")
        self.tabs.addTab("Curves")
        self.tabs.setExpanding(False)
        self.tabs.setDrawBase(False)
        self.tabs.setFocusPolicy(Qt.FocusPolicy.TabFocus)
        self.tabs.setToolTip("The window is too short for the canvas and the curves at this scale: one at a time")
        self.tabs.currentChanged.connect(self._show_tab)
        self.bar = QToolBar("Views", window)
        self.bar.setObjectName("presentation_views_bar")
        self.bar.setMovable(False)
        self.bar.setFloatable(False)
        self.bar.addWidget(self.tabs)
        window.addToolBar(Qt.ToolBarArea.BottomToolBarArea, self.bar)
        self.bar.hide()
        self.active = False
        self.folded = False
        self._desk_sizes: list[int] | None = None
        self._nonplot = 0  # the canvas's height around its plot (title row, axis), last measured
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.setInterval(CURVES_FIT_DELAY_MS)
        self._timer.timeout.connect(self.fit)
        window.splitter.installEventFilter(self)

    # -- entering and leaving ------------------------------------------------------------------------------------
    def start(self) -> None:
        """Presenting from now on: remember the desk's splitter sizes; measured once the new fonts are laid out."""
        if not self.active:
            self.active = True
            self._desk_sizes = self.window.splitter.sizes()
        self._timer.start()

    def stop(self) -> list[int] | None:
        """The desk again: both views in the splitter with the sizes they had (returned, to set again once the
        desk fonts are laid out)."""
        if not self.active:
            return None
        self.active = False
        self._timer.stop()
        self._unfold()
        sizes, self._desk_sizes = self._desk_sizes, None
        if sizes is not None:
            self.window.splitter.setSizes(sizes)
        return sizes

    # -- measuring -----------------------------------------------------------------------------------------------
    def plot_target(self) -> int:
        """The least height (px) of the canvas's plot while presenting at the current scale and window height."""
        scale = self.scale()
        share = PLOT_SHARE_3X if scale >= 3 - 1e-9 else 0.0
        return max(PLOT_FLOOR_PX, math.ceil(share * self.window.height()))

    def plot_height(self) -> int:
        """The canvas's plot (its view box) height in px."""
        return int(round(self.window.panels["canvas"].viewbox.sceneBoundingRect().height()))

    def fit(self) -> None:
        """Fold the curves when stacked they would leave the canvas's plot under the target, else give it the target."""
        if not self.active:
            return
        w = self.window
        canvas, curves = w.panels["canvas"], w.panels["curves"]
        if canvas.isVisible():
            self._nonplot = max(0, canvas.height() - self.plot_height())
        split = w.splitter
        room = split.height() + (self.bar.height() if self.folded else 0)  # the bar goes when the curves unfold
        want_canvas = self._nonplot + self.plot_target()
        need = want_canvas + split.handleWidth() + curves.minimumSizeHint().height()
        if room < need:
            self._fold()
        else:
            self._unfold()
            sizes = split.sizes()
            if sizes[0] < want_canvas:
                split.setSizes([want_canvas, max(1, sum(sizes) - want_canvas)])

    def _fold(self) -> None:
        if self.folded:
            return
        self.folded = True
        self.tabs.blockSignals(True)
        self.tabs.setCurrentIndex(0)
        self.tabs.blockSignals(False)
        self.window.panels["curves"].hide()
        self.bar.show()

    def _unfold(self) -> None:
        if not self.folded:
            return
        self.folded = False
        self.bar.hide()
        self.window.panels["canvas"].show()
        self.window.panels["curves"].show()

    def _show_tab(self, index: int) -> None:
        if not self.folded:
            return
        canvas, curves = self.window.panels["canvas"], self.window.panels["curves"]
        (curves if index == 1 else canvas).show()
        (canvas if index == 1 else curves).hide()

    def eventFilter(self, obj: QObject, event: QEvent) -> bool:
        if self.active and event.type() == QEvent.Type.Resize:
            self._timer.start()  # measured once the layout has settled
        return False


__all__ = ["CurvesFold", "PLOT_FLOOR_PX", "PLOT_SHARE_3X"]
