"""The compact presentation bar: algorithm, Step, Play, Reset, Live and the iteration, in place of the side panel.

Presentation mode hides the control panel and the scene's info dock (their forms do not fit a projector's type
beside the views) and shows this bar over the views instead; leaving puts the saved dock layout back exactly.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Callable

from PySide6.QtCore import QByteArray, Qt, QTimer
from PySide6.QtWidgets import QComboBox, QLabel, QToolBar, QToolButton, QWidget

from percviz.app.panels.curves_fold import CurvesFold
from percviz.app.layouts import restore_dock_state
from percviz.app.panels.name_combo import WholeNameCombo
from percviz.core.glossary import outcome
from percviz.app.timing import FIT_SETTLE_MS

if TYPE_CHECKING:
    from percviz.app.context import AppContext
    from percviz.app.run.live import LiveMode




class PresentationBar(QToolBar):
    """One row of the run's essentials, in the window's (presentation-sized) font."""

    def __init__(self, ctx: "AppContext", live: "LiveMode | None" = None):
        """ctx: the window's context (its run keys step, play and reset; the feed); live: Live's toggle, if any."""
        super().__init__("Presentation", ctx.window)
        self.setObjectName("presentation_bar")
        self.setMovable(False)
        self.setFloatable(False)
        self.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextOnly)
        self.ctx, self.live = ctx, live
        controls = ctx.controls
        self.algorithm = WholeNameCombo()  # a long name shortened at a word, never cut mid-word
        self.algorithm.setObjectName("presentation_algorithm")
        self.algorithm.setAccessibleName("presentation algorithm")
        self.algorithm.setModel(controls.algorithm.model())  # the same grouped list as the side panel
        self.algorithm.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToContents)
        self.algorithm.setFocusPolicy(Qt.FocusPolicy.TabFocus)
        self.algorithm.activated.connect(self._chosen)
        self.algorithm.fit_popup()
        self.addWidget(self.algorithm)
        self.addSeparator()
        self.buttons: dict[str, QToolButton] = {}
        for key, text in (("step", "Step"), ("play", "Play"), ("reset", "Reset")):
            action = ctx.actions.get(key)
            if action is None:
                continue
            b = QToolButton()
            b.setObjectName(f"presentation_{key}")
            b.setAccessibleName(f"presentation {key}")
            b.setText(text)
            b.setToolTip(action.toolTip() or action.text().replace("&", ""))
            b.setFocusPolicy(Qt.FocusPolicy.TabFocus)
            b.clicked.connect(lambda _=False, a=action: a.trigger())
            self.buttons[key] = b
            self.addWidget(b)
        ctx.session.runStateChanged.connect(self._on_state)
        if "reset" in self.buttons:  # a long run asks here too
            controls.resetArmedChanged.connect(lambda on: self.buttons["reset"].setText("Discard?" if on else "Reset"))
        self.addSeparator()
        self.iteration = QLabel()
        self.iteration.setObjectName("presentation_iteration")
        self.iteration.setAccessibleName("presentation iteration")
        self.iteration.setContentsMargins(12, 0, 12, 0)
        self._iteration_action = self.addWidget(self.iteration)
        ctx.feed.subscribe(snapshot=self._on_snapshot, owner=self)
        ctx.scene.settings_changed.connect(lambda _s: self.sync())
        self.sync()
        self.hide()

    def add_live(self) -> None:
        """Live joins the bar once the window has it (a check button mirroring the Live toggle)."""
        live = self.live
        if live is None or "live" in self.buttons:
            return
        b = QToolButton()
        b.setObjectName("presentation_live")
        b.setAccessibleName("presentation live")
        b.setText("Live")
        b.setCheckable(True)
        b.setChecked(live.on)
        b.setFocusPolicy(Qt.FocusPolicy.TabFocus)
        b.toggled.connect(live.set_on)
        live.toggled.connect(lambda on: (b.blockSignals(True), b.setChecked(on), b.blockSignals(False)))
        self.buttons["live"] = b
        self.insertWidget(self._iteration_action, b)

    def _on_state(self, state: str) -> None:
        b = self.buttons.get("play")
        if b is not None:
            b.setText("Pause" if state in ("playing", "running") else "Play")

    def sync(self) -> None:
        name = self.ctx.scene.settings.algorithm
        for i in range(self.algorithm.count()):
            if self.algorithm.itemData(i, Qt.ItemDataRole.UserRole) == name:
                self.algorithm.blockSignals(True)
                self.algorithm.setCurrentIndex(i)
                self.algorithm.blockSignals(False)
        self._on_snapshot(self.ctx.session.current)

    def _chosen(self, index: int) -> None:
        name = self.algorithm.itemData(index, Qt.ItemDataRole.UserRole)
        if name:
            self.ctx.controls.select_algorithm(name)

    def _on_snapshot(self, snap) -> None:
        if snap is None:
            self.iteration.setText("iteration –")
            return
        # the outcome is on the canvas caption; here only the count, so the bar fits at any scale
        self.iteration.setText(f"iteration {snap.iteration}")
        self.iteration.setToolTip(outcome(snap.status, dict(snap.metrics)).words)


class PresentationLayout:
    """Enter: remember the dock layout, hide the side docks, show the bar. Leave: the same layout again."""

    SIDE_DOCKS = ("controls_dock", "info")

    def __init__(self, ctx: "AppContext", live: "LiveMode | None" = None, scale: Callable[[], float] = lambda: 1.0):
        """scale: the presentation's scale now (Look.scale): the folded curves' threshold follows it."""
        self.window = window = ctx.window
        self.bar = PresentationBar(ctx, live)
        window.addToolBar(Qt.ToolBarArea.TopToolBarArea, self.bar)
        self.bar.hide()
        self.fold = CurvesFold(window, scale)  # the curves under a tab when the window is too short for both
        self._state: QByteArray | None = None
        self._hidden: list = []
        self._size = None

    def enter(self) -> None:
        w = self.window
        if self._state is not None:
            return
        self._state = w.saveState()
        normal = not (w.isMaximized() or w.isFullScreen())
        self._size = w.size() if normal else None  # the presentation's larger minimum sizes can widen the window
        self.bar.add_live()
        self._hidden = []
        for dock in self._side_docks():
            if dock.isVisible():
                self._hidden.append(dock)
                dock.hide()
        self.bar.sync()
        self.bar.show()
        self.fold.start()

    def leave(self) -> None:
        if self._state is None:
            return
        w = self.window
        self.bar.hide()
        sizes = self.fold.stop()
        size, self._size = self._size, None
        for dock in self._hidden:
            dock.show()
        state = self._state
        restore_dock_state(w, state, w.updating_docks)
        w.sync_docks()  # a view the presentation's algorithm opened (or closed) stays so: the View menu says it
        # again after the desk fonts have been laid out (they change the docks' minimum sizes), and once the
        # deferred relayouts they cause (layout requests, the small-screen fit) have run
        QTimer.singleShot(0, w, lambda: self._restore_desk(state, sizes, size))  # w: never after the window is gone
        QTimer.singleShot(2 * FIT_SETTLE_MS, w, lambda: self._restore_desk(state, sizes, size))
        self._state, self._hidden = None, []

    def _restore_desk(self, state, sizes=None, size=None) -> None:
        """The saved desk layout again; the status bar re-measured first (it kept the presentation font's
        height, 33 px instead of 22, and took that from the left docks)."""
        if self._state is not None:  # F5 again before this delayed restore: presenting, the desk comes back later
            return
        bar = self.window.statusBar()
        for label in bar.findChildren(QWidget):
            label.updateGeometry()
        bar.setFixedHeight(bar.sizeHint().height())  # forces the re-measure; then free again
        bar.setMinimumHeight(0)
        bar.setMaximumHeight(16777215)
        w = self.window
        if size is not None and self._state is None and w.size() != size and not (w.isMaximized() or w.isFullScreen()):
            w.resize(size)  # at 3× the curves' side-by-side plots had widened a 1280 px window to 1395
        # lay the window out with the desk's status bar first: restored into the presentation's taller one, the
        # docks' sizes were rescaled when it shrank (the info dock came back 2 px taller on each F5 F5)
        self.window.layout().activate()
        restore_dock_state(self.window, state, self.window.updating_docks)
        self.window.sync_docks()
        self.window.layout().activate()
        if sizes and self._state is None:  # the canvas/curves split as it was at the desk
            self.window.splitter.setSizes(sizes)

    def reset_desk(self) -> None:
        """Not presenting: the bar hidden and the side docks shown (whatever a restored layout said)."""
        if self._state is not None:
            return
        self.bar.hide()
        for dock in self._side_docks():
            if dock.isHidden() and dock.objectName() == "controls_dock":
                dock.show()

    def _side_docks(self):
        from PySide6.QtWidgets import QDockWidget

        out = []
        for dock in self.window.findChildren(QDockWidget):
            if dock.objectName() in self.SIDE_DOCKS:
                out.append(dock)
        return out


__all__ = ["PresentationBar", "PresentationLayout"]
