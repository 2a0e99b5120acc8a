"""RunModel and LivePolicy without a QApplication: events in order, the shown index, states, Live's options."""

from __future__ import annotations

import subprocess
import sys
from dataclasses import dataclass, field

import numpy as np
import pytest

from percviz.app.run.live_policy import LivePolicy
from percviz.app.run.model import FINISHED, IDLE, INVALID, RUNNING, RunModel
from percviz.core.data import PointSet
from percviz.core.problem import Problem
from percviz.core.scene import Settings
from percviz.core.solvers import get_solver


@dataclass
class Snap:
    iteration: int
    done: bool = False
    status: object = field(init=False)

    def __post_init__(self):
        self.status = type("S", (), {"done": self.done})()


def _recorded(model: RunModel) -> list:
    seen = []
    for name in ("problem", "history", "shown", "state", "error", "rho"):
        getattr(model.events, name).connect(lambda *a, name=name: seen.append((name, *a)))
    return seen


def test_importing_the_model_and_the_policy_imports_no_qt():
    code = ("import sys, percviz.app.run.model, percviz.app.run.live_policy, percviz.app.timing; "
            "sys.exit(1 if any(m.startswith(('PySide6', 'pyqtgraph')) for m in sys.modules) else 0)")
    assert subprocess.run([sys.executable, "-c", code], check=False).returncode == 0


def test_a_run_emits_problem_history_shown_state_in_order_and_follows_the_newest():
    m = RunModel()
    seen = _recorded(m)
    gen = m.begin_run()
    assert gen == 1 and m.problem is None and m.current is None and m.shown_index == -1
    m.new_run("P", "cls", sparse=False)
    m.set_state(RUNNING)
    a, b, c = Snap(0), Snap(1), Snap(2, done=True)
    m.append([a, b])
    m.append([c])
    m.set_state(FINISHED)
    assert seen == [("rho", None), ("problem", "P", "cls"), ("history", 0), ("state", RUNNING), ("history", 2),
                    ("shown", b), ("history", 3), ("shown", c), ("state", FINISHED)]
    assert m.finished and m.latest is c and m.current is c and m.shown_index == 2


def test_showing_an_earlier_snapshot_stops_following_until_the_last_is_shown():
    m = RunModel()
    m.begin_run()
    snaps = [Snap(i) for i in range(5)]
    m.append(snaps)
    m.show(1)
    assert m.current is snaps[1] and m.index == 1
    m.append([Snap(5)])  # a new snapshot does not move an earlier one shown
    assert m.current is snaps[1]
    m.show(-7)  # clamped
    assert m.current is snaps[0]
    m.show(99)  # the last: follow again
    assert m.index is None and m.current.iteration == 5


def test_a_stale_run_shows_nothing_and_a_quiet_append_tells_no_view():
    m = RunModel()
    m.begin_run()
    seen = _recorded(m)
    assert m.drop_stale() == 2 and m.stale
    m.append([Snap(0)])
    assert [e[0] for e in seen] == ["history"]  # the history grows, nothing is drawn over the moved points
    m.begin_run()
    seen.clear()
    m.append([Snap(0)], show=False)
    assert seen == [] and len(m.history) == 1


def test_invalid_and_failed_carry_the_message_and_unknown_states_are_refused():
    m = RunModel()
    seen = _recorded(m)
    m.solver_cls = "cls"
    m.invalid("Add a point of the second class.")
    m.set_state(INVALID)
    m.report("Add a point of the second class.")
    assert m.state == INVALID and m.problem is None and m.error.startswith("Add")
    assert seen == [("problem", None, "cls"), ("history", 0), ("state", INVALID),
                    ("error", "Add a point of the second class.")]
    m.set_state(IDLE)
    with pytest.raises(ValueError, match="unknown run state 'paused'"):
        m.set_state("paused")


