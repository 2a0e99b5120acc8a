"""Benchmark: F5, a theme change and a scale change on the real window, every view open (issue 25 point 4).

Run: QT_QPA_PLATFORM=offscreen python bench/bench_restyle.py [--n 84 500] [--repeats 3] [--compare /work/main]
The window at 1280×800 shows the canvas, curves, weight and feature views. n = 84 is thin-margin with the Gaussian
RBF kernel (the lecturer's scene), other n are two random Gaussian clouds. Each change is posted to the event loop
as a key or menu click would be; measured on the UI thread (time.thread_time, which machine load does not inflate):
  first     CPU from the change to the end of the first repaint of the window after it (target ≤ 250 ms);
  worst     the longest event-loop turn in the next 1.5 s, CPU (tests/app/gap_meter.py's heartbeat).
Medians over --repeats. --compare TREE runs the same measurement with TREE's percviz (e.g. main) and this tree's,
one after the other in this run, and prints them side by side.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "tests" / "app"))

CHANGES = ("F5 on", "dark", "light", "scale 3×", "scale 2×", "F5 off")


def _spin(seconds: float) -> None:
    from PySide6.QtCore import QEventLoop, QTimer

    loop = QEventLoop()
    QTimer.singleShot(int(seconds * 1000), loop.quit)
    loop.exec()


def _points(n: int):
    """thin-margin's 84 points at n = 84, else two random Gaussian clouds of n points."""
    import numpy as np

    from percviz.core.data import PointSet
    from percviz.core.presets import load_preset

    if n == 84:
        return load_preset(HERE.parent / "percviz" / "presets" / "thin-margin.json").points
    rng = np.random.default_rng(5)
    X = np.vstack([rng.normal((-1, 0.5), 0.7, (n // 2, 2)), rng.normal((1, -0.5), 0.7, (n - n // 2, 2))])
    return PointSet(X, np.repeat([0, 1], [n // 2, n - n // 2]))


class _FirstPaint:
    """The UI-thread CPU time at the end of the first repaint of `window` after `arm()`."""

    def __init__(self, app, window):
        from PySide6.QtCore import QObject

        outer = self

        class Filter(QObject):
            def eventFilter(self, obj, ev):  # noqa: N802 (Qt's name)
                if outer.armed and ev.type() == ev.Type.Paint and obj.isWidgetType() and obj.window() is window:
                    outer.armed = False
                    from PySide6.QtCore import QTimer

                    QTimer.singleShot(0, outer._done)  # after the whole backing-store pass
                return False

        self.armed, self.at = False, None
        self.filter = Filter()
        app.installEventFilter(self.filter)

    def arm(self) -> None:
        self.armed, self.at = True, None

    def _done(self) -> None:
        self.at = time.thread_time()


def measure(ns: list[int], repeats: int) -> dict:
    import numpy as np
    from PySide6.QtCore import QTimer
    from PySide6.QtWidgets import QApplication

    app = QApplication.instance() or QApplication([])
    from gap_meter import GapMeter

    from percviz.app.main_window import MainWindow

    try:  # a script: nobody to ask (unsaved changes discarded); trees before the dialog service discarded them offscreen
        from percviz.app import dialogs

        dialogs.answer_with(dialogs.Answers())
    except ImportError:
        pass
    out: dict = {}
    for n in ns:
        w = MainWindow()
        w.resize(1280, 800)
        w.show()
        w.scene.set_points(_points(n), undoable=False)
        w.scene.set_settings(algorithm="snkp", kernel="rbf:gamma=2")
        _spin(1.5)
        for name in ("weight", "feature", "curves"):
            if name in w.docks:
                w.docks[name].show()
        _spin(2.0)
        classroom = w.classroom
        do = {"F5 on": lambda: classroom.set_presentation(True), "F5 off": lambda: classroom.set_presentation(False),
              "dark": lambda: classroom.set_theme("dark"), "light": lambda: classroom.set_theme("light"),
              "scale 3×": lambda: classroom.set_presentation_scale(3.0),
              "scale 2×": lambda: classroom.set_presentation_scale(2.0)}
        first = _FirstPaint(app, w)
        meter = GapMeter()
        rows: dict[str, list] = {c: [] for c in CHANGES}
        for _ in range(repeats):
            for change in CHANGES:
                start = {}

                def fire(change=change, start=start):
                    first.arm()
                    start["t"] = time.thread_time()
                    do[change]()

                meter.walls, meter.cpus, meter.worst_wall, meter.worst_cpu = [], [], 0.0, 0.0
                meter.start()
                QTimer.singleShot(0, fire)
                _spin(1.5)
                meter.stop()
                t_first = 1e3 * ((first.at or float("nan")) - start["t"])
                rows[change].append((t_first, meter.worst_cpu))
        out[str(n)] = {c: [float(np.nanmedian([r[0] for r in v])), float(np.median([r[1] for r in v]))]
                       for c, v in rows.items()}
        app.removeEventFilter(first.filter)
        w.close()
        w.deleteLater()
        _spin(0.3)
    return out


def _child(tree: str, ns: list[int], repeats: int) -> dict:
    env = dict(os.environ, PYTHONPATH=tree, QT_QPA_PLATFORM="offscreen")
    cmd = [sys.executable, str(Path(__file__).resolve()), "--json", "--repeats", str(repeats), "--n", *map(str, ns)]
    res = subprocess.run(cmd, env=env, capture_output=True, text=True, check=True)
    return json.loads(res.stdout.strip().splitlines()[-1])


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, nargs="+", default=[84, 500])
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--compare", default="", help="another tree (e.g. /work/main): its figures beside this tree's")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    if args.json:
        print(json.dumps(measure(args.n, args.repeats)))
        return 0
    if not args.compare:
        res = measure(args.n, args.repeats)
        for n, rows in res.items():
            print(f"n = {n}: change, CPU to first repaint (ms), worst turn in 1.5 s (CPU ms)")
            for c, (a, b) in rows.items():
                print(f"  {c:9s} {a:6.0f} {b:6.0f}")
        return 0
    here = str(HERE.parent)
    before, after = _child(args.compare, args.n, args.repeats), _child(here, args.n, args.repeats)
    print(f"UI-thread CPU ms, median of {args.repeats}; before = {args.compare}, after = {here}")
    print("| n | change | first repaint before | after | worst turn before | after |")
    print("|---|---|---|---|---|---|")
    for n in before:
        for c in CHANGES:
            b, a = before[n][c], after[n][c]
            print(f"| {n} | {c} | {b[0]:.0f} | {a[0]:.0f} | {b[1]:.0f} | {a[1]:.0f} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
