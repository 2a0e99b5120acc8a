"""What a feature of the window receives: the scene, the run, the preferences, the menus and the window's services.

The window builds one `AppContext` (MainWindow.context) and hands it to each feature (percviz.app.classroom): a
feature reads these typed fields and calls the public methods named here, never the window's attributes.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Callable

from PySide6.QtGui import QAction
from PySide6.QtWidgets import QDockWidget, QMenu

if TYPE_CHECKING:
    from percviz.app.dialogs import Dialogs
    from percviz.app.main_window import MainWindow
    from percviz.app.panels.controls import ControlsPanel
    from percviz.app.panels.panel import Panel
    from percviz.app.prefs import Preferences
    from percviz.app.run.frames import FrameScheduler
    from percviz.app.run.panel_feed import FrameFeed
    from percviz.app.run.session import RunSession
    from percviz.app.theme import Theme
    from percviz.core.scene import SceneModel


@dataclass(frozen=True)
class Menus:
    """The window's menus, in menu-bar order."""

    file: QMenu
    edit: QMenu
    run: QMenu
    view: QMenu
    help: QMenu


@dataclass
class ActionRegistry:
    """Every named action of the window (run keys, files, view, help, …): F1's sheet and tests find them here."""

    by_name: dict[str, QAction] = field(default_factory=dict)

    def add(self, name: str, action: QAction) -> QAction:
        self.by_name[name] = action
        return action

    def get(self, name: str) -> QAction | None:
        return self.by_name.get(name)

    def __getitem__(self, name: str) -> QAction:
        return self.by_name[name]

    def __contains__(self, name: str) -> bool:
        return name in self.by_name

    def update(self, *others: dict[str, QAction], **named: QAction) -> None:
        for other in others:
            self.by_name.update(other)
        self.by_name.update(named)

    def items(self):
        return self.by_name.items()

    def values(self):
        return self.by_name.values()

    def keys(self):
        return self.by_name.keys()


@dataclass
class AppContext:
    """The typed services a feature installs itself with."""

    #: the layout host (docks, window actions, geometry); features call its public methods only
    window: "MainWindow"
    scene: "SceneModel"
    session: "RunSession"
    #: the run's one frame feed: a feature hears problems, snapshots and ρ_K here (FrameFeed.subscribe), never
    #: from the session's signals
    feed: "FrameFeed"
    panels: "dict[str, Panel]"
    docks: "dict[str, QDockWidget]"
    controls: "ControlsPanel"
    menus: Menus
    prefs: "Preferences"
    dialogs: "Dialogs"
    actions: ActionRegistry = field(default_factory=ActionRegistry)
    #: run before the window closes; any returning False cancels the close
    close_guards: "list[Callable[[], bool]]" = field(default_factory=list)
    #: called with every new theme after the window's panels are restyled (MainWindow.apply_theme)
    theme_listeners: "list[Callable[[Theme], None]]" = field(default_factory=list)

    @property
    def theme(self) -> "Theme":
        """The window's theme now (a theme or scale change tells `theme_listeners`)."""
        return self.window.theme

    @property
    def frames(self) -> "FrameScheduler":
        """The frame scheduler pacing every redraw."""
        return self.session.frames

    def show_message(self, text: str, timeout_ms: int = 4000) -> None:
        """The message sink: the status line."""
        self.window.show_message(text, timeout_ms)

    def show_error(self, title: str, text: str) -> None:
        self.window.show_error(title, text)


__all__ = ["ActionRegistry", "AppContext", "Menus"]
