"""Issue 25, the lecturer's second trial: the points still open after the first fixes, each on the real main window
at 1280×800 driven by clicks and keys."""

from __future__ import annotations

import pytest
from helpers import spin
from PySide6.QtCore import Qt
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication, QComboBox, QLineEdit

from percviz.core.presets import SHIPPED_DIR, load_preset

pytestmark = [pytest.mark.filterwarnings("ignore::RuntimeWarning")]


def _choose(combo: QComboBox, text_part: str) -> None:
    """Open the combo's list and click the first entry whose text contains text_part (as a person picks it)."""
    combo.showPopup()
    spin(0.05)
    model, view = combo.model(), combo.view()
    row = next(r for r in range(model.rowCount()) if text_part in str(model.index(r, 0).data()))
    rect = view.visualRect(model.index(row, 0))
    view.scrollTo(model.index(row, 0))
    rect = view.visualRect(model.index(row, 0))
    QTest.mouseClick(view.viewport(), Qt.MouseButton.LeftButton, pos=rect.center())
    spin(0.05)


def _type_into(w, name: str, text: str) -> None:
    field = next(f for f in w.controls.findChildren(QLineEdit) if f.accessibleName() == name and f.isVisible())
    field.setFocus()
    field.selectAll()
    QTest.keyClicks(field, text)
    QTest.keyClick(field, Qt.Key.Key_Return)
    QApplication.processEvents()


def _ctrl_z(w, shift: bool = False) -> None:
    mods = Qt.KeyboardModifier.ControlModifier | (Qt.KeyboardModifier.ShiftModifier if shift else Qt.KeyboardModifier.NoModifier)
    QTest.keyClick(w, Qt.Key.Key_Z, mods)
    QApplication.processEvents()
    w.session.wait_idle()


# -- point 4: Undo covers algorithm, kernel and parameter changes -------------------------------------------------

def test_undo_and_redo_cover_algorithm_kernel_and_parameter_changes(hall_window):
    w = hall_window(SHIPPED_DIR / "thin-margin.json")
    first = w.scene.settings
    assert first.algorithm == "snkp" and first.kernel.startswith("affine")
    _choose(w.controls.algorithm, "(NKP)")
    w.session.wait_idle()
    assert w.scene.settings.algorithm == "nkp"
    _choose(w.controls.kernel, "Gaussian RBF")
    w.session.wait_idle()
    assert w.scene.settings.kernel.startswith("rbf")
    _type_into(w, "param:gamma", "3")
    w.session.wait_idle()
    assert w.scene.settings.kernel.replace(" ", "") == "rbf:gamma=3"
    after = w.scene.settings
    assert w.undo_action.isEnabled() and "kernel" in w.undo_action.text().lower()
    _ctrl_z(w)  # γ = 3 → the RBF's own γ
    assert w.scene.settings.kernel.startswith("rbf") and "gamma=3" not in w.scene.settings.kernel.replace(" ", "")
    _ctrl_z(w)  # the RBF → the affine kernel
    assert w.scene.settings.kernel == first.kernel and w.controls.kernel.currentData() == "affine"
    assert w.session.problem.kernel.spec.startswith("affine")  # the run follows, not only the settings
    _ctrl_z(w)  # NKP → SNKP, the controls showing it
    assert w.scene.settings == first
    assert w.controls.algorithm.currentData(Qt.ItemDataRole.UserRole) == "snkp"
    assert w.session.solver_cls.name == "snkp"
    assert not w.undo_action.isEnabled()  # the example's own settings are where its history starts
    for _ in range(3):
        _ctrl_z(w, shift=True)
    assert w.scene.settings == after and w.session.solver_cls.name == "nkp"
    assert w.controls.algorithm.currentData(Qt.ItemDataRole.UserRole) == "nkp"


def test_undo_after_a_point_edit_and_a_kernel_change_takes_them_back_in_order(hall_window):
    w = hall_window(SHIPPED_DIR / "thin-margin.json")
    n, kernel = w.scene.n, w.scene.settings.kernel
    w.scene.add_point(0.5, 0.5, 0)
    _choose(w.controls.kernel, "Gaussian RBF")
    w.session.wait_idle()
    _ctrl_z(w)
    assert w.scene.settings.kernel == kernel and w.scene.n == n + 1
    _ctrl_z(w)
    assert w.scene.n == n and w.scene.settings.kernel == kernel
    w.load_preset(load_preset(SHIPPED_DIR / "xor-rbf.json"))  # a new scene: a fresh history
    assert not w.scene.can_undo


# -- point 1: the status bar's message at 3× is whole, or whole words and an ellipsis with the rest in a tooltip ----

