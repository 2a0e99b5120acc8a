"""Benchmark: the whole window — UI stall while a fast solver animates, and time from launch to a shown window.

Run: QT_QPA_PLATFORM=offscreen python bench/bench_app.py [--seconds S]
  stall     n = 2000 random (non-separable) points, the Perceptron running as fast as possible on the worker
            thread, the real main window drawing the snapshots in its own event loop; a 10 ms QTimer on the
            UI thread records when it fires. Reported: the worst gap between two ticks and the 95th
            percentile (target: no stall over 50 ms), the frames delivered per second, and the solver's
            updates per second. Measured three times: Run to end with canvas + curves only, Run to end
            with every dock the algorithm supports (the default window), and Play at the fastest speed
            with every dock.
  restart   n = 2000 points: time of one `session.restart()` on the UI thread (an edit's cost: new Problem,
            solver, and every shown panel's set_problem), for a weight-space and two kernel algorithms.
  launch    a fresh interpreter: from process start to the window shown on the default scene (target < 2 s).
Redraw times of the canvas alone are in bench/bench_canvas.py.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "app"))

import numpy as np  # noqa: E402


def stall(n: int = 2000, seconds: float = 3.0, docks: bool = False, play: bool = False) -> dict:
    """Run the perceptron on n points for `seconds` and measure the UI thread's timer gaps.

    play: Play at the fastest speed (an animation to watch: up to 60 frames/s) instead of Run to end
    (the solver first: about 12 frames/s)."""
    from helpers import TickLog, spin
    from PySide6.QtWidgets import QApplication

    from percviz.app.main_window import MainWindow
    from percviz.core.data import PointSet
    from percviz.core.scene import SceneModel, Settings

    app = QApplication.instance() or QApplication([])
    rng = np.random.default_rng(1)
    scene = SceneModel(PointSet(rng.normal(0, 1, (10, 2)), np.r_[np.zeros(5, int), np.ones(5, int)]),
                       Settings(algorithm="perceptron", max_iter=10**8))
    w = MainWindow(scene, install_classroom=False)
    w.show()
    app.processEvents()
    if not docks:
        for name in ("weight", "feature"):
            if name in w.view_actions:
                w.view_actions[name].setChecked(False)
    scene.set_points(PointSet(rng.normal(0, 1, (n, 2)), rng.integers(0, 2, n)))
    w.session.wait_idle(60)
    spin(0.6)  # a user's click on Run comes later than this after the last edit (the heap is settled by then)
    frames = [0]
    w.session.snapshotShown.connect(lambda _s: frames.__setitem__(0, frames[0] + 1))
    ticks = TickLog()
    ticks.start()
    if play:
        w.session.set_speed(0)
        w.session.play()
    else:
        w.session.run_to_end()
    spin(seconds)
    ticks.stop()
    updates = w.session.latest.iteration
    shown = [name for name in w.panels if w._live(name)]
    w.close()
    gaps = ticks.gaps()
    return {
        "mode": "play" if play else "run",
        "panels": "+".join(shown),
        "worst_gap_ms": float(gaps.max()),
        "p95_gap_ms": float(np.percentile(gaps, 95)),
        "ticks": len(ticks.ticks),
        "frames_per_s": frames[0] / seconds,
        "updates_per_s": updates / seconds,
        "frame_cost_ms": 1e3 * w.session.frames.frame_cost,
    }


def restart_cost(n: int = 2000, algorithms=("perceptron", "kernel-perceptron", "nkp"), kernel: str = "rbf") -> dict:
    """Median time (ms) of session.restart() on the UI thread with every supported dock shown."""
    from PySide6.QtWidgets import QApplication

    from percviz.app.main_window import MainWindow
    from percviz.core.data import PointSet
    from percviz.core.scene import SceneModel, Settings

    app = QApplication.instance() or QApplication([])
    rng = np.random.default_rng(2)
    scene = SceneModel(PointSet(rng.normal(0, 1, (n, 2)), rng.integers(0, 2, n)),
                       Settings(algorithm=algorithms[0], kernel=kernel))
    w = MainWindow(scene, install_classroom=False)
    w.show()
    app.processEvents()
    out = {}
    for algo in algorithms:
        scene.set_settings(algorithm=algo)
        w.session.wait_idle(60)
        costs = []
        for _ in range(3):
            t0 = time.perf_counter()
            w.session.restart()
            costs.append(1e3 * (time.perf_counter() - t0))
            app.processEvents()
            w.session.wait_idle(60)
        out[algo] = float(np.median(costs))
    w.close()
    return out


_LAUNCH = (
    "import time, sys; t0 = float(sys.argv[1]);"
    "from PySide6.QtWidgets import QApplication;"
    "from percviz.app.launch import build_window, _application;"
    "app = _application(); w = build_window(None, app); w.show(); app.processEvents();"
    "print(time.time() - t0); w.shutdown()"
)


def launch_time(repeats: int = 3) -> list[float]:
    """Seconds from starting a fresh interpreter to the window shown (offscreen)."""
    out = []
    for _ in range(repeats):
        t0 = time.time()
        r = subprocess.run([sys.executable, "-c", _LAUNCH, repr(t0)], capture_output=True, text=True, check=True)
        out.append(float(r.stdout.strip().splitlines()[-1]))
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seconds", type=float, default=3.0)
    ap.add_argument("--n", type=int, default=2000)
    a = ap.parse_args()
    print(f"UI stall while the Perceptron runs as fast as possible, n = {a.n} (target: worst gap ≤ 50 ms)")
    for play, docks in ((False, False), (False, True), (True, True)):
        r = stall(a.n, a.seconds, docks, play)
        print(f"  {r['mode']:<4} {r['panels']:<28} worst gap {r['worst_gap_ms']:6.0f} ms   p95 {r['p95_gap_ms']:5.0f} ms   "
              f"{r['frames_per_s']:5.1f} frames/s   frame cost {r['frame_cost_ms']:5.1f} ms   "
              f"{r['updates_per_s']:8.0f} updates/s")
    r = restart_cost(a.n)
    print(f"Restart on the UI thread, n = {a.n}, RBF kernel, all docks: "
          + ", ".join(f"{k} {v:.0f} ms" for k, v in r.items()))
    ts = launch_time()
    print(f"Launch to shown window (default scene, fresh interpreter): median {np.median(ts):.2f} s "
          f"(runs: {', '.join(f'{t:.2f}' for t in ts)}; target < 2 s)")


if __name__ == "__main__":
    main()
