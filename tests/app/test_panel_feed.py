"""Panel.bind: a panel subscribes itself to the run; hidden panels are not fed and catch up when shown."""

from __future__ import annotations

import numpy as np
import pytest
from PySide6.QtWidgets import QVBoxLayout, QWidget

from percviz.app.panels.panel import Panel
from percviz.app.run.panel_feed import FrameFeed
from percviz.app.run.session import RunSession
from percviz.core.data import PointSet
from percviz.core.scene import SceneModel, Settings


class Recorder(QWidget, Panel):
    """A panel that writes down what the run sends it."""

    view = "canvas"

    def __init__(self):
        super().__init__()
        self.calls: list[tuple[str, object]] = []

    def set_problem(self, problem, solver_cls):
        self.calls.append(("problem", None if problem is None else problem.n))

    def set_snapshot(self, snapshot):
        self.calls.append(("snapshot", snapshot.iteration))

    def set_history(self, snapshots):
        self.calls.append(("history", len(snapshots)))

    def set_reference(self, rho):
        self.calls.append(("rho", rho))


def _points(n=6):
    rng = np.random.default_rng(3)
    X = np.r_[rng.normal(1.5, 0.3, (n, 2)), rng.normal(-1.5, 0.3, (n, 2))]
    return PointSet(X, np.r_[np.zeros(n, int), np.ones(n, int)])


@pytest.fixture
def run(qtbot):
    scene = SceneModel(_points(), Settings(algorithm="perceptron"))
    session = RunSession(scene)
    session.wait_idle()
    host = QWidget()
    qtbot.addWidget(host)
    panel = Recorder()
    QVBoxLayout(host).addWidget(panel)
    panel.bind(FrameFeed(session))
    host.show()
    yield scene, session, host, panel
    session.shutdown()


def test_a_bound_panel_draws_each_step_and_a_new_problem(qtbot, run):
    scene, session, _host, panel = run
    panel.catch_up()  # bound after the first run started: it draws the run so far
    assert panel.calls == [("problem", 12), ("history", 1), ("snapshot", 0)]
    panel.calls.clear()
    session.step()
    session.wait_idle()
    assert ("snapshot", 1) in panel.calls and ("history", 2) in panel.calls
    panel.calls.clear()
    scene.add_point(0.0, 3.0, 0)  # an edit: a new problem of 13 points, sent without asking
    session.wait_idle()
    assert ("problem", 13) in panel.calls
    assert panel.calls[-1] == ("snapshot", 0)


def test_a_hidden_panel_is_not_fed_and_catches_up_when_shown(qtbot, run):
    _scene, session, _host, panel = run
    panel.catch_up()
    panel.hide()
    panel.calls.clear()
    for _ in range(3):
        session.step()
        session.wait_idle()
    assert panel.calls == []
    assert panel.feed.stale
    shown = session.current.iteration
    assert shown >= 1  # the panel missed at least one step
    panel.show()
    panel.catch_up()
    assert panel.calls == [("problem", 12), ("history", len(session.history)), ("snapshot", shown)]
    assert not panel.feed.stale


def test_the_feed_hands_each_event_to_its_subscribers_in_order_and_survives_a_failing_one(qtbot):
    """FrameFeed.subscribe: the order subscribed, a raising subscriber reported and skipped, a gone owner unsubscribed."""
    from PySide6.QtCore import QObject

    scene = SceneModel(_points(), Settings(algorithm="perceptron"))
    session = RunSession(scene)
    feed = FrameFeed(session)
    heard: list[tuple[str, object]] = []

    def broken(snap):
        raise RuntimeError(f"a subscriber's bug at {snap.iteration}")

    owner = QObject()
    feed.subscribe(snapshot=lambda s: heard.append(("first", s.iteration)))
    feed.subscribe(snapshot=broken, problem=lambda p, cls: heard.append(("problem", p.n)))
    feed.subscribe(snapshot=lambda s: heard.append(("owned", s.iteration)), owner=owner)
    feed.subscribe(history=lambda count: heard.append(("history", count)))
    try:
        with qtbot.capture_exceptions() as raised:
            session.wait_idle()
            heard.clear()
            session.step()
            session.wait_idle()
            assert [h for h in heard if h[0] != "history"] == [("first", 1), ("owned", 1)]
            assert ("history", 2) in heard
            with qtbot.waitSignal(owner.destroyed, timeout=5000):
                owner.deleteLater()
            heard.clear()
            scene.add_point(0.0, 3.0, 0)
            session.wait_idle()
        assert heard[0] == ("problem", 13)
        assert ("first", 0) in heard and not any(h[0] == "owned" for h in heard)
        assert [str(e[1]) for e in raised] == [f"a subscriber's bug at {i}" for i in (0, 1, 0)]
    finally:
        session.shutdown()
