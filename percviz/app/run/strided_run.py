"""Run to end on a large scene: one snapshot per stride of updates, the stride sized to ~60 snapshots/s of work."""

from __future__ import annotations

import time
from typing import Any, Callable, Iterator

from percviz.app.timing import SNAPSHOT_S

#: Scenes up to this many points keep one snapshot per update in every mode (each snapshot costs O(n)).
STRIDE_ABOVE = 20_000
MAX_STRIDE = 100_000


def strided_snapshots(solver: Any, fast: Callable[[], bool], always: bool = False) -> Iterator[Any]:
    """solver.snapshots(), except that while fast() holds and n > STRIDE_ABOVE (or `always`: a Live run during a
    drag) one snapshot follows a stride of updates (Solver.advance: the intermediate snapshots are never built);
    Step and Play stay one update each."""
    if solver.problem.n <= STRIDE_ABOVE and not always:
        yield from solver.snapshots()
        return
    snap = solver.start()
    yield snap
    stride = 1
    while not snap.status.done:
        if not fast():
            snap = solver.step()
            yield snap
            continue
        t0 = time.perf_counter()
        snap = solver.advance(stride)
        dt = time.perf_counter() - t0
        yield snap
        # aim the next stride at SNAPSHOT_S of work, growing at most 4× at a time
        stride = max(1, min(MAX_STRIDE, 4 * stride, int(stride * SNAPSHOT_S / max(dt, 1e-6))))
