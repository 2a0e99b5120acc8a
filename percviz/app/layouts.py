"""Layouts of the views: one large view with the geometry views as tabs, a 2×2 grid, and maximise one view.

The geometry views are never a strip: View ▸ Layout gives one large view (the weight and feature docks
tabbed in a wide column) or a 2×2 grid (canvas | weight over curves | feature); View ▸ Maximise view
(Ctrl+M, or a double-click on a dock's title) lets one view fill the window and the same again restores it.
Whatever the layout, a geometry plot is at least MIN_PLOT or its view is a tab: a 2×2 grid too small for that
(1280×800) keeps the canvas over the curves but tabs the weight and feature views, says so in the status bar,
and becomes a grid again when the window grows. Tab titles are never elided: where the dock titles do not fit
their tab bar whole (2× presentation at 1280×800), the tabs take the short titles of SHORT_TITLES.
"""

from __future__ import annotations

from typing import Callable, ContextManager

from PySide6.QtCore import QEvent, QObject, Qt, QTimer
from PySide6.QtGui import QFontMetrics
from PySide6.QtWidgets import QDockWidget, QMainWindow, QTabBar, QWidget

from percviz.app.timing import LAYOUT_FIT_DELAY_MS

#: The docked geometry views.
GEOMETRY = ("weight", "feature")
#: A view's plot must be at least this large (px) or the view is a tab.
MIN_PLOT = (300, 250)
#: Dock titles for tab bars too narrow for the full ones: whole words a hall can read, both tabs in view
#: (an elided "Weight s…", or scroll arrows hiding a tab, tell the audience less).
SHORT_TITLES = {"weight": "Weights", "feature": "Features"}


def restore_dock_state(window: QMainWindow, state, updating: Callable[[], ContextManager]) -> bool:
    """QMainWindow.restoreState without its ghost tab bars: Qt builds new tab bars for tabbed docks and leaves
    the old ones shown, with their tabs, where they were (after an F5 F5 a second, presentation-sized "Weight
    s… | Feature s…" row showed under the real one, one more on every round). Those are hidden here. The docks
    it hides and shows meanwhile are not taken as closed by the user (an F5 F5 used to untick the weight and
    feature views, and the next algorithm change closed them): `updating` is the window's
    MainWindow.updating_docks."""
    before = [b for b in window.findChildren(QTabBar) if b.parent() is window and b.count() > 0]
    with updating():
        done = window.restoreState(state)
        window.layout().activate()
    after = [b for b in window.findChildren(QTabBar) if b.parent() is window and b.count() > 0]
    tabbed = any(window.tabifiedDockWidgets(d) for d in window.findChildren(QDockWidget) if not d.isHidden())
    if len(after) > len(before) or not tabbed:  # new bars were made, or none is needed: the old ones are ghosts
        for bar in before:
            bar.hide()
    return done


