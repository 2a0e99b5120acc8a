"""Issue 25, the lecturer's second trial, item 1: a theme or scale change restyles every visible text item, and the
menus, dialogs and the algorithm list follow a dark theme (on the real main window at 1280×800)."""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers import spin
from PySide6.QtGui import QAction, QColor, QPalette
from PySide6.QtWidgets import QApplication, QLabel, QMenu
from PySide6.QtCore import Qt

from percviz.core.presets import SHIPPED_DIR

pytestmark = [pytest.mark.filterwarnings("ignore::RuntimeWarning"), pytest.mark.slow]


def _action(w, text: str) -> QAction:
    return next(a for a in w.findChildren(QAction) if a.text() == text)


def _theme(w, name: str) -> None:
    w.findChild(QAction, f"theme_{name}").trigger()
    spin(0.2)


def _contrast(a: QColor, b: QColor) -> float:
    """WCAG contrast ratio of two colours (1 … 21)."""
    def lum(c: QColor) -> float:
        ch = [v / 255 for v in c.getRgb()[:3]]
        ch = [v / 12.92 if v <= 0.03928 else ((v + 0.055) / 1.055) ** 2.4 for v in ch]
        return 0.2126 * ch[0] + 0.7152 * ch[1] + 0.0722 * ch[2]
    hi, lo = sorted((lum(a), lum(b)), reverse=True)
    return (hi + 0.05) / (lo + 0.05)


@pytest.fixture
def thin_rbf(hall_window):
    """thin-margin with the Gaussian RBF kernel, run to its end (the caption then says the outcome)."""
    w = hall_window(SHIPPED_DIR / "thin-margin.json")
    box = w.controls.kernel
    box.setCurrentIndex(next(i for i in range(box.count()) if "RBF" in box.itemText(i)))
    w.session.wait_idle()
    w.session.run_to_end()
    w.session.wait_idle()
    spin(0.2)
    return w


def test_the_caption_line_follows_a_theme_and_a_scale_change(thin_rbf):
    w = thin_rbf
    note = w.classroom.caption.line_label
    w.classroom.actions["presentation"].trigger()
    spin(0.3)
    _action(w, "3×").trigger()
    spin(0.3)
    assert note.isVisible(), "at 3× thin-margin's caption leaves the plot for the title row"
    t = w.classroom.theme
    assert note.font().pointSizeF() == pytest.approx(0.8 * t.font_pt)
    _theme(w, "dark")
    t = w.classroom.theme
    assert t.dark and t.scale == 3.0
    fg = note.palette().color(note.foregroundRole())
    assert fg == QColor(t.foreground)
    assert _contrast(fg, QColor(t.panel)) > 7
    _action(w, "2×").trigger()
    spin(0.3)
    if note.isVisible():
        assert note.font().pointSizeF() == pytest.approx(0.8 * 10.0 * 2.0)
    assert note.font().pointSizeF() == pytest.approx(0.8 * w.classroom.theme.font_pt)


def test_every_visible_label_is_readable_after_dark_at_3x(thin_rbf):
    """No visible label of the window keeps a light theme's near-black text on the dark panel."""
    w = thin_rbf
    w.classroom.actions["presentation"].trigger()
    _action(w, "3×").trigger()
    _theme(w, "dark")
    panel = QColor(w.classroom.theme.panel)
    faint = []
    for label in w.findChildren(QLabel):
        if label.isVisible() and label.text().strip() and not label.styleSheet():
            fg = label.palette().color(QPalette.ColorGroup.Active, label.foregroundRole())
            if label.isEnabled() and _contrast(fg, panel) < 4.5:
                faint.append((label.objectName() or label.text()[:30], fg.name()))
    assert not faint


def test_menus_dialogs_and_the_algorithm_list_follow_the_dark_theme(thin_rbf):
    w = thin_rbf
    _theme(w, "dark")
    t = w.classroom.theme
    menu = next(m for m in w.findChildren(QMenu) if m.title() == "&File")
    assert menu.palette().color(QPalette.ColorRole.Window) == QColor(t.panel)
    assert menu.palette().color(QPalette.ColorRole.WindowText) == QColor(t.foreground)
    w.classroom.generate_dialog()
    dlg = w.classroom.generators_dialog
    try:
        assert dlg.palette().color(QPalette.ColorRole.Window) == QColor(t.panel)
        assert dlg.palette().color(QPalette.ColorRole.WindowText) == QColor(t.foreground)
    finally:
        dlg.reject()
    w.classroom.actions["presentation"].trigger()
    spin(0.2)
    combo = w.controls.algorithm
    model, view = combo.model(), combo.view()
    heads = [model.index(r, 0) for r in range(model.rowCount()) if model.index(r, 0).data(Qt.ItemDataRole.UserRole) is None]
    assert len(heads) >= 3
    item_pt = view.font().pointSizeF()
    assert item_pt >= 2 * 9
    for index in heads:
        font = index.data(Qt.ItemDataRole.FontRole)
        assert font.bold() and font.pointSizeF() == pytest.approx(item_pt), index.data()
        brush = index.data(Qt.ItemDataRole.ForegroundRole)
        assert _contrast(brush.color(), QColor(w.classroom.theme.background)) > 7, index.data()


