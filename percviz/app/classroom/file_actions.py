"""Scene files in the window: open, save, recent files, CSV, drag-and-drop, unsaved-changes guard, autosave.

Every question (unsaved changes, a crash's autosave, file choices) goes through the context's dialog service
(percviz.app.dialogs): tests answer it with `dialogs.Answers`, a person with Qt dialogs.
"""

from __future__ import annotations

import os
from pathlib import Path

from PySide6.QtCore import QEvent, QObject, Qt, QTimer
from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import QMenu

from percviz.app.classroom.autosave import Autosaver, Orphan, find_orphans
from percviz.app.context import AppContext
from percviz.app.dialogs import UNSAVED_ENV  # noqa: F401 - its old home
from percviz.app.run.background import Task
from percviz.core.errors import PercvizError, PresetError

PRESET_FILTER = "percviz scenes (*.json)"
CSV_FILTER = "Points x,y,label (*.csv *.txt)"
OPEN_FILTERS = f"Scenes and points (*.json *.csv *.txt);;{PRESET_FILTER};;{CSV_FILTER};;All files (*)"
DROP_SUFFIXES = (".json", ".csv", ".txt")
#: Files larger than this (about 30,000 points of CSV) are read on a background Task by open_path.
BACKGROUND_OPEN_BYTES = 1_000_000


def _size(path: Path) -> int:
    try:
        return path.stat().st_size
    except OSError:
        return 0  # read on this thread, which reports the error


def _load_or_message(path: Path):
    """(the scene file's preset, "") or (None, one message naming the file at fault); any thread."""
    from percviz.core.presets import load_scene

    try:
        return load_scene(path), ""
    except PresetError as e:
        return None, str(e)
    except OSError as e:
        return None, f"{path}: {e.strerror or e}."


