"""File ▸ Export picture… and Export animation…: the choices, then the work (animation on a worker thread)."""

from __future__ import annotations

import threading
from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QDoubleSpinBox,
    QFormLayout,
    QProgressDialog,
    QSpinBox,
    QWidget,
)

from percviz.app.run.background import Task
from percviz.app.classroom.export import AnimationExport, save_picture
from percviz.core.errors import PercvizError
from percviz.app.timing import CLOSE_WAIT_S

if TYPE_CHECKING:
    from collections.abc import Mapping

    from percviz.app.context import AppContext

PANEL_LABELS = {"canvas": "Canvas (decision function)", "curves": "Convergence curves",
                "weight": "Weight space", "feature": "Feature space"}


def picture_targets(window) -> dict[str, QWidget]:
    """What can be exported as a picture: the whole window and every panel currently visible."""
    targets: dict[str, QWidget] = {"window": window}
    for name, panel in window.panels.items():
        if panel.isVisible():
            targets[name] = panel
    return targets


def _scale_box(high: float, value: float) -> QDoubleSpinBox:
    """The export scale: 0.5× to `high`× in steps of 0.5."""
    box = QDoubleSpinBox()
    box.setRange(0.5, high)
    box.setSingleStep(0.5)
    box.setValue(value)
    box.setSuffix(" ×")
    return box


def _add_ok_cancel(dialog: QDialog, form: QFormLayout) -> None:
    """OK and Cancel as the form's last row, accepting or rejecting the dialog."""
    buttons = QDialogButtonBox(QDialogButtonBox.Ok | QDialogButtonBox.Cancel)
    buttons.accepted.connect(dialog.accept)
    buttons.rejected.connect(dialog.reject)
    form.addRow(buttons)


class PictureDialog(QDialog):
    """Which view, at which scale."""

    def __init__(self, window, default_scale: float = 2.0):
        super().__init__(window)
        self.setWindowTitle("Export picture")
        self.targets = picture_targets(window)
        form = QFormLayout(self)
        self.target = QComboBox()
        for key in self.targets:
            self.target.addItem("Whole window" if key == "window" else PANEL_LABELS.get(key, key), key)
        form.addRow("View", self.target)
        self.scale = _scale_box(8.0, default_scale)
        self.scale.setToolTip("Pixels per screen pixel in a PNG (2× or 3× for slides); an SVG is vector anyway")
        form.addRow("Scale", self.scale)
        _add_ok_cancel(self, form)

    def choice(self) -> tuple[str, float]:
        return self.target.currentData(), self.scale.value()


class AnimationDialog(QDialog):
    """Iterations a..b, frame rate, panels, scale."""

    def __init__(self, window, last_default: int, max_iter: int):
        super().__init__(window)
        self.setWindowTitle("Export animation")
        form = QFormLayout(self)
        self.start = QSpinBox()
        self.start.setRange(0, max_iter)
        self.end = QSpinBox()
        self.end.setRange(0, max_iter)
        self.end.setValue(min(max(last_default, 1), max_iter))
        self.start.valueChanged.connect(lambda v: self.end.setMinimum(v))
        form.addRow("From iteration", self.start)
        form.addRow("To iteration", self.end)
        self.fps = QDoubleSpinBox()
        self.fps.setRange(0.5, 60)
        self.fps.setValue(10)
        self.fps.setSuffix(" frames/s")
        form.addRow("Frame rate", self.fps)
        self.curves = QCheckBox("Include the convergence curves")
        form.addRow(self.curves)
        self.scale = _scale_box(4.0, 1.0)
        form.addRow("Scale", self.scale)
        _add_ok_cancel(self, form)

    def choice(self) -> dict:
        panels = ("canvas", "curves") if self.curves.isChecked() else ("canvas",)
        return {"start": self.start.value(), "end": self.end.value(), "fps": self.fps.value(),
                "panels": panels, "scale": self.scale.value()}


def export_picture(widgets: "Mapping[str, QWidget]", target: str, path, scale: float) -> Path:
    """Save widgets[target] (the whole window, "window", or one panel) as PNG/SVG at `scale`."""
    widget = widgets[target]
    return save_picture(widget, path, scale)




