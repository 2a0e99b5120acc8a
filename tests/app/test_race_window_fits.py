"""The race window in front of a hall: it fits the screen, no caption, name or cell is cut, captions stay off
the points, names are words (no identifiers), one column and one axis per kind of margin, F5 scales the layout,
and Run to end shows progress at once."""


import pytest
from PySide6.QtCore import QPoint, QRect, Qt, QTimer
from PySide6.QtGui import QFontMetrics, QGuiApplication

from percviz.app.experiments import lanes_from_preset
from percviz.app.experiments.race_window import RaceWindow
from percviz.app.theme import theme_for
from percviz.core import datasets
from percviz.core.experiments import Lane
from percviz.core.presets import SHIPPED_DIR, load_preset

LANES = (Lane("perceptron"), Lane("nkp", "rbf:gamma=2"), Lane("snkp"))


def _open(qtbot, lanes=LANES, theme=None, points=None, max_iter=5000):
    w = RaceWindow(points or datasets.thin_gap(0.1), lanes, theme or theme_for(), max_iter=max_iter)
    qtbot.addWidget(w)
    w.show()
    qtbot.waitExposed(w)
    return w


def _f5(qtbot, w):
    """What F5 does in the window (the key itself: test_experiments_windows.test_race_presentation_scales_fonts)."""
    w.toggle_presentation()
    qtbot.wait(50)


def _settle(qtbot, w):
    for _ in range(3):
        qtbot.wait(30)
    w.race.advance(60)
    w.show_iteration(60)
    qtbot.wait(30)


def _rect_in(widget, top):
    return QRect(widget.mapTo(top, QPoint(0, 0)), widget.size())


def _transport_visible(w):
    """Step/Play/Run/Reset lie inside the window and are at least as wide as their text needs."""
    inside = all(w.rect().contains(_rect_in(b, w)) and b.isVisible() and b.width() >= b.sizeHint().width() - 2
                 for b in (w.step_button, w.play_button, w.end_button, w.reset_button))
    return inside


def _table_cut(table):
    """Cells and headers whose lines are wider than their column, and whether the columns overflow the view."""
    fm = QFontMetrics(table.font())
    cut = []
    for c in range(table.columnCount()):
        texts = [table.horizontalHeaderItem(c).text()]
        texts += [table.item(r, c).text() for r in range(table.rowCount()) if table.item(r, c) is not None]
        for text in texts:
            # wrapped at plain spaces: each word (non-breaking spaces kept together) must fit the column
            words = [x for line in text.split("\n") for x in line.split(" ")]
            if any(fm.horizontalAdvance(x) > table.columnWidth(c) - 6 for x in words):
                cut.append(text)
        for r in range(table.rowCount()):
            item = table.item(r, c)
            if item is None:
                continue
            need = fm.boundingRect(QRect(0, 0, table.columnWidth(c) - 6, 10000), Qt.TextFlag.TextWordWrap,
                                   item.text()).height()
            if need > table.rowHeight(r):
                cut.append(item.text())
    overflow = sum(table.columnWidth(c) for c in range(table.columnCount())) > table.viewport().width() + 1
    return cut, overflow


def test_race_opens_inside_the_available_geometry_with_its_transport_visible(qtbot):
    w = _open(qtbot)
    area = (w.screen() or QGuiApplication.primaryScreen()).availableGeometry()
    assert area.contains(w.frameGeometry()), (w.frameGeometry(), area)  # offscreen: an 800×800 screen
    assert _transport_visible(w)
    _f5(qtbot, w)
    assert w.theme.presentation and area.contains(w.frameGeometry()) and _transport_visible(w)


@pytest.mark.slow
@pytest.mark.parametrize("size", [(1100, 752), (1264, 752), (1904, 1032)])  # 1280×800, 1920×1080 less frame
@pytest.mark.parametrize("dark", [False, True])
def test_race_nothing_is_cut_desk_and_presenting(qtbot, size, dark):
    w = _open(qtbot, theme=theme_for("dark" if dark else "light"))
    for present in (False, True):
        if present:
            _f5(qtbot, w)
        w.resize(*size)
        _settle(qtbot, w)
        assert _transport_visible(w)
        for lane in w.lane_views:
            assert lane.caption.fits(), (present, lane.caption.text(), lane.caption.size())
            assert lane.title.width() > 0
            fm = QFontMetrics(lane.title.font())
            need = fm.boundingRect(QRect(0, 0, lane.title.width(), 10000), Qt.TextFlag.TextWordWrap,
                                   lane.title.text()).height()
            assert need <= lane.title.height() + 1, (lane.title.text(), need, lane.title.height())
            # the caption is under the data, never over it: outside the canvas, and nothing drawn over the points
            assert not _rect_in(lane.caption, w).intersects(_rect_in(lane.canvas.plot, w))
            assert lane.canvas.overlay.text() == "" and not lane.canvas.overlay_box.isVisible()
        cut, overflow = _table_cut(w.table)
        assert not cut and not overflow, (present, cut, overflow)


