"""The side panel: class selector, algorithm and kernel (or φ-map) with generated forms, run controls, status."""

from __future__ import annotations

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QBrush, QColor, QFont
from PySide6.QtWidgets import (
    QHBoxLayout,
    QLabel,
    QVBoxLayout,
    QWidget,
)

from percviz.app.panels.controls.choosers import Choosers
from percviz.app.panels.controls.class_selector import ClassSelector
from percviz.app.panels.controls.run_box import RunBox
from percviz.app.panels.controls.status import _group, status_text
from percviz.app.run.panel_feed import FrameFeed
from percviz.app.run.session import RunSession
from percviz.app.theme import theme_for
from percviz.core.scene import SceneModel


class ControlsPanel(RunBox, Choosers, QWidget):
    """Everything to set up and drive a run; edits the scene's settings and commands the session."""

    #: The class a left click on the canvas places.
    classChanged = Signal(int)

    #: A first Reset of a long run: the sentence that says what a second one would discard.
    resetArmed = Signal(str)

    resetArmedChanged = Signal(bool)  # True while a second Reset would discard a long run

    def __init__(self, scene: SceneModel, session: RunSession, parent=None, feed: FrameFeed | None = None):
        """feed: the run's FrameFeed (the window's); a panel of its own gets one of its own."""
        super().__init__(parent)
        self.scene, self.session = scene, session
        self._algo_params: dict[str, dict] = {}
        self._max_iters: dict[str, int] = {}  # Max iterations as set (by hand or by a scene) for each algorithm
        self._kernel_params: dict[str, dict] = {}
        self._feature_params: dict[str, dict] = {}
        self._syncing = False
        self._status_error = False
        self._form_error = False
        self._reset_armed: float | None = None
        self._theme = theme_for()
        self.status_role = "neutral"
        self.setMinimumWidth(300)
        root = QVBoxLayout(self)
        root.setContentsMargins(6, 6, 6, 6)
        root.setSpacing(8)
        root.addWidget(self._build_points())
        root.addWidget(self._build_algorithm())
        root.addWidget(self._build_kernel())
        root.addWidget(self._build_run())
        root.addStretch(1)
        scene.settings_changed.connect(lambda _s: self.sync_from_scene())
        session.runStateChanged.connect(self._on_state)
        feed = feed if feed is not None else FrameFeed(session, self)
        feed.subscribe(problem=self._on_problem, snapshot=self._on_snapshot, history=self._on_history, owner=self)
        session.errorRaised.connect(self._on_error)
        self.sync_from_scene()
        self._on_state(session.state)
        if session.error:
            self._on_error(session.error)

    # -- construction ----------------------------------------------------------------------------------
    def _build_points(self) -> QWidget:
        box, lay = _group("Points")
        self.class_selector = ClassSelector()
        self.class_selector.classChanged.connect(self.classChanged.emit)
        row = QHBoxLayout()
        row.addWidget(QLabel("Place:"))
        row.addWidget(self.class_selector, 1)
        lay.addLayout(row)
        box.setToolTip("Left click places the selected class, right click (or shift+click) places −; "
                       "drag a point to move it; Delete or ctrl+click removes one.")
        return box

    def apply_theme(self, theme) -> None:
        """Colour the class buttons like the canvas markers (palettes, so fonts still follow the window)."""
        self.class_selector.set_colors([theme.class_color(c) for c in range(len(self.class_selector.buttons))])
        self._theme = theme
        self._theme_icons()
        self._style_headings(theme)
        self.fit_popup()
        snap = self.session.current
        if not self._status_error and snap is not None:
            self._set_status(status_text(snap, self.session.solver_cls), error=False, snap=snap)

    def _style_headings(self, theme) -> None:
        """The algorithm list's family headings: bold at the theme's text size, in its text colour (not the faint
        grey of a disabled item, not the desk's size in presentation)."""
        model = self.algorithm.model()
        font = QFont(self.algorithm.view().font())  # the items' size (the window's font), so fit_popup measures it
        font.setBold(True)
        brush = QBrush(QColor(theme.foreground))
        for row in range(model.rowCount()):
            index = model.index(row, 0)
            if model.data(index, Qt.ItemDataRole.UserRole) is None:
                model.setData(index, font, Qt.ItemDataRole.FontRole)
                model.setData(index, brush, Qt.ItemDataRole.ForegroundRole)

    # -- reading -----------------------------------------------------------------------------------------
    @property
    def current_class(self) -> int:
        return self.class_selector.current_class

    def revert_edits(self) -> None:
        """Escape in a field: every field shows the scene's settings again (typed text that was not committed goes)."""
        for form in (self.algo_form, self.kernel_form, self.feature_form):
            form.revert()
        self.sync_from_scene()

    def _on_problem(self, problem, solver_cls) -> None:
        if self._restarting_for_drag():
            return
        if problem is not None:
            self._set_status("Starting…", error=False)
        self._update_enabled()
