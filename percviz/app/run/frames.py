"""The frame budget of the UI thread while a run animates: when a frame may be drawn, and what the solver gets.

`FrameScheduler` is the one owner of timing between the solver thread and the window:
- snapshot frames: buffered snapshots are delivered (`deliver`, the session's drain) at most at the display
  rate (≤ 12 frames/s while running to the end), never while another frame's repaint is pending;
- the duty cycle: during a frame (its panel updates and the repaint they cause) the solver thread is held off
  the GIL (`SnapshotWorker.hold`); after a frame that cost t seconds the solver runs alone for
  `PLAY_SOLVER_SHARE`·t (Play) or `RUN_SOLVER_SHARE`·t (Run to end) before the next frame, main or side;
- side frames: the slower panels (curves, weight and feature pictures) are drawn after the snapshot frame,
  each in a frame of its own and at most at its own rate (`add_side_panel`, `offer`; percviz.app.run.panel_pacer);
  when the animation stops everything pending is drawn at once;
- first draws: a heavy panel's first picture of a new run (`first_draw`) waits for a turn of its own, one panel
  after the other, each after the repaint of the one before (the event loop has come back twice), from a
  timer (events posted during a long turn are all handled in the next one: posted, they would pile up).
Outside an animation every delivery and every side panel draws at once.
"""

from __future__ import annotations

import time
from contextlib import contextmanager
from typing import Callable, Iterator

from PySide6.QtCore import QObject, QTimer

from percviz.app.run.panel_pacer import PanelPacer
from percviz.app.run.worker import SnapshotWorker
from percviz.app.timing import FIRST_DRAW_GAP_MS, HOLD_TAIL_MS
from percviz.app.timing import MAX_HOLD_S as MAX_HOLD

#: Between the end of one frame and the next (snapshot or side frame) the UI thread gets at least this (s).
SIDE_GAP = 0.006
#: While animating, a frame is delivered at least this often (s), however slow the panels are.
MAX_FRAME_WAIT = 0.5
#: After a frame that held the solver thread for t seconds, the solver runs alone for this many times t
#: before the next frame (main or side): Play (an animation to watch) gives a third of the time to the
#: solver, Run to end (the result first) a half.
PLAY_SOLVER_SHARE, RUN_SOLVER_SHARE = 0.5, 1.0
#: Running to the end shows at most ~12 frames a second (s between frames): the solver gets the time.
RUN_MIN_FRAME = 1 / 12


#: Animation modes (`set_mode`): no animation, Play at a set speed, Run to end as fast as possible.
STILL, PLAY, RUN = "still", "play", "run"


