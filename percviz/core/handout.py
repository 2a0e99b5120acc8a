"""A run recorded for the HTML handout: the solver's own snapshots as plain numbers a small viewer replays.

`record_run(preset, steps, budget)` runs the preset's algorithm and keeps at most `budget` snapshots — thinned
evenly past the budget, always keeping the first, the last and every status change — each with what the canvas
draws of it: the decision function on a grid (quantized to one byte a cell against one colour scale for the
whole run), the boundary f = 0 and the margin lines (by the canvas's rule, percviz.core.margin_geometry), the
α halos (or p of a certificate), the trigger points and the caption (percviz.core.run_caption, the words the
window uses); and, for every iteration, the curves' metrics. Nothing in the viewer recomputes a number.

Lines are int16 in units of 1/LINE_UNITS of the view (base64, LINE_BREAK between pieces); images are uint8,
row 0 at y_min (base64), 0 ↔ f = −level, 255 ↔ f = +level; for multi-class scenes each byte is the winning class.
"""

from __future__ import annotations

import base64
import math
from typing import Any, Callable

import numpy as np

from percviz.core.decision import KernelExpansion, ZeroDecision
from percviz.core.errors import ParameterError, PercvizError
from percviz.core.glossary import MARGINS, OUTCOMES, margin_term, outcome
from percviz.core.grid import GridEvaluator, ViewGrid, contour_lines, line_in_rect
from percviz.core.margin_geometry import certificate_scale, closest_margin
from percviz.core.run_caption import algorithm_label, caption_lines

FORMAT = "percviz-handout"
VERSION = 1
#: Snapshots kept by default (a 250-frame RBF run at n = 100 is about 2.5 MB).
FRAME_BUDGET = 250
#: The decision image's cells along the longer side of the view (the viewer smooths it when drawing).
IMAGE_SIDE = 64
#: Lines are traced on a grid this many times finer than the image.
LINE_REFINE = 2
#: A run that has not ended after this many updates needs `steps`.
MAX_ITERATIONS = 100_000
#: Curves keep at most this many iterations (evenly, with the last).
CURVE_POINTS = 2000
LINE_UNITS = 8000
LINE_BREAK = -32768
#: Halo sizes are rounded to this many steps of √(w_i / max w) (as the canvas does).
HALO_STEPS = 8
#: A decision value beyond this is not drawn (a diverging iterate).
DRAW_LIMIT = 1e30


def thin_indices(statuses: list[str], budget: int) -> list[int]:
    """Which of these snapshots to keep: all if they fit, else the first, the last, every status change and
    evenly spaced others up to `budget` (status changes are kept even beyond it)."""
    n = len(statuses)
    if budget < 2:
        raise ParameterError(f"The handout needs a budget of at least 2 snapshots; got {budget}.")
    if n <= budget:
        return list(range(n))
    must = {0, n - 1} | {i for i in range(1, n) if statuses[i] != statuses[i - 1]}
    if len(must) >= budget:
        return sorted(must)
    k = budget - len(must)
    while True:  # k evenly spaced over the whole run, more when some fall on the kept ones
        kept = must | {int(i) for i in np.round(np.linspace(0, n - 1, k + 2)).astype(int)[1:-1]}
        if len(kept) >= budget or k >= n:
            break
        k += budget - len(kept)
    out = sorted(kept)
    while len(out) > budget:  # drop the extra pick that sits closest to its predecessor
        gaps = [(out[i] - out[i - 1], i) for i in range(1, len(out) - 1) if out[i] not in must]
        out.pop(min(gaps)[1])
    return out


class _Keeper:
    """Keeps every stride-th snapshot and every status change of a stream, doubling the stride when more than
    4·budget are held (memory stays bounded, the kept ones stay evenly spaced), and the latest one."""

    def __init__(self, budget: int):
        self.budget, self.stride = budget, 1
        self.kept: list = []
        self.latest = None
        self._last_status = None

    def add(self, snap) -> None:
        change = snap.status != self._last_status
        self._last_status, self.latest = snap.status, snap
        if change or snap.iteration % self.stride == 0:
            self.kept.append((snap, change))
        if len(self.kept) > 4 * self.budget:
            self.stride *= 2
            self.kept = [(s, c) for s, c in self.kept if c or s.iteration % self.stride == 0]

    def finish(self) -> list:
        """The kept snapshots, ending with the latest."""
        out = [s for s, _ in self.kept]
        return out if out and out[-1] is self.latest else out + [self.latest]


