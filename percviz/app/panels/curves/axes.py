"""The curves' axes and title: decade and iteration ticks that never crowd, names shown only whole."""

from __future__ import annotations

import math

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import Qt
from PySide6.QtGui import QFontMetrics, QFontMetricsF, QPainter
from PySide6.QtWidgets import QLabel


class _WholeLabel(QLabel):
    """A one-line label that shows its text, or its part before a double space, only whole (never "Converge…")."""

    @property
    def shown_text(self) -> str:
        fm = QFontMetrics(self.font())
        return next((t for t in (self.text(), self.text().split("  ")[0]) if fm.horizontalAdvance(t) <= self.width()), "")

    def paintEvent(self, event) -> None:
        painter = QPainter(self)
        painter.setFont(self.font())
        painter.setPen(self.palette().color(self.foregroundRole()))
        painter.drawText(self.rect(), int(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter), self.shown_text)
        painter.end()


def _fit_axis_label(p: pg.PlotItem) -> None:
    """The y axis's name only where the plot is tall enough for it (the legend names every plot anyway):
    a short plot at a projector's font showed 'margi' and 'count'."""
    ax = p.getAxis("left")
    if not ax.labelText:
        return
    need = QFontMetricsF(ax.label.font()).horizontalAdvance(ax.labelText) + 6
    fits = p.vb.height() >= need
    if fits != ax.label.isVisible():
        p.showLabel("left", fits)


def _ticks_in(step: float, lo: float, hi: float) -> int:
    """How many multiples of step lie in [lo, hi]."""
    return max(0, math.floor(hi / step + 1e-9) - math.ceil(lo / step - 1e-9) + 1)


class _DecadeAxis(pg.AxisItem):
    """Log axes labelled at the decades (or at 1, 2, 5 × 10^k on short ranges), never crowded; on a linear axis
    the labels are at least 1.25 lines apart (a short plot at a projector's font piled 0, 0.2, …, 1.0 up)."""

    def tickSpacing(self, minVal, maxVal, size):
        levels = super().tickSpacing(minVal, maxVal, size)
        dif = maxVal - minVal
        if self.logMode or not levels or dif <= 0 or size <= 0 or self.orientation not in ("left", "right"):
            return levels
        line = QFontMetricsF(self.style.get("tickFont") or self.font()).height()
        major, steps = levels[0][0], 0
        while major / dif * size < 1.25 * line and steps < 12:  # the next of 1, 2, 5 × 10^k
            mantissa = major / 10 ** math.floor(math.log10(major))
            major *= 2.5 if round(mantissa) == 2 else 2.0
            steps += 1
        # a short plot: the coarsest of 1, 2, 2.5, 5 × 10^k that still labels two values (they are then more
        # than size/4 apart: a line at least on a plot PLOT_FLOOR_LINES lines tall)
        while _ticks_in(major, minVal, maxVal) < 2 and major > dif * 1e-6:
            mantissa = round(major / 10 ** math.floor(math.log10(major)), 6)
            major /= 1.25 if mantissa == 2.5 else 2.0
            steps += 1
        return levels if steps == 0 else [(major, 0.0)]

    def logTickValues(self, minVal, maxVal, size, stdTicks):
        decades = list(range(math.ceil(minVal), math.floor(maxVal) + 1))
        if len(decades) >= 2:
            step = max(1, math.ceil(len(decades) / max(2.0, size / 30.0)))
            return [(float(step), [float(d) for d in decades[::step]])]
        # less than two decades in view: 1, 2 and 5 times the powers of ten
        values = [
            d + math.log10(m) for d in range(math.floor(minVal), math.ceil(maxVal) + 1) for m in (1, 2, 5)
            if minVal <= d + math.log10(m) <= maxVal
        ]
        if len(values) < 2 and maxVal > minVal:
            # a narrow range (e.g. 0.31…0.33): evenly spaced round values, so the axis is never bare
            lo, hi = 10.0**minVal, 10.0**maxVal
            mag = 10.0 ** math.floor(math.log10((hi - lo) / 3))
            # the coarsest of 10, 5, 2, 1 × mag that labels two values (5 alone labelled only "5" on 2.75…9.75)
            for step in (10 * mag, 5 * mag, 2 * mag, mag, mag / 2):
                values = [math.log10(v) for v in np.arange(math.ceil(lo / step) * step, hi + step * 1e-9, step) if v > 0]
                if len(values) >= 2:
                    break
        return [(None, values)]

    def tickStrings(self, values, scale, spacing):
        if self.logMode and any(float(v) != round(float(v)) for v in values):  # not decades: '0.32', not '0.3'
            out = []
            for v in values:
                x = 10.0 ** float(v)
                out.append(f"{x:.3g}" if 1e-3 <= abs(x) < 1e4 else f"{x:.0e}".replace("e-0", "e-").replace("e+0", "e"))
            return out
        return super().tickStrings(values, scale, spacing)


#: The decade axis for other log–log plots (the margin sweep).
DecadeAxis = _DecadeAxis


class _IterationAxis(pg.AxisItem):
    """Iteration counts as 20k, 1.5M, and major ticks far enough apart for their labels: five digits at a
    projector's font ran into each other on a narrow plot's axis."""

    def tickSpacing(self, minVal, maxVal, size):
        levels = super().tickSpacing(minVal, maxVal, size)
        dif = maxVal - minVal
        if not levels or dif <= 0 or size <= 0:
            return levels
        # iterations are whole numbers: no tick between two of them (never 0.2, 0.4, …)
        levels = [(max(1.0, step), offset) for step, offset in levels if step >= 1.0] or [(1.0, 0.0)]
        major = levels[0][0]
        metrics = QFontMetricsF(self.style.get("tickFont") or self.font())

        def room(step: float) -> float:  # the widest label at this step, and some space
            top = math.floor(max(abs(minVal), abs(maxVal)) / step) * step
            return 1.3 * metrics.horizontalAdvance(self.tickStrings([top], 1, step)[0])

        steps = 0
        while major / dif * size < room(major) and steps < 12:  # the next of 1, 2, 5 × 10^k
            mantissa = major / 10 ** math.floor(math.log10(major))
            major *= 2.5 if round(mantissa) == 2 else 2.0
            steps += 1
        return levels if steps == 0 else [(major, 0.0), (major / 5, 0.0)]

    def tickStrings(self, values, scale, spacing):
        out = []
        for v in values:
            v = float(v) * scale
            if abs(v) >= 1e6 and spacing * scale >= 1e5:
                out.append(f"{v / 1e6:g}M")
            elif abs(v) >= 1e3 and spacing * scale >= 1e3:  # "5k": a narrow plot at 3× had room for no "5000"
                out.append(f"{v / 1e3:g}k")
            else:
                out.append(f"{v:g}")
        return out
