"""Presenting in a short window: the canvas keeps a plot a hall can read (curves under a tab), nothing is elided,
and leaving presentation restores the desk exactly."""

from __future__ import annotations

import pytest
from helpers import settle
from PySide6.QtCore import Qt
from PySide6.QtGui import QFontMetrics
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QDockWidget, QLabel, QTabBar, QToolButton

from percviz.core.presets import SHIPPED_DIR



def _settle(ms: int = 400):
    QTest.qWait(ms)  # the fold's own timer first
    settle()


def _plot_height(w) -> float:
    return w.panels["canvas"].viewbox.sceneBoundingRect().height()


def _cut_tabs(bar: QTabBar) -> list[str]:
    """Tabs narrower than their whole title needs (style padding + QFontMetrics' advance), or outside the bar."""
    out = []
    for i in range(bar.count()):
        r = bar.tabRect(i)
        if r.width() < bar.tabSizeHint(i).width() or not bar.rect().contains(r):
            out.append(f"{bar.tabText(i)!r}: {r.width()} < {bar.tabSizeHint(i).width()}")
    return out


def _cut_texts(w) -> list[str]:
    """Every one-line text the hall sees that does not fit its widget: the bars, the tab bars, the canvas's title row
    and the status bar."""
    from tests.app.test_presentation import _elided

    out = []
    bar = w.classroom.presentation_layout.bar
    widgets = bar.findChildren(QToolButton) + bar.findChildren(QLabel)
    face, room = bar.algorithm.shown_text, bar.algorithm.text_width()  # whole words by design (hall2)
    if QFontMetrics(bar.algorithm.font()).horizontalAdvance(face) > room:
        out.append(f"algorithm face {face!r} wider than {room}")
    canvas = w.panels["canvas"]
    widgets += [canvas.title, canvas.fit_button] + w.statusBar().findChildren(QLabel)
    for x in widgets:
        if x.isVisible() and not (isinstance(x, QLabel) and x.wordWrap()) and _elided(x):
            out.append(f"{x.objectName() or type(x).__name__}: {_elided(x)}")
    for tabs in w.findChildren(QTabBar):
        if tabs.isVisible() and tabs.count() > 1:
            out += _cut_tabs(tabs)
    return out


def _geometry(w):
    docks = {d.objectName(): (d.isVisible(), d.geometry().getRect()) for d in w.findChildren(QDockWidget)
             if d.geometry().x() >= 0}  # a tab behind another keeps some off-screen geometry
    return docks, w.splitter.sizes(), w.panels["curves"].isVisible(), w.panels["canvas"].isVisible()


@pytest.mark.parametrize("size", [(1280, 800), (1920, 1080)])
@pytest.mark.parametrize("scale", [2.0, 3.0])
def test_presenting_the_canvas_keeps_a_readable_plot_and_nothing_is_cut(qtbot, hall_window, size, scale):
    w = hall_window(SHIPPED_DIR / "thin-margin.json")
    w.controls.select_algorithm("fixed-increment")
    for name in ("weight", "feature"):
        w.view_actions[name].setChecked(True)
    w.resize(*size)
    w.session.advance_sync(300)
    _settle()
    desk_plot = _plot_height(w)
    w.classroom.set_presentation_scale(scale)
    QTest.keyClick(w, Qt.Key.Key_F5)
    fold = w.classroom.presentation_layout.fold
    target = max(300, 0.45 * size[1]) if scale >= 3 else 300
    qtbot.waitUntil(lambda: _plot_height(w) >= target, timeout=5000)
    _settle()
    assert w.classroom.presenting
    assert _plot_height(w) >= target  # 190 px at 3× in 1280×800 before the curves could fold
    if scale >= 3 and size == (1280, 800):
        assert _plot_height(w) >= 0.45 * 800 and fold.folded
    try:  # the tab titles are fitted once the plots stop resizing
        qtbot.waitUntil(lambda: not _cut_texts(w), timeout=5000)
    except Exception:
        pass
    assert not _cut_texts(w), _cut_texts(w)
    from percviz.core.glossary import margin_term, outcome

    snap = w.session.current
    cap, note = w.classroom.caption, w.classroom.caption.line_label
    said = cap.plain_text if cap.isVisible() else note.shown_text if note.isVisible() else ""
    words = outcome(snap.status, dict(snap.metrics)).words if snap.status.done else ""  # the bar has the iteration
    assert words in said and f"{margin_term(w.session.solver_cls).symbol} = " in said, said  # the status, whole
    if note.isVisible():
        assert QFontMetrics(note.font()).horizontalAdvance(note.shown_text) <= note.contentsRect().width()
    if fold.folded:  # the curves are one tab away, and get the whole central area there
        assert not w.panels["curves"].isVisible() and fold.tabs.isVisible()
        QTest.mouseClick(fold.tabs, Qt.MouseButton.LeftButton, pos=fold.tabs.tabRect(1).center())
        _settle(100)
        curves = w.panels["curves"]
        assert curves.isVisible() and not w.panels["canvas"].isVisible()
        assert curves.height() >= curves.minimumSizeHint().height()
        QTest.mouseClick(fold.tabs, Qt.MouseButton.LeftButton, pos=fold.tabs.tabRect(0).center())
        _settle(100)
        assert w.panels["canvas"].isVisible() and not curves.isVisible()
    else:
        assert w.panels["curves"].isVisible() and not fold.tabs.isVisible()
    assert desk_plot > 0


