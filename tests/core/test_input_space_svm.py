"""Akaho's input-space SVM: kernel-form temporaries against explicit features, the linear special case, the batch."""

import numpy as np
import pytest

from percviz.core import akaho
from percviz.core.data import PointSet
from percviz.core.datasets import overlapping_gaussians, ring, separable
from percviz.core.errors import DataError
from percviz.core.input_distance import input_distances
from percviz.core.kernels import parse_kernel
from percviz.core.problem import Problem
from percviz.core.solvers import get_solver

S2 = np.sqrt(2.0)


def phi(x):
    """The explicit map of (x·z + 1)²."""
    return np.array([1.0, S2 * x[0], S2 * x[1], x[0] ** 2, S2 * x[0] * x[1], x[1] ** 2])


def psi(x):
    """∇φ: 6 × 2."""
    return np.array([[0, 0], [S2, 0], [0, S2], [2 * x[0], 0], [S2 * x[1], S2 * x[0]], [0, 2 * x[1]]], dtype=float)


def test_temporaries_and_updates_match_the_feature_space_definitions():
    k = parse_kernel("poly:degree=2,c=1")
    r = np.random.default_rng(0)
    n = 7
    X = r.normal(size=(n, 2))
    Xh = X + 0.3 * r.normal(size=(n, 2))
    y = np.where(np.arange(n) % 2 == 0, 1.0, -1.0)
    om = akaho.Omega(Xh, r.normal(size=n), r.normal(size=(n, 2)), 0.4)
    Ginv = np.broadcast_to(np.eye(2), (n, 2, 2)).copy()
    tmp = akaho.temporaries(k, X, Xh, om, y, Ginv)
    w = sum(om.a[j] * phi(Xh[j]) + psi(Xh[j]) @ om.b[j] for j in range(n))
    q = np.array([psi(Xh[i]).T @ w for i in range(n)])
    rr = w @ w
    g = np.linalg.norm(q, axis=1) / np.sqrt(rr)
    eta = [(psi(Xh[i]) @ q[i] - (q[i] @ q[i]) / rr * w) / (g[i] * rr) for i in range(n)]  # (6)
    V = np.array([y[i] * (phi(Xh[i]) - psi(Xh[i]) @ (Xh[i] - X[i])) - eta[i] for i in range(n)])
    np.testing.assert_allclose(tmp.q, q, rtol=1e-10)
    assert tmp.r == pytest.approx(rr, rel=1e-12)
    np.testing.assert_allclose(tmp.g, g, rtol=1e-10)
    np.testing.assert_allclose(tmp.Q, V @ V.T, rtol=1e-9, atol=1e-9)
    # η̂_i·ω̂ = 0, used to derive (5)
    assert max(abs(e @ w) for e in eta) < 1e-9
    # (10) writes ω = Σ α_i v_i (7) on the bases
    alpha = r.uniform(0, 1, n)
    a_new, b_new = akaho.update_coefficients(alpha, y, Xh - X, om, tmp)
    f = akaho.Omega(Xh, a_new, b_new, 0.0).decision(k)
    Z = r.normal(size=(5, 2))
    np.testing.assert_allclose(f(Z), [(alpha @ V) @ phi(z) for z in Z], rtol=1e-9)


def test_the_bias_of_eq_11_is_the_qp_multiplier():
    pr = Problem(ring(), kernel="rbf:gamma=0.5")
    X, y, k = pr.X, pr.y, pr.kernel
    svm = get_solver("svm")(pr, margin="hard", show_iterations=False).run()
    om = akaho.Omega(X, svm.decision.coef, np.zeros_like(X), svm.decision.bias)
    Ginv = np.broadcast_to(np.eye(2), (pr.n, 2, 2)).copy()
    step = akaho.solve_step(k, X, y, om, akaho.temporaries(k, X, X, om, y, Ginv), None, X)
    assert step.omega.f0 == pytest.approx(step.qp_bias, abs=1e-6)


@pytest.mark.parametrize("kernel", ["linear", "affine"])
@pytest.mark.parametrize("margin", ["hard", "soft"])
def test_linear_kernel_gives_the_ordinary_svm(kernel, margin):
    ps = separable() if margin == "hard" else overlapping_gaussians()
    pr = Problem(ps, kernel="linear")
    ref = get_solver("svm")(pr, method="interior-point", margin=margin, C=1.0, show_iterations=False).run().decision.affine()
    pr = Problem(ps, kernel=kernel)
    snap = get_solver("input-space-svm")(pr, margin=margin, C=1.0).run()
    got = snap.decision.affine()
    if kernel == "linear":  # the paper's special case: x̂ = x, η̂ = 0, ĝ = 1 give the SVM's dual at every step
        np.testing.assert_allclose(got, ref, atol=1e-6)
    else:
        # the affine SVM penalizes the constant feature; in the input plane that is a different, smaller margin,
        # and the input-space SVM moves to the textbook linear SVM's line
        w = np.array(got)
        wr = np.array(ref)
        np.testing.assert_allclose(w / np.linalg.norm(w[:2]), wr / np.linalg.norm(wr[:2]), atol=1e-3)


