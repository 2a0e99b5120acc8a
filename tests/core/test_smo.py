"""The SVM by SMO against scikit-learn's SVC and the interior-point solver; warm starts; pair-update snapshots."""

import numpy as np
import pytest
from sklearn.svm import SVC

from percviz.core import datasets
from percviz.core.data import PointSet
from percviz.core.errors import DataError
from percviz.core.problem import Problem
from percviz.core.solvers import Status, get_solver
from percviz.core.solvers._kernel_cache import KernelColumns
from percviz.core.solvers.lp import min_tau
from percviz.core.solvers.smo import project_feasible, warm_start_alpha

SMO = get_solver("smo")
TIGHT = 1e-9  # SMO's tol in the comparisons: the KKT violation bounds the objective error well below 1e-6


def clouds(seed, n=60, sep=2.0) -> PointSet:
    """Two overlapping unit Gaussian clouds (centres `sep` apart), random ±1 labels."""
    rng = np.random.default_rng(seed)
    y = np.where(rng.random(n) < 0.5, 1, -1)
    X = rng.normal(size=(n, 2)) + np.outer(y, [sep / 2, 0.0])
    return PointSet.from_signed(X, y)


def line_set(seed, n=40, gap=0.25) -> PointSet:
    """Points labelled by a random line, at least `gap` from it: separable by every kernel used here."""
    rng = np.random.default_rng(seed)
    w = rng.normal(size=2)
    c = -w @ rng.uniform(-1, 1, size=2)
    X = rng.uniform(-2, 2, size=(6 * n, 2))
    s = (X @ w + c) / np.linalg.norm(w)
    keep = np.abs(s) > gap
    return PointSet.from_signed(X[keep][:n], np.where(s[keep][:n] > 0, 1, -1))


def svc_reference(problem: Problem, C: float):
    """SVC on the precomputed kernel at tol 1e-10: the fit, its α (on every point) and its dual objective."""
    K = problem.kernel(problem.X, problem.X)
    y = problem.y
    svc = SVC(kernel="precomputed", C=C, tol=1e-10).fit(K, y)
    a = np.zeros(len(y))
    a[svc.support_] = np.abs(svc.dual_coef_[0])
    return svc, a, a.sum() - 0.5 * (a * y) @ K @ (a * y)


def dual_objective(problem: Problem, alpha) -> float:
    """eᵀα − ½ αᵀQα from the full kernel matrix (independent of SMO's running gradient)."""
    K = problem.kernel(problem.X, problem.X)
    v = alpha * problem.y
    return float(alpha.sum() - 0.5 * v @ K @ v)


SOFT_KERNELS = ["rbf:gamma=0.5", "affine", "poly:degree=3,c=1"]


@pytest.mark.parametrize("kernel", SOFT_KERNELS)
@pytest.mark.parametrize("C", [0.3, 10.0])
@pytest.mark.parametrize("seed", [0, 1])
def test_soft_margin_agrees_with_svc_and_the_interior_point(kernel, C, seed):
    problem = Problem(clouds(seed), kernel=kernel)
    final = SMO(problem, C=C, tol=TIGHT).run()
    svc, a_svc, obj_svc = svc_reference(problem, C)
    assert final.status is Status.CONVERGED and final.metrics["kkt_gap"] < TIGHT
    assert final.metrics["objective"] == pytest.approx(obj_svc, rel=1e-6)
    assert dual_objective(problem, final.alpha) == pytest.approx(obj_svc, rel=1e-6)  # not only the running one
    ipm = get_solver("svm")(problem, margin="soft", C=C, method="interior-point", show_iterations=False).run()
    assert final.metrics["objective"] == pytest.approx(ipm.metrics["objective"], rel=1e-6)
    # the same support vectors (α > 0), the same split between free and bounded ones, the same decision
    assert set(np.flatnonzero(final.alpha > 0)) == set(svc.support_)
    at_c = final.alpha >= C
    assert set(np.flatnonzero(at_c)) == set(np.flatnonzero(a_svc >= C * (1 - 1e-9)))
    if kernel.startswith("rbf"):  # K positive definite: α itself is unique (poly/affine: only w is)
        assert np.abs(final.alpha - a_svc).max() < 1e-5 * C
    # f against the interior point (SVC stops early on the ill-conditioned cubic kernel at C = 10: its dual
    # objective is 7e-9 below both others there, and its f 3e-3 away), and against SVC on the RBF kernel
    Z = np.random.default_rng(5).uniform(-3, 3, size=(40, 2))
    for ref in [ipm.decision(Z)] + ([svc.decision_function(problem.kernel(Z, problem.X))] if "rbf" in kernel else []):
        assert np.abs(final.decision(Z) - ref).max() < 1e-5 * max(1.0, np.abs(ref).max())
    assert final.alpha.min() >= 0 and final.alpha.max() <= C