class AnimationRunner:
    """Starts an AnimationExport for the window's scene and shows its progress with a Cancel button."""

    def __init__(self, ctx: "AppContext", theme):
        self.ctx, self.window, self.theme = ctx, ctx.window, theme
        self.job: AnimationExport | None = None
        self.dialog: QProgressDialog | None = None

    @property
    def busy(self) -> bool:
        return self.job is not None and self.job.running

    def start(self, path, start: int, end: int, fps: float, panels=("canvas",), scale: float = 1.0,
              show_progress: bool = True) -> AnimationExport | None:
        if self.busy:
            self.ctx.show_message("An animation is already being exported.")
            return None
        try:
            job = AnimationExport(self.window.current_preset(), path, start=start, end=end, fps=fps, panels=panels,
                                  scale=scale, theme=self.theme.with_scale(1.0), parent=self.window)
        except (PercvizError, OSError) as e:
            self.ctx.show_error("Cannot export the animation", str(e))
            return None
        self.job = job
        if show_progress:
            dlg = QProgressDialog(f"Rendering {Path(path).name}…", "Cancel", 0, job.total, self.window)
            dlg.setWindowTitle("Export animation")
            dlg.setWindowModality(Qt.WindowModal)
            dlg.setMinimumDuration(0)  # at once: the first frames (the run, the panels) can take seconds
            dlg.setAutoClose(False)
            dlg.setAutoReset(False)
            dlg.canceled.connect(job.cancel)
            name = Path(path).name
            job.progress.connect(lambda done, total: (dlg.setValue(done), dlg.setLabelText(
                f"Rendering {name}: frame {done} of {total}…")))
            self.dialog = dlg
            dlg.setValue(0)
            dlg.show()
        job.finished.connect(self._finished)
        job.failed.connect(self._failed)
        job.start()
        return job

    def cancel_and_wait(self) -> None:
        """Stop a running export (closing the window): cancel, wait for its thread (bounded), drop the partial file."""
        if self.busy:
            self.job.cancel()
            self.job.wait(CLOSE_WAIT_S)

    def _close_dialog(self) -> None:
        if self.dialog is not None:
            self.dialog.close()
            self.dialog.deleteLater()
            self.dialog = None

    def _finished(self, result) -> None:
        self._close_dialog()
        if result is None:
            return
        if result.cancelled:
            self.ctx.show_message("Animation export cancelled; nothing was written.")
        else:
            w, h = result.size
            self.ctx.show_message(f"Saved {result.path.name}: {result.frames} frames, {w}×{h}, "
                                     f"iterations {result.first}–{result.last}.", 8000)

    def _failed(self, text: str) -> None:
        self._close_dialog()
        self.ctx.show_error("Cannot export the animation", text)


class HandoutRunner:
    """File ▸ Export handout (HTML)…: records the window's scene on a background Task and writes the page."""

    def __init__(self, ctx: "AppContext"):
        self.ctx, self.window = ctx, ctx.window
        self.task: Task | None = None
        self._stop = threading.Event()

    @property
    def busy(self) -> bool:
        return self.task is not None and self.task.running

    def start(self, path) -> Task | None:
        from percviz.handout import write_handout

        if self.busy:
            self.ctx.show_message("A handout is already being written.")
            return None
        preset = self.window.current_preset()
        task = Task(self.window, "percviz-handout")
        task.done.connect(self._done)
        task.failed.connect(lambda text: self.ctx.show_error("Cannot export the handout", text))
        self.task, stop = task, threading.Event()  # the thread holds the flag, never the Task
        self._stop = stop
        self.ctx.show_message(f"Recording the run for {Path(path).name}…")
        return task.start(lambda: write_handout(preset, path, cancelled=stop.is_set))

    def _done(self, path) -> None:
        if path is not None:
            self.ctx.show_message(f"Saved {Path(path).name}: a handout that plays the run in any browser "
                                     f"({Path(path).stat().st_size / 1e6:.1f} MB).", 8000)

    def cancel_and_wait(self) -> None:
        """Closing the window: stop recording (at the next snapshot) and wait for the thread (bounded)."""
        if self.busy:
            self._stop.set()
            self.task.cancel()
            self.task.wait(int(CLOSE_WAIT_S * 1000))
