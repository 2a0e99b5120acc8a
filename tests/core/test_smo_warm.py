"""SMO's warm start after every kind of small edit: the same optimum as a cold run and as scikit-learn's SVC."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from test_smo import TIGHT, clouds, dual_objective, line_set, svc_reference

from percviz.core.data import PointSet
from percviz.core.errors import DataError
from percviz.core.problem import Problem
from percviz.core.solvers import Status, get_solver
from percviz.core.solvers._kernel_cache import KernelColumns
from percviz.core.solvers._smo_newton import newton_polish
from percviz.core.solvers.lp import min_tau
from percviz.core.solvers.smo import warm_start_alpha

SMO = get_solver("smo")
EDITS = ["move", "move SV", "add", "delete non-SV", "delete free SV", "delete bound SV"]
CASES = [("rbf:gamma=0.5", "soft"), ("affine", "soft"), ("rbf:gamma=0.5", "hard"), ("affine", "hard")]


def edited(points: PointSet, alpha, C: float, kind: str, rng) -> tuple[PointSet, np.ndarray] | None:
    """The scene after one edit and the previous α carried over as Live does (kept, dropped, 0 when added);
    None when the scene has no point of the kind the edit needs."""
    X, y, a = points.X.copy(), points.y.copy(), np.array(alpha, dtype=float)
    sv = a > 0
    pick = {
        "move": np.ones(len(y), dtype=bool),
        "move SV": sv,
        "delete non-SV": ~sv,
        "delete free SV": sv & (a < C),
        "delete bound SV": a >= C,
    }
    if kind == "add":
        # a point between the classes, labelled like its nearest neighbour (the hard margin stays separable)
        x = X[rng.integers(len(y))] * 0.5 + X[rng.integers(len(y))] * 0.5
        label = y[np.argmin(((X - x) ** 2).sum(axis=1))]
        return PointSet.from_signed(np.vstack([X, x]), np.r_[y, label]), np.r_[a, 0.0]
    idx = np.flatnonzero(pick[kind])
    if not idx.size:
        return None
    k = int(rng.choice(idx))
    if kind.startswith("move"):
        X[k] += rng.normal(scale=0.05, size=2)
        return PointSet.from_signed(X, y), a
    return PointSet.from_signed(np.delete(X, k, axis=0), np.delete(y, k)), np.delete(a, k)


def scene(kernel: str, margin: str, seed: int, n: int = 60) -> PointSet:
    return clouds(seed, n=n) if margin == "soft" else line_set(seed, n=n)


@pytest.mark.parametrize(
    "kind, kernel, margin",
    [(kind, *case) for case in CASES for kind in EDITS if not (kind == "delete bound SV" and case[1] == "hard")],
)
def test_each_edit_reaches_the_cold_optimum_and_svcs(kind, kernel, margin):
    C = 1.0 if margin == "soft" else np.inf
    points = scene(kernel, margin, 3)
    prev = SMO(Problem(points, kernel=kernel), margin=margin, C=1.0, tol=TIGHT).run()
    out = edited(points, prev.alpha, C, kind, np.random.default_rng(1))
    assert out is not None
    new, alpha = out
    problem = Problem(new, kernel=kernel)
    cold = SMO(problem, margin=margin, C=1.0, tol=TIGHT).run()
    warm = SMO(problem, margin=margin, C=1.0, tol=TIGHT, warm_start=alpha).run()
    assert warm.status is cold.status and warm.metrics["kkt_gap"] < TIGHT
    assert dual_objective(problem, warm.alpha) == pytest.approx(dual_objective(problem, cold.alpha), rel=1e-6)
    support = set(np.flatnonzero(warm.alpha > 0))
    assert support == set(np.flatnonzero(cold.alpha > 0))
    svc, _, obj_svc = svc_reference(problem, 1.0 if margin == "soft" else 1e8)
    assert dual_objective(problem, warm.alpha) == pytest.approx(obj_svc, rel=1e-6)
    assert support == set(svc.support_)
    assert warm.iteration < cold.iteration  # the point of starting warm
    assert warm.iteration <= 3  # Newton steps on the free set did the work, not SMO's slow tail
    assert warm.alpha.min() >= 0 and warm.alpha.max() <= C and abs(warm.alpha @ problem.y) < 1e-9


@settings(max_examples=25, deadline=None, derandomize=True)
@given(
    case=st.sampled_from(CASES),
    seed=st.integers(0, 10**6),
    kinds=st.lists(st.sampled_from(EDITS), min_size=1, max_size=5),
)
def test_a_chain_of_random_edits_stays_on_the_cold_optimum(case, seed, kinds):
    """Each run starts from the previous warm run's α, as Live does while a person keeps editing."""
    kernel, margin = case
    C = 1.0 if margin == "soft" else np.inf
    rng = np.random.default_rng(seed)
    points = scene(kernel, margin, seed % 1000, n=40)
    alpha = SMO(Problem(points, kernel=kernel), margin=margin, C=1.0, tol=TIGHT).run().alpha
    for kind in kinds:
        out = edited(points, alpha, C, kind, rng)
        if out is None:
            continue
        points, start = out
        problem = Problem(points, kernel=kernel)
        try:
            cold = SMO(problem, margin=margin, C=1.0, tol=TIGHT).run()
        except Exception as exc:  # an added point may make the hard margin infeasible: then both refuse
            with pytest.raises(type(exc)):
                SMO(problem, margin=margin, C=1.0, tol=TIGHT, warm_start=start)
            return
        warm = SMO(problem, margin=margin, C=1.0, tol=TIGHT, warm_start=start).run()
        assert warm.metrics["kkt_gap"] < TIGHT
        assert dual_objective(problem, warm.alpha) == pytest.approx(dual_objective(problem, cold.alpha), rel=1e-6)
        assert set(np.flatnonzero(warm.alpha > 0)) == set(np.flatnonzero(cold.alpha > 0))
        alpha = warm.alpha


