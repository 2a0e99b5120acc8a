"""The real main window, offscreen: editing points, running, scrubbing, closing, responsiveness, screenshot."""

from __future__ import annotations

import argparse
import time

import numpy as np
import pytest
from gap_meter import GapMeter
from helpers import canvas_pos, click
from PySide6.QtCore import Qt
from PySide6.QtGui import QImage
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication, QWidget

from percviz.app.launch import fallback_points, launch
from percviz.app.main_window import MainWindow
from percviz.app.run.session import IDLE, PLAYING, RUNNING
from percviz.app.run.worker import live_threads
from percviz.core.data import PointSet
from percviz.core.presets import Preset
from percviz.core.scene import SceneModel, Settings



def _scene(points=None, algorithm="perceptron", max_iter=1000):
    return SceneModel(points if points is not None else fallback_points(), Settings(algorithm=algorithm, max_iter=max_iter))


@pytest.fixture
def window(qtbot):
    w = MainWindow(_scene(), install_classroom=False)
    qtbot.addWidget(w)
    w.show()
    qtbot.waitExposed(w)
    w.panels["canvas"].viewbox.setRange(xRange=(-4, 4), yRange=(-4, 4), padding=0)
    w.session.wait_idle()
    yield w
    w.close()


def _tolerance(window) -> float:
    px = window.panels["canvas"].viewbox.viewPixelSize()
    return 1.5 * max(px)


def test_accessible_names_of_key_widgets(window):
    names = {w.accessibleName() for w in window.findChildren(QWidget)}
    for name in ("canvas", "algorithm", "kernel", "step", "play", "reset", "speed", "history", "status"):
        assert name in names, name
    assert window.size().width() >= 1200 and window.size().height() >= 760


def test_clicks_add_points_with_label_at_data_coordinates(window):
    scene = window.scene
    n0 = scene.n
    click(window, 2.5, -3.0)
    click(window, -2.0, 3.0, Qt.MouseButton.RightButton)
    click(window, 3.0, 3.0, mods=Qt.KeyboardModifier.ShiftModifier)
    assert scene.n == n0 + 3
    X, c = scene.points.X[n0:], scene.points.classes[n0:]
    np.testing.assert_allclose(X, [[2.5, -3.0], [-2.0, 3.0], [3.0, 3.0]], atol=_tolerance(window))
    assert list(c) == [0, 1, 1]


def test_drag_moves_delete_removes_undo_redo_restores(window):
    scene = window.scene
    i = scene.add_point(3.0, -3.0, 0)
    before = (scene.points.X.copy(), scene.points.classes.copy())
    canvas = window.panels["canvas"]
    vp = canvas.plot.viewport()
    QTest.mousePress(vp, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier, canvas_pos(canvas, 3.0, -3.0))
    for k in range(1, 6):
        QTest.mouseMove(vp, canvas_pos(canvas, 3.0 - 0.2 * k, -3.0 + 0.3 * k))
        QApplication.processEvents()
    QTest.mouseRelease(vp, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier,
                       canvas_pos(canvas, 2.0, -1.5))
    QApplication.processEvents()
    assert scene.n == before[0].shape[0]
    np.testing.assert_allclose(scene.points.X[i], [2.0, -1.5], atol=_tolerance(window))
    moved = scene.points.X.copy()

    QTest.mouseClick(vp, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.ControlModifier,
                     canvas_pos(canvas, 2.0, -1.5))
    assert scene.n == before[0].shape[0] - 1

    QTest.keyClick(window, Qt.Key.Key_Z, Qt.KeyboardModifier.ControlModifier)  # undo the delete
    np.testing.assert_array_equal(scene.points.X, moved)
    window.undo_action.trigger()  # undo the drag: exactly the old coordinates
    np.testing.assert_array_equal(scene.points.X, before[0])
    np.testing.assert_array_equal(scene.points.classes, before[1])
    QTest.keyClick(window, Qt.Key.Key_Z, Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.ShiftModifier)
    np.testing.assert_array_equal(scene.points.X, moved)


def test_delete_key_removes_hovered_point(window):
    scene = window.scene
    scene.add_point(-3.0, 3.5, 1)
    n = scene.n
    canvas = window.panels["canvas"]
    vp = canvas.plot.viewport()
    QTest.mouseMove(vp, canvas_pos(canvas, -3.0, 3.5))
    QApplication.processEvents()
    shown = window.cursor_label.text().replace("x =", "").replace("y =", "").split()
    np.testing.assert_allclose([float(v) for v in shown], [-3.0, 3.5], atol=_tolerance(window))
    QTest.keyClick(window.panels["canvas"].plot, Qt.Key.Key_Delete)
    assert scene.n == n - 1
    assert not np.any(np.all(np.isclose(scene.points.X, [-3.0, 3.5]), axis=1))


