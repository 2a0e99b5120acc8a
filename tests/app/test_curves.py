"""The curves panel: the right metrics in the right plots, appends, scrubbing cursor, ρ_K, log toggles."""

import html
import math

import numpy as np
import pytest
from PySide6.QtGui import QFontMetrics
from PySide6.QtWidgets import QApplication

from percviz.app.panels.curves import SHORT_LABELS, CurvesView, fit_range, group_of, nice_ceil
from percviz.core import datasets
from percviz.core.problem import Problem
from percviz.core.solvers import get_solver, load_all
from percviz.core.solvers.base import METRICS

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


def test_nice_ceil_and_fit_range():
    assert [nice_ceil(v) for v in (1, 5, 7, 13, 1001, 0.031)] == [1, 5, 8, 15, 1200, pytest.approx(0.04)]
    assert fit_range((0.0, 10.0), 1.0, 9.0, False) == (0.0, 10.0)  # still fits and fills it: unchanged
    lo, hi = fit_range((0.0, 10.0), 1.0, 12.0, False)  # data left the range: refit with room
    assert lo < 1.0 and hi > 12.0 and hi - lo < 1.2 * 11.0
    assert fit_range((0.0, 10.0), 4.0, 5.0, False) != (0.0, 10.0)  # data fill too little of it


class _Fake:
    display_name = "Fake"
    views = frozenset({"canvas", "curves"})
    metric_keys = ("alpha_g_norm", "margin", "train_errors")


def _snap(k):
    from percviz.core.decision import ZeroDecision
    from percviz.core.solvers.base import Snapshot, Status

    return Snapshot(k, Status.RUNNING, ZeroDecision(), {"alpha_g_norm": 1.0 + k, "margin": -1.0 / (1 + k),
                                                          "train_errors": max(0, 40 - k)})


def test_axis_ranges_follow_the_run_in_few_steps(curves, run):
    prob, _, _ = run
    curves.set_problem(prob, _Fake)
    x_changes, y_changes = [], {g: [] for g in curves.plots}
    curves.plots["norms"].vb.sigXRangeChanged.connect(lambda *_: x_changes.append(1))
    for g, p in curves.plots.items():
        p.vb.sigYRangeChanged.connect(lambda *_, g=g: y_changes[g].append(1))
    for k in range(400):
        curves.set_snapshot(_snap(k))
    # a range change per frame would be 400 each (and a repaint of every axis each frame)
    assert len(x_changes) <= 25 and all(len(v) <= 25 for v in y_changes.values())
    (x0, x1), (y0, y1) = curves.plots["counts"].vb.viewRange()
    assert x0 <= 0 and 399 <= x1 <= 1.05 * nice_ceil(399)
    assert y0 <= 0 and 40 <= y1 <= 40 * 1.3
    (_, _), (y0, y1) = curves.plots["norms"].vb.viewRange()  # log axis: log10 of 1 .. 400
    assert y0 <= 0 <= np.log10(400) <= y1
    # a pan by hand stops the following until the next run
    curves.plots["counts"].vb.translateBy(x=-50)
    curves.plots["counts"].vb.sigRangeChangedManually.emit([True, True])
    curves.set_snapshot(_snap(2000))
    assert curves.plots["counts"].vb.viewRange()[0][1] < 2000
    curves.set_problem(prob, _Fake)
    curves.set_snapshot(_snap(0))
    curves.set_snapshot(_snap(2000))
    assert curves.plots["counts"].vb.viewRange()[0][1] >= 2000


def test_legend_names_every_curve_distinctly_at_desk_and_presentation_sizes(qtbot):
    from percviz.app.theme import theme_for
    from percviz.core.solvers import get_solver

    view = CurvesView(None)
    qtbot.addWidget(view)
    view.resize(944, 200)  # the curves panel of the main window at 1280×800
    view.show()
    qtbot.waitExposed(view)
    for name in ("isnkpvn", "svm", "snkp"):
        cls = get_solver(name)
        view.set_problem(Problem(datasets.separable(), kernel="affine"), cls)
        view.set_reference(0.05)
        for theme in (theme_for("light"), theme_for("colorblind", 2.0)):
            view.apply_theme(theme)
            QApplication.processEvents()
            text = view.legend.text()
            for k in cls.metric_keys:  # every curve is in the legend, in its colour
                label = SHORT_LABELS.get(k, METRICS[k].label)
                assert html.escape(label).replace(" ", "&nbsp;") in text and view.colors[k] in text
            looks = {(view.colors[k], view._styles[k]) for k in view.curves}
            assert len(looks) == len(view.curves)  # no two curves look alike
            # the legend wraps inside the panel and never makes it wider than the window gives
            assert view.legend.width() <= view.width() and view.minimumSizeHint().width() <= view.width()
            assert view.legend.heightForWidth(view.legend.width()) <= 3 * QFontMetrics(view.legend.font()).height() + 8
            for box in view.log_boxes.values():  # the log toggles do not overlap the legend or each other
                assert box.isVisible() and not box.geometry().intersects(view.legend.geometry())