def _icon_colors(button, mode) -> set[str]:
    """The colours of the opaque pixels of a button's icon as drawn in `mode`."""
    from PySide6.QtGui import QImage

    img = button.icon().pixmap(button.iconSize(), mode).toImage().convertToFormat(QImage.Format.Format_ARGB32)
    return {QColor(img.pixel(x, y)).name() for x in range(img.width()) for y in range(img.height())
            if QColor.fromRgba(img.pixel(x, y)).alpha() == 255}


def test_the_run_buttons_icons_follow_the_dark_theme(thin_rbf):
    """After Dark, a finished run's disabled Step/Play/Run-to-end icons are drawn in the theme's disabled-text
    colour (the style's own dimming made them near-black on the dark buttons), the enabled ones in its foreground."""
    from PySide6.QtGui import QIcon

    w = thin_rbf
    _theme(w, "dark")
    t = w.classroom.theme
    c = w.controls
    assert not c.step_button.isEnabled() and not c.play_button.isEnabled()
    for button in (c.step_button, c.play_button, c.run_button):
        colors = _icon_colors(button, QIcon.Mode.Disabled)
        assert colors == {QColor(t.disabled_text).name()}, (button.text(), colors)
        assert _contrast(QColor(t.disabled_text), QColor(t.panel)) > 2
        assert _icon_colors(button, QIcon.Mode.Normal) == {QColor(t.foreground).name()}
    _theme(w, "light")
    light = w.classroom.theme
    assert _icon_colors(c.play_button, QIcon.Mode.Disabled) == {QColor(light.disabled_text).name()}


def test_log_boxes_made_after_a_dark_theme_are_seen(qtbot, tmp_path, monkeypatch):
    """A scene opened and shown dark and presenting at once: the curves' log boxes, made at the curves' first draw
    after the theme's restyle, take its check-box style (they were Fusion's black squares on the dark panel)."""
    from percviz.app.main_window import MainWindow
    from percviz.core.presets import load_preset

    monkeypatch.setenv("PERCVIZ_CONFIG_DIR", str(tmp_path / "config"))  # the dark theme is saved as a preference:
    monkeypatch.setenv("PERCVIZ_DATA_DIR", str(tmp_path / "data"))  # in this test's folders, not the next window's
    w = MainWindow()
    qtbot.addWidget(w)
    w.load_preset(load_preset(SHIPPED_DIR / "concentric-circles-rbf.json"))
    w.resize(1280, 800)
    w.show()
    w.classroom.set_theme("dark")
    w.classroom.set_presentation_scale(2.0)
    w.classroom.set_presentation(True)
    spin(0.5)
    w.session.wait_idle()
    w.session.step()
    w.session.wait_idle()
    spin(0.5)
    sheet = w.classroom.theme.field_style_sheet("check")
    boxes = list(w.panels["curves"].log_boxes.values())
    assert sheet and boxes and all(b.styleSheet() == sheet for b in boxes), [b.text() for b in boxes
                                                                              if b.styleSheet() != sheet]


# -- item 2: no view vanishes, none lingers ---------------------------------------------------------------------

def _shown(w, name: str) -> bool:
    return w.docks[name].isVisible()


def test_the_f5_sequence_keeps_every_ticked_view_shown(hall_window):
    """thin-margin (SNKP), F5, Fixed-increment in the presentation bar (the weight view appears), F5 again."""
    w = hall_window(SHIPPED_DIR / "thin-margin.json")
    c = w.classroom
    c.actions["presentation"].trigger()
    spin(0.3)
    box = c.presentation_layout.bar.algorithm
    i = next(i for i in range(box.count()) if box.itemData(i, Qt.ItemDataRole.UserRole) == "fixed-increment")
    box.setCurrentIndex(i)
    box.activated.emit(i)  # as a choice in its list
    w.session.wait_idle()
    spin(0.3)
    assert w.scene.settings.algorithm == "fixed-increment"
    assert _shown(w, "weight")
    c.actions["presentation"].trigger()
    spin(0.8)  # the desk layout's two restores (the second after FIT_SETTLE_MS × 2)
    for name, act in w.view_actions.items():
        if name in w.docks and act.isChecked() and act.isEnabled():
            assert _shown(w, name), f"View ▸ {act.text()} is ticked but its dock is hidden"
    assert _shown(w, "weight")


