"""Property tests over the arguments of `percviz sweep --over n` and `percviz cover` (issue 28): any value gives
either one line with exit status 1 or 2, or a result whose claims an independent check confirms."""

import json
from fractions import Fraction
from math import comb

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from percviz.cli import main

HOSTILE = st.sampled_from(["nan", "inf", "-inf", "-1", "0", "1e9", "1e400", "99999999999999999999", "2.5",
                           "x", "", " ", "1,", ",", "3,3", "0x10", "1_000", "-0", "+5", "1e-3"])
SMALL = st.integers(min_value=-3, max_value=40).map(str)
NUMBER = st.one_of(HOSTILE, SMALL)


def _outcome(capsys, argv):
    code = main(argv)
    out, err = capsys.readouterr()
    assert code in (0, 1, 2), (argv, code, err)
    if code:
        assert err.count("\n") == 1 and "internal error" not in err and "Traceback" not in err, (argv, err)
        return None
    return json.loads(out)


def _d_hat_formula(n: int, d_hat: int) -> float:
    """Cover's C(n, d̂)/2ⁿ in exact fractions (independent of core.cover)."""
    return float(Fraction(2 * sum(comb(n - 1, i) for i in range(d_hat)), 2**n))


@pytest.mark.slow
@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(ns=st.lists(NUMBER, min_size=1, max_size=3), trials=NUMBER, seed=NUMBER,
       features=st.sampled_from(["linear", "quadratic"]))
def test_cover_arguments(capsys, ns, trials, seed, features):
    argv = ["cover", "--features", features, "--n", ",".join(ns), "--trials", trials, "--seed", seed,
            "--time-budget", "5", "--json"]
    out = _outcome(capsys, argv)
    if out is None:
        return
    d_hat = {"linear": 3, "quadratic": 6}[features]
    assert out["d_hat"] == d_hat
    for row in out["rows"]:
        assert row["formula"] == _d_hat_formula(row["n"], d_hat)
        assert 0 <= row["fraction"] <= 1 and 1 <= row["trials"] <= out["trials"]
        if row["n"] <= d_hat:  # points in general position: every labeling is separable
            assert row["fraction"] == 1.0, row
    if out["complete"]:
        assert [r["n"] for r in out["rows"]] == [int(float(v)) for v in ",".join(ns).split(",") if v.strip()]


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(ns=st.lists(NUMBER, min_size=1, max_size=3), seed=NUMBER,
       margin=st.one_of(HOSTILE, st.floats(0.02, 0.9).map(repr)))
def test_sweep_over_n_arguments(capsys, ns, seed, margin):
    argv = ["sweep", "--over", "n", "--n", ",".join(ns), "--seed", seed, "--margin", margin, "-a", "perceptron",
            "--workers", "1", "--max-iter", "5000", "--json"]
    out = _outcome(capsys, argv)
    if out is None:
        return
    rho = float(margin)
    for r in out["runs"]:
        # the fixed family's margin is the level at every n (a proof in families.fixed_margin)
        assert abs(r["rho"] - rho) <= 1e-6 * rho, r
        if r["status"] == "separator":
            assert r["iterations"] <= r["bound"]  # Novikoff
