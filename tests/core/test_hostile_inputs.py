"""Every registered solver on hostile but legal data: a final status with finite numbers, or a PercvizError.

Never a bare numpy warning or exception. Warnings are turned into errors here, so a RuntimeWarning
(overflow, 0/0, …) anywhere in a run fails the test.
"""

import warnings

import numpy as np
import pytest

from percviz.core.data import PointSet
from percviz.core.errors import PercvizError
from percviz.core.problem import Problem
from percviz.core.solvers import load_all

SOLVERS = load_all()
MAX_ITER = 40

_rng = np.random.default_rng(0)
_BASE = _rng.normal(size=(12, 2))
_Y = np.where(_BASE[:, 0] + 0.3 * _BASE[:, 1] > 0, 1, -1)
_BIG = _rng.normal(size=(500, 2))


def _points(X, y) -> PointSet:
    return PointSet.from_signed(np.asarray(X, dtype=float), np.asarray(y))


CASES = {
    "duplicates-same-label": _points(np.vstack([_BASE, _BASE[:3]]), np.r_[_Y, _Y[:3]]),
    "duplicate-opposite-label": _points(np.vstack([_BASE, _BASE[:1]]), np.r_[_Y, -_Y[:1]]),
    "collinear": _points(np.column_stack([np.linspace(-1, 1, 10), 2 * np.linspace(-1, 1, 10) + 0.5]),
                         np.r_[np.ones(5), -np.ones(5)]),
    "far-1e6": _points(_BASE * 1e6, _Y),
    "tiny-1e-6": _points(_BASE * 1e-6 + 1e-6, _Y),
    "one-per-class": _points([[0.3, 0.5], [-0.2, 0.1]], [1, -1]),
    "coordinates-50": _points(_BASE * 50, _Y),
    "500-points": _points(_BIG, np.where(_BIG[:, 0] ** 2 + _rng.normal(size=500) > 1, 1, -1)),
}
KERNELS = ["linear", "affine", "poly:degree=8,c=1", "rbf:gamma=1000", "rbf:gamma=0.0001", "laplacian:gamma=1"]
FEATURES = ["linear", "poly:degree=8"]


def _run(cls, problem: Problem, **values):
    """Run to the end with warnings as errors; return the last snapshot, or None after a PercvizError."""
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        try:
            solver = cls(problem, max_iter=MAX_ITER, **values)
            snap = solver.run()
            f = np.asarray(snap.decision(problem.X))
        except PercvizError as e:
            assert str(e) and str(e)[0].isupper() and len(str(e)) > 30, f"unclear message: {e!r}"
            return None
    assert snap.status.done and snap.iteration <= MAX_ITER
    bad = {k: v for k, v in snap.metrics.items() if not np.isfinite(v)}
    assert not bad, f"non-finite metrics {bad}"
    assert np.isfinite(f).all(), "non-finite decision values"
    for name in ("alpha", "p", "weights"):
        a = getattr(snap, name)
        assert a is None or np.isfinite(a).all(), f"non-finite {name}"
    return snap


def _values(cls, case: str) -> dict:
    # ρ_K for the bound metric is a cone program of size n: on 500 points it is measured separately
    # (tests/core/test_gram.py), not once per solver here
    names = cls.params.names()
    return {"bound": False} if case == "500-points" and "bound" in names else {}


@pytest.mark.parametrize("case", list(CASES))
@pytest.mark.parametrize("kernel", KERNELS)
def test_kernel_solvers(case, kernel):
    if case == "coordinates-50" and not kernel.startswith("poly"):
        pytest.skip("the overflow case is for the polynomial kernel")
    problem = Problem(CASES[case], kernel=kernel)
    outcomes = {}
    for name, cls in SOLVERS.items():
        if cls.representation == "kernel":
            outcomes[name] = _run(cls, problem, **_values(cls, case))
    assert outcomes


@pytest.mark.parametrize("case", list(CASES))
@pytest.mark.parametrize("features", FEATURES)
def test_weight_vector_and_multiclass_solvers(case, features):
    if case == "coordinates-50" and features == "linear":
        pytest.skip("the overflow case is for the degree-8 map")
    problem = Problem(CASES[case], features=features)
    for cls in SOLVERS.values():
        if cls.representation in ("features", "multiclass"):
            _run(cls, problem, **_values(cls, case))


def test_refusals_say_what_to_do():
    """The expected refusals on this data: a point at the origin (K(x, x) = 0 for the linear kernel), the degree-8 map
    on coordinates ~1e6. Tiny points alone are no longer refused: a homogeneous kernel's claims are scale-free."""
    X = CASES["tiny-1e-6"].X.copy()
    X[0] = 0.0
    at_origin = Problem(_points(X, _Y), kernel="linear")
    with pytest.raises(PercvizError, match="cannot be normalized.*Move or delete"):
        SOLVERS["snkp"](at_origin).run()
    tiny = SOLVERS["snkp"](Problem(CASES["tiny-1e-6"], kernel="linear"), max_iter=MAX_ITER).run()
    base = SOLVERS["snkp"](Problem(_points(_BASE + 1.0, _Y), kernel="linear"), max_iter=MAX_ITER).run()
    assert tiny.status == base.status  # the same set scaled by 1e-6: the same verdict
    far = Problem(CASES["far-1e6"], features="poly:degree=8")
    for name in ("rls", "mse", "fixed-increment", "ho-kashyap"):
        with pytest.raises(PercvizError, match="reaches 8.5.e[+]50.*Scale the points down"):
            SOLVERS[name](far)
