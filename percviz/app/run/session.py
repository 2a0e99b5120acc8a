"""The run of the current algorithm on the current scene: the Qt adapter of the run's model.

`RunSession` listens to the scene. Any edit of the points or of the settings invalidates the run:
a new `Problem` and solver are built at once (errors such as a missing class or K(x, x) = 0 become a
message, not an exception), `problemChanged` fires, and the worker computes iteration 0. The
algorithm chosen stays; if the run was playing it keeps playing from iteration 0.

The state is a Qt-free `percviz.app.run.model.RunModel` (`session.model`): the session is the only one to change
it, feeding it the worker's snapshots, and re-emits its events as Qt signals. Under Live (the model's
`LivePolicy`) a new run goes to its end on the worker at once, with the options the policy gives it; the
UI thread only draws. The history is a `percviz.app.run.history.SnapshotHistory` (bounded memory); ρ_K is
`percviz.app.run.rho`'s, the solver is built by `percviz.app.run.build`.
"""

from __future__ import annotations

import time
from contextlib import contextmanager
from typing import Any, Iterator

from PySide6.QtCore import QObject, QTimer, Signal

from percviz.app.run import heap
from percviz.app.run.build import SolverBuild, build_solver, heavy_phi
from percviz.app.run.frames import PLAY, RUN, STILL, FrameScheduler
from percviz.app.run.history import SnapshotHistory, snapshot_bytes
from percviz.app.run.live_policy import LivePolicy
from percviz.app.run.model import FINISHED, IDLE, INVALID, PLAYING, RUNNING, RunModel
from percviz.app.run.rho import RhoTracker, defer_margins, rho_affordable, wants_rho
from percviz.app.run.strided_run import strided_snapshots
from percviz.app.run.worker import SnapshotWorker, error_text
from percviz.app.timing import LIVE_SYNC_S, SETTLE_AFTER_MS, SLOW_RESTART_S
from percviz.core.errors import PercvizError
from percviz.core.problem import Problem
from percviz.core.scene import SceneModel
from percviz.core.solvers import get_solver

#: Above this many points an edit's restart runs in the next turn of the event loop, not in the edit's own: at
#: 100,000 points each costs the UI thread 50–80 ms (the points' drawing; the new problem and its panels).
SPLIT_RESTART_N = 20_000

__all__ = ["FINISHED", "IDLE", "INVALID", "PLAYING", "RUNNING", "SPLIT_RESTART_N", "RunSession",
           "SnapshotHistory", "build_solver", "heavy_phi", "snapshot_bytes"]


