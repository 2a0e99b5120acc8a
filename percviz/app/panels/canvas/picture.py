"""The decision function's picture, evaluated once per snapshot and view for every layer that needs it.

`PicturePath.request` evaluates f on the view's grid (and at the training points) on the UI thread, or on a
percviz.app.run.background.Task when the evaluation is costlier than BACKGROUND_WORK (one at a time, the latest
request next, older ones dropped); the finished `Picture` goes to `shown(picture)`, a failure to `failed(exc)`.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Callable

import numpy as np
from PySide6.QtCore import QObject

from percviz.app.run.background import Task
from percviz.core.decision import FeatureLinear, ZeroDecision
from percviz.core.grid import GridEvaluator, ViewGrid, sample_image
from percviz.core.margin_geometry import certificate_scale

#: Evaluations costlier than this (multiply-adds: cells × feature dimension, or point rows) run on a Task, off the
#: UI thread (issue 10: rff:dim=5000 on a 256² grid is ~0.25 s of UI-thread CPU); the old picture stays meanwhile.
BACKGROUND_WORK = 2e7
#: The image covers the visible range plus this fraction on each side, so small pans show no seam.
IMAGE_PAD = 0.15


def view_grid(view_range, resolution: int) -> ViewGrid:
    """The grid of the visible range, padded by IMAGE_PAD and snapped to a lattice (panning back and forth reuses
    the cached rows)."""
    (x0, x1), (y0, y1) = view_range
    px, py = IMAGE_PAD * (x1 - x0), IMAGE_PAD * (y1 - y0)
    step = max(x1 - x0, y1 - y0) / 16
    x0, x1 = np.floor((x0 - px) / step) * step, np.ceil((x1 + px) / step) * step
    y0, y1 = np.floor((y0 - py) / step) * step, np.ceil((y1 + py) / step) * step
    return ViewGrid.fit(float(x0), float(x1), float(y0), float(y1), resolution)


@dataclass
class Picture:
    """f of `snap` on `grid` (F: (ny, nx), or (c, ny, nx) for c classes) and at the training points X (fx)."""

    snap: object
    grid: ViewGrid
    F: np.ndarray
    fx: np.ndarray
    X: np.ndarray
    y: np.ndarray | None  # ±1 labels (None: multi-class)
    level: float | None  # the solver's fixed margin level (SVM: 1), else None
    preview: bool  # fx sampled from the image while animating a large scene (exact values come refined)
    extra: dict = field(default_factory=dict)

    def __post_init__(self):
        if not np.isfinite(self.F).all():
            big = float(np.finfo(np.float32).max) / 4
            self.F = np.nan_to_num(self.F, nan=0.0, posinf=big, neginf=-big)

    @property
    def regions(self) -> bool:
        """A multi-class picture (one score per class)."""
        return self.F.ndim == 3

    @property
    def affine(self):
        return self.snap.decision.affine()

    @property
    def largest(self) -> float:
        """max_i |f(x_i)| (else max |f| over the grid, else 1): the colour map's natural range."""
        fx, F = self.fx, self.F
        L = float(np.max(np.abs(fx))) if len(fx) else 0.0
        if not (np.isfinite(L) and L > 0):
            L = float(np.nanmax(np.abs(F))) if F.size else 1.0
            L = L if np.isfinite(L) and L > 0 else 1.0
        return L

    @property
    def flat(self) -> bool:
        """A fixed-level (SVM) f that varies by under 1e-6 of its level over the view: w = 0, f constant."""
        level, ab, g = self.level, self.affine, self.grid
        if level is None:
            return False
        span = float(np.hypot(g.x_max - g.x_min, g.y_max - g.y_min))
        return self.largest < 1e-6 * level or (ab is not None and np.hypot(ab[0], ab[1]) * span < 1e-6 * level)

    @property
    def certificate_scale(self) -> float:
        return certificate_scale(self.snap)

    @property
    def no_boundary(self) -> bool:
        """Nothing to draw of f = 0: a flat f, the zero function or an affine f with w = 0."""
        ab = self.affine
        return self.flat or isinstance(self.snap.decision, ZeroDecision) or (
            ab is not None and ab[0] == 0 and ab[1] == 0)

    @property
    def far_rect(self) -> tuple[float, float, float, float]:
        """The view's rectangle grown twice its size on each side: straight lines are clipped to it."""
        g = self.grid
        w, h = g.x_max - g.x_min, g.y_max - g.y_min
        return g.x_min - 2 * w, g.x_max + 2 * w, g.y_min - 2 * h, g.y_max + 2 * h


