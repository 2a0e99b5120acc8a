"""Benchmark: Live mode — finished boundaries per second while a point is dragged with the mouse, for every algorithm.

Run: QT_QPA_PLATFORM=offscreen python bench/bench_live.py [--n 50 100 200] [--seconds S] [--reps R] [--only NAME ...]
     ... --against OLD_TREE: side by side, each algorithm alternately in a fresh process of this script importing
     percviz from OLD_TREE (a source checkout, e.g. `git archive main | tar -x -C /tmp/old`) and from this tree,
     so that both see the same load and the same measuring code
For each registered algorithm (input-space-svm left out by default: one run takes about a minute) on n random
points (two separable classes; three for the multi-class ones), the real main window (1280×800, every view the
algorithm supports, Live on) is dragged like a person: a mouse press on a point of the canvas viewport, then real
mouse moves along an arc at 60 per second for S seconds (when the UI thread is late, the moves it missed are
merged into the next one, as a window system merges a mouse's), then the release; the window's own event loop
runs in between. R such drags per algorithm and n. Reported: the updates a headless run takes (only algorithms that finish
within 20,000 updates have a target), the finished boundaries shown per second during the drag (median and worst
of the R drags; target ≥ 20/s at n ≤ 200), the share of the mouse moves sent that got their own finished boundary, and the
CPU time per boundary shown — of the UI thread, and of every other thread (worker, solver, picture and ρ_K
threads) — medians over the drags, and "c-ups": how often the weight or feature view redid its picture in the
middle of the drags (they should wait for a pause of the mouse). On a shared machine the rate follows the load; the CPU per boundary much less:
"cap/s" = 1000 / max(UI ms, other ms) is the rate the process would reach with its measured CPU per boundary if
each of the two had a core of its own. The 1-minute load average is printed with every row.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

import numpy as np  # noqa: E402

BUDGET = 20_000
TARGET = 20.0


def _points(n: int, classes: int, seed: int = 0):
    from percviz.core.data import PointSet

    rng = np.random.default_rng(seed)
    if classes == 2:
        X = rng.uniform(-3, 3, size=(4 * n, 2))
        X = X[np.abs(X[:, 0] + 0.5 * X[:, 1]) > 0.3][:n]
        return PointSet(X, (X[:, 0] + 0.5 * X[:, 1] < 0).astype(int))
    centres = np.array([[-2.0, -1.5], [2.0, -1.5], [0.0, 2.0]])
    c = np.arange(n) % 3
    return PointSet(centres[c] + 0.5 * rng.standard_normal((n, 2)), c)


def _updates(name: str, points) -> int | None:
    """Updates a headless run takes to finish (None: not within BUDGET)."""
    from percviz.core.problem import Problem
    from percviz.core.solvers import get_solver

    cls = get_solver(name)
    kernel = "rbf:gamma=0.5" if cls.representation == "kernel" else "affine"
    solver = cls(Problem(points, kernel, "linear"), max_iter=BUDGET)
    snap = None
    for snap in solver.snapshots():
        if snap.status.done:
            break
    return snap.iteration if snap is not None and snap.status.value != "max_iter" else None


def _spin(seconds: float) -> None:
    from PySide6.QtCore import QEventLoop, QTimer

    loop = QEventLoop()
    QTimer.singleShot(max(1, int(seconds * 1000)), loop.quit)
    loop.exec()


def _setup(window, name: str, points) -> None:
    """The scene: `points`, algorithm `name` (RBF γ = 0.5 for kernel algorithms), Live on; waits for its run."""
    from percviz.core.solvers import get_solver

    cls = get_solver(name)
    kernel = "rbf:gamma=0.5" if cls.representation == "kernel" else "affine"
    w = window
    with w.session.batch():
        w.scene.set_points(points, undoable=False)
        w.scene.set_settings(algorithm=name, kernel=kernel, features="linear", params={}, max_iter=BUDGET)
    w.panels["canvas"].viewbox.setRange(xRange=(-4, 4), yRange=(-4, 4), padding=0)
    w.classroom.live.set_on(True)
    _settle(w)


def _settle(w, limit: float = 20.0) -> None:
    """Until the run has finished, Live's pause rerun (if any) with it, and the views have caught up."""

    def quiet() -> bool:
        feeds = [getattr(p, "feed", None) for p in w.panels.values()]
        return (w.session.finished and not w.classroom.live._settle.isActive()
                and not any(f is not None and f._later.isActive() for f in feeds)
                and not w.session.frames.first_draws_pending)

    t0 = time.monotonic()
    while time.monotonic() - t0 < limit:
        _spin(0.05)
        if quiet():
            _spin(0.1)
            if quiet():
                return