def test_a_bound_far_above_the_counts_is_left_out_of_their_range(curves, run):
    prob, _, _ = run
    from percviz.core.decision import ZeroDecision
    from percviz.core.solvers.base import Snapshot, Status

    class Counting:
        display_name = "Counting"
        views = frozenset({"canvas", "curves"})
        metric_keys = ("train_errors", "mistakes", "bound")

    curves.set_problem(prob, Counting)
    for k in range(30):
        curves.set_snapshot(Snapshot(k, Status.RUNNING, ZeroDecision(), {"train_errors": 5 - k % 5, "mistakes": k,
                                                                          "bound": 31000.0}))
    (_, _), (y0, y1) = curves.plots["counts"].vb.viewRange()
    assert y0 <= 0 and 29 <= y1 < 40  # the mistakes fill the plot; the bound (31000) is not squashing them
    assert "far&nbsp;above&nbsp;the&nbsp;plot" in curves.legend.text()
    curves.log_boxes["counts"].setChecked(True)  # on a log axis the bound is in range again
    (_, _), (y0, y1) = curves.plots["counts"].vb.viewRange()
    assert y1 >= np.log10(31000) and "far&nbsp;above" not in curves.legend.text()


def test_lone_iteration_zero_is_drawn_as_dots_then_lines(curves, run):
    prob, cls, snaps = run
    curves.set_problem(prob, cls)
    curves.set_history(snaps[:1])
    curves.flush()
    assert all(c.opts["symbol"] == "o" for c in curves.curves.values())
    curves.set_history(snaps[:3])
    curves.flush()
    assert all(c.opts["symbol"] is None for c in curves.curves.values())


def test_objectives_share_the_criteria_plot_not_the_margin_plot():
    keys = ("objective", "margin", "train_errors")
    assert group_of("objective", keys) == "norms" and group_of("margin", keys) == "margins"


def test_iteration_axis_writes_thousands_and_millions_compactly(qapp):
    from percviz.app.panels.curves.axes import _IterationAxis

    ax = _IterationAxis("bottom")
    assert ax.tickStrings([0, 10000, 20000], 1, 10000) == ["0", "10k", "20k"]
    assert ax.tickStrings([0, 2e6, 4e6], 1, 2e6) == ["0", "2M", "4M"]
    assert ax.tickStrings([0, 500, 1000], 1, 500) == ["0", "500", "1000"]  # small counts as they are
    assert ax.tickStrings([0, 5000], 1, 5000) == ["0", "5k"]  # room for a label on a narrow plot at 3×
    assert ax.tickStrings([12000, 12500], 1, 500) == ["12000", "12500"]  # never "12.5k" beside "12k"


def test_iteration_ticks_keep_their_labels_apart_on_a_narrow_axis(qapp):
    from PySide6.QtGui import QFont, QFontMetricsF

    from percviz.app.panels.curves.axes import _IterationAxis

    ax = _IterationAxis("bottom")
    font = QFont()
    font.setPointSizeF(20)  # a projector's font
    ax.setTickFont(font)
    (major, _), *_ = ax.tickSpacing(0, 40000, 230)  # 230 px for 40,000 iterations
    label = QFontMetricsF(font).horizontalAdvance("30k")
    assert major / 40000 * 230 >= 1.3 * label  # neighbouring labels do not touch
    assert major <= 20000  # and some remain inside the range
    assert ax.tickSpacing(0, 50, 600) == pg_axis_spacing(0, 50, 600)  # roomy axes tick as pyqtgraph does


def pg_axis_spacing(lo, hi, size):
    import pyqtgraph as pg

    return pg.AxisItem("bottom").tickSpacing(lo, hi, size)


