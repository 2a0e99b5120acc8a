"""Pictures and animations: PNG/SVG of any widget at a chosen scale; a run as GIF or MP4.

- `save_picture(widget, path, scale)`: PNG (raster at `scale` × the widget's size) or SVG (vector).
- `export_run(preset_or_path, out, ...)`: runs the preset's algorithm, renders the canvas (and
  optionally the curves) offscreen for every iteration from `start` to `end`, and writes a GIF
  (Pillow, one palette for all frames with a share set aside for the colour map's ramp, unchanged pixels left
  transparent) or an MP4 (imageio's ffmpeg plugin; imageio-ffmpeg ships ffmpeg).
  Works without a window: `percviz export PRESET.json --out run.gif` calls `run_export(args)`.
  The run is computed first, so every frame shares its axes and colour scale (fitted once to the whole run)
  and the curves carry the ρ_K line as in the window.
- `AnimationExport`: the same on the app's one background helper (percviz.app.run.background.Task) for the GUI
  (progress, cancel). The solver and the encoder run on the task's thread; each frame is drawn on the GUI
  thread (widgets live there) and handed back through a queue, so the window stays responsive and Cancel
  (or closing the window) is honoured between frames.
"""

from __future__ import annotations

import os
import queue
import sys
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Iterator, Sequence

import numpy as np
from PySide6.QtCore import QObject, QPoint, QRectF, QSize, Qt, Signal, Slot
from PySide6.QtGui import QImage, QPainter, QRegion
from PySide6.QtWidgets import QAbstractButton, QApplication, QHBoxLayout, QWidget

from percviz.app.classroom.gif_writer import (  # noqa: F401 - the writers' old home
    ANIMATION_FORMATS,
    BAYER,
    RAMP_COLOURS,
    RAMP_NEAR,
    FrameWriter,
    NearestPalette,
    ramp_palette,
)
from percviz.app.run.background import Task, error_text
from percviz.app.theme import Theme, theme_for
from percviz.core.handout import reference_rho
from percviz.core.errors import ParameterError, PercvizError
from percviz.app.timing import EXPORT_POLL_S

PICTURE_FORMATS = (".png", ".svg", ".jpg")
#: The canvas is drawn at this size (pixels at scale 1) in animations unless told otherwise.
DEFAULT_SIZE = (720, 560)
MAX_FRAMES = 5000


# ---------------------------------------------------------------------------------------------------
# Pictures
# ---------------------------------------------------------------------------------------------------

def render_widget(widget: QWidget, scale: float = 1.0) -> QImage:
    """The widget (with its children) drawn into an image of scale × its size, text and lines drawn at that resolution."""
    if not scale > 0:
        raise ParameterError(f"The picture scale must be positive; got {scale}.")
    size = widget.size()
    w, h = max(1, round(size.width() * scale)), max(1, round(size.height() * scale))
    img = QImage(w, h, QImage.Format_ARGB32_Premultiplied)
    img.setDevicePixelRatio(scale)
    img.fill(widget.palette().window().color())
    painter = QPainter(img)
    painter.setRenderHints(QPainter.Antialiasing | QPainter.TextAntialiasing | QPainter.SmoothPixmapTransform)
    widget.render(painter, QPoint(0, 0), QRegion(), QWidget.DrawWindowBackground | QWidget.DrawChildren)
    painter.end()
    return img


def save_picture(widget: QWidget, path: "str | os.PathLike", scale: float = 1.0) -> Path:
    """Save the widget as PNG/JPEG (raster at `scale`) or SVG (vector, displayed at `scale` × size)."""
    path = Path(path)
    ext = path.suffix.lower()
    if ext not in PICTURE_FORMATS:
        raise ParameterError(f"Pictures are saved as {', '.join(PICTURE_FORMATS)}; '{path.name}' has none of these.")
    # buttons ("Fit to data", a dock's own) mean nothing in a picture: hidden while it is drawn
    buttons = [b for b in widget.findChildren(QAbstractButton) if b.isVisible()]
    for b in buttons:
        b.hide()
    try:
        if ext == ".svg":
            _save_svg(widget, path, scale)
        else:
            img = render_widget(widget, scale)
            if not img.save(str(path)):
                raise OSError(f"Could not write {path}; check that the folder exists and is writable.")
    finally:
        for b in buttons:
            b.show()
    return path