def test_leaving_a_folded_presentation_restores_the_desk_exactly(qtbot, hall_window):
    w = hall_window(SHIPPED_DIR / "thin-margin.json")
    w.controls.select_algorithm("fixed-increment")
    for name in ("weight", "feature"):
        w.view_actions[name].setChecked(True)
    w.session.advance_sync(50)
    _settle(2 * w.layouts.FIT_DELAY_MS + 200)
    qtbot.waitUntil(lambda: bool(w.tabifiedDockWidgets(w.docks["weight"])), timeout=5000)  # the small-screen fit
    _settle(2 * w.layouts.FIT_DELAY_MS + 200)
    before = _geometry(w)

    w.classroom.set_presentation_scale(3.0)
    fold = w.classroom.presentation_layout.fold
    for _ in range(2):
        QTest.keyClick(w, Qt.Key.Key_F5)
        qtbot.waitUntil(lambda: fold.folded, timeout=5000)
        QTest.mouseClick(fold.tabs, Qt.MouseButton.LeftButton, pos=fold.tabs.tabRect(1).center())  # curves shown
        _settle(100)
        QTest.keyClick(w, Qt.Key.Key_F5)
        _settle(2 * w.layouts.FIT_DELAY_MS + 200)
    assert not w.classroom.presenting and not fold.folded and not fold.bar.isVisible()
    after = _geometry(w)
    assert after[1:] == before[1:]  # the splitter's sizes, and both views shown
    assert after[0] == before[0]  # every dock where it was (the curves tab at 3× had widened the window to 1395)
    assert w.width() == 1280


def test_at_3x_in_a_narrow_dock_the_weight_readout_shortens_and_leaves_the_plot_most_of_the_panel(qtbot, hall_window):
    """3× in 1280×800, weight view 350 px wide: the readout took 8 lines (the plot kept 120 of 534 px); its parts
    now show their last clause ("★ γ(a*) = …") and the full text is its tooltip. The desk keeps the full text."""
    w = hall_window(SHIPPED_DIR / "thin-margin.json")
    w.controls.select_algorithm("fixed-increment")
    w.view_actions["weight"].setChecked(True)
    w.session.advance_sync(300)
    _settle()
    panel = w.panels["weight"]
    qtbot.waitUntil(lambda: "the largest" in panel.readout.text(), timeout=5000)
    w.classroom.set_presentation_scale(3.0)
    QTest.keyClick(w, Qt.Key.Key_F5)
    w.docks["weight"].raise_()

    def plot_share():
        return panel.plot.height() / max(1, panel.height())

    qtbot.waitUntil(lambda: "the largest" not in panel.readout.text(), timeout=8000)
    _settle()
    assert panel.readout.font().pointSizeF() >= 2 * 9  # presentation-sized
    assert plot_share() >= 0.45, (panel.plot.height(), panel.height())
    assert panel.plot.isVisible() and panel.readout.isVisible()
    assert "γ(a*)\u00a0=\u00a0" in panel.readout.text() and "the largest" not in panel.readout.text()
    assert "the largest" in panel.readout.toolTip()
    QTest.keyClick(w, Qt.Key.Key_F5)
    qtbot.waitUntil(lambda: "the largest" in panel.readout.text(), timeout=8000)  # the desk: whole words again
