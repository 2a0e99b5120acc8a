"""`percviz.show(X, y, …)`: the window opened from a script (blocking) or a notebook (`%gui qt`), and its handle."""

from __future__ import annotations

import html
import os
from pathlib import Path
from typing import TYPE_CHECKING

from percviz.core.errors import PercvizError
from percviz.core.script_scene import scene_for
from percviz.core.solvers.base import DEFAULT_ALGORITHM

if TYPE_CHECKING:
    from PySide6.QtWidgets import QApplication

    from percviz.app.main_window import MainWindow


def event_loop_integrated() -> bool:
    """True when a Qt event loop already runs for us: IPython/Jupyter after `%gui qt`, or inside a Qt app."""
    try:
        from IPython import get_ipython

        ip = get_ipython()
    except ImportError:
        ip = None
    if ip is not None and str(getattr(ip, "active_eventloop", "") or "").startswith("qt"):
        return True
    from PySide6.QtCore import QThread

    return QThread.currentThread().loopLevel() > 0


class WindowHandle:
    """The window of `percviz.show`: step, run, read the current snapshot, save a preset, export pictures."""

    def __init__(self, window: "MainWindow", app: "QApplication"):
        self.window = window
        self._app = app
        self._last = None
        self._last_preset = None
        self._closed = False
        window.destroyed.connect(lambda *_: self._on_closed())

    def open(self) -> None:
        """Show the window and wait for its iteration 0."""
        self.window.show()
        self._first_snapshot()

    # -- reading -------------------------------------------------------------------------------------------------
    @property
    def snapshot(self):
        """The snapshot the window shows (after closing: the last one it showed)."""
        if not self._closed:
            self._last = self.window.session.current
        return self._last

    @property
    def preset(self):
        """The scene as a Preset: points, algorithm, kernel, parameters, view."""
        self._require_open()
        return self.window.current_preset()

    @property
    def is_open(self) -> bool:
        return not self._closed

    # -- driving -------------------------------------------------------------------------------------------------
    def step(self, n: int = 1):
        """Perform n updates (on this thread; the window redraws) and return the newest snapshot."""
        self._require_open()
        if int(n) < 0:
            raise ValueError("step(n) needs n ≥ 0")
        session = self.window.session
        session.wait_idle(10.0, check=False)  # best effort: advance_sync takes over a run still on the worker
        done = max(len(session.history) - 1, 0)
        snap = session.advance_sync(done + int(n))
        self._settle()
        return snap

    def run(self, max_updates: int | None = None):
        """Run to the end (or max_updates more updates) and return the newest snapshot."""
        self._require_open()
        if max_updates is not None:
            return self.step(max_updates)
        session = self.window.session
        while True:
            snap = self.step(100_000)
            if snap is None or snap.status.done or session.solver_cls is None:
                return snap

    def reset(self):
        """Back to iteration 0."""
        self._require_open()
        self.window.session.reset()
        self._first_snapshot()
        return self.snapshot

    # -- saving --------------------------------------------------------------------------------------------------
    def save_preset(self, path: "str | os.PathLike") -> Path:
        """Save the scene as a preset file (atomic, validated as it will load)."""
        from percviz.core.presets import save_preset

        return save_preset(self.preset, path)

    def screenshot(self, path: "str | os.PathLike", panel: str | None = None) -> Path:
        """Save the window (or one panel: canvas, curves, weight, feature) as a PNG at the default size."""
        self._require_open()
        from percviz.app.launch import save_screenshot

        path = Path(path)
        if path.suffix.lower() != ".png":
            raise ValueError(f"screenshot() writes a PNG; give a name ending in .png, not '{path.name}'")
        return save_screenshot(self.window, path, panel=panel)

    # -- the HTML handout ----------------------------------------------------------------------------------------
    def record(self, steps: int | None = None):
        """The scene's run recorded for the handout (percviz.handout.RecordedRun): to its end, or `steps` updates."""
        from percviz.handout import record_preset

        scene = self._last_preset if self._closed else self.preset
        if scene is None:
            raise RuntimeError("the window is closed; call percviz.show(...) again to open a new one")
        return record_preset(scene, steps=steps)

    def save_html(self, path: "str | os.PathLike", steps: int | None = None) -> Path:
        """Save the scene's run as a handout: one self-contained HTML page that plays it in any browser."""
        return self.record(steps).save_html(path)

    def _repr_html_(self) -> str:
        """In a notebook: the handout of the scene's run, inline (no Qt needed to view it)."""
        try:
            return self.record()._repr_html_()
        except (PercvizError, RuntimeError) as e:
            return f"<pre>{html.escape(repr(self))}: {html.escape(str(e))}</pre>"

    # -- closing -------------------------------------------------------------------------------------------------
    def close(self) -> None:
        """Close the window and stop its threads (the snapshot and the scene stay readable)."""
        if self._closed:
            return
        self._last = self.window.session.current
        self._last_preset = self.window.current_preset()
        self._closed = True
        self.window.scene.mark_saved()  # a script's scene asks no 'save changes?' question
        self.window.shutdown()
        self.window.close()
        self.window.deleteLater()
        self._app.processEvents()

    def _on_closed(self) -> None:
        if not self._closed:
            self._last = self.window.session.current
            self._closed = True

    def _first_snapshot(self) -> None:
        """Wait for iteration 0, which the worker computes in the background (taken here if it is late)."""
        session = self.window.session
        session.wait_idle(10.0, check=False)  # iteration 0 still on the worker after 10 s: taken below
        if session.current is None:
            session.advance_sync(0)
        self._settle()

    def _settle(self) -> None:
        for _ in range(2):
            self._app.processEvents()

    def _require_open(self) -> None:
        if self._closed:
            raise RuntimeError("the window is closed; call percviz.show(...) again to open a new one")

    def __repr__(self) -> str:
        snap = self.snapshot
        where = "closed" if self._closed else "open"
        now = f", iteration {snap.iteration}: {snap.status.text}" if snap is not None else ""
        return f"<percviz window ({where}){now}>"


