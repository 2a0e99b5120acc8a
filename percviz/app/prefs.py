"""Preferences kept between sessions (QSettings, organization and application "percviz").

Where they live:
- `PERCVIZ_CONFIG_DIR` (environment) puts the settings file in that folder (tests, portable use);
- the test suite sets it (and `PERCVIZ_DATA_DIR`) to fresh temporary folders in tests/conftest.py, so a test run
  never reads or writes the real user configuration;
- otherwise Qt's per-user location (an INI file `percviz/percviz.ini` in the user's config folder).
"""

from __future__ import annotations

import os
from pathlib import Path

from PySide6.QtCore import QByteArray, QSettings
from PySide6.QtWidgets import QMainWindow

from percviz.app.theme import DEFAULT_THEME, PRESENTATION_SCALE, THEMES

ORG = APP = "percviz"
CONFIG_ENV = "PERCVIZ_CONFIG_DIR"
MAX_RECENT = 10

def env_dir(env: str) -> str | None:
    """The folder named by the environment variable `env` (created if missing), else None."""
    value = os.environ.get(env)
    if value:
        Path(value).mkdir(parents=True, exist_ok=True)
        return value
    return None


def _inside_package(folder: str) -> bool:
    import percviz

    try:
        Path(folder).resolve().relative_to(Path(percviz.__file__).resolve().parent)
    except ValueError:
        return False
    return True


def documents_folder() -> str:
    """The user's documents folder (home when the platform has none)."""
    from PySide6.QtCore import QStandardPaths

    docs = QStandardPaths.writableLocation(QStandardPaths.StandardLocation.DocumentsLocation)
    return docs if docs and Path(docs).is_dir() else str(Path.home())


def qsettings() -> QSettings:
    """The settings store (INI format, so `PERCVIZ_CONFIG_DIR` can redirect it)."""
    folder = env_dir(CONFIG_ENV)
    if folder is not None:
        QSettings.setPath(QSettings.IniFormat, QSettings.UserScope, folder)
    return QSettings(QSettings.IniFormat, QSettings.UserScope, ORG, APP)


class Preferences:
    """Typed access to what percviz remembers: theme, scales, last folder, recent files, window layout."""

    def __init__(self, store: QSettings | None = None):
        self.store = store or qsettings()

    # -- look ---------------------------------------------------------------------------
    @property
    def theme(self) -> str:
        name = str(self.store.value("view/theme", DEFAULT_THEME))
        return name if name in THEMES else DEFAULT_THEME

    @theme.setter
    def theme(self, name: str) -> None:
        self.store.setValue("view/theme", name)

    @property
    def presentation_scale(self) -> float:
        return max(PRESENTATION_SCALE, self._float("view/presentation_scale", PRESENTATION_SCALE))

    @presentation_scale.setter
    def presentation_scale(self, value: float) -> None:
        self.store.setValue("view/presentation_scale", float(value))

    @property
    def presentation_theme(self) -> str:
        """Theme used while presenting ("" = keep the desk theme)."""
        name = str(self.store.value("view/presentation_theme", ""))
        return name if name in THEMES else ""

    @presentation_theme.setter
    def presentation_theme(self, name: str) -> None:
        self.store.setValue("view/presentation_theme", name)

    @property
    def live(self) -> bool:
        """Live mode (rerun to the end on every edit) as last chosen."""
        value = self.store.value("run/live", False)
        return value in (True, "true", "1", 1)

    @live.setter
    def live(self, on: bool) -> None:
        self.store.setValue("run/live", bool(on))

    @property
    def live_warm(self) -> bool:
        """Live reruns of the perceptrons start from the last weights (off: the algorithm as written, from 0)."""
        return self.store.value("run/live_warm", False) in (True, "true", "1", 1)

    @live_warm.setter
    def live_warm(self, on: bool) -> None:
        self.store.setValue("run/live_warm", bool(on))

    # -- files ---------------------------------------------------------------------------
    @property
    def last_folder(self) -> str:
        """The folder of the last file opened or saved; never one inside the installed package (then: Documents)."""
        folder = str(self.store.value("files/last_folder", ""))
        if folder and Path(folder).is_dir() and not _inside_package(folder):
            return folder
        return documents_folder()

    @last_folder.setter
    def last_folder(self, folder: str) -> None:
        self.store.setValue("files/last_folder", str(folder))

    @property
    def recent_files(self) -> list[str]:
        value = self.store.value("files/recent", [])
        if isinstance(value, str):  # QSettings returns a lone entry as a string
            value = [value]
        return [str(v) for v in (value or []) if v][:MAX_RECENT]

    def add_recent(self, path: str | os.PathLike) -> list[str]:
        """Put `path` first in the recent-files list (no duplicates, at most MAX_RECENT)."""
        p = str(Path(path).resolve())
        files = [p] + [f for f in self.recent_files if f != p]
        self.store.setValue("files/recent", files[:MAX_RECENT])
        if not _inside_package(Path(p).parent):  # a shipped example leaves the user's own folder as it was
            self.last_folder = str(Path(p).parent)
        return files[:MAX_RECENT]

    def remove_recent(self, path: str) -> None:
        self.store.setValue("files/recent", [f for f in self.recent_files if f != str(path)])

    def clear_recent(self) -> None:
        self.store.setValue("files/recent", [])

    # -- window layout -------------------------------------------------------------------------
    def save_window(self, window: QMainWindow) -> None:
        self.store.setValue("window/geometry", window.saveGeometry())
        self.store.setValue("window/state", window.saveState())

    def restore_window(self, window: QMainWindow) -> bool:
        """Restore geometry and dock layout saved earlier; False if there was nothing to restore."""
        geometry, state = self.store.value("window/geometry"), self.store.value("window/state")
        done = False
        if isinstance(geometry, QByteArray) and not geometry.isEmpty():
            done = window.restoreGeometry(geometry) or done
        if isinstance(state, QByteArray) and not state.isEmpty():
            done = window.restoreState(state) or done
        return done

    def sync(self) -> None:
        self.store.sync()

    def _float(self, key: str, default: float) -> float:
        try:
            return float(self.store.value(key, default))
        except (TypeError, ValueError):
            return default