def fit_view(X: np.ndarray, view_range=None) -> tuple[float, float, float, float]:
    """The plotted rectangle: the preset's range, else the canvas's 'fit to data' (every point, room around it)."""
    if view_range is not None:
        return tuple(float(v) for v in view_range)  # type: ignore[return-value]
    if len(X) == 0:
        return (-3.0, 3.0, -3.0, 3.0)
    lo, hi = X.min(axis=0), X.max(axis=0)
    centre, half = (lo + hi) / 2, np.maximum((hi - lo) / 2, 1.0) * 1.2
    return (float(centre[0] - half[0]), float(centre[0] + half[0]), float(centre[1] - half[1]),
            float(centre[1] + half[1]))


def _b64(a: np.ndarray) -> str:
    return base64.b64encode(np.ascontiguousarray(a).tobytes()).decode("ascii")


def _encode_lines(pieces: list[np.ndarray], view) -> str:
    """Polylines (NaN rows between pieces) as int16 view units, LINE_BREAK between pieces; '' when none."""
    x0, x1, y0, y1 = view
    out: list[np.ndarray] = []
    for P in pieces:
        if P is None or len(P) == 0:
            continue
        u = np.column_stack([(P[:, 0] - x0) / (x1 - x0), (P[:, 1] - y0) / (y1 - y0)]) * LINE_UNITS
        bad = ~np.isfinite(u).all(axis=1)
        u = np.clip(np.nan_to_num(u), -4 * LINE_UNITS, 4 * LINE_UNITS)
        u[bad] = LINE_BREAK
        out.append(u.astype("<i2").ravel())
        out.append(np.array([LINE_BREAK, LINE_BREAK], dtype="<i2"))
    return _b64(np.concatenate(out)) if out else ""


def _number(v: Any) -> float | None:
    """A JSON number with 6 significant digits (None when not finite)."""
    try:
        v = float(v)
    except (TypeError, ValueError):
        return None
    return float(f"{v:.6g}") if math.isfinite(v) else None


def reference_rho(problem, solver_cls) -> float | None:
    """ρ_K for the curves' reference line, by the window's rule: kernel algorithms, when affordable and resolved."""
    from percviz.core.gram import margin_affordable, optimal_margin

    if getattr(solver_cls, "representation", None) != "kernel" or problem.n == 0 or not margin_affordable(problem):
        return None
    try:
        result = optimal_margin(problem)
    except PercvizError:
        return None
    return float(result.rho) if result.resolved and np.isfinite(result.rho) else None


