"""Drawing while a run animates: panels after the canvas and one at a time, a settled heap, a steady layout."""

from __future__ import annotations

import gc
import time

import numpy as np
import pytest
from types import SimpleNamespace

from helpers import noise_window, spin
from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QGraphicsItem

from percviz.app.run import panel_pacer
from percviz.app.run import session as session_mod
from percviz.app.panels.geometry_panel import segments_item
from percviz.app.run.panel_pacer import PanelPacer
from percviz.app.run.session import FINISHED, IDLE, RUNNING
from percviz.app.panels.weight_view import WeightView
from percviz.core.data import PointSet
from percviz.core.scene import SceneModel


def test_pacer_delivers_one_panel_a_turn_at_most_at_its_rate_and_flushes_when_stopped(qapp, monkeypatch):
    # the pacer's clock is the test's: 15 ms of it per frame, however long a frame takes on a loaded machine
    clock = [100.0]
    monkeypatch.setattr(panel_pacer, "time", SimpleNamespace(monotonic=lambda: clock[0]))
    turns = [0]  # event-loop turns, counted by a 0 ms timer
    ticker = QTimer()
    ticker.timeout.connect(lambda: turns.__setitem__(0, turns[0] + 1))
    ticker.start(0)
    log = []
    blocked = [0.0]
    pacer = PanelPacer({"curves": 0.0, "weight": 0.2}, lambda name: log.append((name, clock[0], turns[0])),
                       wait=lambda: blocked[0])
    assert not pacer.offer("curves")  # not animating: the caller draws at once
    pacer.set_active(True)
    assert not pacer.offer("canvas")  # not a paced panel
    for _ in range(40):  # 40 frames, 0.6 s of the pacer's clock, each offering both panels
        pacer.offer("curves")
        pacer.offer("weight")
        spin(0.015)
        clock[0] += 0.015
    spin(0.05)
    ticker.stop()
    weight = [t for name, t, _turn in log if name == "weight"]
    curves = [t for name, t, _turn in log if name == "curves"]
    assert len(curves) >= 20  # the curves follow the frames
    assert 2 <= len(weight) <= 0.6 / 0.2 + 1 and np.all(np.diff(weight) >= 0.2 - 1e-9)  # ≤ 5 Hz of its clock
    turn_of = [turn for _n, _t, turn in log]
    assert len(set(turn_of)) == len(turn_of)  # never two panels in one turn
    blocked[0] = 0.05  # the session is inside a frame: nothing is delivered
    pacer.offer("curves")
    n = len(log)
    spin(0.03)
    assert len(log) == n and "curves" in pacer.pending
    pacer.offer("weight")
    pacer.set_active(False)  # the run stopped: everything pending is drawn now
    assert {name for name, _t, _turn in log[n:]} == {"curves", "weight"} and not pacer.pending


def test_weight_and_feature_pictures_are_paced_while_running_and_complete_when_paused(qtbot):
    w = noise_window(qtbot, 1500, seed=1)
    calls = {"canvas": 0, "weight": 0, "feature": 0, "curves": 0}
    for name in ("weight", "feature", "curves"):
        panel = w.panels[name]
        orig = panel.set_run

        def counted(h, s, _name=name, _orig=orig):
            calls[_name] += 1
            _orig(h, s)

        panel.set_run = counted
    w.session.snapshotShown.connect(lambda _s: calls.__setitem__("canvas", calls["canvas"] + 1))
    w.session.run_to_end()
    assert w.session.state == RUNNING
    # counted, not timed: 8 canvas frames of Run to end (≤ 12 a second), the paced panels at most one per frame
    qtbot.waitUntil(lambda: calls["canvas"] >= 8 and calls["weight"] >= 1 and calls["feature"] >= 1, timeout=60000)
    for name in ("weight", "feature"):
        assert 1 <= calls[name] <= calls["canvas"], calls  # PANEL_INTERVAL_S = 0.25 s: never more than the canvas
    assert calls["curves"] >= calls["canvas"] - 2  # the curves follow every frame, in turns of their own
    w.session.pause()
    spin(0.1)
    shown = w.session.current
    assert w.session.state in (IDLE, FINISHED)
    # paused: every panel shows the same, latest snapshot
    assert w.panels["weight"].snapshot is shown and w.panels["feature"].snapshot is shown
    assert w.panels["curves"].shown_iteration == shown.iteration
    assert w.panels["feature"].wait_ready(60000)  # its picture job ends within the test


def test_the_heap_is_settled_while_idle_and_not_while_running(qtbot, monkeypatch):
    settles = []
    monkeypatch.setattr(session_mod.heap, "settle", lambda: settles.append(time.monotonic()) or 0.0)
    w = noise_window(qtbot, 200, seed=1)
    spin(session_mod.SETTLE_AFTER_MS / 1000 + 0.3)
    assert len(settles) == 2  # the window's construction (what the process held before), then once idle
    w.session.run_to_end()
    spin(1.0)
    assert len(settles) == 2  # never during a run
    w.session.pause()
    spin(session_mod.SETTLE_AFTER_MS / 1000 + 0.3)
    assert len(settles) == 3