def test_race_names_are_words_and_margins_are_kept_apart(qtbot):
    w = _open(qtbot)
    qtbot.mouseClick(w.end_button, Qt.MouseButton.LeftButton)
    w.wait_idle(qtbot)
    names = [v.title.text() for v in w.lane_views]
    assert names == ["Perceptron · φ\u00a0=\u00a0Augmented linear", "NKP · Gaussian RBF γ\u00a0=\u00a02",
                     "SNKP · Affine linear"]
    headers = [w.table.horizontalHeaderItem(c).text() for c in range(w.table.columnCount())]
    assert "geometric\nmargin\nγ(a)" in headers and "normalized\nmargin\nm(α)" in headers
    assert not any(h == "margin" for h in headers)
    cells = [w.table.item(r, c).text() for r in range(3) for c in range(w.table.columnCount())]
    for raw in ("nkp (", "φ linear", "rbf:gamma"):
        assert not any(raw in t for t in cells + names)
    assert w.table.item(2, 1).text() == "separator found"  # the glossary's words, not the status value
    # the perceptron's margin is γ(a): its m(α) cell is empty, and NKP's γ(a) cell too
    assert w.margin_cell(0, "geometric") and not w.margin_cell(0, "normalized")
    assert w.margin_cell(1, "normalized") and not w.margin_cell(1, "geometric")
    # one axis per kind: on m(α) only the kernel lanes are drawn, on γ(a) only the perceptron
    w.quantity.setCurrentIndex(w.quantity.findData("margin:normalized"))
    drawn = [it.getData()[0] is not None and len(it.getData()[0]) > 0 for it in w.curve_items]
    assert drawn == [False, True, True]
    assert "m(α)" in w.curves_plot.getPlotItem().getAxis("left").labelText
    labels = [w.quantity.itemText(i) for i in range(w.quantity.count())]
    assert "geometric margin γ(a)" in labels and "normalized margin m(α)" in labels and "normalized margin" not in labels


@pytest.mark.slow
def test_run_to_end_shows_progress_at_once_and_keeps_the_window_responsive(qtbot):
    p = load_preset(SHIPPED_DIR / "race-thin-margin.json")
    w = _open(qtbot, lanes_from_preset(p), points=p.points, max_iter=p.max_iter)
    beats: list[int] = []  # what the window shows at each 10 ms turn of the UI's event loop
    timer = QTimer()
    timer.setInterval(10)
    timer.timeout.connect(lambda: beats.append(w.shown))
    timer.start()
    qtbot.mouseClick(w.end_button, Qt.MouseButton.LeftButton)
    # at once: the progress bar and Stop, before a single event-loop turn
    assert w.progress.isVisible() and w.end_button.text() == "Stop" and "running" in w.status.text()
    w.wait_idle(qtbot, 60000)
    timer.stop()
    assert w.race.done and not w.progress.isVisible() and w.end_button.text() == "Run to end"
    first_move = next(i for i, k in enumerate(beats) if k > 0)
    assert first_move < 60, first_move  # counted turns, not seconds: the lanes move within the first few turns
    assert len(set(beats)) >= 5  # the lanes were redrawn as the run went, not only at its end (main: frozen)


def test_stop_halts_a_run_to_end_where_it_is(qtbot):
    p = load_preset(SHIPPED_DIR / "race-thin-margin.json")
    w = _open(qtbot, lanes_from_preset(p), points=p.points, max_iter=p.max_iter)
    qtbot.mouseClick(w.end_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: w.race.iteration > 200, timeout=10000)
    qtbot.mouseClick(w.end_button, Qt.MouseButton.LeftButton)  # Stop
    assert not w.busy and not w.race.done and w.shown == w.race.iteration
    k = w.race.iteration
    qtbot.wait(100)
    assert w.race.iteration == k and w.step_button.isEnabled()


def test_presentation_scales_the_layout_not_only_the_text(qtbot):
    w = _open(qtbot)
    _settle(qtbot, w)
    row_before = w.table.rowHeight(0)
    canvas_min = w.canvases[0].minimumWidth()
    _f5(qtbot, w)
    assert w.table.rowHeight(0) >= 1.5 * row_before  # rows grow with the text
    assert w.canvases[0].minimumWidth() > canvas_min
    assert w.bottom.currentWidget() is w.bottom_tabs  # curves and table take turns at the full width
    _f5(qtbot, w)
    assert w.bottom.currentIndex() == 0 and w.table.rowHeight(0) <= row_before + 2
