"""ρ_K of the run's problem (percviz.core.gram.optimal_margin), computed once per problem on a background Task.

Defined for the kernel algorithms only. A large scene (over RHO_DEFER_N points: seconds of LP and Qhull at 100k,
holding the GIL in stretches) starts its ρ_K only once it has been still `timing.RHO_DEFER_MS` and the previous
ρ_K's thread has ended: a drag runs one, not one a move; its solver's bound metric waits for that ρ_K
(`rho_left_to_the_session`) instead of computing it on the solver's thread.
"""

from __future__ import annotations

from typing import Any, Callable, Iterator

import numpy as np
from PySide6.QtCore import QObject, QTimer

from percviz.app.run.background import Task
from percviz.app.timing import RHO_DEFER_MS
from percviz.core.errors import PercvizError
from percviz.core.gram import BOUND_MAX_N, margin_affordable, margins_deferred, optimal_margin
from percviz.core.problem import Problem

#: Above this many points ρ_K waits for the scene to be still (module docstring).
RHO_DEFER_N = 20_000


def defer_margins(gen: Iterator[Any], n: int) -> Iterator[Any]:
    """gen, or for a scene over RHO_DEFER_N points its snapshots each computed under gram.margins_deferred."""
    return gen if n <= RHO_DEFER_N else rho_left_to_the_session(gen)


def rho_left_to_the_session(gen: Iterator[Any]) -> Iterator[Any]:
    """The snapshots of gen, each computed under gram.margins_deferred: a large scene's bound metric waits for the
    session's ρ_K task (started once the scene is still) instead of computing ρ_K on the solver's thread."""
    while True:
        with margins_deferred(RHO_DEFER_N):  # set and reset around each next(), on whichever thread runs it
            try:
                snap = next(gen)
            except StopIteration:
                return
        yield snap


def wants_rho(solver_cls) -> bool:
    """ρ_K bounds the kernel algorithms' margins only."""
    return solver_cls is not None and solver_cls.representation == "kernel"


def rho_affordable(problem: Problem) -> bool:
    """ρ_K factors the n×n Gram matrix (O(n³)) unless the kernel is linear/affine: skipped above BOUND_MAX_N.

    Same rule as the solvers' `bound` metric, so neither waits minutes for the other (gram's cache lock).
    """
    return problem.n <= BOUND_MAX_N or problem.kernel.name in ("linear", "affine")


def compute_rho(problem: Problem) -> float | None:
    """ρ_K, or None when it is too large to compute, unresolved or not finite (no misleading reference line)."""
    try:
        result = optimal_margin(problem)
    except PercvizError:
        return None
    if not result.resolved:
        return None
    return float(result.rho) if np.isfinite(result.rho) else None


def _rho_job(problem: Problem) -> tuple[int, float | None]:
    # the rank test (an eigh of G) runs here, off the UI thread; a G of rank > BOUND_MAX_RANK gets no line
    return id(problem), compute_rho(problem) if margin_affordable(problem) else None


class RhoTracker(QObject):
    """The session's ρ_K: a memo for the current problem, at most one running Task, the deferred start."""

    def __init__(self, parent: QObject, current: Callable[[], tuple[int, Problem | None, Any, bool]],
                 on_value: Callable[[float | None], None], on_error: Callable[[str], None]):
        """current() → (generation, problem, solver class, stale) of the run; on_value/on_error: the results."""
        super().__init__(parent)
        self._current, self._on_value, self._on_error = current, on_value, on_error
        self._memo: dict[int, float | None] = {}
        self.task: Task | None = None
        self._prev: Task | None = None  # the last cancelled ρ_K task (its thread may still run)
        self._wait = QTimer(self)
        self._wait.setSingleShot(True)
        self._wait.setInterval(RHO_DEFER_MS)
        self._wait.timeout.connect(self._due)
        self.closed = False

    def value(self, problem: Problem | None, solver_cls, wait: bool) -> float | None:
        """ρ_K of problem (None when not defined; with wait=False also while its Task has not answered)."""
        if problem is None or not wants_rho(solver_cls):
            return None
        key = id(problem)
        if key not in self._memo:
            if not wait or not rho_affordable(problem):
                return None
            self._memo = {key: compute_rho(problem)}
        return self._memo[key]

    def known(self, problem: Problem) -> bool:
        return id(problem) in self._memo

    def start(self, problem: Problem) -> None:
        """ρ_K (an LP/QP, seconds for thousands of points) is computed by a background Task."""
        self.cancel()
        job = self._current()[0]
        self.task = Task(self, name="percviz-margin")
        self.task.done.connect(lambda kv: self._done(job, *kv))
        self.task.failed.connect(lambda text: job == self._current()[0] and self._on_error(f"ρ_K: {text}"))
        self.task.start(_rho_job, problem)

    def _done(self, job: int, key: int, value: float | None) -> None:
        generation, problem, _cls, _stale = self._current()
        if job == generation and problem is not None and key == id(problem):
            self._memo = {key: value}
            self._on_value(value)

    def cancel(self) -> None:
        self._wait.stop()
        if self.task is not None:
            self.task.cancel()
            self._prev, self.task = self.task, None

    def queue(self, problem: Problem) -> None:
        """ρ_K now, or for a large scene once it has been still (see RHO_DEFER_N); one ρ_K thread at a time.

        A cancelled ρ_K keeps computing until its LP returns (cancel is cooperative): starting one per edit
        piled up 8 threads on a slow kernel's margin in the soak (nvn, poly:c=0.001), and the UI waited for a core.
        """
        if problem.n <= RHO_DEFER_N and not (self._prev is not None and self._prev.running):
            self.start(problem)
        else:
            self._wait.start()

    def ensure(self, problem: Problem | None, solver_cls) -> None:
        """Start ρ_K of problem in the background unless it is known, running or not wanted (a sparse Live run)."""
        if (problem is not None and self.task is None and not self.known(problem) and wants_rho(solver_cls)
                and rho_affordable(problem)):
            self.queue(problem)

    def _due(self) -> None:
        _job, problem, solver_cls, stale = self._current()
        if self.closed or problem is None or not wants_rho(solver_cls) or stale:
            return
        if self._prev is not None and self._prev.running:
            self._wait.start()  # one ρ_K thread at a time: look again later
            return
        self.start(problem)

    def shutdown(self) -> list[Task]:
        """Stop everything; returns the tasks whose threads may still run (the caller waits for them)."""
        self.closed = True
        self._wait.stop()
        task, self.task = self.task, None
        if task is not None:
            task.cancel()  # both threads wind down at once; a long LP ends on its own (a daemon thread)
        return [t for t in (task, self._prev) if t is not None]
