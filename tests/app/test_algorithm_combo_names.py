"""The algorithm combo's closed face shows every registered name whole or shortened at a word (never
"Smoothed Normalized Kernel Perceptron (S"), at the desk in 1280×800 and on the presentation bar at 2× and 3×;
its list shows every name whole; the accessible name and the item data stay."""

from __future__ import annotations

from helpers import settle
from PySide6.QtCore import Qt
from PySide6.QtGui import QFont, QFontMetrics

from percviz.app.panels.name_combo import ELLIPSIS, fitting_name
from percviz.core.presets import SHIPPED_DIR
from percviz.core.solvers import by_family

ALGORITHMS = [cls for classes in by_family().values() for cls in classes]


def test_fitting_name_cuts_at_words_and_keeps_the_abbreviation():
    name = "Smoothed Normalized Kernel Perceptron (SNKP)"
    assert fitting_name(name, lambda t: True) == name
    assert fitting_name(name, lambda t: len(t) <= 30) == "SNKP — Smoothed Normalized…"
    assert fitting_name(name, lambda t: len(t) <= 8) == "SNKP"
    assert fitting_name("Fixed-increment single-sample perceptron", lambda t: len(t) <= 33) == "Fixed-increment single-sample…"
    assert fitting_name("Input-space SVM (Akaho)", lambda t: len(t) <= 16) == "Input-space SVM…"  # not an abbreviation


def _whole_words(shown: str, name: str) -> bool:
    """shown is the name, its abbreviation, or the abbreviation and/or the name's first words and '…'."""
    name = name.strip()
    if shown == name:
        return True
    if "(" in name and shown == name[name.rindex("(") + 1 : -1]:
        return True
    body = shown.split(" — ", 1)[-1]
    if not body.endswith(ELLIPSIS):
        return False
    words = body[: -len(ELLIPSIS)].split()
    return bool(words) and name.split()[: len(words)] == words


def _check_face_and_list(combo, cls):
    fm = QFontMetrics(combo.font())
    shown = combo.shown_text
    assert fm.horizontalAdvance(shown) <= combo.text_width(), (cls.name, shown, combo.text_width())
    assert _whole_words(shown, cls.display_name), (cls.name, shown)
    assert combo.currentData(Qt.ItemDataRole.UserRole) == cls.name
    view, model = combo.view(), combo.model()
    for i in range(combo.count()):  # the open list: every heading and name whole
        font = QFont(model.data(model.index(i, 0), Qt.ItemDataRole.FontRole) or view.font())
        font.setPointSizeF(view.font().pointSizeF())
        assert QFontMetrics(font).horizontalAdvance(combo.itemText(i)) + 24 <= max(view.minimumWidth(), view.width())


def test_every_algorithm_name_is_whole_or_cut_at_a_word_at_desk_2x_and_3x(hall_window):
    w = hall_window(SHIPPED_DIR / "default.json")
    desk = w.controls.algorithm
    assert desk.accessibleName() == "algorithm"
    assert {desk.itemData(i, Qt.ItemDataRole.UserRole) for i in range(desk.count())} >= {c.name for c in ALGORITHMS}
    cut = 0
    for cls in ALGORITHMS:
        w.controls.select_algorithm(cls.name)
        settle(6, 20)
        _check_face_and_list(desk, cls)
        cut += desk.shown_text != cls.display_name
    assert cut >= 1  # the desk's combo is narrower than the longest names (the case this guards)
    bar = w.classroom.presentation_layout.bar.algorithm
    for scale in (2.0, 3.0):
        w.classroom.set_presentation_scale(scale)
        w.classroom.set_presentation(True)
        settle(6, 20)
        for cls in ALGORITHMS[::3]:  # a third of them per scale keeps the test short; the names span all lengths
            w.controls.select_algorithm(cls.name)
            settle(6, 20)
            _check_face_and_list(bar, cls)
        w.classroom.set_presentation(False)
        settle(6, 20)
    assert desk.accessibleName() == "algorithm"
