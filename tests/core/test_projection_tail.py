"""The compiled tail of the projection (12) (issue 26): the rows it finishes end where numpy's batch takes them."""

import numpy as np
import pytest

from percviz.core import input_distance
from percviz.core._projection_tail import compiled_rows, rbf_terms
from percviz.core.decision import DerivativeExpansion, KernelExpansion
from percviz.core.input_distance import project
from percviz.core.kernels import parse_kernel

pytestmark = pytest.mark.skipif(compiled_rows() is None, reason="numba is not installed")


def _decisions():
    rng = np.random.default_rng(3)
    B = rng.normal(size=(25, 2))
    k = parse_kernel("rbf:gamma=1.5")
    yield DerivativeExpansion(k, B, rng.normal(size=25), 0.3 * rng.normal(size=(25, 2)), 0.1)
    yield KernelExpansion(k, B, rng.normal(size=25), -0.2)


@pytest.mark.parametrize("which", [0, 1])
def test_the_compiled_tail_ends_where_the_numpy_batch_does(which, monkeypatch):
    dec = list(_decisions())[which]
    X = np.random.default_rng(4).uniform(-2.5, 2.5, size=(40, 2))
    runs = []
    for tail in (0, 40):  # 0: numpy all the way; 40: every row by the compiled loop
        monkeypatch.setattr(input_distance, "TAIL_ROWS", tail)
        runs.append(project(dec, X, X))
    (numpy_run, tail_run) = runs
    both = numpy_run.converged & tail_run.converged
    assert both.sum() >= 30 and (numpy_run.converged == tail_run.converged).mean() >= 0.95
    np.testing.assert_allclose(tail_run.feet[both], numpy_run.feet[both], atol=1e-9)
    f, g = dec.value_and_gradient(tail_run.feet[tail_run.converged])
    assert (np.abs(f) / np.linalg.norm(g, axis=1)).max() <= 1e-8  # its converged feet are on f = 0
    # and each is a critical point of the distance: x − foot parallel to ∇f
    d = X[tail_run.converged] - tail_run.feet[tail_run.converged]
    cross = d[:, 0] * g[:, 1] - d[:, 1] * g[:, 0]
    assert np.abs(cross).max() <= 1e-7 * (1 + np.linalg.norm(d, axis=1).max()) * np.linalg.norm(g, axis=1).max()


def test_only_rbf_expansions_take_the_compiled_tail():
    k = parse_kernel("poly:degree=2")
    B = np.eye(2)
    assert rbf_terms(DerivativeExpansion(k, B, np.ones(2), np.zeros((2, 2)), 0.0)) is None
    assert rbf_terms(next(_decisions()))[0].shape == (25, 2)


@pytest.mark.parametrize("which", [0, 1])
def test_the_compiled_bookkeeping_gives_numpys_bits(which, monkeypatch):
    from percviz.core import _projection_tail

    dec = list(_decisions())[which]
    X = np.random.default_rng(5).uniform(-4, 4, size=(80, 2))
    X[0] = [1e200, -1e200]  # far out: ∇f underflows to 0 there, the row stops where it is
    starts = X + np.random.default_rng(6).normal(scale=0.5, size=X.shape)
    runs = []
    for fast in (False, True):
        monkeypatch.setattr(input_distance, "compiled_step", _projection_tail.compiled_step if fast else lambda: None)
        with np.errstate(all="ignore"):
            runs.append(project(dec, X, starts, max_iter=np.arange(80) % 7 + 20))
    for a, b in zip(runs[0].__dict__.values(), runs[1].__dict__.values()):
        np.testing.assert_array_equal(a, b)


def test_the_compiled_rbf_evaluation_gives_numpys_bits(monkeypatch):
    from percviz.core import batched_eval

    dec = next(_decisions())
    Z = np.random.default_rng(7).uniform(-3, 3, size=(33, 2))
    fast = batched_eval.evaluator(dec)
    monkeypatch.setattr(batched_eval, "compiled_rbf_glue", lambda: None)
    slow = batched_eval.evaluator(dec)
    for rows in (Z, Z[:1], Z[::2]):  # a strided batch takes numpy's path
        for a, b in zip(fast(rows), slow(rows)):
            np.testing.assert_array_equal(a, b)
    for big in (1e150, 1e160, 1e300, np.inf):  # under errstate raise, both flag the same overflows
        rows = np.array([[big, -big], [0.5, big], [1.0, 2.0]])
        with np.errstate(all="raise"):
            got = []
            for fg in (fast, slow):
                try:
                    got.append(fg(rows))
                except FloatingPointError as exc:
                    got.append(str(exc))
        assert type(got[0]) is type(got[1])
        if isinstance(got[0], str):
            assert got[0] == got[1]
        else:
            for a, b in zip(*got):
                np.testing.assert_array_equal(a, b)