def test_laplacian_is_refused():
    with pytest.raises(DataError, match="not differentiable"):
        get_solver("input-space-svm")(Problem(ring(), kernel="laplacian"))


def _moons(seed, n=40):
    from sklearn.datasets import make_moons

    X, lab = make_moons(n, noise=0.08, random_state=seed)
    return PointSet(X, lab)


def _rings(seed, n=50):
    from sklearn.datasets import make_circles

    X, lab = make_circles(n, factor=0.5, noise=0.06, random_state=seed)
    return PointSet(2 * X, lab)


BATCH = [
    ("notes ring", ring(), "rbf:gamma=0.5"),
    ("notes ring", ring(), "poly:degree=2,c=1"),
    ("rings 0", _rings(0), "rbf:gamma=0.5"),
    ("rings 1", _rings(1), "poly:degree=2,c=1"),
    ("moons 1", _moons(1), "rbf:gamma=2"),
    ("moons 2", _moons(2), "poly:degree=3,c=1"),
]


def test_batch_input_margin_never_falls_below_the_svm():
    gains = []
    for name, ps, kernel in BATCH:
        pr = Problem(ps, kernel=kernel)
        s = get_solver("input-space-svm")(pr, margin="hard")
        first = s.start()
        last = s.run()
        start_m, end_m = first.metrics["input_margin"], last.metrics["input_margin"]
        # the SVM's margin measured independently of the solver
        svm = get_solver("svm")(pr, method="interior-point", margin="hard", show_iterations=False).run()
        indep = input_distances(svm.decision, pr.X, pr.y).margin
        assert start_m == pytest.approx(indep, rel=1e-6), name
        assert end_m >= start_m * (1 - 1e-9), (name, kernel, start_m, end_m)
        # the result's feet lie on its curve and its training points are separated
        assert last.metrics["train_errors"] == 0
        assert np.abs(last.decision(last.feet)).max() < 1e-6 * np.abs(last.decision(pr.X)).max()
        gains.append(end_m / start_m)
    assert sum(g > 1.01 for g in gains) >= len(gains) - 1, gains


def test_soft_margin_keeps_alpha_in_the_box_and_reports_none_when_not_separating():
    ps = overlapping_gaussians()
    pr = Problem(PointSet(ps.X[::3], ps.classes[::3]), kernel="rbf:gamma=0.5")
    snap = get_solver("input-space-svm")(pr, margin="soft", C=0.5, steps=2).run()
    assert snap.alpha.max() <= 0.5 + 1e-12
    assert snap.metrics["train_errors"] > 0
    assert "input_margin" not in snap.metrics and "misclassified" in snap.message


def test_each_step_is_a_snapshot_with_the_projection_points():
    pr = Problem(ring(), kernel="rbf:gamma=0.5")
    snaps = list(get_solver("input-space-svm")(pr, margin="hard", steps=3).snapshots())
    assert len(snaps) == 5  # the SVM, three steps, the best one
    np.testing.assert_array_equal(snaps[0].feet, pr.X)
    for s in snaps[1:]:
        assert s.feet.shape == pr.X.shape and not s.feet.flags.writeable
        assert np.abs(s.decision(s.feet)).max() < 1e-6
    assert snaps[-1].message.startswith("Best of steps 0–3")


def test_the_shipped_scene_says_what_it_measures():
    from percviz.core.presets import SHIPPED_DIR, load_preset

    p = load_preset(SHIPPED_DIR / "input-space-margin.json")
    pr = Problem(p.points, p.kernel)
    svm = get_solver("svm")(pr, margin="hard", show_iterations=False).run()
    d0 = input_distances(svm.decision, pr.X, pr.y)
    # the SVM's curve passes closer to a point than its feature-space margin
    assert d0.margin < 0.8 * svm.metrics["margin"]
    assert f"{d0.margin:.3f}" in p.explanation and f"{svm.metrics['margin']:.3f}" in p.explanation
    best = get_solver(p.algorithm)(pr, **p.params).run()
    d1 = input_distances(best.decision, pr.X, pr.y)
    # the input-space SVM moves it away, up to near the pair bound (which no curve can beat)
    P, M = pr.X[pr.y > 0], pr.X[pr.y < 0]
    bound = 0.5 * np.linalg.norm(P[:, None] - M[None], axis=2).min()
    assert 1.3 * d0.margin < d1.margin <= bound
    assert f"{d1.margin:.3f}" in p.explanation
