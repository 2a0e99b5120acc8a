"""A deferred restart (points dragged faster than a restart costs) never shows a snapshot of the old points."""

from __future__ import annotations

import numpy as np
from helpers import noise_window, spin

from percviz.app.run import session as session_mod


def test_snapshots_of_the_old_points_are_dropped_while_a_drag_restart_waits(qtbot, monkeypatch):
    monkeypatch.setattr(session_mod, "SLOW_RESTART_S", 0.0)  # every restart defers the next drag move by its cost
    from percviz.app.panels.feature_view import FeatureView
    from percviz.app.panels.weight_view import WeightView

    for cls in (WeightView, FeatureView):  # their set_problem on every move keeps the restarts costly (the case here)
        monkeypatch.setattr(cls, "defer_during_drag", False)
    w = noise_window(qtbot, 400, seed=3)
    scene, s = w.scene, w.session
    shown, wrong, deferred = [0], [], [0]

    def check(snap) -> None:
        shown[0] += 1
        if not np.array_equal(s.problem.X, scene.points.X):
            wrong.append(snap.iteration)

    s.snapshotShown.connect(check)
    s.set_speed(0)
    s.play()
    spin(0.3)
    scene.begin_drag()
    for k in range(30):
        scene.move_point(0, 0.05 * k, -0.03 * k)
        deferred[0] += s.stale
        if k % 3 == 2:  # bursts of moves, as a fast drag sends them: the second one comes before the restart's cost
            spin(0.01)
    scene.end_drag()
    spin(0.3)
    s.pause()
    s.wait_idle()
    w.close()
    assert deferred[0] > 5, (deferred, shown, wrong)  # the moves did wait for restarts (the case under test happened)
    assert shown[0] >= 1, (deferred, shown, wrong)  # and the run was drawn meanwhile, always on its own points
    assert wrong == []
