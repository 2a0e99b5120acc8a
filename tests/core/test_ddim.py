"""Points in R^d, d ≠ 2: kernels, φ-maps, G, ρ_K and every registered algorithm (the registry's common checks)."""

from math import comb

import numpy as np
import pytest
from scipy.optimize import minimize

from percviz.core.data import PointSet
from percviz.core.decision import DecisionFunction
from percviz.core.errors import DataError
from percviz.core.features import parse_features
from percviz.core.gram import optimal_margin
from percviz.core.kernels import KERNELS, make_kernel, parse_kernel
from percviz.core.problem import Problem
from percviz.core.solvers import Status, get_solver, load_all

NAMES = sorted(load_all())
DIMS = (3, 5, 30)


def clouds(d: int, n_per: int = 6, classes: int = 2, seed: int = 0) -> PointSet:
    """Well-separated Gaussian clouds in R^d: class k centred at 3·e_k (scale 0.3)."""
    rng = np.random.default_rng(seed + d)
    X, c = [], []
    for k in range(classes):
        centre = np.zeros(d)
        centre[k % d] = 3.0
        centre[(k + 1) % d] += 0.5
        X.append(centre + 0.3 * rng.normal(size=(n_per, d)))
        c += [k] * n_per
    return PointSet(np.vstack(X), c)


def xor_cube(d: int) -> PointSet:
    """XOR on the first two coordinates, the other d − 2 coordinates zero: not linearly separable."""
    X = np.zeros((4, d))
    X[:, :2] = [[1, 1], [-1, -1], [1, -1], [-1, 1]]
    return PointSet.from_signed(X, [1, 1, -1, -1])


@pytest.mark.parametrize("d", (1, 3, 30))
def test_pointset_takes_any_number_of_coordinates(d):
    P = PointSet(np.ones((4, d)), [0, 1, 0, 1])
    assert P.dim == d and P.n == 4
    with pytest.raises(DataError, match="d = "):
        P.require_plane()
    PointSet(np.ones((3, 2)), [0, 1, 0]).require_plane()


def test_pointset_messages_name_high_dimensional_points():
    X = np.zeros((2, 7))
    X[1, 5] = np.nan
    with pytest.raises(DataError, match=r"Point 1 .*\(0, 0, 0, 0, …\)"):
        PointSet(X, [0, 1])
    with pytest.raises(DataError, match="n×d"):
        PointSet(np.zeros((2, 0)), [0, 1])


