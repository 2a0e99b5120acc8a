"""The classroom features on the real main window: presentation mode, keys, help, files, autosave, preferences."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import numpy as np
import pytest
from PySide6.QtCore import QMimeData, QPoint, QPointF, Qt, QUrl
from PySide6.QtGui import QDragEnterEvent, QDropEvent
from PySide6.QtWidgets import QApplication, QPushButton

from percviz.app.main_window import MainWindow
from percviz.core.presets import SHIPPED_DIR, load_preset, save_preset


#: The notes' 80-sample set: 28 fixed-increment updates, enough history to step and scrub through.
PRESET = SHIPPED_DIR / "notes-80-separable.json"
SHOTS = os.environ.get("PERCVIZ_TEST_SHOTS")  # a folder to keep the screenshots in (to look at them)


@pytest.fixture
def dirs(tmp_path, monkeypatch):
    """Settings and autosaves in temporary folders, never the user's."""
    cfg, data = tmp_path / "config", tmp_path / "data"
    monkeypatch.setenv("PERCVIZ_CONFIG_DIR", str(cfg))
    monkeypatch.setenv("PERCVIZ_DATA_DIR", str(data))
    return cfg, data


def _make_window(qtbot, preset_path=PRESET):
    w = MainWindow()
    qtbot.addWidget(w)
    w.load_preset(load_preset(preset_path))
    w.show()
    qtbot.waitExposed(w)
    w.activateWindow()
    w.session.wait_idle()
    return w


@pytest.fixture
def window(qtbot, dirs):
    w = _make_window(qtbot)
    yield w
    w.classroom.animations.cancel_and_wait()
    w.close()


def _iteration(w) -> int:
    snap = w.session.current
    return -1 if snap is None else snap.iteration


def _key(qtbot, w, key, mods=Qt.KeyboardModifier.NoModifier):
    qtbot.keyClick(w, key, mods)
    QApplication.processEvents()


# -- presentation mode ---------------------------------------------------------------------------------

def _sizes(w) -> dict[str, float]:
    canvas = w.panels["canvas"]
    return {
        "window font": w.font().pointSizeF(),
        "controls font": w.controls.font().pointSizeF(),
        "marker": float(np.max(canvas.points_item.data["size"])),
        "boundary width": canvas.boundary_curve.opts["pen"].widthF(),
        "axis font": canvas.plot.getPlotItem().getAxis("bottom").style["tickFont"].pointSizeF(),
        "caption font": w.classroom.caption.font().pointSizeF(),
        "info text": w.classroom.info.text.font().pointSizeF(),
        "info title": w.classroom.info._title_pt,
    }


def test_presentation_mode_scales_fonts_markers_and_lines(qtbot, window, tmp_path):
    w = window
    _key(qtbot, w, Qt.Key.Key_Space)
    qtbot.waitUntil(lambda: _iteration(w) == 1)
    desk = _sizes(w)
    _key(qtbot, w, Qt.Key.Key_F5)
    assert w.classroom.presenting and w.classroom.actions["presentation"].isChecked()
    shown = _sizes(w)
    for name, value in desk.items():
        assert shown[name] >= 2 * value - 1e-9, f"{name}: {value} → {shown[name]}"
    w.panels["canvas"].redraw_now()
    QApplication.processEvents()
    shot = Path(SHOTS or tmp_path) / "presentation.png"
    assert w.grab().save(str(shot))
    assert "iteration 1" in w.classroom.caption.plain_text
    _key(qtbot, w, Qt.Key.Key_F5)
    assert _sizes(w) == desk
    _key(qtbot, w, Qt.Key.Key_F11)
    qtbot.waitUntil(w.isFullScreen)
    _key(qtbot, w, Qt.Key.Key_F11)
    qtbot.waitUntil(lambda: not w.isFullScreen())


