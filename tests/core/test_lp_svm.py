"""Linear programming (the notes' LP values) and SVMs (against scikit-learn's SVC)."""

import numpy as np
import pytest

from percviz.core import datasets
from percviz.core.data import PointSet
from percviz.core.errors import DataError
from percviz.core.problem import Problem
from percviz.core.solvers import Status, get_solver
from percviz.core.solvers.lp import kernel_separable, min_perceptron_criterion, min_tau, perceptron_criterion


def IPM(problem, **values):
    """The `svm` algorithm's interior point (this file tests it; the default method is SMO)."""
    return get_solver("svm")(problem, method="interior-point", **values)


def SVC(*args, **kwargs):
    """scikit-learn's SVC, the independent reference (the tests using it skip without scikit-learn)."""
    return pytest.importorskip("sklearn.svm", reason="scikit-learn's SVC is the reference").SVC(*args, **kwargs)


def run(name, points, kernel="affine", features="linear", **params):
    solver = get_solver(name)(Problem(points, kernel=kernel, features=features), **params)
    return list(solver.snapshots())


# ---------------------------------------------------------------- linear programming: the notes' numbers
def test_lp_feasibility_on_the_notes_sets():
    sep = run("lp-feasibility", datasets.separable())
    assert len(sep) == 2 and sep[0].status is Status.RUNNING and sep[0].metrics["objective"] == 1.0
    final = sep[-1]
    # notes: "separable: min tau = 0.0000, ||a|| = 11.737, misclassified 0"; ‖a‖ is the vertex HiGHS picks
    # for the notes' (a⁺, a⁻, τ) form (seeds.md: highs-ipm would give another optimal a).
    assert final.status is Status.SEPARATOR and final.iteration == 1
    assert abs(final.metrics["objective"]) < 5e-5 and final.metrics["train_errors"] == 0
    assert f"{final.metrics['weight_norm']:.3f}" == "11.737"
    for points, n in ((datasets.overlapping_gaussians(), 100), (datasets.xor(), 4)):
        final = run("lp-feasibility", points)[-1]
        # notes: "min tau = 1.0000, ||a|| = 0.000, misclassified 100" (Gaussians) and "... 4" (XOR)
        assert final.status is Status.NONSEPARABLE
        assert f"{final.metrics['objective']:.4f}" == "1.0000"
        assert f"{final.metrics['weight_norm']:.3f}" == "0.000" and final.metrics["train_errors"] == n
        assert "proof" in final.message


def test_lp_perceptron_criterion_notes_value():
    snaps = run("lp-perceptron", datasets.overlapping_gaussians())
    assert snaps[0].metrics["objective"] == 100.0  # J_p′(0) = Σ b_i
    final = snaps[-1]
    # notes (cell 27, closed): "LP optimum 40.1468; J_p'(a) recomputed 40.1468; errors 18"
    assert f"{final.metrics['objective']:.4f}" == "40.1468"
    assert f"{final.metrics['criterion']:.4f}" == "40.1468"
    assert final.metrics["train_errors"] == 18
    assert final.status is Status.NONSEPARABLE and "proof" in final.message
    sep = run("lp-perceptron", datasets.separable())[-1]
    assert sep.status is Status.SEPARATOR and abs(sep.metrics["objective"]) < 1e-6


def test_lp_perceptron_is_the_global_minimum():
    # J_p′ is convex piecewise linear; no random perturbation of the LP optimum may do better.
    Y = np.asarray(Problem(datasets.overlapping_gaussians()).Y)
    res = min_perceptron_criterion(Y)
    rng = np.random.default_rng(0)
    for scale in (1e-3, 1e-1, 1.0):
        for _ in range(50):
            assert perceptron_criterion(res.a + scale * rng.normal(size=3), Y) >= res.value - 1e-7


def test_lp_optimum_is_zero_or_at_least_min_b():
    # The verdict threshold relies on: non-separable ⇒ min τ ≥ min b_i and min J_p′ ≥ min b_i.
    rng = np.random.default_rng(5)
    for _ in range(40):
        X = rng.normal(size=(8, 2))
        lab = rng.integers(0, 2, 8)
        Y = np.column_stack([np.ones(8), X]) * np.where(lab == 0, 1.0, -1.0)[:, None]
        b = rng.uniform(0.5, 2.0, 8)
        tau, jp = min_tau(Y, b).value, min_perceptron_criterion(Y, b).value
        assert (tau < 1e-7) == (jp < 1e-7)
        if tau >= 1e-7:
            assert tau >= b.min() - 1e-7 and jp >= b.min() - 1e-7