def _status_message_shown(w):
    """What a person reads of the status bar's message: (the text painted, its room, the widget's tooltip)."""
    from PySide6.QtGui import QFontMetrics
    from PySide6.QtWidgets import QLabel

    bar = w.statusBar()
    message = bar.currentMessage()
    labels = [lab for lab in bar.findChildren(QLabel) if lab.isVisible() and message
              and lab.text() and lab.text().rstrip("…").strip() and message.startswith(lab.text().rstrip(" …"))]
    if labels:
        lab = labels[0]
        return lab.text(), lab.contentsRect().width(), lab.toolTip(), QFontMetrics(lab.font())
    # QStatusBar paints its message itself between 6 px and the first permanent widget
    first = min((lab.geometry().left() for lab in bar.findChildren(QLabel) if lab.isVisible()), default=bar.width())
    return message, first - 2 - 6, bar.toolTip(), QFontMetrics(bar.font())


@pytest.mark.parametrize("scale", ["2×", "3×"])
def test_the_status_message_is_whole_or_cut_at_a_word_with_the_rest_in_a_tooltip(hall_window, scale):
    from helpers import press_key

    w = hall_window(SHIPPED_DIR / "thin-margin.json")
    press_key(w, Qt.Key.Key_F5)
    spin(0.3)
    next(a for a in w.findChildren(type(w.undo_action)) if a.text() == scale).trigger()
    spin(0.3)
    w.classroom.set_presentation(False)  # F5 F5 at this scale: the message says how to leave again
    spin(0.3)
    press_key(w, Qt.Key.Key_F5)
    spin(0.3)
    full = w.statusBar().currentMessage()
    assert full == "Presentation mode: F5 to leave, F11 full screen.", full
    text, room, _tip, fm = _status_message_shown(w)
    assert text == full and fm.horizontalAdvance(text) <= room + 2, (text, room)  # the mouse is off the canvas
    w.show_message("Iteration 7283 · m(α) = 2.655e-04 · separator found, ρ_K ≈ 1.2e-4 for this kernel", 0)
    spin(0.1)
    full = w.statusBar().currentMessage()
    text, room, tip, fm = _status_message_shown(w)
    assert fm.horizontalAdvance(text) <= room + 2, (text, fm.horizontalAdvance(text), room)
    if text != full:
        assert text.endswith("…") and tip == full, (text, tip)
        kept = text[:-1].rstrip()
        assert kept and full.startswith(kept) and full[len(kept)] in " ,·", (kept, full)  # cut between words
        assert len(kept.split()) >= 3  # and a readable part of it, not a lone word
    w.resize(1920, 1080)
    spin(0.3)
    text, room, tip, fm = _status_message_shown(w)
    assert fm.horizontalAdvance(text) <= room + 2
    w.statusBar().clearMessage()
    spin(0.05)
    assert _status_message_shown(w)[0] == ""


# -- point 1: the colour bar's tick labels are not clipped at the plot's edges -------------------------------------

@pytest.mark.parametrize("scale", ["desk", "2×", "3×"])
def test_the_colour_bars_tick_labels_are_whole_inside_the_plot(hall_window, scale):
    """concentric-circles-rbf in dark at 2× drew '0.15' at the bar's top, half above the plot (its top edge)."""
    from PySide6.QtCore import QRectF
    from text_probe import axis_label_rects

    w = hall_window(SHIPPED_DIR / "concentric-circles-rbf.json")
    w.findChild(type(w.undo_action), "theme_dark").trigger()
    if scale != "desk":
        press_f5 = w.classroom.actions["presentation"]
        press_f5.trigger()
        next(a for a in w.findChildren(type(w.undo_action)) if a.text() == scale).trigger()
    w.session.run_to_end()
    w.session.wait_idle()
    spin(0.5)
    canvas = w.panels["canvas"]
    canvas.redraw_now()
    spin(0.3)
    axis = canvas.colorbar.axis
    seen = canvas.plot.mapToScene(canvas.plot.viewport().rect()).boundingRect()
    bar = axis.mapRectToScene(QRectF(0, 0, axis.size().width(), axis.size().height()))
    labels = [(axis.mapRectToScene(r), t) for r, t in axis_label_rects(axis)]
    assert len(labels) >= 2, [t for _r, t in labels]  # the scale is still read
    for rect, text in labels:
        assert seen.top() - 1 <= rect.top() and rect.bottom() <= seen.bottom() + 1, (text, rect, seen)
        assert bar.top() - 1 <= rect.center().y() <= bar.bottom() + 1, (text, rect, bar)


# -- point 4: Open… starts in the user's last folder, never in the installed package -------------------------------

