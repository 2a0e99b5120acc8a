"""The curves' numbers: metric groups, nice axis ranges, and the growing buffers of each metric."""

from __future__ import annotations

import math

import numpy as np
import pyqtgraph as pg

from percviz.core.solvers.base import METRICS

#: Groups in display order: (id, title).
GROUPS = (("norms", "Norms, criteria"), ("margins", "Margin"), ("counts", "Counts"))


#: Legend labels shorter than METRICS' where those are long.
SHORT_LABELS = {"bound": "bound", "margin": "margin", "train_errors": "errors", "support_vectors": "support vectors"}


#: A bound more than this many times above the curves it bounds is left out of a linear plot's range.
OFF_SCALE = 20.0


#: A plot's y axis is at least this many tick-label lines tall (two labels a line apart: _DecadeAxis).
PLOT_FLOOR_LINES = 4.5


#: The y range is re-fitted when the data fill less than this fraction of it.
MIN_FILL = 0.45


def nice_ceil(v: float) -> float:
    """The smallest of 1, 1.2, 1.5, 2, 2.5, 3, 4, 5, 6, 8 × 10^k that is ≥ v (v > 0)."""
    if not v > 0:
        return 1.0
    e = math.floor(math.log10(v))
    for m in (1, 1.2, 1.5, 2, 2.5, 3, 4, 5, 6, 8, 10):
        if m * 10.0**e >= v * (1 - 1e-12):
            return m * 10.0**e
    return 10.0 ** (e + 1)


def fit_range(current, lo: float, hi: float, log: bool) -> tuple[float, float]:
    """A y range containing [lo, hi]: `current` when it still fits well, else [lo, hi] with some room."""
    if current is not None:
        a, b = current
        if a <= lo and hi <= b and (hi - lo) >= MIN_FILL * (b - a):
            return current
    span = hi - lo
    if span <= 0:
        pad = 0.5 if log else max(0.1 * abs(hi), 0.5)
        return lo - pad, hi + pad
    return lo - 0.08 * span, hi + 0.08 * span


def group_of(key: str, keys) -> str:
    """Which plot a metric goes to: its declared `MetricInfo.group` (a bound goes with what it bounds)."""
    group = METRICS[key].group
    if group == "bound":
        return "counts" if "mistakes" in keys else "norms"
    return group


class _Buffers:
    """Iterations and metric values with amortized O(1) appends (capacity doubling)."""

    def __init__(self, keys, degenerate=None):
        self.keys = tuple(keys)
        self.degenerate = degenerate  # metrics → True when the margin is undefined (glossary.degenerate_note)
        self.n = 0
        self.it = np.empty(256)
        self.values = {k: np.empty(256) for k in self.keys}

    @property
    def last_iteration(self) -> int:
        return int(self.it[self.n - 1]) if self.n else -1

    def append(self, snap) -> None:
        if self.n == len(self.it):
            self.it = np.concatenate([self.it, np.empty(self.n)])
            self.values = {k: np.concatenate([v, np.empty(self.n)]) for k, v in self.values.items()}
        self.it[self.n] = snap.iteration
        m = snap.metrics
        # an SVM with w = 0 has no margin (1/‖w‖ would read 1e8): the curve has a gap there
        no_margin = self.degenerate is not None and self.degenerate(dict(m))
        for k in self.keys:
            v = None if (k == "margin" and no_margin) else m.get(k)
            self.values[k][self.n] = np.nan if v is None else v
        self.n += 1

    def series(self, key: str):
        return self.it[: self.n], self.values[key][: self.n]


def _show_as_dots(curve) -> None:
    """Dots of the curve's own colour at its values: what shows a curve that has no segment to draw."""
    colour = curve.opts["pen"].color() if hasattr(curve.opts["pen"], "color") else "w"
    style = {"symbol": "o", "symbolSize": 7, "symbolPen": pg.mkPen(colour), "symbolBrush": pg.mkBrush(colour)}
    if any(curve.opts[k] != v for k, v in style.items()):  # one restyle (the four setters restyled four times)
        curve.opts.update(style)
        curve.updateItems(styleUpdate=True)
