"""The panels a run shows are the views its solver declares (`Solver.views`, one source), for every algorithm."""

from __future__ import annotations

import numpy as np
from PySide6.QtWidgets import QApplication

from percviz.app.main_window import MainWindow
from percviz.core.data import PointSet
from percviz.core.scene import SceneModel, Settings
from percviz.core.solvers import load_all


def test_every_registered_algorithm_shows_exactly_its_declared_views(qtbot):
    rng = np.random.default_rng(0)
    X = np.vstack([rng.normal((-1, 0), 0.4, (8, 2)), rng.normal((1, 0.5), 0.4, (8, 2))])
    scene = SceneModel(PointSet(X, np.repeat([0, 1], 8)), Settings(algorithm="perceptron"))
    w = MainWindow(scene, install_classroom=False)
    qtbot.addWidget(w)
    w.show()
    qtbot.waitExposed(w)
    registry = load_all()
    assert "svm" in registry and "feature" not in registry["svm"].views
    for name, cls in sorted(registry.items()):
        scene.set_settings(algorithm=name)
        QApplication.processEvents()
        assert w.session.solver_cls is cls
        shown = {"canvas", "curves"} if cls.metric_keys else {"canvas"}
        shown |= {n for n in ("weight", "feature") if w.docks[n].isVisible()}
        assert shown == set(cls.views), name
        for n in ("weight", "feature"):  # a view the solver does not declare cannot even be ticked
            assert w.view_actions[n].isEnabled() == (n in cls.views), (name, n)
    w.close()
