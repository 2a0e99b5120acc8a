"""The soak's UI-gap measure (tests/app/gap_meter.py): a UI thread busy 400 ms is caught in CPU time and in wall time."""

from __future__ import annotations

import time

from gap_meter import GapMeter
from PySide6.QtCore import QTimer


def _busy(seconds: float) -> None:
    t0 = time.thread_time()
    while time.thread_time() - t0 < seconds:
        pass


def test_a_400_ms_busy_wait_on_the_ui_thread_is_one_gap_of_at_least_400_ms_cpu(qtbot):
    meter = GapMeter()
    meter.label = "idle"
    meter.start()
    qtbot.wait(100)
    meter.label = "busy"
    QTimer.singleShot(0, lambda: _busy(0.4))
    qtbot.wait(600)
    meter.stop()
    assert meter.worst_cpu >= 390 and meter.worst_cpu_label == "busy"
    assert meter.worst_wall >= meter.worst_cpu - 5  # wall time is never shorter than the CPU time within it
    assert sorted(meter.cpus)[-2] < 100  # the other gaps are short: the busy turn is one gap, not spread


def test_sleeping_on_the_ui_thread_is_a_wall_gap_but_no_cpu_gap(qtbot):
    meter = GapMeter()
    meter.start()
    qtbot.wait(50)
    QTimer.singleShot(0, lambda: time.sleep(0.3))
    qtbot.wait(450)
    meter.stop()
    assert meter.worst_wall >= 290
    assert meter.worst_cpu < 100