def test_every_theme_has_six_classes_and_plus_minus_differ_by_shape():
    from percviz.app.theme import THEMES, theme_for
    from percviz.core.errors import ParameterError

    assert {"light", "dark", "hc-light", "hc-dark", "colorblind"} <= set(THEMES)
    for theme in THEMES.values():
        assert len(theme.class_colors) == len(set(theme.class_colors)) == 6
        assert len(set(theme.class_symbols)) == 6 and theme.class_symbols[:2] == ("+", "_")
        assert len(theme.diverging) % 2 == 1  # a middle stop for f = 0
        big = theme.with_scale(2.5)
        assert (big.font_pt, big.marker_size, big.line_width) == pytest.approx(
            (2.5 * theme.font_pt, 2.5 * theme.marker_size, 2.5 * theme.line_width))
    with pytest.raises(ParameterError, match="Known themes"):
        theme_for("sepia")


def test_themes_switch_every_panel(qtbot, window):
    w = window
    w.classroom.set_theme("hc-dark")
    assert w.panels["canvas"].theme.name == "hc-dark"
    assert w.palette().window().color().name() == "#000000"
    w.classroom.set_theme("colorblind")
    assert w.panels["canvas"].theme.class_color(0) == "#E69F00"


# -- keyboard -----------------------------------------------------------------------------------------

def test_keys_step_scrub_reset_and_play(qtbot, window):
    w, s = window, window.session
    assert _iteration(w) == 0
    for k in (1, 2, 3):
        _key(qtbot, w, Qt.Key.Key_Space)
        qtbot.waitUntil(lambda k=k: _iteration(w) == k)
    _key(qtbot, w, Qt.Key.Key_Left)
    _key(qtbot, w, Qt.Key.Key_Left)
    assert _iteration(w) == 1
    _key(qtbot, w, Qt.Key.Key_Right)
    assert _iteration(w) == 2
    _key(qtbot, w, Qt.Key.Key_R)
    qtbot.waitUntil(lambda: _iteration(w) == 0 and len(s.history) == 1)
    s.set_speed(200)
    _key(qtbot, w, Qt.Key.Key_P)
    assert s.state == "playing"
    qtbot.waitUntil(lambda: _iteration(w) >= 3)
    _key(qtbot, w, Qt.Key.Key_P)
    assert s.state in ("idle", "finished")
    stopped = _iteration(w)
    s.wait_idle()
    assert _iteration(w) == stopped or s.finished


def test_f_fits_the_view_to_the_points(qtbot, window):
    w = window
    vb = w.panels["canvas"].viewbox
    vb.setRange(xRange=(100, 101), yRange=(100, 101), padding=0)
    _key(qtbot, w, Qt.Key.Key_F)
    (x0, x1), (y0, y1) = vb.viewRange()
    X = w.scene.points.X
    assert x0 <= X[:, 0].min() and X[:, 0].max() <= x1 and y0 <= X[:, 1].min() and X[:, 1].max() <= y1


def test_help_overlay_opens_with_f1_and_question_mark(qtbot, window):
    w, help_ = window, window.classroom.help
    _key(qtbot, w, Qt.Key.Key_F1)
    assert help_.isVisible() and help_.geometry() == w.rect()
    assert "Space" in help_.label.text() and "Run ▸ Play / Pause" in help_.label.text()
    _key(qtbot, help_, Qt.Key.Key_Escape)
    assert not help_.isVisible()
    _key(qtbot, w, Qt.Key.Key_Question)
    assert help_.isVisible()
    qtbot.mouseClick(help_, Qt.MouseButton.LeftButton)
    assert not help_.isVisible()


def test_undo_redo_keys_restore_points_exactly(qtbot, window):
    w, sc = window, window.scene
    original = (sc.points.X.copy(), sc.points.classes.copy())
    sc.add_point(0.123456789, -1.5, 1)
    sc.move_point(3, 2.718281828, 3.14159265)
    sc.remove_point(10)
    sc.set_class(0, 1)
    edited = (sc.points.X.copy(), sc.points.classes.copy())
    for _ in range(4):
        _key(qtbot, w, Qt.Key.Key_Z, Qt.KeyboardModifier.ControlModifier)
    assert np.array_equal(sc.points.X, original[0]) and np.array_equal(sc.points.classes, original[1])
    for _ in range(4):
        _key(qtbot, w, Qt.Key.Key_Z, Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.ShiftModifier)
    assert np.array_equal(sc.points.X, edited[0]) and np.array_equal(sc.points.classes, edited[1])


