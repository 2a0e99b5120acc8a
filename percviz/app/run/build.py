"""Building the run's solver: at once, or on a Task when its φ(X) is too costly for the UI thread (issue 10)."""

from __future__ import annotations

import threading
from typing import Callable

from PySide6.QtCore import QObject

from percviz.app.run.background import Task
from percviz.app.run.worker import error_text
from percviz.core.errors import PercvizError
from percviz.core.problem import Problem

#: A solver whose φ(X) has more entries than this (n × d̂; rff:dim=5000 at 80 points: 400,000, 15–40 ms) is
#: built on a Task, off the UI thread; below, at once.
PHI_TASK_ENTRIES = 250_000


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
        raise PercvizError(error_text(exc, solver_cls.display_name)) from exc
    return solver


_BUILD_LOCK = threading.Lock()


def _build_in_turn(cancel: threading.Event, *args):
    """build_solver on a Task's thread, one build at a time: a drag's superseded builds end without building."""
    with _BUILD_LOCK:
        return None if cancel.is_set() else build_solver(*args)


class SolverBuild(QObject):
    """At most one solver being built off the UI thread; a new build or `cancel` drops the previous one."""

    def __init__(self, parent: QObject):
        super().__init__(parent)
        self.task: Task | None = None
        self._cancel = threading.Event()
        self.previous: Task | None = None  # the last cancelled one (its thread may still run)

    def start(self, args: tuple, done: Callable[[object], None], failed: Callable[[str], None]) -> None:
        """build_solver(*args) on a Task; done(solver) or failed(text) on the UI thread unless cancelled first."""
        self.cancel()
        self._cancel = threading.Event()
        self.task = Task(self, name="percviz-problem")
        self.task.done.connect(done)
        self.task.failed.connect(failed)
        self.task.start(_build_in_turn, self._cancel, *args)

    def finished(self) -> None:
        """The build's result was taken."""
        self.task = None

    def cancel(self) -> None:
        if self.task is not None:
            self.task.cancel()
            self._cancel.set()
            self.previous, self.task = self.task, None

    @property
    def busy(self) -> bool:
        return self.task is not None