def test_a_dock_the_last_example_opened_closes_with_the_next(hall_window):
    w = hall_window(SHIPPED_DIR / "thin-margin.json")
    files = w.classroom.files
    assert files.open_example(SHIPPED_DIR / "xor-linear-certificate.json")
    spin(0.2)
    assert _shown(w, "feature")
    assert files.open_example(SHIPPED_DIR / "notes-1d-four-samples.json")
    spin(0.2)
    assert not _shown(w, "feature") and not w.view_actions["feature"].isChecked()
    assert _shown(w, "weight")


# -- item 5: nothing stale after a scene change ---------------------------------------------------------------

def test_generate_replace_gives_an_untitled_scene(dialog_answers, hall_window, tmp_path, monkeypatch):
    from percviz.app.classroom.generators_dialog import apply_generated
    from percviz.core.presets import load_preset

    w = hall_window(SHIPPED_DIR / "input-space-margin.json")
    old_title = load_preset(SHIPPED_DIR / "input-space-margin.json").title
    assert old_title and w.title == old_title
    assert apply_generated(w, "moons", n=60, noise=0.1, seed=3)
    w.session.wait_idle()
    assert w.title != old_title and not w.explanation
    assert old_title not in w.windowTitle()
    asked = []
    target = tmp_path / "moons.json"
    dialog_answers.set(save_path=lambda title, path, filters: asked.append(path) or str(target))
    assert w.classroom.files.save()
    words = old_title.lower().split()[:2]
    assert not all(word in asked[0].lower() for word in words), asked[0]
    saved = load_preset(target)
    assert saved.title != old_title and not saved.explanation and saved.points.n == 60


def test_max_iterations_follow_the_algorithm_unless_set_for_it(hall_window):
    from percviz.core.solvers import get_solver

    w = hall_window(SHIPPED_DIR / "input-space-margin.json")
    assert w.scene.settings.max_iter == 51  # the example's own limit
    for name in ("nkp", "fixed-increment"):
        w.controls.select_algorithm(name)
        w.session.wait_idle()
        assert w.scene.settings.max_iter == get_solver(name).default_max_iter, name
        assert w.controls.max_iter.value() == w.scene.settings.max_iter
    w.controls.max_iter.setValue(777)  # set by hand for Fixed-increment
    assert w.scene.settings.max_iter == 777
    w.controls.select_algorithm("nkp")
    w.session.wait_idle()
    assert w.scene.settings.max_iter == get_solver("nkp").default_max_iter
    w.controls.select_algorithm("fixed-increment")
    w.session.wait_idle()
    assert w.scene.settings.max_iter == 777


def test_an_example_leaves_the_users_last_folder(dialog_answers, hall_window, tmp_path, monkeypatch):

    w = hall_window(SHIPPED_DIR / "thin-margin.json")
    mine = tmp_path / "lectures"
    mine.mkdir()
    w.classroom.files.save_to(mine / "a.json")
    assert w.classroom.files.open_path(mine / "a.json", confirm=False)
    assert w.classroom.files.open_example(SHIPPED_DIR / "xor-rbf.json")
    stored = w.classroom.prefs.store.value("files/last_folder")
    assert Path(stored).resolve() == mine.resolve()
    seen = []
    dialog_answers.set(open_path=lambda title, folder, filters: seen.append(folder) or "")
    w.classroom.files.open_dialog()
    assert seen and Path(seen[0]).resolve() == mine.resolve()


# -- item 6: words ---------------------------------------------------------------------------------------------