def test_step_play_pause_reset_and_history(qtbot, window):
    s, c = window.session, window.controls
    rng = np.random.default_rng(3)
    X = rng.normal(0, 1, (60, 2))
    window.scene.set_points(PointSet(X, rng.integers(0, 2, 60)))  # not separable: runs to max_iter
    s.wait_idle()
    assert s.current.iteration == 0
    QTest.mouseClick(c.step_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: s.current.iteration == 1, timeout=2000)
    QTest.mouseClick(c.step_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: s.current.iteration == 2, timeout=2000)

    c.speed.setValue(c.speed.maximum() - 2)  # 500 updates/s
    QTest.mouseClick(c.play_button, Qt.MouseButton.LeftButton)
    assert s.state == PLAYING and c.play_button.text() == "Pause"
    qtbot.waitUntil(lambda: s.current.iteration >= 30, timeout=3000)
    QTest.mouseClick(c.play_button, Qt.MouseButton.LeftButton)
    assert s.state == IDLE and c.play_button.text() == "Play"
    s.wait_idle()
    stopped = s.latest.iteration
    qtbot.wait(150)
    assert s.latest.iteration == stopped  # paused: nothing more
    assert [h.iteration for h in s.history] == list(range(stopped + 1))

    c.history.setValue(5)  # scrub back
    assert s.current.iteration == 5
    assert "showing iteration 5" in c.history_label.text()
    assert c.status.text().startswith("Iteration 5")
    assert window.panels["canvas"].snapshot is s.history[5]

    problem = s.problem
    QTest.mouseClick(c.play_button, Qt.MouseButton.LeftButton)
    QTest.mouseClick(c.reset_button, Qt.MouseButton.LeftButton)  # reset while playing: paused at 0
    s.wait_idle()
    assert [h.iteration for h in s.history] == [0]
    assert c.status.text().startswith("Iteration 0")
    assert s.state == IDLE and c.play_button.text() == "Play"
    assert s.problem is problem  # same scene: the problem (and its cached Gram matrix) is kept


def test_edit_during_play_restarts_from_zero_keeping_algorithm(qtbot, window):
    s = window.session
    rng = np.random.default_rng(5)
    window.scene.set_points(PointSet(rng.normal(0, 1, (40, 2)), rng.integers(0, 2, 40)))
    s.set_speed(200)
    s.play()
    qtbot.waitUntil(lambda: s.current is not None and s.current.iteration >= 20, timeout=3000)
    changed = []
    s.problemChanged.connect(lambda p, c: changed.append(p))
    window.scene.add_point(0.5, 0.5, 0)
    assert changed and changed[-1].n == window.scene.n
    assert s.history == [] or s.history[0].iteration == 0
    assert s.state == PLAYING and window.scene.settings.algorithm == "perceptron"
    s.pause()


def test_ui_keeps_serving_events_with_2000_points_running(qtbot):
    # The default window: canvas, curves, weight-space and feature-space docks all shown.
    rng = np.random.default_rng(1)
    w = MainWindow(_scene(max_iter=10**7), install_classroom=False)
    qtbot.addWidget(w)
    w.show()
    qtbot.waitExposed(w)
    assert all(w._live(name) for name in ("canvas", "curves", "weight", "feature"))
    X = rng.normal(0, 1, (2000, 2))
    w.scene.set_points(PointSet(X, rng.integers(0, 2, 2000)))  # not separable: never halts
    w.session.wait_idle()

    meter = GapMeter()
    meter.start()
    w.session.run_to_end()
    # counted: 40 turns of the UI's 5 ms heartbeat while the solver really runs (past 200 updates)
    qtbot.waitUntil(lambda: len(meter.cpus) >= 40 and w.session.latest.iteration > 200, timeout=60000)
    meter.stop()
    assert w.session.state == RUNNING
    print(f"worst UI-thread gap {meter.worst_cpu:.0f} ms CPU ({meter.worst_wall:.0f} ms wall), "
          f"{len(meter.cpus)} turns, {w.session.latest.iteration} updates")
    w.close()
    # the UI thread's own work between two turns of its event loop stays short (its CPU time: load-proof)
    assert meter.worst_cpu < 250, (meter.worst_cpu, meter.worst_cpu_label)
    assert not live_threads()


def test_closing_during_a_run_stops_the_thread(qtbot):
    rng = np.random.default_rng(2)
    w = MainWindow(_scene(PointSet(rng.normal(0, 1, (200, 2)), rng.integers(0, 2, 200)), max_iter=10**7), install_classroom=False)
    qtbot.addWidget(w)
    w.show()
    w.session.run_to_end()
    qtbot.wait(100)
    thread = w.session.worker.thread
    assert thread.isRunning()
    w.close()
    assert not thread.isRunning()
    assert not live_threads()


def test_hover_is_linked_between_panels(window, monkeypatch):
    seen = {}
    for name, panel in window.panels.items():
        if name != "canvas":
            monkeypatch.setattr(panel, "highlight_point", lambda i, n=name: seen.__setitem__(n, i), raising=False)
    window.panels["canvas"].pointHovered.emit(4)
    assert seen and all(v == 4 for v in seen.values())
    window.panels["canvas"].pointHovered.emit(-1)
    assert all(v is None for v in seen.values())