def show(X=None, y=None, *, algorithm: str | None = DEFAULT_ALGORITHM, kernel: str | None = None,
         features: str | None = None,
         preset=None, params: dict | None = None, max_iter: int | None = None, title: str | None = None,
         block: bool | None = None) -> WindowHandle:
    """Open the percviz window on (X, y) or a preset; returns its WindowHandle.

    block=None blocks (runs the Qt event loop until the window closes) unless an event loop is already
    integrated, as in IPython/Jupyter after `%gui qt`; then it returns at once and the window stays live.
    algorithm=None keeps the preset's; the data are validated before Qt starts (one clear error).
    """
    if preset is not None and algorithm == DEFAULT_ALGORITHM and X is None:
        algorithm = None  # a preset keeps its own algorithm unless one is asked for
    scene = scene_for(X, y, algorithm=algorithm, kernel=kernel, features=features, params=params,
                      max_iter=max_iter, preset=preset, title=title)
    from percviz.app.launch import _application, build_window

    app = _application()
    window = build_window(scene, app)
    handle = WindowHandle(window, app)
    handle.open()
    if block is None:
        block = not event_loop_integrated()
    if block:
        _run_until_hidden(window)
        handle.close()
    return handle


def _run_until_hidden(window) -> None:
    """Run Qt's event loop until the window is closed (a 'save changes?' answered Cancel keeps it open)."""
    from PySide6.QtCore import QEventLoop, QTimer

    loop = QEventLoop()
    watch = QTimer()
    watch.setInterval(100)
    watch.timeout.connect(lambda: None if window.isVisible() else loop.quit())
    watch.start()
    if window.isVisible():
        loop.exec()
    watch.stop()
