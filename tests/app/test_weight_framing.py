"""The weight view frames the cone: a thin cone fills the view, an inset shows it among the constraints, a long run
is a faint trace with its last iterates bold (issue 12, legible at any size)."""

from __future__ import annotations

import numpy as np
from helpers import settle
from PySide6.QtCore import QPointF, QSize

from percviz.app.main_window import MainWindow
from percviz.app.panels.weight_view import TAIL
from percviz.core.geometry import polygon_area
from percviz.core.presets import SHIPPED_DIR, load_preset


def _thin_margin_window(qtbot, size=(1280, 800)):
    w = MainWindow()
    qtbot.addWidget(w)
    w.load_preset(load_preset(SHIPPED_DIR / "thin-margin.json"))
    w.scene.set_settings(algorithm="fixed-increment", kernel="affine", features="linear", params={}, max_iter=20000)
    w.resize(QSize(*size))
    w._wanted["weight"] = True
    w.docks["weight"].show()
    w.show()
    qtbot.waitExposed(w)
    w.session.wait_idle(10.0)
    return w


def _covered_fraction(view) -> float:
    """The cone polygon's area on screen over the plot area's (both in scene pixels)."""
    vb = view.plot.getViewBox()
    P = np.array([[(q := vb.mapViewToScene(QPointF(*p))).x(), q.y()] for p in view.cone2.polygon])
    rect = vb.sceneBoundingRect()
    return abs(polygon_area(P)) / (rect.width() * rect.height())  # y runs down on screen: the orientation flips


def test_the_thin_margin_cone_fills_a_quarter_of_the_weight_view_fresh_and_after_a_long_run(qtbot):
    w = _thin_margin_window(qtbot)
    try:
        view = w.panels["weight"]
        settle(5, 0)
        assert view.mode == "2d" and view.cone2.bounded
        fresh = _covered_fraction(view)
        w.session.advance_sync(20000)  # fixed increment needs 7283 corrections here (the preset says so)
        settle(5, 0)
        assert w.session.current.iteration > 5000
        long = _covered_fraction(view)
        assert fresh >= 0.25 and long >= 0.25, (fresh, long)
        # the old square view around the cone (1.5× its extent) covered under a tenth
        x0, x1, y0, y1 = view.cone2.view
        assert polygon_area(view.cone2.polygon) / ((x1 - x0) * (y1 - y0)) < 0.1
        # the overview inset shows the whole cone and sits inside the plot
        assert view.overview.isVisible()
        ox0, ox1, oy0, oy1 = view.cone2.overview
        P = view.cone2.polygon
        assert (P[:, 0] > ox0).all() and (P[:, 0] < ox1).all() and (P[:, 1] > oy0).all() and (P[:, 1] < oy1).all()
        assert view.plot.rect().contains(view.overview.geometry())
        # the long path: faint thinned trace, the last TAIL iterates bold
        xs, _ = view._path_line.getData()
        tx, _ = view._tail_line.getData()
        assert view._tail_line.isVisible() and len(tx) == TAIL
        assert len(xs) < w.session.current.iteration  # thinned
        assert view._path_line.opts["pen"].color().alpha() < 60 < view._tail_line.opts["pen"].color().alpha()
        # the tail is the true last iterates, unthinned
        a = view._weights[w.session.current.iteration]
        last = view.cone2.projection.project(a).points[0]
        assert np.allclose([tx[-1], view._tail_line.getData()[1][-1]], last)
    finally:
        w.close()