# -- files ------------------------------------------------------------------------------------------------

def _doc(**changes):
    doc = json.loads(PRESET.read_text())
    doc.update(changes)
    return doc


def _point0(value):
    doc = _doc()
    doc["points"][0][0] = value
    return doc


MALFORMED = {
    "truncated": (lambda: PRESET.read_text()[:300], None, "truncated"),
    "not json": (lambda: "x,y,label\n1,2,1\n", None, "not valid JSON"),
    "wrong type": (lambda: json.dumps(_doc(points="many")), "points", "must be a list"),
    "nan": (lambda: json.dumps(_point0(float("nan"))), "points[0][0]", "finite"),
    "huge value": (lambda: json.dumps(_point0(1e300)), "points[0][0]", "too large"),
    "unknown algorithm": (lambda: json.dumps(_doc(algorithm="quantum-annealer")), "algorithm", "quantum-annealer"),
    "newer version": (lambda: json.dumps(_doc(version=99)), "version", "newer percviz"),
}


@pytest.mark.parametrize("case", list(MALFORMED))
def test_a_broken_file_gives_one_message_and_leaves_the_scene(qtbot, window, tmp_path, case):
    w = window
    text, field, words = MALFORMED[case]
    bad = tmp_path / f"broken-{case.replace(' ', '-')}.json"
    bad.write_text(text())
    w.scene.add_point(9.0, 9.0, 0)  # an unsaved edit that must survive
    before = (w.scene.points.X.copy(), w.scene.points.classes.copy(), w.scene.settings, w.title, w.scene.modified)
    errors = []
    w.show_error = lambda title, msg: errors.append(msg)
    assert not w.classroom.open_path(bad)
    assert len(errors) == 1
    assert bad.name in errors[0] and words in errors[0]
    if field:
        assert f"'{field}'" in errors[0]
    after = (w.scene.points.X, w.scene.points.classes, w.scene.settings, w.title, w.scene.modified)
    assert np.array_equal(before[0], after[0]) and np.array_equal(before[1], after[1])
    assert before[2:] == after[2:]


def test_unknown_fields_load_with_a_warning(qtbot, window, tmp_path):
    w = window
    path = tmp_path / "extra.json"
    path.write_text(json.dumps(_doc(projector="left", title="With extras")))
    messages = []
    w.show_message = lambda text, timeout_ms=4000: messages.append(text)
    assert w.classroom.open_path(path)
    assert w.title == "With extras" and w.classroom.info.title_text == "With extras"
    assert w.classroom.info.text.toPlainText().startswith("With extras")
    assert any("Unknown field 'projector'" in m for m in messages)


def test_save_open_recent_and_the_unsaved_guard(dialog_answers, qtbot, window, tmp_path, monkeypatch):
    w, files = window, window.classroom.files
    target = tmp_path / "lecture.json"
    w.scene.add_point(1.25, -0.5, 1)
    assert w.scene.modified
    assert files.save_to(target) and not w.scene.modified
    saved = load_preset(target)
    assert np.array_equal(saved.points.X, w.scene.points.X)
    assert str(target.resolve()) == w.classroom.prefs.recent_files[0]
    files.recent_menu.aboutToShow.emit()
    assert any(a.text().endswith("lecture.json") for a in files.recent_menu.actions())

    w.scene.add_point(3.0, 3.0, 0)
    dialog_answers.set(unsaved="cancel")
    assert not files.open_path(PRESET)
    assert w.scene.n == saved.points.n + 1  # still the edited scene
    w.close()
    assert w.isVisible()  # closing was cancelled too
    dialog_answers.set(unsaved="save")
    assert files.open_path(PRESET)
    assert load_preset(target).points.n == saved.points.n + 1  # saved before opening
    # a shipped example (inside the installed package) is never saved over: Save will ask for a new name
    assert w.scene.n == 80 and files.current_path is None


