"""Multi-class linear machines: the multicategory rule, Kesler's construction and MSE for c classes."""

import numpy as np
import pytest

from percviz.core import datasets
from percviz.core.data import PointSet
from percviz.core.problem import Problem
from percviz.core.solvers import Status, get_solver
from percviz.core.solvers.multiclass import kesler_vectors, rival_gaps

RULES = ["linear-machine", "kesler"]


def voronoi_set(c, n, seed, gap=0.2):
    """Points labelled by their nearest of c centres (with a gap): separable by a linear machine."""
    rng = np.random.default_rng(seed)
    ang = 2 * np.pi * np.arange(c) / c + rng.uniform(0, 1)
    mu = 3 * np.column_stack([np.cos(ang), np.sin(ang)]) + rng.normal(size=2)
    X = rng.normal(scale=1.5, size=(4 * n, 2)) + mu[rng.integers(0, c, 4 * n)]
    d2 = ((X[:, None] - mu[None]) ** 2).sum(-1)
    s = np.sort(d2, axis=1)
    keep = s[:, 1] - s[:, 0] > gap * np.sqrt(s[:, 1])
    return PointSet(X[keep][:n], d2.argmin(axis=1)[keep][:n])


@pytest.mark.parametrize("c, seed", [(3, 0), (3, 1), (4, 2), (4, 3), (5, 4)])
def test_rules_separate_separable_sets_and_agree(c, seed):
    points = voronoi_set(c, 80, seed)
    assert len(np.unique(points.classes)) == c
    labels = []
    for name in RULES:
        solver = get_solver(name)(Problem(points), max_iter=20000)
        snaps = list(solver.snapshots())
        final = snaps[-1]
        assert final.status is Status.SEPARATOR, name
        assert final.weights.shape == (c, 3) and final.decision.n_outputs == c
        assert final.metrics["train_errors"] == 0 and final.metrics["margin"] > 0
        assert snaps[0].metrics["train_errors"] == points.n  # W = 0: every argmax is a tie, so every sample is wrong
        assert all(s.status is Status.RUNNING for s in snaps[:-1])
        labels.append(final.decision.predict(points.X))
    # Kesler and the multicategory rule give the same classification: every training point in its class.
    assert np.array_equal(labels[0], labels[1]) and np.array_equal(labels[0], points.classes)


def test_two_classes_reduce_to_the_notes_fixed_increment():
    # With c = 2 both rules move a = a_0 − a_1 by 2·y on each mistake, so they are the notes'
    # fixed-increment rule (scaled by 2): "28 corrections in 4 passes" on the 80-sample set.
    points = datasets.separable()
    Y = np.asarray(Problem(points).Y)
    a = np.zeros(3)
    corrections = 0
    for _ in range(10):
        for y in Y:
            if a @ y <= 0:
                a, corrections = a + y, corrections + 1
    assert corrections == 28
    for name in RULES:
        final = get_solver(name)(Problem(points)).run()
        assert final.status is Status.SEPARATOR and final.iteration == 28
        assert final.weights[0] - final.weights[1] == pytest.approx(2 * a)


def test_kesler_vectors_encode_the_pairwise_inequalities():
    rng = np.random.default_rng(0)
    Phi = rng.normal(size=(7, 4))
    cls = rng.integers(0, 3, 7)
    H, owner = kesler_vectors(Phi, cls, 3)
    assert H.shape == (7 * 2, 3 * 4) and list(owner) == [i for i in range(7) for _ in range(2)]
    W = rng.normal(size=(3, 4))
    G = Phi @ W.T
    want = [G[i, cls[i]] - G[i, j] for i in range(7) for j in range(3) if j != cls[i]]
    assert H @ W.reshape(-1) == pytest.approx(want)  # α·η_ij = g_i(x) − g_j(x)
    gaps = rival_gaps(G, cls)
    assert gaps == pytest.approx(np.min(np.reshape(want, (7, 2)), axis=1))


def test_non_separable_never_claims_a_separator():
    # Three classes, one point of class 2 placed on top of a class-0 point: no linear machine separates them.
    points = voronoi_set(3, 40, 7)
    X = np.vstack([points.X, points.X[points.classes == 0][:1]])
    bad = PointSet(X, np.r_[points.classes, 2])
    for name in RULES:
        final = get_solver(name)(Problem(bad), max_iter=3000).run()
        assert final.status is Status.MAX_ITER and final.metrics["train_errors"] >= 1
    mse = get_solver("mse-multiclass")(Problem(bad)).run()
    assert mse.status is Status.CONVERGED and mse.metrics["train_errors"] >= 1


def test_mse_multiclass_is_the_pseudoinverse_solution():
    points = voronoi_set(4, 60, 5)
    problem = Problem(points, features="quadratic")
    snaps = list(get_solver("mse-multiclass")(problem).snapshots())
    assert len(snaps) == 2 and snaps[0].metrics["train_errors"] == points.n
    final = snaps[-1]
    Phi = np.asarray(problem.Phi)
    B = np.eye(4)[points.classes]
    W = (np.linalg.pinv(Phi) @ B).T
    assert final.weights == pytest.approx(W, abs=1e-8)
    assert final.metrics["criterion"] == pytest.approx(np.sum((Phi @ W.T - B) ** 2))
    # one-hot targets sum to 1 and φ contains the constant 1, so the fitted discriminants sum to 1 everywhere
    Z = np.random.default_rng(2).uniform(-5, 5, size=(30, 2))
    assert final.decision(Z).sum(axis=1) == pytest.approx(np.ones(30))
    if final.metrics["train_errors"] == 0:
        assert final.status is Status.SEPARATOR
    else:
        assert final.status is Status.CONVERGED


def test_quadratic_features_separate_the_ring_as_three_classes():
    # The notes' ring split into an inner disk and two half-rings: quadratic discriminants are needed.
    ring = datasets.ring()
    cls = np.where(ring.classes == 1, 0, np.where(ring.X[:, 0] > 0, 1, 2))
    points = PointSet(ring.X, cls)
    assert get_solver("linear-machine")(Problem(points), max_iter=2000).run().status is Status.MAX_ITER
    final = get_solver("kesler")(Problem(points, features="quadratic"), max_iter=200000).run()
    assert final.status is Status.SEPARATOR and final.weights.shape == (3, 6)


@pytest.mark.parametrize("name", RULES + ["mse-multiclass"])
def test_solver_contract(name):
    cls = get_solver(name)
    assert cls.family == "Multi-class linear machines" and cls.representation == "multiclass"
    for snap in cls(Problem(voronoi_set(3, 30, 9))).snapshots():
        assert set(snap.metrics) <= set(cls.metric_keys) and snap.message
        assert not snap.weights.flags.writeable
