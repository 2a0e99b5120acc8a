"""Input-space distances to f = 0: closed forms (line, circle), feet on the curve, and the sampled contour as a check."""

import numpy as np
import pytest
from sklearn.datasets import make_circles, make_moons
from sklearn.svm import SVC

from percviz.core.decision import DerivativeExpansion, FeatureLinear, KernelExpansion, ZeroDecision
from percviz.core.feature_jacobians import feature_jacobian
from percviz.core.features import parse_features
from percviz.core.grid import ViewGrid
from percviz.core.input_distance import input_distances, project
from percviz.core.kernels import parse_kernel


def _dense_contour(f, rect, n=700):
    """An independent fine sampling of f = 0 (sign changes along grid rows and columns, linearly interpolated)."""
    g = ViewGrid.fit(*rect, n)
    F = np.asarray(f(g.points())).reshape(g.shape)
    pts = []
    xs, ys = g.xs, g.ys
    h = np.flatnonzero((np.sign(F[:, :-1]) != np.sign(F[:, 1:])).ravel())
    j, i = np.unravel_index(h, (F.shape[0], F.shape[1] - 1))
    t = F[j, i] / (F[j, i] - F[j, i + 1])
    pts.append(np.column_stack([xs[i] + t * (xs[i + 1] - xs[i]), ys[j]]))
    v = np.flatnonzero((np.sign(F[:-1, :]) != np.sign(F[1:, :])).ravel())
    j, i = np.unravel_index(v, (F.shape[0] - 1, F.shape[1]))
    t = F[j, i] / (F[j, i] - F[j + 1, i])
    pts.append(np.column_stack([xs[i], ys[j] + t * (ys[j + 1] - ys[j])]))
    return np.concatenate(pts), float(np.hypot(xs[1] - xs[0], ys[1] - ys[0]))


def _check_feet(f, X, res, rect):
    on = np.abs(f(res.feet)) / np.maximum(np.linalg.norm(f.gradient(res.feet), axis=1), 1e-300)
    assert on.max() <= 1e-6
    np.testing.assert_allclose(np.linalg.norm(res.feet - X, axis=1), res.distances, rtol=1e-12)
    C, h = _dense_contour(f, rect)
    nearest = np.linalg.norm(X[:, None, :] - C[None, :, :], axis=2).min(axis=1)
    # no sampled point of the contour is nearer than the foot by more than the sampling resolution
    assert (res.distances <= nearest + h).all()
    # and the foot is not nearer than the curve allows (the fine samples lie within h of every curve point)
    assert (res.distances >= nearest - h).all()


def test_straight_line_closed_form():
    f = FeatureLinear(parse_features("linear"), np.array([0.5, 2.0, -1.0]))  # 0.5 + 2x − y
    X = np.random.default_rng(0).normal(size=(40, 2)) * 2
    expected = np.abs(0.5 + 2 * X[:, 0] - X[:, 1]) / np.sqrt(5.0)
    foot = X - ((0.5 + 2 * X[:, 0] - X[:, 1]) / 5.0)[:, None] * np.array([2.0, -1.0])
    for exact in (False, True):  # the iteration (12) and the shortcut for lines
        res = input_distances(f, X, exact_lines=exact)
        np.testing.assert_allclose(res.distances, expected, rtol=1e-10, atol=1e-12)
        np.testing.assert_allclose(res.feet, foot, atol=1e-10)


def test_circle_closed_form_and_the_far_branch_is_not_taken():
    # f = x1² + x2² − 4 with the quadratic map: distance | ‖x‖ − 2 |; from inside, (12) started at x_i could
    # run to either side of the circle, the nearest is the one on x's own ray
    f = FeatureLinear(parse_features("quadratic"), np.array([-4.0, 0, 0, 1.0, 0, 1.0]))
    r = np.random.default_rng(1)
    X = r.uniform(-3.5, 3.5, size=(60, 2))
    res = input_distances(f, X)
    np.testing.assert_allclose(res.distances, np.abs(np.linalg.norm(X, axis=1) - 2.0), atol=1e-9)
    np.testing.assert_allclose(res.feet, 2.0 * X / np.linalg.norm(X, axis=1)[:, None], atol=1e-7)


def test_a_point_on_the_curve_has_distance_zero():
    f = FeatureLinear(parse_features("quadratic"), np.array([-4.0, 0, 0, 1.0, 0, 1.0]))
    X = np.array([[2.0, 0.0], [0.0, -2.0], [np.sqrt(2), np.sqrt(2)]])
    res = input_distances(f, X)
    assert res.distances.max() <= 1e-12


def test_margin_is_none_with_a_reason_when_a_point_is_misclassified():
    f = FeatureLinear(parse_features("linear"), np.array([0.0, 1.0, 0.0]))  # x1 = 0
    X = np.array([[1.0, 0.0], [-2.0, 1.0], [0.5, 3.0]])
    res = input_distances(f, X, np.array([1, -1, 1]))
    assert res.margin == pytest.approx(0.5)
    res = input_distances(f, X, np.array([1, 1, 1]))
    assert res.margin is None and "1 of 3 points are misclassified" in res.reason
    z = input_distances(ZeroDecision(), X, np.array([1, -1, 1]))
    assert z.margin is None and not z.has_curve