def test_an_svm_at_iteration_0_says_it_is_the_start(hall_window):
    from percviz.core.glossary import margin_term
    from percviz.core.solvers import by_family

    w = hall_window(SHIPPED_DIR / "thin-margin.json")
    box = w.controls.kernel
    box.setCurrentIndex(next(i for i in range(box.count()) if "RBF" in box.itemText(i)))
    w.session.wait_idle()
    svms = [c for cs in by_family().values() for c in cs
            if margin_term(c).key == "svm" and c.representation == "kernel"]
    assert svms
    starts = 0
    for cls in svms:
        w.controls.select_algorithm(cls.name)
        w.session.wait_idle()
        w.session.reset()
        w.session.wait_idle()
        spin(0.1)
        assert w.session.current.iteration == 0
        text = w.controls.status.text()
        assert "optimum" not in text and "another kernel" not in text, (cls.name, text)
        m = dict(w.session.current.metrics)
        if m.get("weight_reach", m.get("weight_norm", 1.0)) < 1e-6:  # α = 0 at the start (not the input-space SVM's)
            assert "Iteration 0 is the start" in text, (cls.name, text)
            starts += 1
    assert starts >= 1


def test_the_glossary_counts_the_margins_it_lists():
    import re

    from percviz.app.classroom.help_page import glossary_html

    page = glossary_html()
    margins = page.split("<h2>How a run ends</h2>")[0]
    listed = margins.count("<tr>")
    words = {"two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8, "nine": 9, "ten": 10}
    said = re.search(r"<p>(\w+) different numbers are called a margin", margins).group(1).lower()
    assert words.get(said, said) == listed == 6


# -- item 8: multi-class markers -------------------------------------------------------------------------------

def test_multi_class_scenes_draw_no_plus_or_minus(hall_window):
    w = hall_window(SHIPPED_DIR / "three-class-linear-machine.json")
    spin(0.2)
    canvas = w.panels["canvas"]
    data = canvas.points_item.data
    by_class = {}
    for c, sym in zip(w.scene.points.classes, data["symbol"]):
        by_class.setdefault(int(c), set()).add(str(sym))
    assert len(by_class) == 3 and all(len(s) == 1 for s in by_class.values())
    shapes = [next(iter(s)) for _c, s in sorted(by_class.items())]
    assert len(set(shapes)) == 3 and not {"+", "_"} & set(shapes), shapes
    w.classroom.files.open_example(SHIPPED_DIR / "thin-margin.json")  # two classes again: + and −
    w.session.wait_idle()
    spin(0.2)
    assert canvas.solver_cls.representation != "multiclass"
    assert not {"o", "s", "t"} & {str(s) for s in canvas.points_item.data["symbol"]}


def test_one_large_view_gives_the_canvas_its_height(hall_window):
    w = hall_window(SHIPPED_DIR / "xor-linear-certificate.json")  # canvas, curves and the feature view
    w.session.wait_idle()
    spin(0.3)
    canvas, curves = w.panels["canvas"], w.panels["curves"]
    next(a for a in w.findChildren(QAction) if a.text() == "&2×2 grid").trigger()  # the grid halves the split
    spin(0.4)
    next(a for a in w.findChildren(QAction) if a.text() == "&One large view").trigger()
    spin(0.4)
    assert canvas.height() >= 2 * curves.height(), (canvas.height(), curves.height())
    next(a for a in w.findChildren(QAction) if a.text() == "&2×2 grid").trigger()
    spin(0.4)
    w.layouts.toggle_maximise("canvas")
    spin(0.3)
    assert canvas.height() >= 2 * curves.height(), (canvas.height(), curves.height())


# -- item 7: text whole at 3× ----------------------------------------------------------------------------------

@pytest.mark.parametrize("scale", ["2×", "3×"])
def test_the_status_bar_readouts_are_whole_and_apart_at_scale(hall_window, scale):
    from PySide6.QtGui import QFontMetrics

    w = hall_window(SHIPPED_DIR / "thin-margin.json")
    w.classroom.actions["presentation"].trigger()
    _action(w, scale).trigger()
    spin(0.3)
    w._on_cursor(-12.512, 1.245)
    spin(0.1)
    cur, pts = w.cursor_label, w.points_label
    for label in (cur, pts):
        fm = QFontMetrics(label.font())
        assert label.contentsRect().width() >= fm.horizontalAdvance(label.text().strip()), label.text()
    fm = QFontMetrics(pts.font())
    gap = pts.geometry().left() + fm.horizontalAdvance(pts.text()) - fm.horizontalAdvance(pts.text().lstrip()) \
        - cur.geometry().right()
    assert gap >= fm.horizontalAdvance(" "), gap  # never '1.24542 +'


# -- long exports show progress at once and can be cancelled ------------------------------------------------------

def test_an_animation_export_shows_its_progress_at_once(qtbot, hall_window, tmp_path):
    from PySide6.QtWidgets import QPushButton

    w = hall_window(SHIPPED_DIR / "thin-margin.json")
    out = tmp_path / "hall.gif"
    job = w.classroom.export_animation(out, start=0, end=12, fps=5)
    dialog = w.classroom.animations.dialog
    assert dialog is not None and dialog.isVisible()  # before the first frame is rendered
    assert dialog.findChild(QPushButton).text() == "Cancel"
    job.progress.connect(lambda done, total: dialog.findChild(QPushButton).click() if done == 2 else None)
    with qtbot.waitSignal(job.finished, timeout=30000) as blocker:
        pass
    assert blocker.args[0].cancelled and not out.exists()


def test_the_curves_forget_the_last_scenes_range(hall_window):
    """An SVM's margin is undefined at iteration 0: after Generate ▸ Replace its plot must not keep the range of
    the scene before (it showed −0.4…0.14 of a run that is gone)."""
    from percviz.app.classroom.generators_dialog import apply_generated

    w = hall_window(SHIPPED_DIR / "xor-rbf.json")
    w.controls.select_algorithm("svm")
    w.session.wait_idle()
    w.session.run_to_end()
    w.session.wait_idle()
    spin(0.3)
    curves = w.panels["curves"]
    plot = curves.plots["margins"]
    old = plot.vb.viewRange()[1]
    assert curves._y_span("margins") is not None
    assert apply_generated(w, "moons", n=40, noise=0.1, seed=1)
    w.session.wait_idle()
    spin(0.4)
    assert w.session.current.iteration == 0
    new = plot.vb.viewRange()[1]
    assert new != pytest.approx(old, abs=1e-3), (old, new)


@pytest.mark.parametrize("scale", ["desk", "2×"])
def test_slack_labels_cover_no_other_marker_nor_each_other(hall_window, scale):
    from PySide6.QtCore import QPointF, QRectF

    w = hall_window(SHIPPED_DIR / "thin-margin.json")
    box = w.controls.kernel
    box.setCurrentIndex(next(i for i in range(box.count()) if "RBF" in box.itemText(i)))
    w.controls.select_algorithm("svm")
    w.session.wait_idle()
    if scale != "desk":
        w.classroom.actions["presentation"].trigger()
        _action(w, scale).trigger()
    w.session.run_to_end()
    w.session.wait_idle()
    spin(0.5)
    canvas = w.panels["canvas"]
    labels = [lab for lab in canvas.slack_labels if lab.isVisible()]
    assert labels, "the soft margin leaves slacks on thin-margin with RBF"
    boxes = [lab.mapRectToScene(lab.textItem.mapRectToParent(lab.textItem.boundingRect())) for lab in labels]
    view = canvas.viewbox.sceneBoundingRect()
    r = 0.4 * canvas.theme.marker_size * 1.35
    centres = [canvas.viewbox.mapViewToScene(QPointF(float(x), float(y))) for x, y in w.scene.points.X]
    for lab, b in zip(labels, boxes):
        assert view.contains(b), lab.textItem.toPlainText()
        own = canvas.viewbox.mapViewToScene(lab.pos())
        for c in centres:
            if abs(c.x() - own.x()) < r and abs(c.y() - own.y()) < r:
                continue  # its own point, or one drawn on top of it (thin-margin's overlapping + and −)
            assert not b.intersects(QRectF(c.x() - r, c.y() - r, 2 * r, 2 * r)), lab.textItem.toPlainText()
    for i, a in enumerate(boxes):
        for b in boxes[i + 1:]:
            assert not a.intersects(b)


@pytest.mark.parametrize("scale", ["desk", "2×", "3×"])
def test_the_colour_bars_name_is_whole_within_the_bar(hall_window, scale):
    w = hall_window(SHIPPED_DIR / "xor-linear-certificate.json")  # its certificate: 'f(x) ≈ 0 (certificate)'
    if scale != "desk":
        w.classroom.actions["presentation"].trigger()
        _action(w, scale).trigger()
    w.session.run_to_end()
    w.session.wait_idle()
    spin(0.5)
    _theme(w, "dark")  # a restyle at the same size: the bar's name is set again without a resize
    spin(0.5)
    canvas = w.panels["canvas"]
    axis = canvas.colorbar.axis
    assert axis.labelText.startswith("f(x)")
    name = axis.label.mapRectToScene(axis.label.boundingRect())
    bar = axis.mapRectToScene(axis.boundingRect())
    seen = canvas.plot.mapToScene(canvas.plot.viewport().rect()).boundingRect()
    assert bar.top() - 1 <= name.top() and name.bottom() <= bar.bottom() + 1, (name, bar)
    assert seen.top() - 1 <= name.top() and name.bottom() <= seen.bottom() + 1, (name, seen)
