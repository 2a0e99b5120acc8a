"""The run of the current algorithm on the current scene: worker, history of snapshots, what is shown.

`RunSession` listens to the scene. Any edit of the points or of the settings invalidates the run:
a new `Problem` and solver are built at once (errors such as a missing class or K(x, x) = 0 become a
message, not an exception), `problemChanged` fires, and the worker computes iteration 0. The
algorithm chosen stays; if the run was playing it keeps playing from iteration 0.

History memory is bounded (`SnapshotHistory`): every snapshot is kept until the history holds
`capacity` of them; then the older half is thinned to every other snapshot, so recent iterations stay
at full resolution and old ones grow sparser (iteration 0 is always kept). The capacity adapts to the
size of one snapshot so that the history stays within about `budget_bytes`, but never below
`min_capacity` (32) snapshots: at 100,000 points one kernel snapshot holds 2.4–4 MB (α, p and the
decision's coefficients), so a 100k run keeps 48–60 snapshots (~190 MB), the oldest thinned.
"""

from __future__ import annotations

import threading
import time
from contextlib import contextmanager, nullcontext
from typing import Any, Iterator

import numpy as np
from PySide6.QtCore import QObject, QTimer, Signal

from percviz.app.run import heap
from percviz.app.run.background import Task
from percviz.app.run.frames import PLAY, RUN, STILL, FrameScheduler
from percviz.app.run.strided_run import strided_snapshots
from percviz.app.run.worker import SnapshotWorker, error_text
from percviz.app.timing import RHO_DEFER_MS, SETTLE_AFTER_MS, SLOW_RESTART_S
from percviz.core.errors import PercvizError
from percviz.core.gram import BOUND_MAX_N, margin_affordable, margin_wait, margins_deferred, optimal_margin
from percviz.core.problem import Problem
from percviz.core.scene import SceneModel
from percviz.core.solvers import get_solver

#: Above this many points ρ_K (seconds of LP and Qhull at 100k, holding the GIL in stretches) starts only once
#: the scene has been still timing.RHO_DEFER_MS and the previous one's thread has ended: a drag runs one, not one a move.
RHO_DEFER_N = 20_000
#: Above this many points an edit's restart runs in the next turn of the event loop, not in the edit's own: at
#: 100,000 points each costs the UI thread 50–80 ms (the points' drawing; the new problem and its panels).
SPLIT_RESTART_N = 20_000
#: A solver whose φ(X) has more entries than this (n × d̂; rff:dim=5000 at 80 points: 400,000, 15–40 ms) is
#: built on a Task, off the UI thread (issue 10); below, at once.
PHI_TASK_ENTRIES = 250_000

#: Run states reported by `runStateChanged`.
IDLE, PLAYING, RUNNING, FINISHED, INVALID = "idle", "playing", "running", "finished", "invalid"


def snapshot_bytes(snap: Any) -> int:
    """Approximate memory held by one snapshot's arrays."""
    total = 512
    for obj in (snap, getattr(snap, "decision", None)):
        for name in ("alpha", "p", "weights", "centers", "coef"):
            a = getattr(obj, name, None)
            total += int(getattr(a, "nbytes", 0) or 0)
    return total


def _rho_left_to_the_session(gen: Iterator[Any]) -> Iterator[Any]:
    """The snapshots of gen, each computed under gram.margins_deferred: a large scene's bound metric waits for the
    session's ρ_K task (started once the scene is still) instead of computing ρ_K on the solver's thread."""
    while True:
        with margins_deferred(RHO_DEFER_N):  # set and reset around each next(), on whichever thread runs it
            try:
                snap = next(gen)
            except StopIteration:
                return
        yield snap


def heavy_phi(problem: Problem, solver_cls) -> bool:
    """Whether the solver's φ(X) (n × d̂ entries, unless built already) is too costly for the UI thread."""
    if solver_cls.representation == "kernel" or "Phi" in problem.__dict__:
        return False
    return problem.n * problem.features.dimension() > PHI_TASK_ENTRIES