class FrameScheduler(QObject):
    """When the UI thread draws while a run animates; see the module docstring."""

    def __init__(self, worker: SnapshotWorker, deliver: Callable[[], None], parent: QObject | None = None,
                 display_hz: float = 60.0):
        super().__init__(parent)
        self._worker = worker
        self._deliver = deliver
        self.mode = STILL
        self._closed = False
        #: Least time between delivered frames while animating (s); frames also leave the solver its share.
        self.frame_interval = 1.0 / display_hz
        #: Smoothed time (s) one delivered frame costs the UI thread (panel updates and repaint).
        self.frame_cost = 0.0
        self._next_frame = 0.0
        self._free_until = 0.0  # no frame before this (the solver's share of the time after the last frame)
        self._frames_open = 0  # frames whose repaint has not come back yet
        self._hold_until = 0.0
        # While animating, also pull at the display rate (covers irregular update durations).
        self._poll = QTimer(self)
        self._poll.setInterval(max(1, int(1000 / display_hz)))
        self._poll.timeout.connect(self.request)
        self._pace = QTimer(self)
        self._pace.setSingleShot(True)
        self._pace.timeout.connect(self.request)
        self._unhold = QTimer(self)
        self._unhold.setSingleShot(True)
        self._unhold.timeout.connect(self._release_worker)
        self._side: dict[str, Callable[[], None]] = {}
        self._pacer = PanelPacer({}, self._draw_side, self, wait=self.side_frame_wait)
        self._first: dict[str, Callable[[], None]] = {}  # queued first draws, in order
        self._first_busy = False
        self._first_timer = QTimer(self)
        self._first_timer.setSingleShot(True)
        self._first_timer.timeout.connect(self._run_first_draw)

    @property
    def animating(self) -> bool:
        return self.mode != STILL and not self._closed

    def set_mode(self, mode: str) -> None:
        """STILL, PLAY or RUN: polling and side-panel pacing follow; stopping draws every pending side panel."""
        self.mode = mode
        if self.animating:
            if not self._poll.isActive():
                self._poll.start()
        else:
            self._poll.stop()
        if not self._closed:
            self._pacer.set_active(self.animating)

    def reset(self) -> None:
        """A new problem: it has its own drawing cost."""
        self.frame_cost, self._next_frame = 0.0, 0.0

    def stop(self) -> None:
        """The window closes: no more frames, nothing pending."""
        self._closed = True
        for timer in (self._poll, self._pace, self._unhold, self._first_timer):
            timer.stop()
        self._first.clear()
        self._pacer.stop()

    # -- snapshot frames ----------------------------------------------------------------------------------
    def request(self) -> None:
        """Snapshots are waiting: deliver them now, or as soon as the frame budget allows while animating."""
        if self._closed:
            return
        if self.animating:
            wait = SIDE_GAP if self._frames_open else self._next_frame - time.monotonic()
            if wait <= 0 and self._pacer.due():
                wait = SIDE_GAP  # the panels drawn after the canvas go first (at most one each per frame)
            if wait > 0:
                if not self._pace.isActive():
                    self._pace.start(max(1, int(wait * 1000)))
                return
        self._deliver()

    @contextmanager
    def frame(self, main: bool = True) -> Iterator[None]:
        """Draw inside this block as one frame: the worker is held and the frame's cost (repaint included) counted."""
        t0 = self._begin_frame()
        try:
            yield
        finally:
            self._end_frame_later(t0, main)

    # -- side frames ------------------------------------------------------------------------------------------
    def add_side_panel(self, name: str, interval: float, draw: Callable[[], None]) -> None:
        """While animating, `draw` (bring panel `name` up to date) runs in side frames, at most every `interval` s."""
        self._side[name] = draw
        self._pacer.add(name, interval)

    def offer(self, name: str) -> bool:
        """True when the side panel's update is taken over (drawn later in a side frame); False: draw it now."""
        return self._pacer.offer(name)

    def discard(self, name: str) -> None:
        """Forget a pending side-panel update (the panel was fed in full, or hidden)."""
        self._pacer.discard(name)

    @property
    def side_pending(self) -> frozenset:
        return self._pacer.pending

    def side_frame_wait(self) -> float:
        """Seconds until a side frame may draw (0: now): never inside a frame nor right after one."""
        if not self.animating:
            return 0.0
        if self._frames_open:
            return SIDE_GAP
        return max(0.0, self._free_until - time.monotonic())

    def side_frame(self, draw: Callable[[], None]) -> None:
        """Run `draw` as a frame of its own: worker held, its repaint included, the next frame not before it is done."""
        if not self.animating:
            draw()
            return
        with self.frame(main=False):
            draw()

    def _draw_side(self, name: str) -> None:
        self.side_frame(self._side[name])

    # -- first draws ---------------------------------------------------------------------------------------------
    def first_draw(self, name: str, draw: Callable[[], None]) -> None:
        """Run `draw` (panel `name`'s first picture of a new run) in an event-loop turn of its own, after the
        queued ones before it and their repaints; queued again, a panel keeps its place and its latest draw."""
        if self._closed:
            return
        self._first[name] = draw
        self._next_first_draw()

    def cancel_first_draw(self, name: str) -> None:
        """Forget panel `name`'s queued first draw (it was drawn otherwise, or hidden)."""
        self._first.pop(name, None)

    @property
    def first_draws_pending(self) -> bool:
        """Whether a queued first draw has not run yet (or the one running has not repainted)."""
        return bool(self._first) or self._first_busy

    def after_repaint(self) -> None:
        """The queued first draws wait until the event loop has come back twice (a relayout's repaint first)."""
        if self._closed:
            return
        self._first_timer.stop()
        self._first_busy = True
        QTimer.singleShot(0, self, lambda: QTimer.singleShot(0, self, self._first_draw_done))

    def _next_first_draw(self) -> None:
        if self._first and not self._first_busy and not self._first_timer.isActive() and not self._closed:
            self._first_timer.start(FIRST_DRAW_GAP_MS)

    def _run_first_draw(self) -> None:
        if not self._first or self._closed:
            return
        name = next(iter(self._first))
        draw = self._first.pop(name)
        self._first_busy = True
        try:
            draw()  # not a frame: the worker is not held for it (a frame's hold starved Run to end at n = 2000)
        finally:
            # the next one after this one's repaint: when the event loop has come back twice
            QTimer.singleShot(0, self, lambda: QTimer.singleShot(0, self, self._first_draw_done))

    def _first_draw_done(self) -> None:
        self._first_busy = False
        self._next_first_draw()

    # -- the duty cycle ------------------------------------------------------------------------------------------
    def _begin_frame(self) -> float:
        self.hold_worker(MAX_HOLD)
        self._frames_open += 1
        return time.monotonic()

    def _end_frame_later(self, t0: float, main: bool) -> None:
        # A frame's cost includes the repaint it triggers: measured when the event loop comes back twice
        # (posted paint requests are handled in between).
        QTimer.singleShot(0, self, lambda: QTimer.singleShot(0, self, lambda: self._frame_done(t0, main)))

    def _frame_done(self, t0: float, main: bool) -> None:
        self._frames_open = max(0, self._frames_open - 1)
        now = time.monotonic()
        cost = now - t0
        if not self._frames_open:
            # panels repaint on their own timers shortly after a frame: the worker stays off the GIL a little longer
            self._hold_until = 0.0
            self.hold_worker(HOLD_TAIL_MS / 1000)
        share = RUN_SOLVER_SHARE if self.mode == RUN else PLAY_SOLVER_SHARE
        self._free_until = now + HOLD_TAIL_MS / 1000 + max(SIDE_GAP, share * (cost + HOLD_TAIL_MS / 1000))
        if main:
            self.frame_cost = cost if self.frame_cost == 0 else 0.6 * self.frame_cost + 0.4 * cost
            interval = max(self.frame_interval, RUN_MIN_FRAME) if self.mode == RUN else self.frame_interval
            self._next_frame = min(max(t0 + interval, self._free_until), now + MAX_FRAME_WAIT)
        else:
            self._next_frame = max(self._next_frame, self._free_until)

    def hold_worker(self, seconds: float) -> None:
        """While animating, keep the solver thread off the GIL for `seconds` from now (a panel is drawing).

        Each handover of the GIL to a busy solver thread costs the UI thread up to the interpreter's switch
        interval (5 ms), and one repaint hands it over dozens of times; a held worker waits without the GIL.
        """
        if not self.animating:
            return
        until = time.monotonic() + min(seconds, MAX_HOLD)
        if until > self._hold_until:
            self._hold_until = until
            self._worker.hold(True)
            self._unhold.start(max(1, int(1000 * (until - time.monotonic()))))

    def _release_worker(self) -> None:
        wait = self._hold_until - time.monotonic()
        if wait > 0.001:
            self._unhold.start(max(1, int(1000 * wait)))
        else:
            self._worker.hold(False)
