"""The faster input-space SVM computes what it computed before (issue 26): feet and margins against the reference
written by the code of c4174b0 before the speed work (tests/core/data/akaho_reference.json, bench/bench_akaho.py),
and against an independent constrained minimisation (scipy's SLSQP from many starts)."""

import json
import sys
from pathlib import Path

import numpy as np
import pytest
from scipy.optimize import minimize

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "bench"))
from bench_akaho import moved, reference_sets, run  # noqa: E402

REFERENCE = json.loads((Path(__file__).parent / "data" / "akaho_reference.json").read_text())
SETS = {name: (ps, kernel, params) for name, ps, kernel, params in reference_sets()}
FAST = ["circles50", "circles50-hard", "moons40-rbf", "moons40-poly3", "moons30-live"]
SLOW = ["circles100", "circles200"]


def _compare(solver, snap, ref, step_feet=True):
    assert solver._best.index == ref["best"]
    assert snap.metrics.get("input_margin") == pytest.approx(ref["input_margin"], abs=1e-6)
    assert snap.metrics.get("input_margin_estimate") == pytest.approx(ref["input_margin_estimate"], abs=1e-6)
    np.testing.assert_allclose(np.ravel(snap.feet), ref["feet"], atol=1e-6, rtol=0)
    # the kept step's distances: never longer than before (the nearest-foot polish can only find nearer feet)
    assert (solver._best.measured.distances <= np.asarray(ref["distances"]) + 1e-6).all()
    for step, r in zip(solver._steps, ref["steps"]):
        assert step.estimate == pytest.approx(r["estimate"], abs=1e-6)
        if step_feet and "feet" in r:
            np.testing.assert_allclose(step.feet.ravel(), r["feet"], atol=1e-6, rtol=0)
    assert len(solver._steps) == len(ref["steps"])


def _check(name):
    ps, kernel, params = SETS[name]
    solver, snap = run(ps, kernel, **params)
    _compare(solver, snap, REFERENCE[name]["cold"])
    warm_solver, warm = run(moved(ps), kernel, warm=snap.alpha, **params)  # Live's rerun after a drag
    # the warm rerun's QPs are solved on working sets (equal to Clarabel's tolerance): its intermediate steps'
    # slowed-down points may settle elsewhere, so only the estimates and the kept step are held there
    _compare(warm_solver, warm, REFERENCE[name]["warm_moved"], step_feet=False)


@pytest.mark.parametrize("name", FAST)
def test_feet_and_margins_are_the_reference_ones(name):
    _check(name)


@pytest.mark.slow
@pytest.mark.parametrize("name", SLOW)
def test_feet_and_margins_are_the_reference_ones_on_the_larger_circles(name):
    _check(name)


def _slsqp_nearest(dec, x, starts):
    """The nearest point of f = 0 to x found by SLSQP from each start (only results on the curve count)."""
    best = np.inf
    for x0 in starts:
        res = minimize(lambda z: np.sum((z - x) ** 2), x0, jac=lambda z: 2 * (z - x), method="SLSQP",
                       constraints=[{"type": "eq", "fun": lambda z: dec(z[None])[0],
                                     "jac": lambda z: dec.gradient(z[None])[0]}],
                       options={"ftol": 1e-15, "maxiter": 500})
        f, g = dec.value_and_gradient(res.x[None])
        if abs(f[0]) <= 1e-10 * max(np.linalg.norm(g[0]), 1e-300):
            best = min(best, float(np.linalg.norm(res.x - x)))
    return best


@pytest.mark.slow
@pytest.mark.parametrize("name", ["circles50", "moons40-poly3"])
def test_the_kept_feet_are_no_farther_than_slsqp_s_nearest_points(name):
    ps, kernel, params = SETS[name]
    solver, snap = run(ps, kernel, **params)
    dec, X = snap.decision, ps.X
    dist = np.linalg.norm(np.asarray(snap.feet) - X, axis=1)
    f, g = dec.value_and_gradient(np.asarray(snap.feet))
    assert np.max(np.abs(f) / np.linalg.norm(g, axis=1)) <= 1e-8  # the feet lie on f = 0
    rng = np.random.default_rng(0)
    for i in np.argsort(dist)[:8]:  # the points that set the margin
        starts = [X[i], snap.feet[i]] + [snap.feet[i] + 0.4 * rng.normal(size=2) for _ in range(6)]
        found = _slsqp_nearest(dec, X[i], starts)
        assert np.isfinite(found)
        assert dist[i] <= found * (1 + 1e-8) + 1e-12
