"""Issue 10: a huge or infinite parameter typed in the window was accepted, then Save failed ('Out of range float
values are not JSON compliant') and autosave failed silently. Typed like a person: refused inline, Save and autosave
still write a preset that loads."""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication, QLineEdit

from percviz.app.main_window import MainWindow
from percviz.core.presets import SHIPPED_DIR, load_preset



@pytest.mark.parametrize("text", ["inf", "1e400"])
def test_an_infinite_eta_is_refused_inline_and_save_and_autosave_still_work(qtbot, tmp_path, monkeypatch, text):
    monkeypatch.setenv("PERCVIZ_CONFIG_DIR", str(tmp_path / "config"))
    monkeypatch.setenv("PERCVIZ_DATA_DIR", str(tmp_path / "data"))
    w = MainWindow()
    qtbot.addWidget(w)
    w.load_preset(load_preset(SHIPPED_DIR / "notes-80-separable.json").replace(algorithm="variable-increment"))
    w.show()
    qtbot.waitExposed(w)
    w.session.wait_idle()
    editor = w.controls.algo_form.editor("eta")
    assert isinstance(editor, QLineEdit) and editor.accessibleName() == "param:eta"
    editor.setFocus()
    editor.selectAll()
    qtbot.keyClicks(editor, text)
    qtbot.keyClick(editor, Qt.Key.Key_Return)
    QApplication.processEvents()
    assert not w.controls.algo_form.is_valid()
    assert w.scene.settings.params.get("eta", 1.0) == 1.0  # the value never reaches the scene
    w.scene.add_point(0.25, 0.5, 0)  # unsaved work
    files = w.classroom.files
    assert files.autosaver.save_now() and files.autosaver.last_error == ""
    assert load_preset(files.autosaver.path).points.n == 81
    out = tmp_path / "saved.json"
    assert files.save_to(out)
    saved = load_preset(out)
    assert saved.algorithm == "variable-increment" and saved.points.n == 81 and saved.params.get("eta", 1.0) == 1.0
    w.close()
