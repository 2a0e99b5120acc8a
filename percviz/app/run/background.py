"""The one way the app runs work off the UI thread: daemon threads, and `Task` for one-off jobs.

- `BackgroundThread` is a daemon `threading.Thread` with the two QThread calls the app and its tests use
  (`isRunning()`, `wait(ms)`). No Qt object owns it, so nothing can destroy it while it runs, and it never holds
  up the interpreter's exit: a thread still inside a long call (an LP for ρ_K) ends with the process.
- `Task` runs one function (ρ_K, the feature-space picture, the animation export, later the sweep) on such a thread. The thread puts
  its results in the task's queue and wakes the UI thread through one long-lived relay object (a queued signal;
  no timer polls); there the queue is emptied, emitting `progress(value)` for each value a generator function
  yields, then `done(result)` or `failed(text)`. The thread never holds the Task itself. `cancel()` is cooperative
  (a generator stops at its next yield; pass `task.cancelled` to long computations that can check it) and drops
  every result still to come.
The solver's snapshot loop (percviz.app.run.worker.SnapshotWorker) runs on a BackgroundThread too.
"""

from __future__ import annotations

import inspect
import queue
import threading
import traceback
import warnings
import weakref
from typing import Any, Callable

import shiboken6
from PySide6.QtCore import QObject, Signal

from percviz.app.run import heap
from percviz.core.errors import PercvizError

#: Every background thread started (tests check that none is left running).
_LIVE: "weakref.WeakSet[BackgroundThread]" = weakref.WeakSet()
_RELAY: "_Relay | None" = None


def live_threads() -> list["BackgroundThread"]:
    """Background threads that are still running."""
    return [t for t in list(_LIVE) if t.is_alive()]


def error_text(exc: BaseException, who: str = "") -> str:
    """The message a user sees for an exception raised in background work."""
    if isinstance(exc, PercvizError):
        return str(exc)
    where = f" in {who}" if who else ""
    return f"Internal error{where}: {type(exc).__name__}: {exc}. The run was stopped; please report this."


class BackgroundThread(threading.Thread):
    """A daemon thread that answers QThread's isRunning()/wait(ms)/objectName() (see the module docstring).

    `start()` on the UI thread does not wait for the new thread to run: threading.Thread.start blocks until the
    new thread has been given a core and the GIL, which on a loaded machine kept the UI thread asleep for up
    to 0.3 s per Task (seen in the soak, bench/gap_watchdog.py). The UI thread hands the thread to one
    long-lived launcher thread instead; the thread counts as running from `start()` to the end of its target.
    """

    def __init__(self, target: Callable[[], None], name: str):
        ended = threading.Event()

        def run_then_end() -> None:
            try:
                target()
            finally:
                ended.set()

        super().__init__(target=run_then_end, name=name, daemon=True)
        self._ended = ended
        self._launched = False
        _LIVE.add(self)

    def start(self) -> None:
        if self._launched:
            raise RuntimeError("threads can only be started once")
        self._launched = True
        if threading.current_thread() is threading.main_thread():
            heap.collect_on_ui_thread()  # no collection may run on this thread (see heap's docstring)
            _launch(self)
        else:
            super().start()

    def is_alive(self) -> bool:
        """From start() (even before the launcher has started it) until its target has returned."""
        return self._launched and not self._ended.is_set()

    def never_started(self) -> None:
        """No thread could be made for it: it counts as ended, so nobody waits for it forever."""
        self._ended.set()

    def isRunning(self) -> bool:  # noqa: N802  (QThread's name: the tests and callers treat both alike)
        return self.is_alive()

    def wait(self, timeout_ms: int | None = None) -> bool:
        """Wait for the thread's target to return (at most timeout_ms); True when it has."""
        if self.is_alive() and self is not threading.current_thread():
            self._ended.wait(None if timeout_ms is None else max(0.0, timeout_ms / 1000))
        return not self.is_alive()

    def objectName(self) -> str:  # noqa: N802
        return self.name


_LAUNCH: "queue.SimpleQueue[BackgroundThread] | None" = None
_LAUNCH_LOCK = threading.Lock()


def _launch(thread: BackgroundThread) -> None:
    """Start `thread` from the launcher thread (started once, on first use; it waits for nothing else)."""
    global _LAUNCH
    with _LAUNCH_LOCK:
        if _LAUNCH is None:
            _LAUNCH = queue.SimpleQueue()
            threading.Thread(target=_launcher, args=(_LAUNCH,), name="percviz-launcher", daemon=True).start()
    _LAUNCH.put(thread)


def _launcher(q: "queue.SimpleQueue[BackgroundThread]") -> None:
    while True:
        thread = q.get()
        try:
            threading.Thread.start(thread)
        except Exception:  # no thread could be made (resources): it ends at once, so nobody waits for it forever
            traceback.print_exc()
            thread.never_started()
        del thread


