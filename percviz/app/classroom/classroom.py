"""What makes percviz work in a lecture hall: the window's features, each installed through the AppContext.

- Files and autosave (`file_actions`, `autosave`): Open…, Open Recent, Save, Save As…, CSV, drag-and-drop, the
  unsaved-changes guard, crash recovery; every question through the context's dialogs (percviz.app.dialogs).
- The look (`look`): presentation mode (F5) scales fonts, markers and lines ≥ 2×; F11 full screen; View ▸ Theme.
- The run caption over the canvas (`caption`); the scene's title and explanation in the info dock (`scene_info`).
- Keys and help (`keys_and_help`): Space step, P play/pause, R reset, ←/→ scrub, End, Delete, class keys; F1.
- Generators and the brush (`point_tools`); exports of pictures, animations and handouts (`export_actions`).
- Live (percviz.app.run.live); preferences in QSettings (percviz.app.prefs; `PERCVIZ_CONFIG_DIR` redirects them).
"""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QObject, QTimer
from PySide6.QtGui import QAction

from percviz.app.classroom.caption import RunCaption
from percviz.app.classroom.export_actions import ExportActions
from percviz.app.classroom.file_actions import FileActions
from percviz.app.classroom.keys_and_help import KeysAndHelp
from percviz.app.classroom.look import Look
from percviz.app.classroom.point_tools import PointTools
from percviz.app.classroom.scene_info import InfoPanel, SceneInfo
from percviz.app.context import AppContext
from percviz.app.panels.presentation_bar import PresentationLayout
from percviz.app.run.live import LiveMode


def install(ctx: AppContext) -> "Classroom":
    """Install the classroom features through the window's context."""
    return Classroom(ctx)


class Classroom(QObject):
    """The features of one window, built in menu order; the names here are what tests and scripts use."""

    def __init__(self, ctx: AppContext):
        super().__init__(ctx.window)
        self.setObjectName("classroom")
        self.ctx = ctx
        self.prefs = ctx.prefs
        self.actions = ctx.actions
        self.look = Look(ctx)
        self.caption_feature = RunCaption(ctx, self.look.theme)
        self.caption = self.caption_feature.overlay
        self.files = FileActions(ctx)
        self.exports = ExportActions(ctx, self.files, self.look.theme)
        self.files.build_menu(ctx.menus.file, self._taken(), self.exports.menu_rows())
        self.actions.update(self.files.actions)
        self.keys = KeysAndHelp(ctx, self.look.theme)
        self.help, self.focus_keeper = self.keys.help, self.keys.focus_keeper
        self.scene_info = SceneInfo(ctx, self.files, self.keys.keys_back)
        self.info, self.info_dock = self.scene_info.panel, self.scene_info.dock
        self.look.build_menu(self.info_dock.toggleViewAction(), self.caption.set_enabled_overlay)
        self.live = LiveMode(ctx)
        self.presentation_layout = self.look.presentation_layout = PresentationLayout(
            ctx, self.live, lambda: self.look.scale)
        self.points = PointTools(ctx, self.keys.place_menu.menuAction(), self.keys.keys_back)
        self.brush = self.points.brush
        self.animations, self.handouts = self.exports.animations, self.exports.handouts
        self.look.restyled += [self.caption, self.help, self.info]
        self.look.listeners.append(self.exports.set_theme)
        ctx.close_guards.append(self._close_guard)
        ctx.prefs.restore_window(ctx.window)
        self.presentation_layout.reset_desk()  # a layout saved while presenting (older versions) opens as the desk
        self.look.apply()
        QTimer.singleShot(0, self._offer_restore)

    def _taken(self) -> set[str]:
        return {s.toString() for a in self.ctx.window.findChildren(QAction) for s in a.shortcuts()}

    # -- the look ----------------------------------------------------------------------------------------------
    @property
    def theme(self):
        return self.look.theme

    @property
    def theme_name(self) -> str:
        return self.look.theme_name

    @property
    def presenting(self) -> bool:
        return self.look.presenting

    @property
    def scale(self) -> float:
        return self.look.scale

    def current_theme(self):
        return self.look.current_theme()

    def apply(self) -> None:
        self.look.apply()

    def style_fields(self, theme) -> None:
        self.look.style_fields(theme)

    def set_presentation(self, on: bool) -> None:
        self.look.set_presentation(on)

    def set_full_screen(self, on: bool) -> None:
        self.look.set_full_screen(on)

    def set_theme(self, name: str) -> None:
        self.look.set_theme(name)

    def set_presentation_scale(self, scale: float) -> None:
        self.look.set_presentation_scale(scale)

    def settle_layout(self) -> None:
        """A large scene's relayout in one pass, painted next turn (see Look.settle_layout)."""
        self.look.settle_layout()

    # -- the other features' entry points ---------------------------------------------------------------------------
    def toggle_help(self) -> None:
        self.keys.toggle_help()

    @property
    def glossary_dialog(self):
        return self.keys.glossary_dialog

    @property
    def generators_dialog(self):
        """The last Generate points… dialog opened (None before)."""
        return self.points.dialog

    def generate_dialog(self) -> bool:
        return self.points.generate_dialog()

    def keys_back(self) -> None:
        self.keys.keys_back()

    def refresh_info(self) -> None:
        self.scene_info.refresh()

    def edit_info(self) -> bool:
        return self.scene_info.edit_info()

    def set_info(self, title: str, explanation: str) -> None:
        self.scene_info.set_info(title, explanation)

    def new_untitled(self) -> None:
        self.scene_info.new_untitled()

    def export_picture(self, target: str, path, scale: float = 2.0) -> Path:
        return self.exports.export_picture(target, path, scale)

    def export_picture_dialog(self) -> bool:
        return self.exports.export_picture_dialog()

    def export_animation(self, path, start: int = 0, end: int | None = None, fps: float = 10,
                         panels=("canvas",), scale: float = 1.0, show_progress: bool = True):
        return self.exports.export_animation(path, start, end, fps, panels, scale, show_progress)

    def export_animation_dialog(self) -> bool:
        return self.exports.export_animation_dialog()

    def export_handout_dialog(self) -> bool:
        return self.exports.export_handout_dialog()

    def open_path(self, path) -> bool:
        return self.files.open_path(path)

    def set_current_file(self, path) -> None:
        """Tell the window which file its scene came from (launch with a preset path): Save writes there."""
        p = Path(path)
        self.files.current_path = p.resolve() if p.suffix.lower() == ".json" else None
        if p.exists():
            self.prefs.add_recent(p)
        self.files.update_title()

    # -- lifecycle -----------------------------------------------------------------------------------------------
    def _offer_restore(self) -> None:
        self.files.clean_leftovers()
        self.files.offer_restore()

    def _close_guard(self) -> bool:
        if not self.files.maybe_save("closing"):
            return False
        self.shutdown()
        return True

    def shutdown(self) -> None:
        """Window closing: stop an export, remember the layout, leave no autosave behind."""
        w = self.ctx.window
        self.exports.shutdown()
        self.focus_keeper.detach()
        self.presentation_layout.leave()  # the desk layout is what is remembered
        if w.isFullScreen():
            w.showNormal()
        self.prefs.save_window(w)
        self.prefs.sync()
        self.files.shutdown()


__all__ = ["Classroom", "InfoPanel", "install"]
