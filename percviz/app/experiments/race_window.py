"""The race window: 2–4 solvers on one scene in lock-step, as small multiples of the canvas (each lane's caption
under its canvas, never over the points), curves overlaid in one plot (one colour per algorithm, one quantity
and one kind of margin on the axis), and a table of who halted when, with one column per kind of margin."""

from __future__ import annotations

import math
import threading
import time

import pyqtgraph as pg
from PySide6.QtCore import Qt, QTimer, Signal
from PySide6.QtGui import QColor, QFont, QFontMetrics, QKeySequence, QShortcut
from PySide6.QtWidgets import (
    QCheckBox, QComboBox, QGridLayout, QHBoxLayout, QHeaderView, QLabel, QProgressBar, QPushButton, QSlider,
    QSplitter, QStackedWidget, QTabWidget, QTableWidget, QTableWidgetItem, QVBoxLayout, QWidget,
)

from percviz.app.run.background import Task
from percviz.app.experiments.common import (
    canvas_theme, fit_to_screen, lane_color, line_width, save_png, stop_task, style_plot, toggled_theme,
)
from percviz.app.experiments.names import outcome_words
from percviz.app.experiments.race_lanes import Lane, fmt
from percviz.core.data import PointSet
from percviz.core.errors import PercvizError
from percviz.core.experiments.race import DEFAULT_MAX_ITER, Race
from percviz.core.scene import SceneModel
from percviz.core.solvers import METRICS, get_solver
from percviz.app.timing import DRAW_WAIT_S, FIRST_SLICE_S, RUN_SLICE_S, TICK_MS