def test_open_starts_in_the_last_folder_and_never_in_the_package(dialog_answers, hall_window, tmp_path):
    from pathlib import Path

    import percviz

    package = Path(percviz.__file__).resolve().parent
    w = hall_window(SHIPPED_DIR / "thin-margin.json")
    files, prefs = w.classroom.files, w.classroom.prefs
    prefs.store.setValue("files/last_folder", str(SHIPPED_DIR))  # what an older version stored
    seen = []
    dialog_answers.set(open_path=lambda title, folder, filters: seen.append(folder) or "")
    QTest.keyClick(w, Qt.Key.Key_O, Qt.KeyboardModifier.ControlModifier)  # File ▸ Open…
    QApplication.processEvents()
    assert seen, "File ▸ Open… asked no folder"
    assert package not in Path(seen[-1]).resolve().parents and Path(seen[-1]).resolve() != package, seen[-1]
    assert Path(seen[-1]).is_dir()
    mine = tmp_path / "lectures"
    mine.mkdir()
    target = mine / "moons.json"
    dialog_answers.set(save_path=lambda title, path, filters: str(target))
    QTest.keyClick(w, Qt.Key.Key_S, Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.ShiftModifier)
    QApplication.processEvents()
    assert target.exists()
    assert files.open_example(SHIPPED_DIR / "xor-rbf.json")  # an example leaves the folder as it was
    QTest.keyClick(w, Qt.Key.Key_O, Qt.KeyboardModifier.ControlModifier)
    QApplication.processEvents()
    assert len(seen) == 2 and Path(seen[-1]).resolve() == mine.resolve()


# -- point 3: the race window after F5 F5 shows its curves and table again -----------------------------------------

def test_the_race_shows_its_curves_and_table_after_f5_twice(qtbot, hall_window):
    from PySide6.QtWidgets import QDialogButtonBox

    w = hall_window(SHIPPED_DIR / "thin-margin.json")
    w.experiments.race_action.trigger()  # Experiments ▸ Race the current scene…
    dlg = w.experiments.setup_dialog
    QTest.mouseClick(dlg.buttons.button(QDialogButtonBox.StandardButton.Ok), Qt.MouseButton.LeftButton)
    race = w.experiments.windows[-1]
    race.activateWindow()
    spin(0.2)
    QTest.mouseClick(race.end_button, Qt.MouseButton.LeftButton)
    race.wait_idle(qtbot, 60000)
    for presses in (1, 2, 3, 4):
        QTest.keyClick(race, Qt.Key.Key_F5)
        spin(0.2)
        shown = [x for x in (race.curves_box, race.table) if x.isVisible() and x.width() > 50 and x.height() > 50]
        if race.theme.presentation:
            assert race.bottom_tabs.isVisible() and len(shown) == 1, presses  # one tab at a time, full width
        else:
            assert shown == [race.curves_box, race.table], (presses, [type(x).__name__ for x in shown])
    race.close()


# -- point 1/3: a quick F5 F5 F5 at 3× keeps the window on a 1280 px screen ---------------------------------------

def test_quick_f5_presses_at_3x_keep_the_window_its_size(hall_window):
    """F5 pressed again within the desk layout's delayed restore (2 × 150 ms) had that restore land in presentation:
    the controls dock came back and the window grew to 1329 px, its status bar cut at both ends."""
    w = hall_window(SHIPPED_DIR / "thin-margin.json")
    w.classroom.set_presentation_scale(3.0)
    for presses in range(1, 6):
        QTest.keyClick(w, Qt.Key.Key_F5)
        spin(0.1)
        assert w.width() == 1280, (presses, w.width())
    spin(0.6)
    assert w.classroom.presenting and w.width() == 1280
    assert not w.docks["controls"].isVisible()  # presenting: the presentation bar, not the controls dock
    QTest.keyClick(w, Qt.Key.Key_F5)
    spin(0.6)
    assert not w.classroom.presenting and w.docks["controls"].isVisible() and w.width() == 1280


# -- point 2: menus and dialogs are read from the back of the hall too ------------------------------------------------

