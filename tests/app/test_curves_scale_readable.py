"""Every curves plot carries at least two labelled y values, a line apart, at the desk, 2× and 3× in the real
window (1280×800 and 1920×1080), on a fresh run and a long one: at 2× the margin plot showed a lone '0'."""

from __future__ import annotations

import pytest
from helpers import settle
from PySide6.QtGui import QFontMetricsF

from percviz.core.presets import SHIPPED_DIR



def _labels(p):
    """The y values the axis labels for its current range and length, and the least pixel gap between two."""
    ax, height = p.getAxis("left"), p.vb.height()
    lo, hi = p.vb.viewRange()[1]
    levels = ax.tickValues(lo, hi, height)
    values = sorted(v for v in levels[0][1] if lo <= v <= hi)  # the labelled (first) level
    strings = ax.tickStrings(values, 1.0, levels[0][0] or 1.0)
    gap = min((b - a) / (hi - lo) * height for a, b in zip(values, values[1:])) if len(values) > 1 else 0.0
    return strings, gap, QFontMetricsF(ax.style.get("tickFont") or ax.font()).height()


@pytest.mark.parametrize("size", [(1280, 800), (1920, 1080)])
@pytest.mark.parametrize("scene,steps", [("default", 0), ("thin-margin", 3000)])
def test_every_curves_plot_shows_two_labelled_y_values_at_any_scale(hall_window, size, scene, steps):
    w = hall_window(SHIPPED_DIR / f"{scene}.json")
    if scene == "thin-margin":
        w.controls.select_algorithm("fixed-increment")
        w.session.wait_idle()
    if steps:
        w.session.advance_sync(steps)
    w.resize(*size)
    curves = w.panels["curves"]
    for scale in (1.0, 2.0, 3.0):
        if scale > 1:
            w.classroom.set_presentation_scale(scale)
        w.classroom.set_presentation(scale > 1)
        settle(8, 30)
        assert curves.plots and curves.buffers.n > 0
        for g, p in curves.plots.items():
            strings, gap, line = _labels(p)
            assert len(strings) >= 2, (scale, g, strings, p.vb.height())
            assert len(set(strings)) == len(strings), (scale, g, strings)  # never '0.1', '0.1'
            assert gap >= line, (scale, g, strings, gap, line)  # a line apart: drawn, not one on another
            assert p.vb.height() >= 4 * line - 1, (scale, g, p.vb.height(), line)
        w.classroom.set_presentation(False)
        settle(8, 30)
