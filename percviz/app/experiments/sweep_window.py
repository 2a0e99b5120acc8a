"""The sweep window: iterations against 1/ρ_K (or 1/ε), or against n at a fixed ρ_K ("sweep over n"), on log–log
axes, fitted slopes and the bounds as lines; the sweep runs off the UI thread with a progress bar and Cancel, and
exports CSV and PNG."""

from __future__ import annotations

import math

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import Qt
from PySide6.QtGui import QFont, QFontMetrics
from PySide6.QtWidgets import (
    QComboBox, QDoubleSpinBox, QHBoxLayout, QLabel, QLineEdit, QPushButton, QSpinBox,
)

from percviz.app.experiments.axes import SpacedAxis
from percviz.app.experiments.common import PlotTaskWindow, fit_to_screen, lane_color, line_width, write_csv
from percviz.app.experiments.names import kernel_words
from percviz.app.panels.overlays import algorithm_label
from percviz.core.experiments.sweep import PAPER_SLOPES, SWEEP_ALGORITHMS
from percviz.core.solvers import get_solver
from percviz.core.errors import ParameterError, PercvizError
from percviz.core.experiments.families import FAMILIES
from percviz.core.experiments.sweep import (
    DEFAULT_MARGIN, DEFAULT_NS, EPS_BOUNDS, ITERATION_BOUNDS, RunRecord, SweepSpec, fit_slope, goal, iter_sweep,
    x_value,
)

#: The default sweep shows the paper's contrast: on the circle family (all three on its Gaussian RBF γ = 1) SNKP's
#: fitted slope is ≈ 1 (1/ρ_K) and NKP's and the kernel perceptron's ≈ 2 (1/ρ_K²) for seeds 0–2 (docs/experiments.md).
#: The line family's perceptron (affine) halts far below its worst case (slope 0.97 at seed 0, 1.94 at seed 2).
DEFAULT_FAMILY = "circle"
DEFAULT_ALGORITHMS = SWEEP_ALGORITHMS
CSV_HEADER = ("scene", "level", "n", "rho", "eps", "algorithm", "iterations", "status", "bound", "margin", "seconds")
#: The "sweep over" choices: the family's levels (margin or ε) or the number of points at a fixed ρ_K.
OVER = {"margin": "margin (the family's levels)", "n": "n (points) at a fixed ρ_K"}
N_FAMILY = "fixed"


def plot_x(record: RunRecord) -> float:
    """Where a run is drawn: n itself over n (the fit is on √(log n)), else its fit's abscissa."""
    return float(record.n) if record.over_n else x_value(record)


