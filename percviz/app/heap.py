"""Keep Python's full garbage collections out of animations: settle the heap while the run is idle.

A full (generation 2) collection walks every tracked object. Once the window is built that is some
100,000 objects (Qt wrappers, pyqtgraph, modules) and one pass holds the GIL for 20–60 ms: whichever
thread triggers it, the UI thread stalls (bench/bench_app.py). `settle()` collects once and then moves
the survivors to the permanent generation (`gc.freeze`), so that the collections during a run only walk
what the run created. A settle collects only what is not frozen yet (milliseconds); every FULL_EVERY-th one
(and a forced one) unfreezes first and walks everything, so that frozen objects that died in cycles since do not
stay for long. (Each settle walking everything cost the UI thread 0.1–0.6 s on a loaded machine, bench_scale_app.)
"""

from __future__ import annotations

import gc
import time


#: A settle is skipped while fewer objects than this have gathered outside the frozen set since the last one.
MIN_NEW_OBJECTS = 5000
#: One settle in this many walks the frozen objects too.
FULL_EVERY = 8
_count = 0


def settle(force: bool = False) -> float:
    """Collect what is not frozen (everything when forced or every FULL_EVERY-th time), then freeze the survivors
    out of later collections; returns the seconds it took.

    Skipped (0.0) unless forced or at least MIN_NEW_OBJECTS objects have gathered since the last settle,
    so an edit here and there does not cost a full collection each time."""
    if not force and len(gc.get_objects(1)) + len(gc.get_objects(2)) < MIN_NEW_OBJECTS:
        return 0.0
    global _count
    t0 = time.perf_counter()
    _count += 1
    if force or _count % FULL_EVERY == 0:
        gc.unfreeze()
    gc.collect()
    gc.freeze()
    return time.perf_counter() - t0
