"""Benchmark: the UI gap of an algorithm change (the combo box `algorithm`) on the real window, every view open.

Run: QT_QPA_PLATFORM=offscreen python bench/bench_algorithm_change.py [--n 500] [--changes 40] [--profile]
[--features rff:dim=5000]
n random points (two classes), the default window with every dock the algorithms declare; the combo box is set
to a random two-class algorithm `--changes` times, 1.2 s apart. For each change the longest event-loop turn
within the following second is measured by a 5 ms heartbeat (tests/app/gap_meter.py): wall-clock and the UI
thread's CPU time. Reported: median and worst of both (target: well under 250 ms), by algorithm pair.
--profile: cProfile of the changes, top functions by cumulative time.
"""

from __future__ import annotations

import argparse
import os
import sys

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "app"))

import numpy as np  # noqa: E402
from PySide6.QtCore import QEventLoop, QTimer  # noqa: E402
from PySide6.QtWidgets import QApplication  # noqa: E402


def _spin(seconds: float) -> None:
    loop = QEventLoop()
    QTimer.singleShot(int(seconds * 1000), loop.quit)
    loop.exec()


class _TurnApp(QApplication):
    """Times every top-level event dispatch (UI-thread CPU); a heartbeat gap over threshold_ms is printed with
    the dispatches inside it and each one's costliest percviz functions."""

    threshold_ms = 50.0
    profile = True
    _depth = 0
    _log: list = []

    def notify(self, receiver, event):
        if self._depth:
            self._depth += 1
            try:
                return super().notify(receiver, event)
            finally:
                self._depth -= 1
        import cProfile
        import time

        beat = getattr(receiver, "objectName", lambda: "")() == "gap_beat"
        if beat:
            self._flush()
        prof = cProfile.Profile(time.thread_time) if self.profile else None  # UI-thread CPU: load left out
        self._depth = 1
        t0 = time.thread_time()
        if prof is not None:
            prof.enable()
        try:
            return super().notify(receiver, event)
        finally:
            if prof is not None:
                prof.disable()
            self._depth = 0
            dt = 1e3 * (time.thread_time() - t0)
            if dt > 3 and not beat:
                name = type(receiver).__name__ + ":" + getattr(receiver, "objectName", lambda: "")()
                self._log.append((dt, f"{event.type()} to {name}", prof))

    def _flush(self) -> None:
        import io
        import pstats

        total = sum(d for d, _, _ in self._log)
        if total > self.threshold_ms:
            print(f"=== gap with {total:.0f} ms of dispatches")
            for dt, what, prof in self._log:
                if prof is None:
                    print(f"  {dt:.0f} ms {what}")
                    continue
                out = io.StringIO()
                st = pstats.Stats(prof, stream=out)
                rows = sorted(((v[3], k) for k, v in st.stats.items() if "percviz" in k[0] or "pyqtgraph" in k[0]),
                              reverse=True)[:6]
                print(f"  {dt:.0f} ms {what}: " + "; ".join(f"{k[0].split('/')[-1]}:{k[2]} {1e3 * c:.0f}"
                                                         for c, k in rows))
        self._log = []


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, default=500)
    ap.add_argument("--changes", type=int, default=40)
    ap.add_argument("--seed", type=int, default=3)
    ap.add_argument("--profile", action="store_true")
    ap.add_argument("--turns", type=float, default=0.0, help="print each event-loop turn over this many CPU ms, profiled")
    ap.add_argument("--plain", action="store_true", help="with --turns: times only, no profile")
    ap.add_argument("--between", default="", help="A,B: change back and forth between two algorithms only")
    ap.add_argument("--features", default="linear", help="the φ-map, e.g. rff:dim=5000 (then only φ-map algorithms)")
    args = ap.parse_args()
    app = QApplication.instance() or (_TurnApp([]) if args.turns else QApplication([]))
    if args.turns:
        app.threshold_ms, app.profile = args.turns, not args.plain
    from gap_meter import GapMeter

    from percviz.app.main_window import MainWindow
    from percviz.core.data import PointSet
    from percviz.core.scene import SceneModel, Settings
    from percviz.core.solvers import load_all

    rng = np.random.default_rng(args.seed)
    n = args.n
    X = np.vstack([rng.normal((-1, 0.5), 0.7, (n // 2, 2)), rng.normal((1, -0.5), 0.7, (n - n // 2, 2))])
    scene = SceneModel(PointSet(X, np.repeat([0, 1], [n // 2, n - n // 2])),
                       Settings(algorithm="perceptron", features=args.features))
    w = MainWindow(scene, install_classroom=False)
    w.show()
    w.panels["canvas"].viewbox.setRange(xRange=(-3, 3), yRange=(-3, 3), padding=0)
    _spin(1.0)
    combo = w.controls.algorithm
    two_class = [a for a, c in sorted(load_all().items()) if c.representation != "multiclass"
                 and (args.features == "linear" or c.representation == "features")]
    index = {combo.itemData(i, 256): i for i in range(combo.count())}
    meter = GapMeter()
    prof = None
    if args.profile:
        import cProfile

        prof = cProfile.Profile()
    rows = []
    current = scene.settings.algorithm
    for _ in range(args.changes):
        pair = args.between.split(",") if args.between else None
        algo = (pair[1] if current == pair[0] else pair[0]) if pair else str(rng.choice([a for a in two_class if a != current]))
        meter.walls, meter.cpus, meter.worst_wall, meter.worst_cpu = [], [], 0.0, 0.0
        meter.start()
        _spin(0.02)
        if prof is not None:
            prof.enable()
        QTimer.singleShot(0, lambda i=index[algo]: combo.setCurrentIndex(i))  # in the event loop, as a click is
        _spin(1.0)
        if prof is not None:
            prof.disable()
        meter.stop()
        w.session.pause()
        rows.append((current, algo, meter.worst_wall, meter.worst_cpu))
        current = algo
        _spin(0.2)
    w.close()
    app.processEvents()
    walls = np.array([r[2] for r in rows])
    cpus = np.array([r[3] for r in rows])
    print(f"algorithm change, n = {n}, {len(rows)} changes, every view open, features {args.features}")
    print(f"  worst turn, wall: median {np.median(walls):.0f} ms, worst {walls.max():.0f} ms")
    print(f"  worst turn, CPU:  median {np.median(cpus):.0f} ms, worst {cpus.max():.0f} ms")
    for a, b, wall, cpu in sorted(rows, key=lambda r: -r[2])[:6]:
        print(f"    {a} → {b}: wall {wall:.0f} ms, CPU {cpu:.0f} ms")
    if prof is not None:
        import pstats

        pstats.Stats(prof).sort_stats("cumulative").print_stats(45)
    return 0


if __name__ == "__main__":
    sys.exit(main())
