"""File ▸ Export handout (HTML)…: the window's scene recorded on a background task, the page written, the window live."""

from __future__ import annotations

import json
import re

import pytest

from percviz.core.presets import SHIPPED_DIR

pytestmark = [pytest.mark.slow, pytest.mark.filterwarnings("ignore::RuntimeWarning")]


def embedded(path) -> dict:
    """The JSON the page embeds (read back as any program would, without the viewer)."""
    text = path.read_text(encoding="utf-8")
    m = re.search(r'<script type="application/json" id="percviz-data">(.*?)</script>', text, re.S)
    return json.loads(m.group(1))


def test_file_menu_writes_the_handout_of_the_scene(dialog_answers, hall_window, qtbot, tmp_path, monkeypatch):
    w = hall_window(SHIPPED_DIR / "notes-80-separable.json")
    target = tmp_path / "lecture"  # no suffix typed: .html is added
    dialog_answers.set(save_path=str(target))
    action = w.classroom.actions["export_handout"]
    assert action.objectName() == "action_export_handout" and "HTML" in action.text()
    assert action in w.file_menu.actions()
    action.trigger()
    out = tmp_path / "lecture.html"
    qtbot.waitUntil(lambda: out.exists() and not w.classroom.handouts.busy, timeout=30_000)
    data = embedded(out)
    solver = w.current_preset().make_solver()  # the same scene run here, to its end, by the solver itself
    snap = solver.start()
    while not snap.status.done:
        snap = solver.step()
    assert data["title"] == w.title
    assert data["frames"][-1]["iteration"] == snap.iteration
    assert data["frames"][-1]["status"] == snap.status.value
    qtbot.waitUntil(lambda: "lecture.html" in w.statusBar().currentMessage(), timeout=5000)


def test_a_cancelled_save_dialog_writes_nothing(dialog_answers, hall_window, tmp_path, monkeypatch):
    w = hall_window(SHIPPED_DIR / "xor-rbf.json")
    dialog_answers.set(save_path="")
    assert w.classroom.export_handout_dialog() is False
    assert not w.classroom.handouts.busy and list(tmp_path.glob("*.html")) == []
