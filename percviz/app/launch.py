"""Open the window (`percviz [DATA]`) or render it offscreen to a PNG (`--screenshot OUT.png`)."""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

from percviz.core.data import PointSet


def fallback_points(seed: int = 7, per_class: int = 14) -> PointSet:
    """Two separable clouds (+ upper right, − lower left), used when no shipped default scene exists."""
    rng = np.random.default_rng(seed)
    out = []
    for centre, cls in (((1.1, 0.9), 0), ((-1.0, -0.8), 1)):
        pts = []
        while len(pts) < per_class:
            p = rng.normal(centre, 0.6)
            if (1 if cls == 0 else -1) * (p[0] + p[1]) / np.sqrt(2) > 0.35:  # keep a visible margin
                pts.append(p)
        out.append((np.array(pts), np.full(per_class, cls)))
    X = np.vstack([o[0] for o in out])
    return PointSet(np.round(X, 3), np.concatenate([o[1] for o in out]))


def default_scene():
    """The scene opened without DATA: the shipped default preset, else two clouds."""
    from percviz.core.presets import Preset

    try:
        from percviz.core.presets import default_preset

        return default_preset()
    except (ImportError, OSError, ValueError):
        pass
    from percviz.core.solvers import DEFAULT_ALGORITHM, PAPER_RACE, load_all

    algorithm = DEFAULT_ALGORITHM if DEFAULT_ALGORITHM in load_all() else PAPER_RACE[0]
    return Preset(fallback_points(), title="Two clouds", algorithm=algorithm,
                  explanation="Left click places +, right click places −; press Space to animate.")


def _arg(args: Any, name: str):
    """An option of the command line (None when this command has no such option)."""
    return vars(args).get(name)


def _scene_from_args(args: Any):
    preset = _arg(args, "preset")
    if preset is not None:
        return preset
    data = _arg(args, "data")
    if data:
        from percviz.cli_data import load_with_overrides

        return load_with_overrides(args, need_algorithm=False)
    preset = default_scene()
    overrides = {k: _arg(args, k) for k in ("algorithm", "kernel", "features", "max_iter")}
    params = _arg(args, "params") or []
    if any(v is not None for v in overrides.values()) or params:
        from percviz.cli_data import parse_params

        preset = preset.with_overrides(params=parse_params(params), **overrides)
    return preset


def _application():
    from PySide6.QtWidgets import QApplication

    app = QApplication.instance()
    if app is None:
        app = QApplication(sys.argv[:1])
        app.setApplicationName("percviz")
        app.setOrganizationName("percviz")
        app.setApplicationDisplayName("percviz")
    return app


def build_window(preset=None, app=None):
    """A MainWindow showing `preset` (default scene if None)."""
    app = app or _application()
    from percviz.app.main_window import MainWindow

    if preset is not None:
        preset.points.require_plane("The percviz window")  # d ≠ 2: one clear error, not a broken canvas
    window = MainWindow()
    window.load_preset(preset if preset is not None else default_scene())
    return window


def save_screenshot(window, out: "str | Path", steps: int | None = None, panel: str | None = None) -> Path:
    """Run `steps` updates synchronously, lay the window out, and save it (or one panel) as a PNG."""
    from PySide6.QtCore import QCoreApplication

    from percviz.app.main_window import DEFAULT_SIZE

    out = Path(out)
    window.resize(DEFAULT_SIZE)  # screenshots have one size, whatever geometry was saved
    if panel in window.docks:
        window.want_view(panel)
        window.docks[panel].show()
    window.show()
    QCoreApplication.processEvents()
    window.session.wait_idle(10.0, check=False)  # best effort: a run still going is taken over below
    if steps:
        window.session.advance_sync(int(steps))
    rho = window.session.rho(wait=True)  # the ρ_K reference line must be in the picture
    if rho is not None:
        for view in window.panels.values():
            view.set_reference(rho)
    for view in window.panels.values():  # a big scene's feature picture is computed in the background
        if view.isVisible():
            view.wait_ready(check=False)  # a picture not ready in 30 s: its 'Computing…' message is shown
    for _ in range(3):  # let coalesced redraws and refinements run
        QCoreApplication.processEvents()
        time.sleep(0.02)
    window.panels["canvas"].redraw_now()
    QCoreApplication.processEvents()
    widget = window if panel is None else window.panels[panel]
    image = widget.grab()
    if image.isNull() or not image.save(str(out), "PNG"):
        raise OSError(f"could not write the screenshot {out}")
    return out


def open_window(args: Any, app=None):
    """The window for the CLI's arguments; started on a user's preset file, the window is tied to that file."""
    preset = _scene_from_args(args)
    window = build_window(preset, app)
    _remember_file(window, args)
    return window


def _remember_file(window, args: Any) -> None:
    """The title names the file, Ctrl+S saves to it, it joins the recent files (never a shipped scene)."""
    classroom = window.classroom
    data = _arg(args, "data")
    if not data or classroom is None:
        return
    path = Path(str(data))
    if path.suffix.lower() != ".json" or not path.is_file():
        return
    from percviz.core.presets import SHIPPED_DIR

    if path.resolve().parent == Path(SHIPPED_DIR).resolve():
        return  # an example opens read-only: Save asks for a new name
    classroom.set_current_file(path)
    overrides = [_arg(args, k) for k in ("algorithm", "kernel", "features", "max_iter", "params")]
    if any(overrides) and not _arg(args, "screenshot"):
        window.scene.mark_modified()  # the flags changed the scene read from the file


def launch(args: Any) -> int:
    """Open the window on args' scene; with args.screenshot, render offscreen, save the PNG and return 0."""
    screenshot = _arg(args, "screenshot")
    if screenshot:
        os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
        from percviz.app import dialogs

        dialogs.answer_with(dialogs.Answers())  # a picture to save, nobody to ask (no restore offer, no dialogs)
    app = _application()
    window = open_window(args, app)
    try:
        if screenshot:
            save_screenshot(window, screenshot, _arg(args, "steps"), _arg(args, "panel"))
            return 0
        window.show()
        steps = _arg(args, "steps")
        if steps:
            window.session.advance_sync(int(steps))
        return int(app.exec())
    finally:
        window.shutdown()
        window.close()
        window.deleteLater()
