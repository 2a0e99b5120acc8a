"""Heavy first pictures of a new run wait for event-loop turns of their own (FrameScheduler.first_draw), so an
algorithm change is several short turns, not one long one (issue 10: the worst UI gap was an algorithm change)."""

from __future__ import annotations

import numpy as np
from PySide6.QtCore import QTimer

from percviz.app.run.frames import FrameScheduler
from percviz.app.main_window import MainWindow
from percviz.core.data import PointSet
from percviz.core.scene import SceneModel, Settings


def test_queued_first_draws_run_one_per_turn_in_order_with_timers_between(qtbot):
    frames = FrameScheduler(worker=None, deliver=lambda: None)  # still: the worker is never held
    log = []
    beat = QTimer()
    beat.setInterval(1)
    beat.timeout.connect(lambda: log.append("tick") if log and log[-1] != "tick" else None)
    beat.start()
    frames.first_draw("a", lambda: log.append("a-old"))
    frames.first_draw("b", lambda: log.append("b"))
    frames.first_draw("a", lambda: log.append("a"))  # queued again: keeps its place, runs its latest draw
    frames.first_draw("c", lambda: log.append("c"))
    frames.cancel_first_draw("c")
    assert log == [] and frames.first_draws_pending  # nothing in the caller's turn
    qtbot.waitUntil(lambda: not frames.first_draws_pending, timeout=3000)
    beat.stop()
    draws = [x for x in log if x != "tick"]
    assert draws == ["a", "b"]
    assert log.index("b") - log.index("a") >= 2  # a timer fired between the two draws


def test_an_algorithm_change_feeds_the_heavy_panels_after_the_change_not_inside_it(qtbot):
    rng = np.random.default_rng(3)
    X = np.vstack([rng.normal((-1, 0.5), 0.7, (40, 2)), rng.normal((1, -0.5), 0.7, (40, 2))])
    w = MainWindow(SceneModel(PointSet(X, np.repeat([0, 1], 40)), Settings(algorithm="perceptron")),
                   install_classroom=False)
    qtbot.addWidget(w)
    w.show()
    qtbot.waitExposed(w)
    w.session.wait_idle()
    weight, curves = w.panels["weight"], w.panels["curves"]
    assert weight.problem is w.session.problem
    w.controls.select_algorithm("relaxation")  # the combo box: one event-loop turn
    new = w.session.problem
    assert weight.problem is not new and curves.solver_cls is not w.session.solver_cls  # not in that turn
    assert w.session.frames.first_draws_pending
    w.session.wait_idle()
    assert weight.problem is new and curves.solver_cls is w.session.solver_cls
    w.close()
