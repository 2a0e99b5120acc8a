"""A person at the window, at random: the actions of the GUI soak (tests/app/test_soak.py, bench/bench_soak.py).

`Soak(window, seed).run(actions)` drives the real main window like a person — clicks and drags on the canvas,
deletes, undo/redo, kernel, φ-map, algorithm and parameter changes, step/play/run/reset, history scrubbing —
with the solver thread running, and records what must never happen: an exception, a long UI stall, a snapshot
of other points than the scene's drawn on it. UI gaps are measured by a heartbeat (gap_meter.GapMeter): wall-clock
and the UI thread's own CPU time (the load-robust one: other processes do not lengthen it).
"""

from __future__ import annotations

import resource
import sys
import time
from dataclasses import dataclass, field

import numpy as np
from gap_meter import GapMeter
from helpers import canvas_pos
from PySide6.QtCore import QEventLoop, QPoint, Qt, QTimer
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication, QCheckBox, QComboBox, QLineEdit, QSlider, QWidget

from percviz.core.solvers import load_all

#: Kernels and φ-maps the soak picks from (the costliest ones allowed included: rff:dim=5000).
KERNELS = ("affine", "linear", "rbf:gamma=0.5", "rbf:gamma=20", "poly:degree=3", "laplacian:gamma=1")
PARAM_TEXTS = ("0.5", "1", "2", "1e-3", "10", "-1", "abc", "", "1e400", "3")
MAX_POINTS = 120


@dataclass
class SoakReport:
    actions: int = 0
    exceptions: list = field(default_factory=list)
    stale: int = 0
    shown: int = 0
    worst_gap_ms: float = 0.0  # wall-clock
    worst_action: str = ""
    worst_cpu_gap_ms: float = 0.0  # the UI thread's CPU time within one gap
    worst_cpu_action: str = ""
    gaps_ms: list = field(default_factory=list)  # every gap: wall-clock
    cpu_gaps_ms: list = field(default_factory=list)  # and CPU
    seconds: float = 0.0
    rss_mb: list = field(default_factory=list)  # (action index, max RSS in MB) every 500 actions
    rss_now_mb: list = field(default_factory=list)  # (action index, current RSS in MB) every 500 actions
    counts: dict = field(default_factory=dict)


def _spin(seconds: float) -> None:
    loop = QEventLoop()
    QTimer.singleShot(max(0, int(seconds * 1000)), loop.quit)
    loop.exec()


def _rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0


def _rss_now_mb() -> float:
    """The process's resident memory now (MB; Linux /proc, else the peak)."""
    try:
        with open("/proc/self/statm") as f:
            return int(f.read().split()[1]) * resource.getpagesize() / 2**20
    except OSError:
        return _rss_mb()