class _Relay(QObject):
    """Lives on the UI thread for the whole session: a task's thread wakes its Task through it."""

    wake = Signal(object)  # the task's key (an id: beyond a C int)

    def __init__(self):
        super().__init__()
        self.tasks: "weakref.WeakValueDictionary[int, Task]" = weakref.WeakValueDictionary()
        self.wake.connect(self._on_wake)

    def _on_wake(self, key: int) -> None:
        task = self.tasks.get(key)
        if task is not None:
            task.deliver()


def _relay() -> _Relay:
    global _RELAY
    if _RELAY is None:
        _RELAY = _Relay()
    return _RELAY


class Task(QObject):
    """One-off background work with results on the UI thread (see the module docstring)."""

    progress = Signal(object)
    done = Signal(object)
    failed = Signal(str)

    def __init__(self, parent: QObject | None = None, name: str = "percviz-task"):
        super().__init__(parent)
        self.name = name
        self._cancel = threading.Event()
        self._queue: queue.SimpleQueue = queue.SimpleQueue()
        self._thread: BackgroundThread | None = None
        self._finished = False

    def start(self, fn: Callable[..., Any], *args: Any) -> "Task":
        """Run fn(*args) on a new background thread (once per Task)."""
        if self._thread is not None:
            raise RuntimeError("a Task runs once; make a new one")
        # the thread holds the queue and the cancel flag, never the Task: a dropped Task is freed on the UI thread
        relay, key = _relay(), id(self)
        relay.tasks[key] = self
        q, cancel, name = self._queue, self._cancel, self.name
        self._thread = BackgroundThread(lambda: _run(fn, args, q, cancel, name, lambda: _wake(relay, key)), self.name)
        self._thread.start()
        return self

    def cancel(self) -> None:
        """Stop at the next yield (or the next check of `cancelled`); nothing more is emitted."""
        self._cancel.set()
        self._release()

    def _release(self) -> None:
        """Nothing more will be emitted: let go of the receivers (their closures hold problems, solvers,
        pictures), of a result left in the queue and of the parent, so that the Task is freed with its last
        reference (a 10,000-action soak grew to 4.5 GB of Tasks kept as the session's and canvas's children)."""
        while True:
            try:
                self._queue.get_nowait()
            except queue.Empty:
                break
        if not shiboken6.isValid(self):
            return
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)  # "Failed to disconnect": nothing was connected
            for signal in (self.progress, self.done, self.failed):
                try:
                    signal.disconnect()
                except (RuntimeError, TypeError):
                    pass
        self.setParent(None)

    def cancelled(self) -> bool:
        return self._cancel.is_set()

    @property
    def running(self) -> bool:
        return self._thread is not None and self._thread.is_alive()

    def isRunning(self) -> bool:  # noqa: N802
        return self.running

    def wait(self, timeout_ms: int | None = None) -> bool:
        """Wait for the thread to end (at most timeout_ms, without handing results over); True when it has."""
        return self._thread is None or self._thread.wait(timeout_ms)

    # -- the UI thread -----------------------------------------------------------------------------------------
    def deliver(self) -> None:
        """Emit now what the thread has left in the queue (after wait(), without waiting for the event loop)."""
        self._hand_over()

    def _hand_over(self) -> None:
        if not shiboken6.isValid(self):  # its parent widget was destroyed while the result was on its way
            return
        while not self._cancel.is_set() and not self._finished:
            try:
                kind, value = self._queue.get_nowait()
            except queue.Empty:
                return
            if kind == "progress":
                self.progress.emit(value)
                continue
            self._finished = True
            (self.done if kind == "done" else self.failed).emit(value)
            self._release()
            return


def _wake(relay: _Relay, key: int) -> None:
    """Tell the UI thread a result is waiting, unless the application is already gone (a task outlived it)."""
    try:
        if shiboken6.isValid(relay):
            relay.wake.emit(key)
    except RuntimeError:  # deleted between the check and the emit: nobody is left to hand the result to
        pass


def _run(fn: Callable[..., Any], args: tuple, q: queue.SimpleQueue, cancel: threading.Event, name: str,
         wake: Callable[[], None]) -> None:
    """A Task's thread: fn(*args), a generator's values as progress, then the result or the error, into q."""

    def put(item) -> None:
        if not cancel.is_set():
            q.put(item)
            wake()

    try:
        result = fn(*args)
        if inspect.isgenerator(result):
            gen, result = result, None
            while not cancel.is_set():
                try:
                    put(("progress", next(gen)))
                except StopIteration as stop:
                    result = stop.value
                    break
            gen.close()
        put(("done", result))
    except Exception as exc:  # reported on the UI thread, never lost
        if not isinstance(exc, PercvizError):
            traceback.print_exc()
        put(("failed", error_text(exc, name)))