def test_lp_fisher_margins_and_parameters():
    final = run("lp-perceptron", datasets.overlapping_gaussians(), margin_vector="fisher", b=0.5)[-1]
    # b_i = 0.5 · 100/50 = 1 for both classes: the same program as the notes' b = 1.
    assert f"{final.metrics['objective']:.4f}" == "40.1468"
    with pytest.raises(ValueError, match="'b' parameter"):
        get_solver("lp-feasibility")(Problem(datasets.xor()), b=0)


def test_lp_with_quadratic_features_separates_the_ring():
    final = run("lp-feasibility", datasets.ring(), features="quadratic")[-1]
    assert final.status is Status.SEPARATOR and final.metrics["train_errors"] == 0
    assert run("lp-feasibility", datasets.ring())[-1].status is Status.NONSEPARABLE


# ---------------------------------------------------------------- SVM
def line_set(seed, n=40, gap=0.25):
    """Points labelled by a random line, keeping those at least `gap` from it: separable by any kernel here."""
    rng = np.random.default_rng(seed)
    w = rng.normal(size=2)
    c = -w @ rng.uniform(-1, 1, size=2)  # the line crosses the square
    X = rng.uniform(-2, 2, size=(6 * n, 2))
    s = (X @ w + c) / np.linalg.norm(w)
    keep = np.abs(s) > gap
    X, s = X[keep][:n], s[keep][:n]
    return PointSet.from_signed(X, np.where(s > 0, 1, -1))


def svc_reference(K, y, C):
    svc = SVC(kernel="precomputed", C=C, tol=1e-10).fit(K, y)
    a = np.zeros(len(y))
    a[svc.support_] = np.abs(svc.dual_coef_[0])
    Q = np.outer(y, y) * K
    return svc, a.sum() - 0.5 * a @ Q @ a, 1 / np.sqrt(a @ Q @ a)


KERNELS = ["linear", "affine", "poly:degree=2", "poly:degree=3,c=1", "rbf:gamma=0.5", "laplacian:gamma=0.5"]


@pytest.mark.parametrize("kernel", KERNELS)
@pytest.mark.parametrize("seed", [0, 1])
def test_hard_margin_matches_svc(kernel, seed):
    points = line_set(seed)
    problem = Problem(points, kernel=kernel)
    final = IPM(problem, margin="hard").run()
    K = problem.kernel(points.X, points.X)
    svc, dual, margin = svc_reference(K, problem.y, C=1e8)  # huge C: LIBSVM's hard margin
    assert final.status is Status.SEPARATOR and final.metrics["train_errors"] == 0
    assert final.metrics["margin"] == pytest.approx(margin, rel=1e-4, abs=1e-4)
    assert final.metrics["objective"] == pytest.approx(dual, rel=1e-4)
    scores = problem.y * final.decision(points.X)
    assert scores.min() == pytest.approx(1.0, abs=1e-4)  # the support vectors sit on f = ±1
    assert np.all(scores[final.alpha > 0] < 1 + 1e-4)


@pytest.mark.parametrize("kernel", ["affine", "rbf:gamma=1", "poly:degree=2"])
@pytest.mark.parametrize("C", [0.1, 1.0, 10.0])
def test_soft_margin_matches_svc(kernel, C):
    points = datasets.overlapping_gaussians()
    problem = Problem(points, kernel=kernel)
    final = IPM(problem, margin="soft", C=C).run()
    K = problem.kernel(points.X, points.X)
    svc, dual, inv_w = svc_reference(K, problem.y, C)
    assert final.metrics["objective"] == pytest.approx(dual, rel=1e-4)
    # The margin metric as METRICS defines it, min_i y_i f(x_i)/‖w‖, from SVC's f: negative (training errors),
    # not 1/‖w‖ (the width of the soft margin).
    margin = np.min(problem.y * svc.decision_function(K)) * inv_w
    assert margin < 0
    assert final.metrics["margin"] == pytest.approx(margin, rel=1e-3)
    Z = np.random.default_rng(1).uniform(-3, 4, size=(50, 2))
    ours = final.decision(Z)
    theirs = svc.decision_function(problem.kernel(Z, points.X))
    assert np.max(np.abs(ours - theirs)) < 1e-4 * max(1.0, np.abs(theirs).max())
    # slack: Σξ = Σ max(0, 1 − y f), every α within [0, C], and the data are not separable, so no claim
    xi = np.maximum(0, 1 - problem.y * final.decision(points.X))
    assert final.metrics["slack_sum"] == pytest.approx(xi.sum(), rel=1e-9)
    # α ∈ [0, C] on the unclipped coefficients the decision function uses (coef_i = α_i y_i), to QP accuracy
    coef = np.asarray(final.decision.coef)
    assert np.abs(coef).max() <= C * (1 + 1e-6) and np.abs(coef).max() >= 0.5 * C  # some α_i at the bound C
    assert final.status is Status.CONVERGED and final.metrics["train_errors"] > 0