def _svc_expansion(X, y, spec, gamma=None, degree=None, coef0=None, C=1e3):
    k = parse_kernel(spec)
    svc = SVC(kernel="precomputed", C=C).fit(k(X, X), y)
    coef = np.zeros(len(y))
    coef[svc.support_] = svc.dual_coef_[0]
    return KernelExpansion(k, X, coef, float(svc.intercept_[0]))


@pytest.mark.parametrize("spec", ["rbf:gamma=2", "poly:degree=3,c=1"])
def test_kernel_curves_against_a_dense_contour(spec):
    X, lab = make_moons(40, noise=0.1, random_state=3)
    y = np.where(lab == 1, 1.0, -1.0)
    f = _svc_expansion(X, y, spec)
    rect = (-1.6, 2.6, -1.2, 1.7)
    res = input_distances(f, X, y, rect=rect)
    _check_feet(f, X, res, rect)


def test_circles_rbf_with_two_branches():
    X, lab = make_circles(50, factor=0.45, noise=0.05, random_state=0)
    y = np.where(lab == 1, 1.0, -1.0)
    f = _svc_expansion(X, y, "rbf:gamma=1.5")
    rect = (-1.8, 1.8, -1.8, 1.8)
    res = input_distances(f, X, y, rect=rect)
    _check_feet(f, X, res, rect)
    assert res.margin is not None and res.margin == pytest.approx(res.distances.min())


def test_gradients_match_finite_differences():
    r = np.random.default_rng(4)
    Z = r.normal(size=(6, 2))
    k = parse_kernel("rbf:gamma=0.8")
    fs = [
        KernelExpansion(k, r.normal(size=(5, 2)), r.normal(size=5), 0.3),
        FeatureLinear(parse_features("poly:degree=3"), r.normal(size=10)),
        FeatureLinear(parse_features("rff:dim=20,gamma=1"), r.normal(size=21)),
        DerivativeExpansion(k, r.normal(size=(5, 2)), r.normal(size=5), r.normal(size=(5, 2)), -0.2),
        DerivativeExpansion(parse_kernel("poly:degree=3,c=1"), r.normal(size=(4, 2)), r.normal(size=4), r.normal(size=(4, 2))),
    ]
    h = 1e-6
    for f in fs:
        num = np.stack([(f(Z + h * e) - f(Z - h * e)) / (2 * h) for e in np.eye(2)], axis=1)
        np.testing.assert_allclose(f.gradient(Z), num, rtol=1e-6, atol=1e-7)
        numH = np.stack([(f.gradient(Z + h * e) - f.gradient(Z - h * e)) / (2 * h) for e in np.eye(2)], axis=2)
        np.testing.assert_allclose(f.hessian(Z), numH, rtol=1e-5, atol=1e-6)
    J = feature_jacobian(parse_features("quadratic"), Z)
    assert J.shape == (6, 6, 2)


def test_projection_in_three_dimensions():
    # a sphere of radius 1.5 in R³ as a kernel-free derivative expansion is awkward; use the RBF bump instead:
    # f(x) = exp(−‖x‖²) − e^{-1} is zero on the unit sphere
    k = parse_kernel("rbf:gamma=1")
    f = KernelExpansion.__new__(KernelExpansion)  # centers are 2-D in KernelExpansion: use the d-generic class
    f = DerivativeExpansion(k, np.zeros((1, 3)), np.ones(1), np.zeros((1, 3)), -np.exp(-1.0))
    X = np.random.default_rng(5).normal(size=(10, 3))
    p = project(f, X, X)
    assert p.converged.all()
    np.testing.assert_allclose(np.linalg.norm(p.feet, axis=1), 1.0, atol=1e-9)
    res = input_distances(f, X)
    assert res.resolution is None
    np.testing.assert_allclose(res.distances, np.abs(np.linalg.norm(X, axis=1) - 1.0), atol=1e-9)


def test_three_dimensions_two_spheres_nearest_branch():
    # f = e^{−‖x−c1‖²} + e^{−‖x−c2‖²} − 0.3: two bubbles around c1 and c2; a point beside c2's bubble must
    # get c2's surface even though (12) from x_i alone could settle elsewhere
    k = parse_kernel("rbf:gamma=1")
    C = np.array([[0.0, 0, 0], [3.0, 0, 0]])
    f = DerivativeExpansion(k, C, np.ones(2), np.zeros((2, 3)), -0.3)
    r = np.random.default_rng(7)
    X = np.vstack([C[0] + 0.3 * r.normal(size=(4, 3)), C[1] + 0.3 * r.normal(size=(4, 3)),
                   r.uniform(-2, 5, size=(6, 3))])
    res = input_distances(f, X)
    assert np.abs(f(res.feet)).max() < 1e-9
    # an independent dense check: many random starts of a constrained minimizer of ‖z − x‖ on f = 0
    from scipy.optimize import minimize

    for i in range(len(X)):
        best = np.inf
        for s in np.vstack([C + 1.1 * u for u in np.eye(3)[:2]] + [C - 1.1 * u for u in np.eye(3)[:2]]):
            o = minimize(lambda z: np.sum((z - X[i]) ** 2), s, constraints={"type": "eq", "fun": lambda z: f(z)[0]},
                         method="SLSQP", options={"ftol": 1e-12, "maxiter": 200})
            if o.success and abs(f(o.x)[0]) < 1e-8:
                best = min(best, float(np.linalg.norm(o.x - X[i])))
        assert res.distances[i] <= best + 1e-6, (i, res.distances[i], best)
