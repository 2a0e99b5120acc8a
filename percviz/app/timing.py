"""Every pacing constant of the app in one place: each with its unit (`_MS`: milliseconds, `_S`: seconds) and the
figure that chose it. Qt-free; modules import the names they use (`from percviz.app.timing import DRAG_PAUSE_MS`).
`tests/test_timing.py` checks that no other module of `percviz/app` defines a `*_MS` or `*_S` name.
"""

from __future__ import annotations

# -- the drag ---------------------------------------------------------------------------------------------------
#: A drag counts as paused once no new run nor snapshot came for this long (ms; every move restarts the wait): the
#: heavy panels (weight and feature pictures, `defer_during_drag`) catch up then. 150 ms: a hand that stops for a
#: glance, longer than the 30–60 ms between two moves of a drag at 2,000 points (bench/bench_live.py).
DRAG_PAUSE_MS = 150
#: Live reruns a paused drag in full (per-step history, bound metric) two thirds into the same pause (ms), so that
#: the heavy views, waiting the whole DRAG_PAUSE_MS, catch up once, on the full run (not on the sparse one first).
LIVE_SETTLE_MS = DRAG_PAUSE_MS * 2 // 3
#: While a point is dragged its new position waits up to this long (s) for its rerun's boundary, so that a Live
#: drag repaints the canvas once per move (point and boundary together), not twice: two 60 Hz frames.
DRAG_POINTS_WAIT_S = 0.03

# -- the run ----------------------------------------------------------------------------------------------------
#: A restart costing the UI thread more than this (s) delays the next drag move's restart by its cost: above
#: 20 ms (more than a 60 Hz frame) a drag at 2,000 points queued moves faster than it could restart.
SLOW_RESTART_S = 0.02
#: The heap is settled (percviz.app.run.heap) once the run has been idle and unedited this long (ms): 400 ms
#: after the last edit, a full collection (20–60 ms) never lands in a drag nor an animation (bench/bench_app.py).
SETTLE_AFTER_MS = 400
#: Above RHO_DEFER_N points ρ_K (seconds of LP and Qhull at 100k) starts only once the scene has been still this
#: long (ms): a drag runs one ρ_K, not one a move.
RHO_DEFER_MS = 500
#: How often the UI thread runs the collections Python would have run by itself (s): pyqtgraph's GarbageCollector
#: default, 0.5 s, kept (test_gc_thread: 20,000 cycles freed within 20 of them).
COLLECT_INTERVAL_S = 0.5
#: While running to the end, each snapshot of a large scene stands for this much solver time (s): one 60 Hz frame.
SNAPSHOT_S = 1.0 / 60.0
#: While running as fast as possible, the worker briefly releases the GIL this often (s), so the UI thread gets it
#: at once instead of after the interpreter's 5 ms switch interval.
WORKER_YIELD_S = 0.004
#: A hold (the UI thread is drawing a frame) lasts at most this long (s): a quarter second, the longest a frame
#: at 100,000 points took (bench/bench_app.py), so a lost release never stops the solver for longer.
MAX_HOLD_S = 0.25

# -- frames -----------------------------------------------------------------------------------------------------
#: After a frame, the worker stays paused this long (ms) so that deferred repaints run without GIL contention.
HOLD_TAIL_MS = 5
#: A queued first draw starts this long (ms) after the repaint of the one before.
FIRST_DRAW_GAP_MS = 2
#: Two paced panel deliveries are at least this far apart (ms): the previous one's repaint runs in between.
TURN_GAP_MS = 4
#: The weight and feature pictures are refreshed at most this often (s) while a run animates: up to 25 ms each
#: with their repaint at n = 2000 (bench/bench_app.py), so at most a tenth of the UI thread's time.
PANEL_INTERVAL_S = 0.25

# -- Live -------------------------------------------------------------------------------------------------------
#: A Live run's first seconds on the worker are kept, not drawn: most runs at n ≤ 200 end within 25 ms (what the
#: UI thread used to spend on them itself), so their final boundary is drawn once, without a frame of their start.
LIVE_SYNC_S = 0.025
#: A sparse Live run that took longer than this (s) is not rerun in full at the pause: its strided history stays
#: (a second of solver work per pause would make a dragging hand wait).
RERUN_MAX_S = 1.0

# -- windows and layouts ----------------------------------------------------------------------------------------
#: The small-screen check (tab the geometry views when a plot is under 300×250) waits this long after a resize (ms).
LAYOUT_FIT_DELAY_MS = 150
#: At 3× and more the curves' fold measures a resize once the layout settles (ms).
CURVES_FIT_DELAY_MS = 60
#: How long after leaving the desk layout is restored a last time (ms): after the deferred relayouts (150 ms).
FIT_SETTLE_MS = 150
#: A background feature picture waits at most this long (ms) for its least-norm point, so that both are drawn at
#: once (the point mostly follows within milliseconds).
MIN_NORM_GRACE_MS = 200
#: Seconds in which the second Reset must follow the first (a guarded Reset in the lecture hall).
RESET_CONFIRM_S = 4.0

# -- files and exports ------------------------------------------------------------------------------------------
#: The autosave interval (ms) unless PERCVIZ_AUTOSAVE_MS says otherwise: 5 s of work is the most a crash loses.
DEFAULT_INTERVAL_MS = 5000
#: A temporary file older than this (s) belongs to a write that was killed (a live write takes milliseconds).
STALE_TMP_S = 60.0
#: A GIF's last frame stays this long (ms), so a looping animation pauses on the result.
GIF_FINAL_HOLD_MS = 1500
#: How often a waiting export thread looks at its cancel flag (s), so closing the window stops it promptly.
EXPORT_POLL_S = 0.05
#: Closing the window waits at most this long for the export's thread (s; it stops within one frame's encoding).
CLOSE_WAIT_S = 10.0

# -- experiment windows -----------------------------------------------------------------------------------------
#: How long closing an experiment window waits for its task's thread (ms; a daemon thread still busy ends with the
#: process).
CLOSE_WAIT_MS = 3000
#: A race window's play tick (ms): 25 ticks a second.
TICK_MS = 40
#: A race's run to the end works this long between its reports (s); the first report comes sooner (the screen
#: moves at once).
RUN_SLICE_S, FIRST_SLICE_S = 0.1, 0.03
#: How long a race's worker waits for the UI thread to draw a report before it goes on (s; it shares the GIL:
#: drawing while the worker ran took 1.7 s for a 60 ms picture).
DRAW_WAIT_S = 0.5
