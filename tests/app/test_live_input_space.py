"""Live with the input-space SVM on the real window: every real mouse move of a drag gets its own finished
boundary, its QPs start from the last run's α, and the result is the cold run's on the same scene."""

from __future__ import annotations

import numpy as np
import pytest
from helpers import canvas_pos
from PySide6.QtCore import Qt
from PySide6.QtTest import QTest

from percviz.app.run import panel_feed
from percviz.core import akaho
from percviz.core.presets import SHIPPED_DIR
from percviz.core.shipped import _moons
from percviz.core.solvers import get_solver



def test_each_live_move_gets_a_finished_input_space_boundary_from_warm_qps(qtbot, hall_window, monkeypatch):
    w = hall_window(SHIPPED_DIR / "notes-80-separable.json")
    with w.session.batch():
        w.scene.set_points(_moons(30, 0.1, 13), undoable=False)
        w.scene.set_settings(algorithm="input-space-svm", kernel="rbf:gamma=2", features="linear",
                             params={"margin": "hard"})
    canvas = w.panels["canvas"]
    canvas.viewbox.setRange(xRange=(-1.5, 2.5), yRange=(-1.5, 1.8), padding=0)
    w.classroom.live.set_on(True)
    s = w.session
    qtbot.waitUntil(lambda: s.finished, timeout=60000)
    monkeypatch.setattr(panel_feed, "DRAG_PAUSE_MS", 3000)  # a stalled machine must not fake the drag's pause
    w.classroom.live._settle.setInterval(2000)
    starts = []
    original = akaho.solve_on_working_set

    def counted(Q, g, y, C, start):
        starts.append(len(start))
        return original(Q, g, y, C, start)

    monkeypatch.setattr(akaho, "solve_on_working_set", counted)
    import threading

    cls = get_solver("input-space-svm")
    on_ui, update = [], cls._update

    def watched(self):  # where each Live run's (heavy) outer steps are made
        on_ui.append(threading.current_thread() is threading.main_thread())
        return update(self)

    monkeypatch.setattr(cls, "_update", watched)
    X = w.scene.points.X
    i = int(np.argmax(X[:, 0]))
    x0, y0 = X[i]
    vp = canvas.plot.viewport()
    QTest.mousePress(vp, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier, canvas_pos(w, x0, y0))
    QTest.mouseMove(vp, canvas_pos(w, x0 - 0.15, y0))  # beyond pyqtgraph's drag distance: the drag starts
    qtbot.waitUntil(lambda: w.scene.dragging and s.finished, timeout=60000)
    x0 -= 0.15
    moves, served = 4, 0
    for k in range(1, moves + 1):
        target = (x0 - 0.02 * k, y0 + 0.015 * k)
        QTest.mouseMove(vp, canvas_pos(w, *target))

        def drawn() -> bool:  # this move's finished run is the one on the canvas, with a boundary drawn
            if not (s.finished and canvas.snapshot is s.latest and s.problem is not None
                    and np.allclose(s.problem.points.X[i], target, atol=0.02)):
                return False
            bx, _by = canvas.boundary_curve.getData()
            return bx is not None and len(bx) > 0

        qtbot.waitUntil(drawn, timeout=60000)
        served += 1
        snap = s.latest
        assert snap.status.done and snap.status.value == "separator", snap.status
        assert snap.metrics["input_margin"] > 0  # the checked input-space margin of the step kept
    QTest.mouseRelease(vp, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier, canvas_pos(w, *target))
    assert served == moves
    assert on_ui and not any(on_ui)  # the runs were made on the worker: the UI thread never waited for one
    assert starts and all(0 < m < s.problem.n for m in starts)  # each step's QP from the last support vectors
    qtbot.waitUntil(lambda: s.finished and not w.classroom.live._settle.isActive(), timeout=60000)
    live = s.latest
    # the same scene run cold, as Reset/Step would: the same kept step, margin, α
    cold = get_solver("input-space-svm")(s.problem, margin="hard").run()
    assert live.metrics["input_margin"] == pytest.approx(cold.metrics["input_margin"], rel=1e-4)
    np.testing.assert_allclose(live.alpha, cold.alpha, atol=1e-4 * cold.alpha.max())
    # Reset is not an edit: every QP is solved whole again
    starts.clear()
    monkeypatch.setattr(cls, "_update", update)
    w.controls.request_reset()
    s.wait_idle()
    s.advance_sync(1000)
    assert s.finished and not starts
    assert s.latest.metrics["input_margin"] == pytest.approx(cold.metrics["input_margin"], rel=1e-9)
