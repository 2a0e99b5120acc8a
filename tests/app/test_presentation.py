"""Presentation mode on the real window at 1280×800: a compact bar with nothing elided, the desk layout restored."""

from __future__ import annotations

import numpy as np
import pytest
from helpers import settle
from PySide6.QtCore import QPoint, QRect, Qt
from PySide6.QtGui import QFontMetrics
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QComboBox, QLabel, QStyle, QStyleOptionComboBox, QToolButton

from percviz.core.presets import SHIPPED_DIR



@pytest.fixture
def window(hall_window):
    return hall_window(SHIPPED_DIR / "default.json")


def _elided(widget) -> str:
    """'' when the widget shows its whole text, else what does not fit."""
    if isinstance(widget, QComboBox):
        opt = QStyleOptionComboBox()
        widget.initStyleOption(opt)
        field = widget.style().subControlRect(QStyle.ComplexControl.CC_ComboBox, opt,
                                              QStyle.SubControl.SC_ComboBoxEditField, widget)
        need = QFontMetrics(widget.font()).horizontalAdvance(widget.currentText().strip())
        return "" if need <= field.width() else f"{widget.currentText()!r}: {need} > {field.width()}"
    text = widget.text().replace("&", "")
    need = QFontMetrics(widget.font()).horizontalAdvance(text)
    room = widget.contentsRect().width()
    return "" if need <= room else f"{text!r}: {need} > {room}"


def test_presentation_bar_at_2x_shows_every_text_whole(qtbot, window):
    w = window
    QTest.keyClick(w, Qt.Key.Key_F5)
    settle()
    assert w.classroom.presenting and w.classroom.scale >= 2.0
    bar = w.classroom.presentation_layout.bar
    assert bar.isVisible() and not w.docks["controls"].isVisible()
    shown = [x for x in bar.findChildren(QComboBox) + bar.findChildren(QToolButton) + bar.findChildren(QLabel)
             if x.isVisible() and x.objectName().startswith("presentation")]
    names = {x.objectName() for x in shown}
    for needed in ("presentation_algorithm", "presentation_step", "presentation_play", "presentation_reset",
                   "presentation_live", "presentation_iteration"):
        assert needed in names, needed  # on the bar, not in an overflow menu
    for x in shown:
        assert not _elided(x), (x.objectName(), _elided(x))
        assert bar.rect().contains(QRect(x.mapTo(bar, QPoint(0, 0)), x.size())), x.objectName()
    assert w.classroom.theme.font_pt >= 2 * 9  # the type really is presentation-sized
    assert "iteration" in bar.iteration.text()


def test_the_bar_drives_the_run(qtbot, window):
    w = window
    w.classroom.live.set_on(False)
    w.classroom.set_presentation(True)
    settle()
    bar = w.classroom.presentation_layout.bar
    w.session.reset()
    w.session.wait_idle()
    QTest.mouseClick(bar.buttons["step"], Qt.MouseButton.LeftButton)
    w.session.wait_idle()
    assert w.session.current.iteration == 1 and bar.iteration.text() == "iteration 1"
    QTest.mouseClick(bar.buttons["live"], Qt.MouseButton.LeftButton)
    assert w.classroom.live.on


@pytest.mark.parametrize("views", [(), ("weight", "feature")])
def test_leaving_presentation_restores_the_layout_exactly(qtbot, window, views):
    w = window
    from PySide6.QtWidgets import QDockWidget

    for name in views:
        w.view_actions[name].setChecked(True)
        w.docks[name].show()

    def docks():
        return {d.objectName(): (d.isVisible(), d.geometry().getRect()) for d in w.findChildren(QDockWidget)}

    settle()
    QTest.qWait(2 * w.layouts.FIT_DELAY_MS)  # the small-screen fit runs once the plots have settled: the desk layout
    settle()
    before_docks = docks()
    before_status = w.statusBar().height()
    before_width = w.docks["controls"].width()
    for _ in range(2):
        QTest.keyClick(w, Qt.Key.Key_F5)
        settle()
        QTest.keyClick(w, Qt.Key.Key_F5)
        settle()
    QTest.qWait(2 * w.layouts.FIT_DELAY_MS)
    settle()
    assert not w.classroom.presenting
    assert w.docks["controls"].isVisible() and w.docks["controls"].width() == before_width
    after = docks()
    assert after.keys() == before_docks.keys()
    for name, (visible, (x, y, width, height)) in before_docks.items():
        v2, (x2, y2, w2, h2) = after[name]
        assert v2 == visible, name
        if visible:  # exactly: the info dock came back a few pixels off before
            assert (x2, y2, w2, h2) == (x, y, width, height), (name, after[name], before_docks[name])
    assert not w.classroom.presentation_layout.bar.isVisible()
    assert w.statusBar().height() == before_status  # it kept the presentation font's 33 px before the fix


