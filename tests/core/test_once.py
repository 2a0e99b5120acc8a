"""A Problem's cached values are computed once, and a caller waits only for the value it asks for."""

from __future__ import annotations

import threading

import numpy as np
import pytest

from percviz.core.data import PointSet
from percviz.core.problem import Problem


def _problem(seed: int) -> Problem:
    rng = np.random.default_rng(seed)
    return Problem(PointSet(rng.normal(size=(12, 2)), np.repeat([0, 1], 6)), "affine", "rff:dim=50")


def test_another_problems_slow_phi_does_not_hold_this_one(monkeypatch):
    """Thread A is inside problem a's φ(X) (held there); φ(X), Y and G of problem b are still answered."""
    a, b = _problem(0), _problem(1)
    inside, release = threading.Event(), threading.Event()
    real = type(a.features).transform

    def slow(self, X):
        if X is a.X:  # only problem a's φ(X) is held
            inside.set()
            assert release.wait(30), "the test's gate was never opened"
        return real(self, X)

    monkeypatch.setattr(type(a.features), "transform", slow)
    held = threading.Thread(target=lambda: a.Phi, daemon=True)
    held.start()
    assert inside.wait(10)
    answers = {}
    asker = threading.Thread(target=lambda: answers.update(Phi=b.Phi, Y=b.Y, G=b.G), daemon=True)
    asker.start()
    asker.join(20)  # with functools.cached_property on 3.11 this waits for a's φ(X), i.e. for `release`
    finished = not asker.is_alive()
    release.set()
    held.join(20)
    assert finished, "problem b's φ(X) waited for problem a's"
    np.testing.assert_array_equal(answers["Phi"], real(b.features, b.X))  # b's own values, not a's
    np.testing.assert_array_equal(answers["Y"], answers["Phi"] * b.y[:, None])
    assert answers["G"].shape == (12, 12)
    assert not np.array_equal(a.Phi, b.Phi)


def test_the_same_value_is_computed_once_across_threads(monkeypatch):
    """Eight threads asking one problem's φ(X) at once get the same array, computed by one transform call."""
    p = _problem(2)
    calls, real = [], type(p.features).transform
    barrier = threading.Barrier(8)

    def counted(self, X):
        calls.append(1)
        return real(self, X)

    monkeypatch.setattr(type(p.features), "transform", counted)
    got = []

    def ask():
        barrier.wait(10)  # raises BrokenBarrierError on time-out
        got.append(p.Phi)

    threads = [threading.Thread(target=ask) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(20)
    assert len(got) == 8 and all(g is got[0] for g in got)
    assert len(calls) == 1


def test_an_error_is_not_cached_and_is_raised_again():
    """A refused value (K(x, x) = 0) raises each time it is asked, as before."""
    from percviz.core.errors import DataError

    p = Problem(PointSet(np.array([[0.0, 0.0], [1.0, 1.0]]), np.array([0, 1])), "linear")
    for _ in range(2):
        with pytest.raises(DataError, match="cannot be normalized"):
            p.self_kernel  # noqa: B018
