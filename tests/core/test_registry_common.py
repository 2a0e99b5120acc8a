"""Common checks over every registered algorithm (scikit-learn-style): whatever a helper adds is covered."""

import math

import numpy as np
import pytest

from percviz.core.data import PointSet
from percviz.core.decision import DecisionFunction
from percviz.core.errors import DataError, ParameterError, PercvizError
from percviz.core.params import ParamSpec
from percviz.core.problem import Problem
from percviz.core.solvers import METRICS, Snapshot, Status, by_family, get_solver, load_all

NAMES = sorted(load_all())
VIEWS = {"canvas", "curves", "weight", "feature"}


def two_class() -> PointSet:
    X = [[0.2, 1.0], [1.0, 1.4], [0.6, 2.0], [1.5, -0.5], [2.2, 0.3], [2.8, -0.2]]
    return PointSet.from_signed(X, [1, 1, 1, -1, -1, -1])


def three_class() -> PointSet:
    X = [[0, 2], [0.3, 2.4], [-0.2, 2.2], [2, -1], [2.4, -0.8], [2.1, -1.3], [-2, -1], [-2.3, -0.7], [-1.8, -1.2]]
    return PointSet(np.asarray(X, dtype=float), [0, 0, 0, 1, 1, 1, 2, 2, 2])


def tiny_problem(cls) -> Problem:
    return Problem(three_class() if cls.representation == "multiclass" else two_class())


def solver(name, max_iter=None, **params):
    cls = get_solver(name)
    return cls(tiny_problem(cls), max_iter=max_iter, **params)


def test_registry_has_the_paper_algorithms():
    for name in ("perceptron", "normalized-perceptron", "kernel-perceptron", "nkp", "snkp", "nvn", "snkpvn", "isnkpvn"):
        assert name in NAMES
    listed = [name for name in NAMES if get_solver(name).alias_of is None]  # an alias ('smo') is not listed
    assert sum(len(v) for v in by_family().values()) == len(listed)
    for name in set(NAMES) - set(listed):
        assert get_solver(name).alias_of in listed


@pytest.mark.parametrize("name", NAMES)
def test_metadata(name):
    cls = get_solver(name)
    assert cls.name == name and cls.display_name and cls.family
    assert cls.representation in ("kernel", "features", "multiclass")
    assert set(cls.views) <= VIEWS and "canvas" in cls.views
    assert set(cls.metric_keys) <= set(METRICS) and len(set(cls.metric_keys)) == len(cls.metric_keys)
    assert cls.default_max_iter >= 1
    names = cls.params.names()
    assert len(set(names)) == len(names) and "max_iter" not in names
    for spec in cls.params.specs:
        assert isinstance(spec, ParamSpec) and spec.help
        assert spec.coerce(spec.default) == spec.default  # every default is in its own range
    assert cls.params.validate({}) == cls.params.defaults()


@pytest.mark.parametrize("name", NAMES)
def test_runs_and_yields_frozen_snapshots(name):
    s = solver(name, max_iter=300)
    n = s.problem.n
    grid = np.column_stack([np.linspace(-3, 3, 11), np.linspace(3, -3, 11)])
    snaps = []
    for snap in s.snapshots():
        assert isinstance(snap, Snapshot)
        assert snap.iteration == len(snaps)
        assert isinstance(snap.decision, DecisionFunction)
        v = np.asarray(snap.decision(grid))
        assert v.shape[0] == 11 and np.isfinite(v).all()
        assert set(np.unique(snap.decision.predict(grid))) <= set(range(max(2, snap.decision.n_outputs)))
        assert set(snap.metrics) <= set(s.metric_keys), set(snap.metrics) - set(s.metric_keys)
        assert all(isinstance(x, float) and not math.isnan(x) for x in snap.metrics.values())
        assert all(0 <= t < n for t in snap.triggers)
        for arr in (snap.alpha, snap.p, snap.weights):
            if arr is not None:
                assert not arr.flags.writeable
        with pytest.raises((TypeError, AttributeError)):
            snap.metrics["x"] = 1.0
        with pytest.raises(AttributeError):
            snap.iteration = 5
        snaps.append(snap)
        assert len(snaps) <= 302
    assert snaps[0].iteration == 0 and snaps[-1].status.done
    assert all(not x.status.done for x in snaps[:-1])
    assert s.step() is snaps[-1]  # once done, step() returns the last snapshot again
    again = solver(name, max_iter=300).run()  # deterministic
    assert (again.iteration, again.status) == (snaps[-1].iteration, snaps[-1].status)


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("limit", [0, 1, 3])
def test_honours_max_iter(name, limit):
    s = solver(name, max_iter=limit)
    first = s.start()
    assert first.iteration == 0
    if limit == 0:
        assert first.status.done
    last = s.advance(10**6)
    assert last.status.done and last.iteration <= limit
    if last.status is Status.MAX_ITER:
        assert last.iteration == limit
    assert s.iteration == last.iteration


def _out_of_range(spec: ParamSpec) -> list:
    """Values each spec must refuse."""
    bad: list = []
    if spec.type == "choice":
        return ["no-such-choice", 3]
    if spec.type is bool:
        return ["maybe", 2]
    if spec.low is not None:
        bad.append(spec.low if spec.low_open else spec.low - 1)
    if spec.high is not None:
        bad.append(spec.high if spec.high_open else spec.high + 1)
    if spec.type is int:
        bad.append(1.5)
    return bad + ["not-a-number", float("nan")]


@pytest.mark.parametrize("name", NAMES)
def test_rejects_bad_parameters(name):
    cls = get_solver(name)
    pr = tiny_problem(cls)
    for spec in cls.params.specs:
        for value in _out_of_range(spec):
            with pytest.raises(ParameterError, match=spec.name):
                cls(pr, **{spec.name: value})
    with pytest.raises(ParameterError, match="no_such_parameter"):
        cls(pr, no_such_parameter=1)
    for bad in (-1, 2.5, "ten"):
        with pytest.raises(ParameterError, match="max_iter"):
            cls(pr, max_iter=bad)


@pytest.mark.parametrize("name", NAMES)
def test_refuses_unusable_data_with_a_clear_error(name):
    cls = get_solver(name)
    if cls.representation == "multiclass":
        return
    one_class = PointSet.from_signed([[0.0, 1.0], [1.0, 2.0]], [1, 1])
    with pytest.raises(DataError, match="−"):
        cls(Problem(one_class))
    with pytest.raises(DataError, match="two classes"):
        cls(Problem(three_class()))


NON_SEPARABLE = PointSet.from_signed([[0, 0], [1, 1], [0, 1], [1, 0], [0.5, 0.5]], [1, 1, -1, -1, -1])


@pytest.mark.parametrize("name", NAMES)
def test_non_separable_data_runs_or_is_refused_clearly(name):
    cls = get_solver(name)
    if cls.representation == "multiclass":
        return
    try:
        s = cls(Problem(NON_SEPARABLE), max_iter=200)
        last = s.run()
    except PercvizError as err:  # e.g. a hard-margin method refusing: fine, with a message
        assert str(err)
        return
    assert last.status.done and last.status is not Status.SEPARATOR
