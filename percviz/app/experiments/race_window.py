"""The race window: 2–4 solvers on one scene in lock-step, as small multiples of the canvas, curves overlaid
in one plot (one colour per algorithm, one quantity on each axis) and a table of who halted when."""

from __future__ import annotations

import math

import pyqtgraph as pg
from PySide6.QtCore import Qt, QTimer, Signal
from PySide6.QtGui import QColor, QFont, QKeySequence, QShortcut
from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import (
    QCheckBox, QComboBox, QGridLayout, QHBoxLayout, QLabel, QPushButton, QSlider, QSplitter, QStackedWidget,
    QTableWidget, QTableWidgetItem, QTabWidget, QVBoxLayout, QWidget,
)

from percviz.app.background import Task
from percviz.app.canvas import CanvasView
from percviz.app.experiments.common import (
    canvas_theme, lane_color, line_width, save_png, stop_task, style_plot, toggled_theme,
)
from percviz.core.data import PointSet
from percviz.core.errors import PercvizError
from percviz.core.experiments.race import DEFAULT_MAX_ITER, Race
from percviz.core.scene import SceneModel
from percviz.app.experiments.race_names import lane_name
from percviz.app.overlays import LineLabel, caption_lines
from percviz.core.glossary import MARGINS, margin_term, outcome
from percviz.core.solvers import METRICS, get_solver

#: Updates per play tick, by the speed menu's entry.
SPEEDS = {"1 / tick": 1, "5 / tick": 5, "25 / tick": 25, "100 / tick": 100}
TICK_MS = 40
#: The table's columns before the margins (one column per kind of margin the lanes report) and after them.
TABLE_HEAD, TABLE_TAIL = ("algorithm", "outcome", "halted at k"), ("‖p‖_G",)
#: The window's preferred size; it opens smaller on a smaller screen (within its available geometry).
PREFERRED_SIZE = (1100, 860)


def _fmt(v) -> str:
    return "" if v is None or not math.isfinite(v) else f"{v:.4g}"


