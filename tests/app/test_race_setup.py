"""'Race the current scene…' on the real main window: a dialog of 2–4 lanes in words, the scene's kernel first."""

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QDialogButtonBox

from percviz.app.experiments.race_window import RaceWindow
from percviz.core.presets import SHIPPED_DIR, load_preset


def _window(qtbot):
    from percviz.app.main_window import MainWindow

    win = MainWindow(install_classroom=False)
    qtbot.addWidget(win)
    return win


def _ok(dlg):
    return dlg.buttons.button(QDialogButtonBox.StandardButton.Ok)


def test_setup_dialog_chooses_algorithms_and_kernels_in_words(qtbot):
    win = _window(qtbot)
    win.scene.set_settings(kernel="rbf:gamma=2")  # the scene's own kernel, not a registry default
    kernel = win.scene.settings.kernel
    assert kernel == "rbf:gamma=2"
    menu = win.experiments
    menu.race_action.trigger()
    dlg = menu.setup_dialog
    assert dlg.isVisible() and [r.use.isChecked() for r in dlg.rows] == [True, True, True, False]
    assert [r.name for r in dlg.rows[:3]] == ["perceptron", "nkp", "snkp"]
    # readable names, grouped: family headers cannot be chosen, no identifier is shown
    combo = dlg.rows[1].algorithm
    texts = [combo.itemText(i) for i in range(combo.count())]
    assert "Perceptrons (Ramdas & Peña)" in texts and "    Normalized Kernel Perceptron (NKP)" in texts
    assert not any(t.strip() in ("nkp", "snkp", "perceptron", "smo", "svm") for t in texts)
    head = combo.model().item(texts.index("Perceptrons (Ramdas & Peña)"))
    assert not head.isEnabled() and not head.isSelectable()
    # the scene's own kernel is the default of a kernel lane, said so; a φ lane gets φ-maps
    nkp = dlg.rows[1]
    assert nkp.runs_on.currentData() == kernel and nkp.runs_on.currentText().endswith("(the scene's)")
    assert dlg.rows[0].runs_on.currentText().startswith("φ = ")
    # four lanes: the SVM (by SMO) with a Gaussian RBF, the perceptron on the full quadratic map
    four = dlg.rows[3]
    four.use.setChecked(True)
    four.algorithm.setCurrentIndex(four.algorithm.findData("svm", Qt.ItemDataRole.UserRole))
    four.runs_on.setCurrentIndex(four.runs_on.findData("rbf"))
    assert four.runs_on.currentText() == "Gaussian RBF γ = 0.5"
    dlg.rows[0].runs_on.setCurrentIndex(dlg.rows[0].runs_on.findData("quadratic"))
    assert _ok(dlg).isEnabled()
    _ok(dlg).click()
    rw = menu.windows[-1]
    assert isinstance(rw, RaceWindow)
    assert [(l.algorithm, l.kernel if l.algorithm != "perceptron" else l.features) for l in rw.lanes] == [
        ("perceptron", "quadratic"), ("nkp", kernel), ("snkp", kernel), ("svm", "rbf")]
    assert rw.lane_views[3].title.text() == "Support vector machine · Gaussian RBF γ\u00a0=\u00a00.5"
    win.close()


def test_setup_dialog_needs_two_to_four_lanes(qtbot):
    win = _window(qtbot)
    dlg = win.experiments.open_race_setup()
    for r in dlg.rows[1:]:
        r.use.setChecked(False)
    assert not _ok(dlg).isEnabled() and "2 to 4" in dlg.note.text()
    dlg.rows[3].use.setChecked(True)
    assert _ok(dlg).isEnabled() and dlg.note.text() == ""
    dlg.reject()
    assert not any(isinstance(w, RaceWindow) for w in win.experiments.windows)
    win.close()


def test_the_race_preset_still_opens_and_the_dialog_offers_its_lanes(qtbot):
    win = _window(qtbot)
    menu = win.experiments
    menu.race_preset_action.trigger()
    rw = menu.windows[-1]
    assert [l.algorithm for l in rw.lanes] == ["perceptron", "nkp", "snkp"] and rw.race.max_iter == 20000
    win.load_preset(load_preset(SHIPPED_DIR / "race-thin-margin.json"))
    dlg = menu.open_race_setup()
    assert [r.lane() for r in dlg.rows if r.use.isChecked()] == list(menu.preset_lanes)
    win.close()
