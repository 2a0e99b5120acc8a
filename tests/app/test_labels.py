"""Honest labels on the real window: which margin, outcome colours, degenerate SVMs, class names, human labels."""

from __future__ import annotations

import numpy as np
from helpers import finish
from PySide6.QtGui import QColor, QFontMetrics
from PySide6.QtWidgets import QApplication, QCheckBox, QLabel, QStyle, QStyleOptionButton, QTextBrowser

from percviz.core.data import PointSet
from percviz.core.features import FEATURE_MAPS
from percviz.core.glossary import MARGINS, OUTCOMES, margin_term
from percviz.core.kernels import KERNELS
from percviz.core.param_labels import human_label
from percviz.core.solvers import by_family, get_solver


XOR = [(1.0, 1.0, 0), (-1.0, -1.0, 0), (1.0, -1.0, 1), (-1.0, 1.0, 1)]


def _set_points(w, rows):
    X = np.array([r[:2] for r in rows], float)
    w.scene.set_points(PointSet(X, np.array([r[2] for r in rows])))
    w.session.wait_idle()


def test_each_algorithm_family_says_which_margin_it_reports():
    assert margin_term(get_solver("nkp")).key == "normalized"
    assert margin_term(get_solver("kernel-perceptron")).key == "normalized"
    assert margin_term(get_solver("perceptron")).key == "geometric"  # an explicit a on φ = (1, x1, x2)
    assert margin_term(get_solver("fixed-increment")).key == "geometric"
    assert margin_term(get_solver("svm")).key == "svm"
    assert margin_term(get_solver("linear-machine")).key == "multiclass"
    assert len({t.symbol for t in MARGINS.values()}) == len(MARGINS)  # no two margins share a symbol


def test_caption_status_and_curves_name_the_same_margin(window):
    w = window  # fixed-increment on φ = (1, x1, x2): the geometric margin of a
    snap = finish(w)
    assert snap.status.value == "separator"
    name = MARGINS["geometric"].short
    assert name in w.controls.status.text()
    assert name in " ".join(w.classroom.caption.text().split())
    curves = w.panels["curves"]
    assert name in curves.legend.text().replace("&nbsp;", " ")
    assert "margin 0." not in w.controls.status.text()  # never a bare "margin"


def _bg(label: QLabel) -> str:
    sheet = label.styleSheet()
    return sheet.split("background:")[1].split(";")[0].strip()


def test_outcomes_have_their_own_words_and_colours(window):
    w = window
    seen = {}
    snap = finish(w)
    seen[snap.status.value] = (_bg(w.controls.status), w.controls.status_role)
    assert OUTCOMES["separator"].words in w.controls.status.text()
    w.scene.set_settings(max_iter=3)
    w.session.wait_idle()
    snap = finish(w)
    assert snap.status.value == "max_iter" and "iteration limit" in w.controls.status.text()
    seen[snap.status.value] = (_bg(w.controls.status), w.controls.status_role)
    w.scene.set_settings(max_iter=200, algorithm="mse", params={})
    w.session.wait_idle()
    snap = finish(w)
    seen[snap.status.value] = (_bg(w.controls.status), w.controls.status_role)
    assert snap.status.value == "converged" and "converged" in w.controls.status.text()
    assert seen["max_iter"][1] == "warning" and seen["separator"][1] == "success"
    assert len({bg for bg, _ in seen.values()}) == 3, seen
    for theme in ("light", "dark"):
        from percviz.app.theme import theme_for

        t = theme_for(theme)
        colours = {t.status_style(o.role)[1] for o in OUTCOMES.values()}
        assert len(colours) == len({o.role for o in OUTCOMES.values()})  # diverged included, by name