@pytest.mark.parametrize("kernel", ["rbf:gamma=0.5", "affine", "poly:degree=2", "linear"])
@pytest.mark.parametrize("seed", [0, 1])
def test_hard_margin_agrees_with_svc_and_the_interior_point(kernel, seed):
    problem = Problem(line_set(seed), kernel=kernel)
    final = SMO(problem, margin="hard", tol=TIGHT).run()
    svc, a_svc, obj_svc = svc_reference(problem, C=1e8)  # LIBSVM's hard margin: a C no α reaches
    assert a_svc.max() < 1e6
    assert final.status is Status.SEPARATOR and final.metrics["train_errors"] == 0
    assert final.metrics["objective"] == pytest.approx(obj_svc, rel=1e-6)
    ipm = get_solver("svm")(problem, margin="hard", method="interior-point", show_iterations=False).run()
    assert final.metrics["objective"] == pytest.approx(ipm.metrics["objective"], rel=1e-6)
    assert final.metrics["margin"] == pytest.approx(ipm.metrics["margin"], rel=1e-6)
    assert set(np.flatnonzero(final.alpha > 0)) == set(svc.support_)
    scores = problem.y * final.decision(problem.X)
    assert scores.min() == pytest.approx(1.0, abs=1e-6)  # the support vectors sit on f = ±1
    assert final.metrics["slack_sum"] < 1e-6


@pytest.mark.parametrize(
    "points, kernel",
    [
        (datasets.xor(), "affine"),
        (datasets.overlapping_gaussians(), "linear"),
        (PointSet(np.array([[0.0, 0.0], [1.0, 1.0], [1.0, 1.0]]), np.array([0, 0, 1])), "rbf:gamma=2"),
        (PointSet(np.array([[0.0, 0.0], [2.0, 1.0], [1.0, 1.0], [2.0, 1.0]]), np.array([0, 0, 1, 1])), "laplacian"),
        (datasets.ring(), "poly:degree=1,c=1"),  # the affine kernel in polynomial form: decided on the n×n LP
    ],
)
def test_hard_margin_refuses_non_separable(points, kernel):
    with pytest.raises(DataError, match="soft margin"):
        SMO(Problem(points, kernel=kernel), margin="hard")


def test_hard_margin_separability_is_proved_by_a_cheap_separator_or_by_the_lp(monkeypatch):
    """Cold, affine kernel: a class-mean or Fisher direction that separates skips the LP; each skip is right."""
    import percviz.core.solvers.smo as smo_module

    calls = []

    def counted(Y, b=None):
        calls.append(1)
        return min_tau(Y, b)

    monkeypatch.setattr(smo_module, "min_tau", counted)
    skipped = solved_by_lp = 0
    for seed in range(12):
        for gap in (0.02, 0.25):
            points = line_set(seed, n=40, gap=gap)
            before = len(calls)
            final = SMO(Problem(points, kernel="affine"), margin="hard", tol=1e-6).run()
            assert final.status is Status.SEPARATOR and final.metrics["train_errors"] == 0
            if len(calls) == before:
                skipped += 1  # the independent LP must agree that these points are separable
                Y = points.y[:, None] * np.column_stack([np.ones(points.n), points.X])
                assert min_tau(Y).value < 1e-9
            else:
                solved_by_lp += 1
    assert skipped >= 12 and solved_by_lp >= 1  # both paths ran (line_set(0, gap=0.02) defeats both directions)


