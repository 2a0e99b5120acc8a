"""What the experiment windows share: one colour per algorithm, plot styling from the theme, PNG/CSV export,
stopping their background task, and `PlotTaskWindow`, the frame of the sweep and Cover windows."""

from __future__ import annotations

import csv

import pyqtgraph as pg
from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QFont, QKeySequence, QShortcut
from PySide6.QtWidgets import QFileDialog, QLabel, QProgressBar, QPushButton, QVBoxLayout, QWidget

from percviz.app.run.background import Task
from percviz.app.timing import CLOSE_WAIT_MS

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
    font.setPointSizeF(theme.font_pt)
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




def stop_task(task, timeout_ms: int | None = CLOSE_WAIT_MS) -> None:
    """Cancel a background.Task (nothing more is emitted) and wait for its thread, at most timeout_ms."""
    if task is not None:
        task.cancel()
        task.wait(timeout_ms)


#: Room left around a window for its frame and title bar when it is fitted to the screen.
FRAME_ROOM = (16, 48)


def fit_to_screen(widget, width: int, height: int) -> None:
    """Resize a top-level window to (width, height), or less, so that it lies inside its screen's available
    geometry (frame and title bar included), and move it there."""
    from PySide6.QtGui import QGuiApplication

    screen = widget.screen() or QGuiApplication.primaryScreen()
    if screen is None:
        widget.resize(width, height)
        return
    area = screen.availableGeometry()
    w = max(1, min(width, area.width() - FRAME_ROOM[0]))
    h = max(1, min(height, area.height() - FRAME_ROOM[1]))
    widget.resize(w, h)
    widget.move(area.x() + (area.width() - w - FRAME_ROOM[0]) // 2, area.y() + (area.height() - h - FRAME_ROOM[1]) // 2)


def toggled_theme(theme):
    """The theme at presentation scale, or back at desk scale when it already is (F5 in every window)."""
    from percviz.app.theme import PRESENTATION_SCALE, theme_for

    base = theme or theme_for()
    return base.with_scale(1.0 if base.presentation else PRESENTATION_SCALE)


class PlotTaskWindow(QWidget):
    """A window with one plot filled by a background Task: Run/Cancel, progress, status, theme and F5, PNG export.

    A subclass calls `_task_controls(text)` (Run, Cancel, Export PNG…, progress, status), builds `self.plot` and its
    rows of controls, calls `_init_frame(*rows)`, and defines `start()`, `_draw()` and `_on_done(result)`; `_run(name, on_progress, fn, *args)`
    starts its task.
    """

    finished = Signal()
    #: The start of the status line when the task raises (e.g. "The sweep failed").
    failure_text = "The task failed"
    #: The file name a Save dialog proposes, without its suffix.
    export_stem = "plot"

    def _task_controls(self, status: str) -> None:
        """Run, Cancel and Export PNG… buttons, the progress bar and the status line (with their accessible names)."""
        self.run_button = QPushButton("Run")
        self.run_button.setAccessibleName("run")
        self.run_button.clicked.connect(lambda: self.start())
        self.cancel_button = QPushButton("Cancel")
        self.cancel_button.setAccessibleName("cancel")
        self.cancel_button.setEnabled(False)
        self.cancel_button.clicked.connect(self.cancel)
        self.png_button = QPushButton("Export PNG…")
        self.png_button.clicked.connect(lambda: self._ask("PNG (*.png)", ".png", self.export_png))
        self.progress = QProgressBar()
        self.progress.setAccessibleName("progress")
        self.status = QLabel(status)
        self.status.setAccessibleName("status")
        self.status.setWordWrap(True)

    def _init_frame(self, *rows) -> None:
        """Lay out the control rows, the plot (stretching), the progress bar and the status line; F5 toggles."""
        lay = QVBoxLayout(self)
        for row in rows:
            lay.addLayout(row)
        lay.addWidget(self.plot, 1)
        lay.addWidget(self.progress)
        lay.addWidget(self.status)
        self._task: Task | None = None
        self._stopping: Task | None = None  # a cancelled task whose thread may still be winding down
        QShortcut(QKeySequence(Qt.Key.Key_F5), self, activated=self.toggle_presentation)

    @property
    def busy(self) -> bool:
        return self._task is not None

    def _run(self, name: str, on_progress, fn, *args) -> None:
        self._task = Task(name=name)
        # bound methods only: Qt drops their connections when this window is deleted
        self._task.progress.connect(on_progress)
        self._task.done.connect(self._on_done)
        self._task.failed.connect(self._on_failed)
        self.run_button.setEnabled(False)
        self.cancel_button.setEnabled(True)
        self._task.start(fn, *args)

    def cancel(self) -> None:
        """Stop the task (it emits nothing more); its thread winds down at its next yield or poll."""
        if self._task is not None:
            self._task.cancel()
            self._stopping = self._task
            self.status.setText("Cancelled.")
            self._finish()

    def _on_failed(self, text: str) -> None:
        self.status.setText(f"{self.failure_text}: {text}")
        self._finish()

    def _finish(self) -> None:
        self._task = None
        self.run_button.setEnabled(True)
        self.cancel_button.setEnabled(False)
        self.finished.emit()

    def wait_idle(self, qtbot, timeout: int = 60000) -> None:
        qtbot.waitUntil(lambda: self._task is None and not (self._stopping and self._stopping.running),
                        timeout=timeout)

    def export_png(self, path) -> bool:
        return save_png(self.plot, path)

    def _ask(self, filt: str, suffix: str, fn) -> None:
        path, _ = QFileDialog.getSaveFileName(self, "Export", f"{self.export_stem}{suffix}", filt)
        if path:
            fn(path)

    def _style_axes(self, theme) -> None:
        """Hook for a subclass's own axis styling after the theme's."""

    #: The size the window asks for at desk scale (less when the screen's available geometry is smaller).
    preferred_size = (1000, 700)
    theme = None  # until the first apply_theme

    def apply_theme(self, theme) -> None:
        was = self.theme
        self.theme = theme
        self.setPalette(theme.palette())
        theme.style_fields(self)  # check boxes and fields: black edges on a black window otherwise
        style_plot(self.plot, theme)
        self._style_axes(theme)
        font = QFont(self.font())
        font.setPointSizeF(theme.font_pt)
        self.setFont(font)
        self._draw()
        if was is not None and was.scale != theme.scale and self.isVisible():  # F5: as much room as the screen has
            grow = 1.25 if theme.presentation else 1.0
            fit_to_screen(self, int(self.preferred_size[0] * grow), int(self.preferred_size[1] * grow))

    def toggle_presentation(self) -> None:
        self.apply_theme(toggled_theme(self.theme))

    def closeEvent(self, event) -> None:
        stop_task(self._task)
        self._task = None
        super().closeEvent(event)