def test_linear_svm_weights_match_svc():
    points = line_set(3)
    final = IPM(Problem(points, kernel="linear"), margin="soft", C=10.0).run()
    svc = SVC(kernel="linear", C=10.0, tol=1e-10).fit(points.X, points.y)
    assert final.weights == pytest.approx(np.r_[svc.intercept_, svc.coef_[0]], abs=1e-4)
    assert IPM(Problem(points, kernel="rbf"), C=1.0).run().weights is None


@pytest.mark.parametrize(
    "points, kernel",
    [
        (datasets.xor(), "affine"),
        (datasets.overlapping_gaussians(), "linear"),
        (datasets.ring(), "affine"),
        # the same place with both labels: no kernel can separate it
        (PointSet(np.array([[0.0, 0.0], [1.0, 1.0], [1.0, 1.0]]), np.array([0, 0, 1])), "rbf:gamma=2"),
    ],
)
def test_hard_margin_refuses_non_separable(points, kernel):
    with pytest.raises(DataError, match="soft margin"):
        IPM(Problem(points, kernel=kernel), margin="hard")


def test_separability_lp_in_kernel_space():
    assert kernel_separable(Problem(datasets.xor(), kernel="poly:degree=2").kernel(datasets.xor().X, datasets.xor().X),
                            datasets.xor().y)[0]
    ok, tau = kernel_separable(np.ones((4, 4)) + datasets.xor().X @ datasets.xor().X.T, datasets.xor().y)
    assert not ok and tau == pytest.approx(1.0)
    # RBF on distinct points: the kernel matrix is positive definite, so any labelling is separable
    assert IPM(Problem(datasets.xor(), kernel="rbf"), margin="hard").run().status is Status.SEPARATOR


def test_interior_point_iterates_are_stepped():
    problem = Problem(datasets.separable(), kernel="affine")
    snaps = list(IPM(problem, margin="soft", C=1.0).snapshots())
    single = list(IPM(problem, margin="soft", C=1.0, show_iterations=False).snapshots())
    assert len(single) == 2 and len(snaps) > 5
    assert all(s.status is Status.RUNNING for s in snaps[:-1]) and snaps[-1].status.done
    assert [s.iteration for s in snaps] == list(range(len(snaps)))
    assert snaps[-1].metrics["objective"] == single[-1].metrics["objective"]
    # the dual objective approaches its optimum over the last iterations
    gaps = [abs(s.metrics["objective"] - snaps[-1].metrics["objective"]) for s in snaps[-6:]]
    assert gaps == sorted(gaps, reverse=True)
    assert snaps[0].metrics["train_errors"] == problem.n  # α = 0 and b = 0: f ≡ 0 wrongs every point
    jumped = IPM(problem, margin="soft", C=1.0).advance(3)  # fast-forward: the same iterate
    assert jumped.iteration == 3 and jumped.metrics["objective"] == snaps[3].metrics["objective"]
    with pytest.raises(ValueError):
        snaps[-1].alpha[0] = 1.0  # snapshots are immutable


def test_svm_parameters_are_validated():
    with pytest.raises(ValueError, match="'C' parameter"):
        IPM(Problem(datasets.xor()), C=0)
    with pytest.raises(ValueError, match="'margin' parameter"):
        IPM(Problem(datasets.xor()), margin="medium")


def test_large_c_svm_minimizes_the_lp_perceptron_criterion():
    # With the affine kernel the SVM's f = w·(1, x) + b is the notes' a·y, and its slacks are J_p′'s terms
    # with b = 1. For a large C the hinge term wins (an exact penalty): Σξ equals the LP's min J_p′ = 40.1468.
    points = datasets.overlapping_gaussians()
    lp = run("lp-perceptron", points)[-1].metrics["objective"]
    svm = IPM(Problem(points, kernel="affine"), C=1000.0, show_iterations=False).run()
    assert svm.metrics["slack_sum"] == pytest.approx(lp, abs=1e-5)
    assert svm.status is Status.CONVERGED


@pytest.mark.parametrize("name, family", [("lp-feasibility", "Linear programming"),
                                          ("lp-perceptron", "Linear programming"),
                                          ("svm", "Support vector machines")])
def test_solver_contract(name, family):
    cls = get_solver(name)
    assert cls.family == family
    for points in (datasets.xor(), datasets.separable()):
        for snap in get_solver(name)(Problem(points, kernel="rbf")).snapshots():
            assert set(snap.metrics) <= set(cls.metric_keys)
            assert snap.message
    with pytest.raises(DataError, match="two classes"):
        cls(Problem(PointSet(np.eye(3, 2), np.array([0, 1, 2]))))