def _save_svg(widget: QWidget, path: Path, scale: float) -> None:
    from PySide6.QtSvg import QSvgGenerator

    size = widget.size()
    gen = QSvgGenerator()
    gen.setFileName(str(path))
    gen.setSize(QSize(round(size.width() * scale), round(size.height() * scale)))
    gen.setViewBox(QRectF(0, 0, size.width(), size.height()))
    gen.setTitle(widget.windowTitle() or widget.objectName() or "percviz")
    gen.setDescription("Exported from percviz")
    painter = QPainter(gen)
    widget.render(painter, QPoint(0, 0), QRegion(), QWidget.DrawWindowBackground | QWidget.DrawChildren)
    painter.end()
    if not path.exists() or path.stat().st_size == 0:
        raise OSError(f"Could not write {path}; check that the folder exists and is writable.")


def image_to_array(img: QImage) -> np.ndarray:
    """An (h, w, 3) uint8 RGB copy of a QImage."""
    img = img.convertToFormat(QImage.Format_RGB888)
    w, h, stride = img.width(), img.height(), img.bytesPerLine()
    buf = np.frombuffer(img.constBits(), dtype=np.uint8, count=stride * h).reshape(h, stride)
    return buf[:, : 3 * w].reshape(h, w, 3).copy()


# ---------------------------------------------------------------------------------------------------
# Drawing a run offscreen
# ---------------------------------------------------------------------------------------------------

def ensure_app() -> QApplication:
    """The running QApplication, or a new offscreen one (no display needed)."""
    app = QApplication.instance()
    if app is None:
        if not os.environ.get("DISPLAY") and not os.environ.get("WAYLAND_DISPLAY") and sys.platform.startswith("linux"):
            os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
        app = QApplication(sys.argv[:1])
    return app


