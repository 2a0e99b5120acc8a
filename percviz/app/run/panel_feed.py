"""The run's one frame feed: the only subscriber of the session's signals, and what every consumer hears through it.

`FrameFeed` (one per session, built by the window: MainWindow.feed, AppContext.feed) connects the session's
problemChanged, snapshotShown, historyChanged and rhoChanged, and hands each to its subscribers in the order they
subscribed (`FrameFeed.subscribe`): the controls, the panels (`Panel.bind`, a `PanelFeed` each), the window's docks
and the canvas's input-distance layer, then the caption and the presentation bar. The
session shows a snapshot inside the FrameScheduler's snapshot frame, so every subscriber draws it in that frame,
after the canvas has taken the points and the boundary of the same edit. A subscriber's exception is reported and
the others still hear the event.

One `PanelFeed` per panel subscribes to the feed for what a panel needs:
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
from dataclasses import dataclass
from typing import Callable

from PySide6.QtCore import QEvent, QObject, QTimer
from percviz.app.timing import DRAG_PAUSE_MS



@dataclass(eq=False)  # each subscription is itself: two with the same callbacks are two
class Subscription:
    """What one consumer hears from the feed (None: not that event); `FrameFeed.unsubscribe` ends it."""

    problem: Callable[[object, object], None] | None = None
    snapshot: Callable[[object], None] | None = None
    history: Callable[[int], None] | None = None
    rho: Callable[[object], None] | None = None


class FrameFeed(QObject):
    """The session's signals, heard once and handed on to every subscriber (module docstring)."""

    def __init__(self, session, parent: QObject | None = None):
        super().__init__(parent if parent is not None else session)
        self.session = session
        self._subscribers: list[Subscription] = []
        session.problemChanged.connect(self._on_problem)
        session.snapshotShown.connect(self._on_snapshot)
        session.historyChanged.connect(self._on_history)
        session.rhoChanged.connect(self._on_rho)

    @property
    def frames(self):
        """The session's FrameScheduler: what paces every subscriber."""
        return self.session.frames

    def subscribe(self, problem=None, snapshot=None, history=None, rho=None,
                  owner: QObject | None = None) -> Subscription:
        """Hear the run: problem(problem, solver_cls), snapshot(snap), history(count), rho(ρ_K); until `owner` goes."""
        sub = Subscription(problem, snapshot, history, rho)
        self._subscribers.append(sub)
        if owner is not None:
            owner.destroyed.connect(lambda *_: self.unsubscribe(sub))
        return sub

    def unsubscribe(self, sub: Subscription) -> None:
        if sub in self._subscribers:
            self._subscribers.remove(sub)

    def _on_problem(self, problem, solver_cls) -> None:
        self._emit(lambda sub: sub.problem, problem, solver_cls)

    def _on_snapshot(self, snap) -> None:
        self._emit(lambda sub: sub.snapshot, snap)

    def _on_history(self, count: int) -> None:
        self._emit(lambda sub: sub.history, count)

    def _on_rho(self, rho) -> None:
        self._emit(lambda sub: sub.rho, rho)

    def _emit(self, which: Callable[[Subscription], Callable | None], *args) -> None:
        for sub in list(self._subscribers):  # a subscriber may subscribe or leave while it is called
            slot = which(sub)
            if slot is None or sub not in self._subscribers:
                continue
            try:
                slot(*args)
            except Exception:
                sys.excepthook(*sys.exc_info())


class PanelFeed(QObject):
    """The session → panel wiring of one panel (module docstring); a child of the panel, gone with it."""

    def __init__(self, panel, name: str, feed: FrameFeed, on_error: Callable[[str], None] | None = None):
        super().__init__(panel)
        self.panel, self.name, self.feed = panel, name, feed
        self.session = session = feed.session
        self.on_error = on_error
        self.stale = True
        self._failed = False
        self._later = QTimer(self, singleShot=True)  # the deferred catch-up (defer_during_drag)
        self._later.timeout.connect(self._queue_catch_up)
        self.paced = panel.redraw_interval is not None
        if self.paced:  # drawn after the canvas, in side frames of its own
            session.frames.add_side_panel(name, panel.redraw_interval, self._deliver_paced)
        panel.installEventFilter(self)  # shown (its dock opened): catch up by itself
        feed.subscribe(problem=self._on_problem, snapshot=self._on_snapshot, history=self._on_history,
                       rho=self._call_set_reference, owner=self)

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
        refresh = self.panel.drag_refresh
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
        self._call(self.panel.set_problem, s.problem, s.solver_cls)
        if s.current is not None:
            self._call(self.panel.set_history, s.history)
            self._call(self.panel.set_snapshot, s.current)

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
            self._call(self.panel.set_snapshot, snap)

    def _debouncing(self) -> bool:
        return (self.stale and self._later.isActive() and self.panel.defer_during_drag
                and self.session.scene.dragging and self.panel.drag_refresh is None)

    def _rearm(self) -> None:
        if self._debouncing():
            self._later.start(DRAG_PAUSE_MS)

    def _on_history(self, _count: int) -> None:
        if not self.shown():
            self.stale = True
        elif not self.stale and not self.session.frames.offer(self.name):
            self._call(self.panel.set_history, self.session.history)

    def _deliver_paced(self) -> None:
        """The panel's side frame: its history and the snapshot shown now, drawn once."""
        s = self.session
        if self.stale or s.current is None:
            return
        if not self.shown():
            self.stale = True
            return
        self._call(self.panel.set_run, s.history, s.current)  # inside a side frame (FrameScheduler.side_frame)

    def _call_set_reference(self, rho) -> None:
        self._call(self.panel.set_reference, rho)

    def _call(self, method: Callable, *args) -> None:
        """Call a panel method; its exception is reported (once per run) and the other panels still draw."""
        try:
            method(*args)
        except Exception:
            sys.excepthook(*sys.exc_info())
            if not self._failed:
                self._failed = True
                if self.on_error is not None:
                    self.on_error(self.name)
