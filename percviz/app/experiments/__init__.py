"""The Experiments menu: races, margin sweeps and Cover's count in windows of their own.

`install(ctx)` adds the menu to the main window through its AppContext (percviz.app.context): the scene, the
theme and its listeners, the close guards, the menu bar and the `presetLoaded` signal; the window needs one line.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtGui import QAction

from percviz.core.experiments.race import Lane

from percviz.core.solvers import PAPER_RACE

if TYPE_CHECKING:
    from percviz.app.context import AppContext

#: The race offered when the current scene brings none: the paper's three perceptrons.
DEFAULT_LANES = PAPER_RACE


def lanes_from_preset(preset) -> tuple[Lane, ...]:
    """The lanes of a preset's race (docs/presets.md), or () when it has none."""
    return tuple(Lane(lane["algorithm"], lane["kernel"], lane["features"], dict(lane["params"]))
                 for lane in preset.race or ())


def default_lanes(settings) -> tuple[Lane, ...]:
    """Perceptron vs NKP vs SNKP with the scene's kernel and φ-map."""
    return tuple(Lane(a, settings.kernel, settings.features) for a in DEFAULT_LANES)


class ExperimentsMenu:
    """The menu and the windows it opened (kept so they are not garbage collected)."""

    def __init__(self, ctx: "AppContext"):
        self.ctx = ctx
        self.window = ctx.window  # the experiment windows' dialogs are its children
        self.windows: list = []
        self.preset_lanes: tuple[Lane, ...] = ()
        self.preset_max_iter: int | None = None
        self.menu = ctx.window.menuBar().addMenu("E&xperiments")
        self.menu.setObjectName("experiments_menu")
        self.setup_dialog = None
        self.race_action = self._action("&Race the current scene…", "action_race", self.open_race_setup)
        self.race_preset_action = self._action("Race on the &thin margin (preset)", "action_race_preset",
                                               self.open_race_preset)
        self.sweep_action = self._action("Margin &sweep…", "action_sweep", self.open_sweep)
        self.cover_action = self._action("&Cover's function counting…", "action_cover", self.open_cover)
        ctx.window.presetLoaded.connect(self._remember)

    def _action(self, text, name, slot) -> QAction:
        a = QAction(text, self.window)
        a.setObjectName(name)
        a.triggered.connect(lambda _checked=False: slot())
        self.menu.addAction(a)
        return a

    def _remember(self, preset) -> None:
        self.preset_lanes = lanes_from_preset(preset)
        self.preset_max_iter = preset.max_iter if self.preset_lanes else None

    def _show(self, w):
        self.windows = [x for x in self.windows if x.isVisible()]
        self.windows.append(w)
        w.show()
        return w

    def open_race(self, lanes=None, points=None, max_iter=None, title=""):
        from percviz.app.experiments.race_window import DEFAULT_MAX_ITER, RaceWindow

        scene = self.ctx.scene
        lanes = lanes or self.preset_lanes or default_lanes(scene.settings)
        limit = max_iter or self.preset_max_iter or DEFAULT_MAX_ITER
        return self._show(RaceWindow(points or scene.points, lanes, self.ctx.theme,
                                     max_iter=limit, title=title or scene.title))

    def open_race_setup(self):
        """The setup dialog (the loaded preset's lanes, else perceptron/NKP/SNKP on the scene's kernel); Race opens it."""
        from percviz.app.experiments.race_setup import RaceSetupDialog

        settings = self.ctx.scene.settings
        dlg = RaceSetupDialog(self.preset_lanes or default_lanes(settings), settings.kernel, settings.features,
                              self.window)
        dlg.accepted.connect(lambda: self.open_race(dlg.lanes()))
        self.setup_dialog = dlg
        dlg.open()
        return dlg

    def open_race_preset(self):
        from percviz.core.presets import SHIPPED_DIR, load_preset

        p = load_preset(SHIPPED_DIR / "race-thin-margin.json")
        return self.open_race(lanes_from_preset(p), p.points, p.max_iter, p.title)

    def open_sweep(self):
        from percviz.app.experiments.sweep_window import SweepWindow

        return self._show(SweepWindow(self.ctx.theme))

    def open_cover(self):
        from percviz.app.experiments.cover_window import CoverWindow

        return self._show(CoverWindow(self.ctx.theme))

    def follow_theme(self, theme) -> None:
        """Restyle every open experiment window with the main window's new theme."""
        self.windows = [w for w in self.windows if w.isVisible()]
        for w in self.windows:
            w.apply_theme(theme)

    def close_all(self) -> None:
        for w in self.windows:
            w.close()
        self.windows = []


def install(ctx: "AppContext") -> ExperimentsMenu:
    """Add the Experiments menu to the main window (called once from its constructor)."""
    menu = ExperimentsMenu(ctx)
    ctx.theme_listeners.append(menu.follow_theme)  # presentation mode (F5) and themes restyle the open windows too
    ctx.close_guards.append(lambda: menu.close_all() or True)  # closing the main window closes them too
    return menu
