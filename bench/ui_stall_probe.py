"""A probe of the UI thread's stalls: a 10 ms timer on the event loop, measured in wall time and in main-thread time.

`StallProbe` records, for every turn of the event loop between two ticks of its timer, the wall time and the
CPU time the UI thread itself spent (time.thread_time): a wall gap with little thread time is the UI thread
waiting (for the GIL held by another thread, or for a core on a loaded machine); a gap made of thread time is
work on the UI thread. A watchdog thread samples every thread's stack once per stall over `sample_ms`, so a
report names what ran (`stalls`). Used by bench/bench_scale_app.py.
"""

from __future__ import annotations

import sys
import threading
import time
import traceback
from dataclasses import dataclass, field


@dataclass
class Stall:
    wall_ms: float
    cpu_ms: float
    stacks: dict[str, list[str]] = field(default_factory=dict)


def _stack_lines(frame, depth: int = 6) -> list[str]:
    out = []
    for fs in traceback.extract_stack(frame)[-depth:]:
        out.append(f"{fs.filename.rsplit('/percviz/', 1)[-1].rsplit('site-packages/', 1)[-1]}:{fs.lineno} {fs.name}")
    return out


class StallProbe:
    """Ticks a QTimer every `period_ms` on the UI thread; `start()`/`stop()` bracket one action."""

    def __init__(self, period_ms: int = 10, sample_ms: float = 100.0):
        from PySide6.QtCore import QTimer

        self.period_ms, self.sample_ms = period_ms, sample_ms
        self._timer = QTimer()
        self._timer.setInterval(period_ms)
        self._timer.timeout.connect(self._tick)
        self.gaps: list[tuple[float, float]] = []  # (wall ms, UI-thread cpu ms) per tick
        self.stalls: list[Stall] = []
        self._last = (0.0, 0.0)
        self._main = threading.get_ident()
        self._stop = threading.Event()
        self._sampled_for = -1.0
        self._dog: threading.Thread | None = None

    def start(self) -> None:
        self.gaps, self.stalls = [], []
        self._last = (time.perf_counter(), time.thread_time())
        self._sampled_for = -1.0
        self._stop.clear()
        self._dog = threading.Thread(target=self._watch, daemon=True, name="stall-probe")
        self._dog.start()
        self._timer.start()

    def stop(self) -> dict:
        self._timer.stop()
        self._tick()
        self._stop.set()
        if self._dog is not None:
            self._dog.join()
        walls = sorted(g[0] for g in self.gaps) or [0.0]
        cpus = sorted(g[1] for g in self.gaps) or [0.0]
        return {"worst_wall_ms": walls[-1], "p95_wall_ms": walls[int(0.95 * (len(walls) - 1))],
                "worst_cpu_ms": cpus[-1], "ticks": len(self.gaps)}

    def _tick(self) -> None:
        now, cpu = time.perf_counter(), time.thread_time()
        wall_ms, cpu_ms = 1000 * (now - self._last[0]), 1000 * (cpu - self._last[1])
        self.gaps.append((wall_ms, cpu_ms))
        if wall_ms > self.sample_ms and self.stalls and self.stalls[-1].wall_ms < 0:
            self.stalls[-1].wall_ms, self.stalls[-1].cpu_ms = wall_ms, cpu_ms
        self._last = (now, cpu)

    def _watch(self) -> None:
        while not self._stop.wait(self.sample_ms / 4000):
            since = self._last[0]
            if time.perf_counter() - since > self.sample_ms / 1000 and since != self._sampled_for:
                self._sampled_for = since
                frames = sys._current_frames()
                stacks = {t.name: _stack_lines(frames[t.ident]) for t in threading.enumerate()
                          if t.ident in frames and t.ident != threading.get_ident()}
                self.stalls.append(Stall(-1.0, -1.0, stacks))

    def report(self, top: int = 3) -> str:
        """The longest stalls with the stacks sampled in them."""
        lines = []
        for s in sorted((s for s in self.stalls if s.wall_ms > 0), key=lambda s: -s.wall_ms)[:top]:
            lines.append(f"  stall {s.wall_ms:.0f} ms wall, {s.cpu_ms:.0f} ms UI-thread cpu")
            for name, st in s.stacks.items():
                if name.startswith(("MainThread", "percviz")):
                    lines.append(f"    [{name}] " + " <- ".join(reversed(st[-3:])))
        return "\n".join(lines)
