"""The run box: Step, Play, Run to end, Reset, Live, max iterations, speed, history and the status line."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QSize, Qt
from PySide6.QtGui import QColor, QIcon, QPainter, QPixmap
from PySide6.QtWidgets import (
    QCheckBox,
    QFormLayout,
    QGridLayout,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QSizePolicy,
    QSlider,
    QSpinBox,
    QStyle,
    QVBoxLayout,
    QWidget,
)

from percviz.app.panels.controls.class_selector import _SelectableUnderMouse
from percviz.app.timing import RESET_CONFIRM_S
from percviz.app.panels.controls.status import LONG_RUN, SPEEDS, _group, speed_text, status_text
from percviz.app.run.session import FINISHED, IDLE, INVALID, PLAYING, RUNNING
from percviz.core.glossary import degenerate_note, outcome
from percviz.core.solvers.base import MAX_ITER_SPEC


class RunBox:
    """Builds the run box and follows the session's state, history and snapshots in it."""

    _play_icon = None  # the Play button's icon last set

    def _build_run(self) -> QWidget:
        box, lay = _group("Run")
        SP = QStyle.StandardPixmap
        self.step_button = self._button("Step", "step", self._icon(SP.SP_MediaSkipForward), "One update of the algorithm (Space)")
        self.play_button = self._button("Play", "play", self._icon(SP.SP_MediaPlay), "Animate at the chosen speed; click again to pause (P)")
        self.run_button = self._button("Run to end", "run", self._icon(SP.SP_MediaSeekForward), "Run as fast as possible until the algorithm halts or reaches the iteration limit (Ctrl+Enter)")
        self.reset_button = self._button("Reset", "reset", self._icon(SP.SP_BrowserReload), "Back to iteration 0 (R)")
        #: the buttons whose icon never changes, with it (Play's follows the state: _play_icon)
        self._fixed_icons = ((self.step_button, SP.SP_MediaSkipForward), (self.run_button, SP.SP_MediaSeekForward),
                             (self.reset_button, SP.SP_BrowserReload))
        self.step_button.clicked.connect(self.session.step)
        self.play_button.clicked.connect(self.session.toggle_play)
        self.run_button.clicked.connect(self.session.run_to_end)
        self.reset_button.clicked.connect(self.request_reset)
        grid = QGridLayout()
        grid.setSpacing(4)
        grid.addWidget(self.step_button, 0, 0)
        grid.addWidget(self.play_button, 0, 1)
        grid.addWidget(self.run_button, 1, 0)
        grid.addWidget(self.reset_button, 1, 1)
        lay.addLayout(grid)
        self.live_box = QCheckBox("Live")
        self.live_box.setAccessibleName("live")
        self.live_box.setObjectName("live")
        self.live_box.setToolTip("Live: every edit reruns the algorithm to its end (L)")
        lay.addWidget(self.live_box)

        form = QFormLayout()
        form.setContentsMargins(0, 4, 0, 0)
        self.max_iter = QSpinBox()
        self.max_iter.setAccessibleName("max_iter")
        self.max_iter.setObjectName("max_iter")
        self.max_iter.setRange(int(MAX_ITER_SPEC.low), int(MAX_ITER_SPEC.high))
        self.max_iter.setKeyboardTracking(False)
        self.max_iter.setAccelerated(True)
        self.max_iter.setGroupSeparatorShown(True)
        self.max_iter.setToolTip("Stop after this many updates (the run then ends with 'iteration limit').")
        self.max_iter.valueChanged.connect(self._on_max_iter)
        form.addRow("Max iterations", self.max_iter)

        self.speed = QSlider(Qt.Orientation.Horizontal)
        self.speed.setAccessibleName("speed")
        self.speed.setObjectName("speed")
        self.speed.setRange(0, len(SPEEDS) - 1)
        self.speed.setPageStep(1)
        self.speed.setToolTip("Updates per second while playing, from 1 to as fast as possible")
        self.speed_label = QLabel()
        self.speed_label.setMinimumWidth(70)
        self.speed.valueChanged.connect(self._on_speed)
        self.speed.setValue(SPEEDS.index(20) if 20 in SPEEDS else 0)
        self._on_speed(self.speed.value())
        srow = QHBoxLayout()
        srow.addWidget(self.speed, 1)
        srow.addWidget(self.speed_label)
        form.addRow("Speed", srow)
        lay.addLayout(form)

        self.history = QSlider(Qt.Orientation.Horizontal)
        self.history.setAccessibleName("history")
        self.history.setObjectName("history")
        self.history.setRange(0, 0)
        self.history.setToolTip("Scrub through the snapshots computed so far (← / →)")
        self.history.valueChanged.connect(self._on_history_slider)
        self.history_label = QLabel("no snapshot yet")
        self.history_label.setStyleSheet("color: palette(mid); font-size: 11px;")
        hrow = QVBoxLayout()
        hrow.setSpacing(0)
        hl = QHBoxLayout()
        hl.addWidget(QLabel("History"))
        hl.addWidget(self.history, 1)
        hrow.addLayout(hl)
        hrow.addWidget(self.history_label, 0, Qt.AlignmentFlag.AlignRight)
        lay.addLayout(hrow)

        self.status = QLabel()
        self.status.setAccessibleName("status")
        self.status.setObjectName("status")
        self.status.setWordWrap(True)
        self._selectable = _SelectableUnderMouse(self.status)
        self.status.installEventFilter(self._selectable)
        self.status.setMinimumHeight(44)
        self.status.setSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Minimum)
        self._set_status("", error=False)
        lay.addWidget(self.status)
        return box

    #: the media icons are monochrome shapes, drawn in the theme's colours
    _MONOCHROME = (QStyle.StandardPixmap.SP_MediaSkipForward, QStyle.StandardPixmap.SP_MediaSeekForward,
                   QStyle.StandardPixmap.SP_MediaPlay, QStyle.StandardPixmap.SP_MediaPause)

    def _icon(self, kind) -> QIcon:
        """The style's icon with its disabled form (and a media shape's normal form) in the theme's text colours:
        the style dims a disabled icon toward a light palette, near-black on a dark theme's buttons."""
        base = self.style().standardIcon(kind)
        theme = self._theme
        icon = QIcon()
        for size in base.availableSizes() or [QSize(32, 32)]:
            pm = base.pixmap(size)
            icon.addPixmap(_tinted(pm, theme.foreground) if kind in self._MONOCHROME else pm, QIcon.Mode.Normal)
            icon.addPixmap(_tinted(pm, theme.disabled_text), QIcon.Mode.Disabled)
        return icon

    def _theme_icons(self) -> None:
        """Redraw the run buttons' icons in the current theme (a theme change)."""
        for button, kind in self._fixed_icons:
            button.setIcon(self._icon(kind))
        if self._play_icon is not None:
            self.play_button.setIcon(self._icon(self._play_icon))

    def _button(self, text: str, name: str, icon, tip: str) -> QPushButton:
        b = QPushButton(icon, text)
        b.setAccessibleName(name)
        b.setObjectName(name)
        b.setToolTip(tip)
        b.setMinimumHeight(30)
        return b

    def request_reset(self) -> bool:
        """Reset (R, Home, the button); a long run is discarded only by a second press within a few seconds."""
        import time

        latest = self.session.latest
        long_run = latest is not None and latest.iteration >= LONG_RUN
        armed = self._reset_armed is not None and time.monotonic() - self._reset_armed < RESET_CONFIRM_S
        if long_run and not armed:
            self._reset_armed = time.monotonic()
            self.reset_button.setText("Again to discard")
            self.resetArmedChanged.emit(True)
            self.resetArmed.emit(f"Reset would discard {latest.iteration:,} iterations: press R (or Reset) again to do it.")
            from PySide6.QtCore import QTimer

            QTimer.singleShot(int(RESET_CONFIRM_S * 1000), self._disarm_reset)
            return False
        self._disarm_reset()
        self.session.reset()
        return True

    def _disarm_reset(self) -> None:
        if self._reset_armed is not None:
            self.resetArmedChanged.emit(False)
        self._reset_armed = None
        self.reset_button.setText("Reset")

    def _on_max_iter(self, value: int) -> None:
        self._apply(max_iter=int(value))

    def _on_speed(self, pos: int) -> None:
        ups = SPEEDS[max(0, min(pos, len(SPEEDS) - 1))]
        self.speed_label.setText(speed_text(ups))
        self.session.set_speed(ups)

    def _on_history_slider(self, pos: int) -> None:
        if pos != self.session.index:
            self.session.show_index(pos)

    # -- session → widgets -------------------------------------------------------------------------------
    def _update_enabled(self) -> None:
        ok = self.forms_valid()
        runnable = ok and self.session.state != INVALID and not self.session.finished
        for b in (self.step_button, self.play_button, self.run_button):
            b.setEnabled(runnable)
        self.reset_button.setEnabled(self.session.state != INVALID or ok)
        if not ok:
            bad = next(iter({**self.algo_form.errors(), **self.kernel_form.errors(), **self.feature_form.errors()}.values()), "")
            self._set_status(f"Fix the highlighted value before running. {bad}", error=True)
            self._form_error = True
        elif self._form_error:
            # the field is valid again: its message goes, the run's own status comes back
            self._form_error = False
            snap = self.session.current
            if self.session.error:
                self._set_status(self.session.error, error=True)
            elif snap is not None:
                self._set_status(status_text(snap, self.session.solver_cls), error=False, snap=snap)
            else:
                self._set_status("", error=False)

    def _restarting_for_drag(self) -> bool:
        """A Live drag's rerun is starting: its end (finished, still running, or an error) follows at once, so the
        controls skip the in-between state ("Starting…", iteration 0, Step enabled) and repaint once per move."""
        s = self.session
        return bool(s.sparse) and s.problem is not None and not s.finished and not len(s.history_store)

    def _on_state(self, state: str) -> None:
        if state == IDLE and self._restarting_for_drag():
            return
        playing = state in (PLAYING, RUNNING)
        icon = QStyle.StandardPixmap.SP_MediaPause if state == PLAYING else QStyle.StandardPixmap.SP_MediaPlay
        if icon != self._play_icon:  # setIcon repaints the button even when it is the same
            self._play_icon = icon
            self.play_button.setIcon(self._icon(icon))
        self.play_button.setText("Pause" if playing else "Play")
        self.run_button.setText("Running…" if state == RUNNING else "Run to end")
        self._update_enabled()
        if state == FINISHED and self.session.latest is not None:
            self._on_snapshot(self.session.current)

    def _on_history(self, count: int) -> None:
        if count == 0 and self._restarting_for_drag():
            return
        self.history.blockSignals(True)
        self.history.setRange(0, max(0, count - 1))
        self.history.setValue(max(0, self.session.index))
        self.history.blockSignals(False)
        self._update_history_label()

    def _update_history_label(self) -> None:
        store = self.session.history_store
        if not len(store):
            self.history_label.setText("no snapshot yet")
            return
        i = max(0, self.session.index)
        shown, last = store[i].iteration, store[-1].iteration
        text = f"showing iteration {shown} of {last}"
        if store.thinned:
            text += f" ({len(store)} kept)"
        self.history_label.setText(text)

    def _on_snapshot(self, snap) -> None:
        if snap is None:
            return
        self.history.blockSignals(True)
        self.history.setValue(max(0, self.session.index))
        self.history.blockSignals(False)
        self._update_history_label()
        if self.forms_valid():
            self._set_status(status_text(snap, self.session.solver_cls), error=False, snap=snap)
        self._update_enabled()

    def _on_error(self, text: str) -> None:
        self._set_status(text, error=True)

    def _set_status(self, text: str, error: bool, snap: Any = None) -> None:
        """The status box: its words, and a colour by outcome (separator, certificate, proof, limit, …)."""
        self._status_error = error
        if error:
            role = "error"
        elif snap is not None and snap.status.done:
            role = outcome(snap.status, dict(snap.metrics)).role
            if degenerate_note(self.session.solver_cls, dict(snap.metrics)):
                role = "warning"
        else:
            role = "neutral"
        self.status_role = role
        fg, bg, border = self._theme.status_style(role)
        style = f"color: {fg}; background: {bg}; border: 1px solid {border};"
        sheet = f"QLabel {{ {style} border-radius: 4px; padding: 5px; }}"
        if sheet != self.status.styleSheet():  # re-polishing costs ~1 ms: not at every frame of a run
            self.status.setStyleSheet(sheet)
        text = text or "Place + and − points, then Step or Play."
        if text != self.status.text():  # QLabel repaints (with its group) on every setText, even the same one
            self.status.setText(text)


def _tinted(pm: QPixmap, color: str) -> QPixmap:
    """The pixmap's shape (its alpha) filled with one colour."""
    out = QPixmap(pm.size())
    out.setDevicePixelRatio(pm.devicePixelRatio())
    out.fill(Qt.GlobalColor.transparent)
    p = QPainter(out)
    p.drawPixmap(0, 0, pm)
    p.setCompositionMode(QPainter.CompositionMode.CompositionMode_SourceIn)
    p.fillRect(out.rect(), QColor(color))
    p.end()
    return out