def test_preset_round_trip_and_one_restart(window):
    pts = PointSet([[0, 1], [1, 0], [-1, 0], [0, -1]], [0, 0, 1, 1])
    from percviz.core.presets import ViewSettings

    view = ViewSettings(panels=("canvas", "curves"), range=(-2.0, 2.0, -1.0, 1.0))
    preset = Preset(pts, title="Four", kernel="rbf:gamma=2", algorithm="perceptron", max_iter=77, view=view)
    calls = []
    window.session.problemChanged.connect(lambda p, c: calls.append(p))
    window.load_preset(preset)
    assert len(calls) == 1
    got = window.current_preset()
    assert got.points == pts and got.kernel == "rbf:gamma=2" and got.max_iter == 77 and got.title == "Four"
    assert "Four" in window.windowTitle()
    assert not window.scene.can_undo
    x0, x1, y0, y1 = got.view.range  # the canvas keeps its aspect ratio: the range asked for is inside
    assert x0 <= -2 + 1e-6 and x1 >= 2 - 1e-6 and y0 <= -1 + 1e-6 and y1 >= 1 - 1e-6 and x1 - x0 < 10
    assert got.view.panels == ("canvas", "curves") and not window.docks["weight"].isVisible()


def test_screenshot_command_writes_points_and_boundary(tmp_path):
    out = tmp_path / "shot.png"
    args = argparse.Namespace(data=None, algorithm="perceptron", kernel=None, features=None, params=[],
                              steps=5, screenshot=str(out), panel=None, max_iter=None, preset=None)
    t0 = time.thread_time()
    assert launch(args) == 0
    assert time.thread_time() - t0 < 10  # its own CPU time: the screenshot never runs a long computation
    img = QImage(str(out))
    assert img.width() >= 1200 and img.height() >= 760
    a = np.frombuffer(img.convertToFormat(QImage.Format.Format_RGB888).constBits(), np.uint8)
    a = a.reshape(img.height(), -1)[:, : 3 * img.width()].reshape(img.height(), img.width(), 3).astype(int)
    assert len(np.unique(a.reshape(-1, 3), axis=0)) > 200  # not blank
    r, g, b = a[..., 0], a[..., 1], a[..., 2]
    red = (r > 180) & (g < 90) & (b < 90)  # + markers
    blue = (b > 150) & (r < 80)  # − markers
    black = (r < 40) & (g < 40) & (b < 40)  # the decision boundary (and text)
    canvas = np.zeros_like(red)
    canvas[60:560, 380:1180] = True  # the plot area of the canvas at 1280×800
    assert (red & canvas).sum() > 200 and (blue & canvas).sum() > 100
    assert (black & canvas).sum() > 300
    assert not live_threads()


def test_docks_follow_what_the_algorithm_supports_and_hidden_ones_are_not_fed(window, monkeypatch):
    if "weight" not in window.docks:
        pytest.skip("no weight view installed")
    dock, act = window.docks["weight"], window.view_actions["weight"]
    assert dock.isVisible() and act.isEnabled()  # the perceptron has a weight vector
    window.controls.select_algorithm("linear-machine")
    assert not dock.isVisible() and not act.isEnabled()
    assert "one weight vector per class" in act.toolTip()
    window.controls.select_algorithm("perceptron")
    window.session.wait_idle()
    assert dock.isVisible() and act.isEnabled()
    assert window.panels["weight"].problem is window.session.problem

    act.setChecked(False)  # the user hides it: it gets nothing while hidden
    assert not dock.isVisible()
    fed = []
    monkeypatch.setattr(window.panels["weight"], "set_snapshot", fed.append)
    window.session.step()
    window.session.wait_idle()
    assert fed == []
    act.setChecked(True)  # shown again: it catches up by itself, in an event-loop turn of its own
    assert fed == [] and window.session.frames.first_draws_pending
    window.session.wait_idle()
    assert fed and fed[-1] is window.session.current


def test_a_failing_panel_is_reported_and_the_others_still_draw(qtbot, window, monkeypatch):
    def broken(_snap):
        raise RuntimeError("panel bug")

    monkeypatch.setattr(window.panels["curves"], "set_snapshot", broken)
    with qtbot.captureExceptions() as exceptions:
        window.session.step()
        window.session.wait_idle()
    assert len(exceptions) == 1 and "panel bug" in str(exceptions[0][1])
    assert window.panels["canvas"].snapshot is window.session.current
    assert "curves panel could not draw" in window.statusBar().currentMessage()
    assert window.session.worker.thread.isRunning()


def test_an_edit_shows_the_new_run_at_once(qtbot, window):
    canvas, s = window.panels["canvas"], window.session
    t0 = time.thread_time()
    window.scene.add_point(0.5, -0.5, 1)
    assert canvas.problem is s.problem and s.problem.n == window.scene.n  # synchronously
    qtbot.waitUntil(lambda: canvas.snapshot is not None and canvas.snapshot is s.current, timeout=10000)
    assert canvas.snapshot.iteration == 0
    # iteration 0 of the new run drawn within a few frames: the UI thread's CPU time until then (0.1 s idle)
    assert time.thread_time() - t0 < 1.5