class RaceWindow(QWidget):
    """A race of `lanes` (core.experiments.Lane) on a copy of `points`; an edit of the points restarts all."""

    shownChanged = Signal(int)

    def __init__(self, points: PointSet, lanes, theme=None, max_iter: int = DEFAULT_MAX_ITER, title: str = "",
                 parent=None):
        super().__init__(parent)
        self.setWindowTitle(f"percviz race — {title}" if title else "percviz race")
        self.setObjectName("race_window")
        self.lanes = tuple(lanes)
        self.theme = theme
        self.scene = SceneModel(points)
        self.race: Race | None = None
        self.shown = 0
        self.error = ""
        self._task: Task | None = None
        self._timer = QTimer(self)
        self._timer.setInterval(TICK_MS)
        self._timer.timeout.connect(self._tick)
        self._build()
        self.scene.points_changed.connect(lambda _kind: self.restart())
        self.race = self._new_race(max_iter)
        self._max_iter = max_iter
        self._on_restarted()
        if theme is not None:
            self.apply_theme(theme)

    # -- layout ----------------------------------------------------------------------------------
    def _build(self) -> None:
        grid = QGridLayout()
        self.canvases: list[CanvasView] = []
        self.lane_labels: list[QLabel] = []
        self.lane_captions: list[LineLabel] = []
        self.lane_classes = [get_solver(lane.algorithm) for lane in self.lanes]
        self.margin_kinds = list(dict.fromkeys(margin_term(c).key for c in self.lane_classes))
        cols = 2 if len(self.lanes) == 4 else len(self.lanes)
        for i, lane in enumerate(self.lanes):
            canvas = CanvasView(self.scene, theme=canvas_theme(self.theme))
            canvas.setAccessibleName(f"race-canvas-{i}")
            canvas.setMinimumSize(200, 150)  # four lanes, the curves and the buttons fit a 600 px screen
            lab = canvas.title  # the canvas's own caption names the lane, in the lane's colour
            lab.setText(lane_name(lane))
            lab.setToolTip(lane.label)
            lab.setStyleSheet(f"color: {lane_color(i)}; font-weight: bold")
            for own in (canvas.overlay, canvas.overlay_box):  # the run's caption goes above the plot, not over its points
                own.setOpacity(0.0)
            line = LineLabel(canvas)  # the longest caption that fits the lane, never cut mid-number
            line.setObjectName(f"race_caption_{i}")
            line.setAccessibleName(f"race caption {i}")
            canvas.layout().insertWidget(1, line)
            grid.addWidget(canvas, i // cols, i % cols)
            self.canvases.append(canvas)
            self.lane_labels.append(lab)
            self.lane_captions.append(line)
        top = QWidget()
        top.setLayout(grid)

        self.quantity = QComboBox()
        self.quantity.setAccessibleName("quantity")
        keys = []
        for lane in self.lanes:
            keys += [k for k in get_solver(lane.algorithm).metric_keys if k not in keys]
        for k in keys:
            if k == "margin":  # one entry (and axis) per kind of margin: γ(a) and m(α) are different numbers
                for kind in self.margin_kinds:
                    term = MARGINS[kind]
                    self.quantity.addItem(f"{term.name} {term.symbol}", f"margin:{kind}")
            else:
                self.quantity.addItem(METRICS[k].label, k)
        first_margin = self.quantity.findData(f"margin:{self.margin_kinds[0]}") if self.margin_kinds else -1
        if first_margin >= 0:
            self.quantity.setCurrentIndex(first_margin)
        self.quantity.currentIndexChanged.connect(lambda _i: self._draw_curves())
        self.curves_plot = pg.PlotWidget()
        self.curves_plot.setAccessibleName("race-curves")
        self.curves_plot.addLegend(offset=(-10, -10))
        self.curves_plot.setLabel("bottom", "iteration k")
        self.curve_items = [self.curves_plot.plot([], [], name=lane_name(lane)) for lane in self.lanes]
        self.cursor_line = pg.InfiniteLine(angle=90, pen=pg.mkPen("#888", style=Qt.PenStyle.DashLine))
        self.curves_plot.addItem(self.cursor_line)

        self.table_columns = (*TABLE_HEAD, *(MARGINS[k].short for k in self.margin_kinds), *TABLE_TAIL)
        self.table = QTableWidget(len(self.lanes), len(self.table_columns))
        self.table.setAccessibleName("race-table")
        self.table.setHorizontalHeaderLabels(self.table_columns)
        self.table.verticalHeader().setVisible(False)
        self.table.horizontalHeader().setStretchLastSection(True)

        bottom = self.bottom_split = QSplitter(Qt.Orientation.Horizontal)
        left = self.curves_side = QWidget()
        lv = QVBoxLayout(left)
        lv.setContentsMargins(0, 0, 0, 0)
        row = QHBoxLayout()
        self.quantity_label = QLabel("quantity:")
        row.addWidget(self.quantity_label)
        row.addWidget(self.quantity, 1)
        lv.addLayout(row)
        lv.addWidget(self.curves_plot, 1)
        bottom.addWidget(left)
        bottom.addWidget(self.table)
        bottom.setSizes([550, 450])
        self.bottom_tabs = QTabWidget()  # presentation: curves and table one at a time, each at full width
        self.bottom_tabs.setObjectName("race_bottom_tabs")
        self.bottom = QStackedWidget()
        self.bottom.addWidget(bottom)
        self.bottom.addWidget(self.bottom_tabs)

        self.step_button = self._button("Step", "step", self.step)
        self.play_button = self._button("Play", "play", self.toggle_play)
        self.play_button.setCheckable(True)
        self.end_button = self._button("Run to end", "run", self.run_to_end)
        self.reset_button = self._button("Reset", "reset", self.reset)
        self.live = QCheckBox("Live")
        self.live.setAccessibleName("live")
        self.live.setToolTip("Run every lane to its end after each edit of the points")
        self.speed = QComboBox()
        self.speed.setAccessibleName("speed")
        self.speed.addItems(list(SPEEDS))
        self.scrub = QSlider(Qt.Orientation.Horizontal)
        self.scrub.setAccessibleName("history")
        self.scrub.valueChanged.connect(self.show_iteration)
        self.status = QLabel()
        self.status.setAccessibleName("status")
        controls = QHBoxLayout()
        for w in (self.step_button, self.play_button, self.end_button, self.reset_button, self.live, self.speed):
            controls.addWidget(w)
        controls.addWidget(self.scrub, 1)
        controls.addWidget(self.status)

        split = self.split = QSplitter(Qt.Orientation.Vertical)
        split.addWidget(top)
        split.addWidget(self.bottom)
        split.setSizes([520, 300])
        lay = QVBoxLayout(self)
        lay.addWidget(split, 1)
        lay.addLayout(controls)
        for key, fn in ((Qt.Key.Key_Space, self.step), (Qt.Key.Key_P, self.toggle_play),
                        (Qt.Key.Key_R, self.reset), (Qt.Key.Key_Left, lambda: self.scrub_by(-1)),
                        (Qt.Key.Key_Right, lambda: self.scrub_by(1)), (Qt.Key.Key_F5, self.toggle_presentation)):
            QShortcut(QKeySequence(key), self, activated=fn)
        self.fit_to_screen()

    def fit_to_screen(self) -> None:
        """At most the preferred size, within the screen's available geometry (Step, Play, Run, Reset on screen
        at 1280×800), and placed inside it."""
        screen = self.screen() or QGuiApplication.primaryScreen()
        avail = screen.availableGeometry()
        frame = 40  # a window manager's title bar and borders
        w = min(PREFERRED_SIZE[0], avail.width() - 16)
        h = min(PREFERRED_SIZE[1], avail.height() - frame)
        self.resize(w, h)
        x = avail.left() + max(0, (avail.width() - w) // 2)
        y = avail.top() + max(0, (avail.height() - h - frame) // 2)
        self.move(x, y)

    def _button(self, text: str, name: str, slot) -> QPushButton:
        b = QPushButton(text)
        b.setAccessibleName(name)
        b.clicked.connect(lambda _checked=False: slot())
        return b

    # -- the run ---------------------------------------------------------------------------------
    def _new_race(self, max_iter: int) -> Race | None:
        try:
            self.error = ""
            return Race(self.scene.points, self.lanes, max_iter)
        except PercvizError as e:
            self.error = str(e)
            return None

    def restart(self) -> None:
        """Start every lane again from iteration 0 on the scene's current points."""
        stop_task(self._task, None)  # the race is restarted below: its thread must have let go of it
        self._task = None
        self.pause()
        if self.race is None:
            self.race = self._new_race(self._max_iter)
        else:
            try:
                self.error = ""
                self.race.restart(self.scene.points)
            except PercvizError as e:
                self.error, self.race = str(e), None
        self._on_restarted()
        if self.live.isChecked():
            self.run_to_end()

    def _on_restarted(self) -> None:
        self.shown = 0
        for canvas, solver in zip(self.canvases, self.race.solvers if self.race else [None] * len(self.canvases)):
            canvas.set_problem(solver.problem if solver else None, type(solver) if solver else None)
        self._refresh()

    def reset(self) -> None:
        self.restart()

    @property
    def busy(self) -> bool:
        return self._task is not None

    def step(self) -> None:
        """One update of every lane (or, after scrubbing back, one iteration forward in the history)."""
        if self.race is None or self.busy:
            return
        if self.shown < self.race.iteration:
            self.show_iteration(self.shown + 1)
            return
        self.race.step()
        self.show_iteration(self.race.iteration)

    def toggle_play(self) -> None:
        if self._timer.isActive():
            self.pause()
        elif self.race is not None and not self.busy:
            self._timer.start()
            self.play_button.setChecked(True)

    def pause(self) -> None:
        self._timer.stop()
        self.play_button.setChecked(False)

    @property
    def playing(self) -> bool:
        return self._timer.isActive()

    def _tick(self) -> None:
        if self.race is None or (self.race.done and self.shown >= self.race.iteration):
            self.pause()
            self._refresh()
            return
        n = SPEEDS[self.speed.currentText()]
        if self.shown < self.race.iteration:
            self.show_iteration(min(self.shown + n, self.race.iteration))
        else:
            self.race.advance(n)
            self.show_iteration(self.race.iteration)

    def run_to_end(self) -> None:
        """Run every lane to its end on a worker thread, showing progress as it goes."""
        if self.race is None or self.busy or self.race.done:
            return
        self.pause()
        self.status.setText(f"k = {self.race.iteration} · running every lane to its end…")  # at once, before any result
        for b in (self.step_button, self.play_button, self.end_button):
            b.setEnabled(False)
        self._task = Task(name="race")
        # bound methods only: Qt drops their connections when this window is deleted
        self._task.progress.connect(self.show_iteration)
        self._task.done.connect(self._task_done)
        self._task.failed.connect(self._task_failed)
        self._task.start(_run_race, self.race)

    def _task_done(self, _result=None) -> None:
        self._task = None
        for b in (self.step_button, self.play_button, self.end_button):
            b.setEnabled(True)
        if self.race is not None:
            self.show_iteration(self.race.iteration)

    def _task_failed(self, text: str) -> None:
        self._task_done()
        self.status.setText(text)

    def wait_idle(self, qtbot, timeout: int = 20000) -> None:
        """Tests: wait until a run-to-end task has finished."""
        qtbot.waitUntil(lambda: self._task is None, timeout=timeout)

    # -- showing ---------------------------------------------------------------------------------
    def scrub_by(self, delta: int) -> None:
        if self.race is not None:
            self.show_iteration(max(0, min(self.shown + delta, self.race.iteration)))

    def show_iteration(self, k: int) -> None:
        """Show every lane at race iteration k (≤ the iterations run)."""
        if self.race is None:
            return
        k = max(0, min(int(k), self.race.iteration))
        self.shown = k
        self._refresh()
        self.shownChanged.emit(k)

    def snapshots(self):
        return self.race.at(self.shown) if self.race is not None else []

    def _refresh(self) -> None:
        race = self.race
        if race is None:
            self.status.setText(self.error)
            self._fill_table([])
            return
        snaps = race.at(self.shown)
        for canvas, snap in zip(self.canvases, snaps):
            canvas.set_snapshot(snap)
        self.scrub.blockSignals(True)
        self.scrub.setRange(0, race.iteration)
        self.scrub.setValue(self.shown)
        self.scrub.blockSignals(False)
        self.status.setText(f"k = {self.shown}" + (f" of {race.iteration}" if self.shown < race.iteration else "")
                            + (" · all halted" if race.done and self.shown == race.iteration else "")
                            + (" · running to the end…" if self.busy else ""))
        for line, snap, cls in zip(self.lane_captions, snaps, self.lane_classes):
            line.texts = caption_lines(snap, cls)
            line.setToolTip(line.texts[0] if line.texts else "")
            line.update()
        self._fill_table(race.table(self.shown))
        self._draw_curves()

    def _fill_table(self, rows) -> None:
        for r, row in enumerate(rows):
            kind = margin_term(self.lane_classes[r]).key
            margins = tuple(_fmt(row.margin) if k == kind else "" for k in self.margin_kinds)
            cells = (lane_name(self.lanes[r]), outcome(row.status).words,
                     "" if row.iteration is None else str(row.iteration), *margins, _fmt(row.p_g_norm))
            for c, text in enumerate(cells):
                item = QTableWidgetItem(text)
                if c == 0:
                    item.setForeground(QColor(lane_color(r)))
                self.table.setItem(r, c, item)
        self.table.resizeColumnsToContents()

    def _draw_curves(self) -> None:
        key, _, kind = str(self.quantity.currentData() or "").partition(":")
        info = METRICS.get(key)
        presenting = bool(self.theme is not None and self.theme.presentation)
        term = MARGINS.get(kind)
        # the axis names its margin; presenting, by its symbol only (the quantity box above says it whole)
        self.curves_plot.setLabel("left", (term.symbol if presenting else term.short) if term else info.label if info else "")
        log = bool(info and info.log_default)
        self.curves_plot.setLogMode(False, log)
        if self.race is None:
            return
        width = line_width(self.theme)
        for i, (item, (xs, ys)) in enumerate(zip(self.curve_items, self.race.series(key, self.shown))):
            if kind is not None and margin_term(self.lane_classes[i]).key != kind:
                xs, ys = [], []  # this lane's margin is another number: on its own axis
            pts = [(x, y) for x, y in zip(xs, ys) if math.isfinite(y) and (y > 0 or not log)]
            item.setData([p[0] for p in pts], [p[1] for p in pts], pen=pg.mkPen(lane_color(i), width=width))
        self.cursor_line.setValue(self.shown)

    # -- presentation ----------------------------------------------------------------------------
    def apply_theme(self, theme) -> None:
        self.theme = theme
        if hasattr(theme, "palette"):
            self.setPalette(theme.palette())
        for c in self.canvases:
            c.apply_theme(canvas_theme(theme))
        for i, lab in enumerate(self.lane_labels):
            lab.setStyleSheet(f"color: {lane_color(i)}; font-weight: bold")
        for line in self.lane_captions:
            line.apply_theme(canvas_theme(theme))
        style_plot(self.curves_plot, theme)
        font = QFont(self.font())
        font.setPointSizeF(theme.font_pt)
        for w in (self.table, self.status, self.quantity, self.speed, self.step_button, self.play_button,
                  self.end_button, self.reset_button, self.quantity_label, self.live, self.bottom_tabs):
            w.setFont(font)
        self.table.resizeColumnsToContents()
        presenting = bool(theme is not None and theme.presentation)
        legend = self.curves_plot.plotItem.legend
        if legend is not None:  # presenting: each lane's title names its colour; the legend would cover the curves
            legend.setVisible(not presenting)
        self._lay_out(presenting)
        self._draw_curves()

    def _lay_out(self, presenting: bool) -> None:
        """Presentation: the curves and the table as tabs under the lanes (each at full width), the lanes taller;
        the desk: side by side. The window stays within the screen either way."""
        if presenting == (self.bottom.currentIndex() == 1):
            return
        if presenting:
            self.bottom_tabs.addTab(self.curves_side, "Curves")
            self.bottom_tabs.addTab(self.table, "Table")
            self.bottom.setCurrentIndex(1)
            self.split.setSizes([470, 290])
        else:
            self.bottom_tabs.clear()
            self.bottom_split.addWidget(self.curves_side)
            self.bottom_split.addWidget(self.table)
            self.curves_side.show()
            self.table.show()
            self.bottom_split.setSizes([550, 450])
            self.bottom.setCurrentIndex(0)
            self.split.setSizes([520, 300])
        avail = (self.screen() or QGuiApplication.primaryScreen()).availableGeometry()
        if self.height() > avail.height() - 40 or self.width() > avail.width():
            self.fit_to_screen()

    def toggle_presentation(self) -> None:
        self.apply_theme(toggled_theme(self.theme))

    def save_png(self, path) -> bool:
        return save_png(self, path)

    def closeEvent(self, event) -> None:
        self.pause()
        stop_task(self._task)
        self._task = None
        super().closeEvent(event)


def _run_race(race: Race):
    """The run-to-end task: every lane's updates in growing batches (1, 10, then 100), yielding the race's iteration,
    so the window shows the first progress at once."""
    batch = 1
    while not race.done:
        race.advance(batch)
        batch = min(100, batch * 10)
        yield race.iteration
