"""File ▸ Export picture…, Export animation…, Export handout (HTML)…: each asks where, then exports."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QObject
from PySide6.QtWidgets import QDialog

from percviz.app.classroom.export_dialogs import AnimationDialog, AnimationRunner, HandoutRunner, PictureDialog, export_picture
from percviz.app.classroom.file_actions import FileActions, slug
from percviz.app.context import AppContext
from percviz.app.theme import Theme

PICTURE_FILTERS = "PNG picture (*.png);;SVG drawing (*.svg)"
ANIMATION_FILTERS = "Animated GIF (*.gif);;MP4 video (*.mp4)"


class ExportActions(QObject):
    """The three exports and their jobs (the animation and the handout run on background threads)."""

    def __init__(self, ctx: AppContext, files: FileActions, theme: Theme):
        super().__init__(ctx.window)
        self.ctx, self.files, self.prefs = ctx, files, ctx.prefs
        self.animations = AnimationRunner(ctx, theme)
        self.handouts = HandoutRunner(ctx)

    def menu_rows(self) -> tuple:
        """The File menu rows (key, text, shortcut, slot, tip), after a separator."""
        return (
            (None,) * 5,
            ("export_picture", "Export &picture…", None, self.export_picture_dialog,
             "Save the window or one view as PNG/SVG at a chosen scale"),
            ("export_animation", "Export &animation…", None, self.export_animation_dialog,
             "Save iterations a..b of the run as an animated GIF or MP4"),
            ("export_handout", "Export &handout (HTML)…", None, self.export_handout_dialog,
             "Save the run as one HTML page that students play and scrub in any browser (no network)"),
        )

    def set_theme(self, theme: Theme) -> None:
        self.animations.theme = theme

    def _ask(self, title: str, name: str, filters: str, suffixes: tuple[str, ...]) -> Path | None:
        """The file chosen in the save dialog (the first suffix added when none of them was typed)."""
        path = self.ctx.dialogs.save_path(title, str(Path(self.prefs.last_folder) / name), filters)
        if not path:
            return None
        return Path(path) if Path(path).suffix.lower() in suffixes else Path(path + suffixes[0])

    def export_picture(self, target: str, path, scale: float = 2.0) -> Path:
        """Save the whole window ("window") or a panel ("canvas", "curves", …) as PNG/SVG."""
        return export_picture({"window": self.ctx.window, **self.ctx.panels}, target, path, scale)

    def export_picture_dialog(self) -> bool:
        dlg = PictureDialog(self.ctx.window, default_scale=2.0)
        if dlg.exec() != QDialog.Accepted:
            return False
        target, scale = dlg.choice()
        path = self._ask("Export picture", f"{self.stem()}-{target}.png", PICTURE_FILTERS, (".png", ".svg"))
        if path is None:
            return False
        try:
            self.export_picture(target, path, scale)
        except (OSError, ValueError) as e:
            self.ctx.show_error("Cannot export the picture", str(e))
            return False
        self.prefs.last_folder = str(path.resolve().parent)
        self.ctx.show_message(f"Saved {path.name}")
        return True

    def export_animation(self, path, start: int = 0, end: int | None = None, fps: float = 10,
                         panels=("canvas",), scale: float = 1.0, show_progress: bool = True):
        """Start exporting the run from iteration `start` to `end` (GIF/MP4) on a worker thread; returns the job."""
        return self.animations.start(path, start, end, fps, panels, scale, show_progress)

    def export_animation_dialog(self) -> bool:
        latest = self.ctx.session.latest
        last = (latest.iteration if latest is not None else 0) or 0
        max_iter = int(self.ctx.scene.settings.max_iter)
        dlg = AnimationDialog(self.ctx.window, last if last > 0 else min(100, max_iter), max_iter)
        if dlg.exec() != QDialog.Accepted:
            return False
        opts = dlg.choice()
        path = self._ask("Export animation", f"{self.stem()}.gif", ANIMATION_FILTERS, (".gif", ".mp4"))
        if path is None:
            return False
        self.prefs.last_folder = str(path.resolve().parent)
        return self.export_animation(path, **opts) is not None

    def export_handout_dialog(self) -> bool:
        """Ask where, then record the whole run and write the handout on a background task."""
        path = self._ask("Export handout", f"{self.stem()}.html", "Handout page (*.html)", (".html",))
        if path is None:
            return False
        self.prefs.last_folder = str(path.resolve().parent)
        return self.handouts.start(path) is not None

    def stem(self) -> str:
        """The file-name stem of exports: the scene file's, else the title's."""
        if self.files.current_path is not None:
            return self.files.current_path.stem
        return slug(self.ctx.scene.title or "scene")

    def shutdown(self) -> None:
        self.animations.cancel_and_wait()
        self.handouts.cancel_and_wait()