#: Updates per play tick, by the speed menu's entry.
SPEEDS = {"1 / tick": 1, "5 / tick": 5, "25 / tick": 25, "100 / tick": 100}
#: The size the window asks for at desk scale (less when the screen's available geometry is smaller).
PREFERRED_SIZE = (1200, 860)
#: Presenting, the window asks for this much more (as much of the screen as it may have).
PRESENTING_GROW = 1.25
#: Pixels of window height the race needs per unit of presentation scale (lanes, four-line captions, curves,
#: transport): at 2× it fills 752 px, a 1280×800 screen less its frame; a taller scale is capped to what fits.
HEIGHT_PER_SCALE = 376
#: The quantity key of one kind of margin in the quantity box ("margin:normalized", "margin:geometric").
MARGIN_KEY = "margin:"


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
        self._drawn = threading.Event()
        self._build()
        self.scene.points_changed.connect(lambda _kind: self.restart())
        self._max_iter = max_iter
        self.race = self._new_race(max_iter)
        self._on_restarted()
        if theme is not None:
            self.apply_theme(theme)
        grow = PRESENTING_GROW if self.theme is not None and self.theme.presentation else 1.0
        fit_to_screen(self, int(PREFERRED_SIZE[0] * grow), int(PREFERRED_SIZE[1] * grow))

    # -- layout ----------------------------------------------------------------------------------
    def _build(self) -> None:
        grid = QGridLayout()
        grid.setContentsMargins(0, 0, 0, 0)
        self.lane_views: list[Lane] = []
        cols = 2 if len(self.lanes) == 4 else len(self.lanes)
        for i, lane in enumerate(self.lanes):
            view = Lane(i, lane, self.scene, canvas_theme(self.theme))
            grid.addWidget(view, i // cols, i % cols)
            self.lane_views.append(view)
        self.canvases = [v.canvas for v in self.lane_views]
        self.lane_labels = [v.title for v in self.lane_views]
        self.captions = [v.caption for v in self.lane_views]
        top = QWidget()
        top.setLayout(grid)

        self.quantity = QComboBox()
        self.quantity.setAccessibleName("quantity")
        self._fill_quantities()
        self.quantity.currentIndexChanged.connect(lambda _i: self._draw_curves())
        self.curves_plot = pg.PlotWidget()
        self.curves_plot.setAccessibleName("race-curves")
        self.curves_plot.setMinimumHeight(120)
        self.curves_legend = self.curves_plot.addLegend(offset=(-10, -10))
        self.curves_plot.setLabel("bottom", "iteration k")
        self.curve_items = [self.curves_plot.plot([], [], name=v.name) for v in self.lane_views]
        self.cursor_line = pg.InfiniteLine(angle=90, pen=pg.mkPen("#888", style=Qt.PenStyle.DashLine))
        self.curves_plot.addItem(self.cursor_line)

        self.margin_kinds = list(dict.fromkeys(v.margin_term.key for v in self.lane_views))
        terms = {v.margin_term.key: v.margin_term for v in self.lane_views}
        # a margin column's header: its name over its symbol, a word a line (short lines rather than one long one)
        self.columns = (["algorithm", "outcome", "halted\nat k"]
                        + ["\n".join([*terms[k].name.split(), terms[k].symbol]) for k in self.margin_kinds] + ["‖p‖_G"])
        self.table = QTableWidget(len(self.lanes), len(self.columns))
        self.table.setAccessibleName("race-table")
        self.table.setHorizontalHeaderLabels(self.columns)
        for c, key in enumerate(self.margin_kinds, 3):
            self.table.horizontalHeaderItem(c).setToolTip(terms[key].tooltip)
        self.table.verticalHeader().setVisible(False)
        self.table.horizontalHeader().setStretchLastSection(False)  # a stretched ‖p‖_G would push the rest out
        self.table.setWordWrap(True)
        self.table.setTextElideMode(Qt.TextElideMode.ElideNone)

        self.bottom_split = bottom = QSplitter(Qt.Orientation.Horizontal)
        self.curves_box = left = QWidget()
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
        bottom.setSizes([500, 500])
        self.bottom_tabs = QTabWidget()  # presenting: the curves and the table take turns at the full width
        self.bottom_tabs.setAccessibleName("race-bottom-tabs")
        self.bottom = QStackedWidget()
        self.bottom.addWidget(bottom)
        self.bottom.addWidget(self.bottom_tabs)

        self.step_button = self._button("Step", "step", self.step)
        self.play_button = self._button("Play", "play", self.toggle_play)
        self.play_button.setCheckable(True)
        self.end_button = self._button("Run to end", "run", self.run_to_end)
        self.end_button.setToolTip("Run every lane to its end on a worker thread; click again to stop")
        self.reset_button = self._button("Reset", "reset", self.reset)
        self.live = QCheckBox("Live")
        self.live.setAccessibleName("live")
        self.live.setToolTip("Run every lane to its end after each edit of the points")
        self.speed = QComboBox()
        self.speed.setAccessibleName("speed")
        self.speed.addItems(list(SPEEDS))
        self.progress = QProgressBar()
        self.progress.setAccessibleName("progress")
        self.progress.setFormat("k = %v of at most %m")
        self.progress.hide()
        self.scrub = QSlider(Qt.Orientation.Horizontal)
        self.scrub.setAccessibleName("history")
        self.scrub.valueChanged.connect(self.show_iteration)
        self.status = QLabel()
        self.status.setAccessibleName("status")
        controls = QHBoxLayout()
        for w in (self.step_button, self.play_button, self.end_button, self.reset_button, self.live, self.speed):
            controls.addWidget(w)
        controls.addWidget(self.progress, 1)
        controls.addStretch(0)
        history = QHBoxLayout()  # its own row: at presentation size the transport row needs the whole width
        history.addWidget(self.scrub, 1)
        history.addWidget(self.status)

        self.split = QSplitter(Qt.Orientation.Vertical)
        self.split.addWidget(top)
        self.split.addWidget(self.bottom)
        self.split.setStretchFactor(0, 3)
        self.split.setStretchFactor(1, 2)
        self.split.setChildrenCollapsible(False)
        lay = QVBoxLayout(self)
        lay.addWidget(self.split, 1)
        lay.addLayout(controls)
        lay.addLayout(history)
        for key, fn in ((Qt.Key.Key_Space, self.step), (Qt.Key.Key_P, self.toggle_play),
                        (Qt.Key.Key_R, self.reset), (Qt.Key.Key_Left, lambda: self.scrub_by(-1)),
                        (Qt.Key.Key_Right, lambda: self.scrub_by(1)), (Qt.Key.Key_F5, self.toggle_presentation)):
            QShortcut(QKeySequence(key), self, activated=fn)

    def _fill_quantities(self) -> None:
        """Every metric of the lanes, with `margin` split into one entry per kind (m(α), γ(a), …): never mixed."""
        keys: list[str] = []
        for view in self.lane_views:
            for k in get_solver(view.lane.algorithm).metric_keys:
                k = MARGIN_KEY + view.margin_term.key if k == "margin" else k
                if k not in keys:
                    keys.append(k)
        for k in keys:
            self.quantity.addItem(self._quantity_label(k), k)
        margins = [i for i, k in enumerate(keys) if k.startswith(MARGIN_KEY)]
        if margins:
            self.quantity.setCurrentIndex(margins[0])

    def _quantity_label(self, key: str) -> str:
        if key.startswith(MARGIN_KEY):
            kind = key[len(MARGIN_KEY):]
            return next(v.margin_term.short for v in self.lane_views if v.margin_term.key == kind)
        return METRICS[key].label if key in METRICS else key

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
        self._drawn.set()
        stop_task(self._task, None)  # the race is restarted below: its thread must have let go of it
        self._task = None
        self._running(False)
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
        """Run every lane to its end on a worker thread; the window shows its progress at once and as it goes.

        A second click (the button then reads Stop) stops the run where it is."""
        if self.busy:
            self.stop_run()
            return
        if self.race is None or self.race.done:
            return
        self.pause()
        self._task = Task(name="race")
        # bound methods only: Qt drops their connections when this window is deleted
        self._task.progress.connect(self._on_run_progress)
        self._task.done.connect(self._task_done)
        self._task.failed.connect(self._task_failed)
        self._running(True)
        self._drawn = threading.Event()
        self._task.start(_run_race, self.race, self._drawn)

    def _running(self, on: bool) -> None:
        """The controls of a run to the end: Stop in place of Run to end, the progress bar, the others disabled."""
        self.end_button.setText("Stop" if on else "Run to end")
        for b in (self.step_button, self.play_button, self.reset_button):
            b.setEnabled(not on)
        if on and self.race is not None:
            self.progress.setRange(0, max(self._limits(), 1))
            self.progress.setValue(self.race.iteration)
            self.status.setText(f"running every lane to its end… k = {self.race.iteration}")
        self.progress.setVisible(on)

    def _limits(self) -> int:
        return max((s.max_iter for s in self.race.solvers), default=self._max_iter) if self.race else self._max_iter

    def _on_run_progress(self, k: int) -> None:
        """Draw a report, then tell the worker it may go on (it waits, so that it does not slow the drawing)."""
        self.progress.setValue(int(k))
        self._show_run_progress()
        self.progress.repaint()

    def _show_run_progress(self) -> None:
        if self.busy and self.race is not None:
            self.show_iteration(self.race.iteration)
            self.status.setText(f"running every lane to its end… k = {self.race.iteration}")
        QTimer.singleShot(0, self._drawn.set)  # after the repaint this turn of the event loop makes

    def stop_run(self) -> None:
        """Stop a run to the end; the lanes stay where it got them."""
        if self._task is not None:
            self._drawn.set()
            stop_task(self._task, None)  # its thread lets go of the race after its slice
            self._task_done()

    def _task_done(self, _result=None) -> None:
        self._task = None
        self._running(False)
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
        for view, snap in zip(self.lane_views, snaps):
            view.show_snapshot(snap)
        self.scrub.blockSignals(True)
        self.scrub.setRange(0, race.iteration)
        self.scrub.setValue(self.shown)
        self.scrub.blockSignals(False)
        self.status.setText(f"k = {self.shown}" + (f" of {race.iteration}" if self.shown < race.iteration else "")
                            + (" · all halted" if race.done and self.shown == race.iteration else ""))
        self._fill_table(snaps)
        self._draw_curves()

    def _fill_table(self, snaps) -> None:
        """One row per lane: its name, outcome words, halting iteration, its margin in its own kind's column."""
        for r, (view, snap) in enumerate(zip(self.lane_views, snaps)):
            halted = snap.status.done
            cells = [view.name, outcome_words(snap), str(snap.iteration) if halted else ""]
            cells += [fmt(snap.metrics.get("margin")) if view.margin_term.key == k else "" for k in self.margin_kinds]
            cells.append(fmt(snap.metrics.get("p_g_norm")))
            for c, text in enumerate(cells):
                item = QTableWidgetItem(text)
                item.setToolTip(text)
                if c == 0:
                    item.setForeground(QColor(lane_color(r)))
                self.table.setItem(r, c, item)
        self._fit_table()

    def _fit_table(self) -> None:
        """Columns as wide as their contents, the algorithm's name wrapped at spaces to what is left."""
        t = self.table
        t.resizeColumnsToContents()
        room = t.viewport().width() - sum(t.columnWidth(c) for c in range(1, t.columnCount()))
        fm = t.fontMetrics()
        # split at plain spaces only: 'φ = Augmented' is kept on one line by its non-breaking spaces
        widest_word = max((fm.horizontalAdvance(w) for v in self.lane_views for w in v.name.split(" ")), default=0)
        t.setColumnWidth(0, max(min(t.columnWidth(0), room - 4), widest_word + 16))
        t.resizeRowsToContents()

    def _arrange_bottom(self, presenting: bool) -> None:
        """Desk: the curves beside the table; presenting: one tab each, both at the window's full width."""
        if presenting and self.bottom.currentIndex() == 0:
            self.bottom_tabs.addTab(self.curves_box, "Curves")
            self.bottom_tabs.addTab(self.table, "Table")
            self.bottom.setCurrentIndex(1)
        elif not presenting and self.bottom.currentIndex() == 1:
            self.bottom_split.addWidget(self.curves_box)
            self.bottom_split.addWidget(self.table)
            for page in (self.curves_box, self.table):  # the tab not shown last was hidden, and stays so unless told
                page.show()
            self.bottom_split.setSizes([500, 500])
            self.bottom.setCurrentIndex(0)

    def _axis_name(self, key: str) -> str:
        """The curves' axis label: the quantity's name, or only its symbol when the plot is too short for it."""
        text = self._quantity_label(key) if key else ""
        if key and key.startswith(MARGIN_KEY):
            term = next(v.margin_term for v in self.lane_views if MARGIN_KEY + v.margin_term.key == key)
            axis = self.curves_plot.getPlotItem().getAxis("left")
            room = self.curves_plot.getPlotItem().vb.height()
            if QFontMetrics(axis.label.font()).horizontalAdvance(text) > room - 8:
                text = term.symbol
        return text

    def resizeEvent(self, event) -> None:
        super().resizeEvent(event)
        self._fit_table()
        self._draw_curves()

    def margin_cell(self, row: int, kind: str) -> str:
        """The table's text for lane `row` in the column of margin kind `kind` ('' when that lane has another)."""
        item = self.table.item(row, 3 + self.margin_kinds.index(kind))
        return item.text() if item is not None else ""

    def _draw_curves(self) -> None:
        key = self.quantity.currentData()
        kind = key[len(MARGIN_KEY):] if key and key.startswith(MARGIN_KEY) else None
        metric = "margin" if kind else key
        info = METRICS.get(metric)
        self.curves_plot.setLabel("left", self._axis_name(key))
        log = bool(info and info.log_default)
        self.curves_plot.setLogMode(False, log)
        if self.race is None:
            return
        width = line_width(self.theme)
        self.curves_legend.clear()
        for i, (view, item, (xs, ys)) in enumerate(zip(self.lane_views, self.curve_items,
                                                        self.race.series(metric, self.shown))):
            if kind is not None and view.margin_term.key != kind:  # another kind of margin: not on this axis
                xs, ys = [], []
            pts = [(x, y) for x, y in zip(xs, ys) if math.isfinite(y) and (y > 0 or not log)]
            item.setData([p[0] for p in pts], [p[1] for p in pts], pen=pg.mkPen(lane_color(i), width=width))
            if pts:
                self.curves_legend.addItem(item, view.name)
        self.cursor_line.setValue(self.shown)

    # -- presentation ----------------------------------------------------------------------------
    def apply_theme(self, theme) -> None:
        """Colours and sizes of everything: text, lanes' canvases, the curves, the table's rows and the window's
        own size (presentation asks for more room, within the screen's available geometry)."""
        was = self.theme
        theme = theme.with_scale(min(theme.scale, self._scale_that_fits())) if theme.presentation else theme
        self.theme = theme
        self.setPalette(theme.palette())
        theme.style_fields(self)  # the Live box's edge: black on a black window otherwise
        for v in self.lane_views:
            v.canvas.apply_theme(canvas_theme(theme))
            v.restyle()
            v.canvas.setMinimumSize(int(150 * min(theme.scale, 1.5)), int(120 * min(theme.scale, 1.5)))
        style_plot(self.curves_plot, theme)
        font = QFont(self.font())
        font.setPointSizeF(theme.font_pt)
        for w in (self.table, self.table.horizontalHeader(), self.status, self.quantity, self.speed,
                  self.step_button, self.play_button, self.end_button, self.reset_button, self.quantity_label,
                  self.live, self.progress, *self.captions):
            w.setFont(font)
        self.table.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.Interactive)
        self.bottom_tabs.setFont(font)
        self._arrange_bottom(theme.presentation)
        self._fit_table()
        self._draw_curves()
        if was is not None and theme.scale != was.scale and self.isVisible():
            grow = PRESENTING_GROW if theme.presentation else 1.0
            fit_to_screen(self, int(PREFERRED_SIZE[0] * grow), int(PREFERRED_SIZE[1] * grow))

    def toggle_presentation(self) -> None:
        self.apply_theme(toggled_theme(self.theme))

    def _scale_that_fits(self) -> float:
        """The largest presentation scale whose layout fits the screen's available height (at least 2×)."""
        from PySide6.QtGui import QGuiApplication

        from percviz.app.experiments.common import FRAME_ROOM
        from percviz.app.theme import PRESENTATION_SCALE

        screen = self.screen() or QGuiApplication.primaryScreen()
        if screen is None:
            return PRESENTATION_SCALE
        return max(PRESENTATION_SCALE, (screen.availableGeometry().height() - FRAME_ROOM[1]) / HEIGHT_PER_SCALE)

    def save_png(self, path) -> bool:
        return save_png(self, path)

    def closeEvent(self, event) -> None:
        self.pause()
        stop_task(self._task)
        self._task = None
        super().closeEvent(event)




def _run_race(race: Race, drawn: threading.Event):
    """The run-to-end task: updates of every lane in slices, yielding the race's iteration after each and
    waiting (at most DRAW_WAIT_S) until the window has drawn it."""
    slice_s = FIRST_SLICE_S
    while not race.done:
        t0 = time.perf_counter()
        while not race.done and time.perf_counter() - t0 < slice_s:
            race.advance(10)
        drawn.clear()
        yield race.iteration
        drawn.wait(DRAW_WAIT_S)
        slice_s = RUN_SLICE_S