def test_hard_margin_rbf_separates_any_distinct_points():
    points = PointSet(np.array([[0.0, 0.0], [1.0, 1.0], [1.0, 1.0], [0.5, 0.5]]), np.array([0, 0, 0, 1]))
    final = SMO(Problem(points, kernel="rbf:gamma=2"), margin="hard", tol=1e-9).run()  # a repeated point: one label
    assert final.status is Status.SEPARATOR and final.metrics["train_errors"] == 0


def test_each_step_moves_one_pair_within_the_feasible_set():
    problem = Problem(clouds(3, n=50), kernel="rbf:gamma=1")
    C = 2.0
    snaps = list(SMO(problem, C=C, tol=1e-6).snapshots())
    y = problem.y
    assert len(snaps) > 20 and snaps[-1].status is Status.CONVERGED
    assert snaps[0].triggers == () and not snaps[0].alpha.any()
    for prev, snap in zip(snaps, snaps[1:]):
        i, j = snap.triggers
        assert i != j and y[i] * (snap.alpha[i] - prev.alpha[i]) > 0  # α_i y_i grows, α_j y_j shrinks
        assert y[j] * (snap.alpha[j] - prev.alpha[j]) < 0
        others = np.ones(problem.n, dtype=bool)
        others[[i, j]] = False
        assert np.array_equal(snap.alpha[others], prev.alpha[others])
        assert snap.alpha.min() >= 0 and snap.alpha.max() <= C
        assert abs(snap.alpha @ y) < 1e-12 * max(1.0, snap.alpha.sum())
        assert snap.metrics["objective"] >= prev.metrics["objective"] - 1e-12  # exact line search: ascent
        assert snap.metrics["objective"] == pytest.approx(dual_objective(problem, snap.alpha), rel=1e-9, abs=1e-12)
    fast = SMO(problem, C=C, tol=1e-6)
    last = fast.run()  # the fast path: the same final iterate without the intermediate snapshots
    assert last.iteration == snaps[-1].iteration and np.array_equal(last.alpha, snaps[-1].alpha)
    assert fast.advance(10) is last


def _moved(points: PointSet, edit: str, rng, k: int = 5) -> tuple[PointSet, np.ndarray]:
    """A small edit of the scene, and how the previous α carries over (index map, −1 for a new point)."""
    X, y = points.X.copy(), points.y.copy()
    keep = np.arange(len(y))
    if edit == "move":
        X[3] += rng.normal(scale=0.1, size=2)
    elif edit == "add":
        X, y = np.vstack([X, [0.3, -0.2]]), np.r_[y, 1]
        keep = np.r_[keep, -1]
    else:  # remove point k
        X, y, keep = np.delete(X, k, axis=0), np.delete(y, k), np.delete(keep, k)
    return PointSet.from_signed(X, y), keep


