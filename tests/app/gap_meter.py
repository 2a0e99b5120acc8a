"""The UI thread's gaps, measured by a heartbeat: wall-clock and the thread's own CPU time per gap.

A 5 ms precise QTimer on the UI thread records, at every beat, `time.perf_counter()` and `time.thread_time()`.
A gap is the time between two beats: the longest event-loop turn (plus the beat). Its wall-clock length grows
when other processes take the CPU; its CPU length (the UI thread's own work, which other processes do not
lengthen) does not, so a bound on the CPU gap is load-robust. The CPU gap leaves out the time the UI thread
sleeps in a wait (a lock, the GIL, a join): those stalls show in the wall gap only.
"""

from __future__ import annotations

import time

from PySide6.QtCore import QObject, Qt, QTimer

BEAT_MS = 5


class GapMeter(QObject):
    """Worst wall and CPU gaps of the UI thread between `start()` and `stop()`; `label` names the gap's cause."""

    def __init__(self, parent: QObject | None = None, beat_ms: int = BEAT_MS):
        super().__init__(parent)
        self.label = ""
        self.walls: list[float] = []  # ms, every gap
        self.cpus: list[float] = []
        self.worst_wall = self.worst_cpu = 0.0
        self.worst_wall_label = self.worst_cpu_label = ""
        self.slow: list[tuple[float, float, str]] = []  # (CPU ms, wall ms, label) of every CPU gap over slow_ms
        self.slow_ms = 200.0
        self._last: tuple[float, float] | None = None
        self._timer = QTimer(self)
        self._timer.setObjectName("gap_beat")
        self._timer.setTimerType(Qt.TimerType.PreciseTimer)
        self._timer.setInterval(beat_ms)
        self._timer.timeout.connect(self.beat)

    def start(self) -> None:
        self._last = None
        self._timer.start()

    def stop(self) -> None:
        self.beat()
        self._timer.stop()
        self._last = None

    def beat(self) -> None:
        """One heartbeat (also callable by hand, e.g. at the end of a measured block)."""
        now = (time.perf_counter(), time.thread_time())
        if self._last is not None:
            wall, cpu = 1e3 * (now[0] - self._last[0]), 1e3 * (now[1] - self._last[1])
            self.walls.append(wall)
            self.cpus.append(cpu)
            if wall > self.worst_wall:
                self.worst_wall, self.worst_wall_label = wall, self.label
            if cpu > self.slow_ms:
                self.slow.append((cpu, wall, self.label))
            if cpu > self.worst_cpu:
                self.worst_cpu, self.worst_cpu_label = cpu, self.label
        self._last = now