def _pos(w, x: float, y: float):
    from PySide6.QtCore import QPoint

    p = w.panels["canvas"].view_to_widget(x, y)
    return QPoint(round(p.x()), round(p.y()))


def _counted(method, calls: list):
    def counted(*args):
        calls.append(args)
        return method(*args)

    return counted


def drag(window, seconds: float, rep: int = 0) -> dict:
    """One mouse drag of the point farthest on the + side along an arc, 60 moves a second, on the canvas viewport:
    finished boundaries shown per second, the share of moves served, UI-thread and other-thread CPU ms per
    boundary shown."""
    import threading

    from PySide6.QtCore import Qt
    from PySide6.QtTest import QTest

    w = window
    assert threading.main_thread() is threading.current_thread()  # time.thread_time() is the UI thread's
    X = w.scene.points.X
    i = int(np.argmax(X[:, 0] + 0.5 * X[:, 1])) if rep % 2 == 0 else int(np.argmin(X[:, 0] + 0.5 * X[:, 1]))
    x0, y0 = (float(v) for v in X[i])
    sign = 1.0 if rep % 2 == 0 else -1.0
    vp = w.panels["canvas"].plot.viewport()
    left, none = Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier
    for _attempt in range(3):  # the press must land on the point (a relayout may still have been under way)
        QTest.mouseMove(vp, _pos(w, x0, y0))
        _spin(0.02)
        QTest.mousePress(vp, left, none, _pos(w, x0, y0))
        _spin(0.02)
        QTest.mouseMove(vp, _pos(w, x0 - sign * 0.25, y0))  # past the drag distance: the drag starts
        t_start = time.monotonic()
        while not w.scene.dragging and time.monotonic() - t_start < 1:
            _spin(0.005)
        if w.scene.dragging:
            break
        QTest.mouseRelease(vp, left, none, _pos(w, x0 - sign * 0.25, y0))
        _settle(w, 5.0)
        x0, y0 = (float(v) for v in w.scene.points.X[i])
    moves = int(60 * seconds)
    # an arc towards the other class and back out: (x0, y0) → 0.6 to the side and 0.3 towards the boundary
    path = [(x0 - sign * 0.25 - sign * 0.6 * np.sin(np.pi * k / moves) - sign * 0.1 * k / moves,
             y0 + sign * 0.3 * (1 - np.cos(np.pi * k / moves))) for k in range(1, moves + 1)]
    _settle(w, 5.0)
    shown: list = []
    seen: set = set()

    def on_snap(snap):
        if snap.status.done and id(snap.decision) not in seen:
            seen.add(id(snap.decision))
            shown.append(time.monotonic())

    w.session.snapshotShown.connect(on_snap)
    heavy = [p for p in w.panels.values() if getattr(p, "defer_during_drag", False)]
    catch_ups = []
    for p in heavy:  # a heavy view's picture redone in the middle of the drag (it should wait for a pause)
        p.set_problem = _counted(p.set_problem, catch_ups)
    t0 = time.monotonic()
    ui0, cpu0 = time.thread_time(), time.process_time()
    sent, k = 0, -1
    while True:  # the path point of this moment: moves the UI was too busy to take are merged, as a mouse's are
        k_now = int((time.monotonic() - t0) * 60.0)
        if k_now >= moves:
            break
        if k_now > k:
            k = k_now
            QTest.mouseMove(vp, _pos(w, *path[k]))
            sent += 1
        _spin(max(0.0, t0 + (k + 1) / 60.0 - time.monotonic()))
    elapsed = time.monotonic() - t0
    ui, cpu = time.thread_time() - ui0, time.process_time() - cpu0
    w.session.snapshotShown.disconnect(on_snap)
    for p in heavy:
        del p.set_problem
    QTest.mouseRelease(vp, left, none, _pos(w, *path[k]))
    during = sum(1 for t in shown if t <= t0 + elapsed)
    moved = bool(np.allclose(w.scene.points.X[i], path[k], atol=0.1))
    _settle(w)
    per = 1000.0 / max(during, 1)
    return {"rate": during / elapsed, "served": during / max(sent, 1), "ui": ui * per, "other": (cpu - ui) * per,
            "moved": moved, "catch_ups": len(catch_ups)}


