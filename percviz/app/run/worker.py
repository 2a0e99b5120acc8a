"""Drive a solver's snapshot generator on a background thread: step, play at a set speed, pause, cancel.

One `SnapshotWorker` owns one thread (percviz.app.run.background.BackgroundThread) for its whole life. A *job* is a generator of snapshots
(`Solver.snapshots()`); the worker advances the current job when asked (a number of single steps,
or continuously while playing), puts each snapshot in a buffer and tells the UI thread that there is
something to take. Delivery is coalesced: the `ready` signal fires at most about `display_hz` times
a second and never again before the UI has drained the buffer, so a solver doing thousands of
updates a second cannot flood the event loop. Cancellation is cooperative (checked between two
updates); an exception raised by the generator is reported through `failed` and the thread lives on.
"""

from __future__ import annotations

import threading
import time
import traceback
from typing import Any, Iterator

from PySide6.QtCore import QObject, Signal

from percviz.app.run.background import BackgroundThread, error_text, live_threads
from percviz.app.timing import MAX_HOLD_S, WORKER_YIELD_S
from percviz.core.errors import PercvizError
from percviz.core.grid import one_blas_thread

__all__ = ["SnapshotWorker", "error_text", "live_threads"]

#: The buffer between worker and UI is thinned beyond this many snapshots (only when the UI stalls).
MAX_BUFFERED = 10000