@pytest.mark.parametrize("edit", ["move", "add", "remove"])
@pytest.mark.parametrize("kernel, margin", [("rbf:gamma=0.5", "soft"), ("affine", "soft"), ("poly:degree=2", "hard")])
def test_warm_start_reaches_the_cold_optimum(edit, kernel, margin):
    points = clouds(4) if margin == "soft" else line_set(4)
    prev = SMO(Problem(points, kernel=kernel), margin=margin, C=1.0, tol=TIGHT).run()
    free = np.flatnonzero((prev.alpha > 0) & (prev.alpha < 1.0))
    edited, keep = _moved(points, edit, np.random.default_rng(0), k=int(free[0]))  # remove: a free SV
    warm_alpha = np.where(keep >= 0, prev.alpha[np.maximum(keep, 0)], 0.0)
    problem = Problem(edited, kernel=kernel)
    cold = SMO(problem, margin=margin, C=1.0, tol=TIGHT).run()
    warm_solver = SMO(problem, margin=margin, C=1.0, tol=TIGHT, warm_start=warm_alpha)
    start = warm_solver.start()
    assert abs(start.alpha @ problem.y) < 1e-12 * max(1.0, start.alpha.sum())  # projected onto yᵀα = 0
    warm = warm_solver.advance(10**6)
    assert warm.status is cold.status and warm.metrics["kkt_gap"] < TIGHT
    assert warm.metrics["objective"] == pytest.approx(cold.metrics["objective"], rel=1e-6)
    assert dual_objective(problem, warm.alpha) == pytest.approx(dual_objective(problem, cold.alpha), rel=1e-6)
    assert set(np.flatnonzero(warm.alpha > 0)) == set(np.flatnonzero(cold.alpha > 0))
    assert warm.iteration < cold.iteration  # the point of starting warm (a deletion too: Newton steps finish it)


def test_warm_start_from_any_alpha_is_projected_and_converges():
    problem = Problem(clouds(6), kernel="rbf:gamma=0.5")
    rng = np.random.default_rng(2)
    cold = SMO(problem, C=1.0, tol=TIGHT).run()
    for guess in (rng.uniform(-1, 3, size=problem.n), np.full(problem.n, 50.0)):
        warm = SMO(problem, C=1.0, tol=TIGHT, warm_start=guess).run()
        assert warm.metrics["objective"] == pytest.approx(cold.metrics["objective"], rel=1e-6)
    with pytest.raises(DataError, match="one α per point"):
        SMO(problem, warm_start=np.zeros(problem.n + 1))


@pytest.mark.parametrize("C", [1.0, 0.05, np.inf])
def test_projection_onto_the_feasible_set(C):
    rng = np.random.default_rng(7)
    y = np.where(rng.random(30) < 0.4, 1.0, -1.0)
    for scale in (0.1, 1.0, 10.0):
        a = rng.normal(scale=scale, size=30) + 0.2
        p = project_feasible(a, y, C)
        assert p.min() >= 0 and p.max() <= C and abs(p @ y) < 1e-12 * max(1.0, p.sum())
        # p is the nearest feasible point: (a − p)·(z − p) ≤ 0 for every feasible z (here: random ones)
        for _ in range(20):
            z = np.clip(rng.uniform(0, min(C, 3.0), size=30), 0, C)
            z[y > 0] *= (z[y < 0].sum() / z[y > 0].sum())  # rescale the + side so that yᵀz = 0
            if z.max() <= C:
                assert (a - p) @ (z - p) <= 1e-9 * (1 + np.abs(a).sum())
    feasible = project_feasible(a, y, C)
    assert np.allclose(project_feasible(feasible, y, C), feasible, atol=1e-12)  # a projection is idempotent


def test_kernel_columns_match_the_matrix_and_evict_the_least_recent():
    points = clouds(8, n=30)
    for kernel in ("rbf:gamma=0.7", "poly:degree=3,c=1", "laplacian"):
        problem = Problem(points, kernel=kernel)
        K = problem.kernel(points.X, points.X)
        cols = KernelColumns(problem.kernel, points.X, budget_bytes=3 * 8 * 30)  # room for three columns
        assert cols.capacity == 3
        for i in (0, 1, 2, 0, 3, 0, 1):  # 3 evicts 1 (0 was used again); 1 is then recomputed
            assert np.allclose(cols(i), K[:, i], rtol=1e-12, atol=1e-14)
        assert cols.computed == 5
        assert np.allclose(cols.diag, np.diag(K))
        # the pair curvatures K_ii + K_tt − 2K_it (at least τ), cached only when every column fits twice
        for budget, cached in ((3 * 8 * 30, False), (60 * 8 * 30, True)):
            cols = KernelColumns(problem.kernel, points.X, budget_bytes=budget)
            for i in (4, 4, 7):
                want = np.maximum(K[i, i] + np.diag(K) - 2 * K[:, i], 1e-12)
                assert np.allclose(cols.curvature(i), want, rtol=1e-12, atol=1e-13)
            assert (cols.curvature(4) is cols.curvature(4)) is cached


