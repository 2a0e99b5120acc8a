"""Issue 25 item 3: the race window as a lecturer drives it — on screen at 1280×800, its setup, readable names, one
margin per axis and column, captions whole, presentation's layout, Run to end answering at once."""

from __future__ import annotations

import re

import pytest
from helpers import spin
from PySide6.QtCore import QRect, Qt
from PySide6.QtGui import QScreen
from PySide6.QtWidgets import QApplication

from percviz.app.experiments.race_window import RaceWindow
from percviz.app.theme import theme_for
from percviz.core import datasets
from percviz.core.experiments import Lane
from percviz.core.presets import SHIPPED_DIR

pytestmark = [pytest.mark.filterwarnings("ignore::RuntimeWarning"), pytest.mark.slow]

LANES = (Lane("perceptron"), Lane("nkp", "rbf:gamma=2"), Lane("snkp"))
#: A raw identifier as the lanes used to show them: 'nkp (rbf:gamma=2)', 'perceptron (φ linear)', 'separator'.
RAW = re.compile(r"\b[a-z]+(-[a-z]+)* \((φ )?[a-z]+(:[a-z_]+=[0-9.]+)?\)|^separator$|^max_iter$")


def _screen(monkeypatch, w: int, h: int) -> QRect:
    rect = QRect(0, 0, w, h)
    monkeypatch.setattr(QScreen, "availableGeometry", lambda self: rect)
    return rect


def _race(qtbot, lanes=LANES, theme=None):
    w = RaceWindow(datasets.thin_gap(0.1), lanes, theme or theme_for(), max_iter=3000)
    qtbot.addWidget(w)
    w.show()
    qtbot.waitExposed(w)
    spin(0.1)
    return w


def _buttons_on_screen(w, avail: QRect) -> None:
    frame = w.frameGeometry()
    assert avail.contains(frame.topLeft()) and frame.bottom() <= avail.bottom() + 1, (frame, avail)
    for b in (w.step_button, w.play_button, w.end_button, w.reset_button):
        r = QRect(b.mapTo(w, b.rect().topLeft()), b.size())
        assert b.isVisible() and w.rect().contains(r), (b.text(), r, w.rect())
        assert b.width() >= b.fontMetrics().horizontalAdvance(b.text()), b.text()


@pytest.mark.parametrize("size", [(1280, 800), (1024, 600), (1920, 1080)])
def test_the_race_opens_within_the_screen_with_its_buttons_shown(qtbot, monkeypatch, size):
    avail = _screen(monkeypatch, *size)
    w = _race(qtbot, LANES + (Lane("smo", "rbf"),))
    _buttons_on_screen(w, avail)
    w.toggle_presentation()  # F5
    spin(0.1)
    _buttons_on_screen(w, avail)
    w.close()


def test_f5_in_the_race_changes_its_layout_not_only_its_type(qtbot, monkeypatch):
    _screen(monkeypatch, 1280, 800)
    w = _race(qtbot)
    assert w.bottom.currentWidget() is w.bottom_split
    w.toggle_presentation()
    assert w.theme.presentation
    assert w.bottom.currentWidget() is w.bottom_tabs and w.bottom_tabs.count() == 2
    w.bottom_tabs.setCurrentIndex(1)
    assert w.table.isVisible() and w.table.width() > 0.8 * w.width()  # the table at full width, as a tab
    w.toggle_presentation()
    assert w.bottom.currentWidget() is w.bottom_split and w.table.isVisible() and w.curves_plot.isVisible()
    w.close()


@pytest.mark.parametrize("presenting", [False, True], ids=["desk", "F5"])
def test_lane_captions_are_whole_and_off_the_points(qtbot, monkeypatch, presenting):
    _screen(monkeypatch, 1280, 800)
    w = _race(qtbot, theme=theme_for("light", 2.0 if presenting else 1.0))
    w.run_to_end()
    w.wait_idle(qtbot)
    spin(0.1)
    for canvas, line in zip(w.canvases, w.lane_captions):
        assert line.isVisible() and line.texts
        shown = line.shown_text
        assert shown in line.texts, f"cut: {shown!r}"  # one of its whole forms, never 'normalized margin m('
        assert re.search(r"= -?[0-9.]+(e[-+]?[0-9]+)?\b", shown) or "found" in shown or "limit" in shown, shown
        assert canvas.overlay.opacity() == 0.0  # nothing drawn over the lane's points
    w.close()


def test_names_are_readable_in_lanes_legend_and_table(qtbot, monkeypatch):
    _screen(monkeypatch, 1280, 800)
    w = _race(qtbot)
    w.run_to_end()
    w.wait_idle(qtbot)
    texts = [lab.text() for lab in w.lane_labels]
    texts += [w.table.item(r, c).text() for r in range(w.table.rowCount()) for c in range(2)]
    legend = w.curves_plot.plotItem.legend
    texts += [label.text for _sample, label in legend.items]
    for text in texts:
        assert not RAW.search(text), text
    assert texts[1] == "NKP · Gaussian RBF γ = 2"
    assert w.table.item(0, 1).text() == "separator found"
    w.close()


