"""At a projector's scale in 1280×800 the curves' y labels never pile up and axis names are never cut; a weight-view
label stays inside its view (seen on screenshots of the thin-margin scene after a long run)."""

from __future__ import annotations

import pytest
from helpers import settle
from PySide6.QtGui import QFontMetricsF

from percviz.core.presets import SHIPPED_DIR



def test_curves_labels_are_apart_and_names_whole_at_2x(hall_window):
    w = hall_window(SHIPPED_DIR / "thin-margin.json")
    w.scene.set_settings(algorithm="fixed-increment", kernel="affine", features="linear", params={}, max_iter=20000)
    w.session.wait_idle()
    w.classroom.set_presentation_scale(2.0)
    w.classroom.set_presentation(True)
    w.session.advance_sync(300)
    settle(6, 30)
    curves = w.panels["curves"]
    assert curves.plots
    for g, p in curves.plots.items():
        ax, height = p.getAxis("left"), p.vb.height()
        assert height > 20, g
        line = QFontMetricsF(ax.style.get("tickFont") or ax.font()).height()
        lo, hi = p.vb.viewRange()[1]
        if not curves.log_boxes[g].isChecked():
            levels = ax.tickValues(lo, hi, height)
            major = sorted(levels[0][1])
            spacing = levels[0][0] / (hi - lo) * height  # pixels between two labels
            assert major and spacing >= line, (g, major, spacing, line)  # never one on another
            assert len(levels) == 1 or spacing >= 1.25 * line
        need = QFontMetricsF(ax.label.font()).horizontalAdvance(ax.labelText)
        assert ax.label.isVisible() == (height >= need + 6), (g, height, need)  # whole, or left to the legend


def test_the_weight_views_iterate_label_is_whole_in_its_view(hall_window):
    w = hall_window(SHIPPED_DIR / "thin-margin.json")
    w.scene.set_settings(algorithm="fixed-increment", kernel="affine", features="linear", params={}, max_iter=20000)
    w.view_actions["weight"].setChecked(True)
    w.docks["weight"].show()
    w.session.wait_idle()
    w.classroom.set_presentation_scale(2.0)
    w.classroom.set_presentation(True)
    w.session.advance_sync(300)  # a(300) lies beyond the framed cone: its label points there
    settle(6, 30)
    view = w.panels["weight"]
    view.redraw_now()
    settle(6, 30)
    label = view._iter_label
    assert label.isVisible() and label.toPlainText().startswith("a(300)")
    assert view.plot.getViewBox().sceneBoundingRect().contains(label.sceneBoundingRect())


def test_a_theme_change_at_iteration_0_keeps_the_first_values_dots(hall_window):
    w = hall_window(SHIPPED_DIR / "thin-margin.json")
    w.classroom.live.set_on(False)
    w.scene.set_settings(algorithm="fixed-increment", kernel="affine", features="linear", params={}, max_iter=20000)
    w.session.wait_idle()
    w.session.reset()
    w.session.wait_idle()
    settle(6, 30)
    curves = w.panels["curves"]
    assert curves.buffers.n == 1 and curves.curves["train_errors"].opts["symbol"] == "o"
    w.classroom.set_theme("dark")  # the plots are built again in the new colours
    settle(6, 30)
    assert curves.curves["train_errors"].opts["symbol"] == "o"  # 84 errors at iteration 0: still a dot


@pytest.mark.parametrize("algorithm", ["svm", "smo", "snkp", "isnkpvn", "lms"])
def test_the_status_box_is_whole_in_view_at_1280x800(hall_window, algorithm):
    """The run's outcome sat below the controls' fold at 1280×800 for half the algorithms (their forms are taller
    than the dock): it is pinned under the scrolled controls, whole, whatever the form."""
    w = hall_window(SHIPPED_DIR / "xor-rbf.json")
    w.controls.select_algorithm(algorithm)
    if algorithm == "lms":  # no stopping rule but the limit: a limit it reaches in a moment, then its outcome
        w.scene.set_settings(max_iter=2000)
    w.session.run_to_end()
    w.session.wait_idle()
    assert w.session.finished
    settle(6, 30)
    status = w.controls.status
    assert status.isVisible() and status.text()
    shown = status.visibleRegion().boundingRect()
    assert shown.size() == status.size(), (shown, status.size())  # no part clipped by a scroll area
    dock = w.docks["controls"]
    top_left = status.mapTo(dock, status.rect().topLeft())
    assert dock.rect().contains(top_left) and dock.rect().contains(status.mapTo(dock, status.rect().bottomRight()))


@pytest.mark.parametrize("presenting", [False, True])
def test_slack_labels_never_cover_one_another(hall_window, presenting):
    """Soft-margin SVM, affine kernel, on the XOR scene: at 2× in 1280×800 "ξ=1.2" sat under "ξ=0.96" and
    "ξ=0.78" under "ξ=1.6". The largest slack keeps its label; no two shown labels intersect."""
    from PySide6.QtCore import QRectF

    w = hall_window(SHIPPED_DIR / "xor-rbf.json")
    w.controls.kernel.setCurrentIndex(w.controls.kernel.findData("affine"))
    w.controls.select_algorithm("svm")
    w.classroom.set_presentation(presenting)
    w.session.run_to_end()
    w.session.wait_idle()
    settle(6, 30)
    canvas = w.panels["canvas"]
    canvas.redraw_now()
    settle(6, 30)
    vb = canvas.viewbox
    boxes = []
    for label in canvas.slack_labels:
        if label.isVisible():
            br = label.textItem.boundingRect()
            at = vb.mapViewToScene(label.pos())
            boxes.append((label.textItem.toPlainText(), QRectF(at.x() - label.anchor.x() * br.width(),
                                                                at.y() - label.anchor.y() * br.height(),
                                                                br.width(), br.height())))
    assert len(boxes) >= 3
    xi_max = max(float(t.split("=")[1]) for t, _ in boxes)
    assert xi_max == pytest.approx(float(canvas.slack_data()[1][0].split("=")[1]))
    for k, (ta, a) in enumerate(boxes):
        for tb, b in boxes[k + 1:]:
            assert not a.intersects(b), (ta, tb)