class FrameRenderer(QWidget):
    """Private, never-shown panels for a run: the canvas (with the run caption) and optionally the curves."""

    def __init__(self, preset, panels: Sequence[str] = ("canvas",), size=DEFAULT_SIZE, theme: Theme | None = None,
                 scale: float = 1.0):
        super().__init__()
        from percviz.app.panels.overlays import attach_run_overlay
        from percviz.core.scene import SceneModel, Settings

        self.setAttribute(Qt.WA_DontShowOnScreen)
        self.scale = float(scale)
        self.theme = theme or theme_for()
        self.scene = SceneModel(preset.points, Settings(
            kernel=preset.kernel, features=preset.features, algorithm=preset.algorithm,
            params=dict(preset.params), max_iter=preset.max_iter or 1000,
        ))
        self.panels: dict[str, QWidget] = {}
        layout = QHBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(0)
        for name in panels:
            panel = _panel_class(name)(self.scene, self)
            panel.setObjectName(name)
            layout.addWidget(panel, 3 if name == "canvas" else 2)
            self.panels[name] = panel
        w, h = size
        self.resize(int(w * (1 + 0.67 * (len(self.panels) - 1))), int(h))
        self.setPalette(self.theme.palette())
        self.setAutoFillBackground(True)
        for panel in self.panels.values():
            panel.apply_theme(self.theme)
        self.caption = attach_run_overlay(self.panels["canvas"], self.theme) if "canvas" in self.panels else None
        self._view = preset.view
        self.history: list = []
        self.show()  # offscreen (WA_DontShowOnScreen): polishes and lays out the panels

    def set_problem(self, problem, solver_cls) -> None:
        self.history = []
        for panel in self.panels.values():
            panel.set_problem(problem, solver_cls)
        if self.caption is not None:
            self.caption.set_solver(solver_cls)
        for panel in self.panels.values():
            panel.apply_view(self._view)
        canvas = self.panels.get("canvas")
        if canvas is not None:
            rng = self._view.range
            if rng is not None:
                canvas.viewbox.setRange(xRange=rng[:2], yRange=rng[2:], padding=0)
            else:
                canvas.fit_to_data()

    def fix_scales(self, snapshots, rho: float | None, level: float | None) -> np.ndarray | None:
        """Axes, colour scale and the ρ_K line fixed once for the whole run, so frames differ only in what changed.

        Returns the last snapshot drawn with the whole run, over the first snapshot drawn alone (a GIF's one palette
        is read from both: the first frame's colours, e.g. the halos over another part of the map, banded when only
        the last one was read); the panels then start again from the first frame."""
        for panel in self.panels.values():
            panel.set_reference(rho)
        canvas, curves = self.panels.get("canvas"), self.panels.get("curves")
        if canvas is not None and level is not None:
            canvas.fix_colour_scale(level)
        if curves is not None:
            curves.freeze_ranges(snapshots)
        if not snapshots:
            return None
        self.history = list(snapshots[:-1])
        frame = self.render_frame(snapshots[-1])
        self.history = []
        if curves is not None:
            curves.restart_values()
        if len(snapshots) > 1:
            first = self.render_frame(snapshots[0])
            self.history = []
            if curves is not None:
                curves.restart_values()
            frame = np.concatenate([frame, first], axis=0)
        return frame

    @Slot(object)
    def render_frame(self, snapshot) -> np.ndarray:
        """Draw this snapshot in every panel and return the picture as RGB."""
        for panel in self.panels.values():  # buttons mean nothing in a picture
            for button in panel.findChildren(QAbstractButton):
                button.hide()
        self.history.append(snapshot)
        for panel in self.panels.values():
            panel.set_history(self.history)
            panel.set_snapshot(snapshot)
        if self.caption is not None:
            self.caption.show_snapshot(snapshot)
        for panel in self.panels.values():  # panels that coalesce redraws on a timer draw now
            panel.redraw_now()
        QApplication.sendPostedEvents()
        self.last_frame = image_to_array(render_widget(self, self.scale))
        return self.last_frame

    def gradient_rects(self) -> list[tuple[int, int, int, int]]:
        """Where the frames show the colour map (the canvas's plot and its colour bar): (left, top, right, bottom)."""
        canvas = self.panels.get("canvas")
        if canvas is None:
            return []
        out = []
        for item in (canvas.viewbox, canvas.colorbar.bar):
            r = canvas.plot.mapFromScene(item.sceneBoundingRect()).boundingRect()
            r.moveTopLeft(canvas.plot.mapTo(self, r.topLeft()))
            r = r.intersected(self.rect())
            if not r.isEmpty():
                out.append(tuple(round(v * self.scale) for v in (r.left(), r.top(), r.right() + 1, r.bottom() + 1)))
        return out

    @Slot(object)
    def note_snapshot(self, snapshot) -> None:
        """Remember a snapshot that is not drawn (before `start`), so the curves show the whole run."""
        self.history.append(snapshot)


def _panel_class(name: str):
    if name == "canvas":
        from percviz.app.panels.canvas import CanvasView

        return CanvasView
    if name == "curves":
        from percviz.app.panels.curves import CurvesView

        return CurvesView
    raise ParameterError(f"Animations show the canvas and the curves; '{name}' is not one of them.")


@dataclass
class ExportResult:
    path: Path | None
    frames: int
    size: tuple[int, int] | None
    first: int
    last: int
    cancelled: bool = False


def as_preset(preset_or_path):
    """A Preset from a Preset, or from a preset/CSV path."""
    from percviz.core.presets import Preset, load_scene

    if isinstance(preset_or_path, Preset):
        return preset_or_path
    return load_scene(preset_or_path)


