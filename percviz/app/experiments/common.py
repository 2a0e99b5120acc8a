"""What the experiment windows share: one colour per algorithm, plot styling from the theme, PNG/CSV export,
stopping their background task."""

from __future__ import annotations

import csv

import pyqtgraph as pg
from PySide6.QtGui import QFont

#: One colour per lane/algorithm, distinguishable by colour-blind viewers (Okabe–Ito).
LANE_COLORS = ("#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9")


def lane_color(i: int) -> str:
    return LANE_COLORS[i % len(LANE_COLORS)]


def style_plot(plot: pg.PlotWidget, theme) -> None:
    """Background, axis pens and fonts of a plot from a percviz Theme (scale ≥ 2 for presentation)."""
    if theme is None:
        return
    plot.setBackground(theme.background)
    font = QFont()
    font.setPointSizeF(theme.font_pt if hasattr(theme, "font_pt") else 10.0 * theme.scale)
    item = plot.getPlotItem()
    for name in ("left", "bottom"):
        ax = item.getAxis(name)
        ax.setPen(pg.mkPen(theme.foreground))
        ax.setTextPen(pg.mkPen(theme.foreground))
        ax.setTickFont(font)
        ax.label.setFont(font)
    item.titleLabel.item.setFont(font)
    legend = item.legend
    if legend is not None:
        legend.setLabelTextColor(theme.foreground)
        legend.setLabelTextSize(f"{font.pointSizeF():.1f}pt")
        for _sample, label in legend.items:  # setAttr alone does not re-render existing labels
            label.setText(label.text)
        legend.setBrush(pg.mkBrush(theme.background + "cc" if theme.background.startswith("#") else theme.background))


def canvas_theme(theme):
    """Small multiples stay legible but fit: their canvases grow at most 1.5× in presentation mode."""
    return None if theme is None else theme.with_scale(min(theme.scale, 1.5))


def line_width(theme) -> float:
    return 2.0 * (theme.scale if theme is not None else 1.0)


def write_csv(path, header, rows) -> None:
    """A plain CSV: one header row, then the rows (None written as an empty cell)."""
    with open(path, "w", newline="", encoding="utf-8") as fh:
        w = csv.writer(fh)
        w.writerow(header)
        for r in rows:
            w.writerow(["" if v is None else v for v in r])


def save_png(widget, path) -> bool:
    """Render a widget to a PNG file (offscreen works too)."""
    return bool(widget.grab().save(str(path), "PNG"))


#: How long closing a window waits for its task's thread (a daemon thread: one still busy ends with the process).
CLOSE_WAIT_MS = 3000


def stop_task(task, timeout_ms: int | None = CLOSE_WAIT_MS) -> None:
    """Cancel a background.Task (nothing more is emitted) and wait for its thread, at most timeout_ms."""
    if task is not None:
        task.cancel()
        task.wait(timeout_ms)