class SnapshotWorker(QObject):
    """A thread advancing one snapshot generator at a time; thread-safe controls, buffered output."""

    #: Snapshots are waiting in the buffer: call `take()` on the UI thread.
    ready = Signal()
    #: (job id, message): the generator raised; the job is dropped, the thread keeps serving.
    failed = Signal(int, str)
    #: (job id): the worker stopped advancing this job (paused, steps done, or the run ended).
    idle = Signal(int)

    def __init__(self, parent: QObject | None = None, display_hz: float = 60.0, name: str = "percviz-solver"):
        super().__init__(parent)
        self._cond = threading.Condition()
        self._job: tuple[int, Iterator[Any], str] | None = None
        self._busy = False  # the worker is inside next() of the current job
        self._steps = 0  # single steps still to do
        self._playing = False
        self._fast = False  # run as fast as possible regardless of the interval (run to end)
        self._interval = 0.0  # seconds between two updates while playing (0: as fast as possible)
        self._due = 0.0
        self._abort = False
        self._hold_until = 0.0
        self._buffer: list[tuple[int, Any]] = []
        self._failure: tuple[int, str] | None = None
        self._notified = False
        self._last_notify = 0.0
        self._min_gap = 1.0 / display_hz
        self._thread = BackgroundThread(self._loop_one_blas_thread, name)
        self._thread.start()

    # -- controls (any thread) ------------------------------------------------------------------
    def set_job(self, job_id: int, generator: Iterator[Any] | None, steps: int = 0, who: str = "") -> None:
        """Replace the current job (None: no job); snapshots of older jobs are discarded."""
        with self._cond:
            self._job = None if generator is None else (job_id, generator, who)
            self._buffer = [b for b in self._buffer if b[0] == job_id]
            self._steps = steps
            self._playing = False
            self._due = time.monotonic()
            self._cond.notify_all()

    def wait_done(self, timeout: float | None = None) -> bool:
        """Block until the pending steps are done and no update is in flight (scripts: advance_sync); True then."""
        with self._cond:
            return self._cond.wait_for(lambda: not self._busy and not (self._job is not None and self._steps > 0),
                                       timeout)

    def take_failure(self) -> tuple[int, str] | None:
        """(job id, message) of the last update that raised, once (else None): `failed` also carries it."""
        with self._cond:
            failure, self._failure = self._failure, None
            return failure

    def step(self, count: int = 1) -> None:
        """Advance the current job by count updates (added to those still pending)."""
        with self._cond:
            self._steps += int(count)
            self._cond.notify_all()

    def play(self, fast: bool = False) -> None:
        """Advance continuously at the set speed (fast: as fast as possible) until paused or done."""
        with self._cond:
            self._playing = True
            self._fast = fast
            self._due = time.monotonic()
            self._cond.notify_all()

    def pause(self) -> None:
        """Stop advancing after the update in flight; pending single steps are dropped."""
        with self._cond:
            self._playing = False
            self._steps = 0
            self._cond.notify_all()

    def set_interval(self, seconds: float) -> None:
        """Time between two updates while playing (0 = as fast as possible)."""
        with self._cond:
            self._interval = max(0.0, float(seconds))
            self._due = min(self._due, time.monotonic() + self._interval)
            self._cond.notify_all()

    def hold(self, on: bool) -> None:
        """While on, continuous play waits (without the GIL) so that the UI thread draws at full speed.

        The UI sets it while it processes a frame and clears it when done; it expires after MAX_HOLD_S.
        """
        with self._cond:
            self._hold_until = time.monotonic() + MAX_HOLD_S if on else 0.0
            self._cond.notify_all()

    @property
    def playing(self) -> bool:
        return self._playing

    @property
    def busy(self) -> bool:
        """True while the worker has work: pending steps, playing, or an update in flight."""
        with self._cond:
            return self._busy or (self._job is not None and (self._playing or self._steps > 0))

    def take(self) -> list[tuple[int, Any]]:
        """All buffered (job id, snapshot) pairs, oldest first; call on the UI thread after `ready`."""
        with self._cond:
            out, self._buffer = self._buffer, []
            self._notified = False
            return out

    def request_stop(self) -> None:
        """Cancel any job and ask the thread to end, without waiting."""
        with self._cond:
            self._abort = True
            self._job = None
            self._cond.notify_all()

    def stop(self, timeout_ms: int = 3000) -> bool:
        """Cancel any job and end the thread; waits for it (returns False if it did not end in time).

        A thread still inside a long update emits nothing more and ends when that update returns (a daemon
        thread: it never holds up the interpreter's exit)."""
        self.request_stop()
        return self._thread.wait(timeout_ms)

    @property
    def has_output(self) -> bool:
        """Snapshots are waiting to be taken."""
        with self._cond:
            return bool(self._buffer)

    @property
    def thread(self) -> BackgroundThread:
        return self._thread

    # -- the loop (worker thread) --------------------------------------------------------------------
    def _has_work(self) -> bool:
        return self._job is not None and (self._steps > 0 or self._playing)

    def _loop_one_blas_thread(self) -> None:
        """The loop with BLAS single-threaded: at n = 100,000 each O(n) product waited ~10 ms for a second BLAS
        thread on the shared cores (SNKP 27 → 185 snapshots/s)."""
        with one_blas_thread():
            self._loop()

    def _loop(self) -> None:
        last_yield = time.monotonic()
        while True:
            with self._cond:
                while not self._abort and not self._has_work():
                    self._cond.wait()
                if self._abort:
                    return
                now = time.monotonic()
                timed = self._steps == 0 and not self._fast and self._interval > 0
                if timed and now < self._due:
                    self._cond.wait(self._due - now)  # woken early by pause, a new job, or a speed change
                    continue
                if self._steps == 0 and now < self._hold_until:
                    self._cond.wait(self._hold_until - now)  # the UI is drawing: leave it the GIL
                    continue
                if self._steps > 0:
                    self._steps -= 1
                elif timed:
                    self._due = max(self._due + self._interval, now)
                job_id, gen, who = self._job  # type: ignore[misc]
                self._busy = True
            snap, error, ended = None, None, False
            try:
                snap = next(gen)
            except StopIteration:
                ended = True
            except Exception as exc:  # reported to the UI; the thread keeps serving
                if not isinstance(exc, PercvizError):
                    traceback.print_exc()
                error = error_text(exc, who)
            self._finish_update(job_id, snap, error, ended)
            if not timed and time.monotonic() - last_yield > WORKER_YIELD_S:
                time.sleep(0.0005)
                last_yield = time.monotonic()

    def _finish_update(self, job_id: int, snap: Any, error: str | None, ended: bool) -> None:
        notify = stopped = False
        with self._cond:
            self._busy = False
            self._cond.notify_all()
            current = self._job is not None and self._job[0] == job_id
            if not current:
                return
            if error is not None:
                self._failure = (job_id, error)
            if error is not None or ended:
                self._job = None
                self._playing = False
                self._steps = 0
                stopped = True
            else:
                self._buffer.append((job_id, snap))
                if len(self._buffer) > MAX_BUFFERED:
                    # The UI is stalled: keep the first, every other one of the rest, and the newest.
                    b = self._buffer
                    self._buffer = b[:1] + b[1:-1:2] + b[-1:]
                status = getattr(snap, "status", None)
                if status is not None and status.done:
                    self._playing = False
                    self._steps = 0
                    self._job = None
                    stopped = True
            going_idle = stopped or not self._has_work()
            now = time.monotonic()
            if self._buffer and not self._notified and (going_idle or now - self._last_notify >= self._min_gap):
                self._notified = True
                self._last_notify = now
                notify = True
        if notify:
            self.ready.emit()
        if error is not None:
            self.failed.emit(job_id, error)
        if going_idle:
            self.idle.emit(job_id)