def plan(preset, solver, start: int, end: int | None, steps: int | None) -> tuple[int, int]:
    """(first, last) iterations to record: `end` if given, else `steps`, else up to where the run ends.

    Without a limit the run is first computed without drawing (cheap next to rendering) to find its
    last iteration; a run still going after MAX_FRAMES updates must be given a limit.
    """
    if start < 0:
        raise ParameterError(f"The first iteration must be 0 or more; got {start}.")
    if end is None and steps is None:
        probe = preset.make_solver()
        snap = probe.start()
        while not snap.status.done and snap.iteration < MAX_FRAMES + start:
            snap = probe.step()
        if not snap.status.done:
            raise ParameterError(
                f"The run has not ended after {snap.iteration} updates, too many frames for an animation "
                f"(the limit is {MAX_FRAMES}); record fewer iterations (--steps N, or a range)."
            )
        last = snap.iteration
    else:
        last = end if end is not None else steps
    last = min(int(last), solver.max_iter)
    if last < start:
        raise ParameterError(f"The last iteration ({last}) comes before the first ({start}).")
    if last - start + 1 > MAX_FRAMES:
        raise ParameterError(
            f"{last - start + 1} frames is too many for an animation (the limit is {MAX_FRAMES}); "
            "record fewer iterations (--steps, or a smaller range)."
        )
    return start, last


def iter_frames(solver, first: int, last: int) -> Iterator[tuple[object, bool]]:
    """(snapshot, drawn) for iterations 0..last; drawn is True from `first` on. Stops when the run ends."""
    for snap in solver.snapshots():
        if snap.iteration > last:
            break
        yield snap, snap.iteration >= first
        if snap.status.done:
            break


scene_rho = reference_rho  # the one rule, in core (the handout uses it too)


#: Without a usable last frame the colour scale is read from at most this many snapshots (evenly spaced).
LEVEL_SAMPLES = 400


def colour_level(snapshots, problem, solver_cls) -> float | None:
    """The colour map's fixed range: the largest |f(x_i)| of the last frame (the result a looping GIF holds on;
    earlier frames beyond it take the scale's end colours), else of the whole run; at least the SVM's level."""
    from percviz.app.panels.panel import decision_drawable
    from percviz.core.grid import GridEvaluator

    pts = problem.points
    if not snapshots or pts.n == 0 or pts.classes.max() > 1:  # class regions have no colour scale
        return None
    evaluator = GridEvaluator()

    def largest(snap) -> float:
        if not decision_drawable(snap.decision):
            return 0.0
        try:
            fx = np.asarray(evaluator.at_points(snap.decision, pts.X), dtype=float)
        except (ArithmeticError, ValueError, MemoryError):
            return 0.0
        fx = fx[np.isfinite(fx)]
        return float(np.max(np.abs(fx))) if fx.size else 0.0

    value = largest(snapshots[-1])
    if not value > 0:
        picks = sorted({*np.linspace(0, len(snapshots) - 1, min(len(snapshots), LEVEL_SAMPLES)).astype(int)})
        value = max(largest(snapshots[i]) for i in picks)
    level = solver_cls.margin_level if solver_cls is not None else None
    if level is not None and level > 0:
        value = max(value, float(level))
    return value if value > 0 else None