def test_a_small_cache_gives_the_same_solution():
    problem = Problem(clouds(9, n=400), kernel="rbf:gamma=0.5")
    big = SMO(problem, C=1.0, tol=1e-6).run()
    small = SMO(problem, C=1.0, tol=1e-6, cache_mb=1.0)  # 1 MB holds 327 of the 400 columns
    assert small._cols.capacity < problem.n
    assert np.array_equal(small.run().alpha, big.alpha)


def test_shrinking_reaches_the_same_optimum():
    problem = Problem(clouds(10, n=80), kernel="poly:degree=2")
    shrunk = False
    s = SMO(problem, C=5.0, tol=1e-8)
    for snap in s.snapshots():  # shrinking happens every n = 80 pair updates; the snapshots then stay exact
        shrunk |= s._act is not None
        if s._act is not None:
            assert len(s._act) < problem.n
            assert snap.metrics["objective"] == pytest.approx(dual_objective(problem, snap.alpha), rel=1e-9)
    plain = SMO(problem, C=5.0, tol=1e-8, shrinking=False).run()
    assert shrunk and snap.metrics["kkt_gap"] < 1e-8
    assert snap.metrics["objective"] == pytest.approx(plain.metrics["objective"], rel=1e-9)
    _, _, obj_svc = svc_reference(problem, 5.0)
    assert snap.metrics["objective"] == pytest.approx(obj_svc, rel=1e-6)


def test_projection_onto_a_face_moves_only_the_free_coefficients():
    rng = np.random.default_rng(11)
    y = np.where(rng.random(40) < 0.5, 1.0, -1.0)
    a = np.where(rng.random(40) < 0.4, rng.uniform(0, 1, size=40), 0.0)
    a[rng.random(40) < 0.2] = 1.0  # some at the bound C = 1
    a[np.flatnonzero(y > 0)[:2]] = 0.4, 0.6  # free coefficients in both classes
    a[np.flatnonzero(y < 0)[:2]] = 0.3, 0.5
    free = (a > 0) & (a < 1)
    a[np.flatnonzero(free)[0]] += 0.05  # a small violation of Σ α_i y_i = 0 that the free ones can absorb
    p = warm_start_alpha(a, y, 1.0)
    assert np.array_equal(p[~free], a[~free]) and abs(p @ y) < 1e-12 and p.min() >= 0 and p.max() <= 1
    assert np.array_equal(p, project_feasible(a, y, 1.0, free))
    full = project_feasible(a, y, 1.0)
    assert np.count_nonzero((full > 0) & (full < 1)) > np.count_nonzero((p > 0) & (p < 1))  # spreads over all
    # on the face p is the nearest feasible point: (a − p)·(z − p) ≤ 0 for feasible z equal to a off the face
    for _ in range(30):
        z = a.copy()
        z[free] = rng.uniform(0, 1, size=free.sum())
        pos, neg = free & (y > 0), free & (y < 0)
        need = -(y[~free] @ a[~free]) + z[neg].sum()  # Σ_{free +} z must equal this
        if need > 0:
            z[pos] *= need / z[pos].sum()
            if z.max() <= 1 and abs(z @ y) < 1e-9:
                assert (a - p) @ (z - p) <= 1e-12
    assert project_feasible(a, y, 1.0, np.zeros(40, dtype=bool)) is None  # nothing may move: infeasible
    exact = np.zeros(6)  # a feasible α comes back unchanged: its zeros are not turned into 1e-18s
    exact[[0, 3]] = 0.5
    assert np.array_equal(warm_start_alpha(exact, np.array([1.0, 1, 1, -1, -1, -1]), 1.0), exact)
