"""The main window: canvas in the centre, curves below, controls on the side, weight/feature docks."""

from __future__ import annotations

from contextlib import suppress
from typing import Any, Callable

import numpy as np
from PySide6.QtCore import QSize, Qt, QTimer, Signal
from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import (
    QApplication,
    QDockWidget,
    QMainWindow,
    QMessageBox,
    QScrollArea,
    QSplitter,
    QVBoxLayout,
    QWidget,
)

from percviz.app.classroom import classroom

from percviz.app import experiments

from percviz.app.run import heap
from percviz.app.panels.canvas import CanvasView
from percviz.app.panels.controls import ControlsPanel
from percviz.app.panels.curves import CurvesView
from percviz.app.panels.feature_view import FeatureView
from percviz.app import dialogs
from percviz.app.context import AppContext, Menus
from percviz.app.dock_views import DockViews
from percviz.app.layouts import Layouts
from percviz.app.prefs import Preferences
from percviz.app.panels.panel import Panel
from percviz.app.run.panel_feed import FrameFeed
from percviz.app.run.session import SPLIT_RESTART_N, RunSession
from percviz.app.status_line import StatusParts
from percviz.app.theme import theme_for
from percviz.app.panels.weight_view import WeightView
from percviz.core.errors import PercvizError
from percviz.core.scene import SceneModel, Settings

#: The panels of the window, in layout order: those without a dock title share the central area (canvas above,
#: curves below), the others get a dock each. Add a panel here (percviz.app.panels.panel.Panel; docs/app.md).
PANELS: tuple[type[Panel], ...] = (CanvasView, CurvesView, WeightView, FeatureView)
DOCK_TITLES = {cls.view: cls.dock_title for cls in PANELS if cls.dock_title}
DEFAULT_SIZE = QSize(1280, 800)
#: A drag that pauses this long (ms) lets the heavy panels (Panel.defer_during_drag) catch up with the moved points.