def test_ctrl_o_opens_and_ctrl_s_saves_over_the_file(dialog_answers, qtbot, window, tmp_path, monkeypatch):
    w = window
    path = tmp_path / "copy.json"
    save_preset(load_preset(SHIPPED_DIR / "xor-rbf.json"), path)
    dialog_answers.set(open_path=str(path))
    _key(qtbot, w, Qt.Key.Key_O, Qt.KeyboardModifier.ControlModifier)
    assert w.scene.n == 12 and w.classroom.files.current_path == path.resolve()
    assert "copy.json" in w.windowTitle()
    w.scene.move_point(0, 0.625, -0.375)
    assert w.scene.modified
    _key(qtbot, w, Qt.Key.Key_S, Qt.KeyboardModifier.ControlModifier)
    assert not w.scene.modified
    assert tuple(load_preset(path).points.X[0]) == (0.625, -0.375)


def test_open_example_lists_every_shipped_scene_and_never_saves_over_it(qtbot, window):
    from percviz.core.presets import shipped_presets

    files = window.classroom.files
    files.examples_menu.aboutToShow.emit()
    titles = [a.text() for a in files.examples_menu.actions()]
    assert len(titles) == len(shipped_presets()) >= 12
    xor = next(a for a in files.examples_menu.actions() if a.statusTip().endswith("xor-rbf.json"))
    xor.trigger()
    assert window.scene.n == 12 and files.current_path is None


def test_dropping_a_preset_and_a_csv_onto_the_window(qtbot, window, tmp_path):
    w = window
    csv = tmp_path / "three.csv"
    csv.write_text("x,y,label\n0,0,1\n1,1,-1\n2,0.5,1\n")
    for path, n in ((SHIPPED_DIR / "xor-rbf.json", 12), (csv, 3)):
        mime = QMimeData()
        mime.setUrls([QUrl.fromLocalFile(str(path))])
        enter = QDragEnterEvent(QPoint(200, 200), Qt.DropAction.CopyAction, mime, Qt.MouseButton.LeftButton,
                                Qt.KeyboardModifier.NoModifier)
        QApplication.sendEvent(w, enter)
        assert enter.isAccepted()
        event = QDropEvent(QPointF(200, 200), Qt.DropAction.CopyAction, mime, Qt.MouseButton.LeftButton,
                           Qt.KeyboardModifier.NoModifier)
        QApplication.sendEvent(w, event)
        assert event.isAccepted()
        qtbot.waitUntil(lambda n=n: w.scene.n == n, timeout=3000)
    assert w.scene.n == 3 and w.scene.settings.algorithm == "nkp"  # the CSV replaced the points only
    w.scene.undo()
    assert w.scene.n == 12


def test_export_picture_of_the_canvas_and_the_window_at_a_scale(qtbot, window, tmp_path):
    from PIL import Image

    w = window
    png = w.classroom.export_picture("canvas", tmp_path / "canvas.png", 2.0)
    size = w.panels["canvas"].size()
    assert Image.open(png).size == (2 * size.width(), 2 * size.height())
    svg = w.classroom.export_picture("window", tmp_path / "window.svg", 1.5)
    assert svg.read_text().lstrip().startswith("<?xml") and "<svg" in svg.read_text()


def test_export_animation_from_the_window_on_a_thread(qtbot, window, tmp_path):
    import imageio.v3 as iio

    w = window
    job = w.classroom.export_animation(tmp_path / "lecture.gif", start=2, end=6, fps=5, show_progress=False)
    with qtbot.waitSignal(job.finished, timeout=30000):
        pass
    assert iio.imread(tmp_path / "lecture.gif", index=None).shape[0] == 5


def test_cancel_in_the_progress_dialog_stops_the_export(qtbot, window, tmp_path):
    w = window
    out = tmp_path / "cancelled.mp4"
    job = w.classroom.export_animation(out, start=0, end=25, fps=10)
    dialog = w.classroom.animations.dialog
    assert dialog is not None and dialog.maximum() == 26
    cancel_button = dialog.findChild(QPushButton)
    assert cancel_button.text() == "Cancel"
    job.progress.connect(lambda done, total: cancel_button.click() if done == 2 else None)
    with qtbot.waitSignal(job.finished, timeout=30000) as blocker:
        pass
    assert blocker.args[0].cancelled and not out.exists()
    assert w.classroom.animations.dialog is None