def test_the_caption_never_covers_a_data_point(qtbot, window):
    w = window
    w.classroom.set_presentation_scale(3.0)
    w.classroom.set_presentation(True)
    settle()
    cap = w.classroom.caption
    canvas = w.panels["canvas"]
    vp = canvas.plot.viewport()
    X = w.scene.points.X
    assert vp.isAncestorOf(cap) or cap.parentWidget().isAncestorOf(vp)
    if cap.isVisible():
        top = cap.parentWidget()
        rect = cap.geometry()
        for x, y in X:
            p = canvas.view_to_widget(float(x), float(y))
            q = vp.mapTo(top, QPoint(round(p.x()), round(p.y())))
            assert not rect.contains(q), (x, y)


def _covered_points(w) -> list:
    """Data points under the run caption on the canvas (none when it is not on the plot)."""
    cap, canvas = w.classroom.caption, w.panels["canvas"]
    if not cap.isVisible():
        return []
    vp, top, rect = canvas.plot.viewport(), cap.parentWidget(), cap.geometry()
    out = []
    for x, y in w.scene.points.X:
        p = canvas.view_to_widget(float(x), float(y))
        if rect.contains(vp.mapTo(top, QPoint(round(p.x()), round(p.y())))):
            out.append((x, y))
    return out


@pytest.mark.parametrize("scale", [2.0, 3.0])
@pytest.mark.parametrize("preset", ["default.json", "thin-margin.json"])
def test_the_presentation_caption_says_the_outcome_and_which_margin_without_covering_a_point(
        qtbot, hall_window, preset, scale):
    from percviz.core.glossary import margin_term, outcome

    w = hall_window(SHIPPED_DIR / preset)
    w.classroom.set_presentation_scale(scale)
    w.classroom.set_presentation(True)
    w.session.run_to_end()
    w.session.wait_idle()
    settle()
    snap = w.session.current
    assert snap.status.done
    cap, note = w.classroom.caption, w.classroom.caption.line_label
    said = cap.plain_text if cap.isVisible() else note.shown_text if note.isVisible() else ""
    words = outcome(snap.status, dict(snap.metrics)).words  # "separator found"
    symbol = margin_term(w.session.solver_cls).symbol  # "m(α)"
    assert words in said and f"{symbol} = " in said, (said, cap.isVisible(), note.isVisible())
    assert not _covered_points(w)
    assert w.width() == 1280  # the caption in the title row never widens the window
    if note.isVisible():  # off the plot: in the canvas's title row, whole, in place of the title
        assert not w.panels["canvas"].title.isVisible()
        assert QFontMetrics(note.font()).horizontalAdvance(note.shown_text) <= note.contentsRect().width()
    w.classroom.set_presentation(False)
    settle()
    assert not note.isVisible() and w.panels["canvas"].title.isVisible()  # the desk: the caption is on the plot


