"""While a run animates, draw the panels after the canvas, each in a frame of its own, some less often.

The canvas takes every snapshot frame at once. The other panels are brought up to date afterwards, one
per event-loop turn, when the frame scheduler allows a side frame (`FrameScheduler.side_frame_wait`): the curves
after every frame, the weight-space and feature-space pictures (up to 25 ms each with their repaint
at n = 2000, bench/bench_app.py) at most every `timing.PANEL_INTERVAL_S` seconds. Drawn together in one frame they
kept the UI thread busy for 100 ms and more at a stretch; one at a time, the timers, input and repaints
in between still run. A slow animation is not delayed: a panel whose interval has passed is drawn at
the next free turn. When the animation stops everything pending is delivered at once, so a paused
picture is always complete.
"""

from __future__ import annotations

import time
from typing import Callable, Mapping

from PySide6.QtCore import QObject, QTimer
from percviz.app.timing import TURN_GAP_MS



class PanelPacer(QObject):
    """Holds back panel updates while animating; `deliver(name)` brings one panel up to date."""

    def __init__(self, intervals: Mapping[str, float], deliver: Callable[[str], None], parent: QObject | None = None,
                 wait: Callable[[], float] = lambda: 0.0):
        """intervals: panel name → least time (s) between two of its updates; wait(): seconds before any
        delivery may run (the session's frames come first), 0 when free."""
        super().__init__(parent)
        self.intervals = dict(intervals)
        self._deliver = deliver
        self._wait = wait
        self._pending: set[str] = set()
        self._last = {name: 0.0 for name in self.intervals}
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.timeout.connect(self._on_timer)
        self.active = False

    def add(self, name: str, interval: float) -> None:
        """Pace one more panel: at most one update every `interval` seconds while active."""
        self.intervals[name] = float(interval)
        self._last.setdefault(name, 0.0)

    def set_active(self, on: bool) -> None:
        """Pace while on (the run animates); turning it off delivers everything pending now."""
        self.active = bool(on)
        if not self.active:
            self.flush()

    def offer(self, name: str) -> bool:
        """True when the update of `name` is taken over (delivered later); False: deliver it now."""
        if not self.active or name not in self.intervals:
            return False
        self._pending.add(name)
        self._schedule()
        return True

    def flush(self) -> None:
        """Deliver every pending update now."""
        self._timer.stop()
        for name in sorted(self._pending):
            self._send(name)

    def stop(self) -> None:
        """Drop everything pending and stop pacing (the window is closing)."""
        self._timer.stop()
        self._pending.clear()
        self.active = False

    def discard(self, name: str) -> None:
        """Forget a pending update (the panel was fed in full, or hidden)."""
        self._pending.discard(name)

    @property
    def pending(self) -> frozenset:
        return frozenset(self._pending)

    def due(self) -> bool:
        """Some pending update may be delivered now (its interval has passed)."""
        now = time.monotonic()
        return any(self._due(name) <= now for name in self._pending)

    def _due(self, name: str) -> float:
        return self._last[name] + self.intervals[name]

    def _send(self, name: str) -> None:
        self._pending.discard(name)
        self._last[name] = time.monotonic()
        self._deliver(name)

    def _schedule(self, at_least_ms: int = 0) -> None:
        if not self._pending:
            return
        due = min(self._due(name) for name in self._pending)
        delay = max(at_least_ms, int(1000 * (due - time.monotonic())), 0)
        if not self._timer.isActive() or self._timer.remainingTime() > delay:
            self._timer.start(delay)

    def _on_timer(self) -> None:
        now = time.monotonic()
        ready = [name for name in self._pending if self._due(name) <= now]
        if not ready:
            self._schedule()
            return
        wait = self._wait()
        if wait > 0:
            self._timer.start(max(1, int(1000 * wait)))
            return
        self._send(min(ready, key=self._last.__getitem__))  # the one waiting longest
        self._schedule(TURN_GAP_MS)
