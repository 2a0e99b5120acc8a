"""Benchmark: a long GUI soak — 10,000 random actions on the real window with the solver running.

Run: QT_QPA_PLATFORM=offscreen python bench/bench_soak.py [--actions N] [--seed S] [--light] [--watch MS]
The actions (tests/app/soak_driver.py) are what a person does: clicks, drags, deletes, undo/redo, kernel,
φ-map (including rff:dim=5000 unless --light), algorithm and parameter changes, step/play/run/reset, scrubbing.
Reported: exceptions, snapshots of stale points drawn (must be 0), the worst UI gap and the action during it
(target ≤ 250 ms) in wall-clock time and in the UI thread's CPU time (tests/app/gap_meter.py: not lengthened by
other processes), gaps over 250 ms and 1 s, threads left, and the process's RSS (now and peak) every 500 actions.
--watch MS: bench/gap_watchdog.py samples every thread's stack in each gap longer than MS of wall time and tells
where its time went (UI thread on a core, waiting for one, asleep; other threads' CPU; the machine's load).
"""

from __future__ import annotations

import argparse
import os
import sys

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "app"))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import numpy as np  # noqa: E402
from PySide6.QtWidgets import QApplication  # noqa: E402


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--actions", type=int, default=10000)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--light", action="store_true", help="leave out the costliest φ-maps")
    ap.add_argument("--watch", type=float, default=0.0, help="watch gaps longer than this many ms (0: off)")
    args = ap.parse_args()
    print("load", " ".join(open("/proc/loadavg").read().split()[:3]), flush=True)
    app = QApplication.instance() or QApplication([])
    from soak_driver import Soak

    from percviz.app import dialogs
    from percviz.app.main_window import MainWindow
    dialogs.answer_with(dialogs.Answers())  # a script: nobody to ask (unsaved changes discarded)
    from percviz.app.run.worker import live_threads
    from percviz.core.data import PointSet
    from percviz.core.scene import SceneModel, Settings

    rng = np.random.default_rng(args.seed)
    X = np.vstack([rng.normal((-1, 0.5), 0.6, (15, 2)), rng.normal((1, -0.5), 0.6, (15, 2))])
    w = MainWindow(SceneModel(PointSet(X, np.repeat([0, 1], 15)), Settings(algorithm="perceptron", max_iter=20000)),
                   install_classroom=False)
    w.show()
    w.panels["canvas"].viewbox.setRange(xRange=(-3, 3), yRange=(-3, 3), padding=0)
    w.session.wait_idle()
    soak = Soak(w, seed=args.seed, heavy_maps=not args.light)
    soak.verbose = True
    dog = None
    if args.watch:
        from gap_watchdog import GapWatchdog

        dog = GapWatchdog(soak.meter, after_ms=args.watch)
        dog.live = True
        dog.start()
    r = soak.run(args.actions)
    if dog is not None:
        dog.stop()
    w.close()
    app.processEvents()
    g = np.array(r.gaps_ms or [0.0])
    c = np.array(r.cpu_gaps_ms or [0.0])
    print(f"GUI soak, {r.actions} actions in {r.seconds:.0f} s (seed {args.seed}{', light' if args.light else ''})")
    print(f"  exceptions {len(r.exceptions)}   stale snapshots drawn {r.stale} of {r.shown}   threads left "
          f"{len(live_threads())} {[t.name for t in live_threads()]}")
    print(f"  worst UI gap {r.worst_gap_ms:.0f} ms (during {r.worst_action}); p99 {np.percentile(g, 99):.0f} ms; "
          f"gaps > 250 ms: {int((g > 250).sum())}, > 1 s: {int((g > 1000).sum())}")
    print(f"  worst CPU gap {r.worst_cpu_gap_ms:.0f} ms (during {r.worst_cpu_action}); p99 {np.percentile(c, 99):.0f} ms; "
          f"CPU gaps > 250 ms: {int((c > 250).sum())}, > 1 s: {int((c > 1000).sum())}")
    print("  RSS now (MB) by action:", ", ".join(f"{i}: {mb:.0f}" for i, mb in r.rss_now_mb))
    print("  peak RSS (MB) by action:", ", ".join(f"{i}: {mb:.0f}" for i, mb in r.rss_mb))
    for cpu, wall, label in sorted(soak.meter.slow, reverse=True)[:12]:
        print(f"  CPU gap {cpu:.0f} ms ({wall:.0f} ms wall) during {label}")
    if dog is not None:
        print(f"  watched gaps (> {args.watch:.0f} ms wall): {len(dog.gaps)}")
        print(dog.report(top=20))
    print("load", " ".join(open("/proc/loadavg").read().split()[:3]))
    for e in r.exceptions[:10]:
        print("  exception:", e)
    return 0 if not r.exceptions and not r.stale else 1


if __name__ == "__main__":
    sys.exit(main())