class RunSession(QObject):
    """The current run: builds problem and solver from the scene, drives the worker, feeds the model."""

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
        #: the run's state (Qt-free); its events become this session's signals
        self.model = RunModel()
        ev = self.model.events
        ev.problem.connect(self.problemChanged.emit)
        ev.history.connect(self.historyChanged.emit)
        ev.shown.connect(self.snapshotShown.emit)
        ev.state.connect(self.runStateChanged.emit)
        ev.error.connect(self.errorRaised.emit)
        ev.rho.connect(self.rhoChanged.emit)
        self.speed = 20.0
        self._gen = None
        self._quiet_start = False  # this run's unfinished start is not shown (a Live drag's or paused rerun)
        self._quiet_until = 0.0  # a Live run's snapshots before this (monotonic s) are kept, not drawn
        self._live_rerun = False  # the next restart on the same Problem still runs to its end (Live)
        self._live_t0 = 0.0  # when the current Live run started (0: not a Live run)
        self.live_runs = 0  # runs Live sent to their end (tests and the benchmark count them)
        self._failed_job = -1
        self._worker = SnapshotWorker(self, display_hz=display_hz)
        #: The frame budget: when snapshots are delivered and the slower panels drawn (percviz.app.run.frames).
        self.frames = FrameScheduler(self._worker, self._drain, self, display_hz=display_hz)
        self.busy_checks: list = []  # callables, True while a panel still computes a picture (wait_idle waits)
        self._worker.ready.connect(self.frames.request)
        self._worker.failed.connect(self._on_failed)
        self._worker.idle.connect(self._on_idle)
        self._worker.set_interval(1.0 / self.speed)
        #: ρ_K of the current problem (percviz.app.run.rho), computed on a Task
        self.margins = RhoTracker(self, lambda: (self.generation, self.problem, self.solver_cls, self.stale),
                                  self.model.set_rho, self.model.events.error.emit)
        self._build = SolverBuild(self)  # the solver being built off the UI thread (heavy_phi)
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

    # -- reading (the model's fields) ----------------------------------------------------------------------
    problem = property(lambda self: self.model.problem, doc="The run's Problem, or None (invalid scene).")
    solver_cls = property(lambda self: self.model.solver_cls, doc="The run's solver class, or None.")
    error = property(lambda self: self.model.error, doc="Why the scene cannot run ('' when it can).")
    state = property(lambda self: self.model.state, doc="idle, playing, running, finished or invalid.")
    sparse = property(lambda self: self.model.sparse, doc="This run keeps a snapshot per stride (a Live drag).")
    history_store = property(lambda self: self.model.history, doc="The run's SnapshotHistory.")
    current = property(lambda self: self.model.current, doc="The snapshot shown, or None.")
    latest = property(lambda self: self.model.latest, doc="The newest snapshot, or None.")
    finished = property(lambda self: self.model.finished, doc="The newest snapshot is a finished run's.")
    following = property(lambda self: self.model.index is None, doc="The newest snapshot is the one shown.")
    live = property(lambda self: self.model.live, doc="Live's policy (change it through set_live).")

    @property
    def history(self) -> list[Any]:
        return self.model.history.items

    @property
    def index(self) -> int:
        """Index in the history of the snapshot shown (−1 when there is none)."""
        return self.model.shown_index

    @property
    def generation(self) -> int:
        """Id of the current run; it changes at every restart and when a deferred edit makes the run stale."""
        return self.model.generation

    @property
    def stale(self) -> bool:
        """True while the points have moved and the restart that follows them is still deferred."""
        return self.model.stale

    def rho(self, wait: bool = True) -> float | None:
        """ρ_K of the current problem (percviz.core.gram.optimal_margin), computed once per problem.

        Defined for the kernel algorithms only (None otherwise). With wait=False, returns None while the
        background computation started at each restart is not done (`rhoChanged` fires when it is).
        """
        return self.margins.value(self.problem, self.solver_cls, wait)

    def ensure_rho(self) -> None:
        """Start ρ_K of the current problem in the background if its run skipped it (a sparse Live run)."""
        self.margins.ensure(self.problem, self.solver_cls)

    # -- Live ------------------------------------------------------------------------------------------------
    def set_live(self, on: bool | None = None, warm_weights: bool | None = None, gate=None) -> None:
        """Change Live's policy (on: the current run goes to its end now; gate: () → False blocks its runs)."""
        live: LivePolicy = self.model.live
        if warm_weights is not None:
            live.warm_weights = bool(warm_weights)
        if gate is not None:
            live.gate = gate
        if on is not None:
            live.on = bool(on)
            if live.runs() and self.problem is not None and self.state != RUNNING and not self.finished:
                self._run_live()

    def rerun_live(self, same_problem: bool = False) -> None:
        """Live's full rerun (a paused drag, or ρ_K come late): once more to the end, its start not shown."""
        self.model.live.settled = True
        if same_problem:
            self.model.live.rho_rerun = self.problem
        self._live_rerun = True
        self.restart(same_problem=same_problem)

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
            self._live_rerun = False
            # While a point is dragged, a restart that kept the UI busy (heavy panels, thousands of points)
            # is not repeated before the same time has passed again: the moves in between coalesce.
            cost = time.monotonic() - t0
            self._next_restart = time.monotonic() + (cost if cost > SLOW_RESTART_S else 0.0)

    def _restart_now(self, same_problem: bool = False) -> None:
        m = self.model
        self._live_t0 = 0.0
        before = m.problem
        previous = before if same_problem and not m.stale else None  # a stale problem has old points
        job = m.begin_run()
        self._worker.set_job(job, None)
        self.margins.cancel()
        self._gen = None
        self.frames.reset()  # a new problem has its own drawing cost
        s = self.scene.settings
        self._build.cancel()
        try:
            m.solver_cls = cls = get_solver(s.algorithm)
            problem = previous or Problem(self.scene.points, s.kernel, s.features)
            edit = problem is not before  # Reset keeps its Problem: stepping by hand starts from 0
            extra = m.live.options(problem, cls, s, self.scene.dragging, edit)
            live_run = m.live.runs() and (edit or self._live_rerun)
            args = (cls, problem, s.max_iter, {**dict(s.params), **extra})
            if heavy_phi(problem, cls):
                # φ(X) of a heavy map (rff:dim=5000: tens of ms) is built with the solver on a Task; the run
                # starts when it is ready (the old pictures stay until then, none of the old run's snapshots)
                sparse = m.live.sparse
                self._build.start(args, lambda solver: self._on_built(job, problem, solver, sparse, live_run),
                                  lambda text: self._on_build_failed(job, text))
                return
            solver = build_solver(*args)
        except PercvizError as exc:
            self._invalid(str(exc))
            return
        except Exception as exc:  # a bug (a solver's options, a feature map) must not take the window down
            self._invalid(error_text(exc, m.solver_cls.display_name if m.solver_cls is not None else ""))
            return
        self._start_run(problem, solver, m.live.sparse, live_run)

    def _on_built(self, job: int, problem: Problem, solver, sparse: bool, live_run: bool) -> None:
        if job == self.generation and not self._closed:
            self._build.finished()
            self._start_run(problem, solver, sparse, live_run)

    def _on_build_failed(self, job: int, text: str) -> None:
        if job == self.generation and not self._closed:
            self._build.finished()
            self._invalid(text)

    @property
    def building(self) -> bool:
        """A restart waits for its problem's φ(X) and solver, built on a Task (`heavy_phi`)."""
        return self._build.busy

    def _start_run(self, problem: Problem, solver, sparse: bool, live_run: bool = False) -> None:
        keep_playing = self.state == PLAYING
        cls = self.solver_cls
        self._quiet_start = sparse or self.model.live.quiet
        # large n (or a sparse Live run): a snapshot per stride
        self._gen = strided_snapshots(solver, lambda: sparse or self.state == RUNNING, always=sparse)
        self._gen = defer_margins(self._gen, problem.n)
        self._worker.set_job(self.generation, self._gen, steps=1, who=cls.display_name)
        if live_run:
            self._worker.play(fast=True)  # at once: the worker computes while the views take the new problem
        self.model.new_run(problem, cls, sparse)
        # a sparse (Live drag) run gets no ρ_K: its LP would be cancelled by the next move; the full rerun has it
        if wants_rho(cls) and rho_affordable(problem) and not sparse:
            self.margins.queue(problem)
        if keep_playing and not live_run:
            self.play()
        else:
            self._set_state(IDLE)
            if live_run:
                self._run_live()

    def _run_live(self) -> None:
        """Live: to the end on the worker. Its first LIVE_SYNC_S are kept, not drawn (most runs end there and are shown
        once, finished); a run still going then is shown and said to be running (`_drain`)."""
        if not self._runnable():
            return
        self.live_runs += 1
        self._live_t0 = time.monotonic()
        self._quiet_until = self._live_t0 + LIVE_SYNC_S
        self.model.index = None
        self._worker.play(fast=True)

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
        if self.state in (PLAYING, RUNNING) or self._worker.playing:
            self.pause()
        if self.model.index is not None:
            self.model.show(None)
        self._worker.step(1)

    def play(self) -> None:
        """Animate at the set speed until paused, finished, or the scene changes."""
        if not self._runnable():
            return
        self.model.index = None
        self._worker.set_interval(1.0 / self.speed if self.speed > 0 else 0.0)
        self._worker.play(fast=False)
        self._set_state(PLAYING)

    def run_to_end(self) -> None:
        """Run as fast as possible until the solver halts or reaches its iteration limit."""
        if not self._runnable():
            return
        self.model.index = None
        self._worker.play(fast=True)
        self._set_state(RUNNING)

    def pause(self) -> None:
        self._worker.pause()
        self._quiet_until, self._quiet_start, self._live_t0 = 0.0, False, 0.0  # a paused run shows where it is
        if self._gen is not None and not len(self.model.history) and not self._worker.busy and not self._worker.has_output:
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
        if not len(self.model.history):
            return
        if self.state in (PLAYING, RUNNING) or self._worker.playing:
            self.pause()
        self.model.show(i)

    def scrub(self, delta: int) -> None:
        self.show_index(self.index + int(delta))

    def advance_sync(self, steps: int) -> Any:
        """Run up to `steps` updates and wait for them (scripts, screenshots); returns the newest snapshot.

        The worker computes them (this thread waits; no generator changes threads), then they are shown once."""
        if self._gen is None:
            return self.latest
        self.pause()
        self._worker.wait_done()
        self._drain()
        target = int(steps) + 1 - len(self.model.history)  # iteration 0 counts as the first snapshot
        if target > 0 and self._gen is not None and not self.finished:
            self._worker.step(target)
            self._worker.wait_done()
            self._drain()
        failure = self._worker.take_failure()
        if failure is not None:
            self._on_failed(*failure)
            return self.latest
        self.model.index = None
        if self.current is not self.model.last_shown:
            self.model.emit_current()
        if self.state != INVALID:
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
                self.model.events.error.emit(self.error)
            return False
        if self.finished:
            self._set_state(FINISHED)
            return False
        return True

    def _invalid(self, text: str) -> None:
        self.model.invalid(text)
        self._set_state(INVALID)
        self.model.report(text)

    def _set_state(self, state: str) -> None:
        self.frames.set_mode(PLAY if state == PLAYING else RUN if state == RUNNING else STILL)
        if state not in (PLAYING, RUNNING):
            self._worker.hold(False)  # a frame's hold is for animations: the next run (a Live edit's) starts at once
        if state == FINISHED and self.state != FINISHED:  # the next Live edit may start from this run's end
            self.model.live.remember(self.latest, self.problem, self.scene.settings)
            if self._live_t0:
                self.model.live.run_cost, self._live_t0 = time.monotonic() - self._live_t0, 0.0
        self.model.set_state(state)
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
        if self.model.stale:
            return
        self._worker.set_job(self.model.drop_stale(), None)

    def _kept_quiet(self, fresh: list) -> bool:
        """A Live run's unfinished start is kept, not drawn: its first LIVE_SYNC_S (most runs end there, shown
        once), and a dragged point's or paused drag's rerun until its first delivery (no flash of iteration 0)."""
        if any(snap.status.done for snap in fresh):
            return False
        return time.monotonic() < self._quiet_until or (self._quiet_start and not len(self.model.history))

    def _drain(self) -> None:
        fresh = [snap for job, snap in self._worker.take() if job == self.generation]
        if not fresh:
            return
        if self._kept_quiet(fresh):
            self.model.append(fresh, show=False)
            return
        if self._live_t0 and not self.model.animating and not any(snap.status.done for snap in fresh):
            self._set_state(RUNNING)  # a Live run past its quiet start: shown, and said to be still running
        with self.frames.frame(main=True):
            self.model.append(fresh)
        if self.finished and self.state != FINISHED:
            self._set_state(FINISHED)

    def _on_idle(self, job: int) -> None:
        if job != self.generation:
            return
        if self._worker.busy:  # it went on (a Live run after its iteration 0): not idle after all
            self._drain()
            return
        self._quiet_until = 0.0  # the worker stopped: what it made is shown
        self._drain()
        if len(self.model.history) and self.current is not self.model.last_shown and not self._quiet_start:
            with self.frames.frame(main=True):
                self.model.append([])  # a run kept quiet that ended without a finished snapshot
        if self.state in (PLAYING, RUNNING) and not self._worker.busy:
            self._set_state(FINISHED if self.finished else IDLE)
        self._live_t0 = 0.0

    def _on_failed(self, job: int, text: str) -> None:
        if job != self.generation or job == self._failed_job:
            return
        self._failed_job = job
        self._drain()
        self._gen = None
        self.model.error = text
        self._set_state(INVALID)
        self.model.report(text)
