"""Issue 28's reproducers still open on main at the start of this session (docs/audit28.md), each a test."""

import json
import time
import warnings

import numpy as np
import pytest

from percviz import cli
from percviz.core import gram
from percviz.core.decision import DecisionFunction, FeatureLinear
from percviz.core.feature_jacobians import monomial_gradient
from percviz.core.features import parse_features
from percviz.core.input_distance import project


def _central_gradient(fn, X, h=1e-6):
    """∇fn by central differences, one coordinate at a time (independent of the monomial tree)."""
    cols = []
    for c in range(X.shape[1]):
        e = np.zeros(X.shape[1])
        e[c] = h
        cols.append((fn(X + e) - fn(X - e)) / (2 * h))
    return np.stack(cols, axis=1)


@pytest.mark.parametrize("spec,d", [("quadratic", 5), ("poly:degree=3", 7), ("poly:degree=5", 3), ("poly:degree=2", 1)])
def test_the_reverse_mode_gradient_of_a_monomial_map_is_the_derivative(spec, d):
    rng = np.random.default_rng(d)
    fmap = parse_features(spec)
    X = rng.uniform(-1, 1, size=(9, d))
    w = rng.normal(size=fmap.transform(X[:1]).shape[1])
    f = FeatureLinear(fmap, w)
    fd = _central_gradient(f, X)
    np.testing.assert_allclose(f.gradient(X), fd, rtol=1e-6, atol=1e-7 * np.abs(fd).max())
    np.testing.assert_allclose(monomial_gradient(X, getattr(fmap, "degree", 2), w), f.gradient(X), rtol=1e-12,
                               atol=1e-13)


@pytest.mark.slow
def test_a_cubic_map_on_wide_data_gets_its_input_margin_in_seconds(capsys, tmp_path):
    """Was: normalized-perceptron -f poly:degree=3 on 6 points in R⁴⁰ took 52 s (the m×d̂×d Jacobian per step)."""
    rng = np.random.default_rng(0)
    X = rng.normal(size=(6, 25))
    y = np.where(X[:, 0] > 0, 1, -1)
    y[:2] = (1, -1)
    np.save(tmp_path / "wide.npy", np.column_stack([X, y]))
    t0 = time.thread_time()
    assert cli.main(["solve", str(tmp_path / "wide.npy"), "-a", "normalized-perceptron", "-f", "poly:degree=3",
                     "--json"]) == 0
    assert time.thread_time() - t0 < 15
    doc = json.loads(capsys.readouterr().out)
    assert doc["status"] == "separator" and doc["input_margin_note"] is None
    # the margin is no more than the distance to any sign change found on the segments between opposite labels
    f = FeatureLinear(parse_features("poly:degree=3"), np.asarray(doc["weights"]))
    nearest = np.inf
    for i in np.flatnonzero(y > 0):
        for j in np.flatnonzero(y < 0):
            t = np.linspace(0, 1, 2001)[:, None]
            seg = X[i] + t * (X[j] - X[i])
            k = np.flatnonzero(np.diff(np.sign(f(seg))))[0]
            nearest = min(nearest, np.linalg.norm(seg[k] - X[i]), np.linalg.norm(seg[k + 1] - X[j]))
    assert 0 < doc["input_margin"] <= nearest * (1 + 1e-3)


@pytest.mark.slow
def test_a_search_too_costly_is_declined_with_its_reason(capsys, tmp_path):
    """8 points in R¹⁰⁰ with the cubic map (176,851 columns): over 100 s before, now declined in the JSON."""
    rng = np.random.default_rng(0)
    X = rng.normal(size=(8, 100))
    np.save(tmp_path / "w100.npy", np.column_stack([X, np.where(X[:, 0] > 0, 1, -1)]))
    t0 = time.thread_time()
    assert cli.main(["solve", str(tmp_path / "w100.npy"), "-a", "normalized-perceptron", "-f", "poly:degree=3",
                     "--json"]) == 0
    assert time.thread_time() - t0 < 20
    doc = json.loads(capsys.readouterr().out)
    assert doc["status"] == "separator" and doc["input_margin"] is None
    assert "not computed" in doc["input_margin_note"] and "176,851" in doc["input_margin_note"]


class _Flat(DecisionFunction):
    """f = 1e10 + 3e-150·x₁: ‖∇f‖² = 9e-300 passes (12)'s ∇f = 0 test, f/‖∇f‖² overflows."""

    def __call__(self, Z):
        Z = np.atleast_2d(Z)
        return 1e10 + 3e-150 * Z[:, 0]

    def gradient(self, Z):
        g = np.zeros_like(np.atleast_2d(Z))
        g[:, 0] = 3e-150
        return g


def test_the_projection_does_not_overflow_on_a_flat_f():
    """Was: RuntimeWarning 'overflow encountered in divide' at input_distance.py:96 (the audit)."""
    X = np.array([[0.0, 0.0], [1.0, 2.0]])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        p = project(_Flat(), X, X)
    assert np.isfinite(p.feet).all() and not p.converged.any()


@pytest.mark.parametrize("scale,rho", [(1.0, 1e-300), (2.0, 1e-170), (1.0, 0.0), (1.0, 0.5)])
def test_a_bound_over_rho_squared_is_a_finite_number_or_none(scale, rho):
    v = gram.over_rho_squared(scale, rho)
    if rho > 0 and scale / rho / rho < 1e308:
        assert v == pytest.approx(scale / rho**2)
    else:
        assert v is None


def test_a_sweep_over_n_at_margin_1e_300_records_the_margin(capsys):
    """Was: internal error: ZeroDivisionError (the smoothed perceptron's bound 1/ρ², ρ² underflowing to 0)."""
    assert cli.main(["sweep", "--over", "n", "--n", "10", "--margin", "1e-300", "-a", "snkp,nkp,perceptron",
                     "--max-iter", "50", "--workers", "1", "--json"]) == 0
    runs = json.loads(capsys.readouterr().out)["runs"]
    assert {r["algorithm"] for r in runs} == {"snkp", "nkp", "perceptron"}
    for r in runs:
        assert r["rho"] == 1e-300 and r["rho_interval"][0] <= 1e-300 <= r["rho_interval"][1]
        assert r["bound"] is None or np.isfinite(r["bound"])


class _Line(DecisionFunction):
    """f = x₁ (not declared affine, so (12) iterates)."""

    def __call__(self, Z):
        return np.atleast_2d(Z)[:, 0].astype(float)

    def gradient(self, Z):
        g = np.zeros_like(np.atleast_2d(Z), dtype=float)
        g[:, 0] = 1.0
        return g


def test_a_tiny_last_step_beside_points_at_1e12_does_not_overflow():
    """The audit (d5-overlap × 1e12, snkp, RBF γ = 1e6): max_step/step overflowed for a step of 1e-300."""
    X = np.array([[1e12, 0.0], [-1e12, 5.0]])
    start = np.array([[1e-300, 0.0], [-1e-300, 5.0]])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        p = project(_Line(), X, start)
    np.testing.assert_allclose(p.feet, [[0.0, 0.0], [0.0, 5.0]], atol=1e-280)
