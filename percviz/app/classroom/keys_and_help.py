"""The classroom's keys (run keys, End, guarded Reset, Delete, class keys) and Help (F1's sheet, the glossary)."""

from __future__ import annotations

from PySide6.QtCore import QObject, Qt
from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import QMenu

from percviz.app.classroom.help_page import HelpSheet, glossary_dialog, help_rows
from percviz.app.classroom.keys import FocusKeeper
from percviz.app.context import AppContext
from percviz.app.panels.overlays import SHORTCUT_ROWS
from percviz.app.theme import Theme


def add_window_action(ctx: AppContext, name: str, text: str, keys, slot, menu: QMenu | None = None,
                      after: QAction | None = None) -> QAction:
    """A named action of the window with its keys, inserted in `menu` after `after` (None: at the end)."""
    action = QAction(text, ctx.window)
    action.setObjectName(f"action_{name}")
    action.setShortcuts([QKeySequence(k) for k in keys])
    action.setShortcutContext(Qt.WindowShortcut)
    action.triggered.connect(lambda _=False: slot())
    if menu is not None:
        menu.insertAction(item_after(menu, after), action)
    else:
        ctx.window.addAction(action)
    return ctx.actions.add(name, action)


def item_after(menu: QMenu, action) -> QAction | None:
    """The item following `action` in `menu` (None: the end), to insert right after it."""
    items = menu.actions()
    if action in items:
        i = items.index(action)
        return items[i + 1] if i + 1 < len(items) else None
    return None


class KeysAndHelp(QObject):
    """Records the action behind every classroom key, adds the missing ones, and the Help entries."""

    def __init__(self, ctx: AppContext, theme: Theme):
        super().__init__(ctx.window)
        self.ctx = ctx
        self.help = HelpSheet(ctx.window, SHORTCUT_ROWS, theme)
        self.glossary_dialog = None
        self._bind_keys()
        self._add_run_keys()
        self._build_help()
        self.focus_keeper = FocusKeeper(ctx.window, ctx.controls, ctx.panels["canvas"].plot)

    def _bind_keys(self) -> None:
        """The window's own actions already carry the run keys; the files' Save and Open too."""
        w, a = self.ctx.window, self.ctx.actions
        a.update(step=w.step_action, play=w.play_action, reset=w.reset_action, back=w.back_action,
                 forward=w.forward_action, undo=w.undo_action, redo=w.redo_action)
        fit = next((act for act in w.findChildren(QAction) if QKeySequence("F") in act.shortcuts()), None)
        if fit is not None:
            a.add("fit", fit)
        else:
            add_window_action(self.ctx, "fit", "Fit to data", ["F"], self.ctx.panels["canvas"].fit_to_data)

    def _add_run_keys(self) -> None:
        """End, a guarded Reset, Delete and the class keys, each as a menu item (so F1 can list them)."""
        ctx, s, controls = self.ctx, self.ctx.session, self.ctx.controls
        reset = ctx.actions["reset"]
        reset.triggered.disconnect()
        reset.triggered.connect(lambda _=False: controls.request_reset())
        controls.resetArmed.connect(lambda text: ctx.show_message(text, 4000))
        reset.setText("&Reset (asks before discarding a long run)")
        add_window_action(ctx, "latest", "Latest snapshot", ["End"], lambda: s.show_index(len(s.history) - 1),
                          ctx.menus.run, ctx.actions["forward"])
        edit, canvas = ctx.menus.edit, ctx.panels["canvas"]
        delete = add_window_action(ctx, "delete_point", "&Delete point under the cursor", ["Delete", "Backspace"],
                                   canvas.delete_hovered, edit, ctx.window.redo_action)
        place = QMenu("&Place class", edit)
        place.setObjectName("menu_place")
        for cls, button in enumerate(controls.class_selector.buttons):
            a = place.addAction(f"Class {button.text()} (multi-class: {cls + 1})" if cls < 2 else f"Class {cls + 1}")
            a.setObjectName(f"action_place_{cls}")
            a.setShortcut(QKeySequence(str(cls + 1)))
            a.setShortcutContext(Qt.WindowShortcut)
            a.triggered.connect(lambda _=False, c=cls: controls.class_selector.set_current_class(c))
            ctx.window.addAction(a)
        edit.insertMenu(item_after(edit, delete), place)
        self.place_menu = place

    def _build_help(self) -> None:
        ctx = self.ctx
        help_menu = ctx.menus.help
        first = help_menu.actions()[0] if help_menu.actions() else None
        action = add_window_action(ctx, "help", "&Keyboard shortcuts", ["F1", "?"], self.toggle_help)
        action.setObjectName("action_help_keys")
        help_menu.insertAction(first, action) if first else help_menu.addAction(action)
        terms = QAction("What the &numbers mean (margins, outcomes)", ctx.window)
        terms.setObjectName("action_glossary")
        terms.triggered.connect(lambda _=False: self.show_glossary())
        help_menu.insertAction(item_after(help_menu, action), terms)
        ctx.actions.add("glossary", terms)

    def show_glossary(self) -> None:
        """Help ▸ What the numbers mean: the glossary in a dialog."""
        self.glossary_dialog = glossary_dialog(self.ctx.window)
        self.glossary_dialog.show()

    def toggle_help(self) -> None:
        """F1: the sheet lists every key of every menu item (read now, so added items appear) and the mouse."""
        if not self.help.isVisible():
            self.help.set_rows(help_rows(self.ctx.window))
        self.help.toggle()

    def keys_back(self) -> None:
        """After a dialog closes (Enter, Escape or a button): the window and its canvas have the keyboard again."""
        self.ctx.window.activateWindow()
        self.focus_keeper.focus_canvas()