def export_run(preset_or_path, out: "str | os.PathLike", steps: int | None = None, fps: float = 10,
               start: int = 0, end: int | None = None,
               progress: Callable[[int, int], None] | None = None, cancel: Callable[[], bool] | None = None,
               panels: Sequence[str] = ("canvas",), size=DEFAULT_SIZE, scale: float = 1.0,
               theme: "Theme | str" = "light") -> ExportResult:
    """Record iterations start..end (or 0..steps) of a preset's run as a GIF or MP4; synchronous.

    `progress(done, total)` is called after each frame; `cancel()` returning True stops the export
    and deletes the partial file (the result then has `cancelled=True` and no path).
    """
    ensure_app()
    preset = as_preset(preset_or_path)
    solver = preset.make_solver()
    first, last = plan(preset, solver, start, end, steps)
    writer = FrameWriter(out, fps)
    th = theme_for(theme, 1.0) if isinstance(theme, str) else theme
    renderer = FrameRenderer(preset, panels, size, th, scale)
    try:
        renderer.set_problem(solver.problem, type(solver))
        run = list(iter_frames(solver, first, last))
        drawn_snaps = [s for s, drawn in run if drawn]
        writer.set_palette(renderer.fix_scales([s for s, _ in run], scene_rho(solver.problem, type(solver)),
                                               colour_level(drawn_snaps, solver.problem, type(solver))),
                           renderer.gradient_rects())
        total, shown = last - first + 1, None
        for snap, drawn in run:
            if cancel is not None and cancel():
                writer.abort()
                return ExportResult(None, writer.count, writer.size, first, shown or first, cancelled=True)
            if not drawn:
                renderer.note_snapshot(snap)
                continue
            writer.append(renderer.render_frame(snap))
            shown = snap.iteration
            if progress is not None:
                progress(writer.count, total)
        path = writer.close()
        return ExportResult(path, writer.count, writer.size, first, shown if shown is not None else first)
    except BaseException:
        writer.abort()
        raise
    finally:
        renderer.close()
        renderer.deleteLater()


def run_export(args) -> int:
    """`percviz export` (the CLI validated args and put the loaded preset in args.preset)."""
    options = vars(args)  # the export command's options (a test's namespace may carry only some)
    preset = options.get("preset") or as_preset(args.data)
    out = Path(args.out)
    started = time.monotonic()
    tty = sys.stderr.isatty()

    def report(done: int, total: int) -> None:
        if tty:
            sys.stderr.write(f"\rframe {done}/{total}")
            sys.stderr.flush()

    result = export_run(preset, out, steps=options.get("steps"), fps=options.get("fps", 10.0),
                        progress=report)
    if tty:
        sys.stderr.write("\n")
    w, h = result.size or (0, 0)
    print(f"wrote {result.path}: {result.frames} frames ({w}×{h}), iterations {result.first}–{result.last}, "
          f"{time.monotonic() - started:.1f} s")
    return 0


# ---------------------------------------------------------------------------------------------------
# The same on a worker thread (GUI)
# ---------------------------------------------------------------------------------------------------



def _export_loop(solver, first: int, last: int, writer: FrameWriter, frames: queue.SimpleQueue,
                 cancel: threading.Event):
    """The export's background work: step the solver, ask the UI thread to draw, encode; yields requests.

    First runs the solver to `last` and yields ("scales", (snapshots, ρ_K, colour level)), so every frame shares
    its axes and colour scale; then yields ("note", snap) for an iteration before `first`, ("draw", snap) for one
    to record — then waits for the UI thread's picture in `frames` — and ("progress", (done, total)) after each
    encoded frame. Returns the
    ExportResult (cancelled when `cancel` was set; the partial file is then removed).
    """
    shown, total = None, last - first + 1

    def result(path=None, cancelled=False) -> ExportResult:
        return ExportResult(path, writer.count, writer.size, first, shown if shown is not None else first,
                            cancelled=cancelled)

    try:
        run = []
        for item in iter_frames(solver, first, last):
            if cancel.is_set():
                break
            run.append(item)
        if not cancel.is_set():
            problem, cls = solver.problem, type(solver)
            yield "scales", ([s for s, _ in run], scene_rho(problem, cls),
                             colour_level([s for s, drawn in run if drawn], problem, cls))
            sample = None
            while sample is None and not cancel.is_set():  # the UI thread's picture of the last frame
                try:
                    sample = frames.get(timeout=EXPORT_POLL_S)
                except queue.Empty:
                    continue
            writer.set_palette(*(sample if isinstance(sample, tuple) else (None,)))  # (last frame, gradient boxes)
        for snap, drawn in run:
            if cancel.is_set():
                break
            if not drawn:
                yield "note", snap
                continue
            yield "draw", snap
            frame = None
            while frame is None and not cancel.is_set():
                try:
                    frame = frames.get(timeout=EXPORT_POLL_S)
                except queue.Empty:
                    continue
            if frame is None:
                break
            writer.append(frame)
            shown = snap.iteration
            yield "progress", (writer.count, total)
        if cancel.is_set():
            writer.abort()
            return result(cancelled=True)
        return result(writer.close())
    except PercvizError:
        writer.abort()
        raise
    except Exception as e:  # a full disk or a broken encoder: one line for the user
        writer.abort()
        raise PercvizError(str(e) if isinstance(e, OSError) else error_text(e, "the animation export")) from e


