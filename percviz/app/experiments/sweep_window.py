"""The sweep window: iterations against 1/ρ_K (or 1/ε) on log–log axes, fitted slopes and the bounds as lines;
the sweep runs off the UI thread with a progress bar and Cancel, and exports CSV and PNG."""

from __future__ import annotations

import math

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QFont, QKeySequence, QShortcut
from PySide6.QtWidgets import (
    QComboBox, QFileDialog, QHBoxLayout, QLabel, QLineEdit, QProgressBar, QPushButton, QSpinBox, QVBoxLayout,
    QWidget,
)

from percviz.app.background import Task
from percviz.app.experiments.common import lane_color, line_width, save_png, stop_task, style_plot, write_csv
from percviz.core.errors import PercvizError
from percviz.core.experiments.families import FAMILIES
from percviz.core.experiments.sweep import (
    EPS_BOUNDS, ITERATION_BOUNDS, RunRecord, SweepSpec, fit_slope, goal, iter_sweep, x_value,
)

DEFAULT_ALGORITHMS = {True: "snkp,nkp,perceptron", False: "nvn,isnkpvn"}
CSV_HEADER = ("scene", "level", "n", "rho", "eps", "algorithm", "iterations", "status", "bound", "margin")


class SweepWindow(QWidget):
    """Choose a family and algorithms, Run (Cancel stops it), read the rates off the log–log plot."""

    finished = Signal()

    def __init__(self, theme=None, workers: int = 2, parent=None):
        super().__init__(parent)
        self.setWindowTitle("percviz margin sweep")
        self.setObjectName("sweep_window")
        self.theme = theme
        self.workers = workers
        self.runs: list[RunRecord] = []
        self.spec: SweepSpec | None = None
        self._task: Task | None = None
        self._stopping: Task | None = None  # a cancelled task whose thread may still be winding down
        self._build()
        if theme is not None:
            self.apply_theme(theme)

    def _build(self) -> None:
        self.family = QComboBox()
        self.family.setAccessibleName("family")
        for f in FAMILIES.values():
            self.family.addItem(f.name, f.name)
            self.family.setItemData(self.family.count() - 1, f.description, Qt.ItemDataRole.ToolTipRole)
        self.family.currentIndexChanged.connect(self._family_changed)
        self.algorithms = QLineEdit(DEFAULT_ALGORITHMS[True])
        self.algorithms.setAccessibleName("algorithms")
        self.kernel = QLineEdit()
        self.kernel.setAccessibleName("kernel")
        self.kernel.setPlaceholderText("family's kernel")
        self.kernel.setToolTip("A kernel spec such as rbf:gamma=0.5; empty: the family's own")
        self.seed = QSpinBox()
        self.seed.setAccessibleName("seed")
        self.seed.setRange(0, 10**6)
        self.run_button = QPushButton("Run")
        self.run_button.setAccessibleName("run")
        self.run_button.clicked.connect(self.start)
        self.cancel_button = QPushButton("Cancel")
        self.cancel_button.setAccessibleName("cancel")
        self.cancel_button.setEnabled(False)
        self.cancel_button.clicked.connect(self.cancel)
        self.csv_button = QPushButton("Export CSV…")
        self.csv_button.clicked.connect(lambda: self._ask("CSV (*.csv)", ".csv", self.export_csv))
        self.png_button = QPushButton("Export PNG…")
        self.png_button.clicked.connect(lambda: self._ask("PNG (*.png)", ".png", self.export_png))
        self.progress = QProgressBar()
        self.progress.setAccessibleName("progress")
        self.status = QLabel("Choose a family and algorithms, then Run.")
        self.status.setAccessibleName("status")
        self.status.setWordWrap(True)
        self.plot = pg.PlotWidget()
        self.plot.setAccessibleName("sweep-plot")
        self.plot.setLogMode(True, True)
        self.plot.showGrid(x=True, y=True, alpha=0.25)
        self.legend = self.plot.addLegend(offset=(10, 10))
        row = QHBoxLayout()
        for text, w in (("family", self.family), ("algorithms", self.algorithms), ("kernel", self.kernel),
                        ("seed", self.seed)):
            row.addWidget(QLabel(text))
            row.addWidget(w, 2 if w is self.algorithms else 0)
        for w in (self.run_button, self.cancel_button, self.csv_button, self.png_button):
            row.addWidget(w)
        lay = QVBoxLayout(self)
        lay.addLayout(row)
        lay.addWidget(self.plot, 1)
        lay.addWidget(self.progress)
        lay.addWidget(self.status)
        QShortcut(QKeySequence(Qt.Key.Key_F5), self, activated=self.toggle_presentation)
        self.resize(1000, 700)
        self._label_axes(True)

    def _family_changed(self) -> None:
        fam = FAMILIES[self.family.currentData()]
        if self.algorithms.text() in DEFAULT_ALGORITHMS.values():
            self.algorithms.setText(DEFAULT_ALGORITHMS[fam.separable])

    def _label_axes(self, separable: bool) -> None:
        self.plot.setLabel("bottom", "1/ρ_K (inverse margin)" if separable else "1/ε (inverse accuracy)")
        self.plot.setLabel("left", "iterations to a separator" if separable else "iterations to a certificate")

    # -- running ---------------------------------------------------------------------------------
    @property
    def busy(self) -> bool:
        return self._task is not None

    def make_spec(self) -> SweepSpec:
        algs = tuple(a.strip() for a in self.algorithms.text().split(",") if a.strip())
        kernel = self.kernel.text().strip() or None
        if kernel is not None:
            from percviz.core.kernels import parse_kernel

            kernel = parse_kernel(kernel).spec  # a bad spec is reported here, before any process starts
        return SweepSpec(algs, self.family.currentData(), kernel=kernel, seed=self.seed.value())

    def start(self, spec: SweepSpec | None = None) -> bool:
        """Start a sweep on a worker thread; False (with the reason shown) when the choices are invalid."""
        if self.busy:
            return False
        try:
            spec = spec or self.make_spec()
        except PercvizError as e:
            self.status.setText(str(e))
            return False
        self.spec, self.runs = spec, []
        self._label_axes(spec.separable)
        self.progress.setRange(0, len(spec.tasks()))
        self.progress.setValue(0)
        self.status.setText(f"Running {', '.join(spec.algorithms)} on {len(spec.tasks())} scenes of '{spec.family}'…")
        self._draw()
        self._task = Task(name="sweep")
        # bound methods only: Qt drops their connections when this window is deleted
        self._task.progress.connect(self._on_progress)
        self._task.done.connect(self._on_done)
        self._task.failed.connect(self._on_failed)
        self.run_button.setEnabled(False)
        self.cancel_button.setEnabled(True)
        self._task.start(_sweep, spec, self.workers)
        return True

    def cancel(self) -> None:
        """Stop the sweep (the task emits nothing more); its thread closes the process pool at its next poll."""
        if self._task is not None:
            self._task.cancel()
            self._stopping = self._task
            self.status.setText("Cancelled.")
            self._finish()

    def _on_progress(self, item) -> None:
        done, total, records = item
        self.progress.setValue(done)
        if records:
            order = {a: i for i, a in enumerate(self.spec.algorithms)}
            self.runs = sorted(self.runs + list(records), key=lambda r: (r.scene, order[r.algorithm]))
            self._draw()

    def _on_done(self, _result) -> None:
        if self.spec is not None:
            self.status.setText(self.summary())
        self._finish()

    def _on_failed(self, text: str) -> None:
        self.status.setText(f"The sweep failed: {text}")
        self._finish()

    def _finish(self) -> None:
        self._task = None
        self.run_button.setEnabled(True)
        self.cancel_button.setEnabled(False)
        self.finished.emit()

    def summary(self) -> str:
        x = "1/ρ_K" if self.spec is None or self.spec.separable else "1/ε"
        parts = []
        for a in self.spec.algorithms if self.spec else ():
            s = fit_slope(self.runs, a)
            parts.append(f"{a} {s.slope:.2f}" if s else f"{a} n/a")
        return f"slopes of log iterations on log {x}: " + ", ".join(parts)

    def wait_idle(self, qtbot, timeout: int = 60000) -> None:
        qtbot.waitUntil(lambda: self._task is None and not (self._stopping and self._stopping.running),
                        timeout=timeout)

    # -- drawing ---------------------------------------------------------------------------------
    def _draw(self) -> None:
        self.plot.clear()
        self.legend.clear()
        if self.spec is None:
            return
        width = line_width(self.theme)
        size = 9 * (self.theme.scale if self.theme else 1.0)
        labels = ITERATION_BOUNDS if self.spec.separable else EPS_BOUNDS
        for i, alg in enumerate(self.spec.algorithms):
            color = lane_color(i)
            runs = [r for r in self.runs if r.algorithm == alg and goal(r) and r.iterations >= 1
                    and (r.eps is not None or r.rho > 0)]
            s = fit_slope(self.runs, alg)
            name = f"{alg}: slope {s.slope:.2f}" if s else alg
            xs = np.array([x_value(r) for r in runs])
            self.plot.plot(xs, [r.iterations for r in runs], pen=None, symbol="o", symbolSize=size,
                           symbolBrush=color, symbolPen=color, name=name)
            if s is not None and len(xs):
                xl = np.array([xs.min(), xs.max()])
                self.plot.plot(xl, np.exp(s.intercept) * xl**s.slope, pen=pg.mkPen(color, width=width))
            bounded = sorted((x_value(r), r.bound) for r in self.runs
                             if r.algorithm == alg and r.bound is not None and math.isfinite(r.bound) and r.bound > 0
                             and (r.eps is not None or r.rho > 0))
            if bounded:
                self.plot.plot([b[0] for b in bounded], [b[1] for b in bounded],
                               pen=pg.mkPen(color, width=width, style=Qt.PenStyle.DashLine),
                               name=f"{alg} bound {labels.get(alg, '')}")

    def drawn_bounds(self) -> dict[str, list[tuple[float, float]]]:
        """The (x, bound) points of each dashed bound line (tests compare them with the measured points)."""
        return {a: [(x_value(r), r.bound) for r in self.runs if r.algorithm == a and r.bound is not None]
                for a in (self.spec.algorithms if self.spec else ())}

    # -- export and presentation -----------------------------------------------------------------
    def export_csv(self, path) -> None:
        write_csv(path, CSV_HEADER, [(r.scene, r.level, r.n, r.rho, r.eps, r.algorithm, r.iterations, r.status,
                                      r.bound, r.margin) for r in self.runs])

    def export_png(self, path) -> bool:
        return save_png(self.plot, path)

    def _ask(self, filt: str, suffix: str, fn) -> None:
        path, _ = QFileDialog.getSaveFileName(self, "Export", f"sweep{suffix}", filt)
        if path:
            fn(path)

    def apply_theme(self, theme) -> None:
        self.theme = theme
        if hasattr(theme, "palette"):
            self.setPalette(theme.palette())
        style_plot(self.plot, theme)
        # at projector size the minor decade labels (2·10¹ … 9·10¹) run into each other: decades only
        self.plot.getPlotItem().getAxis("bottom").setStyle(maxTextLevel=0 if theme.presentation else 2)
        font = QFont(self.font())
        font.setPointSizeF(theme.font_pt)
        self.setFont(font)
        self._draw()

    def toggle_presentation(self) -> None:
        from percviz.app.theme import PRESENTATION_SCALE, theme_for

        base = self.theme or theme_for()
        self.apply_theme(base.with_scale(1.0 if base.presentation else PRESENTATION_SCALE))

    def closeEvent(self, event) -> None:
        stop_task(self._task)
        self._task = None
        super().closeEvent(event)


def _sweep(spec: SweepSpec, workers: int):
    """The sweep task: iter_sweep's progress, polling every 0.2 s so Cancel lands that soon."""
    yield from iter_sweep(spec, workers, poll=0.2)