@pytest.mark.parametrize("kernel", ["rbf:gamma=0.5", "affine"])
@pytest.mark.parametrize("C", [1.0, np.inf])
def test_newton_polish_keeps_feasibility_and_never_raises_the_objective(kernel, C):
    points = clouds(8, n=50) if np.isfinite(C) else line_set(8, n=50)
    problem = Problem(points, kernel=kernel)
    X, y = problem.X, problem.y
    K = problem.kernel(X, X)
    rng = np.random.default_rng(4)
    cols = KernelColumns(problem.kernel, X, 2**20)
    for _ in range(10):
        a = warm_start_alpha(np.where(rng.random(50) < 0.5, rng.uniform(0, 1.2, size=50), 0.0), y, C)
        F = y - K @ (a * y)
        before = dual_objective(problem, a)
        polished, G = a.copy(), F.copy()
        newton_polish(cols, y, polished, G, C, 1e-9)
        assert polished.min() >= 0 and polished.max() <= C and abs(polished @ y) < 1e-9
        assert np.abs(G - (y - K @ (polished * y))).max() < 1e-8  # its running F is the true one
        assert dual_objective(problem, polished) >= before - 1e-12  # the dual (maximized) never falls


def test_a_hard_margin_warm_start_still_refuses_points_made_inseparable():
    points = line_set(2, n=40)
    prev = SMO(Problem(points, kernel="affine"), margin="hard", tol=TIGHT).run()
    k = int(np.flatnonzero(points.y < 0)[0])  # a +1 point dropped onto a −1 point's place (a hair away)
    X, y = np.vstack([points.X, points.X[k] + 1e-3]), np.r_[points.y, 1]
    with pytest.raises(DataError, match="^Not separable by"):
        SMO(Problem(PointSet.from_signed(X, y), kernel="affine"), margin="hard", warm_start=np.r_[prev.alpha, 0.0])
    moved = points.X.copy()
    moved[0] += 0.01  # a move that keeps them separable skips the LP: the previous w proves it, and it is right
    warm = SMO(Problem(PointSet.from_signed(moved, points.y), kernel="affine"), margin="hard", warm_start=prev.alpha)
    assert warm.run().status is Status.SEPARATOR


def test_a_hard_margin_warm_start_that_separates_needs_no_lp(monkeypatch):
    """Deleting a free support vector (3 → 2 of them, the old w fails): the polished start proves separability."""
    import percviz.core.solvers.smo as smo_module

    def no_lp(*args, **kwargs):
        raise AssertionError("the separability LP ran")

    points = line_set(3, n=60)
    prev = SMO(Problem(points, kernel="affine"), margin="hard", tol=1e-3).run()
    monkeypatch.setattr(smo_module, "min_tau", no_lp)
    for k in np.flatnonzero(prev.alpha > 0):
        fewer = PointSet.from_signed(np.delete(points.X, k, axis=0), np.delete(points.y, k))
        warm = SMO(Problem(fewer, kernel="affine"), margin="hard", tol=1e-3, warm_start=np.delete(prev.alpha, k))
        final = warm.run()
        monkeypatch.setattr(smo_module, "min_tau", min_tau)
        cold = SMO(Problem(fewer, kernel="affine"), margin="hard", tol=1e-3).run()
        monkeypatch.setattr(smo_module, "min_tau", no_lp)
        assert final.status is Status.SEPARATOR and final.metrics["train_errors"] == 0
        assert final.metrics["objective"] == pytest.approx(cold.metrics["objective"], rel=1e-4)


@pytest.mark.parametrize("kernel", ["affine", "rbf:gamma=0.5"])
def test_deleting_a_support_vector_at_n_200_needs_no_pair_updates(kernel):
    """The benchmark's case (bench_svm.py, 'overlap', n = 200): before the Newton steps it cost 67–231 pairs."""
    points = clouds(0, n=200)
    prev = SMO(Problem(points, kernel=kernel), C=1.0, tol=1e-3).run()
    k = int(np.flatnonzero(prev.alpha > 0)[0])
    fewer = Problem(PointSet.from_signed(np.delete(points.X, k, axis=0), np.delete(points.y, k)), kernel=kernel)
    warm = SMO(fewer, C=1.0, tol=1e-3, warm_start=np.delete(prev.alpha, k)).run()
    cold = SMO(fewer, C=1.0, tol=1e-3).run()
    assert warm.iteration <= 3 < cold.iteration
    assert warm.metrics["objective"] == pytest.approx(cold.metrics["objective"], rel=1e-4)  # both to tol 1e-3
