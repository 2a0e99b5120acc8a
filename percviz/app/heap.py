"""Keep Python's full garbage collections out of animations: settle the heap while the run is idle.

A full (generation 2) collection walks every tracked object. Once the window is built that is some
100,000 objects (Qt wrappers, pyqtgraph, modules) and one pass holds the GIL for 20–60 ms: whichever
thread triggers it, the UI thread stalls (bench/bench_app.py). `settle()` collects once and then moves
the survivors to the permanent generation (`gc.freeze`), so that the collections during a run only walk
what the run created. The next settle unfreezes first, so nothing frozen that died since leaks.
"""

from __future__ import annotations

import gc
import time


#: A settle is skipped while fewer objects than this have gathered outside the frozen set since the last one.
MIN_NEW_OBJECTS = 5000


def settle(force: bool = False) -> float:
    """Collect everything, then freeze the survivors out of later collections; returns the seconds it took.

    Skipped (0.0) unless forced or at least MIN_NEW_OBJECTS objects have gathered since the last settle,
    so an edit here and there does not cost a full collection each time."""
    if not force and len(gc.get_objects(1)) + len(gc.get_objects(2)) < MIN_NEW_OBJECTS:
        return 0.0
    t0 = time.perf_counter()
    gc.unfreeze()
    gc.collect()
    gc.freeze()
    return time.perf_counter() - t0
