"""The run of the current algorithm on the current scene: worker, history of snapshots, what is shown.

`RunSession` listens to the scene. Any edit of the points or of the settings invalidates the run:
a new `Problem` and solver are built at once (errors such as a missing class or K(x, x) = 0 become a
message, not an exception), `problemChanged` fires, and the worker computes iteration 0. The
algorithm chosen stays; if the run was playing it keeps playing from iteration 0.

The history is a `percviz.app.run.history.SnapshotHistory` (bounded memory); ρ_K is `percviz.app.run.rho`'s,
the solver is built by `percviz.app.run.build`.
"""

from __future__ import annotations

import time
from contextlib import contextmanager, nullcontext
from typing import Any, Iterator

from PySide6.QtCore import QObject, QTimer, Signal

from percviz.app.run import heap
from percviz.app.run.build import SolverBuild, build_solver, heavy_phi
from percviz.app.run.frames import PLAY, RUN, STILL, FrameScheduler
from percviz.app.run.history import SnapshotHistory, snapshot_bytes
from percviz.app.run.rho import RhoTracker, defer_margins, rho_affordable, wants_rho
from percviz.app.run.strided_run import strided_snapshots
from percviz.app.run.worker import SnapshotWorker, error_text
from percviz.app.timing import SETTLE_AFTER_MS, SLOW_RESTART_S
from percviz.core.errors import PercvizError
from percviz.core.gram import margin_wait
from percviz.core.problem import Problem
from percviz.core.scene import SceneModel
from percviz.core.solvers import get_solver

#: Above this many points an edit's restart runs in the next turn of the event loop, not in the edit's own: at
#: 100,000 points each costs the UI thread 50–80 ms (the points' drawing; the new problem and its panels).
SPLIT_RESTART_N = 20_000
#: Run states reported by `runStateChanged`.
IDLE, PLAYING, RUNNING, FINISHED, INVALID = "idle", "playing", "running", "finished", "invalid"

__all__ = ["FINISHED", "IDLE", "INVALID", "PLAYING", "RUNNING", "SPLIT_RESTART_N", "RunSession",
           "SnapshotHistory", "build_solver", "heavy_phi", "snapshot_bytes"]


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
        self._worker = SnapshotWorker(self, display_hz=display_hz)
        #: The frame budget: when snapshots are delivered and the slower panels drawn (percviz.app.run.frames).
        self.frames = FrameScheduler(self._worker, self._drain, self, display_hz=display_hz)
        self.busy_checks: list = []  # callables, True while a panel still computes a picture (wait_idle waits)
        self._worker.ready.connect(self.frames.request)
        self._worker.failed.connect(self._on_failed)
        self._worker.idle.connect(self._on_idle)
        self._worker.set_interval(1.0 / self.speed)
        #: ρ_K of the current problem (percviz.app.run.rho), computed on a Task
        self.margins = RhoTracker(self, lambda: (self._job, self.problem, self.solver_cls, self._stale),
                                  self.rhoChanged.emit, self.errorRaised.emit)
        self._build = SolverBuild(self)  # the solver being built off the UI thread (heavy_phi)
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
        return self.margins.value(self.problem, self.solver_cls, wait)

    def ensure_rho(self) -> None:
        """Start ρ_K of the current problem in the background if its run skipped it (a sparse Live run)."""
        self.margins.ensure(self.problem, self.solver_cls)

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
        self.margins.cancel()
        self.rhoChanged.emit(None)
        self._gen = None
        self._history.clear()
        self._index = None
        self.frames.reset()  # a new problem has its own drawing cost
        s = self.scene.settings
        self.problem, self.solver_cls, self.error = None, None, ""
        self._build.cancel()
        try:
            self.solver_cls = get_solver(s.algorithm)
            problem = previous or Problem(self.scene.points, s.kernel, s.features)
            extra = self.solver_options(problem, self.solver_cls) if self.solver_options is not None else {}
            sparse = bool(self.sparse_runs is not None and self.sparse_runs())  # (after Live's solver_options)
            args = (self.solver_cls, problem, s.max_iter, {**dict(s.params), **extra})
            if heavy_phi(problem, self.solver_cls):
                # φ(X) of a heavy map (rff:dim=5000: tens of ms) is built with the solver on a Task; the run
                # starts when it is ready (the old pictures stay until then, none of the old run's snapshots)
                job = self._job
                self._build.start(args, lambda solver: self._on_built(job, problem, solver, sparse),
                                  lambda text: self._on_build_failed(job, text))
                return
            solver = build_solver(*args)
        except PercvizError as exc:
            self._invalid(str(exc))
            return
        except Exception as exc:  # a bug (a solver's options, a feature map) must not take the window down
            self._invalid(error_text(exc, self.solver_cls.display_name if self.solver_cls is not None else ""))
            return
        self._start_run(problem, solver, sparse)

    def _on_built(self, job: int, problem: Problem, solver, sparse: bool) -> None:
        if job == self._job and not self._closed:
            self._build.finished()
            self._start_run(problem, solver, sparse)

    def _on_build_failed(self, job: int, text: str) -> None:
        if job == self._job and not self._closed:
            self._build.finished()
            self._invalid(text)

    @property
    def building(self) -> bool:
        """A restart waits for its problem's φ(X) and solver, built on a Task (`heavy_phi`)."""
        return self._build.busy

    def _start_run(self, problem: Problem, solver, sparse: bool) -> None:
        keep_playing = self.state == PLAYING
        self.problem = problem
        self.sparse = sparse  # this run's history holds a snapshot per stride, not per update
        self._quiet_start = sparse or bool(self.quiet_start_runs is not None and self.quiet_start_runs())
        # large n (or a sparse Live run): a snapshot per stride
        self._gen = strided_snapshots(solver, lambda: sparse or self.state == RUNNING, always=sparse)
        self._gen = defer_margins(self._gen, problem.n)
        self._worker.set_job(self._job, self._gen, steps=1, who=self.solver_cls.display_name)
        self.problemChanged.emit(problem, self.solver_cls)
        self.historyChanged.emit(0)
        # a sparse (Live drag) run gets no ρ_K: its LP would be cancelled by the next move; the full rerun has it
        if wants_rho(self.solver_cls) and rho_affordable(problem) and not sparse:
            self.margins.queue(problem)
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
        if self._build.busy:
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
        self._settle.stop()
        self.scene.points_changed.disconnect(self._on_scene_edit)
        self.scene.settings_changed.disconnect(self._on_scene_edit)
        tasks = self.margins.shutdown()
        self._build.cancel()
        self._worker.request_stop()
        end = time.monotonic() + timeout_ms / 1000
        self._worker.stop(timeout_ms)
        for t in [*tasks, self._build.previous]:  # cancelled tasks too: their threads may still run
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
