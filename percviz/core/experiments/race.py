"""A lock-step race: 2–4 solvers, each with its own kernel, φ-map and parameters, on one set of points.

Every step advances each running lane by one update, so all lanes stand at the same iteration k (a lane
that halted stays at its halting iteration). The snapshots are kept, so any k can be revisited (scrub).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Mapping

from percviz.core.data import PointSet
from percviz.core.errors import ParameterError
from percviz.core.problem import Problem
from percviz.core.solvers import get_solver
from percviz.core.solvers.base import Snapshot, Solver

MIN_LANES, MAX_LANES = 2, 4
#: The race keeps every snapshot for scrubbing, so its default iteration limit is modest.
DEFAULT_MAX_ITER = 5000


#: The fourth row's algorithm in the race's setup dialog when the default race has three lanes.
RACE_SPARE = "kernel-perceptron"


@dataclass(frozen=True)
class Lane:
    """One contestant: an algorithm with its kernel, φ-map and parameters."""

    algorithm: str
    kernel: str = "affine"
    features: str = "linear"
    params: Mapping[str, Any] = field(default_factory=dict)
    max_iter: int | None = None

    @property
    def label(self) -> str:
        cls = get_solver(self.algorithm)
        if cls.representation == "kernel":
            return f"{self.algorithm} ({self.kernel})"
        return f"{self.algorithm} (φ {self.features})"


@dataclass(frozen=True)
class LaneResult:
    """A row of the race table: how and when a lane halted (iteration None: still running)."""

    label: str
    algorithm: str
    status: str
    iteration: int | None
    margin: float | None
    p_g_norm: float | None


class Race:
    """Lanes run in lock-step on the same points; `step`, `advance`, `at(k)` and `restart` drive them all."""

    def __init__(self, points: PointSet, lanes, max_iter: int = DEFAULT_MAX_ITER):
        lanes = tuple(lanes)
        if not MIN_LANES <= len(lanes) <= MAX_LANES:
            raise ParameterError(f"A race needs {MIN_LANES} to {MAX_LANES} algorithms; got {len(lanes)}.")
        self.lanes = lanes
        self.max_iter = int(max_iter)
        self.restart(points)

    def restart(self, points: PointSet) -> None:
        """Start every lane again from iteration 0 on these points (an edit of the scene restarts all)."""
        self.points = points
        self.solvers: list[Solver] = []
        for lane in self.lanes:
            cls = get_solver(lane.algorithm)
            problem = Problem(points, lane.kernel, lane.features)
            limit = lane.max_iter if lane.max_iter is not None else self.max_iter
            self.solvers.append(cls(problem, max_iter=limit, **dict(lane.params)))
        self.history: list[list[Snapshot]] = [[s.start()] for s in self.solvers]
        self.iteration = 0

    @property
    def done(self) -> bool:
        return all(s.done for s in self.solvers)

    def step(self) -> list[Snapshot]:
        """One update of every lane still running; returns the snapshots at the new iteration."""
        if self.done:
            return self.current()
        self.iteration += 1
        for s, hist in zip(self.solvers, self.history):
            if not s.done:
                hist.append(s.step())
        return self.current()

    def advance(self, updates: int) -> list[Snapshot]:
        """Up to `updates` steps of all lanes together (stops early once every lane halted)."""
        for _ in range(max(0, int(updates))):
            if self.done:
                break
            self.step()
        return self.current()

    def run(self) -> list[Snapshot]:
        while not self.done:
            self.step()
        return self.current()

    def at(self, k: int) -> list[Snapshot]:
        """The snapshot of each lane at race iteration k (clamped to what was run; halted lanes stay put)."""
        k = max(0, min(int(k), self.iteration))
        return [hist[min(k, len(hist) - 1)] for hist in self.history]

    def current(self) -> list[Snapshot]:
        return self.at(self.iteration)

    def series(self, key: str, upto: int | None = None) -> list[tuple[list[int], list[float]]]:
        """(iterations, values) of one metric for each lane, up to race iteration `upto`."""
        k = self.iteration if upto is None else upto
        out = []
        for hist in self.history:
            pts = [(s.iteration, s.metrics[key]) for s in hist[: k + 1] if key in s.metrics]
            out.append(([p[0] for p in pts], [p[1] for p in pts]))
        return out

    def table(self, upto: int | None = None) -> list[LaneResult]:
        """Who reached a separator, certificate or proof by race iteration `upto`, when, with what margin."""
        rows = []
        for lane, snap in zip(self.lanes, self.at(self.iteration if upto is None else upto)):
            halted = snap.status.done
            rows.append(LaneResult(
                lane.label, lane.algorithm, snap.status.value, snap.iteration if halted else None,
                snap.metrics.get("margin"), snap.metrics.get("p_g_norm"),
            ))
        return rows