def measure(w, name: str, n: int, seconds: float, reps: int) -> dict | None:
    """R drags of `name` at n points: median and worst rate, median CPU per boundary (None: the points refused)."""
    from percviz.core.solvers import get_solver

    classes = 3 if get_solver(name).representation == "multiclass" else 2
    pts = _points(n, classes)
    try:
        steps = _updates(name, pts)
    except Exception as e:  # an algorithm refusing these points (e.g. needs other data)
        return {"error": str(e)}
    _setup(w, name, pts)
    runs = [drag(w, seconds, rep) for rep in range(reps)]
    w.session.pause()
    rates = [r["rate"] for r in runs]
    ui = statistics.median(r["ui"] for r in runs)
    other = statistics.median(r["other"] for r in runs)
    return {"steps": steps, "median": statistics.median(rates), "worst": min(rates),
            "served": statistics.median(r["served"] for r in runs), "ui": ui, "other": other,
            "cap": 1000.0 / max(ui, other, 1e-3), "moved": all(r["moved"] for r in runs),
            "catch_ups": sum(r["catch_ups"] for r in runs), "load": os.getloadavg()[0]}


HEADER = (f"{'algorithm':24s} {'n':>4s} {'updates':>8s} {'med/s':>6s} {'worst/s':>7s} {'served':>6s} "
          f"{'ui ms/b':>7s} {'oth ms/b':>8s} {'cap/s':>6s} {'load':>5s} {'c-ups':>5s}  target")


def row(name: str, n: int, m: dict) -> str:
    if "error" in m:
        return f"{name:24s} {n:4d}  skipped: {m['error']}"
    has_target = m["steps"] is not None
    mark = "–" if not has_target else ("ok" if m["worst"] >= TARGET else ("median ok" if m["median"] >= TARGET
                                                                              else "MISSED"))
    if not m["moved"]:
        mark += " (the point did not follow the mouse)"
    steps = m["steps"] if has_target else ">" + str(BUDGET)
    return (f"{name:24s} {n:4d} {steps:>8} {m['median']:6.1f} {m['worst']:7.1f} {m['served']:6.0%} "
            f"{m['ui']:7.1f} {m['other']:8.1f} {m['cap']:6.0f} {m['load']:5.1f} {m['catch_ups']:5d}  {mark}")


