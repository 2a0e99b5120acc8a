"""The margin computation's budgets: it ends at its time budget, never blocks a solver run, and the bound
metric appears once ρ_K is known (computed elsewhere, e.g. by the app's background job)."""

import threading

import numpy as np

from percviz.core import gram, min_norm
from percviz.core.data import PointSet
from percviz.core.problem import Problem
from percviz.core.solvers import get_solver

from test_margin_gordan import check_verdict
from test_paper_solvers import make_separable


class FakeClock:
    """time.perf_counter stand-in that advances `step` seconds per call: deadlines without real waiting."""

    def __init__(self, step: float):
        self.t, self.step = 0.0, step

    def __call__(self) -> float:
        self.t += self.step
        return self.t


def overlapping_rbf_clouds(n: int, seed: int = 0) -> Problem:
    """The audit's stall: two overlapping normal clouds under RBF γ = 0.5 (> 900 s in the former Gordan LP)."""
    rng = np.random.default_rng(seed)
    h = n // 2
    X = np.vstack([rng.normal([0.5, 0], 1, (h, 2)), rng.normal([-0.5, 0], 1, (n - h, 2))])
    return Problem(PointSet.from_signed(X, np.r_[np.ones(h), -np.ones(n - h)]), kernel="rbf:gamma=0.5")


def test_the_margin_computation_ends_at_its_budget(monkeypatch):
    """With a clock that moves 1 s per reading, a 5 s budget allows only a few of Wolfe's steps: the run stops
    there (complete=False) with a verdict that still obeys Gordan's alternative."""
    monkeypatch.setattr(min_norm.time, "perf_counter", FakeClock(1.0))
    monkeypatch.setattr(gram.time, "perf_counter", FakeClock(1.0))
    pr = overlapping_rbf_clouds(120)
    m = gram.optimal_margin(pr, budget=5.0)
    assert not m.complete and m.budget == 5.0 and not m.exact
    assert np.count_nonzero(m.p) <= 6  # a handful of major steps, not a full solve
    check_verdict(pr, m)


def test_a_solver_run_does_not_wait_for_an_expensive_margin():
    """`percviz solve --algorithm snkp` hung on the overlapping clouds (its `bound` metric computed ρ_K);
    now the metric is absent (an undecided ρ_K gives no bound) and the run ends."""
    pr = overlapping_rbf_clouds(200)
    snap = get_solver("snkp")(pr, max_iter=20).run()
    assert snap.iteration == 20 and "bound" not in snap.metrics
    m = gram.peek(pr)
    assert m is not None and m.budget == gram.SYNC_BUDGET and m.verdict != "separable"


def test_the_bound_metric_appears_once_rho_k_is_known(monkeypatch):
    """With no time for ρ_K in the run, SNKP's first snapshots carry no bound; after optimal_margin has run (as
    the app's background job does) the next snapshot carries Theorem 1's bound, which the run then obeys."""
    pr = make_separable(120, 0.05, "rbf:gamma=2", seed=5)
    monkeypatch.setattr(gram, "SYNC_BUDGET", 0.0)
    solver = get_solver("snkp")(pr)
    first = solver.step()
    assert "bound" not in first.metrics or first.metrics["bound"] is None
    m = gram.optimal_margin(pr)
    assert m.separable and m.resolved
    later = solver.step()
    bound = later.metrics["bound"]
    assert bound is not None and np.isfinite(bound)
    final = solver.advance(10**6)
    assert final.status.name == "SEPARATOR" and final.iteration <= bound  # Theorem 1 holds with it


def test_margin_if_does_not_wait_for_another_threads_computation():
    """While another thread holds ρ_K's lock (a long optimal_margin), margin_if answers None at once."""
    pr = make_separable(60, 0.05, "affine", seed=6)
    held, release = threading.Event(), threading.Event()

    def hold():
        with gram._key_lock(pr, "rho_K"):
            held.set()
            assert release.wait(10), "the test's gate was never opened"

    th = threading.Thread(target=hold)
    th.start()
    try:
        assert held.wait(10)
        assert gram.margin_if(pr, True) is None and gram.peek(pr) is None
    finally:
        release.set()
        th.join(10)
    assert gram.margin_if(pr, True) is gram.optimal_margin(pr)


def test_wolfe_corral_factor_survives_deletions():
    """Dropping columns from the corral keeps its Cholesky factor exact (checked against the submatrix)."""
    rng = np.random.default_rng(0)
    A = rng.normal(size=(30, 40))
    H = A @ A.T + np.eye(30)
    L = np.linalg.cholesky(H)
    for t in (0, 7, 29):
        keep = np.delete(np.arange(30), t)
        L2 = min_norm._cholesky_delete(L, t)
        assert np.allclose(np.tril(L2), L2) and np.allclose(L2 @ L2.T, H[np.ix_(keep, keep)], atol=1e-12)