def test_each_kind_of_margin_has_its_own_column_and_axis(qtbot, monkeypatch):
    _screen(monkeypatch, 1280, 800)
    w = _race(qtbot)
    w.run_to_end()
    w.wait_idle(qtbot)
    heads = [w.table.horizontalHeaderItem(c).text() for c in range(w.table.columnCount())]
    assert "geometric margin γ(a)" in heads and "normalized margin m(α)" in heads and "margin" not in heads
    g, m = heads.index("geometric margin γ(a)"), heads.index("normalized margin m(α)")
    assert w.table.item(0, g).text() and not w.table.item(0, m).text()  # the perceptron: γ(a) only
    assert w.table.item(1, m).text() and not w.table.item(1, g).text()  # NKP: m(α) only
    for data, axis in (("margin:geometric", "γ(a)"), ("margin:normalized", "m(α)")):
        w.quantity.setCurrentIndex(w.quantity.findData(data))
        assert axis in w.curves_plot.plotItem.getAxis("left").labelText
    w.close()


def test_run_to_end_answers_at_once(qtbot, monkeypatch):
    _screen(monkeypatch, 1280, 800)
    w = _race(qtbot, (Lane("perceptron"), Lane("nkp", "rbf:gamma=2")))
    before = w.status.text()
    qtbot.mouseClick(w.end_button, Qt.MouseButton.LeftButton)
    assert w.status.text() != before and "running" in w.status.text()  # before the first result comes back
    assert not w.end_button.isEnabled() and not w.step_button.isEnabled()
    w.wait_idle(qtbot)
    assert w.end_button.isEnabled() and "running" not in w.status.text()
    w.close()


def test_the_race_setup_chooses_algorithms_and_kernels(hall_window):
    w = hall_window(SHIPPED_DIR / "thin-margin.json")
    box = w.controls.kernel
    box.setCurrentIndex(next(i for i in range(box.count()) if "RBF" in box.itemText(i)))
    w.session.wait_idle()
    own = w.scene.settings.kernel
    menu = w.experiments
    menu.race_action.trigger()
    dlg = menu.setup_dialog
    assert dlg.isVisible()
    # the scene's own kernel is each kernel lane's default, by a readable name
    _use, _algo, spec = dlg.rows[1]
    assert spec.currentData() == own and "Gaussian RBF" in spec.currentText() and ":" not in spec.currentText()
    dlg.choose(0, "perceptron")
    dlg.choose(1, "nkp", "poly")
    dlg.choose(2, "snkp")
    dlg.choose(3, "kernel-perceptron", "laplacian")
    ok = dlg.buttons.button(dlg.buttons.StandardButton.Ok)
    assert ok.isEnabled()
    for r in (1, 2, 3):
        dlg.choose(r, dlg.rows[r][1].currentData(), use=False)
    assert not ok.isEnabled() and "2 to 4" in dlg.problem.text()  # one lane is no race
    for r in (1, 2, 3):
        dlg.rows[r][0].setChecked(True)
    ok.click()
    QApplication.processEvents()
    race = menu.windows[-1]
    try:
        assert [(l.algorithm, l.kernel) for l in race.lanes] == [
            ("perceptron", own), ("nkp", "poly"), ("snkp", own), ("kernel-perceptron", "laplacian")]
        assert race.lanes[0].features == w.scene.settings.features
        assert [lab.text() for lab in race.lane_labels][1].startswith("NKP · Polynomial")
    finally:
        race.close()


def test_the_sweep_says_which_family_and_quantity_its_slopes_are_of(qtbot):
    from percviz.app.experiments.sweep_window import SweepWindow
    from percviz.core.experiments import SweepSpec

    w = SweepWindow(theme_for(), workers=1)
    qtbot.addWidget(w)
    w.show()
    assert w.start(SweepSpec(("snkp", "nkp"), "line", levels=(0.5, 0.2, 0.08)))
    w.wait_idle(qtbot)
    text = w.status.text()
    assert "'line' family" in text and "log iterations on log 1/ρ_K" in text, text
    w.close()


@pytest.mark.parametrize("scale", [1.0, 2.0])
def test_the_sweeps_axis_labels_never_run_together(qtbot, scale):
    from PySide6.QtGui import QFontMetricsF

    from percviz.app.experiments.sweep_window import SweepWindow
    from percviz.core.experiments import SweepSpec

    w = SweepWindow(theme_for("light", scale), workers=1)
    qtbot.addWidget(w)
    w.resize(900, 650)
    w.show()
    assert w.start(SweepSpec(("snkp", "nkp"), "line", levels=(0.5, 0.2, 0.08, 0.03)))
    w.wait_idle(qtbot)
    spin(0.2)
    for name in ("bottom", "left"):
        ax = w.plot.getPlotItem().getAxis(name)
        lo, hi = ax.range
        size = ax.width() if name == "bottom" else ax.height()
        fm = QFontMetricsF(ax.style.get("tickFont") or ax.font())
        spans = []
        for spacing, values in ax.tickValues(lo, hi, size):
            strings = ax.tickStrings(values, 1.0, spacing)
            for v, text in zip(values, strings):
                if not text:
                    continue
                at = (v - lo) / (hi - lo) * size
                half = (fm.horizontalAdvance(text) if name == "bottom" else fm.height()) / 2
                spans.append((at - half, at + half, text))
        spans.sort()
        for (a0, a1, ta), (b0, b1, tb) in zip(spans, spans[1:]):
            assert a1 <= b0, f"{name}: {ta!r} and {tb!r} overlap"
    w.close()
