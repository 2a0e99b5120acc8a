"""Hostile files opened through the window (File ▸ Open's path): one clear line, the user's scene kept, the
window still runs. bench/audit_gui_presets.py runs 56 such files (10⁶ points included) through the same path."""

from __future__ import annotations

import json
import os

import pytest
from PySide6.QtWidgets import QMessageBox

from percviz.core.presets import SHIPPED_DIR



def _hostile(tmp_path, kind: str):
    p = tmp_path / f"{kind}.json"
    if kind == "folder":
        p.mkdir()
    elif kind == "fifo":
        os.mkfifo(p)
    elif kind == "symlink-loop":
        os.symlink(p, p)
    elif kind == "non-utf8":
        p.write_bytes(b"\xff\xfe\x00garbage\x80")
    elif kind == "deep-nesting":
        p.write_text("[" * 100_000 + "]" * 100_000)
    elif kind == "nan":
        body = json.loads((SHIPPED_DIR / "xor-rbf.json").read_text())
        p.write_text(json.dumps(body).replace("1.6", "NaN", 1))
    return p


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs FIFOs and symlinks")
@pytest.mark.parametrize("kind, says", [
    ("folder", "is a folder, not a file"), ("fifo", "not a regular file"), ("symlink-loop", "symbolic links"),
    ("non-utf8", "not UTF-8"), ("deep-nesting", "nested too deeply"), ("nan", "finite number"),
])  # fmt: skip
def test_a_hostile_file_is_refused_in_one_line_and_the_scene_stays(dialog_answers, hall_window, tmp_path, monkeypatch, qtbot,
                                                                    kind, says):

    dialog_answers.set(unsaved="discard")
    w = hall_window(SHIPPED_DIR / "thin-margin.json")
    w.scene.add_point(0.123, 0.456, 0)  # the user's own edit, unsaved
    w.session.wait_idle()
    before = w.scene.points.X.copy()
    assert not w.classroom.files.open_path(_hostile(tmp_path, kind), confirm=False)
    boxes = [b for b in w.findChildren(QMessageBox) if b.isVisible()]
    assert len(boxes) == 1
    text = boxes[0].text() + " " + boxes[0].informativeText()
    assert says in text and len(text.strip().splitlines()) <= 2, text
    boxes[0].close()
    assert (w.scene.points.X == before).all() and w.scene.modified
    w.session.step()
    w.session.wait_idle()
    assert w.session.current is not None and w.session.current.iteration >= 1
