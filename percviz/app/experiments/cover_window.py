"""Cover's count: the simulated fraction of separable random labelings (LP) against n/d̂, with the formula,
for the plane (d̂ = 3) and higher φ-map dimensions; the simulation runs off the UI thread."""

from __future__ import annotations

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QCheckBox, QHBoxLayout, QLabel, QSpinBox

from percviz.app.experiments.common import fit_to_screen, PlotTaskWindow, lane_color, line_width
from percviz.core import cover

#: φ-maps offered, with their number of weights d̂.
MAPS = ("linear", "quadratic", "poly:degree=3")


class CoverWindow(PlotTaskWindow):
    """Pick φ-maps and trials, Run; points ± one standard error, the formula as a line, 0.5 at n = 2d̂."""

    failure_text = "The simulation failed"
    export_stem = "cover"

    def __init__(self, theme=None, parent=None):
        super().__init__(parent)
        self.setWindowTitle("percviz — Cover's function counting")
        self.setObjectName("cover_window")
        self.theme = theme
        self.rows: dict[str, list[cover.CoverRow]] = {}
        self.maps = {m: QCheckBox(f"{m} (d̂ = {cover.feature_dimension(m)})") for m in MAPS}
        for i, box in enumerate(self.maps.values()):
            box.setChecked(i < 2)
            box.setAccessibleName(f"map:{MAPS[i]}")
        self.trials = QSpinBox()
        self.trials.setAccessibleName("trials")
        self.trials.setRange(10, 5000)
        self.trials.setValue(200)
        self._task_controls("Random points N(0, I), random labels; the LP decides separability.")
        self.plot = pg.PlotWidget()
        self.plot.setAccessibleName("cover-plot")
        self.plot.setLabel("bottom", "n/d̂ (points per weight)")
        self.plot.setLabel("left", "fraction of labelings separable")
        self.plot.showGrid(x=True, y=True, alpha=0.25)
        self.plot.setYRange(-0.02, 1.05)
        self.legend = self.plot.addLegend(offset=(-10, 10))
        row = QHBoxLayout()
        for box in self.maps.values():
            row.addWidget(box)
        row.addWidget(QLabel("trials"))
        row.addWidget(self.trials)
        for w in (self.run_button, self.cancel_button, self.png_button):
            row.addWidget(w)
        self._init_frame(row)
        self.preferred_size = (900, 650)
        fit_to_screen(self, *self.preferred_size)
        if theme is not None:
            self.apply_theme(theme)

    def start(self, ns_per_map: dict[str, tuple[int, ...]] | None = None, seed: int = 0) -> bool:
        """Simulate the checked maps (n = 1 … 4d̂ unless given) on a worker thread."""
        if self.busy:
            return False
        chosen = [m for m, box in self.maps.items() if box.isChecked()]
        if ns_per_map is None:
            ns_per_map = {m: tuple(range(1, 4 * cover.feature_dimension(m) + 1)) for m in chosen}
        if not ns_per_map:
            self.status.setText("Check at least one φ-map.")
            return False
        trials = self.trials.value()
        self.rows = {m: [] for m in ns_per_map}
        self.progress.setRange(0, sum(len(v) for v in ns_per_map.values()))
        self.progress.setValue(0)
        self.status.setText(f"Simulating {trials} labelings per n…")
        self._run("Cover simulation", self._on_row, _simulate, ns_per_map, trials, seed)
        return True

    def _on_row(self, item) -> None:
        m, row = item
        self.rows[m].append(row)
        self.progress.setValue(self.progress.value() + 1)
        self._draw()

    def _on_done(self, _result) -> None:
        self.status.setText("Cover: C(n, d̂)/2ⁿ = 2 Σ_{i<d̂} binom(n−1, i)/2ⁿ; exactly ½ at n = 2d̂. "
                            "Bars: ± one standard error.")
        self._finish()

    def _draw(self) -> None:
        self.plot.clear()
        self.legend.clear()
        width = line_width(self.theme)
        size = 8 * (self.theme.scale if self.theme else 1.0)
        for i, (m, rows) in enumerate(self.rows.items()):
            if not rows:
                continue
            d_hat = cover.feature_dimension(m)
            color = lane_color(i)
            x = np.array([r.n / d_hat for r in rows])
            ns = np.arange(1, max(r.n for r in rows) + 1)
            self.plot.plot(ns / d_hat, [cover.separable_fraction(int(n), d_hat) for n in ns],
                           pen=pg.mkPen(color, width=width), name=f"formula, d̂ = {d_hat} ({m})")
            self.plot.addItem(pg.ErrorBarItem(x=x, y=np.array([r.fraction for r in rows]),
                                              height=2 * np.array([r.std_error for r in rows]),
                                              pen=pg.mkPen(color, width=max(1.0, width / 2))))
            self.plot.plot(x, [r.fraction for r in rows], pen=None, symbol="o", symbolSize=size,
                           symbolBrush=color, symbolPen=color, name=f"LP simulation, d̂ = {d_hat}")
        self.plot.addItem(pg.InfiniteLine(pos=2.0, angle=90, pen=pg.mkPen("#888", style=Qt.PenStyle.DashLine),
                                          label="n = 2d̂", labelOpts={
                                              "position": 0.1, "color": self.theme.foreground if self.theme else "#444"}))


def _simulate(ns_per_map: dict[str, tuple[int, ...]], trials: int, seed: int):
    """The simulation task: (φ-map, CoverRow) for each n of each map."""
    for m, ns in ns_per_map.items():
        for row in cover.iter_simulate_features(ns, m, trials, seed):
            yield m, row
