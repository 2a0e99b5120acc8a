"""Benchmark: canvas redraw time (grid evaluation + drawing + painting) for a 200×200 view, RBF kernel.

Run: QT_QPA_PLATFORM=offscreen python bench/bench_canvas.py
For n = 100, 500, 2000 support points it reports, as medians over frames:
  eval naive   the direct float32 evaluation Σ_i coef_i K(z, x_i) on the 200×200 grid (the baseline);
  eval cached  percviz.core.grid.GridEvaluator on the same grid, one coefficient changed per frame
               (incremental), and every coefficient changed (one full product);
  animating    a full canvas frame while animating (coarse 100×100 grid): evaluate, contours, halos,
               trigger ring, overlay, and the repaint of the plot; one α_i changes per frame (perceptron-like)
               and, second number, every α_i changes (smoothed perceptron-like);
  paused       a full canvas frame at full resolution (200×200) for a new snapshot.
Target (issue 3): ≤ 30 ms per animated frame at n = 500.

  ui frame     canvas + curves as the main window lays them out (944×556 and 944×199), n = 2000 points, the
               Perceptron's real snapshots (every 20th update shown, like a coalesced fast run): set_history,
               set_snapshot and the event-loop turn that redraws and paints both; median and worst over 150
               frames. This is the UI thread's share of bench_app's stall, without the solver thread.
"""

from __future__ import annotations

import os
import time

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

import numpy as np  # noqa: E402
from PySide6.QtWidgets import QApplication  # noqa: E402

from percviz.app.panels.canvas import CanvasView  # noqa: E402
from percviz.core.data import PointSet  # noqa: E402
from percviz.core.grid import GridEvaluator, ViewGrid, naive_image  # noqa: E402
from percviz.core.problem import Problem  # noqa: E402
from percviz.core.scene import SceneModel  # noqa: E402
from percviz.core.solvers.base import Snapshot, Status  # noqa: E402

FRAMES = 40


def _median_ms(f, frames=FRAMES) -> tuple[float, float]:
    """(median, best) milliseconds over frames; the best shows the cost on an unloaded machine."""
    ts = []
    for k in range(frames):
        t = time.perf_counter()
        f(k)
        ts.append(time.perf_counter() - t)
    return 1e3 * float(np.median(ts)), 1e3 * float(np.min(ts))


def bench(n: int, app) -> dict:
    rng = np.random.default_rng(n)
    X = rng.uniform(-3, 3, size=(n, 2))
    cls = (np.hypot(X[:, 0], X[:, 1]) > 2.2).astype(int)
    pts = PointSet(X, cls)
    prob = Problem(pts, kernel="rbf:gamma=0.5")
    alpha = rng.random(n) + 0.1
    grid = ViewGrid(-3.0, 3.0, -3.0, 3.0, 200, 200)

    out = {"eval naive": _median_ms(lambda k: naive_image(prob.expansion(alpha), grid), frames=5)}
    ev = GridEvaluator()
    ev.evaluate(prob.expansion(alpha), grid)

    def cached(k):
        alpha[k % n] += 0.3
        ev.evaluate(prob.expansion(alpha), grid)

    out["eval cached"] = _median_ms(cached)

    def cached_all(k):
        alpha[:] *= 1.01
        ev.evaluate(prob.expansion(alpha), grid)

    out["eval cached, all α"] = _median_ms(cached_all)

    view = CanvasView(SceneModel(pts))
    view.resize(900, 760)
    view.show()
    app.processEvents()
    view.viewbox.setRange(xRange=(-3, 3), yRange=(-3, 3), padding=0)
    view.fine_resolution, view.coarse_resolution = 200, 100
    view.set_problem(prob, None)
    app.processEvents()

    def frame(k, animating, all_change=False):
        if all_change:
            alpha[:] *= 1.01
        alpha[k % n] += 0.3
        snap = Snapshot(k, Status.RUNNING, prob.expansion(alpha), {"margin": 0.01}, (k % n,), alpha=alpha)
        view.snapshot = snap
        view._animating = animating
        view._redraw()
        view.plot.viewport().repaint()

    frame(0, True)
    out["animating"] = _median_ms(lambda k: frame(k, True))
    out["animating, all α change"] = _median_ms(lambda k: frame(k, True, True))
    frame(0, False)
    out["paused"] = _median_ms(lambda k: frame(k, False), frames=10)
    view._refine.stop()
    view.close()
    view.deleteLater()
    app.processEvents()
    return out


def ui_frame(app, n: int = 2000, frames: int = 150, every: int = 20) -> dict:
    """Median and worst ms of one UI frame of canvas + curves fed with a running Perceptron's snapshots:
    wall clock, and the UI thread's CPU time (what a loaded machine does not inflate)."""
    from percviz.app.panels.curves import CurvesView
    from percviz.core.solvers import get_solver, load_all

    load_all()
    rng = np.random.default_rng(1)
    pts = PointSet(rng.normal(0, 1, (n, 2)), rng.integers(0, 2, n))
    scene = SceneModel(pts)
    prob = Problem(pts)
    cls = get_solver("perceptron")
    canvas, curves = CanvasView(scene), CurvesView(scene)
    canvas.resize(944, 556)
    curves.resize(944, 199)
    for v in (canvas, curves):
        v.set_problem(prob, cls)
        v.show()
    app.processEvents()
    from percviz.app.run import heap

    heap.settle(force=True)  # as the app does while idle: a full collection mid-run cost this bench a 45 ms frame
    history, ts, cpu = [], [], []
    gen = cls(prob).snapshots()
    for k, snap in enumerate(gen):
        history.append(snap)
        if k % every:
            continue
        t, c = time.perf_counter(), time.thread_time()
        curves.set_history(history)
        canvas.set_snapshot(snap)
        curves.set_snapshot(snap)
        curves.flush()  # a panel that defers its flush to a timer is charged for it in this frame
        app.processEvents()
        ts.append(time.perf_counter() - t)
        cpu.append(time.thread_time() - c)
        if len(ts) >= frames:
            break
    gen.close()
    for v in (canvas, curves):
        v.close()
        v.deleteLater()
    canvas._refine.stop()
    app.processEvents()
    ms = lambda v, f: 1e3 * float(f(v[5:]))  # noqa: E731 (the first frames lay the plots out)
    return {"wall": (ms(ts, np.median), ms(ts, np.max)), "cpu": (ms(cpu, np.median), ms(cpu, np.max))}


def main() -> None:
    app = QApplication.instance() or QApplication([])
    r = ui_frame(app)
    print("UI frame, canvas + curves, n = 2000, Perceptron: "
          f"wall median {r['wall'][0]:.1f} ms (worst {r['wall'][1]:.1f}), "
          f"UI-thread CPU median {r['cpu'][0]:.1f} ms (worst {r['cpu'][1]:.1f})")
    rows = {n: bench(n, app) for n in (100, 500, 2000)}
    cols = list(next(iter(rows.values())))
    print("canvas redraw, 200×200 view, RBF γ = 0.5: median (best) ms")
    print(f"{'n':>6} " + " ".join(f"{c:>22}" for c in cols))
    for n, r in rows.items():
        print(f"{n:>6} " + " ".join(f"{f'{r[c][0]:.1f} ({r[c][1]:.1f})':>24}" for c in cols))
    ok = rows[500]["animating"][0] <= 30 and rows[500]["animating, all α change"][0] <= 30
    print(f"target ≤ 30 ms per animated frame at n = 500: {'met' if ok else 'NOT met'}")


if __name__ == "__main__":
    main()