class SweepWindow(PlotTaskWindow):
    """Choose a family and algorithms, Run (Cancel stops it), read the rates off the log–log plot."""

    failure_text = "The sweep failed"
    export_stem = "sweep"
    _left_words = "iterations to a separator"  # the y axis's words until a sweep says which outcome it counts

    def __init__(self, theme=None, workers: int = 2, parent=None):
        super().__init__(parent)
        self.setWindowTitle("percviz margin sweep")
        self.setObjectName("sweep_window")
        self.theme = theme
        self.workers = workers
        self.runs: list[RunRecord] = []
        self.spec: SweepSpec | None = None
        self._build()
        if theme is not None:
            self.apply_theme(theme)

    def _build(self) -> None:
        self.family = QComboBox()
        self.family.setAccessibleName("family")
        for f in FAMILIES.values():
            self.family.addItem(f.name, f.name)
            self.family.setItemData(self.family.count() - 1, f.description, Qt.ItemDataRole.ToolTipRole)
        self.family.setCurrentIndex(self.family.findData(DEFAULT_FAMILY))
        self.family.currentIndexChanged.connect(self._family_changed)
        self.algorithms = QLineEdit(DEFAULT_ALGORITHMS[True])
        self.algorithms.setAccessibleName("algorithms")
        self.algorithms.setToolTip(f"Registry names separated by commas, e.g. {SWEEP_ALGORITHMS[True]} (percviz list)")
        self.kernel = QLineEdit()
        self.kernel.setAccessibleName("kernel")
        self.kernel.setPlaceholderText("family's kernel")
        self.kernel.setToolTip("A kernel spec such as rbf:gamma=0.5; empty: the family's own")
        self.seed = QSpinBox()
        self.seed.setAccessibleName("seed")
        self.seed.setRange(0, 10**6)
        self.over = QComboBox()
        self.over.setAccessibleName("over")
        for key, text in OVER.items():
            self.over.addItem(text, key)
        self.over.currentIndexChanged.connect(self._over_changed)
        self.ns = QLineEdit(",".join(str(n) for n in DEFAULT_NS))
        self.ns.setAccessibleName("ns")
        self.ns.setToolTip("Numbers of points, comma-separated (2 … 1,000,000)")
        self.margin = QDoubleSpinBox()
        self.margin.setAccessibleName("margin")
        self.margin.setDecimals(3)
        self.margin.setRange(0.001, 0.9)
        self.margin.setSingleStep(0.01)
        self.margin.setValue(DEFAULT_MARGIN)
        self.margin.setToolTip("The fixed ρ_K of every set (the 'fixed' family: exact under the affine kernel)")
        self._task_controls("Choose a family and algorithms, then Run.")
        self.csv_button = QPushButton("Export CSV…")
        self.csv_button.clicked.connect(lambda: self._ask("CSV (*.csv)", ".csv", self.export_csv))
        self.plot = pg.PlotWidget(axisItems={"bottom": SpacedAxis("bottom"), "left": SpacedAxis("left")})
        self.plot.setAccessibleName("sweep-plot")
        self.plot.setLogMode(True, True)
        self.plot.showGrid(x=True, y=True, alpha=0.25)
        self.legend = self.plot.addLegend(offset=(10, 10))
        self.family.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToContents)
        row = QHBoxLayout()
        for text, w in (("family", self.family), ("kernel", self.kernel), ("seed", self.seed)):
            row.addWidget(QLabel(text))
            row.addWidget(w, 1 if w is self.kernel else 0)
        algorithms_row = QHBoxLayout()  # its own row: the list of names is the longest field
        algorithms_row.addWidget(QLabel("algorithms"))
        algorithms_row.addWidget(self.algorithms, 1)
        buttons = QHBoxLayout()  # a row of their own: at presentation size one row would be wider than the screen
        for w in (self.run_button, self.cancel_button, self.csv_button, self.png_button):
            buttons.addWidget(w)
        buttons.addStretch(1)
        over_row = QHBoxLayout()
        for text, w in (("sweep over", self.over), ("n", self.ns), ("ρ_K", self.margin)):
            over_row.addWidget(QLabel(text))
            over_row.addWidget(w, 2 if w is self.ns else 0)
        over_row.addStretch(1)
        self.story_label = QLabel()  # which family and quantity the slopes are of (wrapped: never cut at F5)
        self.story_label.setAccessibleName("story")
        self.story_label.setWordWrap(True)
        story_row = QHBoxLayout()
        story_row.addWidget(self.story_label, 1)
        self._init_frame(row, algorithms_row, over_row, buttons, story_row)
        self.preferred_size = (1000, 700)
        fit_to_screen(self, *self.preferred_size)
        self._over_changed()

    def _family_changed(self) -> None:
        fam = FAMILIES[self.family.currentData()]
        if self.algorithms.text() in DEFAULT_ALGORITHMS.values():
            self.algorithms.setText(DEFAULT_ALGORITHMS[fam.separable])

    @property
    def over_n(self) -> bool:
        return self.over.currentData() == "n"

    def _over_changed(self) -> None:
        """Over n: the 'fixed' family at the chosen ρ_K; over the margin: the family's own levels."""
        n = self.over_n
        if n:
            self.family.setCurrentIndex(self.family.findData(N_FAMILY))
        self.family.setEnabled(not n)
        self.ns.setEnabled(n)
        self.margin.setEnabled(n)
        self._label_axes(True, n)

    def _label_axes(self, separable: bool, over_n: bool = False) -> None:
        if over_n:
            bottom = f"n (points; ρ_K fixed at {self.margin.value():g}), fit on √(log n)"
        else:
            bottom = "1/ρ_K (inverse margin)" if separable else "1/ε (inverse accuracy)"
        self.plot.setLabel("bottom", bottom)
        self._left_words = "iterations to a separator" if separable else "iterations to a certificate"
        self._fit_left_label()

    def _fit_left_label(self) -> None:
        """'iterations to a separator', or 'iterations' when the plot is too short for it (the line above says)."""
        words = self._left_words
        axis = self.plot.getPlotItem().getAxis("left")
        room = self.plot.getPlotItem().vb.height()
        if room > 0 and QFontMetrics(axis.label.font()).horizontalAdvance(words) > room - 8:
            words = "iterations"
        if axis.labelText != words:
            self.plot.setLabel("left", words)

    def resizeEvent(self, event) -> None:
        super().resizeEvent(event)
        self._fit_left_label()

    def apply_theme(self, theme) -> None:
        super().apply_theme(theme)
        self.family.setMinimumWidth(0)
        self.family.setMinimumWidth(self.family.sizeHint().width())  # its longest family name, whole, at any scale

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
        if self.over_n:
            return SweepSpec(algs, N_FAMILY, kernel=kernel, seed=self.seed.value(), levels=(self.margin.value(),),
                             ns=self._ns())
        return SweepSpec(algs, self.family.currentData(), kernel=kernel, seed=self.seed.value())

    def _ns(self) -> tuple[int, ...]:
        try:
            ns = tuple(float(v) for v in self.ns.text().split(",") if v.strip())
        except ValueError:
            ns = ()
        if not ns or any(v != int(v) for v in ns):
            raise ParameterError(f"n takes whole numbers separated by commas, e.g. 10,100,1000; got "
                                 f"'{self.ns.text()}'.")
        return tuple(int(v) for v in ns)

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
        if spec.over_n:
            self.margin.setValue(spec.levels[0])
        self._label_axes(spec.separable, spec.over_n)
        self.progress.setRange(0, len(spec.tasks()))
        self.progress.setValue(0)
        what = f"n = {', '.join(f'{n:,}' for n in spec.ns)} at ρ_K = {spec.levels[0]:g}" if spec.over_n else \
            f"{len(spec.tasks())} scenes of '{spec.family}'"
        self.status.setText(f"Running {', '.join(spec.algorithms)} on {what}…")
        self._draw()
        self._run("sweep", self._on_progress, _sweep, spec, self.workers)
        return True

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

    def _x_words(self) -> str:
        if self.spec is not None and self.spec.over_n:
            return "√(log n)"
        return "1/ρ_K" if self.spec is None or self.spec.separable else "1/ε"

    def story(self) -> str:
        """Which family and which quantity the slopes are of: the plot's title and the start of the summary."""
        if self.spec is None:
            return ""
        spec = self.spec
        goal_words = "a separator" if spec.separable else "a certificate"
        fam = FAMILIES[spec.family]
        on = kernel_words(spec.kernel_spec).replace("\u00a0", " ")
        where = (f"n = {', '.join(f'{n:,}' for n in spec.ns)} points at ρ_K = {spec.levels[0]:g}" if spec.over_n
                 else f"{len(spec.tasks())} scenes")
        return (f"Fitted slopes of log(iterations to {goal_words}) on log({self._x_words()}) — family "
                f"'{fam.name}', {where}, kernel {on}")

    def name_of(self, algorithm: str) -> str:
        return algorithm_label(get_solver(algorithm))

    def summary(self) -> str:
        over_n = self.spec is not None and self.spec.over_n
        parts = []
        for a in self.spec.algorithms if self.spec else ():
            s = fit_slope(self.runs, a)
            paper = "" if over_n or a not in PAPER_SLOPES else f" (paper {PAPER_SLOPES[a]})"
            parts.append(f"{self.name_of(a)} {round(s.slope, 2) + 0.0:.2f}{paper}" if s else f"{self.name_of(a)} n/a")
        tail = " (1: ∝ √log n like SNKP's bound; 0: flat in n)" if over_n else ""
        return f"{self.story()}: " + ", ".join(parts) + tail

    # -- drawing ---------------------------------------------------------------------------------
    def _draw(self) -> None:
        self.plot.clear()
        self.legend.clear()
        self._n_ticks()
        self.story_label.setText(self.story())
        self._fit_left_label()
        if self.spec is None:
            return
        width = line_width(self.theme)
        size = 9 * (self.theme.scale if self.theme else 1.0)
        labels = ITERATION_BOUNDS if self.spec.separable else EPS_BOUNDS
        for i, alg in enumerate(self.spec.algorithms):
            color = lane_color(i)
            runs = [r for r in self.runs if r.algorithm == alg and goal(r) and r.iterations >= 1
                    and (r.eps is not None or (r.rho is not None and r.rho > 0))]
            s = fit_slope(self.runs, alg)
            name = f"{self.name_of(alg)}: slope {round(s.slope, 2) + 0.0:.2f}" if s else self.name_of(alg)
            xs = np.array([plot_x(r) for r in runs])
            self.plot.plot(xs, [r.iterations for r in runs], pen=None, symbol="o", symbolSize=size,
                           symbolBrush=color, symbolPen=color, name=name)
            if s is not None and len(xs):
                self.plot.plot(*self._fit_line(s, xs), pen=pg.mkPen(color, width=width))
            bounded = sorted((plot_x(r), r.bound) for r in self.runs
                             if r.algorithm == alg and r.bound is not None and math.isfinite(r.bound) and r.bound > 0
                             and (r.eps is not None or (r.rho is not None and r.rho > 0)))
            if bounded:
                self.plot.plot([b[0] for b in bounded], [b[1] for b in bounded],
                               pen=pg.mkPen(color, width=width, style=Qt.PenStyle.DashLine),
                               name=f"{self.name_of(alg)} bound {labels.get(alg, '')}")

    def _n_ticks(self) -> None:
        """Over n: one labelled tick per decade (10, 100, …, 100,000); pyqtgraph's own log ticks otherwise."""
        axis = self.plot.getPlotItem().getAxis("bottom")
        if self.spec is None or not self.spec.over_n:
            axis.setTicks(None)
            return
        lo, hi = math.floor(math.log10(min(self.spec.ns))), math.ceil(math.log10(max(self.spec.ns)))
        axis.setTicks([[(k, f"{10**k:,}") for k in range(lo, hi + 1)], []])

    def _fit_line(self, s, xs: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The fitted power law between the extreme runs: of x, or of √(log n) drawn against n (a curve)."""
        if self.spec is not None and self.spec.over_n:
            n = np.geomspace(xs.min(), xs.max(), 40)
            return n, np.exp(s.intercept) * np.sqrt(np.log(n)) ** s.slope
        xl = np.array([xs.min(), xs.max()])
        return xl, np.exp(s.intercept) * xl**s.slope

    def drawn_bounds(self) -> dict[str, list[tuple[float, float]]]:
        """The (x, bound) points of each dashed bound line (tests compare them with the measured points)."""
        return {a: [(plot_x(r), r.bound) for r in self.runs if r.algorithm == a and r.bound is not None]
                for a in (self.spec.algorithms if self.spec else ())}

    # -- export and presentation -----------------------------------------------------------------
    def export_csv(self, path) -> None:
        write_csv(path, CSV_HEADER, [(r.scene, r.level, r.n, r.rho, r.eps, r.algorithm, r.iterations, r.status,
                                      r.bound, r.margin, r.seconds) for r in self.runs])

    def _style_axes(self, theme) -> None:
        # at projector size the minor decade labels (2·10¹ … 9·10¹) run into each other: decades only
        self.plot.getPlotItem().getAxis("bottom").setStyle(maxTextLevel=0 if theme.presentation else 2)
        font = QFont(self.font())
        font.setPointSizeF(theme.font_pt)
        fm = QFontMetrics(font)
        self.algorithms.setMinimumWidth(fm.horizontalAdvance(self.algorithms.text() + "MM"))
        self.kernel.setMinimumWidth(fm.horizontalAdvance(self.kernel.placeholderText() + "MM"))


def _sweep(spec: SweepSpec, workers: int):
    """The sweep task: iter_sweep's progress, polling every 0.2 s so Cancel lands that soon."""
    yield from iter_sweep(spec, workers, poll=0.2)