class MainWindow(QMainWindow):
    """The percviz window; see docs/app.md for the attributes other modules rely on."""

    #: A scene was shown by `load_preset` (launch, Open, autosave restore): the preset.
    presetLoaded = Signal(object)
    #: The scene became a new untitled one (Clear all points, Generate ▸ Replace): no title, explanation or file.
    untitledScene = Signal()

    def __init__(self, scene: SceneModel | None = None, parent: QWidget | None = None, install_classroom: bool = True):
        super().__init__(parent)
        self.setWindowTitle("percviz")
        self.setObjectName("percviz_main_window")
        self.scene = scene or SceneModel()
        self.session = RunSession(self.scene, self)
        self.feed = FrameFeed(self.session, self)  # the run's one frame feed (percviz.app.run.panel_feed)
        self.panels: dict[str, Panel] = {}
        self.docks: dict[str, QDockWidget] = {}
        self.view_settings = None
        #: Callables run before closing; any returning False cancels the close (unsaved work, …).
        self.close_guards: list[Callable[[], bool]] = []
        self.dock_views = DockViews(self)
        self._closed = False
        #: the classroom features (percviz.app.classroom), None until installed
        self.classroom = None
        self.theme = theme_for()
        self._build_panels()
        self._build_controls()
        self._build_menus()
        self.context = self._build_context()
        self.layouts = Layouts(self)  # View ▸ Layout, Maximise view (app/layouts.py)
        self._build_status_bar()
        self._wire()
        self.apply_theme(self.theme)
        self.resize(DEFAULT_SIZE)
        app = QApplication.instance()
        if app is not None:
            app.aboutToQuit.connect(self.shutdown)
        self._on_problem(self.session.problem, self.session.solver_cls)
        if install_classroom:
            self._install_classroom()
        self.experiments = experiments.install(self.context)  # the Experiments menu (docs/experiments.md)
        # what the process held before (a notebook's, a test suite's objects) leaves later full collections:
        # one of 250,000 unfrozen objects took 0.25 s of the UI thread mid-drag (CI's soak; percviz.app.run.heap)
        heap.collect_on_ui_thread()
        heap.settle()

    @property
    def title(self) -> str:
        """The scene's title (kept by the scene model)."""
        return self.scene.title

    @title.setter
    def title(self, text: str) -> None:
        self.scene.title = text

    @property
    def explanation(self) -> str:
        """The scene's explanation (kept by the scene model)."""
        return self.scene.explanation

    @explanation.setter
    def explanation(self, text: str) -> None:
        self.scene.explanation = text

    # -- construction --------------------------------------------------------------------------------------
    def _build_panels(self) -> None:
        for cls in PANELS:
            panel = cls(self.scene, self)
            if not panel.objectName():
                panel.setObjectName(cls.view)
            self.panels[cls.view] = panel
        canvas, curves = self.panels["canvas"], self.panels["curves"]
        self.session.busy_checks.append(lambda: canvas.computing_picture)
        if not canvas.accessibleName():
            canvas.setAccessibleName("canvas")
        self.splitter = QSplitter(Qt.Orientation.Vertical)
        self.splitter.setObjectName("canvas_curves")
        self.splitter.setChildrenCollapsible(False)
        self.splitter.addWidget(canvas)
        self.splitter.addWidget(curves)
        self.splitter.setStretchFactor(0, 3)
        self.splitter.setStretchFactor(1, 1)
        self.splitter.setSizes([560, 200])
        self.setCentralWidget(self.splitter)
        self.setDockOptions(QMainWindow.DockOption.AnimatedDocks | QMainWindow.DockOption.AllowTabbedDocks)
        for name, title in DOCK_TITLES.items():
            dock = QDockWidget(title, self)
            dock.setObjectName(name)
            dock.setWidget(self.panels[name])
            dock.setMinimumWidth(260)
            self.addDockWidget(Qt.DockWidgetArea.RightDockWidgetArea, dock)
            dock.visibilityChanged.connect(lambda vis, n=name: self.dock_views.on_dock_visibility(n, vis))
            self.docks[name] = dock
        docks = list(self.docks.values())
        for upper, lower in zip(docks, docks[1:]):
            self.splitDockWidget(upper, lower, Qt.Orientation.Vertical)

    def _build_controls(self) -> None:
        self.controls = ControlsPanel(self.scene, self.session, feed=self.feed)
        self.controls.setObjectName("controls")
        scroll = QScrollArea()
        scroll.setWidget(self.controls)
        scroll.setWidgetResizable(True)
        scroll.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        scroll.setFrameShape(QScrollArea.Shape.NoFrame)
        # the status box (the run's outcome) is pinned under the scrolled controls: at 1280×800 it sat below the
        # fold for half the algorithms (svm, smo, snkp, the von Neumann family…), where a lecturer never saw it
        status = self.controls.status
        status.parentWidget().layout().removeWidget(status)
        holder = QWidget()
        column = QVBoxLayout(holder)
        column.setContentsMargins(0, 0, 0, 0)
        column.setSpacing(2)
        column.addWidget(scroll, 1)
        pinned = QVBoxLayout()
        m = self.controls.layout().contentsMargins()
        pinned.setContentsMargins(m.left(), 0, m.right() + 6, m.bottom())  # in line with the controls' boxes
        pinned.addWidget(status)
        column.addLayout(pinned)
        dock = QDockWidget("Controls", self)
        dock.setObjectName("controls_dock")
        dock.setWidget(holder)
        dock.setFeatures(QDockWidget.DockWidgetFeature.DockWidgetMovable | QDockWidget.DockWidgetFeature.DockWidgetFloatable | QDockWidget.DockWidgetFeature.DockWidgetClosable)
        dock.setMinimumWidth(self.controls.minimumWidth() + 16)
        self.addDockWidget(Qt.DockWidgetArea.LeftDockWidgetArea, dock)
        self.docks["controls"] = dock
        self.resizeDocks([dock], [330], Qt.Orientation.Horizontal)

    def add_action(self, menu, text: str, slot, shortcut=None, tip: str = "") -> QAction:
        """A menu entry (menu: one of file_menu, edit_menu, run_menu, view_menu, help_menu) running slot()."""
        return self._action(menu, text, slot, shortcut, tip)

    def _action(self, menu, text: str, slot, shortcut=None, tip: str = "") -> QAction:
        act = QAction(text, self)
        if shortcut is not None:
            seqs = shortcut if isinstance(shortcut, (list, tuple)) else [shortcut]
            act.setShortcuts([QKeySequence(s) for s in seqs])
        act.setShortcutContext(Qt.ShortcutContext.WindowShortcut)
        if tip:
            act.setStatusTip(tip)
            act.setToolTip(tip)
        act.triggered.connect(lambda _checked=False: slot())
        menu.addAction(act)
        return act

    def _build_menus(self) -> None:
        bar = self.menuBar()
        self.file_menu = bar.addMenu("&File")
        self.file_menu.addSeparator()
        self.quit_action = self._action(self.file_menu, "&Quit", self.close, QKeySequence.StandardKey.Quit)

        self.edit_menu = bar.addMenu("&Edit")
        self.undo_action = self._action(self.edit_menu, "&Undo", self.scene.undo, "Ctrl+Z")
        self.redo_action = self._action(self.edit_menu, "&Redo", self.scene.redo, ["Ctrl+Shift+Z", "Ctrl+Y"])
        self.edit_menu.addSeparator()
        self.clear_action = self._action(self.edit_menu, "&Clear all points", self._clear, "Ctrl+Shift+Backspace", "Remove every point (undoable)")

        self.run_menu = bar.addMenu("&Run")
        s = self.session
        self.step_action = self._action(self.run_menu, "&Step", self._if_forms_valid(s.step), "Space", "One update of the algorithm")
        self.play_action = self._action(self.run_menu, "&Play / Pause", self._if_forms_valid(s.toggle_play), "P",
                                        "Animate at the chosen speed")
        self.run_action = self._action(self.run_menu, "Run to &end", self._if_forms_valid(s.run_to_end), ["Ctrl+Return", "Ctrl+Enter"],
                                       "Run as fast as possible until the algorithm halts")
        self.reset_action = self._action(self.run_menu, "&Reset", s.reset, ["R", "Home"], "Back to iteration 0")
        self.run_menu.addSeparator()
        self.back_action = self._action(self.run_menu, "History &back", lambda: s.scrub(-1), ["Left", "Alt+Left"])
        self.forward_action = self._action(self.run_menu, "History &forward", lambda: s.scrub(1), ["Right", "Alt+Right"])

        self.view_menu = bar.addMenu("&View")
        canvas = self.panels["canvas"]
        self._action(self.view_menu, "&Fit to data", canvas.fit_to_data, ["F", "Ctrl+0"], "Zoom so that every point is visible")
        self.view_menu.addSeparator()
        self._add_input_distances_action(canvas)
        self.view_actions: dict[str, QAction] = {}
        controls_act = self.docks["controls"].toggleViewAction()
        controls_act.setText("&Controls")
        self.view_menu.addAction(controls_act)
        self.curves_action = QAction("C&urves", self, checkable=True, checked=True)
        self.curves_action.toggled.connect(self._show_curves)
        self.view_menu.addAction(self.curves_action)
        self.view_actions["curves"] = self.curves_action
        for name, dock in self.docks.items():
            if name == "controls":
                continue
            act = QAction(DOCK_TITLES[name], self, checkable=True, checked=True)
            act.toggled.connect(lambda on, n=name: self.dock_views.want_panel(n, on))
            self.view_menu.addAction(act)
            self.view_actions[name] = act

        self.help_menu = bar.addMenu("&Help")
        self._action(self.help_menu, "&About percviz", self._about)

    def _add_input_distances_action(self, canvas) -> None:
        """View ▸ Input distances: each point's segment to f = 0 (percviz.app.panels.input_distance_layer)."""
        from percviz.app.panels.input_distance_layer import InputDistanceLayer

        self.input_layer = InputDistanceLayer(canvas, self)
        act = QAction("&Input distances", self, checkable=True, checked=False)
        act.setObjectName("action_input_distances")
        act.setToolTip("Show each point's distance to the curve f = 0 and the input-space margin")
        act.toggled.connect(self.input_layer.set_enabled)
        self.view_menu.addAction(act)
        self.input_distances_action = act
        self.view_menu.addSeparator()

    def _if_forms_valid(self, start: Callable[[], None]) -> Callable[[], None]:
        """A run key starts nothing while a parameter field shows an error (pausing always works)."""

        def run() -> None:
            if not self.controls.forms_valid() and self.session.state not in ("playing", "running"):
                self.show_message("Fix the value marked in red in the side panel first.", 6000)
                return
            start()

        return run

    def _build_context(self) -> AppContext:
        """The services each feature receives (percviz.app.context)."""
        menus = Menus(file=self.file_menu, edit=self.edit_menu, run=self.run_menu, view=self.view_menu,
                      help=self.help_menu)
        return AppContext(window=self, scene=self.scene, session=self.session, feed=self.feed, panels=self.panels,
                          docks=self.docks, controls=self.controls, menus=menus, prefs=Preferences(),
                          dialogs=dialogs.for_window(self), close_guards=self.close_guards)

    def _build_status_bar(self) -> None:
        """The message on the left (whole words), the cursor's position and the point counts on the right."""
        extra = self.input_layer.caption if self.input_layer is not None else None
        self.status_parts = StatusParts(self.statusBar(), self.panels["canvas"].plot.viewport(), extra)
        self.cursor_label, self.points_label = self.status_parts.cursor, self.status_parts.points

    def _wire(self) -> None:
        s = self.session
        # Each panel subscribes itself to the run's feed (percviz.app.run.panel_feed), before the window's own problem
        # slot: the window then shows the docks the new algorithm has (a panel shown catches up by itself).
        for panel in self.panels.values():
            panel.bind(self.feed, on_error=self._panel_failed)
        self.feed.subscribe(problem=self._on_problem)
        if self.input_layer is not None:
            self.feed.subscribe(snapshot=self.input_layer.set_snapshot, owner=self.input_layer)
        for panel in self.panels.values():
            panel.pointHovered.connect(lambda i, src=panel: self._link_hover(src, i))
        s.errorRaised.connect(lambda text: self.statusBar().showMessage(text, 6000))
        canvas = self.panels["canvas"]
        self.controls.classChanged.connect(self._set_current_class)
        canvas.cursorMoved.connect(self._on_cursor)
        self.scene.points_changed.connect(lambda _kind: self._update_edit_actions())
        self.scene.settings_changed.connect(lambda _settings: self._update_edit_actions())
        self._update_edit_actions()

    def _install_classroom(self) -> None:
        self.classroom = classroom.install(self.context)
        self._settle_docks()

    def _settle_docks(self) -> None:
        """Give the controls the height they need when other docks share their side of the window."""
        controls = self.docks["controls"]
        area = self.dockWidgetArea(controls)
        others = [d for d in self.findChildren(QDockWidget)
                  if d is not controls and self.dockWidgetArea(d) == area and not d.isHidden()
                  and not self.tabifiedDockWidgets(d)]
        if others:
            want = self.controls.sizeHint().height() + self.controls.status.sizeHint().height() + 14
            rest = max(140, DEFAULT_SIZE.height() - 80 - want)
            self.resizeDocks([controls, *others], [want] + [rest // len(others)] * len(others), Qt.Orientation.Vertical)

    # -- public API ---------------------------------------------------------------------------------------------
    def load_preset(self, preset) -> None:
        """Show a scene: its points (a fresh undo history), settings, title and view settings."""
        cls = None
        with suppress(PercvizError):
            from percviz.core.solvers import get_solver

            cls = get_solver(preset.algorithm)
        max_iter = preset.max_iter if preset.max_iter is not None else (Settings.max_iter if cls is None else cls.default_max_iter)
        with self.session.batch():
            self.scene.set_points(preset.points, undoable=False)
            self.scene.set_settings(
                undoable=False,
                kernel=preset.kernel,
                features=preset.features,
                algorithm=preset.algorithm,
                params=dict(preset.params),
                max_iter=int(max_iter),
            )
        self.scene.mark_saved()
        self.title = preset.title
        self.explanation = preset.explanation
        self.view_settings = preset.view
        self.dock_views.set_pending_view(preset.view)
        if self.scene.n > SPLIT_RESTART_N:  # the view (docks, curves, theme) in a turn after the points' drawing
            # (timers: 0 would be a posted call, same turn; two in a row, so that the view comes a turn after the
            # split restart's, which the edit's timer runs in the next one)
            QTimer.singleShot(1, self, lambda: QTimer.singleShot(1, self, self.dock_views.apply_pending_view))
        else:
            self.dock_views.apply_pending_view()
        self.setWindowTitle(f"{preset.title} — percviz" if preset.title else "percviz")
        self.presetLoaded.emit(preset)

    def current_preset(self):
        """The scene as a Preset (points, settings, title, view) for saving or export."""
        from percviz.core.presets import Preset, ViewSettings

        s = self.scene.settings
        base = self.view_settings or ViewSettings()
        panels = tuple(n for n in ("canvas", "curves", "weight", "feature") if self.dock_views.panel_wanted(n))
        changes: dict[str, Any] = {"panels": panels}
        r = self.panels["canvas"].view_range()
        if r is not None:
            changes["range"] = tuple(float(v) for v in r)
        view = ViewSettings(**{**base.__dict__, **changes})
        return Preset(
            points=self.scene.points,
            title=self.title,
            explanation=self.explanation,
            kernel=s.kernel,
            features=s.features,
            algorithm=s.algorithm,
            params=dict(s.params),
            max_iter=s.max_iter,
            view=view,
        )

    def start_untitled(self) -> None:
        """The scene is a new untitled one: its title and explanation go (the files feature forgets its file)."""
        self.scene.title, self.scene.explanation = "Untitled scene", ""
        self.untitledScene.emit()

    def show_message(self, text: str, timeout_ms: int = 4000) -> None:
        self.statusBar().showMessage(text, timeout_ms)

    def show_error(self, title: str, text: str) -> None:
        """A window-modal message box that does not block the caller."""
        self._error_box = self.context.dialogs.warning(title, text)
        self.statusBar().showMessage(text, 8000)

    def apply_theme(self, theme) -> None:
        """Restyle every panel (and the class buttons) with a percviz.app.theme.Theme."""
        self.theme = theme
        split = self.scene.n > SPLIT_RESTART_N and self.isVisible()
        for name, panel in self.panels.items():
            if split and name != "canvas":  # a large scene: each other panel restyles and repaints in a turn of its own
                panel.setUpdatesEnabled(False)  # and paints only then: not at the old look in the relayout's turn
                self.session.frames.first_draw(f"theme:{name}", lambda p=panel: self._restyle_held(p))
            else:
                panel.apply_theme(theme)
        self.controls.apply_theme(theme)
        if self.input_layer is not None:
            self.input_layer.apply_theme(theme)
        self._grey_disabled(theme)
        for listener in self.context.theme_listeners:  # the Experiments windows
            listener(theme)

    def _restyle_held(self, panel) -> None:
        """A large scene's panel in its own turn: the current theme, then its held paints (one repaint); its new
        fonts' relayout (the curves dock's height) settled at once, the window and the canvas drawn next turn."""
        hold = self.classroom is not None and self.updatesEnabled()
        if hold:
            self.setUpdatesEnabled(False)
        try:
            panel.apply_theme(self.theme)
        finally:
            panel.setUpdatesEnabled(True)
            if hold:
                self.classroom.settle_layout()

    def _grey_disabled(self, theme) -> None:
        """Disabled buttons, labels and menu entries drawn half-way between text and background."""
        from PySide6.QtGui import QColor, QPalette

        fg, bg = QColor(theme.foreground), QColor(theme.panel)
        grey = QColor(*(round(0.45 * a + 0.55 * b) for a, b in zip(fg.getRgb()[:3], bg.getRgb()[:3])))
        pal = self.palette()
        for role in (QPalette.ColorRole.ButtonText, QPalette.ColorRole.WindowText, QPalette.ColorRole.Text):
            pal.setColor(QPalette.ColorGroup.Disabled, role, grey)
        self.setPalette(pal)

    # -- behaviour ----------------------------------------------------------------------------------------------
    def _clear(self) -> None:
        self.scene.clear()
        self.show_message("Cleared all points (Ctrl+Z restores them).")

    def _update_edit_actions(self) -> None:
        sc = self.scene
        self.undo_action.setEnabled(sc.can_undo)
        self.redo_action.setEnabled(sc.can_redo)
        self.undo_action.setText(f"&Undo {sc.undo_text()}" if sc.can_undo else "&Undo")
        self.redo_action.setText(f"&Redo {sc.redo_text()}" if sc.can_redo else "&Redo")
        self.clear_action.setEnabled(sc.n > 0)
        counts = np.bincount(sc.points.classes, minlength=2) if sc.n else np.zeros(2, int)
        solver_cls = self.session.solver_cls
        multiclass = solver_cls is not None and solver_cls.representation == "multiclass"
        if multiclass:  # classes 1…c, as on the class buttons and in the canvas tooltips
            parts = [f"{int(k)} in class {c + 1}" for c, k in enumerate(counts) if k]
        else:
            names = ["+", "−"] + [f"class {c + 1}" for c in range(2, len(counts))]
            parts = [f"{int(k)} {name}" for name, k in zip(names, counts) if k or name in ("+", "−")]
        self.points_label.setText("   " + "   ".join(parts) + "  ")  # apart from the cursor's "y = 1.245"

    def _show_curves(self, on: bool) -> None:
        self.quiet_relayout(lambda: self.panels["curves"].setVisible(on))  # shown again, it catches up by itself

    def quiet_relayout(self, change) -> None:
        """A large scene: `change` (a view shown or hidden) relaid out in one pass, the window painted next turn."""
        hold = (self.classroom is not None and self.scene.n > SPLIT_RESTART_N and self.isVisible()
                and self.updatesEnabled())
        if hold:
            self.setUpdatesEnabled(False)
        try:
            change()
        finally:
            if hold:
                self.classroom.settle_layout()

    def _set_current_class(self, cls: int) -> None:
        self.panels["canvas"].set_current_class(cls)

    def _on_cursor(self, x: float, y: float) -> None:
        self.status_parts.show_cursor(x, y)

    def _link_hover(self, source: QWidget, index: int) -> None:
        target = None if index is None or index < 0 else int(index)
        for panel in self.panels.values():
            if panel is not source:
                panel.highlight_point(target)

    # -- the docks (percviz.app.dock_views) ------------------------------------------------------------------------
    @property
    def closed(self) -> bool:
        """Whether the window has shut down."""
        return self._closed

    @property
    def _wanted(self) -> dict[str, bool]:
        return self.dock_views.wanted

    def updating_docks(self):
        """Docks hidden or shown inside this block are a layout's doing: not taken as closed by the user."""
        return self.dock_views.updating_docks()

    def want_view(self, name: str, on: bool = True) -> None:
        self.dock_views.want_view(name, on)

    def view_wanted(self, name: str) -> bool:
        return self.dock_views.view_wanted(name)

    def user_panels(self) -> set[str]:
        """The views the user opened by hand (View menu) and has not closed since."""
        return self.dock_views.user_panels()

    def sync_docks(self) -> None:
        """The docks of the views the algorithm declares and the user wants, whatever a restored layout said."""
        self.dock_views.sync_docks()

    def _on_problem(self, problem, solver_cls) -> None:
        self.dock_views.update_docks(solver_cls)  # the panels shown catch up by themselves
        self._update_edit_actions()

    def _live(self, name: str) -> bool:
        """Whether a panel is shown (or will be when the window is): only those are fed."""
        return self.panels[name].feed.shown()

    def _panel_failed(self, name: str) -> None:
        self.show_message(f"The {name} panel could not draw this run (details on the console).", 8000)

    def _about(self) -> None:
        from percviz import __version__

        QMessageBox.about(
            self,
            "About percviz",
            f"<b>percviz {__version__}</b><p>Interactive perceptrons, kernels, margins and certificates: "
            "place points, choose a kernel and an algorithm, and step through the run while the decision "
            "boundary, the solution cone, the feature space and the convergence curves redraw.</p>",
        )

    # -- closing -------------------------------------------------------------------------------------------------
    def closeEvent(self, event) -> None:
        for guard in list(self.close_guards):
            if guard() is False:
                event.ignore()
                return
        self.shutdown()
        super().closeEvent(event)

    def shutdown(self) -> None:
        """Stop the solver thread (idempotent); called when the window closes."""
        if not self._closed:
            self._closed = True
            self.session.shutdown()
            if self.input_layer is not None:
                self.input_layer.shutdown()
            for panel in self.panels.values():  # panels with their own threads (feature picture) stop them too
                panel.shutdown()
