"""The convergence curves as parts: ranges (groups, nice ranges, buffers), axes, legend, plots, view."""

from percviz.app.panels.curves.axes import DecadeAxis
from percviz.app.panels.curves.ranges import (
    GROUPS,
    MIN_FILL,
    OFF_SCALE,
    PLOT_FLOOR_LINES,
    SHORT_LABELS,
    fit_range,
    group_of,
    nice_ceil,
)
from percviz.app.panels.curves.view import CurvesView

__all__ = ["GROUPS", "MIN_FILL", "OFF_SCALE", "PLOT_FLOOR_LINES", "SHORT_LABELS", "CurvesView", "DecadeAxis",
           "fit_range", "group_of", "nice_ceil"]
