"""Feature-view point labels: only the points that carry weight, a readable few, never one over another (issue 12)."""

from __future__ import annotations

import numpy as np
from PySide6.QtCore import QCoreApplication, QPointF, QRectF, QSize

from percviz.app.panels.feature_view import MAX_LABELS
from percviz.app.main_window import MainWindow
from percviz.core.presets import SHIPPED_DIR, load_preset


def _label_rects(view) -> list[tuple[int, QRectF]]:
    """(point index, box in scene pixels) of every shown point label."""
    vb = view.plot.getViewBox()
    out = []
    for item in view._point_labels:
        if item.isVisible():
            br = item.textItem.boundingRect()
            at = vb.mapViewToScene(QPointF(item.pos().x(), item.pos().y()))
            out.append((int(item.textItem.toPlainText()), QRectF(at.x() - item.anchor.x() * br.width(),
                                                                  at.y() - item.anchor.y() * br.height(),
                                                                  br.width(), br.height())))
    return out


def test_feature_labels_mark_the_heaviest_points_and_never_overlap(qtbot):
    w = MainWindow()
    qtbot.addWidget(w)
    w.load_preset(load_preset(SHIPPED_DIR / "notes-80-separable.json"))
    w.scene.set_settings(algorithm="snkp", kernel="affine", features="linear", params={}, max_iter=2000)
    w.resize(QSize(1920, 1080))
    w._wanted["feature"] = True
    w.docks["feature"].show()
    w.show()
    qtbot.waitExposed(w)
    try:
        w.session.wait_idle(10.0)
        view = w.panels["feature"]
        seen_labels = 0
        for steps in (1, 20, 200):
            w.session.advance_sync(steps)
            for _ in range(5):
                QCoreApplication.processEvents()
            view.set_run(list(w.session.history), w.session.current)  # the side frame, drawn now
            labels = _label_rects(view)
            seen_labels = max(seen_labels, len(labels))
            assert len(labels) <= MAX_LABELS < len(view._points_screen)  # 80 points, a readable few labelled
            for k, (_, a) in enumerate(labels):
                for _, b in labels[k + 1:]:
                    assert not a.intersects(b)
            p = np.abs(np.asarray(w.session.current.p if w.session.current.p is not None else w.session.current.alpha))
            idx = [i for i, _ in labels]
            assert all(p[i] > 0 for i in idx)
            assert int(np.argmax(p)) in idx  # the heaviest point always carries its number
        assert seen_labels >= 2
    finally:
        w.close()


def _shown_text_boxes(view) -> list[tuple[str, QRectF]]:
    """Every text label drawn on the feature plot (marks and point numbers alike), as boxes in scene pixels."""
    import pyqtgraph as pg

    vb = view.plot.getViewBox()
    out = []
    for item in vb.addedItems:
        if isinstance(item, pg.TextItem) and item.isVisible() and item.textItem.toPlainText().strip():
            br = item.textItem.boundingRect()
            at = vb.mapViewToScene(QPointF(item.pos().x(), item.pos().y()))
            out.append((item.textItem.toPlainText(), QRectF(at.x() - item.anchor.x() * br.width(),
                                                            at.y() - item.anchor.y() * br.height(),
                                                            br.width(), br.height())))
    return out


import pytest  # noqa: E402


@pytest.mark.parametrize("scale", [1.0, 2.0, 3.0])
@pytest.mark.parametrize("preset", ["xor-linear-certificate.json", "default.json"])
def test_no_feature_view_label_covers_another_at_the_desk_or_presenting(qtbot, hall_window, preset, scale):
    """At 2× and 3× in 1280×800 "0", "p(9)", "α(9)" and "0 ∈ hull" sat on one another over the origin."""
    w = hall_window(SHIPPED_DIR / preset)
    w.view_actions["feature"].setChecked(True)
    if scale > 1:
        w.classroom.set_presentation_scale(scale)
        w.classroom.set_presentation(True)
    w.session.run_to_end()
    w.session.wait_idle()
    view = w.panels["feature"]
    qtbot.waitUntil(lambda: view.isVisible() and not view.computing, timeout=10000)
    for _ in range(10):
        QCoreApplication.processEvents()
    boxes = _shown_text_boxes(view)
    names = [t for t, _ in boxes]
    assert "0 ∈ hull" in names or "ρ_K" in names, names  # the mark the scene is about keeps its label
    for k, (ta, a) in enumerate(boxes):
        for tb, b in boxes[k + 1:]:
            assert not a.intersects(b), (ta, tb, a, b)
