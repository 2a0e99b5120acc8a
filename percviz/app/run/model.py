"""The run's state, Qt-free: problem, solver class, history, the snapshot shown, state, ρ_K, generation, Live.

`RunModel` is what the views' feed reads and what tests can drive without a QApplication. Only the session's Qt
adapter (percviz.app.run.session.RunSession) mutates it: it feeds it what the worker computed (`append`), each
restart (`new_run`), and the user's stepping (`show`). Every change emits one of `RunModel.events`
(percviz.core.events.Event), in the order the session's Qt signals carry them.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from percviz.app.run.history import SnapshotHistory
from percviz.app.run.live_policy import LivePolicy
from percviz.core.events import Event

#: Run states (`RunEvents.state`).
IDLE, PLAYING, RUNNING, FINISHED, INVALID = "idle", "playing", "running", "finished", "invalid"
STATES = (IDLE, PLAYING, RUNNING, FINISHED, INVALID)


@dataclass(frozen=True)
class RunEvents:
    """The model's typed events; each carries what its comment says."""

    problem: Event = field(default_factory=Event)  # (Problem | None, solver class | None): a new run, or invalid
    history: Event = field(default_factory=Event)  # (int): the history's length
    shown: Event = field(default_factory=Event)  # (Snapshot): the snapshot to draw
    state: Event = field(default_factory=Event)  # (str): one of STATES
    error: Event = field(default_factory=Event)  # (str): a message for the person
    rho: Event = field(default_factory=Event)  # (float | None): ρ_K of the current problem


class RunModel:
    """The current run (module docstring); read its fields, change it through its methods."""

    def __init__(self) -> None:
        self.problem: Any = None
        self.solver_cls: type | None = None
        self.error = ""
        self.state = IDLE
        self.history = SnapshotHistory()
        #: the shown index; None: follow the newest snapshot
        self.index: int | None = None
        #: the run's id: snapshots tagged with an older one are dropped
        self.generation = 0
        #: the points moved and the restart is deferred: nothing of this run is shown
        self.stale = False
        #: this run's history keeps a snapshot per stride of updates (Live while dragging)
        self.sparse = False
        self.rho: float | None = None
        self.live = LivePolicy()
        self.events = RunEvents()
        self.last_shown: Any = None  # the snapshot `events.shown` carried last

    # -- reading --------------------------------------------------------------------------------------------
    @property
    def shown_index(self) -> int:
        """Index in the history of the snapshot shown (−1 when there is none)."""
        n = len(self.history)
        if not n:
            return -1
        return n - 1 if self.index is None else self.index

    @property
    def current(self) -> Any:
        i = self.shown_index
        return self.history[i] if i >= 0 else None

    @property
    def latest(self) -> Any:
        return self.history[-1] if len(self.history) else None

    @property
    def finished(self) -> bool:
        last = self.latest
        return last is not None and last.status.done

    @property
    def animating(self) -> bool:
        return self.state in (PLAYING, RUNNING)

    # -- changing (the session only) ------------------------------------------------------------------------------
    def begin_run(self) -> int:
        """A restart: a new generation with an empty history, no problem yet; returns the generation."""
        self.generation += 1
        self.stale = False
        self.history.clear()
        self.index = None
        self.problem, self.solver_cls, self.error = None, None, ""
        self.set_rho(None)
        return self.generation

    def drop_stale(self) -> int:
        """The points moved and the restart waits: the old run's snapshots are never shown; returns the generation."""
        self.stale = True
        self.generation += 1
        return self.generation

    def new_run(self, problem, solver_cls, sparse: bool) -> None:
        """The run of `problem` starts (iteration 0 comes from the worker)."""
        self.problem, self.solver_cls, self.sparse = problem, solver_cls, sparse
        self.events.problem.emit(problem, solver_cls)
        self.events.history.emit(0)

    def invalid(self, text: str) -> None:
        """The scene cannot be run: no problem (the state and the message follow: `set_state`, `report`)."""
        self.error, self.problem = text, None
        self.events.problem.emit(None, self.solver_cls)
        self.events.history.emit(0)

    def report(self, text: str) -> None:
        """Why the run cannot go on, for the person."""
        self.error = text
        self.events.error.emit(text)

    def append(self, snaps: list, show: bool = True) -> None:
        """Snapshots of the current generation from the worker; show: tell the views (else kept quietly)."""
        self.history.extend(snaps)
        if show:
            self.events.history.emit(len(self.history))
            if self.index is None:
                self.emit_current()

    def show(self, i: int | None) -> None:
        """Show the i-th snapshot (clamped; None or the last: follow the newest)."""
        n = len(self.history)
        if n == 0:
            return
        if i is not None:
            i = max(0, min(int(i), n - 1))
        self.index = None if i is None or i == n - 1 else i
        self.emit_current()

    def emit_current(self) -> None:
        snap = self.current
        if snap is not None and not self.stale:
            self.last_shown = snap
            self.events.shown.emit(snap)

    def set_state(self, state: str) -> None:
        if state not in STATES:
            raise ValueError(f"unknown run state {state!r}: use one of {', '.join(STATES)}")
        if state != self.state:
            self.state = state
            self.events.state.emit(state)

    def set_rho(self, value: float | None) -> None:
        self.rho = value
        self.events.rho.emit(value)