class Layouts(QObject):
    """The window's view layouts (`window.layouts`)."""

    FIT_DELAY_MS = LAYOUT_FIT_DELAY_MS  # (tests read it here)
    #: The canvas's share of the canvas/curves split in "one large view" and when maximised (the curves keep a strip
    #: to read; at 1280×800 the canvas had half the height).
    CANVAS_SHARE = 0.72

    def __init__(self, window):
        super().__init__(window)
        self.window = window
        self.maximised: str | None = None
        self._saved = None
        menu = window.view_menu.addMenu("&Layout")
        window.add_action(menu, "&One large view", self.one_large, "Ctrl+1",
                          "The canvas large; the weight and feature views as tabs in a wide column")
        window.add_action(menu, "&2×2 grid", self.grid, "Ctrl+2",
                          "Canvas and weight space above, curves and feature space below")
        self.maximise_action = window.add_action(
            window.view_menu, "&Maximise view", self.toggle_maximise, "Ctrl+M",
            "The view under the mouse fills the window (double-click a dock's title too); again to restore")
        self.chosen = False  # the user picked a layout: no automatic tabbing any more
        self.layout = "auto"  # "auto", "one" or "grid": the layout last chosen
        self.grid_tabbed = None  # the window size (QSize) at which the grid's geometry views were tabbed to fit
        self._fit_timer = QTimer(self)
        self._fit_timer.setSingleShot(True)
        self._fit_timer.setInterval(self.FIT_DELAY_MS)
        self._fit_timer.timeout.connect(self.fit_small_screen)
        for name in GEOMETRY:
            window.docks[name].installEventFilter(self)
            window.panels[name].plot.installEventFilter(self)

    # -- the two layouts ---------------------------------------------------------------------------
    def _docks(self) -> list[QDockWidget]:
        w = self.window
        return [w.docks[n] for n in GEOMETRY if w.view_wanted(n) and not w.docks[n].isHidden()]

    def _right_width(self, fraction: float) -> int:
        w = self.window
        controls = w.docks["controls"]
        left = controls.width() if controls.isVisible() else 0
        return max(320, int(fraction * (w.width() - left)))

    def one_large(self, chosen: bool = True) -> None:
        """The canvas large; the geometry views tabbed in one column (each tab has the whole column)."""
        self.chosen = self.chosen or chosen
        if chosen:
            self.layout, self.grid_tabbed = "one", None
        self.restore()
        self._tab_column(0.42)
        self._canvas_large()

    def _canvas_large(self) -> None:
        """The canvas CANVAS_SHARE of the canvas/curves split (the curves below it, shorter)."""
        split = self.window.splitter
        total = sum(split.sizes()) or split.height()
        if total > 0 and split.count() > 1:
            top = int(round(self.CANVAS_SHARE * total))
            split.setSizes([top, total - top])

    def _tab_column(self, fraction: float) -> None:
        """The geometry docks as tabs of one right-hand column `fraction` of the window wide."""
        w, docks = self.window, self._docks()
        for d in docks:
            w.addDockWidget(Qt.DockWidgetArea.RightDockWidgetArea, d)
        for a, b in zip(docks, docks[1:]):
            w.tabifyDockWidget(a, b)
        if docks:
            docks[0].raise_()
            w.resizeDocks([docks[0]], [self._right_width(fraction)], Qt.Orientation.Horizontal)

    def grid(self) -> None:
        """Canvas | weight over curves | feature: four views of about equal size (tabs where they would not fit)."""
        self.chosen = True
        self.layout, self.grid_tabbed = "grid", None
        self.restore()
        self._split_grid()
        self._fit_timer.start()  # measured once the docks have their sizes

    def _split_grid(self) -> None:
        w, docks = self.window, self._docks()
        for d in docks:
            w.addDockWidget(Qt.DockWidgetArea.RightDockWidgetArea, d)
        for a, b in zip(docks, docks[1:]):
            w.splitDockWidget(a, b, Qt.Orientation.Vertical)
        if docks:
            w.resizeDocks([docks[0]], [self._right_width(0.5)], Qt.Orientation.Horizontal)
            half = max(200, (w.height() - 80) // len(docks))
            w.resizeDocks(docks, [half] * len(docks), Qt.Orientation.Vertical)
        total = sum(w.splitter.sizes()) or w.splitter.height()
        w.splitter.setSizes([total // 2, total - total // 2])

    def too_small(self) -> list[str]:
        """The stacked (untabbed) geometry views whose plot is under MIN_PLOT."""
        w, out = self.window, []
        for name in GEOMETRY:
            d = w.docks[name]
            panel = d.widget()
            plot = panel.plot
            if d in self._docks() and panel.isVisible() and not panel.showing_message \
                    and (plot.width() < MIN_PLOT[0] or plot.height() < MIN_PLOT[1]) \
                    and not w.tabifiedDockWidgets(d):
                out.append(name)
        return out

    def fit_small_screen(self) -> None:
        """Tab the geometry views when stacked they would leave a plot under MIN_PLOT (the grid's too)."""
        w = self.window
        if self.maximised is not None or not w.isVisible():
            return
        self.fit_tab_titles()
        if self.layout == "grid":
            self._fit_grid()
        elif not self.chosen and self.too_small():
            self.one_large(chosen=False)

    def _fit_grid(self) -> None:
        """The chosen 2×2 grid: tab its geometry views when a plot would be too small; a grid again when it grows."""
        w = self.window
        if self.grid_tabbed is not None:
            if w.width() > self.grid_tabbed.width() or w.height() > self.grid_tabbed.height():
                self.grid_tabbed = None  # larger now: try the grid again (measured when it settles)
                self._split_grid()
                self._fit_timer.start()
            else:
                self.grid_tabbed = w.size()
            return
        small = self.too_small()
        if small and len(self._docks()) > 1:
            self.grid_tabbed = w.size()
            self._tab_column(0.5)
            names = " and ".join(n for n in GEOMETRY if w.docks[n] in self._docks())
            w.show_message(f"2×2 grid: the {names} views are tabs here; stacked, a plot would be under "
                           f"{MIN_PLOT[0]}×{MIN_PLOT[1]} px (enlarge the window for the grid).", 10000)

    def fit_tab_titles(self) -> None:
        """Full dock titles on a tab bar where they all fit whole, else the short ones (SHORT_TITLES)."""
        w = self.window
        by_title, titles = {}, {}
        for name, dock in w.docks.items():
            full = dock.property("full_title") or dock.windowTitle()
            dock.setProperty("full_title", full)
            by_title[dock.windowTitle()] = dock
            titles[dock] = full  # untabbed docks keep their full title
        for bar in w.findChildren(QTabBar):
            docks = [by_title.get(bar.tabText(i)) for i in range(bar.count())]
            if bar.parent() is not w or not bar.isVisible() or not docks or None in docks:
                continue
            fm = QFontMetrics(bar.font())
            # the bar's width with each tab at its full title: the style's padding plus the title's advance
            need = sum(bar.tabSizeHint(i).width() - fm.horizontalAdvance(bar.tabText(i))
                       + fm.horizontalAdvance(titles[d]) for i, d in enumerate(docks))
            if need > bar.width():
                for d in docks:
                    titles[d] = SHORT_TITLES.get(d.objectName(), titles[d])
                short = sum(bar.tabSizeHint(i).width() - fm.horizontalAdvance(bar.tabText(i))
                            + fm.horizontalAdvance(titles[d]) for i, d in enumerate(docks))
                if short > bar.width() and not docks[0].isFloating():  # 3× in 1280×800: even "Weig…" — widen
                    w.resizeDocks([docks[0]], [docks[0].width() + short - bar.width() + 2], Qt.Orientation.Horizontal)
        for dock, title in titles.items():
            if dock.windowTitle() != title:
                dock.setWindowTitle(title)

    # -- maximise ------------------------------------------------------------------------------------
    def _view_at_mouse(self) -> str:
        from PySide6.QtGui import QCursor
        from PySide6.QtWidgets import QApplication

        under = QApplication.widgetAt(QCursor.pos()) or QApplication.focusWidget()
        for name in GEOMETRY:
            dock = self.window.docks[name]
            if under is not None and (under is dock or dock.isAncestorOf(under)):
                return name
        return "canvas"

    def toggle_maximise(self, name: str | None = None) -> None:
        """Let one view fill the window (the canvas with its curves, or a geometry dock); again: restore."""
        if self.maximised is not None:
            self.restore()
            return
        w = self.window
        name = name or self._view_at_mouse()
        self._saved = (w.saveState(), w.splitter.sizes())
        with w.updating_docks():  # hidden for the layout: not closed by the user
            keep = w.docks.get(name)
            for dock in w.findChildren(QDockWidget):  # the classroom's docks (scene text, …) too
                if dock is not keep and not dock.isHidden() and not dock.isFloating():
                    dock.hide()
            if name != "canvas":
                w.centralWidget().hide()
        if name == "canvas":
            self._canvas_large()
        self.maximised = name

    def restore(self) -> None:
        """Undo a maximise: the docks and the central views as they were."""
        if self.maximised is None:
            return
        w = self.window
        state, sizes = self._saved
        with w.updating_docks():
            w.centralWidget().show()
            restore_dock_state(w, state, w.updating_docks)
            w.splitter.setSizes(sizes)
        self.maximised, self._saved = None, None

    def eventFilter(self, obj: QObject, event: QEvent) -> bool:
        """A double-click on a geometry dock's title maximises it (instead of floating it)."""
        if event.type() == QEvent.Type.Resize and not isinstance(obj, QDockWidget):
            self._fit_timer.start()  # a plot changed size: check, once things settle, that none is too small
            return False
        if event.type() == QEvent.Type.MouseButtonDblClick and isinstance(obj, QDockWidget):
            content: QWidget | None = obj.widget()
            if content is None or event.position().y() < content.geometry().top():
                for name, dock in self.window.docks.items():
                    if dock is obj:
                        self.toggle_maximise(name)
                        return True
        return False
