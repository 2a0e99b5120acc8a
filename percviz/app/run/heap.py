"""Keep Python's full garbage collections out of animations: settle the heap while the run is idle.

A full (generation 2) collection walks every tracked object. Once the window is built that is some
100,000 objects (Qt wrappers, pyqtgraph, modules) and one pass holds the GIL for 20–60 ms: whichever
thread triggers it, the UI thread stalls (bench/bench_app.py). `settle()` collects once and then moves
the survivors to the permanent generation (`gc.freeze`), so that the collections during a run only walk
what the run created. A settle collects only what is not frozen yet (milliseconds). It walks the frozen
objects too (unfreezing first) only once their number has grown by FULL_GROWTH since the last such walk, so
that frozen objects that died in cycles since cannot pile up, while the walks stay proportional to the growth:
in a process that holds far more than the window (a notebook, a test suite: 250,000 objects, one walk 0.25 s)
a fixed "every k-th settle" walked them all again and again mid-use (CI's soak).

Collections happen on the UI thread only (`collect_on_ui_thread`): a collection that a background thread
triggers can free a Qt wrapper there, and its C++ destructor then waits for the GIL while holding a Qt lock that
the UI thread, holding the GIL, waits for (a race window's run to end deadlocked the test suite that way).
"""

from __future__ import annotations

import gc
import time
from percviz.app.timing import COLLECT_INTERVAL_S


#: A settle is skipped while fewer objects than this have gathered outside the frozen set since the last one.
MIN_NEW_OBJECTS = 5000
#: A settle walks everything once the frozen set has grown by this factor since the last walk of everything.
FULL_GROWTH = 1.5
_frozen_at_full_walk = 0  # gc.get_freeze_count() right after the last walk of everything (0: none yet)
_collector = None


def collect_on_ui_thread() -> None:
    """Turn automatic collection off and collect on a UI-thread timer instead (once per process; a no-op off
    the main thread or before the QApplication exists). pyqtgraph's GarbageCollector does exactly this."""
    global _collector
    import threading

    from PySide6.QtCore import QCoreApplication

    if _collector is not None or threading.current_thread() is not threading.main_thread():
        return
    if QCoreApplication.instance() is None:
        return
    from pyqtgraph.util.garbage_collector import GarbageCollector

    _collector = GarbageCollector(interval=COLLECT_INTERVAL_S)


def settle(force: bool = False) -> float:
    """Collect what is not frozen (everything when forced or when the frozen set grew by FULL_GROWTH), then
    freeze the survivors out of later collections; returns the seconds it took.

    Skipped (0.0) unless forced or at least MIN_NEW_OBJECTS objects have gathered since the last settle,
    so an edit here and there does not cost a full collection each time."""
    pending = _pending()
    if not force and pending < MIN_NEW_OBJECTS:
        return 0.0
    global _frozen_at_full_walk
    t0 = time.perf_counter()
    full = force or gc.get_freeze_count() + pending > FULL_GROWTH * _frozen_at_full_walk
    if full:
        gc.unfreeze()
    gc.collect()
    gc.freeze()
    if full:
        _frozen_at_full_walk = gc.get_freeze_count()
    return time.perf_counter() - t0


def _pending() -> int:
    """Tracked objects that outlived a young collection and are not frozen yet."""
    return len(gc.get_objects(1)) + len(gc.get_objects(2))


def walks_everything_next() -> bool:
    """True when the next settle that is not skipped will walk the frozen objects too."""
    return gc.get_freeze_count() + _pending() > FULL_GROWTH * _frozen_at_full_walk