class Soak:
    """Random actions on a shown MainWindow; see the module docstring."""

    def __init__(self, window, seed: int = 0, pause_s: float = 0.01, heavy_maps: bool = True):
        """heavy_maps: also type in the costliest φ-maps allowed (rff:dim=5000, poly:degree=4)."""
        self.w, self.rng, self.pause_s, self.heavy_maps = window, np.random.default_rng(seed), pause_s, heavy_maps
        self.report = SoakReport()
        self.canvas = window.panels["canvas"]
        self.vp = self.canvas.plot.viewport()
        self.algorithms = sorted(load_all())
        self.meter = GapMeter()
        self.verbose = False  # print a progress line every 500 actions
        window.session.snapshotShown.connect(self._check_snapshot)

    @property
    def _action(self) -> str:
        return self.meter.label

    @_action.setter
    def _action(self, name: str) -> None:
        self.meter.label = name

    def _state(self) -> str:
        """The scene the action meets: algorithm, kernel, φ-map, number of points, Live."""
        st, live = self.w.scene.settings, self.w.findChild(QCheckBox, "live")
        on = "live" if live is not None and live.isChecked() else "not live"
        return f"{st.algorithm}, {st.kernel}, {st.features}, n={len(self.w.scene.points.X)}, {on}"

    # -- what is recorded ------------------------------------------------------------------------------------
    def _collect_gaps(self) -> None:
        m, r = self.meter, self.report
        r.worst_gap_ms, r.worst_action = m.worst_wall, m.worst_wall_label
        r.worst_cpu_gap_ms, r.worst_cpu_action = m.worst_cpu, m.worst_cpu_label
        r.gaps_ms, r.cpu_gaps_ms = m.walls, m.cpus

    def _check_snapshot(self, _snap) -> None:
        s = self.w.session
        self.report.shown += 1
        if s.problem is None or not np.array_equal(s.problem.X, self.w.scene.points.X):
            self.report.stale += 1

    def _excepthook(self, kind, value, tb) -> None:
        self.report.exceptions.append(f"{kind.__name__}: {value} (during {self._action})")
        self._old_hook(kind, value, tb)

    # -- the run --------------------------------------------------------------------------------------------------
    def run(self, actions: int, time_limit_s: float = 1e9) -> SoakReport:
        self._old_hook, sys.excepthook = sys.excepthook, self._excepthook
        t0 = time.perf_counter()
        self.meter.start()
        try:
            for i in range(actions):
                if time.perf_counter() - t0 > time_limit_s:
                    break
                name = self._choose()
                self._action = f"{name} [{self._state()}]"
                self.report.counts[name] = self.report.counts.get(name, 0) + 1
                getattr(self, "_do_" + name)()
                self.report.actions += 1  # the action's own handling counts in the gaps: it is the UI's work
                _spin(self.pause_s)
                if i % 500 == 0:
                    self.report.rss_mb.append((i, round(_rss_mb(), 1)))
                    self.report.rss_now_mb.append((i, round(_rss_now_mb(), 1)))
                    if self.verbose:
                        m = self.meter
                        print(f"  {i} actions, {time.perf_counter() - t0:.0f} s: RSS {self.report.rss_now_mb[-1][1]} MB, "
                              f"worst gap {m.worst_wall:.0f} ms wall, {m.worst_cpu:.0f} ms CPU, "
                              f"{len(self.report.exceptions)} exceptions, {self.report.stale} stale", flush=True)
        finally:
            self.meter.stop()
            self._collect_gaps()
            sys.excepthook = self._old_hook
            self.w.session.pause()
        self.report.rss_mb.append((self.report.actions, round(_rss_mb(), 1)))
        self.report.rss_now_mb.append((self.report.actions, round(_rss_now_mb(), 1)))
        self.report.seconds = time.perf_counter() - t0
        return self.report

    WEIGHTS = {"click": 10, "drag": 8, "delete": 3, "undo": 4, "redo": 2, "kernel": 3, "features": 2,
               "algorithm": 4, "param": 4, "step": 6, "play": 5, "run": 3, "reset": 3, "scrub": 5, "speed": 2,
               "wait": 2}

    def _choose(self) -> str:
        names = list(self.WEIGHTS)
        p = np.array([self.WEIGHTS[n] for n in names], dtype=float)
        if self.w.scene.n >= MAX_POINTS:
            p[names.index("click")] = 0
        return str(self.rng.choice(names, p=p / p.sum()))

    # -- helpers ------------------------------------------------------------------------------------------------
    def _pos(self, x: float, y: float) -> QPoint:
        return canvas_pos(self.canvas, x, y)

    def _random_xy(self) -> tuple[float, float]:
        (x0, x1), (y0, y1) = self.canvas.viewbox.viewRange()
        return float(self.rng.uniform(x0 + 0.1 * (x1 - x0), x1 - 0.1 * (x1 - x0))), \
            float(self.rng.uniform(y0 + 0.1 * (y1 - y0), y1 - 0.1 * (y1 - y0)))

    def _a_point(self) -> tuple[float, float] | None:
        n = self.w.scene.n
        if n == 0:
            return None
        x, y = self.w.scene.points.X[int(self.rng.integers(n))]
        (x0, x1), (y0, y1) = self.canvas.viewbox.viewRange()
        return (float(x), float(y)) if x0 < x < x1 and y0 < y < y1 else None

    def _widget(self, name: str) -> QWidget | None:
        for w in self.w.findChildren(QWidget):
            if w.accessibleName() == name and w.isVisible() and w.isEnabled():
                return w
        return None

    def _pick(self, combo: QComboBox, wanted=None) -> None:
        items = [i for i in range(combo.count()) if combo.itemData(i, Qt.ItemDataRole.UserRole) is not None
                 and (wanted is None or combo.itemData(i, Qt.ItemDataRole.UserRole) in wanted)]
        if items:
            combo.setCurrentIndex(int(self.rng.choice(items)))

    # -- the actions -------------------------------------------------------------------------------------------
    def _do_click(self) -> None:
        button = Qt.MouseButton.LeftButton if self.rng.random() < 0.55 else Qt.MouseButton.RightButton
        QTest.mouseClick(self.vp, button, Qt.KeyboardModifier.NoModifier, self._pos(*self._random_xy()))

    def _do_drag(self) -> None:
        start = self._a_point()
        if start is None:
            return
        end = self._random_xy()
        QTest.mousePress(self.vp, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier, self._pos(*start))
        for t in np.linspace(0.1, 1.0, int(self.rng.integers(3, 8))):
            QTest.mouseMove(self.vp, self._pos(start[0] + t * (end[0] - start[0]), start[1] + t * (end[1] - start[1])))
            QApplication.processEvents()
        QTest.mouseRelease(self.vp, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier, self._pos(*end))

    def _do_delete(self) -> None:
        p = self._a_point()
        if p is not None:
            QTest.mouseClick(self.vp, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.ControlModifier, self._pos(*p))

    def _do_undo(self) -> None:
        self.w.undo_action.trigger()

    def _do_redo(self) -> None:
        self.w.redo_action.trigger()

    def _do_kernel(self) -> None:
        combo = self._widget("kernel")
        if isinstance(combo, QComboBox):
            self._pick(combo)
        else:
            self.w.scene.set_settings(kernel=str(self.rng.choice(KERNELS)))

    def _do_features(self) -> None:
        if self.heavy_maps and self.rng.random() < 0.2:
            spec = "rff:dim=5000" if self.rng.random() < 0.5 else "poly:degree=4"
            self.w.scene.set_settings(features=spec)  # the costliest maps a person can type in
            return
        combo = self._widget("features")
        if isinstance(combo, QComboBox):
            self._pick(combo)

    def _do_algorithm(self) -> None:
        combo = self._widget("algorithm")
        if isinstance(combo, QComboBox):
            self._pick(combo, self.algorithms)

    def _do_param(self) -> None:
        edits = [w for w in self.w.findChildren(QLineEdit) if w.accessibleName().startswith("param:") and w.isVisible()]
        if not edits:
            return
        edit = edits[int(self.rng.integers(len(edits)))]
        edit.setFocus()
        edit.selectAll()
        QTest.keyClicks(edit, str(self.rng.choice(PARAM_TEXTS)))
        QTest.keyClick(edit, Qt.Key.Key_Return)

    def _do_step(self) -> None:
        self.w.step_action.trigger()

    def _do_play(self) -> None:
        self.w.play_action.trigger()

    def _do_run(self) -> None:
        self.w.run_action.trigger()

    def _do_reset(self) -> None:
        self.w.reset_action.trigger()

    def _do_scrub(self) -> None:
        slider = self._widget("history")
        if isinstance(slider, QSlider) and slider.maximum() > 0 and self.rng.random() < 0.5:
            slider.setValue(int(self.rng.integers(slider.minimum(), slider.maximum() + 1)))
        else:
            (self.w.back_action if self.rng.random() < 0.6 else self.w.forward_action).trigger()

    def _do_speed(self) -> None:
        slider = self._widget("speed")
        if isinstance(slider, QSlider):
            slider.setValue(int(self.rng.integers(slider.minimum(), slider.maximum() + 1)))

    def _do_wait(self) -> None:
        _spin(float(self.rng.uniform(0.05, 0.2)))
