"""Garbage collections run on the UI thread only: a cycle a background thread drops is freed there.

A collection on a worker thread can run a Qt wrapper's destructor there, which deadlocked a race window's
run to end in the suite (the destructor held a Qt lock and waited for the GIL the UI thread held)."""

from __future__ import annotations

import gc
import threading

from percviz.app.run import heap
from percviz.app.run.background import BackgroundThread


class _Cycle:
    """An object in a reference cycle that records the thread its finalizer ran on."""

    def __init__(self, seen: list[str]):
        self.me, self.seen = self, seen

    def __del__(self):
        self.seen.append(threading.current_thread().name)


def test_cycles_dropped_on_a_worker_are_collected_on_the_ui_thread(qtbot):
    seen: list[str] = []

    def churn():
        for _ in range(20000):  # far past generation 0's threshold: Python alone would collect on this thread
            _Cycle(seen)
            [[] for _ in range(5)]

    worker = BackgroundThread(churn, "churn")
    worker.start()
    assert not gc.isenabled()  # starting background work handed collection to the UI thread's timer
    qtbot.waitUntil(lambda: not worker.is_alive(), timeout=20000)
    qtbot.waitUntil(lambda: len(seen) >= 20000, timeout=int(20 * 1000 * heap.COLLECT_INTERVAL_S))
    assert set(seen) == {"MainThread"}, {name: seen.count(name) for name in set(seen)}
