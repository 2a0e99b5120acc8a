"""Presentation mode (F5), full screen (F11), the themes and the presentation scale: one look for the whole window."""

from __future__ import annotations

from typing import Callable

from PySide6.QtCore import QEvent, QObject, Qt, QTimer
from PySide6.QtGui import QAction, QActionGroup, QFont, QKeySequence
from PySide6.QtWidgets import QApplication, QMenu

from percviz.app.context import AppContext
from percviz.app.panels.presentation_bar import PresentationLayout
from percviz.app.run.session import SPLIT_RESTART_N
from percviz.app.theme import PRESENTATION_SCALE, THEMES, Theme, theme_for


class Look(QObject):
    """The current theme (desk or presenting, at the presentation scale), applied to everything that shows text."""

    def __init__(self, ctx: AppContext):
        super().__init__(ctx.window)
        self.ctx = ctx
        self.prefs = ctx.prefs
        self.theme_name = self.prefs.theme
        self.presenting = False
        pt = QApplication.font().pointSizeF()
        self.base_font_pt = pt if pt > 0 else 10.0
        self.theme = theme_for(self.theme_name, 1.0)
        #: restyled with every theme after the window's panels (caption, help sheet, info panel, …)
        self.restyled: list = []
        #: told every new theme (the animation export draws with it)
        self.listeners: list[Callable[[Theme], None]] = []
        #: the presentation bar and the curves' fold (set by the classroom once Live's actions exist)
        self.presentation_layout: PresentationLayout | None = None
        self._was_maximized = False
        # forms are rebuilt when the algorithm or kernel changes: their new fields get the theme's borders too
        ctx.scene.settings_changed.connect(lambda _s: QTimer.singleShot(0, lambda: self.style_fields(self.theme)))
        ctx.window.installEventFilter(self)

    def eventFilter(self, obj, event) -> bool:
        if event.type() == QEvent.Type.Close and obj is self.ctx.window:  # closed (not refused): menus and
            QTimer.singleShot(0, self, self._release_fonts)  # dialogs of other windows get the desk font again
        return super().eventFilter(obj, event)

    def _release_fonts(self) -> None:
        if not self.ctx.window.isVisible():
            for kind in ("QMenu", "QDialog"):
                QApplication.setFont(QApplication.font(), kind)

    def build_menu(self, info_toggle: QAction, caption_toggle: Callable[[bool], None]) -> None:
        """View ▸ Presentation mode, Full screen, Run caption, Theme, Presentation scale, then the info dock."""
        w, menu = self.ctx.window, self.ctx.menus.view
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
        caption.toggled.connect(caption_toggle)
        for a in (present, full, caption):
            a.setShortcutContext(Qt.WindowShortcut)
            menu.addAction(a)
            w.addAction(a)
        self.ctx.actions.update(presentation=present, full_screen=full, caption=caption)
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
        menu.addAction(info_toggle)

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
        w = self.ctx.window
        palette = theme.palette()
        QApplication.setPalette(palette)  # menus, dialogs and popups are windows of their own: they follow the theme too
        w.setPalette(palette)
        font = QFont(w.font())
        font.setPointSizeF(self.base_font_pt * theme.scale)
        w.setFont(font)
        w.apply_theme(theme)
        split = self.ctx.scene.n > SPLIT_RESTART_N and w.isVisible()
        for item in self.restyled:
            if split:  # a large scene: restyled in turns of their own, as the panels are
                self.ctx.frames.first_draw(f"theme:{type(item).__name__}", lambda it=item: it.apply_theme(self.theme))
            else:
                item.apply_theme(theme)
        for listener in self.listeners:
            listener(theme)
        self.style_fields(theme)

    def style_fields(self, theme: Theme) -> None:
        """Field and check-box borders in dark themes, widget by widget (see Theme.field_style_sheet)."""
        theme.style_fields(self.ctx.window)

    def set_presentation(self, on: bool) -> None:
        on = bool(on)
        if on != self.presenting:
            self.presenting = on
            held = self.hold_paints()
            if on:
                self.presentation_layout.enter()  # remembers the desk layout first
            self.apply()
            self._fit_geometry_docks()
            if not on:
                self.presentation_layout.leave()  # the desk layout exactly as it was
            self.ctx.show_message("Presentation mode: F5 to leave, F11 full screen." if on else "Desk mode.")
            if held:
                self.settle_layout()
        action = self.ctx.actions.get("presentation")
        if action is not None and action.isChecked() != on:
            action.blockSignals(True)
            action.setChecked(on)
            action.blockSignals(False)

    def hold_paints(self) -> bool:
        """A large scene: the window paints nothing until the turn after its relayout (see settle_layout)."""
        w = self.ctx.window
        if self.ctx.scene.n <= SPLIT_RESTART_N or not w.isVisible():
            return False
        w.setUpdatesEnabled(False)
        return True

    def settle_layout(self) -> None:
        """The new fonts' relayout now, in one pass, so that the canvas's queued redraw sees the final size (else
        it draws at the old size, then again when the posted layout requests resize it); the window paints once,
        in the next turn, after that redraw."""
        w = self.ctx.window
        QApplication.sendPostedEvents(None, QEvent.Type.LayoutRequest)
        w.layout().activate()
        canvas = self.ctx.panels["canvas"]
        canvas.hold_redraw()  # its queued redraw, too, in the next turn (a timer: after the stall probe's)

        def release() -> None:
            canvas.release_redraw()
            w.setUpdatesEnabled(True)

        QTimer.singleShot(1, w, release)
        self.ctx.frames.after_repaint()  # the other panels' restyles (apply_theme's split) after that repaint

    def _fit_geometry_docks(self) -> None:
        """The weight/feature docks grow with the presentation scale (their labels and markers do)."""
        w = self.ctx.window
        docks = [d for name, d in self.ctx.docks.items() if name in ("weight", "feature") and d.isVisible()]
        if docks:
            width = int(300 * (self.scale if self.presenting else 1.0))
            w.resizeDocks(docks, [min(width, w.width() // 4)] * len(docks), Qt.Orientation.Horizontal)

    def set_full_screen(self, on: bool) -> None:
        w = self.ctx.window
        if on and not w.isFullScreen():
            self._was_maximized = w.isMaximized()
            w.showFullScreen()
        elif not on and w.isFullScreen():
            w.showMaximized() if self._was_maximized else w.showNormal()

    def set_theme(self, name: str) -> None:
        theme_for(name)  # validates
        self.theme_name = name
        self.prefs.theme = name
        self.apply()

    def set_presentation_scale(self, scale: float) -> None:
        self.prefs.presentation_scale = max(PRESENTATION_SCALE, float(scale))
        if self.presenting:
            self.apply()
