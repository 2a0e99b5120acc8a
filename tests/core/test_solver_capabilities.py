"""Every registered algorithm through each capability its class declares (core.solvers.base.Solver): the app, the
estimators and the CLI read these attributes instead of lists of names, so each one must say what the solver does."""


import numpy as np
import pytest

from percviz.core.data import PointSet
from percviz.core.errors import ParameterError
from percviz.core.problem import Problem
from percviz.core.solvers import get_solver, load_all
from percviz.core.solvers.base import DEFAULT_ALGORITHM, DEPRECATED_NAMES, PAPER_RACE, REFERENCE_SVM

NAMES = sorted(load_all())


def _separable(cls) -> Problem:
    """Two tight clusters far apart (three for the linear machines), in the affine kernel and the linear map."""
    rng = np.random.default_rng(0)
    if cls.representation == "multiclass":
        X = np.vstack([rng.normal(c, 0.2, (4, 2)) for c in ([4, 0], [-4, 0], [0, 4])])
        return Problem(PointSet(X, np.repeat([0, 1, 2], 4)), "affine")
    X = np.vstack([rng.normal([3, 3], 0.2, (6, 2)), rng.normal([-3, -3], 0.2, (6, 2))])
    return Problem(PointSet.from_signed(X, np.r_[np.ones(6), -np.ones(6)]), "affine")


def _overlapping(cls, kernel="affine") -> Problem:
    rng = np.random.default_rng(1)
    X = np.vstack([rng.normal([0.8, 0.8], 1.0, (15, 2)), rng.normal([-0.8, -0.8], 1.0, (15, 2))])
    return Problem(PointSet.from_signed(X, np.r_[np.ones(15), -np.ones(15)]), kernel)


def _fast(cls) -> dict:
    return {"steps": 1} if "steps" in cls.params.names() else {}


@pytest.mark.parametrize("name", NAMES)
def test_capabilities_are_well_formed(name):
    cls = get_solver(name)
    assert cls.warm_start in (None, "alpha", "weights")
    assert cls.warm_start != "alpha" or cls.representation == "kernel"  # α: one coefficient per point
    assert cls.warm_start_on_reset or cls.warm_start is not None  # a Reset-only exception needs a warm start
    assert isinstance(cls.live_on_worker, bool) and isinstance(cls.scale_dependent, bool)
    assert not cls.start_is_an_update or cls.starts_away_from_zero
    assert isinstance(cls.no_fit_on_overlap, str)
    assert cls.no_fit_on_overlap == cls.no_fit_on_overlap.strip()


@pytest.mark.parametrize("name", NAMES)
def test_warm_start_as_declared(name):
    """"alpha": the last run's α gives the same optimum in no more updates; "weights": iterate 0 is the given
    weights; None: the constructor refuses the keyword."""
    cls = get_solver(name)
    problem = _overlapping(cls) if cls.representation != "multiclass" else _separable(cls)
    cold = cls(problem, max_iter=None if cls.warm_start == "alpha" else 300, **_fast(cls)).run()
    if cls.warm_start is None:
        with pytest.raises((ParameterError, TypeError)):
            cls(problem, warm_start=np.zeros(problem.n))
        return
    if cls.warm_start == "alpha":
        warm = cls(problem, warm_start=cold.alpha, **_fast(cls)).run()
        f0, f1 = (np.asarray(s.decision(problem.X)) for s in (cold, warm))
        np.testing.assert_allclose(f1, f0, atol=1e-5 * np.abs(f0).max())
        assert warm.iteration <= cold.iteration
        return
    w = np.asarray(cold.weights) * 0.5 + 0.1
    start = cls(problem, warm_start=w).start()
    np.testing.assert_array_equal(start.weights, w)
    assert np.asarray(cls(problem).start().weights).max() == 0.0  # without it: a = 0, as written


@pytest.mark.parametrize("name", NAMES)
def test_starts_away_from_zero_as_declared(name):
    """Iterate 0 is f ≢ 0 exactly when declared; a run that halts at iterate 0 is one that declares it, and on two
    far-apart clusters the declared one-shot starts (uniform α or p, the pseudoinverse) already separate."""
    cls = get_solver(name)
    problem = _separable(cls)
    for kernel in ("affine", "rbf") if cls.representation == "kernel" else ("affine",):
        problem = Problem(problem.points, kernel)
        start = cls(problem, **_fast(cls)).start()
        f0 = np.asarray(start.decision(problem.X))
        assert (np.abs(f0).max() > 0) == cls.starts_away_from_zero, kernel
        if start.status.done:
            assert cls.starts_away_from_zero
        if cls.starts_away_from_zero and "steps" not in cls.params.names():  # Akaho's steps continue from the SVM
            assert start.status.value == "separator", kernel


@pytest.mark.parametrize("name", [n for n in NAMES if get_solver(n).representation == "kernel"])
def test_scale_dependent_as_declared(name):
    """With the homogeneous linear kernel, a scale-free kernel algorithm's f on 2⁻²⁰·X is a positive multiple of
    its f on X (the CLI may rescale its points); a scale-dependent one's (the SVM's C) is not."""
    cls = get_solver(name)
    problem = _overlapping(cls, "linear")
    f = np.asarray(cls(problem, max_iter=200, **_fast(cls)).run().decision(problem.X))
    small = Problem(PointSet(problem.X * 2.0**-20, problem.points.classes), "linear")
    g = np.asarray(cls(small, max_iter=200, **_fast(cls)).run().decision(small.X))
    ratio = g / f
    proportional = bool(ratio.min() > 0 and np.ptp(ratio) <= 1e-6 * np.abs(ratio).max())
    assert proportional != cls.scale_dependent




def test_named_constants_are_registered():
    """The few names core.solvers keeps for the app and the CLI (so that neither quotes one) are registered."""
    for name in (DEFAULT_ALGORITHM, REFERENCE_SVM, *PAPER_RACE, *DEPRECATED_NAMES.values()):
        assert name in NAMES