def _names(args) -> list[str]:
    from percviz.core.solvers import by_family

    names = [c.name for cs in by_family().values() for c in cs]
    if args.only:
        names = [n for n in names if n in args.only]
    return [n for n in names if n not in (args.skip or ())]


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, nargs="+", default=[50, 100, 200])
    ap.add_argument("--seconds", type=float, default=1.5)
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--only", nargs="*", default=None)
    ap.add_argument("--skip", nargs="*", default=["input-space-svm"],
                    help="algorithms left out (default input-space-svm: ~60 s a run)")
    ap.add_argument("--views", choices=("all", "canvas"), default="all",
                    help="all: every view the algorithm supports (the default window); canvas: canvas and curves only")
    ap.add_argument("--against", default=None, help="a source tree to compare with, side by side (see above)")
    args = ap.parse_args(argv)
    if args.against:
        return side_by_side(args)

    import tempfile

    os.environ.setdefault("PERCVIZ_CONFIG_DIR", tempfile.mkdtemp(prefix="percviz-bench-"))
    os.environ.setdefault("PERCVIZ_DATA_DIR", tempfile.mkdtemp(prefix="percviz-bench-"))
    from PySide6.QtWidgets import QApplication

    app = QApplication.instance() or QApplication(sys.argv)
    from percviz.app import dialogs
    from percviz.app.main_window import MainWindow
    dialogs.answer_with(dialogs.Answers())  # a script: nobody to ask (unsaved changes discarded)

    w = MainWindow()
    w.resize(1280, 800)
    w.show()
    from PySide6.QtTest import QTest

    QTest.qWaitForWindowExposed(w)
    if args.views == "canvas":
        for name in ("weight", "feature"):
            act = w.view_actions.get(name)
            if act is not None:
                act.setChecked(False)
    _spin(1.0)
    import percviz

    print(f"views: {args.views}; {args.reps} drags of {args.seconds:g} s per row; "
          f"percviz from {os.path.dirname(os.path.dirname(percviz.__file__))}")
    print(HEADER)
    missed = 0
    for n in args.n:
        for name in _names(args):
            m = measure(w, name, n, args.seconds, args.reps)
            missed += "error" not in m and m["steps"] is not None and m["worst"] < TARGET
            print(row(name, n, m), flush=True)
    w.close()
    app.processEvents()
    print(f"\n{missed} row(s) with a drag under {TARGET:g} boundaries/s among algorithms finishing within "
          f"{BUDGET:,} updates")
    return 0


def _one(tree: str, name: str, args) -> dict[int, list[str]]:
    """Every n of one algorithm: this script, in a fresh process importing percviz from `tree` (PYTHONPATH), so
    that both trees are measured by the same code. {n: the row's fields}."""
    import subprocess

    env = dict(os.environ, PYTHONPATH=tree)
    cmd = [sys.executable, os.path.abspath(__file__), "--n", *map(str, args.n), "--only", name,
           "--seconds", str(args.seconds), "--reps", str(args.reps), "--views", args.views, "--skip"]
    out = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=1800).stdout
    rows = {}
    for line in out.splitlines():
        parts = line.split()
        if parts and parts[0] == name and len(parts) >= 11 and parts[1].isdigit():
            rows[int(parts[1])] = parts
    return rows


def side_by_side(args) -> int:
    """Each algorithm alternately on the other tree and on this one (fresh processes, the same load)."""
    here = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    print(f"views: {args.views}; {args.reps} drags of {args.seconds:g} s per row; before = {args.against}, "
          f"after = {here}; b = a finished boundary shown during the drag")
    print(f"{'algorithm':24s} {'n':>4s} {'updates':>8s} {'med/s before→after':>19s} {'worst/s':>13s} "
          f"{'ui ms/b':>13s} {'oth ms/b':>13s} {'cap/s':>11s} {'load':>5s} {'c-ups':>7s}")
    for name in _names(args):
        before = _one(args.against, name, args)
        after = _one(here, name, args)
        for n in args.n:
            b, a = before.get(n, ["?"] * 11), after.get(n, ["?"] * 11)
            print(f"{name:24s} {n:4d} {a[2]:>8s} {b[3]:>8s}→{a[3]:<8s} {b[4]:>6s}→{a[4]:<6s} {b[6]:>6s}→{a[6]:<6s} "
                  f"{b[7]:>6s}→{a[7]:<6s} {b[8]:>4s}→{a[8]:<5s} {a[9]:>5s} {b[10]:>3s}→{a[10]:<3s}", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