class FileActions(QObject):
    """Open/Save/Save As/Open Recent/Import CSV/Export CSV, drag-and-drop, close guard and autosave for a window."""

    def __init__(self, ctx: AppContext, on_loaded=None):
        super().__init__(ctx.window)
        self.ctx, self.window, self.prefs, self.on_loaded = ctx, ctx.window, ctx.prefs, on_loaded
        self.dialogs = ctx.dialogs
        self.scene = ctx.scene
        self.current_path: Path | None = None
        self.actions: dict[str, QAction] = {}
        self.pending_orphans: list[Orphan] = []
        #: A large file being read on a background Task (open_path returns at once; the scene follows).
        self.opening: Task | None = None
        self.autosaver = Autosaver(self._autosave_snapshot, self, source=lambda: self._path_text())
        for event in (self.scene.points_changed, self.scene.settings_changed):
            event.connect(self.autosaver.mark_dirty)
        self.scene.modified_changed.connect(self._on_modified)
        ctx.window.setAcceptDrops(True)
        ctx.window.installEventFilter(self)
        self.update_title()

    # -- menu ------------------------------------------------------------------------------------------
    def build_menu(self, menu: QMenu, taken: set[str], extra=()) -> None:
        """Put the file entries (then `extra` (key, text, shortcut, slot, tip) rows) at the top of the File menu."""
        existing = {_plain(a.text()) for a in menu.actions()}
        first = menu.actions()[0] if menu.actions() else None
        self.recent_menu = QMenu("Open &Recent", menu)
        self.recent_menu.setObjectName("recent_menu")
        self.recent_menu.aboutToShow.connect(self._fill_recent)
        self.examples_menu = QMenu("Open &Example", menu)
        self.examples_menu.setObjectName("examples_menu")
        self.examples_menu.aboutToShow.connect(self._fill_examples)
        specs = (
            ("open", "&Open…", "Ctrl+O", self.open_dialog, "Open a scene (.json) or points (.csv)"),
            ("recent", None, None, None, None),
            (None,) * 5,
            ("save", "&Save", "Ctrl+S", self.save, "Save the scene"),
            ("save_as", "Save &As…", "Ctrl+Shift+S", self.save_as, "Save the scene under a new name"),
            (None,) * 5,
            ("import_csv", "&Import CSV…", None, self.import_csv_dialog, "Replace the points by those of a CSV x,y,label"),
            ("export_csv", "E&xport CSV…", None, self.export_csv_dialog, "Write the points as CSV x,y,label"),
        ) + tuple(extra) + ((None,) * 5,)
        for key, text, shortcut, slot, tip in specs:
            if key is None:
                menu.insertSeparator(first) if first else menu.addSeparator()
                continue
            if key == "recent":
                for sub in (self.recent_menu, self.examples_menu):
                    menu.insertMenu(first, sub) if first else menu.addMenu(sub)
                continue
            if _plain(text) in existing:
                continue
            action = QAction(text, self.window)
            action.setObjectName(f"action_{key}")
            action.setStatusTip(tip)
            if shortcut and QKeySequence(shortcut).toString() not in taken:
                action.setShortcut(QKeySequence(shortcut))
                action.setShortcutContext(Qt.WindowShortcut)
                taken.add(QKeySequence(shortcut).toString())
            action.triggered.connect(lambda _=False, f=slot: f())
            menu.insertAction(first, action) if first else menu.addAction(action)
            self.window.addAction(action)
            self.actions[key] = action
        _tidy_separators(menu)

    def _fill_recent(self) -> None:
        self.recent_menu.clear()
        files = self.prefs.recent_files
        for i, f in enumerate(files):
            action = self.recent_menu.addAction(f"&{i + 1}  {Path(f).name}")
            action.setToolTip(f)
            action.setStatusTip(f)
            action.triggered.connect(lambda _=False, p=f: self.open_path(p))
        if not files:
            self.recent_menu.addAction("(no recent files)").setEnabled(False)
        else:
            self.recent_menu.addSeparator()
            self.recent_menu.addAction("Clear list", self.prefs.clear_recent)

    def _fill_examples(self) -> None:
        """The scenes shipped with percviz, by title (each opens like a file)."""
        from percviz.core.presets import shipped_presets

        self.examples_menu.clear()
        for item in shipped_presets():
            try:
                title = item.load().title
            except (PresetError, OSError):
                continue
            action = self.examples_menu.addAction(title)
            action.setStatusTip(str(item.path))
            action.triggered.connect(lambda _=False, p=item.path: self.open_example(p))

    def open_example(self, path) -> bool:
        """Open a shipped scene with the panels that explain it; panels the user opened by hand stay open, those
        the previous example opened close with it.

        Save then asks for a new name (the shipped file is never overwritten)."""
        actions = self.window.view_actions
        by_hand = self.window.user_panels()
        opened = [name for name, act in actions.items() if name in by_hand and act.isChecked()]
        if not self.open_path(path):
            return False
        for name in opened:
            if not actions[name].isChecked():
                actions[name].setChecked(True)
        self.current_path = None
        self.prefs.remove_recent(str(Path(path).resolve()))
        self.update_title()
        return True

    # -- opening -----------------------------------------------------------------------------------
    def open_dialog(self) -> bool:
        path = self.dialogs.open_path("Open a scene", self.prefs.last_folder, OPEN_FILTERS)
        return self.open_path(path) if path else False

    def open_path(self, path: "str | os.PathLike", confirm: bool = True) -> bool:
        """Open a preset (or a CSV as a new scene). A broken file: one message, scene untouched."""
        from percviz.core.presets import load_scene

        path = Path(path)
        if confirm and not self.maybe_save("opening another file"):
            return False
        if _size(path) > BACKGROUND_OPEN_BYTES:  # 100,000 points: ~1 s of parsing, done off the UI thread
            self._cancel_opening()
            self.opening = Task(self, name="percviz-open")
            self.opening.done.connect(lambda result: self._opened(path, *result))
            self.opening.failed.connect(lambda text: self._opened(path, None, text))
            self.opening.start(_load_or_message, path)
            self.window.show_message(f"Opening {path.name}…")
            return True
        preset = self._read(load_scene, path, "Cannot open the file")
        return preset is not None and self._finish_open(path, preset)

    def _opened(self, path: Path, preset, error: str) -> None:
        self.opening = None
        if preset is None:
            self._error("Cannot open the file", error)
        else:
            self._finish_open(path, preset)

    def _cancel_opening(self) -> None:
        if self.opening is not None:
            self.opening.cancel()
            self.opening = None

    def _finish_open(self, path: Path, preset) -> bool:
        if not self.apply_preset(preset):
            return False
        # Save writes JSON: only a .json file is saved over; anything else goes through Save As, and so does
        # a file inside the installed package (a shipped example): it is saved as a copy elsewhere.
        keep = path.suffix.lower() == ".json" and not inside_package(path)
        self.current_path = path.resolve() if keep else None
        self.scene.mark_saved()
        self.autosaver.discard()
        self.prefs.add_recent(path)
        self.update_title()
        if preset.warnings:
            self.window.show_message(f"Opened {path.name} with warnings: " + " ".join(preset.warnings), 12000)
        else:
            self.window.show_message(f"Opened {path.name}")
        return True

    def apply_preset(self, preset) -> bool:
        """Load a preset into the window; if the window refuses it, put the previous scene back."""
        before = self._safe_current()
        try:
            self.window.load_preset(preset)
        except Exception as e:  # noqa: BLE001 - the scene is restored and the reason shown once
            if before is not None:
                try:
                    self.window.load_preset(before)
                except Exception:  # noqa: BLE001
                    pass
            text = str(e) if isinstance(e, PercvizError) else f"{type(e).__name__}: {e}"
            self._error("Cannot load the scene", text)
            return False
        if self.on_loaded is not None:
            self.on_loaded(preset)
        return True

    def import_csv_dialog(self) -> bool:
        path = self.dialogs.open_path("Import points", self.prefs.last_folder, CSV_FILTER)
        return self.import_csv(path) if path else False

    def import_csv(self, path: "str | os.PathLike") -> bool:
        """Replace the points by those of a CSV file (one undoable edit; settings kept)."""
        from percviz.core.presets import read_csv

        path = Path(path)
        points = self._read(read_csv, path, "Cannot import the points")
        if points is None:
            return False
        self.scene.set_points(points)
        self.prefs.last_folder = str(path.resolve().parent)
        self.window.show_message(f"Imported {points.n} points from {path.name}")
        return True

    # -- saving -----------------------------------------------------------------------------------------
    def save(self) -> bool:
        if self.current_path is None or inside_package(self.current_path):
            return self.save_as()
        return self.save_to(self.current_path)

    def save_as(self) -> bool:
        current = self.current_path if self.current_path is not None and not inside_package(self.current_path) else None
        suggested = str(current or Path(self.prefs.last_folder) / f"{slug(self._title())}.json")
        path = self.dialogs.save_path("Save the scene", suggested, PRESET_FILTER)
        if not path:
            return False
        path = Path(path)
        if path.suffix.lower() != ".json":
            path = path.with_name(path.name + ".json")
        return self.save_to(path)

    def save_to(self, path: "str | os.PathLike") -> bool:
        """Save the scene atomically; on failure the previous file is intact and one message explains."""
        from percviz.core.presets import save_preset

        path = Path(path)
        try:
            save_preset(self.window.current_preset(), path)
        except (OSError, PercvizError, ValueError) as e:
            self._error("Cannot save the scene", f"{path}: {getattr(e, 'strerror', None) or e}")
            return False
        self.current_path = path.resolve()
        self.scene.mark_saved()
        self.autosaver.discard()
        self.prefs.add_recent(path)
        self.update_title()
        self.window.show_message(f"Saved {path.name}")
        return True

    def export_csv_dialog(self) -> bool:
        stem = self.current_path.stem if self.current_path else slug(self._title())
        path = self.dialogs.save_path("Export points", str(Path(self.prefs.last_folder) / f"{stem}.csv"),
                                      CSV_FILTER)
        return self.export_csv(path) if path else False

    def export_csv(self, path: "str | os.PathLike") -> bool:
        from percviz.core.presets import write_csv

        path = Path(path)
        try:
            write_csv(self.scene.points, path)
        except (OSError, PercvizError) as e:
            self._error("Cannot export the points", f"{path}: {getattr(e, 'strerror', None) or e}")
            return False
        self.prefs.last_folder = str(path.resolve().parent)
        self.window.show_message(f"Wrote {self.scene.n} points to {path.name}")
        return True

    # -- unsaved changes ------------------------------------------------------------------------------
    def maybe_save(self, doing: str) -> bool:
        """True if it is fine to go on (nothing unsaved, saved now, or discarded)."""
        if not self.scene.modified:
            return True
        answer = self.dialogs.unsaved(doing)
        if answer == "save":
            return self.save()
        return answer == "discard"

    def eventFilter(self, obj, event) -> bool:
        if obj is self.window:
            kind = event.type()
            if kind in (QEvent.DragEnter, QEvent.DragMove):
                if self._dropped_path(event) is not None:
                    event.acceptProposedAction()
                    return True
            elif kind == QEvent.Drop:
                path = self._dropped_path(event)
                if path is not None:
                    event.acceptProposedAction()
                    QTimer.singleShot(0, lambda p=path: self.handle_drop(p))
                    return True
        return False

    def handle_drop(self, path: Path) -> bool:
        """A dropped CSV replaces the points (undoable); a dropped preset opens like File ▸ Open."""
        if path.suffix.lower() in (".csv", ".txt"):
            return self.import_csv(path)
        return self.open_path(path)

    @staticmethod
    def _dropped_path(event) -> Path | None:
        mime = event.mimeData()
        if mime is None or not mime.hasUrls():
            return None
        for url in mime.urls():
            if url.isLocalFile() and Path(url.toLocalFile()).suffix.lower() in DROP_SUFFIXES:
                return Path(url.toLocalFile())
        return None

    def shutdown(self) -> None:
        """A clean exit: no autosave is left behind."""
        self._cancel_opening()
        self.autosaver.close()

    # -- autosave and crash recovery ------------------------------------------------------------------
    def _autosave_snapshot(self):
        return self._safe_current() if self.scene.modified else None

    def _on_modified(self, modified: bool) -> None:
        self.window.setWindowModified(bool(modified))
        if modified:
            self.autosaver.mark_dirty()
        else:
            self.autosaver.discard()

    def clean_leftovers(self) -> int:
        """At a start: delete the temporary files killed saves left beside the user's recent scenes."""
        from percviz.core.presets import remove_stale_temps

        folders = {str(Path(p).parent) for p in self.prefs.recent_files}
        if self.prefs.last_folder:
            folders.add(self.prefs.last_folder)
        return sum(remove_stale_temps(f) for f in sorted(folders))

    def offer_restore(self) -> bool:
        """If a crashed session left an autosave, offer it back (newest only); True if restored."""
        from percviz.core.presets import load_preset

        orphans = find_orphans(self.autosaver.folder)
        if not orphans:
            return False
        newest, others = orphans[0], orphans[1:]
        for o in others:
            o.claim.unlock()  # leave them for a later start
        accepted = self.dialogs.restore(newest)
        if accepted is None:  # nobody was asked: kept for a start that can ask
            newest.claim.unlock()
            return False
        try:
            if not accepted:
                return False
            try:
                preset = load_preset(newest.path)
            except (PresetError, OSError) as e:
                self._error("Cannot restore the autosaved scene", str(e))
                return False
            if not self.apply_preset(preset):
                return False
            src = Path(newest.source) if newest.source and newest.source != "None" else None
            self.current_path = src
            self.scene.mark_modified()
            self.autosaver.mark_dirty()
            self.update_title()
            self.window.show_message("Restored the autosaved scene; save it to keep it.", 8000)
            return True
        finally:
            newest.discard()

    # -- helpers ----------------------------------------------------------------------------------------
    def _safe_current(self):
        try:
            return self.window.current_preset()
        except Exception:  # noqa: BLE001 - an unsaveable scene is simply not autosaved
            return None

    def _title(self) -> str:
        preset = self._safe_current()
        return (preset.title if preset is not None else "") or "scene"

    def _path_text(self) -> str | None:
        return str(self.current_path) if self.current_path else None

    def update_title(self) -> None:
        title = self.scene.title or "Untitled scene"
        where = f" ({self.current_path.name})" if self.current_path else ""
        self.window.setWindowTitle(f"{title}{where}[*] — percviz")
        self.window.setWindowModified(bool(self.scene.modified))

    def _read(self, reader, path: Path, title: str):
        """reader(path), or None after one message naming the file (and the field) at fault."""
        try:
            return reader(path)
        except PresetError as e:
            self._error(title, str(e))
        except OSError as e:
            self._error(title, f"{path}: {e.strerror or e}.")
        return None

    def _error(self, title: str, text: str) -> None:
        self.window.show_error(title, text)


def _tidy_separators(menu: QMenu) -> None:
    """Remove separators that start the menu or follow another separator."""
    previous_sep = True
    for action in menu.actions():
        if action.isSeparator() and previous_sep:
            menu.removeAction(action)
            continue
        previous_sep = action.isSeparator()


def _plain(text: str) -> str:
    return text.replace("&", "").replace("…", "").replace("...", "").strip().lower()


def inside_package(path: "str | os.PathLike") -> bool:
    """Whether a path lies inside the installed percviz package (its shipped presets included)."""
    import percviz

    try:
        Path(path).resolve().relative_to(Path(percviz.__file__).resolve().parent)
    except ValueError:
        return False
    return True


def slug(text: str) -> str:
    """A file-name stem from a title ("Two moons, RBF" → "two-moons-rbf")."""
    keep = "".join(c if c.isalnum() or c in "-_ " else " " for c in text).strip()
    return "-".join(keep.lower().split())[:60] or "scene"
