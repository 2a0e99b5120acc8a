"""Reproduce the soak's long wall-clock gaps directly: a scene like the soak's at its worst gap, one action, watched.

Run: QT_QPA_PLATFORM=offscreen python bench/repro_wall_gaps.py [--from perceptron] [--to nkp,snkp] [--state run]
[--kernel rbf:gamma=20] [--features rff:dim=5000,gamma=0.001,seed=0] [--n 120] [--repeat 3] [--action algorithm]
For each (from, to) pair: the window opens on `from`, the run is put in `--state` (idle, step, play, run), then
the algorithm combo is set to `to` in the event loop (or, with --action kernel/features/drag/reset/param, that
action is done). The longest UI gaps (wall and CPU, tests/app/gap_meter.py) of the next 3 s are printed, with what
bench/gap_watchdog.py saw in every gap over --after ms: the UI thread's time on a core / waiting for one / asleep,
the other threads' CPU, and the stacks of every thread.
"""

from __future__ import annotations

import argparse
import os
import sys

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(here, "..", "tests", "app"))
sys.path.insert(0, here)

import numpy as np  # noqa: E402
from PySide6.QtCore import QEventLoop, QTimer  # noqa: E402
from PySide6.QtWidgets import QApplication  # noqa: E402


def _spin(seconds: float) -> None:
    loop = QEventLoop()
    QTimer.singleShot(int(seconds * 1000), loop.quit)
    loop.exec()


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--from", dest="src", default="perceptron")
    ap.add_argument("--to", default="nkp")
    ap.add_argument("--state", default="play", choices=("idle", "step", "play", "run"))
    ap.add_argument("--kernel", default="rbf:gamma=20")
    ap.add_argument("--features", default="rff:dim=5000,gamma=0.001,seed=0")
    ap.add_argument("--n", type=int, default=120)
    ap.add_argument("--repeat", type=int, default=2)
    ap.add_argument("--after", type=float, default=150.0)
    ap.add_argument("--seconds", type=float, default=3.0)
    args = ap.parse_args()
    app = QApplication.instance() or QApplication([])
    from gap_meter import GapMeter
    from gap_watchdog import GapWatchdog

    from percviz.app.main_window import MainWindow
    from percviz.app.run.worker import live_threads
    from percviz.core.data import PointSet
    from percviz.core.scene import SceneModel, Settings

    rng = np.random.default_rng(7)
    n = args.n
    X = np.vstack([rng.normal((-1, 0.5), 0.9, (n // 2, 2)), rng.normal((1, -0.5), 0.9, (n - n // 2, 2))])
    meter = GapMeter()
    dog = GapWatchdog(meter, after_ms=args.after)
    print("load", " ".join(open("/proc/loadavg").read().split()[:3]))
    for src in args.src.split(","):
        for dst in args.to.split(","):
            for rep in range(args.repeat):
                scene = SceneModel(PointSet(X, np.repeat([0, 1], [n // 2, n - n // 2])),
                                   Settings(algorithm=src, kernel=args.kernel, features=args.features, max_iter=20000))
                w = MainWindow(scene, install_classroom=False)
                w.show()
                w.panels["canvas"].viewbox.setRange(xRange=(-3, 3), yRange=(-3, 3), padding=0)
                w.session.wait_idle(30)
                _spin(0.5)
                if args.state != "idle":
                    getattr(w, f"{args.state}_action").trigger()
                    _spin(0.3)
                combo = w.controls.algorithm
                index = {combo.itemData(i, 256): i for i in range(combo.count())}
                meter.walls, meter.cpus, meter.worst_wall, meter.worst_cpu = [], [], 0.0, 0.0
                dog.gaps = []
                meter.label = f"{src} -> {dst} ({args.state}) #{rep}"
                meter.start()
                dog.start()
                _spin(0.02)
                QTimer.singleShot(0, lambda i=index[dst]: combo.setCurrentIndex(i))
                _spin(args.seconds)
                meter.stop()
                dog.stop()
                print(f"{meter.label}: worst wall {meter.worst_wall:.0f} ms, worst CPU {meter.worst_cpu:.0f} ms, "
                      f"wall gaps > 250 ms {sum(g > 250 for g in meter.walls)}")
                for g in sorted(dog.gaps, key=lambda g: -g.wall_ms)[:3]:
                    print(g.summary(top=2))
                w.session.pause()
                w.close()
                app.processEvents()
                _spin(0.2)
    print("threads left", [t.name for t in live_threads()])
    return 0


if __name__ == "__main__":
    sys.exit(main())