def test_closing_the_window_stops_a_running_export(qtbot, window, tmp_path):
    w = window
    out = tmp_path / "closing.mp4"
    job = w.classroom.export_animation(out, start=0, end=25, fps=10, show_progress=False)
    with qtbot.waitSignal(job.progress, timeout=30000):
        pass
    assert job.running
    w.close()  # waits (at most export_dialogs.CLOSE_WAIT_S) for the export's thread, without an event loop
    assert not job.running
    assert job.result is not None and job.result.cancelled and job.result.frames < 26
    assert not out.exists() and not list(tmp_path.glob("closing*"))


# -- preferences, autosave, crash recovery ------------------------------------------------------------------

def test_title_and_explanation_edits_are_unsaved_work_that_autosave_keeps(qtbot, window):
    w = window
    w.classroom.set_info("Week 3: margins", "Watch the *margin* grow.")
    assert w.scene.modified and w.title == "Week 3: margins"
    assert w.classroom.info.text.toPlainText().startswith("Week 3: margins")
    saver = w.classroom.files.autosaver
    assert saver.save_now()
    kept = load_preset(saver.path)
    assert (kept.title, kept.explanation) == ("Week 3: margins", "Watch the *margin* grow.")


def test_preferences_persist_in_the_temporary_settings(qtbot, dirs):
    cfg, _ = dirs
    w = _make_window(qtbot)
    w.classroom.set_theme("dark")
    w.resize(w.width(), 560)
    QApplication.processEvents()
    w.close()
    assert list(cfg.rglob("*.ini"))
    w2 = _make_window(qtbot)
    assert w2.classroom.theme_name == "dark" and w2.panels["canvas"].theme.name == "dark"
    assert w2.height() == 560  # (restoreGeometry narrows the width to the small offscreen screen)
    assert w2.classroom.prefs.store.value("window/state") is not None
    w2.close()


def test_autosave_writes_the_unsaved_scene_and_a_clean_close_removes_it(qtbot, dirs):
    w = _make_window(qtbot)
    saver = w.classroom.files.autosaver
    w.scene.add_point(4.5, 4.5, 1)
    assert saver.save_now()
    assert load_preset(saver.path).points.n == 81
    w.close()
    assert not saver.path.exists()


CHILD = textwrap.dedent("""
    import sys, time
    from PySide6.QtWidgets import QApplication, QPushButton
    app = QApplication([])
    from percviz.app.main_window import MainWindow
    from percviz.core.presets import load_preset
    w = MainWindow()
    w.load_preset(load_preset(sys.argv[1]))
    w.show()
    w.scene.add_point(7.25, -3.5, 1)
    w.scene.add_point(-2.0, 6.0, 0)
    saver = w.classroom.files.autosaver
    end = time.monotonic() + 20
    while not saver.path.exists() and time.monotonic() < end:
        app.processEvents()
        time.sleep(0.01)
    print("autosaved", flush=True)
    while True:
        app.processEvents()
        time.sleep(0.05)
""")


