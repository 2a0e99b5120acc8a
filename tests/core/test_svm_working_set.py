"""The SVM's QP on a working set (Live's edits): the whole dual's solution, checked against the whole QP and SVC."""

from __future__ import annotations

import numpy as np
import pytest

from percviz.core.data import PointSet
from percviz.core.problem import Problem
from percviz.core.solvers.svm import SVM, solve_dual, solve_on_working_set


def _scene(n=120, seed=3, noise=0.0):
    rng = np.random.default_rng(seed)
    X = rng.uniform(-3, 3, size=(n, 2))
    c = (X[:, 0] + 0.5 * X[:, 1] + noise * rng.standard_normal(n) < 0).astype(int)
    return PointSet(X, c)


def _dual_objective(K, y, alpha):
    v = alpha * y
    return float(alpha.sum() - 0.5 * v @ K @ v)


@pytest.mark.parametrize("kernel,C", [("rbf:gamma=0.5", 1.0), ("rbf:gamma=0.5", None), ("affine", 10.0)])
def test_a_working_set_from_a_few_points_grows_to_the_whole_qps_solution(kernel, C):
    p = Problem(_scene(noise=0.2 if C is not None else 0.0), kernel, "linear")
    K = np.asarray(p.kernel(p.X, p.X))
    y = p.y.astype(float)
    full = solve_dual(K, y, C)
    start = [int(np.argmax(y > 0)), int(np.argmax(y < 0))]  # one point of each class: far from the answer
    ws = solve_on_working_set(K, y, C, start)
    assert ws is not None and ws.rounds > 1 and ws.size < p.n  # it had to grow, and stayed smaller than n
    assert _dual_objective(K, y, ws.qp.alpha) == pytest.approx(_dual_objective(K, y, full.alpha), rel=1e-6)
    f_ws = K @ (ws.qp.alpha * y) + ws.qp.bias
    f_full = K @ (full.alpha * y) + full.bias
    assert np.abs(f_ws - f_full).max() < 1e-4 * np.abs(f_full).max()
    # the KKT conditions of the whole dual: α_i = 0 ⇒ y_i f ≥ 1; 0 < α_i < C ⇒ y_i f = 1; α_i = C ⇒ y_i f ≤ 1
    a, m = ws.qp.alpha, y * f_ws
    top = C if C is not None else np.inf
    assert (m[a == 0] >= 1 - 1e-6).all()
    free = (a > 1e-6 * a.max()) & (a < top * (1 - 1e-6))
    assert np.abs(m[free] - 1).max() < 1e-4
    assert abs(float(a @ y)) < 1e-6 * a.sum()


def test_a_live_edit_solved_on_the_last_support_vectors_matches_the_whole_qp_and_svc():
    svc_mod = pytest.importorskip("sklearn.svm", reason="scikit-learn's SVC is the reference")
    pts = _scene(n=150, seed=5, noise=0.5)
    before = SVM(Problem(pts, "rbf:gamma=0.5", "linear"), show_iterations=False).run()
    X = pts.X.copy()
    X[0] += (0.3, -0.2)  # a dragged point
    moved = PointSet(X, pts.classes)
    p = Problem(moved, "rbf:gamma=0.5", "linear")
    live = SVM(p, show_iterations=False, warm_start=before.alpha)
    snap = live.run()
    assert live._working is not None and live._working.size < p.n
    assert "working set" in snap.message and "α_i = 0 is optimal" in snap.message
    whole = SVM(p, show_iterations=False).run()
    assert snap.metrics["objective"] == pytest.approx(whole.metrics["objective"], rel=1e-6)
    svc = svc_mod.SVC(kernel="rbf", gamma=0.5, C=1.0, tol=1e-8).fit(moved.X, p.y)
    assert np.sign(snap.decision(moved.X)).tolist() == np.sign(svc.decision_function(moved.X)).tolist()
    assert snap.metrics["support_vectors"] == pytest.approx(len(svc.support_), abs=2)


def test_replayed_iterates_ignore_the_working_set():
    pts = _scene(n=60)
    p = Problem(pts, "rbf:gamma=0.5", "linear")
    warm = SVM(p, show_iterations=False).run().alpha
    s = SVM(p, warm_start=warm)  # show_iterations (the default): the whole QP, stepped through
    s.run()
    assert s._working is None
