"""The input-space SVM made cheaper for Live: f and ∇f in one pass, (12) for all points at once, (17) batched,
and the warm-started working-set QPs, each against an independent computation."""

import numpy as np
import pytest
from scipy.optimize import minimize

from percviz.core import akaho
from percviz.core.data import PointSet
from percviz.core.decision import DerivativeExpansion
from percviz.core.input_distance import ON_CURVE, input_distances, project
from percviz.core.kernels import parse_kernel
from percviz.core.problem import Problem
from percviz.core.shipped import _moons
from percviz.core.solvers import get_solver

KERNELS = ["rbf:gamma=0.7", "poly:degree=3,c=1", "poly:degree=2,c=0.5", "affine"]


def _expansion(spec, d, seed=1, m=9):
    r = np.random.default_rng(seed)
    return DerivativeExpansion(parse_kernel(spec), r.normal(size=(m, d)), r.normal(size=m), r.normal(size=(m, d)), 0.3)


@pytest.mark.parametrize("spec", KERNELS)
@pytest.mark.parametrize("d", [2, 3])
def test_value_and_gradient_match_the_separate_forms_and_central_differences(spec, d):
    D = _expansion(spec, d)
    Z = np.random.default_rng(5).normal(size=(13, d))
    f, g = D.value_and_gradient(Z)
    np.testing.assert_allclose(f, D(Z), rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(g, D.gradient(Z), rtol=1e-10, atol=1e-10)
    h = 1e-6
    fd = np.stack([(D(Z + h * e) - D(Z - h * e)) / (2 * h) for e in np.eye(d)], axis=1)
    np.testing.assert_allclose(g, fd, rtol=1e-5, atol=1e-6)


def _project_one(decision, x, start, max_iter=200):
    """(12) for one point, written out as the module text states it (the reference for the batched form)."""
    xl = np.array(start, dtype=float)
    scale = 1.0 + np.abs(x).max()
    max_step = 0.2 * max(float(np.ptp(np.vstack([x, xl]), axis=0).max()), 1.0)
    rate, last = 1.0, np.inf
    for _ in range(max_iter):
        f = float(decision(xl[None])[0])
        g = decision.gradient(xl[None])[0]
        gg = float(g @ g)
        if not (np.isfinite(gg) and gg > 1e-300 and np.isfinite(f)):
            return xl, False
        target = x - g * (f - (xl - x) @ g) / gg
        step = float(np.linalg.norm(target - xl))
        if abs(f) / np.sqrt(gg) <= ON_CURVE * scale and step <= 1e-10 * scale:
            return xl, True
        if step >= last:
            rate *= 0.5
        xl = xl + rate * min(1.0, max_step / max(step, 1e-300)) * (target - xl)
        last = step
        if rate <= 1e-6:
            return xl, False
    return xl, False


def test_batched_projection_agrees_with_the_per_point_iteration_and_lies_on_the_curve():
    pts = _moons(30, 0.1, 13)
    pr = Problem(pts, "rbf:gamma=2")
    svm = get_solver("svm")(pr, margin="hard", show_iterations=False).run()
    X = pr.X
    dec = svm.decision
    starts = X + 0.05 * np.random.default_rng(3).normal(size=X.shape)
    # each point alone, so that the per-point max_step is the batched one's (it is a fifth of the set's span)
    batch = project(dec, X, starts)
    span = 0.2 * max(float(np.ptp(np.concatenate([X, starts]), axis=0).max()), 1.0)
    one = [project(dec, X[i:i + 1], starts[i:i + 1], max_step=span) for i in range(len(X))]
    np.testing.assert_allclose(batch.feet, np.vstack([o.feet for o in one]), atol=1e-12)
    assert batch.converged.tolist() == [bool(o.converged[0]) for o in one]
    assert batch.converged.sum() >= 0.8 * len(X)
    # and a plain loop of (12) on the separate f and ∇f lands on the same feet
    ref = np.zeros(len(X), dtype=bool)
    for i in range(len(X)):
        foot, ok = _project_one(dec, X[i], starts[i])
        ref[i] = ok
        if ok and batch.converged[i] and not batch.slowed[i]:
            np.testing.assert_allclose(batch.feet[i], foot, atol=1e-8)
    assert (ref & batch.converged).sum() >= 0.8 * len(X)
    f, g = dec.value_and_gradient(batch.feet[batch.converged])
    assert np.max(np.abs(f) / np.linalg.norm(g, axis=1)) <= 1e-8


def test_the_feet_are_the_nearest_points_of_f_zero_by_slsqp():
    pts = _moons(30, 0.1, 13)
    pr = Problem(pts, "rbf:gamma=2")
    best = get_solver("input-space-svm")(pr, margin="hard").run()
    X = pr.X
    dec = best.decision
    near = input_distances(dec, X, pr.y)
    f, g = dec.value_and_gradient(near.feet)
    assert np.max(np.abs(f) / np.linalg.norm(g, axis=1)) <= 1e-8  # on f = 0
    rng = np.random.default_rng(0)
    for i in np.argsort(near.distances)[:4]:  # the points that set the margin
        x = X[i]
        found = np.inf
        for s in range(6):  # an independent method from several starts
            x0 = near.feet[i] + 0.4 * rng.normal(size=2) if s else x
            res = minimize(lambda z: np.sum((z - x) ** 2), x0, jac=lambda z: 2 * (z - x), method="SLSQP",
                           constraints=[{"type": "eq", "fun": lambda z: dec(z[None])[0],
                                         "jac": lambda z: dec.gradient(z[None])[0]}],
                           options={"ftol": 1e-14, "maxiter": 300})
            fz, gz = dec.value_and_gradient(res.x[None])
            if abs(fz[0]) <= 1e-9 * np.linalg.norm(gz[0]):  # a point of f = 0: no nearer than the nearest foot
                found = min(found, float(np.linalg.norm(res.x - x)))
        assert np.isfinite(found)
        assert near.distances[i] <= found + 1e-7


def _unstable_one(decision, X, feet):
    """(13)–(17) point by point: the basis of the tangent space by QR of [u, I], then the eigenvalues."""
    out = np.zeros(len(X), dtype=bool)
    for i in range(len(X)):
        d = feet[i] - X[i]
        dn = np.linalg.norm(d)
        if dn <= 1e-9 * (1 + np.abs(X[i]).max()):
            continue
        u = d / dn
        lam = decision.gradient(feet[i][None])[0] @ u / dn
        T = np.linalg.qr(np.column_stack([u, np.eye(len(u))]))[0][:, 1:]
        c = np.linalg.eigvalsh(T.T @ decision.hessian(feet[i][None])[0] @ T)
        out[i] = np.max(np.abs(c)) >= abs(lam)
    return out


@pytest.mark.parametrize("d", [2, 3])
def test_unstable_feet_for_all_points_at_once_match_the_per_point_test(d):
    D = _expansion("rbf:gamma=0.8", d, seed=2, m=15)
    r = np.random.default_rng(4)
    X = r.normal(size=(120, d))
    feet = X + 0.5 * r.normal(size=X.shape)
    feet[:3] = X[:3]  # on the curve's own point: never unstable
    got = akaho.unstable_feet(D, X, feet)
    assert got.tolist() == _unstable_one(D, X, feet).tolist()
    assert 0 < got.sum() < len(X) - 3


def test_the_working_set_dual_is_the_whole_dual_s_solution():
    from percviz.core.solvers.svm import solve_dual

    pts = _moons(30, 0.1, 13)
    pr = Problem(pts, "rbf:gamma=2")
    solver = get_solver("input-space-svm")(pr, margin="soft", C=10.0)
    solver.start()
    tmp = akaho.temporaries(pr.kernel, pr.X, solver._xhat, solver._omega_hat, pr.y, solver._Ginv)
    y = pr.y.astype(float)
    whole = solve_dual(np.outer(y, y) * tmp.Q, y, 10.0, linear=tmp.g)
    svm_alpha = solver._steps[0].alpha
    start = np.flatnonzero(svm_alpha > 1e-7 * svm_alpha.max())  # Live's start: the last run's support vectors
    ws = akaho.solve_on_working_set(tmp.Q, tmp.g, y, 10.0, start)
    assert ws is not None
    W = lambda a: tmp.g @ a - 0.5 * a @ tmp.Q @ a  # noqa: E731
    assert W(ws.alpha) == pytest.approx(W(np.clip(whole.alpha, 0, 10.0)), rel=1e-7)
    np.testing.assert_allclose(ws.alpha, whole.alpha, atol=1e-5 * whole.alpha.max())
    assert (ws.alpha == 0).sum() > len(y) // 3  # it solved fewer than n points
    assert abs(y @ ws.alpha) < 1e-8 and ws.alpha.min() >= 0 and ws.alpha.max() <= 10.0 + 1e-9


@pytest.mark.parametrize("params", [{"margin": "hard"}, {"margin": "soft", "C": 1.0}, {"margin": "soft", "C": 10.0}])
def test_a_warm_live_rerun_gives_the_cold_result_on_the_same_scene(params):
    pts = _moons(30, 0.1, 13)
    cls = get_solver("input-space-svm")
    first = cls(Problem(pts, "rbf:gamma=2"), **params).run()
    X = pts.X.copy()
    i = int(np.argmax(X[:, 0]))
    X[i] += (-0.03, 0.02)  # a drag's move
    moved = PointSet(X, pts.classes)
    cold_solver = cls(Problem(moved, "rbf:gamma=2"), **params)
    cold = cold_solver.run()
    warm_solver = cls(Problem(moved, "rbf:gamma=2"), **params, warm_start=first.alpha)
    warm = warm_solver.run()
    assert warm_solver._best.index == cold_solver._best.index
    if params.get("C") == 1.0:  # one point on the wrong side: no input margin, in both
        assert "input_margin" not in cold.metrics and "input_margin" not in warm.metrics
    else:
        assert warm.metrics["input_margin"] == pytest.approx(cold.metrics["input_margin"], rel=1e-4)
    if cold_solver._best.index:  # step 0 (the SVM) has no objective of (8)
        assert warm.metrics["objective"] == pytest.approx(cold.metrics["objective"], rel=1e-4)
    for k, (w_step, c_step) in enumerate(zip(warm_solver._steps, cold_solver._steps)):
        assert w_step.estimate == pytest.approx(c_step.estimate, rel=1e-4, abs=1e-6), k
    np.testing.assert_allclose(warm.alpha, cold.alpha, atol=1e-4 * cold.alpha.max())
    np.testing.assert_allclose(warm.feet, cold.feet, atol=1e-4)
    assert warm.status == cold.status
    assert (warm.alpha == 0).sum() > 0  # the QPs were solved on working sets