def test_after_a_crash_the_next_start_offers_the_autosave(dialog_answers, qtbot, dirs, monkeypatch):
    _, data = dirs
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen", "PERCVIZ_AUTOSAVE_MS": "100"}
    env.pop("PYTEST_CURRENT_TEST", None)
    child = subprocess.Popen([sys.executable, "-c", CHILD, str(PRESET)], env=env, stdout=subprocess.PIPE,
                             stderr=subprocess.DEVNULL, text=True)
    try:
        line = child.stdout.readline()
        assert line.strip() == "autosaved"
    finally:
        child.send_signal(signal.SIGKILL)
        code = child.wait(10)  # Popen.wait: TimeoutExpired if it has not ended
    assert code == -signal.SIGKILL
    assert len(list((data / "autosave").glob("autosave-*.lock"))) == 1  # the dead process's lock is left

    offers = []

    def accept(orphan):
        offers.append(orphan)
        return True

    dialog_answers.set(restore=accept)
    w = _make_window(qtbot)
    qtbot.waitUntil(lambda: len(offers) == 1, timeout=5000)
    assert offers[0].title == load_preset(PRESET).title
    X = w.scene.points.X
    assert w.scene.n == 82 and tuple(X[-2]) == (7.25, -3.5) and tuple(X[-1]) == (-2.0, 6.0)
    assert w.scene.modified  # restored work is still unsaved
    assert not list((data / "autosave").glob("autosave-*.json")) or all(
        p == w.classroom.files.autosaver.path for p in (data / "autosave").glob("autosave-*.json")
        if not p.name.endswith(".meta.json"))
    w.close()
    w2 = _make_window(qtbot)
    QApplication.processEvents()
    assert len(offers) == 1  # offered once only
    w2.close()


def test_no_offer_after_a_clean_exit(dialog_answers, qtbot, dirs, monkeypatch):
    offers = []
    dialog_answers.set(restore=lambda orphan: offers.append(orphan) or False)
    w = _make_window(qtbot)
    w.scene.add_point(1, 1, 0)
    w.classroom.files.autosaver.save_now()
    w.close()
    w2 = _make_window(qtbot)
    QApplication.processEvents()
    time.sleep(0.05)
    QApplication.processEvents()
    assert offers == []
    w2.close()


# -- integration hooks ------------------------------------------------------------------------------------

def test_every_classroom_key_belongs_to_exactly_one_action(window):
    from PySide6.QtGui import QAction, QKeySequence

    owners: dict[str, list] = {}
    for a in window.findChildren(QAction):
        for seq in a.shortcuts():
            owners.setdefault(seq.toString(), []).append(a)
    for name, key in (("step", "Space"), ("play", "P"), ("reset", "R"), ("back", "Left"), ("forward", "Right"),
                      ("fit", "F"), ("undo", "Ctrl+Z"), ("redo", "Ctrl+Shift+Z"), ("save", "Ctrl+S"), ("open", "Ctrl+O")):
        text = QKeySequence(key).toString()
        assert owners.get(text) == [window.classroom.actions[name]], (key, owners.get(text))
    assert window.classroom.actions["step"] is window.step_action


def test_load_preset_signals_the_scene_and_the_info_panel_follows(qtbot, window):
    assert "load_preset" not in vars(window)  # the method is the class's, not a replacement on the instance
    preset = load_preset(SHIPPED_DIR / "xor-rbf.json")
    seen = []
    window.presetLoaded.connect(seen.append)
    window.load_preset(preset)
    assert seen == [preset]
    assert window.classroom.info.title_text == preset.title
    assert preset.title in window.windowTitle()
    window.classroom.set_info("A new title", "")
    assert window.scene.modified and window.windowTitle().startswith("A new title")


def test_launch_on_a_preset_file_ties_the_window_to_it(qtbot, dirs, tmp_path):
    import argparse

    from percviz.app.launch import open_window
    from percviz.app.prefs import Preferences

    path = tmp_path / "lecture.json"
    save_preset(load_preset(PRESET), path)
    args = argparse.Namespace(data=str(path), algorithm=None, kernel=None, features=None, params=[], max_iter=None,
                              steps=None, screenshot=None, panel=None)
    w = open_window(args)
    qtbot.addWidget(w)
    try:
        assert w.classroom.files.current_path == path.resolve()
        assert "lecture.json" in w.windowTitle() and not w.scene.modified
        assert str(path.resolve()) in [str(Path(p).resolve()) for p in Preferences().recent_files]
        w.scene.move_point(0, 0.25, 0.75)
        assert w.classroom.files.save()
        assert tuple(load_preset(path).points.X[0]) == (0.25, 0.75) and not w.scene.modified
        # a shipped example named on the command line is never tied to its file
        ex = open_window(argparse.Namespace(**{**vars(args), "data": str(PRESET)}))
        qtbot.addWidget(ex)
        assert ex.classroom.files.current_path is None
        ex.close()
    finally:
        w.close()