@pytest.mark.parametrize("name", sorted(KERNELS))
def test_kernel_gradients_match_finite_differences_in_5d(name):
    k = parse_kernel(name)
    rng = np.random.default_rng(1)
    X, Z = rng.normal(size=(3, 5)), rng.normal(size=(4, 5))
    g = k.grad_x(X, Z)
    assert g.shape == (3, 4, 5)
    h = 1e-6
    for j in range(5):
        e = np.zeros(5)
        e[j] = h
        fd = (k(X + e, Z) - k(X - e, Z)) / (2 * h)
        np.testing.assert_allclose(g[:, :, j], fd, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(k.diag(X), np.diag(k(X, X)), rtol=1e-12)


def test_kernels_agree_with_scikit_learn_in_30d():
    pw = pytest.importorskip("sklearn.metrics.pairwise", reason="scikit-learn is the independent reference")
    rng = np.random.default_rng(2)
    X, Z = rng.normal(size=(6, 30)), rng.normal(size=(5, 30))
    np.testing.assert_allclose(make_kernel("rbf", gamma=0.05)(X, Z), pw.rbf_kernel(X, Z, gamma=0.05), rtol=1e-10)
    np.testing.assert_allclose(
        make_kernel("laplacian", gamma=0.1)(X, Z), pw.laplacian_kernel(X, Z, gamma=0.1), rtol=1e-10
    )
    np.testing.assert_allclose(
        make_kernel("poly", degree=3, c=1.0)(X, Z),
        pw.polynomial_kernel(X, Z, degree=3, gamma=1.0, coef0=1.0),
        rtol=1e-10,
    )


@pytest.mark.parametrize("d,k", [(1, 3), (3, 2), (4, 3), (5, 1)])
def test_polynomial_map_has_every_monomial_in_scikit_learns_order(d, k):
    pf = pytest.importorskip("sklearn.preprocessing", reason="scikit-learn's PolynomialFeatures is the reference")
    X = np.random.default_rng(3).normal(size=(7, d))
    fm = parse_features(f"poly:degree={k}")
    P = fm.transform(X)
    assert P.shape == (7, comb(k + d, d)) == (7, fm.dimension(d))
    ref = pf.PolynomialFeatures(degree=k).fit(X)
    np.testing.assert_allclose(P, ref.transform(X), rtol=1e-12)
    names = fm.term_names(d)
    assert len(set(names)) == len(names) == P.shape[1] and names[0] == "1"
    # scikit-learn writes 'x0^2 x1': the same monomials, numbered from 1 here
    for ours, theirs in zip(names[1:], ref.get_feature_names_out()[1:]):
        assert ours.count("x") == theirs.count("x")


def test_term_names_read_as_monomials():
    assert parse_features("quadratic").term_names(3) == [
        "1", "x1", "x2", "x3", "x1²", "x1x2", "x1x3", "x2²", "x2x3", "x3²"
    ]
    assert parse_features("linear").term_names(4) == ["1", "x1", "x2", "x3", "x4"]
    assert "x3·x12" in parse_features("quadratic").term_names(12)
    assert parse_features("quadratic").term_names() == ["1", "x1", "x2", "x1²", "x1x2", "x2²"]  # the plane


def test_polynomial_map_refuses_an_explosion_clearly():
    with pytest.raises(DataError, match="terms"):
        parse_features("poly:degree=12").transform(np.zeros((1, 30)))


def test_random_fourier_features_approximate_rbf_in_10d():
    X = np.random.default_rng(4).normal(size=(8, 10)) * 0.4
    fm = parse_features("rff:dim=4000,gamma=0.3,seed=5")
    P = fm.transform(X)
    approx = P @ P.T - 1.0
    np.testing.assert_allclose(approx, make_kernel("rbf", gamma=0.3)(X, X), atol=0.06)
    # the plane's draws are those of the 2-D map: unchanged by the d-dimensional generalization
    X2 = X[:, :2]
    r = np.random.default_rng(5)
    omega = r.normal(0.0, np.sqrt(0.6), size=(4000, 2))
    phase = r.uniform(0, 2 * np.pi, size=4000)
    np.testing.assert_allclose(fm.transform(X2)[:, 1:], np.sqrt(2 / 4000) * np.cos(X2 @ omega.T + phase))


@pytest.mark.parametrize("d", DIMS)
def test_signed_gram_matrix_in_d_dims(d):
    P = clouds(d)
    pr = Problem(P, "rbf:gamma=0.1")
    y = P.y
    K = np.exp(-0.1 * ((P.X[:, None, :] - P.X[None, :, :]) ** 2).sum(-1))
    np.testing.assert_allclose(pr.G, y[:, None] * y[None, :] * K, atol=1e-12)


def _svm_margin(B: np.ndarray) -> float:
    """ρ = 1/‖w*‖ with w* = argmin ‖w‖² s.t. B w ≥ 1 (SLSQP: an independent solver)."""
    w0 = B.mean(axis=0)
    w0 = w0 / max((B @ w0).min(), 1e-9)
    res = minimize(lambda w: w @ w, w0, jac=lambda w: 2 * w, method="SLSQP",
                   constraints=[{"type": "ineq", "fun": lambda w: B @ w - 1, "jac": lambda w: B}],
                   options={"ftol": 1e-12, "maxiter": 500})
    assert res.success
    return 1.0 / np.linalg.norm(res.x)


@pytest.mark.parametrize("d", DIMS)
def test_optimal_margin_in_d_dims_matches_an_independent_qp(d):
    P = clouds(d)
    pr = Problem(P, "affine")
    res = optimal_margin(pr)
    assert res.separable
    rows = P.y[:, None] * np.column_stack([np.ones(P.n), P.X])
    B = rows / np.linalg.norm(rows, axis=1, keepdims=True)
    assert res.rho == pytest.approx(_svm_margin(B), rel=1e-4)
    bad = optimal_margin(Problem(xor_cube(d), "affine"))
    assert not bad.separable


def _check_snapshot(s, snap, X, d):
    assert isinstance(snap.decision, DecisionFunction)
    probe = np.random.default_rng(9).normal(size=(5, d))
    v = np.asarray(snap.decision(probe))
    assert v.shape[0] == 5 and np.isfinite(v).all()
    f = np.asarray(snap.decision(X))
    if snap.status is Status.SEPARATOR:  # the claim holds on the training points
        if snap.decision.n_outputs == 1:
            assert (s.problem.y * f > 0).all()
        else:
            assert (np.argmax(f, axis=1) == s.problem.points.classes).all()
    if snap.status is Status.CERTIFICATE:
        p = np.asarray(snap.p)
        assert p.min() >= -1e-12 and p.sum() == pytest.approx(1.0)
        assert np.sqrt(max(p @ s.problem.G @ p, 0.0)) < 1e-2
    if snap.weights is not None and np.ndim(snap.weights) == 1 and s.representation == "features":
        assert snap.weights.shape == (s.problem.Phi.shape[1],)


@pytest.mark.parametrize("d", DIMS)
@pytest.mark.parametrize("name", NAMES)
def test_every_algorithm_runs_in_d_dims(name, d):
    cls = get_solver(name)
    multi = cls.representation == "multiclass"
    P = clouds(d, classes=3 if multi else 2)
    s = cls(Problem(P, "affine", "linear"), max_iter=300)
    last = None
    for snap in s.snapshots():
        _check_snapshot(s, snap, P.X, d)
        last = snap
    assert last.status.done
    again = cls(Problem(P, "affine", "linear"), max_iter=300).run()
    assert (again.iteration, again.status) == (last.iteration, last.status)


@pytest.mark.parametrize("name", ["perceptron", "normalized-perceptron", "nkp", "snkp", "nvn", "snkpvn",
                                  "isnkpvn", "batch-perceptron", "ho-kashyap"])
def test_separators_are_found_in_30d(name):
    if name not in NAMES:
        pytest.skip(f"{name} is not registered")
    P = clouds(30)
    last = get_solver(name)(Problem(P, "affine", "linear"), max_iter=20000).run()
    assert last.status is Status.SEPARATOR
    assert (P.y * last.decision(P.X) > 0).all()


@pytest.mark.parametrize("name", ["nvn", "snkpvn", "isnkpvn"])
def test_certificates_are_found_in_5d(name):
    P = xor_cube(5)
    s = get_solver(name)(Problem(P, "affine", "linear"), max_iter=20000)
    last = s.run()
    assert last.status is Status.CERTIFICATE
    p = np.asarray(last.p)
    assert np.sqrt(max(p @ s.problem.G @ p, 0.0)) < 1e-3


def test_svm_weights_are_the_affine_separator_in_d_dims():
    P = clouds(5)
    last = get_solver("svm")(Problem(P, "linear"), margin="hard").run()
    assert last.weights.shape == (6,)
    b, w = last.weights[0], last.weights[1:]
    np.testing.assert_allclose(P.X @ w + b, last.decision(P.X), atol=1e-8)


# ---------------------------------------------------------------- the registry's common checks, lifted to R^d
def _load_common():
    """The registry's common checks (tests/core/test_registry_common.py), loaded as a module of their own."""
    import importlib.util
    from pathlib import Path

    path = Path(__file__).with_name("test_registry_common.py")
    spec = importlib.util.spec_from_file_location("_percviz_common_checks", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


common = _load_common()


def lift(points: PointSet, d: int, seed: int = 0) -> PointSet:
    """The same points isometrically embedded in R^d: x ↦ Qx with Q (d×2) orthonormal columns, a random rotation."""
    Q, _ = np.linalg.qr(np.random.default_rng(seed + d).normal(size=(d, 2)))
    return PointSet(points.X @ Q.T, points.classes)


@pytest.fixture(params=DIMS, ids=lambda d: f"d{d}")
def lifted_common(request, monkeypatch):
    """The common module's data sets in R^d instead of the plane."""
    d = request.param
    two, three, bad = common.two_class(), common.three_class(), common.NON_SEPARABLE
    monkeypatch.setattr(common, "two_class", lambda: lift(two, d))
    monkeypatch.setattr(common, "three_class", lambda: lift(three, d))
    monkeypatch.setattr(common, "NON_SEPARABLE", lift(bad, d))
    return d


@pytest.mark.parametrize("name", NAMES)
def test_common_checks_in_d_dims(name, lifted_common):
    assert common.tiny_problem(get_solver(name)).points.dim == lifted_common
    for limit in (0, 1, 3):
        common.test_honours_max_iter(name, limit)
    common.test_rejects_bad_parameters(name)
    common.test_non_separable_data_runs_or_is_refused_clearly(name)


#: Algorithms whose run depends on the coordinates, not only on inner products: Winnow's multiplicative
#: per-coordinate updates, and the LPs' vertex in the split a = a⁺ − a⁻ ≥ 0 (any feasible vertex answers).
COORDINATE_WISE = {"winnow", "lp-feasibility", "lp-perceptron"}


@pytest.mark.parametrize("d", DIMS)
@pytest.mark.parametrize("name", NAMES)
def test_a_rotated_embedding_in_d_dims_gives_the_planes_run(name, d):
    """Kernels and φ = (1, x) depend on inner products only: the lifted run is the 2-D run, update for update."""
    cls = get_solver(name)
    flat = common.three_class() if cls.representation == "multiclass" else common.two_class()
    up = lift(flat, d)
    a = cls(Problem(flat), max_iter=300).run()
    b = cls(Problem(up), max_iter=300).run()
    if name in COORDINATE_WISE:  # the verdict is the same; the weights may differ
        assert a.status is b.status is Status.SEPARATOR
        return
    assert (a.iteration, a.status) == (b.iteration, b.status)
    probe = np.random.default_rng(5).normal(size=(9, 2)) * 2
    Q = up.X.T @ np.linalg.pinv(flat.X.T)  # the embedding, recovered from the points
    np.testing.assert_allclose(b.decision(probe @ Q.T), a.decision(probe), rtol=1e-7, atol=1e-9)
    for x, z in ((a.alpha, b.alpha), (a.p, b.p)):
        if x is not None:
            np.testing.assert_allclose(z, x, rtol=1e-7, atol=1e-10)
