"""The curves panel: the right metrics in the right plots, appends, scrubbing cursor, ρ_K, log toggles."""

import numpy as np
import pytest

from percviz.app.curves import CurvesView, group_of
from percviz.core import datasets
from percviz.core.problem import Problem
from percviz.core.solvers import get_solver, load_all

load_all()


@pytest.fixture
def run():
    prob = Problem(datasets.separable(), kernel="affine")
    cls = get_solver("snkp")
    snaps = list(cls(prob).snapshots())
    assert len(snaps) > 5 and snaps[-1].status.done
    return prob, cls, snaps


@pytest.fixture
def curves(qtbot):
    view = CurvesView(None)
    qtbot.addWidget(view)
    view.resize(600, 700)
    view.show()
    qtbot.waitExposed(view)
    return view


def _plotted(view, key):
    x, y = view.curves[key].getOriginalDataset()  # what was given to pyqtgraph (before log/clipping)
    return np.asarray(x), np.asarray(y)


def test_history_gives_every_metric_its_curve(curves, run):
    prob, cls, snaps = run
    curves.set_problem(prob, cls)
    assert set(curves.curves) == set(cls.metric_keys)
    curves.set_history(snaps[:4])
    curves.set_history(snaps)  # only the new ones are appended
    curves.flush()
    for key in cls.metric_keys:
        it, val = curves.series(key)
        assert it.tolist() == [s.iteration for s in snaps]
        np.testing.assert_allclose(val, [s.metrics.get(key, np.nan) for s in snaps])
    x, y = _plotted(curves, "margin")
    np.testing.assert_allclose(y, [s.metrics["margin"] for s in snaps])
    # norms on a log axis (the default for them)
    assert curves.log_boxes["norms"].isChecked() and curves.plots["norms"].ctrl.logYCheck.isChecked()
    x, y = _plotted(curves, "alpha_g_norm")
    np.testing.assert_allclose(y, [s.metrics["alpha_g_norm"] for s in snaps])


def test_metrics_grouped_by_scale(run):
    _, cls, _ = run
    keys = cls.metric_keys
    assert group_of("alpha_g_norm", keys) == "norms"
    assert group_of("margin", keys) == "margins" and group_of("loss", keys) == "margins"
    assert group_of("train_errors", keys) == "counts"
    assert group_of("bound", ("mistakes", "bound")) == "counts"


def test_snapshots_append_and_scrubbing_shows_a_cursor(curves, run):
    prob, cls, snaps = run
    curves.set_problem(prob, cls)
    for s in snaps:
        curves.set_snapshot(s)
    curves.flush()
    assert curves.series("margin")[0].tolist() == [s.iteration for s in snaps]
    assert not any(c.isVisible() for c in curves.cursors.values())
    curves.set_snapshot(snaps[2])  # scrubbing back: nothing appended, a cursor at iteration 2
    curves.flush()
    assert len(curves.series("margin")[0]) == len(snaps)
    assert all(c.isVisible() and c.value() == snaps[2].iteration for c in curves.cursors.values())


def test_reference_rho_and_log_toggle(curves, run):
    prob, cls, snaps = run
    curves.set_problem(prob, cls)
    curves.set_history(snaps)
    curves.set_reference(0.04)
    ref = curves.references["margins"]
    assert ref.isVisible() and ref.value() == pytest.approx(0.04)
    assert curves.references["norms"].value() == pytest.approx(np.log10(0.04))  # ‖p‖_G on a log axis
    curves.log_boxes["norms"].setChecked(False)
    assert not curves.plots["norms"].ctrl.logYCheck.isChecked()
    assert curves.references["norms"].value() == pytest.approx(0.04)
    curves.set_reference(None)
    assert not ref.isVisible()


def test_new_problem_resets_and_unsupported_solvers_say_why(curves, run):
    prob, cls, snaps = run
    curves.set_problem(prob, cls)
    curves.set_history(snaps)
    curves.set_problem(prob, cls)
    assert len(curves.series("margin")[0]) == 0

    class Silent:
        views = frozenset({"canvas"})
        metric_keys = ()
        display_name = "Silent"

    ok, why = CurvesView.supports(Silent)
    assert not ok and "Silent" in why
    curves.set_problem(prob, Silent)
    assert curves.message.isVisible() and not curves.layout_widget.isVisible()