class AnimationExport(QObject):
    """A GIF/MP4 export on a background Task; signals progress(done, total), finished(result), failed(text).

    The solver and the encoder run on the task's thread; each frame is drawn on the UI thread (widgets live there),
    which hands the picture back through a queue. `cancel()` stops it between two frames (or while it waits for
    one); `wait()` needs no event processing, so closing the window ends the thread within a bounded time.
    """

    progress = Signal(int, int)
    finished = Signal(object)
    failed = Signal(str)

    def __init__(self, preset, out, start: int = 0, end: int | None = None, fps: float = 10,
                 panels: Sequence[str] = ("canvas",), size=DEFAULT_SIZE, scale: float = 1.0,
                 theme: Theme | None = None, parent: QObject | None = None):
        super().__init__(parent)
        self.preset = as_preset(preset)
        self.solver = self.preset.make_solver()
        self.first, self.last = plan(self.preset, self.solver, start, end, None)
        self.out = Path(out)
        self.writer = FrameWriter(out, fps)
        self.renderer = FrameRenderer(self.preset, panels, size, theme or theme_for(), scale)
        self.renderer.set_problem(self.solver.problem, type(self.solver))
        self.total = self.last - self.first + 1
        self.result: ExportResult | None = None
        self.error = ""
        self._cancel = threading.Event()
        self._ended = False  # _cleanup ran: the renderer is gone
        self._frames: queue.SimpleQueue = queue.SimpleQueue()
        self._task = Task(self, name="percviz-export")
        self._task.progress.connect(self._on_request)
        self._task.done.connect(self._on_done)
        self._task.failed.connect(self._on_failed)

    def start(self) -> None:
        self._task.start(_export_loop, self.solver, self.first, self.last, self.writer, self._frames, self._cancel)

    def cancel(self) -> None:
        self._cancel.set()

    @property
    def running(self) -> bool:
        return self._task.running

    def wait(self, timeout_s: float = 60.0) -> bool:
        """Block until the thread has ended (at most timeout_s), then deliver what it left; True when it has."""
        ended = self._task.wait(int(timeout_s * 1000))
        self._task.deliver()
        return ended

    @Slot(object)
    def _on_request(self, request) -> None:
        kind, value = request
        if self._ended or (kind in ("draw", "scales") and self._cancel.is_set()):
            return  # cancelled or over (the window closing): the thread no longer waits for a picture
        if kind == "draw":
            self._frames.put(self.renderer.render_frame(value))
        elif kind == "note":
            self.renderer.note_snapshot(value)
        elif kind == "scales":
            frame = self.renderer.fix_scales(*value)
            # False: no picture, the worker goes on
            self._frames.put((frame, self.renderer.gradient_rects()) if frame is not None else False)
        else:
            self.progress.emit(*value)

    @Slot(object)
    def _on_done(self, result) -> None:
        self.result = result
        self._cleanup()

    @Slot(str)
    def _on_failed(self, text: str) -> None:
        self.error = text
        self._cleanup()

    def _cleanup(self) -> None:
        self._ended = True
        self._task.wait(1000)  # the thread has handed over its last result and is returning: `running` is False after
        self.renderer.close()
        self.renderer.deleteLater()
        if self.error:
            self.failed.emit(self.error)
        else:
            self.finished.emit(self.result)