def test_a_curve_without_two_finite_values_in_a_row_is_drawn_as_dots(curves):
    prob = Problem(datasets.separable(), kernel="affine", features="linear")
    cls = get_solver("fixed-increment")
    snaps = list(cls(prob, max_iter=1).snapshots())
    assert len(snaps) == 2 and "margin" not in snaps[0].metrics and "margin" in snaps[1].metrics  # a = 0 first
    curves.set_problem(prob, cls)
    curves.set_history(snaps)
    curves.flush()
    assert curves.curves["margin"].opts["symbol"] == "o"  # one finite value: a dot, not an empty plot
    assert curves.curves["train_errors"].opts["symbol"] is None  # two values: a line
    more = list(cls(prob, max_iter=3).snapshots())
    curves.set_problem(prob, cls)
    curves.set_history(more)
    curves.flush()
    assert curves.curves["margin"].opts["symbol"] is None


def test_iteration_axis_ticks_are_whole_numbers_and_narrow_log_axes_have_labels(qapp):
    from percviz.app.panels.curves.axes import _DecadeAxis, _IterationAxis

    axis = _IterationAxis("bottom")
    for step, _offset in axis.tickSpacing(0.0, 1.0, 400):
        assert step >= 1 and step == int(step)
    log = _DecadeAxis("left")
    log.setLogMode(False, True)
    lo, hi = math.log10(0.31), math.log10(0.335)
    (_, values), = log.logTickValues(lo, hi, 300, [])
    assert len(values) >= 2 and all(lo <= v <= hi + 1e-12 for v in values)
    labels = log.tickStrings(values, 1.0, 1.0)
    assert len(set(labels)) == len(labels)  # distinct labels, not '0.3' three times
def test_a_presets_curves_and_log_y_choose_the_plotted_metrics_and_their_axes(qtbot):
    from percviz.core.data import PointSet
    from percviz.core.presets import ViewSettings

    curves = CurvesView()
    qtbot.addWidget(curves)
    cls = get_solver("perceptron")
    prob = Problem(PointSet(np.array([[0.0, 1.0], [1.0, 0.0]]), np.array([0, 1])))
    curves.set_problem(prob, cls)
    assert curves.buffers.keys == cls.metric_keys
    curves.apply_view(ViewSettings(curves=("weight_norm", "mistakes"), log_y=True))
    assert curves.buffers.keys == ("weight_norm", "mistakes")
    assert all(box.isChecked() for box in curves.log_boxes.values())
    curves.apply_view(ViewSettings())  # back to the solver's own metrics and default axes
    assert curves.buffers.keys == cls.metric_keys


def test_a_log_axis_within_one_decade_labels_at_least_two_values(qapp):
    from percviz.app.panels.curves.axes import _DecadeAxis

    log = _DecadeAxis("left")
    log.setLogMode(False, True)
    for lo, hi in ((2.75, 9.75), (1.1, 1.9), (0.31, 0.335), (12.0, 48.0), (3.0, 4.2)):  # 2.75…9.75 had only "5"
        (_, values), = log.logTickValues(math.log10(lo), math.log10(hi), 120, [])
        shown = [10.0**v for v in values]
        assert len(shown) >= 2 and all(lo * (1 - 1e-9) <= v <= hi * (1 + 1e-9) for v in shown), (lo, hi, shown)
        labels = log.tickStrings(values, 1.0, 1.0)
        assert len(set(labels)) == len(labels), labels


def test_a_theme_or_scale_change_restyles_the_curves_in_place(curves, run):
    from PySide6.QtGui import QColor

    from percviz.app.theme import theme_for

    prob, cls, snaps = run
    curves.set_problem(prob, cls)
    curves.set_history(snaps)
    curves.flush()
    items = dict(curves.curves)
    for theme in (theme_for("dark"), theme_for("dark", 3.0), theme_for("light", 2.0)):
        curves.apply_theme(theme)
        assert curves.curves == items  # the same items, not new ones
        palette = [theme.foreground, *theme.class_colors]
        for i, key in enumerate(k for k in cls.metric_keys if k != "bound"):
            pen = items[key].opts["pen"]
            assert pen.color().name() == QColor(palette[i % len(palette)]).name()
            assert pen.widthF() == pytest.approx(theme.line_width)
        x, y = _plotted(curves, "margin")  # the data stay
        np.testing.assert_allclose(y, [s.metrics["margin"] for s in snaps])