def test_tab_titles_and_the_curves_title_are_never_elided_at_2x(qtbot, hall_window):
    from PySide6.QtWidgets import QTabBar

    from percviz.app.layouts import GEOMETRY, SHORT_TITLES

    w = hall_window(SHIPPED_DIR / "thin-margin.json")
    w.scene.set_settings(algorithm="fixed-increment", kernel="affine", features="linear", params={}, max_iter=20000)
    for name in GEOMETRY:
        w.view_actions[name].setChecked(True)
        w.docks[name].show()
    w.session.wait_idle()
    full = {n: w.docks[n].windowTitle() for n in GEOMETRY}

    def tab_bars():
        return [b for b in w.findChildren(QTabBar) if b.parent() is w and b.isVisible() and b.count() > 1]

    def whole(bar):
        """'' when every tab shows its whole title inside the bar (no "Weight s…", no scroll arrows), else why not."""
        for i in range(bar.count()):
            r, text = bar.tabRect(i), bar.tabText(i)
            need = bar.tabSizeHint(i).width()  # the style's padding + QFontMetrics' advance of the title
            if r.width() < need or not bar.rect().contains(r):
                return f"{text!r}: {r.width()} px of {need}, tab {r.getRect()} in bar {bar.rect().getRect()}"
        return ""

    dock = w.docks["weight"]
    name = {t: n for n in GEOMETRY for t in (full[n], SHORT_TITLES[n])}

    def fits_full(bar):
        """Whether the full titles would fit the bar whole (the style's padding + QFontMetrics' advance of each)."""
        fm, titles = QFontMetrics(bar.font()), [bar.tabText(i) for i in range(bar.count())]
        need = sum(bar.tabSizeHint(i).width() - fm.horizontalAdvance(t) + fm.horizontalAdvance(full[name[t]])
                   for i, t in enumerate(titles))
        return need <= bar.width()

    def titles(bar):
        return {bar.tabText(i) for i in range(bar.count())}

    # 2× presentation with the geometry column 320 px wide (as the small-screen fit leaves it at 1280×800 after a
    # run), then 560 px, then the desk
    qtbot.waitUntil(lambda: bool(tab_bars()), timeout=10000)
    chosen = name[tab_bars()[0].tabText(tab_bars()[0].currentIndex())]
    for presenting, column in ((True, 320), (True, 560), (False, None)):
        if presenting != w.classroom.presenting:
            QTest.keyClick(w, Qt.Key.Key_F5)
        pt = 18 if presenting else 12  # the bar has the presentation font (2 × 10 pt), or the desk's again

        def settled():
            """The tab bars have the mode's font, their titles are whole words, whole in their tabs, and the
            full ones wherever those fit (the fit runs once the plots stop resizing)."""
            bars = tab_bars()
            return bool(bars) and all(
                (b.font().pointSizeF() >= pt) == presenting and not whole(b) and titles(b) <= set(name)
                and titles(b) == ({full[n] for n in GEOMETRY} if fits_full(b) else set(SHORT_TITLES.values()))
                for b in bars)

        qtbot.waitUntil(lambda: bool(tab_bars()), timeout=10000)
        if column:
            w.resizeDocks([dock], [column], Qt.Orientation.Horizontal)
            qtbot.waitUntil(lambda: abs(dock.width() - column) < 12, timeout=5000)
        qtbot.waitUntil(settled, timeout=10000)
        bar = tab_bars()[0]
        if column == 320:
            assert not fits_full(bar) and titles(bar) == {"Weights", "Features"}  # 2× at 1280×800: the short ones
        else:
            assert fits_full(bar) and titles(bar) == {"Weight space", "Feature space"}  # wider, and the desk
        assert name[bar.tabText(bar.currentIndex())] == chosen  # retitled tabs still show the view that was shown
        title = w.panels["curves"].title
        fm = QFontMetrics(title.font())
        assert title.shown_text in (title.text(), title.text().split("  ")[0], "")
        assert fm.horizontalAdvance(title.shown_text) <= title.width()


def test_the_caption_never_shows_a_cut_algorithm_name_when_presenting(qtbot, hall_window):
    """2× at 1920×1080: "Fixed-increment single-sampl…" on the plot before; the bar names the algorithm whole."""
    w = hall_window(SHIPPED_DIR / "thin-margin.json")
    w.scene.set_settings(algorithm="fixed-increment", kernel="affine", features="linear", params={}, max_iter=20000)
    w.resize(1920, 1080)
    w.session.wait_idle()
    w.session.advance_sync(300)
    cap = w.classroom.caption
    w.classroom.set_presentation(True)
    settle()
    qtbot.waitUntil(lambda: "iteration 300" in cap.plain_text, timeout=10000)
    assert cap.isVisible() and "iteration 300" in cap.text()
    assert "…" not in cap.text(), cap.text()  # what the label draws (plain_text is the whole wording)
    assert w.classroom.presentation_layout.bar.isVisible()
    w.classroom.set_presentation(False)
    settle()
    assert "Fixed-increment single-sampl" in cap.text()  # the desk keeps the name, shortened where it must be


def test_a_certificate_caption_off_the_plot_keeps_its_outcome(qtbot, hall_window):
    """At 2× in 1280×800 the XOR certificate scene (feature view docked) has its caption in the title row; it
    said only "m(α) = -0.6454", dropping "certificate of non-separability", the one thing the scene is about."""
    w = hall_window(SHIPPED_DIR / "xor-linear-certificate.json")
    w.classroom.set_presentation(True)
    w.session.run_to_end()
    w.session.wait_idle()
    settle()
    assert w.session.current.status.value == "certificate"
    cap, note = w.classroom.caption, w.classroom.caption.line_label
    said = cap.plain_text if cap.isVisible() else note.shown_text if note.isVisible() else ""
    assert "certificate of non-separability" in said, (said, cap.isVisible(), note.isVisible())
    assert "…" not in said
    assert not _covered_points(w)