def test_svm_with_w_zero_says_so_and_draws_no_slack_forest(window):
    w = window
    _set_points(w, XOR)
    w.scene.set_settings(algorithm="svm", kernel="affine", params={"margin": "soft", "C": 1.0})
    w.session.wait_idle()
    snap = finish(w)
    assert snap.metrics["weight_norm"] < 1e-6
    text = w.controls.status.text()
    assert "w = 0" in text and "SVM margin" not in text
    assert w.controls.status_role == "warning"
    canvas = w.panels["canvas"]
    segs, labels = canvas.slack_data()
    assert len(segs) == 0
    assert "×" not in canvas.colorbar.axis.label.toPlainText()
    caption = " ".join(w.classroom.caption.text().split())
    assert "e+05" not in caption and "SVM margin" not in caption
    _, margins = w.panels["curves"].series("margin")
    assert not np.isfinite(margins[-1])  # no 1/‖w‖ ≈ 1e7 point on the margin plot


def test_multiclass_names_classes_one_to_c_and_titles_class_regions(window):
    w = window
    w.scene.set_settings(algorithm="linear-machine", params={})
    w.session.wait_idle()
    texts = [b.text() for b in w.controls.class_selector.buttons if b.isVisible()]
    assert texts[:3] == ["1", "2", "3"]
    assert "Class regions" in w.panels["canvas"].title.text()
    counts = w.findChild(QLabel, "point_count").text()  # the status bar's point count names them so too
    assert "+" not in counts and "−" not in counts and "class 1" in counts and "class 2" in counts, counts
    w.scene.set_settings(algorithm="fixed-increment", params={})
    w.session.wait_idle()
    assert [b.text() for b in w.controls.class_selector.buttons[:2]] == ["+", "−"]
    assert "+" in w.findChild(QLabel, "point_count").text()
    assert "Decision function" in w.panels["canvas"].title.text()


def test_every_parameter_has_a_human_label_and_tooltip(window):
    owners = [(c.name, c.params) for cs in by_family().values() for c in cs]
    owners += [(n, c.params) for n, c in {**KERNELS, **FEATURE_MAPS}.items()]
    for owner, params in owners:
        for spec in params.specs:
            label = human_label(spec, owner)
            assert label != spec.name and not ("_" in spec.name and spec.name in label), (owner, spec.name, label)
    w = window
    w.scene.set_settings(algorithm="svm", kernel="rbf:gamma=0.5", params={})
    w.session.wait_idle()
    form = w.controls.algo_form
    shown = [lab.text() for lab in form.findChildren(QLabel) if lab.isVisible() and lab.text()]
    assert "show_iterations" not in shown and "Show interior-point iterates" in shown
    assert "show_iterations" in form.editor("show_iterations").toolTip()  # the script name is still findable


def test_algorithm_list_is_wide_enough_for_its_headings(window):
    combo = window.controls.algorithm
    view = combo.view()
    model = combo.model()
    for i in range(combo.count()):
        f = model.data(model.index(i, 0), 0x6) or view.font()  # FontRole
        f.setPointSizeF(view.font().pointSizeF())
        assert QFontMetrics(f).horizontalAdvance(combo.itemText(i)) < view.minimumWidth()


def test_dark_themes_draw_check_box_and_field_borders(window):
    w = window
    for name in ("hc-dark", "dark"):
        w.classroom.set_theme(name)
        QApplication.processEvents()
        t = w.classroom.theme
        box = next(b for b in w.findChildren(QCheckBox) if b.isVisible() and not b.isChecked())
        img = box.grab().toImage()
        opt = QStyleOptionButton()
        box.initStyleOption(opt)
        r = box.style().subElementRect(QStyle.SubElement.SE_CheckBoxIndicator, opt, box)
        bg = QColor(t.panel)
        far = 0
        for x in range(r.left(), r.right() + 1):
            for y in range(r.top(), r.bottom() + 1):
                c = img.pixelColor(x, y)
                if abs(c.red() - bg.red()) + abs(c.green() - bg.green()) + abs(c.blue() - bg.blue()) > 200:
                    far += 1
        assert far >= 8, (name, far)  # the indicator's border stands out from the window


def test_help_page_defines_every_margin_with_its_formula(window):
    window.classroom.actions["glossary"].trigger()
    text = window.classroom.glossary_dialog.findChild(QTextBrowser, "glossary_text").toPlainText()
    for t in MARGINS.values():
        assert t.name in text and t.formula in text
    for o in OUTCOMES.values():
        assert o.words in text
    window.classroom.glossary_dialog.close()
