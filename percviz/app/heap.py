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


def settle() -> float:
    """Collect everything, then freeze the survivors out of later collections; returns the seconds it took."""
    t0 = time.perf_counter()
    gc.unfreeze()
    gc.collect()
    gc.freeze()
    return time.perf_counter() - t0
