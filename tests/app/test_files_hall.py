"""Files in front of a hall: Clear starts an untitled scene, shipped examples are never saved over, panels."""

from __future__ import annotations

from pathlib import Path

import pytest

import percviz
from percviz.core.presets import SHIPPED_DIR, load_preset



@pytest.fixture
def window(dialog_answers, hall_window, monkeypatch):
    dialog_answers.set(unsaved="discard")
    return hall_window(SHIPPED_DIR / "notes-80-separable.json")


def _inside(path) -> bool:
    try:
        Path(path).resolve().relative_to(Path(percviz.__file__).resolve().parent)
        return True
    except ValueError:
        return False


def test_clear_all_points_starts_a_new_untitled_scene(window):
    w = window
    assert "80" in w.title
    w.clear_action.trigger()
    assert w.scene.n == 0
    assert w.title == "Untitled scene" and w.explanation == ""
    assert "Untitled scene" in w.windowTitle()
    assert "Untitled scene" in w.classroom.info.text.toPlainText()
    assert w.classroom.files.current_path is None


def test_an_edited_shipped_example_is_saved_as_a_copy_outside_the_package(dialog_answers, window, monkeypatch, tmp_path):
    w = window
    shipped = SHIPPED_DIR / "thin-margin.json"
    before = shipped.read_text()
    assert w.classroom.files.open_path(shipped)  # opened like any file (Open…, drag and drop, recent)
    assert not _inside(w.classroom.prefs.last_folder)
    w.scene.add_point(0.1, 0.2, 0)
    asked = []
    target = tmp_path / "mine.json"
    dialog_answers.set(save_path=lambda title, path, filters: asked.append(path) or str(target))
    assert w.classroom.files.save()
    assert asked and not _inside(asked[0]), asked
    assert shipped.read_text() == before
    assert load_preset(target).points.n == w.scene.n


def test_examples_open_their_panels_close_the_last_examples_and_leave_the_users_open(window):
    w = window
    files = w.classroom.files
    assert files.open_example(SHIPPED_DIR / "xor-linear-certificate.json")
    assert w.view_actions["feature"].isChecked()  # the certificate's picture: 0 in the hull
    assert w.docks["feature"].isVisible()
    assert files.open_example(SHIPPED_DIR / "winnow-sparse-stream.json")
    assert "weight" not in load_preset(SHIPPED_DIR / "winnow-sparse-stream.json").view.panels
    # opened by the last example, not by hand: it closes with it (issue 25: a lecturer's next example is clean)
    assert not w.view_actions["feature"].isChecked() and not w.docks["feature"].isVisible()
    w.view_actions["feature"].setChecked(True)  # now opened by hand: the next example leaves it open
    assert files.open_example(SHIPPED_DIR / "xor-linear-certificate.json")
    assert files.open_example(SHIPPED_DIR / "winnow-sparse-stream.json")
    assert w.view_actions["feature"].isChecked()