def _two_class(n=6):
    X = np.array([[x, x % 2 + 0.5] for x in range(n)], dtype=float)
    X[n // 2:, 1] *= -1
    return PointSet(X, (np.arange(n) >= n // 2).astype(int))


def test_live_policy_maps_the_last_alpha_onto_the_edited_points_like_an_independent_lookup():
    smo = next(c for c in (get_solver(n) for n in ("svm", "kernel-perceptron", "nkp")) if c.warm_start == "alpha")
    settings = Settings(kernel="rbf:gamma=0.5", algorithm=smo.name)
    pol = LivePolicy()
    pol.on = True
    old = _two_class()
    alpha = np.arange(1.0, old.n + 1)
    pol.remember(type("Z", (), {"status": type("S", (), {"done": True})(), "alpha": alpha})(),
                 Problem(old, settings.kernel, settings.features), settings)
    # drop point 2, add a new one at the end: the others keep their α, the new one 0
    X = np.vstack([np.delete(old.X, 2, axis=0), [[9.0, 9.0]]])
    y = np.append(np.delete(old.classes, 2), 0)
    new = Problem(PointSet(X, y), settings.kernel, settings.features)
    got = pol.options(new, smo, settings, dragging=False, edit=True)["warm_start"]
    expect = [float(alpha[j]) for j in (0, 1, 3, 4, 5)] + [0.0]
    assert got.tolist() == expect
    other = Settings(kernel="rbf:gamma=2", algorithm=smo.name)  # another kernel: a different optimum, cold
    assert "warm_start" not in pol.options(new, smo, other, dragging=False, edit=True)


def test_live_policy_drops_the_bound_while_dragging_and_the_settled_rerun_is_quiet_and_full():
    cls = next(get_solver(n) for n in ("nkp", "snkp") if "bound" in get_solver(n).params.names())
    settings = Settings(kernel="rbf:gamma=0.5", algorithm=cls.name)
    problem = Problem(_two_class(), settings.kernel, settings.features)
    pol = LivePolicy()
    assert pol.options(problem, cls, settings, dragging=True, edit=True) == {} and not pol.sparse  # Live off
    pol.on = True
    out = pol.options(problem, cls, settings, dragging=True, edit=True)
    assert out.get("bound") is False and pol.sparse and pol.bound_off and not pol.quiet
    assert pol.needs_full_run(sparse=True, latest=Snap(5, done=True), kept=6)  # the bound was skipped
    pol.settled = True
    out = pol.options(problem, cls, settings, dragging=True, edit=True)
    assert "bound" not in out and not pol.sparse and pol.quiet and not pol.settled
    assert not pol.needs_full_run(sparse=False, latest=Snap(5, done=True), kept=6)
    pol.run_cost = 0.1
    assert pol.needs_full_run(sparse=True, latest=Snap(5, done=True), kept=3)  # strided: 3 kept of 6
    pol.run_cost = 5.0
    assert not pol.needs_full_run(sparse=True, latest=Snap(5, done=True), kept=3)  # too slow to rerun


def test_live_policy_gate_and_the_perceptrons_weights_only_when_asked():
    cls = next(get_solver(n) for n in ("fixed-increment", "perceptron") if get_solver(n).warm_start == "weights")
    settings = Settings(kernel="affine", algorithm=cls.name)
    problem = Problem(_two_class(), settings.kernel, settings.features)
    pol = LivePolicy()
    pol.on = True
    pol.remember(type("Z", (), {"status": type("S", (), {"done": True})(), "weights": np.array([1.0, -2.0, 0.5])})(),
                 problem, settings)
    assert "warm_start" not in pol.options(problem, cls, settings, dragging=False, edit=True)
    pol.warm_weights = True
    assert pol.options(problem, cls, settings, dragging=False, edit=True)["warm_start"].tolist() == [1.0, -2.0, 0.5]
    assert "warm_start" not in pol.options(problem, cls, settings, dragging=False, edit=False)  # Reset: from 0
    valid = [True]
    pol.gate = lambda: valid[0]
    assert pol.runs()
    valid[0] = False
    assert not pol.runs()