def test_settle_freezes_the_survivors_and_keeps_them_alive(qapp):
    from percviz.app.run import heap

    keep = [[i] for i in range(1000)]
    assert heap.settle(force=True) > 0
    try:
        assert gc.get_freeze_count() >= 1000
        assert keep[999] == [999]
        assert heap.settle() == 0.0  # nothing much new since: skipped
        more = [[i] for i in range(2 * heap.MIN_NEW_OBJECTS)]
        gc.collect(0)  # promote them out of the youngest generation, as time would
        gc.collect(1)
        assert heap.settle() > 0 and gc.get_freeze_count() >= 1000 + len(more)
    finally:
        gc.unfreeze()


class _Cycle:
    """A tracked object in a reference cycle: only a collection that walks it can free it."""

    def __init__(self):
        self.me = self


def _promoted(objects):
    gc.collect(0)  # out of the youngest generations, as time would
    gc.collect(1)
    return objects


def test_a_settle_walks_the_frozen_objects_again_only_once_they_grew_by_half(qapp):
    """Dead cycles among frozen objects are freed by the next walk of everything, which comes once the frozen
    set has grown by FULL_GROWTH (not every k-th settle: in a big process each such walk stalls the window)."""
    import weakref

    from percviz.app.run import heap

    heap.settle(force=True)
    try:
        base = gc.get_freeze_count()
        dead = _Cycle()
        gone = weakref.ref(dead)
        keep = _promoted([[i] for i in range(heap.MIN_NEW_OBJECTS + 10)])
        assert heap.settle() > 0 and not heap.walks_everything_next()  # 5,000 more: only the new ones walked
        del dead
        keep += _promoted([[i] for i in range(heap.MIN_NEW_OBJECTS + 10)])
        heap.settle()
        assert gone() is not None  # frozen, then died: not freed by a settle of the new objects only
        assert gc.get_freeze_count() < heap.FULL_GROWTH * base
        keep += _promoted([[i] for i in range(int(heap.FULL_GROWTH * base))])
        assert heap.walks_everything_next()
        heap.settle()
        assert gone() is None and not heap.walks_everything_next()  # the frozen set grew by half: walked, freed
        assert keep[-1] == [int(heap.FULL_GROWTH * base) - 1]
    finally:
        gc.unfreeze()


def test_a_new_window_freezes_what_the_process_held_before_out_of_later_collections(qtbot):
    """A notebook's (or a test suite's) 200,000 objects: opening the window settles them, so Python's own full
    collections during a drag walk only what the window made since (CI's soak: 0.25 s for one such walk)."""
    from percviz.app.main_window import MainWindow

    gc.unfreeze()
    held = _promoted([[i] for i in range(200_000)])
    gc.collect(2)  # Python's own bookkeeping as after a full collection: held is in the oldest generation
    try:
        assert len(gc.get_objects(2)) >= len(held)
        w = MainWindow(install_classroom=False)
        qtbot.addWidget(w)
        assert gc.get_freeze_count() >= len(held) and len(gc.get_objects(2)) < len(held) // 4
        t0 = time.thread_time()
        gc.collect(2)  # what an automatic full collection now walks
        assert time.thread_time() - t0 < 0.05 and held[-1] == [199_999]
    finally:
        gc.unfreeze()


def test_the_readout_holds_two_lines_so_its_first_numbers_do_not_resize_the_plot(qtbot):
    rng = np.random.default_rng(0)
    pts = PointSet(rng.normal(0, 1, (40, 2)), rng.integers(0, 2, 40))
    v = WeightView(SceneModel(pts))
    qtbot.addWidget(v)
    v.resize(360, 420)
    v.show()
    qtbot.waitExposed(v)
    from percviz.core import Problem
    from percviz.core.solvers import get_solver

    v.set_problem(Problem(pts), get_solver("perceptron"))
    spin(0.05)
    before = v.plot.height()
    v.set_readout([("a reading of the picture", "#123456"), ("and a second one, which is longer", "#654321")])
    spin(0.05)
    assert v.readout.heightForWidth(v.readout.width()) <= v.readout.minimumHeight()  # it fits the reserved lines
    assert v.plot.height() == before
    v.set_readout([])
    spin(0.05)
    assert v.plot.height() == before  # nor does it grow back when the numbers go


def test_many_static_segments_are_painted_from_a_cached_pixmap():
    segs = np.random.default_rng(0).uniform(-1, 1, (500, 2, 2))
    assert segments_item(segs, pytest.importorskip("pyqtgraph").mkPen("r")).cacheMode() == \
        QGraphicsItem.CacheMode.DeviceCoordinateCache
    dynamic = segments_item(segs, pytest.importorskip("pyqtgraph").mkPen("r"), static=False)
    assert dynamic.cacheMode() == QGraphicsItem.CacheMode.NoCache
