"""Changing the algorithm in the window (issue 10: no long UI-thread turn): the pictures it ends with are those of a
window opened on that algorithm; the feature view draws a new problem once; a heavy φ-map's φ(X) is never built
on the UI thread (the solver is built on a Task, app/run/session.py `heavy_phi`)."""

from __future__ import annotations

import threading

import numpy as np
import pyqtgraph as pg
import pytest
from PySide6.QtCore import Qt
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QGraphicsPathItem, QGraphicsPolygonItem, QWidget

from percviz.app.panels.feature_view import SYNC_MAX_N, FeatureView
from percviz.app.main_window import MainWindow
from percviz.core import features as core_features
from percviz.core.data import PointSet
from percviz.core.scene import SceneModel, Settings


def _points(n: int, seed: int = 3) -> PointSet:
    rng = np.random.default_rng(seed)
    X = np.vstack([rng.normal((-1, 0.5), 0.7, (n // 2, 2)), rng.normal((1, -0.5), 0.7, (n - n // 2, 2))])
    return PointSet(X, np.repeat([0, 1], [n // 2, n - n // 2]))


def _window(qtbot, n: int, algorithm: str, features: str = "linear") -> MainWindow:
    w = MainWindow(SceneModel(_points(n), Settings(algorithm=algorithm, features=features)), install_classroom=False)
    qtbot.addWidget(w)
    w.resize(1400, 900)
    w.show()
    qtbot.waitExposed(w)
    _settle(qtbot, w)
    return w


def _settle(qtbot, w: MainWindow) -> None:
    """Wait until the run, the panels' pictures (the feature view's job too) and the docks' layout are done."""
    sizes = None
    for _ in range(20):
        assert w.session.wait_idle(30)
        feature = w.panels.get("feature")
        busy = feature is not None and feature.computing
        now = [(p.plot.width(), p.plot.height()) for p in w.panels.values() if hasattr(p, "plot")]
        if now == sizes and not busy:
            return
        sizes = now
        qtbot.wait(150)
    raise AssertionError("the window did not settle")


def _choose(qtbot, w: MainWindow, algorithm: str) -> None:
    """Pick the algorithm in the `algorithm` combo box, as a click does, and wait until everything is drawn."""
    combo = w.controls.algorithm
    combo.setCurrentIndex(next(i for i in range(combo.count()) if combo.itemData(i, 256) == algorithm))
    qtbot.waitUntil(lambda: w.session.solver_cls is not None and w.session.solver_cls.name == algorithm, timeout=20000)
    _settle(qtbot, w)


def _r(v) -> tuple:
    """Rounded values; a NaN (a break in a curve) as None, so that equal pictures compare equal."""
    return tuple(None if not np.isfinite(x) else round(x, 6) for x in np.asarray(v, dtype=float).ravel().tolist())


def _item(item) -> tuple:
    """What one graphics item shows: its kind, depth, visibility and geometry (text, data, path or polygon)."""
    head = (type(item).__name__, item.zValue(), item.isVisible())
    if isinstance(item, pg.TextItem):
        return head + (item.toPlainText(), _r([item.pos().x(), item.pos().y()]), _r([item.anchor.x(), item.anchor.y()]))
    if isinstance(item, (pg.ScatterPlotItem, pg.PlotCurveItem)):
        x, y = item.getData()
        return head + (_r([] if x is None else x), _r([] if y is None else y))
    if isinstance(item, QGraphicsPolygonItem):
        return head + (_r([(p.x(), p.y()) for p in item.polygon()]),)
    if isinstance(item, pg.ArrowItem):
        return head + (_r([item.pos().x(), item.pos().y(), item.rotation()]),)
    if isinstance(item, QGraphicsPathItem):
        path = item.path()
        return head + (_r([(path.elementAt(k).x, path.elementAt(k).y) for k in range(path.elementCount())]),)
    return head


def _picture(panel, pixels: bool = True) -> tuple:
    """The panel's whole picture: every item in its plot, its view range and its texts (pixels=False: without what
    depends on the plot's size: the view range and the labels' places)."""
    vb = panel.plot.getViewBox()
    items = [_item(it) if pixels or not isinstance(it, pg.TextItem) else ("TextItem",)
             for it in vb.addedItems]
    return (tuple(sorted(items, key=repr)), _r(vb.viewRange()) if pixels else None, panel.title.text(),
            panel.caption.text(), panel.readout.text())


def _curves(panel) -> tuple:
    """The convergence plots: per metric group its place in the layout, x link, log scale, range and curves."""
    ci = panel.layout_widget.ci
    out = []
    for g, p in panel.plots.items():
        linked = p.vb.linkedView(p.vb.XAxis)
        out.append((g, str(ci.items.get(p)),  # its (row, column) cells None if linked is None else [q for q, pl in panel.plots.items() if pl.vb is linked],
                    panel.log_boxes[g].isChecked(), _r(p.vb.viewRange())))
    for k, c in panel.curves.items():
        x, y = c.getData()
        out.append((k, _r([] if x is None else x), _r([] if y is None else y)))
    return tuple(out)


@pytest.mark.parametrize("before", ["perceptron", "smo"])  # the same docks; others (the docks change)
def test_an_algorithm_change_ends_with_the_pictures_of_a_window_opened_on_it(qtbot, before):
    n = SYNC_MAX_N + 40  # the feature picture comes from its background job
    changed = _window(qtbot, n, before)
    _choose(qtbot, changed, "batch-relaxation")
    direct = _window(qtbot, n, "batch-relaxation")
    _settle(qtbot, changed)
    # a dock shown by the change can get another size than in a new window (the window's layout, base alike):
    # then what depends on the plot's size in pixels (view range, which labels fit) is left out
    same_size = [(p.plot.width(), p.plot.height()) for p in changed.panels.values() if hasattr(p, "plot")] == \
        [(p.plot.width(), p.plot.height()) for p in direct.panels.values() if hasattr(p, "plot")]
    assert same_size or before != "perceptron"
    for name in ("weight", "feature"):
        a, b = _picture(changed.panels[name], same_size), _picture(direct.panels[name], same_size)
        assert a == b, name
    if same_size:
        assert _curves(changed.panels["curves"]) == _curves(direct.panels["curves"])
    assert len(changed.panels["curves"].plots) >= 2
    weight_labels = [it for it in changed.panels["weight"].plot.getViewBox().addedItems
                     if isinstance(it, pg.TextItem) and it.isVisible() and it.toPlainText().isdigit()]
    assert weight_labels  # the constraints' labels, made in a turn of their own, are there
    readout = changed.panels["feature"].readout.text()
    assert "nearest hull point" in readout or "0 lies in the hull" in readout  # the least-norm point came too
    changed.close()
    direct.close()


def test_the_feature_view_draws_a_new_problem_once(qtbot, monkeypatch):
    w = _window(qtbot, SYNC_MAX_N + 40, "perceptron")
    redraws = []
    redraw = FeatureView.redraw

    def counting(self, *args, **kwargs):
        redraws.append(self.problem)
        return redraw(self, *args, **kwargs)

    monkeypatch.setattr(FeatureView, "redraw", counting)
    for algorithm in ("batch-relaxation", "mse", "fixed-increment"):
        redraws.clear()
        _choose(qtbot, w, algorithm)
        assert redraws == [w.session.problem], algorithm  # picture and least-norm point in one redraw
        assert w.panels["feature"].picture is not None and w.panels["feature"].picture.min_norm is not None
    w.close()


def test_no_phi_of_a_dim_5000_map_is_built_on_the_ui_thread(qtbot, monkeypatch):
    built = []  # (rows, on the UI thread) of every φ(X) of the D = 5000 map
    transform = core_features.RandomFourier.transform

    def recording(self, X):
        if self.dim == 5000 and len(X) > 1:
            built.append((len(X), threading.current_thread() is threading.main_thread()))
        return transform(self, X)

    monkeypatch.setattr(core_features.RandomFourier, "transform", recording)
    w = _window(qtbot, 80, "perceptron", "rff:dim=5000")
    assert w.session.problem is not None and w.session.problem.Phi.shape == (80, 5001)
    for algorithm in ("batch-perceptron", "mse", "lp-feasibility", "perceptron"):
        _choose(qtbot, w, algorithm)
        assert w.session.problem is not None and w.session.problem.Phi.shape == (80, 5001), w.session.error
        step = next(e for e in w.findChildren(QWidget) if e.accessibleName() == "step" and e.isVisible())
        QTest.mouseClick(step, Qt.MouseButton.LeftButton)
        qtbot.waitUntil(lambda: w.session.current is not None and w.session.current.iteration >= 1, timeout=20000)
        weights = np.asarray(w.session.current.weights)
        assert weights.shape == (5001,) and np.isfinite(weights).all()
    assert [rows for rows, ui in built if ui] == []  # the regression guard: before, every restart built it here
    assert any(rows == 80 for rows, ui in built if not ui)  # built, off the UI thread
    w.close()
