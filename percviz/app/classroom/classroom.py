"""What makes percviz work in a lecture hall, installed on the main window by `install(window)`.

- Presentation mode (F5; View menu) scales fonts, markers and lines ≥ 2× through `apply_theme` on
  every panel and the window font; F11 toggles full screen; View ▸ Theme picks light, dark,
  high-contrast light/dark or the colour-blind-safe palette.
- A caption over the canvas: algorithm, iteration, current margin (and the final status).
- Keyboard: Space step, P play/pause, R reset, ←/→ scrub the history, F fit the view,
  Ctrl+Z / Ctrl+Shift+Z undo/redo, Ctrl+S / Ctrl+O save/open; F1 or ? shows them all.
- An info dock with the scene's title and explanation (editable for a teacher preparing scenes).
- File menu: Open…, Open Recent, Save, Save As…, Import/Export CSV…, Export picture…, Export animation…;
  drag-and-drop of a preset or CSV; unsaved-changes guard; autosave and crash recovery
  (see `percviz.app.classroom.file_actions` for the dialog hooks tests use, and `percviz.app.classroom.autosave`).
- Preferences (theme, presentation scale, last folder, recent files, window layout) in QSettings
  (`percviz.app.prefs`; `PERCVIZ_CONFIG_DIR` redirects them).
"""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QEvent, QObject, Qt, QTimer
from PySide6.QtGui import QAction, QActionGroup, QFont, QGuiApplication, QKeySequence, QTextCharFormat, QTextCursor
from PySide6.QtWidgets import (
    QApplication,
    QDialog,
    QDialogButtonBox,
    QDockWidget,
    QFormLayout,
    QLineEdit,
    QMenu,
    QPlainTextEdit,
    QPushButton,
    QTextBrowser,
    QVBoxLayout,
    QWidget,
)

from percviz.app.classroom import file_actions
from percviz.app.classroom.autosave import prune_orphans
from percviz.app.classroom.export_dialogs import AnimationDialog, AnimationRunner, HandoutRunner, PictureDialog, export_picture
from percviz.app.classroom.file_actions import FileActions
from percviz.app.classroom.help_page import HelpSheet, help_rows, show_glossary
from percviz.app.classroom.keys import FocusKeeper
from percviz.app.run.live import LiveMode
from percviz.app.panels.presentation_bar import PresentationLayout
from percviz.app.panels.overlays import SHORTCUT_ROWS, RunOverlay, attach_run_overlay
from percviz.app.prefs import Preferences
from percviz.app.run.session import SPLIT_RESTART_N
from percviz.app.theme import PRESENTATION_SCALE, THEMES, Theme, theme_for

PICTURE_FILTERS = "PNG picture (*.png);;SVG drawing (*.svg)"
ANIMATION_FILTERS = "Animated GIF (*.gif);;MP4 video (*.mp4)"


def install(window) -> "Classroom":
    """Add the classroom features to a MainWindow; the result is also `window.classroom`."""
    classroom = Classroom(window)
    window.classroom = classroom
    return classroom


class InfoPanel(QWidget):
    """The scene's title and explanation for the audience, in one scrolling page; Edit… changes them."""

    def __init__(self, classroom: "Classroom"):
        super().__init__()
        self.classroom = classroom
        self.setObjectName("info_panel")
        lay = QVBoxLayout(self)
        lay.setContentsMargins(6, 4, 6, 4)
        self.text = QTextBrowser()
        self.text.setObjectName("info_text")
        self.text.setOpenLinks(False)
        self.text.setFrameShape(QTextBrowser.NoFrame)
        self.edit = QPushButton("Edit title and explanation…")
        self.edit.clicked.connect(classroom.edit_info)
        lay.addWidget(self.text, 1)
        lay.addWidget(self.edit, 0, Qt.AlignRight)
        self.title_text = ""
        self.explanation = ""
        self._title_pt = 12.0

    def show_scene(self, title: str, explanation: str) -> None:
        self.title_text, self.explanation = title or "Untitled scene", explanation or ""
        self.text.setMarkdown(explanation or "*No explanation yet: use Edit to write one for the audience.*")
        # the title goes first, as a heading of the same scrolling page (never clipped by a short dock)
        cursor = QTextCursor(self.text.document())
        cursor.movePosition(QTextCursor.Start)
        fmt = QTextCharFormat()
        fmt.setFontWeight(QFont.Bold)
        fmt.setFontPointSize(self._title_pt)
        cursor.insertText(self.title_text, fmt)
        cursor.insertBlock()

    def apply_theme(self, theme: Theme) -> None:
        self._title_pt = theme.title_pt
        self.text.setFont(theme.font(theme.font_pt))
        self.show_scene(self.title_text, self.explanation)


