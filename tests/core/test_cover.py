"""Cover's function counting: the formula, its identities, the notes' LP simulation and a brute-force count."""

import functools

import numpy as np
import pytest

from percviz.core import cover
from percviz.core.errors import ParameterError


def test_notes_formula_column():
    # The notes print Cover's formula 1.000, 0.875, 0.500, 0.227, 0.090 for n = 3, 4, 6, 8, 10 and d̂ = 3.
    got = [round(cover.separable_fraction(n, 3), 3) for n in (3, 4, 6, 8, 10)]
    assert got == [1.0, 0.875, 0.5, 0.227, 0.09]
    assert cover.separable_dichotomies(10, 3) == 2 * (1 + 9 + 36)


@pytest.mark.parametrize("d_hat", range(1, 9))
def test_identities(d_hat):
    for n in range(0, d_hat + 1):
        assert cover.separable_fraction(n, d_hat) == 1.0  # every labeling of n ≤ d̂ points is separable
    assert cover.separable_fraction(cover.capacity(d_hat), d_hat) == 0.5
    for n in range(1, 30):
        # Cover's recursion C(n + 1, d) = C(n, d) + C(n, d − 1), with C(n, 0) = 0.
        lower = cover.separable_dichotomies(n, d_hat - 1) if d_hat > 1 else 0
        assert cover.separable_dichotomies(n + 1, d_hat) == cover.separable_dichotomies(n, d_hat) + lower
    assert cover.separable_dichotomies(7, 1) == 2  # homogeneous 1-D: only the two all-same labelings



def test_forty_points_literal_counts():
    # literal values worked by hand (2, 2(1 + 39), 2(1 + 39 + 741)), not the formula the code uses
    assert [cover.separable_dichotomies(40, d) for d in (1, 2, 3)] == [2, 80, 1562]


def test_notes_simulation_reproduced():
    rows = cover.simulate()  # seed 77, 250 trials per n, the notes' draw order
    assert [r.n for r in rows] == [3, 4, 6, 8, 10]
    assert [round(r.fraction, 3) for r in rows] == [1.0, 0.88, 0.476, 0.184, 0.068]
    assert [round(r.std_error, 3) for r in rows] == [0.0, 0.021, 0.032, 0.025, 0.016]
    for r in rows:  # "agree with the formula to within about two standard errors"
        assert abs(r.fraction - r.formula) <= 2 * max(r.std_error, 1e-3)


@pytest.mark.parametrize("n, seed", [(5, 0), (6, 1), (7, 2)])
def test_brute_force_count_equals_cover(n, seed):
    # Random Gaussian points are in general position with probability 1: the LP must find exactly C(n, 3).
    X = np.random.default_rng(seed).normal(size=(n, 2))
    assert cover.count_separable_labelings(X) == cover.separable_dichotomies(n, 3)


def test_degenerate_points_count_fewer():
    # Collinear points are not in general position: only the 2n labelings that split the line are separable.
    X = np.column_stack([np.arange(5.0), 2 * np.arange(5.0)])
    assert cover.count_separable_labelings(X) == 2 * 5 < cover.separable_dichotomies(5, 3)


def test_bad_arguments():
    with pytest.raises(ParameterError, match="d_hat"):
        cover.separable_fraction(4, 0)
    with pytest.raises(ParameterError, match="n must"):
        cover.separable_dichotomies(-1, 3)
    with pytest.raises(ParameterError, match="trials"):
        cover.simulate(trials=0)
    with pytest.raises(ParameterError, match="n ≤ 16"):
        cover.count_separable_labelings(np.zeros((17, 2)))


@pytest.mark.parametrize("features,ns", [("linear", (4, 6, 8, 10)), ("quadratic", (8, 12, 16)),
                                         ("poly:degree=3", (14, 20, 26))])
def test_phi_map_simulation_within_three_standard_errors(features, ns):
    d_hat = cover.feature_dimension(features)
    assert d_hat == {"linear": 3, "quadratic": 6, "poly:degree=3": 10}[features]
    rows = cover.simulate_features(ns, features, trials=150, seed=5)
    assert [r.formula for r in rows] == [cover.separable_fraction(n, d_hat) for n in ns]
    for r in rows:
        assert abs(r.fraction - r.formula) <= 3 * r.formula_std_error, r


def _notes_draws(n_last: int, trials: int = 200, seed: int = 0):
    """The points and labels iter_simulate_features draws at n = n_last (after n = 1 … n_last − 1)."""
    rng = np.random.default_rng(seed)
    for n in range(1, n_last + 1):
        for _ in range(trials):
            X, lab = rng.normal(size=(n, 2)), rng.integers(0, 2, n)
            if n == n_last:
                yield X, lab


def test_the_separability_lp_decides_a_degree_12_labeling_that_highs_could_not():
    """`percviz cover -f poly:degree=12` stopped at n = 27 (trial 151) with 'HiGHS Status 0: Not Set'.

    27 points in general position have 91 monomials each: every labeling is separable (n ≤ d̂), Cover's count."""
    from percviz.core.cover import separable_rows
    from percviz.core.features import parse_features

    fmap = parse_features("poly:degree=12")
    X, lab = list(_notes_draws(27))[151]
    Phi = fmap.transform(X)
    assert separable_rows(np.where((lab == 0)[:, None], Phi, -Phi)) is True


@pytest.mark.slow
def test_cover_with_wide_maps_decides_the_labelings(monkeypatch):
    from percviz.core.cover import simulate_features

    # HiGHS's dual simplex stalls on 7 of the 20 degree-12 labelings at n = 182 until its time limit (10 s each),
    # then the interior point decides them in 0.05 s: a 1 s limit takes the same path to the same verdicts.
    monkeypatch.setattr(cover, "separable_rows", functools.partial(cover.separable_rows, time_limit=1.0))
    for spec, ns in (("poly:degree=12", (27, 91, 182)), ("rff:dim=50", (51, 102))):
        for row in simulate_features(ns, spec, trials=20, seed=0):
            assert row.trials + row.undecided == 20 and row.undecided <= 4  # undecided ones are counted, not guessed
            if row.n <= 91 and spec.startswith("poly"):
                assert row.fraction == 1.0  # n ≤ d̂ in general position: all separable