def evaluation_work(d, grid: ViewGrid, n_points: int) -> float:
    """Multiply-adds of one picture of an explicit φ-map: the grid's cells (and the points) times its dimension."""
    cells = grid.nx * grid.ny + n_points
    if d.n_outputs == 1 and d.affine() is not None:
        return float(cells)
    if isinstance(d, FeatureLinear):
        return float(cells) * d.features.dimension() * max(1, int(d.n_outputs))
    return float(cells)  # kernel pictures reuse per-point rows cached across snapshots: kept on the UI thread


def evaluate_picture(evaluator: GridEvaluator, d, grid: ViewGrid, X, preview: bool):
    """(the grid used, f on it, f at the points): the canvas's evaluation, on either thread."""
    grid = evaluator.plan(d, grid)  # coarser when the grid would exceed the memory budget
    F = evaluator.evaluate(d, grid)
    if not len(X):
        fx = np.zeros(0)
    elif preview:
        fx = sample_image(F, grid, X)  # a preview: the exact values come with the refined frame
    else:
        fx = evaluator.at_points(d, X)
    return grid, F, fx


def _evaluate_or_error(evaluator, d, grid, X, preview):
    try:
        return evaluate_picture(evaluator, d, grid, X, preview)
    except (ArithmeticError, ValueError, MemoryError) as exc:
        return exc


class PicturePath:
    """Evaluates pictures for the canvas: on the UI thread, or one at a time on a Task (module docstring)."""

    def __init__(self, owner: QObject, evaluator: GridEvaluator, shown: Callable[[Picture], None],
                 failed: Callable[[Exception], None]):
        self.owner, self.evaluator, self.shown, self.failed = owner, evaluator, shown, failed
        self.wanted: tuple | None = None  # the next picture to compute off the UI thread
        self.task: Task | None = None  # the one being computed
        self.cancelled: list[Task] = []  # cancelled pictures whose threads may still run (shutdown waits)
        self.current = lambda snap: True  # whether a snapshot is still the one shown (set by the canvas)

    @property
    def computing(self) -> bool:
        """A picture is being computed off the UI thread (tests wait for it)."""
        return self.wanted is not None or self.task is not None

    def request(self, snap, grid: ViewGrid, X, y, level, preview: bool, background: bool) -> None:
        """Evaluate snap's decision function on grid (off the UI thread when background and costly)."""
        req = (snap, grid, X, y, level, preview)
        if background and evaluation_work(snap.decision, grid, len(X)) > BACKGROUND_WORK:
            self.wanted = req
            if self.task is None:
                self._start_next()
            return
        self.wanted = None  # a cheaper picture supersedes one still computed off the thread
        try:
            out = evaluate_picture(self.evaluator, snap.decision, grid, X, preview)
        except (ArithmeticError, ValueError, MemoryError) as exc:  # e.g. a kernel overflowing far out, the budget
            self.failed(exc)
            return
        self.shown(Picture(snap, *out, X, y, level, preview))

    def _start_next(self) -> None:
        req, self.wanted = self.wanted, None
        if req is None:
            return
        snap, grid, X, _y, _level, preview = req
        task = Task(self.owner, name="percviz-canvas-picture")
        self.task = task
        # a fresh evaluator: the UI thread's one (and its caches) is never touched from the task's thread
        task.done.connect(lambda out, t=task, r=req: self._evaluated(t, r, out))
        task.failed.connect(lambda text, t=task, r=req: self._evaluated(t, r, ValueError(text)))
        task.start(_evaluate_or_error, GridEvaluator(), snap.decision, grid, X, preview)

    def _evaluated(self, task, req, out) -> None:
        if task is not self.task:
            return
        self.task = None
        snap, _grid, X, y, level, preview = req
        if self.wanted is None and self.current(snap):  # still the picture wanted
            if isinstance(out, Exception):
                self.failed(out)
            else:
                self.shown(Picture(snap, *out, X, y, level, preview))
        self._start_next()

    def cancel(self) -> None:
        """Drop the picture being computed and the one wanted next."""
        self.wanted = None
        task, self.task = self.task, None
        if task is not None:
            task.cancel()
            self.cancelled = [t for t in self.cancelled if t.running] + [task]

    def shutdown(self, wait_ms: int = 3000) -> bool:
        """Cancel, then wait for the cancelled pictures' threads (True when none runs)."""
        self.cancel()
        end = time.monotonic() + wait_ms / 1000
        return all(t.wait(max(1, int(1000 * (end - time.monotonic())))) for t in self.cancelled)
