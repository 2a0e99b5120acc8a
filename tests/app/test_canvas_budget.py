"""The canvas draws within the memory budget: a decision whose grid would exceed it is drawn on a coarser grid,
and one that fits on no grid is refused in one line on the canvas (core/grid.py GridEvaluator.plan)."""

from __future__ import annotations

import numpy as np

from percviz.app.main_window import MainWindow
from percviz.core import budget
from percviz.core.data import PointSet
from percviz.core.scene import SceneModel, Settings


def _window(qtbot):
    rng = np.random.default_rng(5)
    X = np.vstack([rng.normal((-1, 0), 0.4, (10, 2)), rng.normal((1, 0), 0.4, (10, 2))])
    scene = SceneModel(PointSet(X, np.repeat([0, 1], 10)), Settings(algorithm="perceptron", features="poly:degree=12"))
    w = MainWindow(scene, install_classroom=False)
    qtbot.addWidget(w)
    w.show()
    qtbot.waitExposed(w)
    w.session.step()
    canvas = w.panels["canvas"]
    qtbot.waitUntil(lambda: w.session.current is not None and w.session.current.iteration >= 1)
    canvas.redraw_now()
    return w, canvas


def test_over_the_budget_the_canvas_draws_the_decision_on_a_coarser_grid(qtbot, monkeypatch):
    w, canvas = _window(qtbot)
    full = canvas.image.image.shape
    assert max(full) >= 200 and not canvas.message.isVisible()
    monkeypatch.setenv(budget.ENV, "30M")  # φ(grid) of 91 monomials at 256² would take ~120 MB
    canvas.set_view_range(-2.5, 2.5, -2.0, 2.0)  # a new grid: drawn again
    canvas.redraw_now()
    coarse = canvas.image.image.shape
    assert 16 <= max(coarse) < max(full) and not canvas.message.isVisible()
    w.close()


def test_when_no_grid_fits_the_canvas_says_so_in_one_line(qtbot, monkeypatch):
    w, canvas = _window(qtbot)
    monkeypatch.setenv(budget.ENV, "50K")
    canvas.set_view_range(-2.5, 2.5, -2.0, 2.0)
    canvas.redraw_now()
    assert canvas.message.isVisible()
    text = canvas.message.text()
    assert "\n" not in text and "budget" in text and budget.ENV in text
    w.close()