@pytest.mark.xfail(strict=True, reason="the per-class QMenu/QDialog font shrank the curves below four lines at 3× in 1920×1080 (test_curves_scale_readable); taken back until it keeps the layout")
def test_menus_and_dialogs_follow_the_presentation_scale(hall_window):
    from PySide6.QtWidgets import QLabel, QMenu

    w = hall_window(SHIPPED_DIR / "thin-margin.json")
    desk = w.font().pointSizeF()
    menu = next(m for m in w.findChildren(QMenu) if m.title() == "&File")
    assert menu.font().pointSizeF() == pytest.approx(desk)
    QTest.keyClick(w, Qt.Key.Key_F5)
    spin(0.3)
    next(a for a in w.findChildren(type(w.undo_action)) if a.text() == "2×").trigger()
    spin(0.3)
    big = 2 * w.classroom.look.base_font_pt
    assert w.font().pointSizeF() == pytest.approx(big)
    assert menu.font().pointSizeF() == pytest.approx(big), menu.font().pointSizeF()
    w.classroom.generate_dialog()
    dlg = w.classroom.generators_dialog
    try:
        assert dlg.font().pointSizeF() == pytest.approx(big)
        label = next(lab for lab in dlg.findChildren(QLabel) if lab.text())
        assert label.font().pointSizeF() == pytest.approx(big), label.text()
    finally:
        dlg.reject()
    QTest.keyClick(w, Qt.Key.Key_F5)
    spin(0.6)
    assert menu.font().pointSizeF() == pytest.approx(desk)


def test_a_race_opened_at_3x_on_an_800_px_screen_shows_every_caption_whole(qtbot, hall_window):
    """At 3× the lanes' four-line captions were cut at the bottom ('γ(a) = 0.0068' half shown) and the curves'
    y ticks ran into each other: on a screen 800 px high the race scales as far as it fits (2×), the rest stays."""
    from PySide6.QtGui import QGuiApplication
    from PySide6.QtWidgets import QDialogButtonBox
    from text_probe import text_problems

    w = hall_window(SHIPPED_DIR / "thin-margin.json")
    assert QGuiApplication.primaryScreen().availableGeometry().height() <= 800
    w.classroom.set_presentation_scale(3.0)
    QTest.keyClick(w, Qt.Key.Key_F5)
    spin(0.3)
    w.experiments.race_action.trigger()
    QTest.mouseClick(w.experiments.setup_dialog.buttons.button(QDialogButtonBox.StandardButton.Ok),
                     Qt.MouseButton.LeftButton)
    race = w.experiments.windows[-1]
    race.resize(1200, 752)  # a 1280×800 screen less its frame
    QTest.mouseClick(race.end_button, Qt.MouseButton.LeftButton)
    race.wait_idle(qtbot, 60000)
    spin(0.3)
    assert race.theme.presentation and race.theme.scale >= 2.0
    for lane in race.lane_views:
        assert lane.caption.fits(), (lane.caption.text(), lane.caption.size())
    assert [p for p in text_problems(race)] == []
    race.close()


# -- point 2: the experiment windows' check boxes and fields are seen in a dark theme ----------------------------

def _lum(c):
    ch = [v / 255 for v in c.getRgb()[:3]]
    ch = [v / 12.92 if v <= 0.03928 else ((v + 0.055) / 1.055) ** 2.4 for v in ch]
    return 0.2126 * ch[0] + 0.7152 * ch[1] + 0.0722 * ch[2]


def _indicator_contrast(box) -> float:
    """The largest contrast between a pixel of an unchecked check box's indicator and the window behind it."""
    from PySide6.QtGui import QColor
    from PySide6.QtWidgets import QStyle, QStyleOptionButton

    opt = QStyleOptionButton()
    box.initStyleOption(opt)
    rect = box.style().subElementRect(QStyle.SubElement.SE_CheckBoxIndicator, opt, box)
    img = box.grab().toImage()
    behind = box.palette().color(box.backgroundRole())
    lb = _lum(behind)
    best = 1.0
    for x in range(max(0, rect.left()), min(img.width(), rect.right() + 1)):
        for y in range(max(0, rect.top()), min(img.height(), rect.bottom() + 1)):
            lp = _lum(QColor(img.pixel(x, y)))
            hi, lo = max(lp, lb), min(lp, lb)
            best = max(best, (hi + 0.05) / (lo + 0.05))
    return best


@pytest.mark.parametrize("make", ["race", "cover"])
def test_the_experiment_windows_check_boxes_are_seen_in_the_dark_theme(qtbot, make):
    from percviz.app.experiments.cover_window import CoverWindow
    from percviz.app.experiments.race_window import RaceWindow
    from percviz.app.theme import theme_for
    from percviz.core import datasets
    from percviz.core.experiments import Lane

    dark = theme_for("dark")
    if make == "race":
        w = RaceWindow(datasets.thin_gap(0.1), (Lane("perceptron"), Lane("snkp")), dark, max_iter=100)
        boxes = [w.live]
    else:
        w = CoverWindow(dark)
        boxes = list(w.maps.values())
    qtbot.addWidget(w)
    w.show()
    qtbot.waitExposed(w)
    for box in boxes:
        box.setChecked(False)
    spin(0.05)
    for box in boxes:
        assert _indicator_contrast(box) >= 3.0, (box.text(), _indicator_contrast(box))  # WCAG: a control's edge
    w.close()