def test_f5_f5_keeps_the_geometry_views_open_and_leaves_no_ghost_tab_bar(qtbot, hall_window):
    """Leaving presentation restored the dock state, and Qt's restoreState (a) hid and showed the docks, which the
    window took as the user closing the weight and feature views (the next algorithm change closed them), and
    (b) left the old tab bars shown: a second, presentation-sized row of tabs under the real one."""
    from PySide6.QtWidgets import QTabBar

    w = hall_window(SHIPPED_DIR / "thin-margin.json")
    w.controls.select_algorithm("fixed-increment")
    w.view_actions["feature"].setChecked(True)
    settle()

    def shown_bars():
        return [b for b in w.findChildren(QTabBar) if b.parent() is w and b.count() and b.isVisible()]

    qtbot.waitUntil(lambda: len(shown_bars()) == 1, timeout=5000)  # 1280×800: the geometry views are tabs
    QTest.qWait(1000)  # and every deferred layout has run
    for _ in range(2):
        for _ in range(2):
            QTest.keyClick(w, Qt.Key.Key_F5)
            settle()
            QTest.qWait(500)  # the small-screen fit and the deferred desk restores have run
            settle()
        assert not w.classroom.presenting
        assert len(shown_bars()) == 1, [b.geometry() for b in shown_bars()]
        assert all(w.view_actions[n].isChecked() for n in ("weight", "feature"))
    w.controls.select_algorithm("perceptron")
    w.session.wait_idle()
    settle()
    assert w.docks["weight"].isVisible() or w.docks["feature"].isVisible()  # one is the raised tab
    assert not w.docks["weight"].isHidden() and not w.docks["feature"].isHidden()


def _boundary_under_caption(w) -> int:
    """How many points of the drawn boundary line (sampled every pixel or so) lie under the caption on the plot."""
    cap, canvas = w.classroom.caption, w.panels["canvas"]
    if not cap.isVisible():
        return 0
    x, y = canvas.boundary_curve.getData()
    if x is None or len(x) < 2:
        return 0
    vp, top, rect = canvas.plot.viewport(), cap.parentWidget(), cap.geometry()
    hits = 0
    for (x0, y0), (x1, y1) in zip(zip(x[:-1], y[:-1]), zip(x[1:], y[1:])):
        if not np.isfinite([x0, y0, x1, y1]).all():
            continue
        for t in np.linspace(0.0, 1.0, 4000):
            p = canvas.view_to_widget(float(x0 + t * (x1 - x0)), float(y0 + t * (y1 - y0)))
            hits += rect.contains(vp.mapTo(top, QPoint(round(p.x()), round(p.y()))))
    return hits


@pytest.mark.parametrize("size, presenting", [((1920, 1080), True), ((1920, 1080), False), ((1280, 800), False)])
def test_the_caption_leaves_the_finished_boundary_in_view_when_a_corner_allows(qtbot, hall_window, size, presenting):
    """The caption's translucent box dimmed the boundary line where it crossed the box (default scene, 2× at
    1920×1080): among the corners free of points it now takes one the line misses."""
    w = hall_window(SHIPPED_DIR / "default.json")
    w.view_actions["feature"].setChecked(True)  # as a lecturer opens it: the canvas is narrower
    w.resize(*size)
    settle()
    w.classroom.set_presentation(presenting)
    w.session.run_to_end()
    w.session.wait_idle()
    settle()
    QTest.qWait(300)
    settle()
    assert w.session.current.status.done
    assert w.classroom.caption.isVisible()
    assert not _covered_points(w)
    assert _boundary_under_caption(w) == 0


@pytest.mark.parametrize("size", [(1280, 800), (1920, 1080)])
def test_presenting_the_caption_never_cuts_the_algorithm_name(qtbot, hall_window, size):
    """At 2× the caption read "Fixed-increme…" (1280×800) and "Fixed-increment single-sampl…" (1920×1080): the
    presentation bar names the algorithm whole, so a name that does not fit is left out of the caption."""
    w = hall_window(SHIPPED_DIR / "thin-margin.json")
    w.resize(*size)
    w.controls.select_algorithm("fixed-increment")
    w.view_actions["feature"].setChecked(True)
    settle()
    w.classroom.set_presentation(True)
    QTest.qWait(2 * w.layouts.FIT_DELAY_MS)
    w.session.wait_idle()
    settle()
    cap, note = w.classroom.caption, w.classroom.caption.line_label
    said = cap.plain_text if cap.isVisible() else note.shown_text if note.isVisible() else ""
    assert "iteration" in said and "…" not in said, said
    assert w.classroom.presentation_layout.bar.algorithm.currentText().strip().startswith("Fixed-increment single-sample")
    w.classroom.set_presentation(False)
    settle()
    assert "Fixed-increment" in cap.plain_text  # at the desk it is still named (shortened if need be)
