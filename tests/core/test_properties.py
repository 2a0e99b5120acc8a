"""Property tests over the whole registry (hypothesis, derandomized, bounded: a few examples per algorithm).

Random point sets at scales 1e-12 … 1e6, with duplicates and collinear points, and random parameters at, inside
and beyond their ranges. Every run either refuses with one clear PercvizError or ends with finite numbers and
claims that hold: a separator classifies every point on its side, a proof of non-separability agrees with an
exact LP, and (for the affine/linear case, where separability does not depend on the scale) no claim contradicts
the verdict on the same points at another scale.
"""

import math

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from lp_oracle import lp_separable

from percviz.core.data import PointSet
from percviz.core.errors import PercvizError
from percviz.core.problem import Problem
from percviz.core.solvers import Status, load_all

ALGOS = load_all()
SCALES = [1e-12, 1e-9, 1e-6, 1e-3, 1.0, 1e3, 1e6]
SETTINGS = settings(max_examples=10, deadline=None, derandomize=True, database=None,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


@st.composite
def point_sets(draw, classes: int = 2):
    n = draw(st.integers(max(2, classes), 10))
    coords = st.floats(-1, 1, allow_nan=False, allow_infinity=False, width=32)
    X = np.array(draw(st.lists(st.tuples(coords, coords), min_size=n, max_size=n)), float)
    shape = draw(st.sampled_from(["plain", "duplicates", "collinear"]))
    if shape == "duplicates":
        X[n // 2 :] = X[: n - n // 2]
    elif shape == "collinear":
        t = X[:, 0]
        X = np.column_stack([t, 0.5 * t + 0.1])
    X = X * draw(st.sampled_from(SCALES))
    labels = np.array(draw(st.lists(st.integers(0, classes - 1), min_size=n, max_size=n)))
    labels[:classes] = np.arange(classes)  # every class present
    return PointSet(X, labels)


def param_values(draw, spec):
    """A value inside, at the ends of, or beyond a parameter's range (the last must be refused)."""
    if spec.type == "choice":
        return draw(st.sampled_from(spec.choices))
    if spec.type is bool:
        return draw(st.booleans())
    lo = spec.low if spec.low is not None else -1e3
    hi = spec.high if spec.high is not None else 1e3
    kind = draw(st.sampled_from(["inside", "inside", "low", "high", "beyond", "huge"]))
    if kind == "low":
        v = lo
    elif kind == "high":
        v = hi
    elif kind == "beyond":
        v = hi * 10 + 1 if spec.high is not None else math.inf
    elif kind == "huge":
        v = draw(st.sampled_from([1e300, -1e300, math.nan, 1e99]))
    else:
        v = draw(st.floats(lo, min(hi, lo + 1e3), allow_nan=False, allow_infinity=False))
    return int(v) if spec.type is int and math.isfinite(v) and v == int(v) else v


def check_run(cls, problem, params):
    """Run; return the final snapshot, or None when refused with a clear error."""
    try:
        s = cls(problem, max_iter=300, **params).run()
    except PercvizError as e:
        assert str(e) and "\n" not in str(e).strip()
        return None
    assert all(math.isfinite(v) for v in s.metrics.values()), s.metrics
    for arr in (s.weights, s.alpha, s.p):
        assert arr is None or np.isfinite(arr).all()
    if s.status is Status.SEPARATOR:
        f = s.decision(problem.X)
        if f.ndim == 1:
            assert (problem.y * f > 0).all(), s.message
        else:
            assert (f.argmax(axis=1) == problem.points.classes).all()
    if s.status is Status.NONSEPARABLE:
        assert not lp_separable(problem.Y), s.message
    if s.status is Status.CERTIFICATE:
        assert s.p is not None and s.p.min() >= -1e-12 and abs(s.p.sum() - 1) < 1e-9
    return s


@pytest.mark.parametrize("name", sorted(ALGOS))
@SETTINGS
@given(data=st.data())
def test_every_algorithm_on_random_sets_and_parameters(name, data):
    cls = ALGOS[name]
    pts = data.draw(point_sets(3 if cls.representation == "multiclass" else 2))
    params = {}
    for spec in cls.params.specs:
        if spec.name == "bound":
            params["bound"] = False  # the ρ_K metric has its own budget (gram); not under test here
        elif data.draw(st.booleans()):
            params[spec.name] = param_values(data.draw, spec)
    kernel = data.draw(st.sampled_from(["affine", "rbf:gamma=0.5", "poly:degree=2"]))
    try:
        problem = Problem(pts, kernel=kernel)
    except PercvizError:
        return
    check_run(cls, problem, params)


FEATURE_ALGOS = sorted(n for n, c in ALGOS.items() if c.representation == "features")


@pytest.mark.parametrize("name", FEATURE_ALGOS)
@SETTINGS
@given(pts=point_sets(), s1=st.sampled_from(SCALES), s2=st.sampled_from(SCALES))
def test_claims_do_not_depend_on_the_scale(name, pts, s1, s2):
    # Linear φ: the set is separable at every scale or at none, so no two scales may give opposite claims.
    verdicts = set()
    for s in (s1, s2):
        problem = Problem(PointSet(pts.X * s, pts.classes))
        snap = check_run(ALGOS[name], problem, {})
        if snap is not None and snap.status in (Status.SEPARATOR, Status.NONSEPARABLE):
            verdicts.add(snap.status)
    assert len(verdicts) <= 1