class Classroom(QObject):
    """Presentation mode, themes, shortcuts, help, info panel, files, export, preferences of one window."""

    def __init__(self, window):
        super().__init__(window)
        self.setObjectName("classroom")
        self.window = window
        self.prefs = Preferences()
        self.theme_name = self.prefs.theme
        self.presenting = False
        self.base_font_pt = QApplication.font().pointSizeF() if QApplication.font().pointSizeF() > 0 else 10.0
        self.actions: dict[str, QAction] = {}
        self.theme = theme_for(self.theme_name, 1.0)

        self.files = FileActions(window, self.prefs)
        self.animations = AnimationRunner(window, self.theme)
        self.handouts = HandoutRunner(window)
        self._build_overlays()
        self._build_info_dock()
        self._build_file_menu()
        self._build_view_menu()
        self._bind_keys()
        self._build_help()
        window.presetLoaded.connect(self._on_preset_loaded)
        if hasattr(window, "close_guards"):
            window.close_guards.append(self._close_guard)
        else:
            self.files.guard_close_events(self._close_guard)
        # forms are rebuilt when the algorithm or kernel changes: their new fields get the theme's borders too
        window.scene.settings_changed.connect(lambda _s: QTimer.singleShot(0, lambda: self.style_fields(self.theme)))
        self.prefs.restore_window(window)
        self.presentation_layout.reset_desk()  # a layout saved while presenting (older versions) opens as the desk
        self.apply()
        self.refresh_info()
        QTimer.singleShot(0, self._offer_restore)

    # -- construction --------------------------------------------------------------------------------
    def _build_overlays(self) -> None:
        w = self.window
        canvas = w.panels.get("canvas")
        self.caption: RunOverlay | None = attach_run_overlay(canvas, self.theme) if canvas is not None else None
        if self.caption is not None:
            w.session.problemChanged.connect(self._caption_problem)
            w.session.snapshotShown.connect(self.caption.show_snapshot)
            self.caption.set_solver(w.session.solver_cls)
            current = getattr(w.session, "current", None)
            if current is not None:
                self.caption.show_snapshot(current)
        self.help = HelpSheet(w, SHORTCUT_ROWS, self.theme)
        if canvas is not None and hasattr(canvas, "title"):
            w.session.problemChanged.connect(lambda _p, cls: self._title_canvas(canvas, cls))
            self._title_canvas(canvas, w.session.solver_cls)

    def _caption_problem(self, _problem, solver_cls) -> None:
        """A new run: the caption starts over, except for a dragged point's rerun of the same algorithm (it keeps
        the last caption until the rerun's snapshot, like the canvas keeps its picture: one repaint per move)."""
        if self.caption is None:
            return
        if self.window.scene.dragging and solver_cls is self.caption._solver_cls and self.caption._snapshot is not None:
            return
        self.caption.set_solver(solver_cls)

    @staticmethod
    def _title_canvas(canvas, solver_cls) -> None:
        """Multi-class scenes show class regions (argmax), two-class ones the decision function f."""
        multi = getattr(solver_cls, "representation", "") == "multiclass"
        canvas.title.setText("Class regions  argmax_j f_j(x)" if multi else "Decision function  f(x)")

    def _build_info_dock(self) -> None:
        self.info = InfoPanel(self)
        dock = QDockWidget("About this scene", self.window)
        dock.setObjectName("info")
        dock.setWidget(self.info)
        self.window.addDockWidget(Qt.LeftDockWidgetArea, dock)
        controls = getattr(self.window, "docks", {}).get("controls")
        if controls is not None:
            self.window.splitDockWidget(controls, dock, Qt.Vertical)
        self.info_dock = dock

    def _taken(self) -> set[str]:
        keys = set()
        for a in self.window.findChildren(QAction):
            keys.update(s.toString() for s in a.shortcuts())
        return keys

    def _build_file_menu(self) -> None:
        extra = (
            (None,) * 5,
            ("export_picture", "Export &picture…", None, self.export_picture_dialog,
             "Save the window or one view as PNG/SVG at a chosen scale"),
            ("export_animation", "Export &animation…", None, self.export_animation_dialog,
             "Save iterations a..b of the run as an animated GIF or MP4"),
            ("export_handout", "Export &handout (HTML)…", None, self.export_handout_dialog,
             "Save the run as one HTML page that students play and scrub in any browser (no network)"),
        )
        self.files.build_menu(self.window.file_menu, self._taken(), extra)
        self.actions.update(self.files.actions)

    def _build_view_menu(self) -> None:
        w, menu = self.window, self.window.view_menu
        menu.addSeparator()
        present = QAction("&Presentation mode", w, checkable=True)
        present.setObjectName("action_presentation")
        present.setStatusTip("Large type, markers and lines for a projector")
        present.setShortcut(QKeySequence("F5"))
        present.toggled.connect(self.set_presentation)
        full = QAction("&Full screen", w, checkable=True)
        full.setObjectName("action_full_screen")
        full.setShortcut(QKeySequence("F11"))
        full.toggled.connect(self.set_full_screen)
        caption = QAction("Run &caption on the canvas", w, checkable=True, checked=True)
        caption.toggled.connect(lambda on: self.caption.set_enabled_overlay(on) if self.caption else None)
        for a in (present, full, caption):
            a.setShortcutContext(Qt.WindowShortcut)
            menu.addAction(a)
            w.addAction(a)
        self.actions.update(presentation=present, full_screen=full, caption=caption)

        themes = menu.addMenu("&Theme")
        group = QActionGroup(themes)
        for name, theme in THEMES.items():
            a = themes.addAction(theme.label)
            a.setCheckable(True)
            a.setChecked(name == self.theme_name)
            a.setObjectName(f"theme_{name}")
            a.triggered.connect(lambda _=False, n=name: self.set_theme(n))
            group.addAction(a)
        scales = menu.addMenu("Presentation &scale")
        sgroup = QActionGroup(scales)
        for s in (2.0, 2.5, 3.0):
            a = scales.addAction(f"{s:g}×")
            a.setCheckable(True)
            a.setChecked(abs(s - self.prefs.presentation_scale) < 1e-9)
            a.triggered.connect(lambda _=False, v=s: self.set_presentation_scale(v))
            sgroup.addAction(a)
        menu.addSeparator()
        menu.addAction(self.info_dock.toggleViewAction())

    def _bind_keys(self) -> None:
        """Record the action behind each classroom key; the window's own actions already carry the keys."""
        w, s = self.window, self.window.session
        fit = getattr(w.panels.get("canvas"), "fit_to_data", None)
        jobs = (
            # (name, key, action (None: add one), text of an added action, its slot)
            ("step", "Space", getattr(w, "step_action", None), "Step", s.step),
            ("play", "P", getattr(w, "play_action", None), "Play / Pause", s.toggle_play),
            ("reset", "R", getattr(w, "reset_action", None), "Reset", s.reset),
            ("back", "Left", getattr(w, "back_action", None), "History back", lambda: s.scrub(-1)),
            ("forward", "Right", getattr(w, "forward_action", None), "History forward", lambda: s.scrub(1)),
            ("fit", "F", None, "Fit to data", fit),
            ("undo", "Ctrl+Z", getattr(w, "undo_action", None), "Undo", w.scene.undo),
            ("redo", "Ctrl+Shift+Z", getattr(w, "redo_action", None), "Redo", w.scene.redo),
            ("save", "Ctrl+S", self.files.actions.get("save"), "Save", self.files.save),
            ("open", "Ctrl+O", self.files.actions.get("open"), "Open…", self.files.open_dialog),
        )
        by_key = {}
        for a in w.findChildren(QAction):
            for seq in a.shortcuts():
                by_key.setdefault(seq.toString(), a)
        for name, key, action, text, slot in jobs:
            seq = QKeySequence(key)
            action = action or by_key.get(seq.toString())
            if action is None:
                if slot is None:
                    continue
                action = QAction(text, w)
                action.setShortcut(seq)
                action.setShortcutContext(Qt.WindowShortcut)
                action.triggered.connect(lambda _=False, f=slot: f())
                w.addAction(action)
            self.actions[name] = action
        self.live = LiveMode(w, self.prefs)
        self.presentation_layout = PresentationLayout(w)
        clear = getattr(w, "clear_action", None)
        if clear is not None:
            clear.triggered.connect(lambda _=False: self.new_untitled())
        self._add_run_keys()
        self.focus_keeper = FocusKeeper(w)

    def _add_run_keys(self) -> None:
        """End, a guarded Reset, Delete and the class keys, each as a menu item (so F1 can list them)."""
        w, s = self.window, self.window.session
        controls = getattr(w, "controls", None)
        run_menu = getattr(w, "run_menu", None)
        reset = self.actions.get("reset")
        if controls is not None and hasattr(controls, "request_reset") and reset is not None:
            reset.triggered.disconnect()
            reset.triggered.connect(lambda _=False: controls.request_reset())
            controls.resetArmed.connect(lambda text: w.show_message(text, 4000))
            reset.setText("&Reset (asks before discarding a long run)")
        if run_menu is not None:
            end = QAction("Latest snapshot", w)
            end.setObjectName("action_latest")
            end.setShortcut(QKeySequence("End"))
            end.setShortcutContext(Qt.WindowShortcut)
            end.triggered.connect(lambda _=False: s.show_index(len(s.history) - 1))
            forward = self.actions.get("forward")
            run_menu.insertAction(_after(run_menu, forward), end)
            self.actions["latest"] = end
        edit = getattr(w, "edit_menu", None)
        canvas = w.panels.get("canvas")
        if edit is None or canvas is None:
            return
        delete = QAction("&Delete point under the cursor", w)
        delete.setObjectName("action_delete_point")
        delete.setShortcuts([QKeySequence("Delete"), QKeySequence("Backspace")])
        delete.setShortcutContext(Qt.WindowShortcut)
        delete.triggered.connect(lambda _=False: getattr(canvas, "delete_hovered", lambda: False)())
        edit.insertAction(_after(edit, getattr(w, "redo_action", None)), delete)
        self.actions["delete_point"] = delete
        if controls is None:
            return
        place = QMenu("&Place class", edit)
        place.setObjectName("menu_place")
        for cls, button in enumerate(controls.class_selector.buttons):
            a = place.addAction(f"Class {button.text()} (multi-class: {cls + 1})" if cls < 2 else f"Class {cls + 1}")
            a.setObjectName(f"action_place_{cls}")
            a.setShortcut(QKeySequence(str(cls + 1)))
            a.setShortcutContext(Qt.WindowShortcut)
            a.triggered.connect(lambda _=False, c=cls: controls.class_selector.set_current_class(c))
            w.addAction(a)
        edit.insertMenu(_after(edit, delete), place)
        generate = QAction("&Generate points…", w)
        generate.setObjectName("action_generate")
        generate.setShortcut(QKeySequence("Ctrl+G"))
        generate.setShortcutContext(Qt.WindowShortcut)
        generate.setStatusTip("Blobs, two moons, circles, XOR, spirals or a separable set with a chosen margin")
        generate.triggered.connect(lambda _=False: self.generate_dialog())
        edit.insertAction(_after(edit, place.menuAction()), generate)
        self.actions["generate"] = generate
        from percviz.app.classroom.brush import Brush

        self.brush = Brush(w)
        brush = QAction("&Brush: drag to paint points", w, checkable=True)
        brush.setObjectName("action_brush")
        brush.setShortcut(QKeySequence("B"))
        brush.setShortcutContext(Qt.WindowShortcut)
        brush.toggled.connect(self.brush.set_on)
        edit.insertAction(_after(edit, generate), brush)
        self.actions["brush"] = brush
        sizes = QMenu("Brush &spread", edit)
        group = QActionGroup(sizes)
        for label, spread in (("Narrow (0.15)", 0.15), ("Medium (0.3)", 0.3), ("Wide (0.6)", 0.6)):
            a = sizes.addAction(label)
            a.setCheckable(True)
            a.setChecked(spread == self.brush.spread)
            a.triggered.connect(lambda _=False, v=spread: setattr(self.brush, "spread", v))
            group.addAction(a)
        edit.insertMenu(_after(edit, brush), sizes)
        dens = QMenu("Brush &density", edit)
        dens.setObjectName("menu_brush_density")
        dgroup = QActionGroup(dens)
        for label, density in (("Sparse (2 points a width)", 2.0), ("Medium (4 points a width)", 4.0),
                               ("Dense (10 points a width)", 10.0)):
            a = dens.addAction(label)
            a.setCheckable(True)
            a.setChecked(density == self.brush.density)
            a.triggered.connect(lambda _=False, v=density: setattr(self.brush, "density", v))
            dgroup.addAction(a)
        edit.insertMenu(_after(edit, sizes.menuAction()), dens)

    def _build_help(self) -> None:
        w = self.window
        action = QAction("&Keyboard shortcuts", w)
        action.setObjectName("action_help_keys")
        action.setShortcuts([QKeySequence("F1"), QKeySequence("?")])
        action.setShortcutContext(Qt.WindowShortcut)
        action.triggered.connect(self.toggle_help)
        w.addAction(action)
        help_menu = getattr(w, "help_menu", None)
        if help_menu is not None:
            first = help_menu.actions()[0] if help_menu.actions() else None
            help_menu.insertAction(first, action) if first else help_menu.addAction(action)
        self.actions["help"] = action
        if help_menu is not None:
            terms = QAction("What the &numbers mean (margins, outcomes)", w)
            terms.setObjectName("action_glossary")
            terms.triggered.connect(lambda _=False: show_glossary(w))
            help_menu.insertAction(_after(help_menu, action), terms)
            self.actions["glossary"] = terms

    def toggle_help(self) -> None:
        """F1: the sheet lists every key of every menu item (read now, so added items appear) and the mouse."""
        if not self.help.isVisible():
            self.help.set_rows(help_rows(self.window))
        self.help.toggle()

    def _on_preset_loaded(self, preset) -> None:
        """Refresh the info panel and title whenever the window shows a new scene (launch, Open, restore)."""
        self._on_loaded(preset)
        self.files._update_title()

    # -- look -------------------------------------------------------------------------------------------
    @property
    def scale(self) -> float:
        return self.prefs.presentation_scale if self.presenting else 1.0

    def current_theme(self) -> Theme:
        name = (self.prefs.presentation_theme or self.theme_name) if self.presenting else self.theme_name
        return theme_for(name, self.scale)

    def apply(self) -> None:
        """Restyle the window, every panel, the overlays and the info panel with the current theme."""
        theme = self.current_theme()
        self.theme = theme
        w = self.window
        palette = theme.palette()
        QApplication.setPalette(palette)  # menus, dialogs and popups are windows of their own: they follow the theme too
        w.setPalette(palette)
        font = QFont(w.font())
        font.setPointSizeF(self.base_font_pt * theme.scale)
        w.setFont(font)
        if hasattr(w, "apply_theme"):
            w.apply_theme(theme)
        else:
            for panel in w.panels.values():
                if hasattr(panel, "apply_theme"):
                    panel.apply_theme(theme)
        frames = getattr(getattr(w, "session", None), "frames", None)
        split = frames is not None and w.scene.n > SPLIT_RESTART_N and w.isVisible()
        for item in (self.caption, self.help, self.info):
            if item is not None and split:  # a large scene: restyled in turns of their own, as the panels are
                frames.first_draw(f"theme:{type(item).__name__}", lambda it=item: it.apply_theme(self.theme))
            elif item is not None:
                item.apply_theme(theme)
        self.animations.theme = theme
        self.style_fields(theme)

    def style_fields(self, theme: Theme) -> None:
        """Field and check-box borders in dark themes, widget by widget (see Theme.field_style_sheet)."""
        from PySide6.QtWidgets import QAbstractSpinBox, QCheckBox

        for field in self.window.findChildren(QWidget):
            if isinstance(field, QCheckBox):
                kind = "check"
            elif isinstance(field, (QLineEdit, QAbstractSpinBox)) and not isinstance(field.parentWidget(), QAbstractSpinBox):
                kind = "edit"
            else:
                continue
            sheet = theme.field_style_sheet(kind)
            field.setProperty("base_style", sheet)
            if not field.property("marked_bad"):
                field.setStyleSheet(sheet)

    def set_presentation(self, on: bool) -> None:
        on = bool(on)
        if on != self.presenting:
            self.presenting = on
            held = self._hold_paints()
            if on:
                self.presentation_layout.enter()  # remembers the desk layout first
            self.apply()
            self._fit_geometry_docks()
            if not on:
                self.presentation_layout.leave()  # the desk layout exactly as it was
            self.window.show_message("Presentation mode: F5 to leave, F11 full screen." if on else "Desk mode.")
            if held:
                self._settle_layout()
        action = self.actions.get("presentation")
        if action is not None and action.isChecked() != on:
            action.blockSignals(True)
            action.setChecked(on)
            action.blockSignals(False)

    def _hold_paints(self) -> bool:
        """A large scene: the window paints nothing until the turn after its relayout (see _settle_layout)."""
        w = self.window
        if getattr(w, "scene", None) is None or w.scene.n <= SPLIT_RESTART_N or not w.isVisible():
            return False
        w.setUpdatesEnabled(False)
        return True

    def _settle_layout(self) -> None:
        """The new fonts' relayout now, in one pass, so that the canvas's queued redraw sees the final size (else
        it draws at the old size, then again when the posted layout requests resize it); the window paints once,
        in the next turn, after that redraw."""
        w = self.window
        QApplication.sendPostedEvents(None, QEvent.Type.LayoutRequest)
        w.layout().activate()
        canvas = getattr(w, "panels", {}).get("canvas")
        if canvas is not None and hasattr(canvas, "hold_redraw"):
            canvas.hold_redraw()  # its queued redraw, too, in the next turn (a timer: after the stall probe's)

        def release() -> None:
            if canvas is not None and hasattr(canvas, "release_redraw"):
                canvas.release_redraw()
            w.setUpdatesEnabled(True)

        QTimer.singleShot(1, w, release)
        frames = getattr(getattr(w, "session", None), "frames", None)
        if frames is not None:  # the other panels' restyles (apply_theme's split) after that repaint
            frames.after_repaint()

    def _fit_geometry_docks(self) -> None:
        """The weight/feature docks grow with the presentation scale (their labels and markers do)."""
        from PySide6.QtCore import Qt

        w = self.window
        docks = [d for name, d in getattr(w, "docks", {}).items() if name in ("weight", "feature") and d.isVisible()]
        if docks:
            width = int(300 * (self.scale if self.presenting else 1.0))
            w.resizeDocks(docks, [min(width, w.width() // 4)] * len(docks), Qt.Orientation.Horizontal)

    def set_full_screen(self, on: bool) -> None:
        w = self.window
        if on and not w.isFullScreen():
            self._was_maximized = w.isMaximized()
            w.showFullScreen()
        elif not on and w.isFullScreen():
            w.showMaximized() if getattr(self, "_was_maximized", False) else w.showNormal()

    def set_theme(self, name: str) -> None:
        theme_for(name)  # validates
        self.theme_name = name
        self.prefs.theme = name
        self.apply()

    def set_presentation_scale(self, scale: float) -> None:
        self.prefs.presentation_scale = max(PRESENTATION_SCALE, float(scale))
        if self.presenting:
            self.apply()

    # -- info -----------------------------------------------------------------------------------------------
    def _on_loaded(self, preset) -> None:
        self.refresh_info()

    def refresh_info(self) -> None:
        w = self.window
        self.info.show_scene(getattr(w, "title", ""), getattr(w, "explanation", ""))

    def edit_info(self) -> bool:
        """Let the teacher write the title and explanation the audience sees."""
        w = self.window
        dlg = QDialog(w)
        dlg.setWindowTitle("Scene title and explanation")
        form = QFormLayout(dlg)
        title = QLineEdit(getattr(w, "title", ""))
        title.setMaxLength(200)
        text = QPlainTextEdit(getattr(w, "explanation", ""))
        text.setPlaceholderText("What the audience should look at (Markdown: *emphasis*, lists, …)")
        form.addRow("Title", title)
        form.addRow("Explanation", text)
        buttons = QDialogButtonBox(QDialogButtonBox.Ok | QDialogButtonBox.Cancel)
        buttons.accepted.connect(dlg.accept)
        buttons.rejected.connect(dlg.reject)
        form.addRow(buttons)
        accepted = dlg.exec() == QDialog.Accepted
        self.keys_back()
        if not accepted:
            return False
        self.set_info(title.text(), text.toPlainText())
        return True

    def generate_dialog(self) -> bool:
        """Edit ▸ Generate points…: the dialog (non-blocking; `window._generators_dialog` for tests)."""
        from percviz.app.classroom.generators_dialog import GeneratorsDialog

        dlg = GeneratorsDialog(self.window)
        self.window._generators_dialog = dlg
        dlg.finished.connect(lambda _result: self.keys_back())
        dlg.open()
        return True

    def keys_back(self) -> None:
        """After a dialog closes (Enter, Escape or a button): the window and its canvas have the keyboard again."""
        self.window.activateWindow()
        self.focus_keeper.focus_canvas()

    def new_untitled(self) -> None:
        """After Clear all points: a new untitled scene (no title, explanation or file; Save asks for a name)."""
        w = self.window
        w.title, w.explanation = "Untitled scene", ""
        self.files.current_path = None
        self.files._update_title()
        self.refresh_info()

    def set_info(self, title: str, explanation: str) -> None:
        w = self.window
        if (title, explanation) == (getattr(w, "title", ""), getattr(w, "explanation", "")):
            return
        w.title, w.explanation = title.strip() or "Untitled scene", explanation[:4000]
        w.scene.mark_modified()
        self.files.autosaver.mark_dirty()
        self.files._update_title()
        self.refresh_info()

    # -- export -----------------------------------------------------------------------------------------------
    def export_picture(self, target: str, path, scale: float = 2.0) -> Path:
        """Save the whole window ("window") or a panel ("canvas", "curves", …) as PNG/SVG."""
        return export_picture(self.window, target, path, scale)

    def export_picture_dialog(self) -> bool:
        dlg = PictureDialog(self.window, default_scale=2.0)
        if dlg.exec() != QDialog.Accepted:
            return False
        target, scale = dlg.choice()
        stem = f"{self._stem()}-{target}"
        path = file_actions._hooks().ask_save_path(self.window, "Export picture",
                                                   str(Path(self.prefs.last_folder) / f"{stem}.png"), PICTURE_FILTERS)
        if not path:
            return False
        path = Path(path) if Path(path).suffix.lower() in (".png", ".svg") else Path(path + ".png")
        try:
            self.export_picture(target, path, scale)
        except (OSError, ValueError) as e:
            self.window.show_error("Cannot export the picture", str(e))
            return False
        self.prefs.last_folder = str(path.resolve().parent)
        self.window.show_message(f"Saved {path.name}")
        return True

    def export_animation(self, path, start: int = 0, end: int | None = None, fps: float = 10,
                         panels=("canvas",), scale: float = 1.0, show_progress: bool = True):
        """Start exporting the run from iteration `start` to `end` (GIF/MP4) on a worker thread; returns the job."""
        return self.animations.start(path, start, end, fps, panels, scale, show_progress)

    def export_animation_dialog(self) -> bool:
        s = self.window.session
        latest = getattr(s, "latest", None)
        last = getattr(latest, "iteration", 0) or 0
        max_iter = int(self.window.scene.settings.max_iter)
        dlg = AnimationDialog(self.window, last if last > 0 else min(100, max_iter), max_iter)
        if dlg.exec() != QDialog.Accepted:
            return False
        opts = dlg.choice()
        path = file_actions._hooks().ask_save_path(self.window, "Export animation",
                                                   str(Path(self.prefs.last_folder) / f"{self._stem()}.gif"),
                                                   ANIMATION_FILTERS)
        if not path:
            return False
        path = Path(path) if Path(path).suffix.lower() in (".gif", ".mp4") else Path(path + ".gif")
        self.prefs.last_folder = str(path.resolve().parent)
        return self.export_animation(path, **opts) is not None

    def export_handout_dialog(self) -> bool:
        """Ask where, then record the whole run and write the handout on a background task."""
        path = file_actions._hooks().ask_save_path(self.window, "Export handout",
                                                   str(Path(self.prefs.last_folder) / f"{self._stem()}.html"),
                                                   "Handout page (*.html)")
        if not path:
            return False
        path = Path(path) if Path(path).suffix.lower() == ".html" else Path(path + ".html")
        self.prefs.last_folder = str(path.resolve().parent)
        return self.handouts.start(path) is not None

    def _stem(self) -> str:
        if self.files.current_path is not None:
            return self.files.current_path.stem
        return file_actions._slug(getattr(self.window, "title", "") or "scene")

    # -- files (shortcuts for others) ---------------------------------------------------------------------------
    def open_path(self, path) -> bool:
        return self.files.open_path(path)

    def set_current_file(self, path) -> None:
        """Tell the window which file its scene came from (launch with a preset path): Save writes there."""
        p = Path(path)
        self.files.current_path = p.resolve() if p.suffix.lower() == ".json" else None
        if p.exists():
            self.prefs.add_recent(p)
        self.files._update_title()

    # -- lifecycle -----------------------------------------------------------------------------------------------
    def _offer_restore(self) -> None:
        platform = QGuiApplication.platformName()
        hook_replaced = file_actions.ask_restore is not _DEFAULT_ASK_RESTORE
        self.files.clean_leftovers()
        if platform in ("offscreen", "minimal") and not hook_replaced:
            prune_orphans(self.files.autosaver.folder)  # no dialog here; leftovers go, the newest autosaves stay
            return
        self.files.offer_restore()

    def _close_guard(self) -> bool:
        if not self.files.maybe_save("closing"):
            return False
        self.shutdown()
        return True

    def shutdown(self) -> None:
        """Window closing: stop an export, remember the layout, leave no autosave behind."""
        self.animations.cancel_and_wait()
        self.handouts.cancel_and_wait()
        self.focus_keeper.detach()
        self.presentation_layout.leave()  # the desk layout is what is remembered
        if self.window.isFullScreen():
            self.window.showNormal()
        self.prefs.save_window(self.window)
        self.prefs.sync()
        self.files.shutdown()


_DEFAULT_ASK_RESTORE = file_actions.ask_restore


def _after(menu, action):
    """The item following `action` in `menu` (None: the end), to insert right after it."""
    items = menu.actions()
    if action in items:
        i = items.index(action)
        return items[i + 1] if i + 1 < len(items) else None
    return None


__all__ = ["Classroom", "InfoPanel", "install"]