def build_solver(solver_cls, problem: Problem, max_iter: int, params: dict):
    """The run's solver (its constructor checks the problem and may build φ(X), K or G); any error is a PercvizError."""
    try:
        solver = solver_cls(problem, max_iter=max_iter, **params)
        if solver_cls.representation == "kernel":
            problem.self_kernel  # noqa: B018  (refuses K(x, x) = 0 with a message naming the point)
    except PercvizError:
        raise
    except Exception as exc:  # a bug in a solver's constructor must not take the window down
        raise PercvizError(error_text(exc, getattr(solver_cls, "display_name", ""))) from exc
    return solver


_BUILD_LOCK = threading.Lock()


def _build_in_turn(cancel: threading.Event, *args):
    """build_solver on a Task's thread, one build at a time: a drag's superseded builds end without building."""
    with _BUILD_LOCK:
        return None if cancel.is_set() else build_solver(*args)


class SnapshotHistory:
    """The snapshots of a run, oldest first, with bounded memory (see the module docstring)."""

    def __init__(self, capacity: int = 4000, budget_bytes: int = 192 * 2**20, min_capacity: int = 32):
        self.max_capacity = capacity
        self.budget_bytes = budget_bytes
        self.min_capacity = min_capacity
        self.capacity = capacity
        self._items: list[Any] = []
        self.thinned = False  # True once some snapshots were dropped

    def clear(self) -> None:
        self._items = []
        self.capacity = self.max_capacity
        self.thinned = False

    def extend(self, snaps: list[Any]) -> None:
        if not snaps:
            return
        if not self._items:
            per = snapshot_bytes(snaps[0])
            self.capacity = max(self.min_capacity, min(self.max_capacity, self.budget_bytes // per))
        self._items.extend(snaps)
        while len(self._items) > self.capacity:
            half = self.capacity // 2
            self._items = self._items[:half:2] + self._items[half:]
            self.thinned = True

    def __len__(self) -> int:
        return len(self._items)

    def __getitem__(self, i):
        return self._items[i]

    def __iter__(self):
        return iter(self._items)

    @property
    def items(self) -> list[Any]:
        return list(self._items)


class RunSession(QObject):
    """The current run: builds problem and solver from the scene, drives the worker, keeps the history."""

    problemChanged = Signal(object, object)  # (problem or None, solver class or None)
    snapshotShown = Signal(object)
    historyChanged = Signal(int)
    runStateChanged = Signal(str)
    errorRaised = Signal(str)
    #: ρ_K of the current problem once computed in the background (None: not defined or failed).
    rhoChanged = Signal(object)

    def __init__(self, scene: SceneModel, parent: QObject | None = None, display_hz: float = 60.0):
        super().__init__(parent)
        self.scene = scene
        self.problem: Problem | None = None
        self.solver_cls: type | None = None
        self.error: str = ""
        #: (problem, solver_cls) → constructor keywords over the scene's for the next run (Live: warm start, bound), or None
        self.solver_options = None
        #: () → True when the next run should keep only one snapshot per stride of updates (Live during a drag:
        #: the final boundary first, the per-step history when the drag pauses), or None
        self.sparse_runs = None
        #: () → True when the next run's unfinished start should not be shown (Live's rerun of a paused drag: the
        #: views keep the boundary until the rerun's own), or None
        self.quiet_start_runs = None
        self._quiet_start = False
        self.state = IDLE
        self.speed = 20.0
        self._history = SnapshotHistory()
        self._index: int | None = None  # shown index; None = follow the newest snapshot
        self._job = 0  # the run's generation: deliveries tagged with an older one are dropped
        self._stale = False  # the points changed and the restart is deferred: nothing of this run is shown
        self._last_emitted = None  # the snapshot snapshotShown carried last
        self._gen = None
        self._rho: dict[int, float | None] = {}
        self._worker = SnapshotWorker(self, display_hz=display_hz)
        #: The frame budget: when snapshots are delivered and the slower panels drawn (percviz.app.run.frames).
        self.frames = FrameScheduler(self._worker, self._drain, self, display_hz=display_hz)
        self.busy_checks: list = []  # callables, True while a panel still computes a picture (wait_idle waits)
        self._worker.ready.connect(self.frames.request)
        self._worker.failed.connect(self._on_failed)
        self._worker.idle.connect(self._on_idle)
        self._worker.set_interval(1.0 / self.speed)
        self._rho_task: Task | None = None
        self._rho_prev: Task | None = None  # the last cancelled ρ_K task (its thread may still run)
        self._build: Task | None = None  # the solver being built off the UI thread (heavy_phi)
        self._build_prev: Task | None = None  # the last cancelled one (its thread may still run)
        self._rho_wait = QTimer(self)
        self._rho_wait.setSingleShot(True)
        self._rho_wait.setInterval(RHO_DEFER_MS)
        self._rho_wait.timeout.connect(self._rho_due)
        self.sparse = False
        self._restart_timer = QTimer(self)
        self._restart_timer.setSingleShot(True)
        self._restart_timer.timeout.connect(self.restart)
        self._next_restart = 0.0
        self._closed = False
        self._settle = QTimer(self)
        self._settle.setSingleShot(True)
        self._settle.setInterval(SETTLE_AFTER_MS)
        self._settle.timeout.connect(self._settle_heap)
        self._batch = 0
        self._dirty = False
        scene.points_changed.connect(self._on_scene_edit)
        scene.settings_changed.connect(self._on_scene_edit)
        self.restart()

    # -- reading ------------------------------------------------------------------------------------
    @property
    def history(self) -> list[Any]:
        return self._history.items

    @property
    def history_store(self) -> SnapshotHistory:
        return self._history

    @property
    def index(self) -> int:
        """Index in the history of the snapshot shown (−1 when there is none)."""
        if not len(self._history):
            return -1
        return len(self._history) - 1 if self._index is None else self._index

    @property
    def current(self) -> Any:
        """The snapshot shown, or None."""
        i = self.index
        return self._history[i] if i >= 0 else None

    @property
    def latest(self) -> Any:
        return self._history[-1] if len(self._history) else None

    @property
    def generation(self) -> int:
        """Id of the current run; it changes at every restart and when a deferred edit makes the run stale."""
        return self._job

    @property
    def stale(self) -> bool:
        """True while the points have moved and the restart that follows them is still deferred."""
        return self._stale

    @property
    def following(self) -> bool:
        return self._index is None

    @property
    def finished(self) -> bool:
        last = self.latest
        return last is not None and last.status.done

    def rho(self, wait: bool = True) -> float | None:
        """ρ_K of the current problem (percviz.core.gram.optimal_margin), computed once per problem.

        Defined for the kernel algorithms only (None otherwise). With wait=False, returns None while the
        background computation started at each restart is not done (`rhoChanged` fires when it is).
        """
        if self.problem is None or not self._wants_rho(self.solver_cls):
            return None
        key = id(self.problem)
        if key not in self._rho:
            if not wait or not self._rho_affordable(self.problem):
                return None
            self._rho = {key: self._compute_rho(self.problem)}
        return self._rho[key]

    @staticmethod
    def _wants_rho(solver_cls) -> bool:
        return solver_cls is not None and solver_cls.representation == "kernel"

    @staticmethod
    def _rho_affordable(problem: Problem) -> bool:
        """ρ_K factors the n×n Gram matrix (O(n³)) unless the kernel is linear/affine: skipped above BOUND_MAX_N.

        Same rule as the solvers' `bound` metric, so neither waits minutes for the other (gram's cache lock).
        """
        return problem.n <= BOUND_MAX_N or problem.kernel.name in ("linear", "affine")

    @classmethod
    def _rho_job(cls, problem: Problem) -> tuple[int, float | None]:
        # the rank test (an eigh of G) runs here, off the UI thread; a G of rank > BOUND_MAX_RANK gets no line
        return id(problem), cls._compute_rho(problem) if margin_affordable(problem) else None

    def _on_rho(self, job: int, key: int, value: float | None) -> None:
        if job == self._job and self.problem is not None and key == id(self.problem):
            self._rho = {key: value}
            self.rhoChanged.emit(value)

    @staticmethod
    def _compute_rho(problem: Problem) -> float | None:
        try:
            result = optimal_margin(problem)
        except PercvizError:  # too large or unresolvable: no reference line rather than a broken run
            return None
        if not result.resolved:
            return None  # a margin too thin to resolve draws no (misleading) reference line
        return float(result.rho) if np.isfinite(result.rho) else None

    def _start_rho(self, problem: Problem) -> None:
        """ρ_K (an LP/QP, seconds for thousands of points) is computed by a background Task."""
        self._cancel_rho()
        job = self._job
        self._rho_task = Task(self, name="percviz-margin")
        self._rho_task.done.connect(lambda kv: self._on_rho(job, *kv))
        self._rho_task.failed.connect(lambda text: job == self._job and self.errorRaised.emit(f"ρ_K: {text}"))
        self._rho_task.start(self._rho_job, problem)

    def ensure_rho(self) -> None:
        """Start ρ_K of the current problem in the background if its run skipped it (a sparse Live run)."""
        p = self.problem
        if (p is not None and self._rho_task is None and id(p) not in self._rho and self._wants_rho(self.solver_cls)
                and self._rho_affordable(p)):
            self._queue_rho(p)

    def _cancel_rho(self) -> None:
        self._rho_wait.stop()
        if self._rho_task is not None:
            self._rho_task.cancel()
            self._rho_prev, self._rho_task = self._rho_task, None

    def _queue_rho(self, problem: Problem) -> None:
        """ρ_K now, or for a large scene once it has been still (see RHO_DEFER_N); one ρ_K thread at a time.

        A cancelled ρ_K keeps computing until its LP returns (cancel is cooperative): starting one per edit
        piled up 8 threads on a slow kernel's margin in the soak (nvn, poly:c=0.001), and the UI waited for a core.
        """
        if problem.n <= RHO_DEFER_N and not (self._rho_prev is not None and self._rho_prev.running):
            self._start_rho(problem)
        else:
            self._rho_wait.start()

    def _rho_due(self) -> None:
        if self._closed or self.problem is None or not self._wants_rho(self.solver_cls) or self._stale:
            return
        if self._rho_prev is not None and self._rho_prev.running:
            self._rho_wait.start()  # one ρ_K thread at a time: look again later
            return
        self._start_rho(self.problem)

    # -- run control ---------------------------------------------------------------------------------------
    def restart(self, same_problem: bool = False) -> None:
        """Rebuild problem and solver from the scene and start again from iteration 0.

        same_problem: keep the current Problem object (its Gram matrix and ρ_K stay cached) — a reset.
        """
        self._restart_timer.stop()
        t0 = time.monotonic()
        try:
            self._restart_now(same_problem)
        finally:
            # While a point is dragged, a restart that kept the UI busy (heavy panels, thousands of points)
            # is not repeated before the same time has passed again: the moves in between coalesce.
            cost = time.monotonic() - t0
            self._next_restart = time.monotonic() + (cost if cost > SLOW_RESTART_S else 0.0)

    def _restart_now(self, same_problem: bool = False) -> None:
        previous = self.problem if same_problem and not self._stale else None  # a stale problem has old points
        self._job += 1
        self._stale = False
        self._worker.set_job(self._job, None)
        self._cancel_rho()
        self.rhoChanged.emit(None)
        self._gen = None
        self._history.clear()
        self._index = None
        self.frames.reset()  # a new problem has its own drawing cost
        s = self.scene.settings
        self.problem, self.solver_cls, self.error = None, None, ""
        self._cancel_build()
        try:
            self.solver_cls = get_solver(s.algorithm)
            problem = previous or Problem(self.scene.points, s.kernel, s.features)
            extra = self.solver_options(problem, self.solver_cls) if self.solver_options is not None else {}
            sparse = bool(self.sparse_runs is not None and self.sparse_runs())  # (after Live's solver_options)
            args = (self.solver_cls, problem, s.max_iter, {**dict(s.params), **extra})
            if heavy_phi(problem, self.solver_cls):
                # φ(X) of a heavy map (rff:dim=5000: tens of ms) is built with the solver on a Task; the run
                # starts when it is ready (the old pictures stay until then, none of the old run's snapshots)
                job, self._build_cancel = self._job, threading.Event()
                self._build = Task(self, name="percviz-problem")
                self._build.done.connect(lambda solver: self._on_built(job, problem, solver, sparse))
                self._build.failed.connect(lambda text: self._on_build_failed(job, text))
                self._build.start(_build_in_turn, self._build_cancel, *args)
                return
            solver = build_solver(*args)
        except PercvizError as exc:
            self._invalid(str(exc))
            return
        except Exception as exc:  # a bug (a solver's options, a feature map) must not take the window down
            self._invalid(error_text(exc, getattr(self.solver_cls, "display_name", "")))
            return
        self._start_run(problem, solver, sparse)

    def _on_built(self, job: int, problem: Problem, solver, sparse: bool) -> None:
        if job == self._job and not self._closed:
            self._build = None
            self._start_run(problem, solver, sparse)

    def _on_build_failed(self, job: int, text: str) -> None:
        if job == self._job and not self._closed:
            self._build = None
            self._invalid(text)

    def _cancel_build(self) -> None:
        if self._build is not None:
            self._build.cancel()
            self._build_cancel.set()
            self._build_prev, self._build = self._build, None

    @property
    def building(self) -> bool:
        """A restart waits for its problem's φ(X) and solver, built on a Task (`heavy_phi`)."""
        return self._build is not None

    def _start_run(self, problem: Problem, solver, sparse: bool) -> None:
        keep_playing = self.state == PLAYING
        self.problem = problem
        self.sparse = sparse  # this run's history holds a snapshot per stride, not per update
        self._quiet_start = sparse or bool(self.quiet_start_runs is not None and self.quiet_start_runs())
        # large n (or a sparse Live run): a snapshot per stride
        self._gen = strided_snapshots(solver, lambda: sparse or self.state == RUNNING, always=sparse)
        if problem.n > RHO_DEFER_N:
            self._gen = _rho_left_to_the_session(self._gen)
        self._worker.set_job(self._job, self._gen, steps=1, who=self.solver_cls.display_name)
        self.problemChanged.emit(problem, self.solver_cls)
        self.historyChanged.emit(0)
        # a sparse (Live drag) run gets no ρ_K: its LP would be cancelled by the next move; the full rerun has it
        if self._wants_rho(self.solver_cls) and self._rho_affordable(problem) and not sparse:
            self._queue_rho(problem)
        if keep_playing:
            self.play()
        else:
            self._set_state(IDLE)

    @contextmanager
    def batch(self) -> Iterator[None]:
        """Group several scene edits (loading a preset) into one restart at the end."""
        self._batch += 1
        try:
            yield
        finally:
            self._batch -= 1
            if not self._batch and self._dirty:
                self._dirty = False
                self._restart_after_edit()

    def reset(self) -> None:
        """Back to iteration 0 of the same scene (a paused run)."""
        if self.state in (PLAYING, RUNNING):
            self._worker.pause()
            self._set_state(IDLE)
        self.restart(same_problem=True)

    def step(self) -> None:
        """One update of the solver (shows the newest snapshot again if an earlier one was shown)."""
        if not self._runnable():
            return
        if self.state in (PLAYING, RUNNING):
            self.pause()
        if self._index is not None:
            self._index = None
            self._emit_current()
        self._worker.step(1)

    def play(self) -> None:
        """Animate at the set speed until paused, finished, or the scene changes."""
        if not self._runnable():
            return
        self._index = None
        self._worker.set_interval(1.0 / self.speed if self.speed > 0 else 0.0)
        self._worker.play(fast=False)
        self._set_state(PLAYING)

    def run_to_end(self) -> None:
        """Run as fast as possible until the solver halts or reaches its iteration limit."""
        if not self._runnable():
            return
        self._index = None
        self._worker.play(fast=True)
        self._set_state(RUNNING)

    def pause(self) -> None:
        self._worker.pause()
        if self._gen is not None and not len(self._history) and not self._worker.busy and not self._worker.has_output:
            self._worker.step(1)  # pausing must not cancel iteration 0 of a run that just started
        if self.state in (PLAYING, RUNNING):
            self._set_state(FINISHED if self.finished else IDLE)
        self._drain()

    def toggle_play(self) -> None:
        if self.state in (PLAYING, RUNNING):
            self.pause()
        else:
            self.play()

    def set_speed(self, ups: float) -> None:
        """Updates per second while playing; 0 = as fast as possible."""
        self.speed = max(0.0, float(ups))
        self._worker.set_interval(1.0 / self.speed if self.speed > 0 else 0.0)

    def show_index(self, i: int) -> None:
        """Show the i-th snapshot of the history (pauses a running animation)."""
        n = len(self._history)
        if n == 0:
            return
        if self.state in (PLAYING, RUNNING):
            self.pause()
        i = max(0, min(int(i), n - 1))
        self._index = None if i == n - 1 else i
        self._emit_current()

    def scrub(self, delta: int) -> None:
        self.show_index(self.index + int(delta))

    @property
    def update_in_flight(self) -> bool:
        """The worker is inside an update of this run (its iteration 0 may spend SYNC_BUDGET on ρ_K): advance_sync
        would wait for it. Never waits."""
        return self._gen is not None and self._worker.busy

    def advance_sync(self, steps: int, seconds: float | None = None) -> Any:
        """Run up to `steps` updates on this thread (scripts, screenshots); returns the newest snapshot.

        seconds: stop once this much time has passed (Live), then show the newest snapshot once; a bound metric's
        margin is given as long at most (gram.margin_wait: the UI thread never waits a quarter second for ρ_K)."""
        if self._gen is None:
            return self.latest
        self.pause()
        gen = self._worker.take_job()
        self._drain()
        if gen is None:  # the worker already ended this run
            if self.current is not self._last_emitted:  # pause() may just have shown it (Live: each drag move)
                self._emit_current()
            return self.latest
        snaps = []
        target = int(steps) + 1 - len(self._history)  # iteration 0 counts as the first snapshot
        end = None if seconds is None else time.monotonic() + seconds
        try:
            with nullcontext() if seconds is None else margin_wait(seconds):
                for _ in range(max(0, target)):
                    snaps.append(next(gen))
                    if snaps[-1].status.done or (end is not None and time.monotonic() > end):
                        break
        except StopIteration:
            pass
        except Exception as exc:
            self._history.extend(snaps)
            self._on_failed(self._job, error_text(exc, self.solver_cls.display_name))
            return self.latest
        self._history.extend(snaps)
        self._index = None
        if not self.finished:
            self._worker.set_job(self._job, gen)
        self.historyChanged.emit(len(self._history))
        self._emit_current()
        self._set_state(FINISHED if self.finished else IDLE)
        return self.latest

    def wait_idle(self, timeout_s: float = 30.0, *, check: bool = True) -> bool:
        """Process events until the worker has nothing left to do, nor the panels (tests and scripts); True then.

        On time-out: TimeoutError naming what was still busy, or False when check=False (a caller that handles it).
        """
        import time

        from PySide6.QtCore import QCoreApplication

        end = time.monotonic() + timeout_s
        while time.monotonic() < end:
            QCoreApplication.processEvents()
            if not self.still_busy():
                QCoreApplication.processEvents()
                return True
            time.sleep(0.002)
        busy = self.still_busy()
        if check and busy:
            raise TimeoutError(f"the run was not idle after {timeout_s:g} s: {', '.join(busy)} "
                               f"(state '{self.state}', {self.solver_cls.name if self.solver_cls else 'no solver'})")
        return not busy

    def still_busy(self) -> list[str]:
        """What keeps the session from being idle ([] when idle): the words wait_idle's TimeoutError names."""
        busy = []
        if self._worker.busy:
            busy.append("the solver thread is computing")
        if self._worker.has_output:
            busy.append("snapshots wait to be taken")
        if self._restart_timer.isActive():
            busy.append("a restart is pending")
        if self._build is not None:
            busy.append("the problem is being built")
        if self.frames.first_draws_pending:
            busy.append("a panel's first draw is pending")
        if any(check() for check in self.busy_checks):
            busy.append("a panel computes its picture")
        return busy

    def shutdown(self, timeout_ms: int = 3000) -> None:
        """Stop the solver thread and the ρ_K task (call before the window closes); blocks at most timeout_ms.

        A thread still inside a long computation (an LP for ρ_K, a QP solver's update) is left to finish on its
        own: it emits nothing more, and as a daemon thread it never holds up the interpreter's exit.
        """
        if self._closed:
            return
        self._closed = True
        self.frames.stop()
        self._restart_timer.stop()
        self._rho_wait.stop()
        self._settle.stop()
        self.scene.points_changed.disconnect(self._on_scene_edit)
        self.scene.settings_changed.disconnect(self._on_scene_edit)
        task, self._rho_task = self._rho_task, None
        if task is not None:
            task.cancel()  # both threads wind down at once; a long LP ends on its own (a daemon thread)
        self._cancel_build()
        self._worker.request_stop()
        end = time.monotonic() + timeout_ms / 1000
        self._worker.stop(timeout_ms)
        for t in (task, self._rho_prev, self._build_prev):  # cancelled tasks too: their threads may still run
            if t is not None:
                t.wait(max(1, int(1000 * (end - time.monotonic()))))

    @property
    def worker(self) -> SnapshotWorker:
        return self._worker

    # -- internals --------------------------------------------------------------------------------
    def _runnable(self) -> bool:
        if self._closed or self._gen is None:
            if self.error:
                self.errorRaised.emit(self.error)
            return False
        if self.finished:
            self._set_state(FINISHED)
            return False
        return True

    def _invalid(self, text: str) -> None:
        self.error = text
        self.problem = None
        self.problemChanged.emit(None, self.solver_cls)
        self.historyChanged.emit(0)
        self._set_state(INVALID)
        self.errorRaised.emit(text)

    def _set_state(self, state: str) -> None:
        self.frames.set_mode(PLAY if state == PLAYING else RUN if state == RUNNING else STILL)
        if state != self.state:
            self.state = state
            self.runStateChanged.emit(state)
        self._schedule_settle()

    def _schedule_settle(self) -> None:
        """While idle (and not edited for SETTLE_AFTER_MS), settle the heap so a full collection never lands mid-run."""
        if self.state in (PLAYING, RUNNING) or self._closed:
            self._settle.stop()
        else:
            self._settle.start()

    def _settle_heap(self) -> None:
        if self.state not in (PLAYING, RUNNING) and not self._closed:
            heap.settle()

    def _emit_current(self) -> None:
        snap = self.current
        if snap is not None and not self._stale:
            self._last_emitted = snap
            self.snapshotShown.emit(snap)

    def _on_scene_edit(self, kind: Any = None) -> None:
        self._schedule_settle()
        if self._batch:
            self._dirty = True
            return
        wait = self._next_restart - time.monotonic()
        if kind == "move" and wait > 0:  # only drags coalesce; other edits restart at once
            self._drop_stale_run()
            if not self._restart_timer.isActive():
                self._restart_timer.start(max(1, int(wait * 1000)))
            return
        self._restart_after_edit()

    def _restart_after_edit(self) -> None:
        if self.scene.n > SPLIT_RESTART_N:  # the restart in a turn of its own, after the canvas has drawn the edit
            self._drop_stale_run()
            if not self._restart_timer.isActive():
                self._restart_timer.start(0)
            return
        self.restart()

    def _drop_stale_run(self) -> None:
        """The points moved and the restart waits: the old run's snapshots (queued or still coming) are never shown."""
        if self._stale:
            return
        self._stale = True
        self._job += 1
        self._worker.set_job(self._job, None)

    def _drain(self) -> None:
        fresh = [snap for job, snap in self._worker.take() if job == self._job]
        if not fresh:
            return
        if self._quiet_start and not self._history and not any(snap.status.done for snap in fresh):
            # a dragged point's rerun (Live), or its full rerun at the pause: its unfinished start is not shown;
            # the views keep the last boundary until Live's run delivers this one's (no flash of iteration 0)
            self._history.extend(fresh)
            return
        with self.frames.frame(main=True):
            self._history.extend(fresh)
            self.historyChanged.emit(len(self._history))
            if self._index is None:
                self._emit_current()
        if self.finished and self.state != FINISHED:
            self._set_state(FINISHED)

    @property
    def frame_cost(self) -> float:
        """Smoothed UI cost (s) of one delivered frame (the frame scheduler measures it)."""
        return self.frames.frame_cost

    def _on_idle(self, job: int) -> None:
        if job != self._job:
            return
        self._drain()
        if self.state in (PLAYING, RUNNING) and not self._worker.busy:
            self._set_state(FINISHED if self.finished else IDLE)

    def _on_failed(self, job: int, text: str) -> None:
        if job != self._job:
            return
        self._drain()
        self._gen = None
        self.error = text
        self._set_state(INVALID)
        self.errorRaised.emit(text)