class _Frames:
    """What the canvas draws of one snapshot, on the handout's grid."""

    def __init__(self, problem, solver_cls, view):
        self.problem, self.solver_cls, self.view = problem, solver_cls, view
        self.fine = ViewGrid.fit(*view, IMAGE_SIDE * LINE_REFINE)
        self.evaluator = GridEvaluator()
        pts = problem.points
        self.X = pts.X
        self.y = pts.y if pts.n and pts.classes.max() <= 1 else None
        level = getattr(solver_cls, "margin_level", None)
        self.level = float(level) if isinstance(level, (int, float)) and level > 0 else None

    def field(self, snap) -> np.ndarray | None:
        """f on the fine grid (c planes for multi-class), None when it cannot be drawn."""
        d = snap.decision
        if isinstance(d, ZeroDecision):
            return None
        try:
            with np.errstate(all="ignore"):
                F = np.asarray(self.evaluator.evaluate(d, self.fine), dtype=np.float64)
        except (ArithmeticError, ValueError, MemoryError):
            return None
        return F if np.isfinite(F).all() and np.abs(F).max(initial=0.0) < DRAW_LIMIT else None

    def at_points(self, snap) -> np.ndarray | None:
        try:
            with np.errstate(all="ignore"):
                fx = np.asarray(self.evaluator.at_points(snap.decision, self.X), dtype=float)
        except (ArithmeticError, ValueError, MemoryError):
            return None
        return fx if np.isfinite(fx).all() else None

    def image(self, F: np.ndarray | None, scale: float) -> str:
        """The image on the coarse grid (LINE_REFINE × LINE_REFINE cells averaged), quantized to bytes."""
        ny, nx = self.fine.shape
        r = LINE_REFINE
        if F is None:
            return _b64(np.full((ny // r, nx // r), 128, dtype=np.uint8))
        if F.ndim == 3:
            labels = F.argmax(axis=0)[::r, ::r]
            return _b64(labels.astype(np.uint8))
        C = F[: ny // r * r, : nx // r * r].reshape(ny // r, r, nx // r, r).mean(axis=(1, 3))
        q = np.round((np.clip(C / scale, -1.0, 1.0) + 1.0) * 127.5)
        return _b64(q.astype(np.uint8))

    def lines(self, snap, F: np.ndarray | None) -> tuple[str, str]:
        """(boundary, margin lines), encoded; margins follow the canvas: ±level, else ±δ of the closest point."""
        if F is None:
            return "", ""
        xs, ys = self.fine.xs, self.fine.ys
        if F.ndim == 3:
            c = F.shape[0]
            pieces = [contour_lines(F[k] - np.delete(F, k, axis=0).max(axis=0), 0.0, xs, ys) for k in range(c)]
            return _encode_lines(pieces, self.view), ""
        d = snap.decision
        ab = d.affine()
        x0, x1, y0, y1 = self.view
        big = (x0 - 2 * (x1 - x0), x1 + 2 * (x1 - x0), y0 - 2 * (y1 - y0), y1 + 2 * (y1 - y0))
        span = float(np.hypot(x1 - x0, y1 - y0))
        fx = self.at_points(snap)
        L = float(np.max(np.abs(fx))) if fx is not None and len(fx) else 0.0
        if ab is not None and ab[0] == 0 and ab[1] == 0:
            return "", ""
        if self.level is not None and (L < 1e-6 * self.level
                                       or (ab is not None and np.hypot(ab[0], ab[1]) * span < 1e-6 * self.level)):
            return "", ""  # an SVM's w = 0: f constant, no boundary
        boundary = line_in_rect(ab, 0.0, big) if ab is not None else contour_lines(F, 0.0, xs, ys)
        delta, field = self._margin(d, fx, F)
        if delta is None:
            margins: list = []
        elif ab is not None:
            margins = [line_in_rect(ab, s * delta, big) for s in (1, -1)]
        else:
            margins = [contour_lines(field, s * delta, xs, ys) for s in (1, -1)]
        return _encode_lines([boundary], self.view), _encode_lines(margins, self.view)

    def _margin(self, d, fx, F):
        if self.y is None or fx is None or len(fx) == 0:
            return None, None
        if self.level is not None:
            return self.level, F
        g, field = fx, F
        if isinstance(d, KernelExpansion) and d.affine() is None and not getattr(d.kernel, "unit_diagonal", False):
            g = fx / np.sqrt(np.asarray(d.kernel.diag(self.X), dtype=float))
            field = F / self.evaluator.kernel_diag(d.kernel, self.fine)
        delta = closest_margin(g, self.y)
        return (delta, field) if delta is not None else (None, None)

    def halos(self, snap) -> tuple[list[int], bool]:
        """[i, step, i, step, …] of the points with a halo (area ∝ weight, HALO_STEPS steps), and certificate?"""
        certificate = str(snap.status.value) == "certificate" and snap.p is not None
        w = snap.p if certificate else snap.alpha
        if w is None or len(w) != len(self.X):
            return [], False
        w = np.asarray(w, dtype=float)
        if not np.isfinite(w).all() or not np.any(w > 0):
            return [], certificate
        keep = np.flatnonzero(w > 1e-3 * w.max())
        steps = np.ceil(np.sqrt(w[keep] / w.max()) * HALO_STEPS).astype(int)
        return np.column_stack([keep, steps]).ravel().tolist(), certificate


def _colour_scale(frames: _Frames, snaps: list) -> float:
    """The colour map's fixed ±level: the largest |f(x_i)| of the last snapshot (the result the run holds on),
    else of every kept one; at least the SVM's margin level (as the GIF export)."""
    def largest(s) -> float:
        fx = frames.at_points(s)
        return float(np.max(np.abs(fx))) if fx is not None and len(fx) else 0.0

    value = max(largest(snaps[-1]), certificate_scale(snaps[-1])) if snaps else 0.0
    if not value > 0:
        value = max((largest(s) for s in snaps), default=0.0)
    if frames.level is not None:
        value = max(value, frames.level)
    return value if value > 0 and math.isfinite(value) else 1.0


def _curves(history: list[tuple[int, dict]], solver_cls) -> dict:
    """The metrics of every iteration (thinned evenly past CURVE_POINTS), with their labels and groups."""
    from percviz.core.solvers.base import METRICS

    idx = range(len(history))
    if len(history) > CURVE_POINTS:
        idx = sorted({*np.round(np.linspace(0, len(history) - 1, CURVE_POINTS)).astype(int).tolist()})
    rows = [history[i] for i in idx]
    keys = [k for k in getattr(solver_cls, "metric_keys", ()) if any(k in m for _, m in rows)]
    keys += sorted({k for _, m in rows for k in m if k not in keys and k in METRICS})
    series = []
    for k in keys:
        info = METRICS.get(k)
        label = margin_term(solver_cls).short if k == "margin" else info.label if info else k  # as the curves panel
        helptext = margin_term(solver_cls).tooltip if k == "margin" else info.help if info else ""
        series.append({"key": k, "label": label, "help": helptext, "group": info.group if info else "norms",
                       "log": bool(info.log_default) if info else False,
                       "values": [_number(m.get(k)) for _, m in rows]})
    return {"iterations": [it for it, _ in rows], "series": series}


def record_run(preset, steps: int | None = None, budget: int = FRAME_BUDGET,
               cancelled: Callable[[], bool] | None = None) -> dict[str, Any] | None:
    """Run the preset's algorithm (to its end, or `steps` updates) and return the handout's JSON payload
    (None when `cancelled()` became true on the way)."""
    if steps is not None and int(steps) < 1:
        raise ParameterError("The handout needs steps ≥ 1 (the number of updates to record).")
    preset.points.require_plane("The handout")
    solver = preset.make_solver()
    cls = type(solver)
    last = MAX_ITERATIONS if steps is None else int(steps)
    keeper, history = _Keeper(max(int(budget), 2)), []
    for snap in solver.snapshots():
        if cancelled is not None and cancelled():
            return None
        keeper.add(snap)
        history.append((snap.iteration, dict(snap.metrics)))
        if snap.status.done or snap.iteration >= last:
            break
    snap_last = keeper.latest
    if steps is None and not snap_last.status.done:
        raise ParameterError(f"The run has not ended after {snap_last.iteration} updates; record fewer "
                             "(--steps N, or steps=N).")
    held = keeper.finish()
    snaps = [held[i] for i in thin_indices([s.status.value for s in held], max(int(budget), 2))]
    problem = solver.problem
    view = fit_view(problem.points.X, preset.view.range)
    frames = _Frames(problem, cls, view)
    scale = _colour_scale(frames, snaps)
    out_frames = []
    for s in snaps:
        if cancelled is not None and cancelled():
            return None
        F = frames.field(s)
        boundary, margins = frames.lines(s, F)
        halos, certificate = frames.halos(s)
        word = outcome(s.status, dict(s.metrics))
        out_frames.append({
            "iteration": int(s.iteration), "status": s.status.value, "done": bool(s.status.done),
            "outcome": word.words, "role": word.role, "caption": caption_lines(s, cls),
            # a certificate's f ≈ 0 is not magnified (as the canvas)
            "image": frames.image(F, max(scale, certificate_scale(s))), "drawn": F is not None,
            "boundary": boundary, "margins": margins,
            "halos": halos, "certificate": certificate,
            "triggers": [int(t) for t in s.triggers if 0 <= t < problem.n], "message": str(s.message or ""),
        })
    term = margin_term(cls)
    coarse_ny, coarse_nx = frames.fine.ny // LINE_REFINE, frames.fine.nx // LINE_REFINE
    from percviz import __version__

    return {
        "format": FORMAT, "version": VERSION, "percviz": __version__,
        "title": str(preset.title), "explanation": str(preset.explanation or ""),
        "algorithm": algorithm_label(cls), "algorithm_name": str(cls.display_name or cls.name),
        "kernel": str(preset.kernel), "features": str(preset.features),
        "view": [float(v) for v in view], "grid": [coarse_nx, coarse_ny], "line_units": LINE_UNITS,
        "line_break": LINE_BREAK, "halo_steps": HALO_STEPS,
        "colour_level": _number(scale), "regions": bool(problem.points.n and problem.points.classes.max() > 1),
        "points": [[_number(x), _number(y)] for x, y in problem.points.X],
        "classes": [int(c) for c in problem.points.classes],
        "margin": {"name": term.name, "symbol": term.symbol, "formula": term.formula, "meaning": term.meaning},
        "outcomes": {k: o.words for k, o in OUTCOMES.items()}, "rho_name": MARGINS["rho"].short,
        "rho": _number(reference_rho(problem, cls)),
        "iterations_run": int(snap_last.iteration), "frames": out_frames, "thinned": len(out_frames) < len(history),
        "curves": _curves(history, cls),
    }


__all__ = ["FRAME_BUDGET", "record_run", "thin_indices", "fit_view"]
