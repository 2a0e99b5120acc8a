"""Keys in front of a hall, on the real window: fields give the keyboard back, run keys always drive the run."""

from __future__ import annotations

from helpers import press_key, shown_iteration
from PySide6.QtCore import Qt
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication

from percviz.app.panels.controls import LONG_RUN
from percviz.app.classroom.help_page import MOUSE_ROWS, help_rows, menu_actions



def _type_in(qtbot, w, editor, text: str) -> None:
    QTest.mouseClick(editor, Qt.MouseButton.LeftButton)
    editor.setFocus()
    editor.selectAll()
    QTest.keyClicks(editor, text)
    QApplication.processEvents()


def _gamma_field(w):
    """Choose the RBF kernel in its box and NKP; the kernel form's γ field."""
    w.controls.kernel.setCurrentIndex(w.controls.kernel.findData("rbf"))
    w.controls.select_algorithm("nkp")
    w.session.wait_idle()
    return w.controls.kernel_form.editor("gamma")


def test_enter_in_a_field_commits_and_space_then_steps(qtbot, window):
    w = window
    gamma = _gamma_field(w)
    _type_in(qtbot, w, gamma, "1.5")
    press_key(w, Qt.Key.Key_Return)
    assert w.scene.settings.kernel == "rbf:gamma=1.5"
    assert not gamma.hasFocus()
    assert w.panels["canvas"].plot.hasFocus()
    assert shown_iteration(w) == 0
    press_key(w, Qt.Key.Key_Space)
    assert shown_iteration(w) == 1
    assert gamma.text() == "1.5"  # nothing typed into the field
    press_key(w, Qt.Key.Key_Space)
    press_key(w, Qt.Key.Key_Left)
    assert shown_iteration(w) == 1


def test_escape_reverts_the_typed_text_and_leaves_the_field(qtbot, window):
    w = window
    gamma = _gamma_field(w)
    before = w.scene.settings.kernel
    _type_in(qtbot, w, gamma, "-3")
    assert w.controls.kernel_form.error_text("gamma")
    assert not w.controls.step_button.isEnabled()
    press_key(w, Qt.Key.Key_Escape)
    assert w.scene.settings.kernel == before
    assert gamma.text() == "0.5" and not w.controls.kernel_form.error_text("gamma")
    assert w.controls.step_button.isEnabled()
    press_key(w, Qt.Key.Key_P)  # P plays (it is not typed anywhere)
    assert w.session.state in ("playing", "finished")
    w.session.pause()


def test_while_typing_the_run_keys_go_into_the_field(qtbot, window):
    w = window
    gamma = _gamma_field(w)
    _type_in(qtbot, w, gamma, "2")
    QTest.keyClick(gamma, Qt.Key.Key_Space)
    QTest.keyClick(gamma, Qt.Key.Key_P)
    assert gamma.text() == "2 p"
    assert shown_iteration(w) == 0


def test_validation_message_follows_the_current_text_and_goes_when_valid(qtbot, window):
    w = window
    gamma, form = _gamma_field(w), w.controls.kernel_form
    _type_in(qtbot, w, gamma, "ab")
    assert "'ab'" in form.error_text("gamma") and "'ab'" in w.controls.status.text()
    QTest.keyClick(gamma, Qt.Key.Key_Backspace)
    assert "'a'" in form.error_text("gamma") and "'a'" in w.controls.status.text()
    QTest.keyClick(gamma, Qt.Key.Key_Backspace)
    QTest.keyClicks(gamma, "0.25")
    assert form.error_text("gamma") == ""
    assert "Fix the highlighted" not in w.controls.status.text()
    assert "Iteration" in w.controls.status.text()


def test_run_keys_work_after_clicking_buttons_sliders_and_combos(qtbot, window):
    w = window
    c = w.controls
    algorithm, speed = w.scene.settings.algorithm, c.speed.value()
    QTest.mouseClick(c.step_button, Qt.MouseButton.LeftButton)
    w.session.wait_idle()
    assert shown_iteration(w) == 1
    for widget in (c.play_button, c.speed, c.history, c.algorithm):
        widget.setFocus()  # even with the keyboard on them (Tab), Space steps and ← scrubs
        before = shown_iteration(w)
        press_key(w, Qt.Key.Key_Space)
        assert shown_iteration(w) == before + 1, widget.accessibleName()
        press_key(w, Qt.Key.Key_Left)
        assert shown_iteration(w) == before, widget.accessibleName()
        press_key(w, Qt.Key.Key_End)
        assert shown_iteration(w) == before + 1, widget.accessibleName()
    assert w.scene.settings.algorithm == algorithm  # ← on the combo did not pick another algorithm
    assert c.speed.value() == speed  # nor moved the speed slider
    # a click on a button leaves the keyboard where it was
    w.panels["canvas"].plot.setFocus()
    QTest.mouseClick(c.play_button, Qt.MouseButton.LeftButton)
    assert w.panels["canvas"].plot.hasFocus()
    w.session.pause()


def test_reset_of_a_long_run_asks_first(qtbot, window):
    w = window
    w.scene.set_settings(max_iter=LONG_RUN + 500)
    # a run that never separates (XOR-like labels) reaches the limit
    pts = [(1, 1, 0), (-1, -1, 0), (1, -1, 1), (-1, 1, 1)]
    w.scene.clear()
    for x, y, c in pts:
        w.scene.add_point(x, y, c)
    w.session.wait_idle()
    w.session.run_to_end()
    w.session.wait_idle()
    assert shown_iteration(w) >= LONG_RUN
    w.panels["canvas"].plot.setFocus()
    press_key(w, Qt.Key.Key_Home)
    assert shown_iteration(w) >= LONG_RUN  # the first press only asks
    assert "again" in w.controls.reset_button.text().lower()
    press_key(w, Qt.Key.Key_R)
    assert shown_iteration(w) == 0


def test_every_key_is_listed_in_help_and_reachable_from_a_menu(window):
    w = window
    rows = help_rows(w)
    listed = " ".join(k for k, _ in rows)
    in_menus = {a for a, _ in menu_actions(w)}
    for needed in ("Space", "P", "R", "Home", "End", "←", "→", "Ctrl+Enter", "Del", "F", "F1", "F5", "L"):
        assert needed in listed.split(" / ") or needed in listed, needed
    for a in w.findChildren(type(w.step_action)):
        keys = [s for s in a.shortcuts() if not s.isEmpty()]
        if keys and a.isEnabled() and a.isVisible():
            assert a in in_menus, f"{a.text()} ({keys[0].toString()}) has a key but no menu item"
    assert all(r in rows for r in MOUSE_ROWS)
    w.classroom.toggle_help()
    text = w.classroom.help.label.text()
    assert "Ctrl+click" in text and "Home" in text and "End" in text
    w.classroom.toggle_help()
