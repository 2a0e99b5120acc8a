"""A panel's subscription to the run (`Panel.bind`): which session signals reach it, when, and at what rate.

One `PanelFeed` per panel connects the session's signals it needs:
- problemChanged: the panel's picture of the old run is stale; a shown panel that supports the new algorithm
  gets `set_problem` (and the run so far) at once, the others when they are shown (`catch_up`);
- snapshotShown / historyChanged: a shown panel draws them — at once when it has no `redraw_interval` (the
  canvas, in the snapshot frame), else through the FrameScheduler's side frames at its own rate (`set_run`);
- rhoChanged: `set_reference`.
A hidden panel is not fed (a closed dock costs nothing): it is marked stale and catches up by itself when it
is shown again (its Show event; `catch_up`). A panel with `defer_during_drag` (a costly set_problem: the weight and feature
pictures) is not fed on every move of a dragged point: it catches up once the drag has paused DRAG_PAUSE_MS (no
new run nor snapshot for that long, however slow each move is) or ended. A panel with a `drag_refresh` (the curves)
catches up during a drag at most every `drag_refresh` seconds instead of after every move. After an edit (a new
run) the paced panels (curves, weight and feature pictures) draw their first picture in an event-loop turn of
their own each (FrameScheduler.first_draw), so that one edit is not one long stall. A panel's exception is
reported once per run through `on_error`; the others draw.
"""

from __future__ import annotations

import sys
from typing import Callable

from PySide6.QtCore import QEvent, QObject, QTimer
from percviz.app.timing import DRAG_PAUSE_MS



class PanelFeed(QObject):
    """The session → panel wiring of one panel (module docstring); a child of the panel, gone with it."""

    def __init__(self, panel, name: str, session, on_error: Callable[[str], None] | None = None):
        super().__init__(panel)
        self.panel, self.name, self.session = panel, name, session
        self.on_error = on_error
        self.stale = True
        self._failed = False
        self._later = QTimer(self, singleShot=True)  # the deferred catch-up (defer_during_drag)
        self._later.timeout.connect(self._queue_catch_up)
        self.paced = panel.redraw_interval is not None
        if self.paced:  # drawn after the canvas, in side frames of its own
            session.frames.add_side_panel(name, panel.redraw_interval, self._deliver_paced)
        panel.installEventFilter(self)  # shown (its dock opened): catch up by itself
        session.problemChanged.connect(self._on_problem)
        session.snapshotShown.connect(self._on_snapshot)
        session.historyChanged.connect(self._on_history)
        session.rhoChanged.connect(self._call_set_reference)

    # -- shown or not ---------------------------------------------------------------------------------------
    def eventFilter(self, obj, event) -> bool:  # noqa: N802
        if obj is self.panel and event.type() == QEvent.Type.Show and self.stale:
            self.catch_up(defer=True)  # a heavy panel in a turn of its own, after the window's layout
        return False

    def shown(self) -> bool:
        """Whether the panel is shown (or will be when its window is): only then is it fed."""
        window = self.panel.window()
        return window is self.panel or self.panel.isVisibleTo(window)

    def invalidate(self) -> None:
        """Draw everything again at the next catch-up (a preset's view settings were applied)."""
        self.stale = True

    def catch_up(self, defer: bool = False) -> None:
        """A stale panel that is shown is brought up to date: problem, history and the snapshot shown.

        defer (a new run after an edit): a `defer_during_drag` panel waits for the drag's pause, or one turn.
        """
        if not (self.stale and self.shown()):
            return
        dragging = self.session.scene.dragging
        refresh = getattr(self.panel, "drag_refresh", None)
        if defer and dragging and refresh is not None:
            if not self._later.isActive():  # throttled: the moves in between are skipped
                self._later.start(max(1, int(1000 * refresh)))
            return
        if defer and self.panel.defer_during_drag and dragging:
            self._later.start(DRAG_PAUSE_MS)
            return
        if defer and (self.panel.defer_during_drag or self.paced):
            # the slower panels' first picture of a new run: a turn of its own each (FrameScheduler.first_draw)
            self._later.stop()
            self.session.frames.first_draw(self.name, self._catch_up_now)
            return
        self._feed()

    def _queue_catch_up(self) -> None:
        self.session.frames.first_draw(self.name, self._catch_up_now)

    def _catch_up_now(self) -> None:
        if self._debouncing():
            # a move came in after the pause timer fired, before this turn (a UI thread running behind the
            # mouse): the drag has not paused; the re-armed timer brings the catch-up
            return
        if self.stale and self.shown():
            self._feed()

    def _feed(self) -> None:
        s = self.session
        self.stale = False
        s.frames.discard(self.name)
        s.frames.cancel_first_draw(self.name)
        self._call("set_problem", s.problem, s.solver_cls)
        if s.current is not None:
            self._call("set_history", s.history)
            self._call("set_snapshot", s.current)

    # -- the session's signals ----------------------------------------------------------------------------------
    def _on_problem(self, problem, solver_cls) -> None:
        self.stale, self._failed = True, False
        # a panel that will stay shown draws the new run now; the window shows or hides docks for the new
        # algorithm afterwards and calls catch_up for those it showed
        if solver_cls is not None and not type(self.panel).supports(solver_cls)[0]:
            return
        self.catch_up(defer=True)

    def _on_snapshot(self, snap) -> None:
        if self._debouncing():
            # the drag has not paused: a move's run is being shown; the pause is counted from after its drawing
            QTimer.singleShot(0, self, self._rearm)
        if not self.shown():
            self.stale = True
        elif not self.stale and not self.session.frames.offer(self.name):
            self._call("set_snapshot", snap)

    def _debouncing(self) -> bool:
        return (self.stale and self._later.isActive() and self.panel.defer_during_drag
                and self.session.scene.dragging and getattr(self.panel, "drag_refresh", None) is None)

    def _rearm(self) -> None:
        if self._debouncing():
            self._later.start(DRAG_PAUSE_MS)

    def _on_history(self, _count: int) -> None:
        if not self.shown():
            self.stale = True
        elif not self.stale and not self.session.frames.offer(self.name):
            self._call("set_history", self.session.history)

    def _deliver_paced(self) -> None:
        """The panel's side frame: its history and the snapshot shown now, drawn once."""
        s = self.session
        if self.stale or s.current is None:
            return
        if not self.shown():
            self.stale = True
            return
        self._call("set_run", s.history, s.current)  # inside a side frame (FrameScheduler.side_frame)

    def _call_set_reference(self, rho) -> None:
        self._call("set_reference", rho)

    def _call(self, method: str, *args) -> None:
        """Call a panel method; its exception is reported (once per run) and the other panels still draw."""
        try:
            getattr(self.panel, method)(*args)
        except Exception:
            sys.excepthook(*sys.exc_info())
            if not self._failed:
                self._failed = True
                if self.on_error is not None:
                    self.on_error(self.name)
