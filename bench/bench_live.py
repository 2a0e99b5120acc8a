"""Benchmark: Live mode — final-boundary updates per second while a point is dragged, for every algorithm.

Run: QT_QPA_PLATFORM=offscreen python bench/bench_live.py [--n 100 200] [--seconds S] [--only NAME ...]
     ... --against OLD_TREE: side by side, each algorithm alternately in a fresh process of this script importing
     percviz from OLD_TREE (a source checkout, e.g. `git archive main | tar -x -C /tmp/old`) and from this tree,
     so that both see the same load and the same measuring code
For each registered algorithm, on n random points (two separable classes; three for the multi-class ones) the
real main window with Live on drags one point along a line at 60 mouse moves per second for S seconds (scene
edits as the canvas makes them: begin_drag, move_point per move, end_drag; the window's own event loop runs in
between). Reported per algorithm: how many updates its run takes (a headless run first; only algorithms that
finish within 20,000 updates have a target), the finished boundaries shown per second during the drag
(target ≥ 20/s at n ≤ 200), the fraction of moves that got their own finished boundary, and the CPU time per
boundary shown: of the UI thread, and of the whole process (UI, worker, solver threads). On a shared machine the
rate follows the load; the CPU times per boundary much less, so compare those (and the rates) side by side.
"""

from __future__ import annotations

import argparse
import os
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


def drag(window, name: str, points, seconds: float) -> tuple[float, float, float, float]:
    """(finished boundaries shown per second, fraction of moves with their own finished boundary, UI-thread CPU ms
    and whole-process CPU ms (UI, worker and solver threads) per boundary shown)."""
    from percviz.core.solvers import get_solver

    cls = get_solver(name)
    kernel = "rbf:gamma=0.5" if cls.representation == "kernel" else "affine"
    w = window
    with w.session.batch():
        w.scene.set_points(points, undoable=False)
        w.scene.set_settings(algorithm=name, kernel=kernel, features="linear", params={}, max_iter=BUDGET)
    w.classroom.live.set_on(True)
    t0 = time.monotonic()
    while not w.session.finished and time.monotonic() - t0 < 10:
        _spin(0.01)
    shown: list = []
    seen: set = set()

    def on_snap(snap):
        if snap.status.done and id(snap.decision) not in seen:
            seen.add(id(snap.decision))
            shown.append(time.monotonic())

    w.session.snapshotShown.connect(on_snap)
    i = int(np.argmax(points.X[:, 0]))
    x0, y0 = points.X[i]
    moves = int(60 * seconds)
    w.scene.begin_drag()
    t0 = time.monotonic()
    ui0, cpu0 = time.thread_time(), time.process_time()
    for k in range(moves):
        w.scene.move_point(i, x0 - 0.5 * k / moves, y0 + 0.2 * k / moves)
        target = t0 + (k + 1) / 60.0
        _spin(max(0.0, target - time.monotonic()))
    elapsed = time.monotonic() - t0
    ui, cpu = time.thread_time() - ui0, time.process_time() - cpu0
    w.scene.end_drag()
    during = sum(1 for t in shown if t <= t0 + elapsed)
    w.session.snapshotShown.disconnect(on_snap)
    w.session.pause()
    per = 1000.0 / max(during, 1)
    return during / elapsed, during / moves, ui * per, cpu * per


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, nargs="+", default=[100, 200])
    ap.add_argument("--seconds", type=float, default=2.0)
    ap.add_argument("--only", nargs="*", default=None)
    ap.add_argument("--skip", nargs="*", default=None, help="algorithms left out (e.g. input-space-svm: ~60 s a run)")
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
    from percviz.app.main_window import MainWindow
    from percviz.core.solvers import by_family

    names = [c.name for cs in by_family().values() for c in cs]
    if args.only:
        names = [n for n in names if n in args.only]
    names = [n for n in names if n not in (args.skip or ())]
    w = MainWindow()
    w.resize(1280, 800)
    w.show()
    if args.views == "canvas":
        for name in ("weight", "feature"):
            act = w.view_actions.get(name)
            if act is not None:
                act.setChecked(False)
    _spin(0.3)
    import percviz

    print(f"views: {args.views}; percviz from {os.path.dirname(os.path.dirname(percviz.__file__))}")
    print(f"{'algorithm':28s} {'n':>4s} {'updates':>8s} {'boundaries/s':>13s} {'moves served':>13s} "
          f"{'ui ms/b':>8s} {'cpu ms/b':>9s}  target")
    failed = 0
    for n in args.n:
        for name in names:
            from percviz.core.solvers import get_solver

            classes = 3 if get_solver(name).representation == "multiclass" else 2
            pts = _points(n, classes)
            try:
                steps = _updates(name, pts)
            except Exception as e:  # an algorithm refusing these points (e.g. needs other data)
                print(f"{name:28s} {n:4d}  skipped: {e}")
                continue
            rate, served, ui_ms, cpu_ms = drag(w, name, pts, args.seconds)
            has_target = steps is not None
            ok = rate >= TARGET if has_target else None
            failed += ok is False
            mark = "–" if ok is None else ("ok" if ok else "MISSED")
            print(f"{name:28s} {n:4d} {steps if steps is not None else '>' + str(BUDGET):>8} {rate:13.1f} "
                  f"{served:13.0%} {ui_ms:8.1f} {cpu_ms:9.1f}  {mark}", flush=True)
    w.close()
    app.processEvents()
    print(f"\n{failed} algorithm(s) under {TARGET:g} boundaries/s among those finishing within {BUDGET:,} updates")
    return 0


def _one(tree: str, name: str, n: int, args) -> tuple[str, ...]:
    """(updates, boundaries/s, UI ms/boundary, CPU ms/boundary) of one algorithm: this script, in a fresh process
    importing percviz from `tree` (PYTHONPATH), so that both trees are measured by the same code."""
    import subprocess

    env = dict(os.environ, PYTHONPATH=tree)
    cmd = [sys.executable, os.path.abspath(__file__), "--n", str(n), "--only", name,
           "--seconds", str(args.seconds), "--views", args.views]
    out = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=900).stdout
    for line in out.splitlines():
        parts = line.split()
        if parts and parts[0] == name and len(parts) >= 7 and parts[1] == str(n):
            return parts[2], parts[3], parts[5], parts[6]
    return "?", "?", "?", "?"


def side_by_side(args) -> int:
    """Each algorithm alternately on the other tree and on this one (fresh processes, the same load)."""
    from percviz.core.solvers import by_family

    here = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    names = [c.name for cs in by_family().values() for c in cs]
    if args.only:
        names = [n for n in names if n in args.only]
    names = [n for n in names if n not in (args.skip or ())]
    print(f"views: {args.views}; before = {args.against}, after = {here}; b = boundary shown during the drag")
    print(f"{'algorithm':24s} {'n':>4s} {'updates':>8s} {'before/s':>9s} {'after/s':>8s} {'ui ms/b':>13s} "
          f"{'cpu ms/b':>13s} {'load':>5s}")
    for n in args.n:
        for name in names:
            steps, rate0, ui0, cpu0 = _one(args.against, name, n, args)
            _, rate1, ui1, cpu1 = _one(here, name, n, args)
            load = os.getloadavg()[0]
            print(f"{name:24s} {n:4d} {steps:>8s} {rate0:>9s} {rate1:>8s} {ui0:>6s}→{ui1:<6s} {cpu0:>6s}→{cpu1:<6s} "
                  f"{load:5.1f}", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
