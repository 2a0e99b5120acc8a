"""View layouts: the geometry views are never a strip (issue 12): tabs when small, 2×2, maximise one view."""

from __future__ import annotations

from PySide6.QtCore import QCoreApplication, QPoint, QSize, Qt

from percviz.app.layouts import GEOMETRY, MIN_PLOT
from percviz.app.main_window import MainWindow
from percviz.core.presets import SHIPPED_DIR, load_preset


def _window(qtbot, size):
    w = MainWindow()
    qtbot.addWidget(w)
    w.load_preset(load_preset(SHIPPED_DIR / "thin-margin.json"))
    w.scene.set_settings(algorithm="fixed-increment", kernel="affine", features="linear", params={}, max_iter=20000)
    w.resize(QSize(*size))
    for name in GEOMETRY:
        w.view_actions[name].setChecked(True)
        w.docks[name].show()
    w.show()
    qtbot.waitExposed(w)
    w.session.wait_idle(10.0)
    w.session.advance_sync(300)
    qtbot.wait(400)  # the layout settles and its fit check runs
    return w


def _menu_texts(menu) -> list[str]:
    out = []
    for act in menu.actions():
        out.append(act.text())
        if act.menu() is not None:
            out += _menu_texts(act.menu())
    return out


def test_at_1280x800_each_geometry_plot_is_large_or_a_tab(qtbot):
    w = _window(qtbot, (1280, 800))
    try:
        def large_or_tab(name):
            dock, plot = w.docks[name], w.panels[name].plot
            big = plot.width() >= MIN_PLOT[0] and plot.height() >= MIN_PLOT[1]
            return not dock.isHidden() and (big or bool(w.tabifiedDockWidgets(dock)))

        for name in GEOMETRY:  # the layout settles after the last resize (a loaded machine takes its time)
            qtbot.waitUntil(lambda n=name: large_or_tab(n), timeout=10000)
        # the shown tab is large (once its panel is let go: a dock change repaints one panel per turn)
        def shown_views():
            return [n for n in GEOMETRY if w.panels[n].isVisible() and not w.panels[n].visibleRegion().isEmpty()]

        qtbot.waitUntil(lambda: bool(shown_views()), timeout=10000)
        shown = shown_views()
        for n in shown:
            assert w.panels[n].plot.width() >= MIN_PLOT[0] and w.panels[n].plot.height() >= MIN_PLOT[1]
        texts = _menu_texts(w.view_menu)
        assert "&Maximise view" in texts and "&2×2 grid" in texts and "&One large view" in texts
    finally:
        w.close()


def test_two_by_two_gives_four_comparable_views_at_1920x1080(qtbot):
    w = _window(qtbot, (1920, 1080))
    try:
        w.layouts.grid()
        qtbot.wait(300)
        canvas = w.panels["canvas"]
        for name in GEOMETRY:
            plot = w.panels[name].plot
            assert not w.tabifiedDockWidgets(w.docks[name])
            assert plot.width() >= MIN_PLOT[0] and plot.height() >= MIN_PLOT[1], (name, plot.size())
            assert w.docks[name].width() >= 0.6 * canvas.width()  # a column, not a strip
    finally:
        w.close()


def test_double_click_on_a_dock_title_maximises_it_and_again_restores(qtbot):
    w = _window(qtbot, (1280, 800))
    try:
        w.layouts.grid()
        qtbot.wait(200)
        dock = w.docks["weight"]
        before = w.panels["weight"].plot.size()
        qtbot.mouseDClick(dock, Qt.MouseButton.LeftButton, pos=QPoint(40, 8))
        qtbot.wait(200)
        assert w.layouts.maximised == "weight"
        assert not w.centralWidget().isVisible() and w.docks["feature"].isHidden()
        plot = w.panels["weight"].plot
        assert plot.width() > 2 * before.width() and plot.height() > before.height()
        assert w.view_actions["feature"].isChecked()  # hidden for the layout, not closed by the user
        w.layouts.maximise_action.trigger()  # the menu entry (Ctrl+M) restores
        qtbot.wait(200)
        assert w.layouts.maximised is None
        assert w.centralWidget().isVisible() and w.docks["feature"].isVisible()
        assert w._wanted["feature"]
        QCoreApplication.processEvents()
    finally:
        w.close()


def _measured(w, name):
    plot = w.panels[name].plot
    return plot.width(), plot.height(), bool(w.tabifiedDockWidgets(w.docks[name]))


def test_a_hand_picked_grid_at_1280x800_tabs_what_would_be_too_small_and_says_so(qtbot):
    w = _window(qtbot, (1280, 800))
    try:
        w.statusBar().clearMessage()
        w.layouts.grid()  # View ▸ Layout ▸ 2×2 grid, by hand
        qtbot.waitUntil(lambda: w.layouts.grid_tabbed is not None, timeout=10000)
        qtbot.wait(300)  # settled: no further change
        for name in GEOMETRY:
            width, height, tabbed = _measured(w, name)
            assert tabbed or (width >= MIN_PLOT[0] and height >= MIN_PLOT[1]), (name, width, height)
        shown = [n for n in GEOMETRY if not w.panels[n].visibleRegion().isEmpty()]
        assert len(shown) == 1 and _measured(w, shown[0])[1] >= MIN_PLOT[1]
        assert "2×2 grid" in w.statusBar().currentMessage() and "300×250" in w.statusBar().currentMessage()
        # the canvas and the curves keep their grid halves, each at least as large as the rule asks
        for name in ("canvas", "curves"):
            panel = w.panels[name]
            assert panel.width() >= MIN_PLOT[0] and panel.height() >= MIN_PLOT[1], (name, panel.size())
        w.resize(QSize(1920, 1080))  # room now: the grid comes back, every plot large and untabbed
        qtbot.waitUntil(lambda: w.layouts.grid_tabbed is None and not any(_measured(w, n)[2] for n in GEOMETRY),
                        timeout=10000)
        qtbot.wait(400)
        for name in GEOMETRY:
            width, height, tabbed = _measured(w, name)
            assert not tabbed and width >= MIN_PLOT[0] and height >= MIN_PLOT[1], (name, width, height)
    finally:
        w.close()
