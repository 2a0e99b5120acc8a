"""Helpers shared by the GUI tests: click positions, event-loop waits, a running window."""

from __future__ import annotations

import numpy as np
from PySide6.QtCore import QEventLoop, QPoint, QTimer


def canvas_pos(canvas, x: float, y: float) -> QPoint:
    """The viewport pixel of data point (x, y) on a CanvasView: where a click or drag there lands."""
    p = canvas.view_to_widget(x, y)
    return QPoint(round(p.x()), round(p.y()))


def spin(seconds: float) -> None:
    """Run the application's own event loop (as app.exec() does) for `seconds`."""
    loop = QEventLoop()
    QTimer.singleShot(int(seconds * 1000), loop.quit)
    loop.exec()


def noise_window(qtbot, n: int, seed: int):
    """The real main window, shown and idle, on n normal points with random labels (never separable: the
    perceptron runs until stopped, up to 10⁷ updates)."""
    from percviz.app.main_window import MainWindow
    from percviz.core.data import PointSet
    from percviz.core.scene import SceneModel, Settings

    rng = np.random.default_rng(seed)
    scene = SceneModel(PointSet(rng.normal(0, 1, (n, 2)), rng.integers(0, 2, n)),
                       Settings(algorithm="perceptron", max_iter=10**7))
    w = MainWindow(scene, install_classroom=False)
    qtbot.addWidget(w)
    w.show()
    qtbot.waitExposed(w)
    w.session.wait_idle()
    return w
