"""Property tests over issue 28's surfaces: random tables of any shape and dtype through `solve` and `margin`, random
small `sweep --over n` and `cover` arguments. Each run is a one-line refusal or a result that bench/audit_claims.py's
independent checks confirm (exact fractions, 60-digit decimals, its own LP)."""

import json

import numpy as np
import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from tests.core.test_registry_ddim import audit, run_cli

# derandomized: CI sees the same examples every run (an unseeded run once met the oracle's own false 'no' below)
SETTINGS = settings(max_examples=25, deadline=None, derandomize=True, database=None,
                    suppress_health_check=[HealthCheck.function_scoped_fixture])
#: affine-separable with a margin of ~1e-31 (+ at (3.7e-31, 0), − at the origin): the audit's LP once read t ≈ 1e-22
#: as 'not separable' and called percviz's right verdict a false claim; 'no' now needs an exact Gordan witness
THIN_AFFINE = np.array([[0, 1e-9, 1], [3.73398782e-31, 0, 1], [0, 1e-9, 1], [1e-9, 0, 1], [0, 1e-9, 1],
                        [0, 1e-9, 1], [0, 0, -1], [0, 1e-9, 1], [0, 1e-9, 1]])
ALGORITHMS = ("perceptron", "batch-relaxation", "ho-kashyap", "lp-feasibility", "snkp", "nvn", "svm", "smo",
              "kernel-perceptron", "isnkpvn")
FEATURES = ("linear", "linear1d", "quadratic", "poly:degree=3", "rff:dim=10")
KERNELS = ("linear", "affine", "poly:degree=2,c=1", "rbf:gamma=0.5", "laplacian:gamma=1")
DTYPES = ("float64", "float32", "int8", "int64", "uint8", "bool")


def _one_line_refusal(res: dict) -> None:
    text = res["out"] + res["err"]
    assert "Traceback" not in text and "internal error" not in text, text[-400:]
    lines = [ln for ln in res["err"].splitlines() if ln.strip()]
    assert res["rc"] in (1, 2) and len(lines) == 1, res["err"][-400:]


@st.composite
def tables(draw):
    n = draw(st.integers(1, 12))
    d = draw(st.sampled_from((1, 2, 3, 5, 20)))
    dtype = draw(st.sampled_from(DTYPES))
    scale = draw(st.sampled_from((1e-9, 1e-3, 1.0, 1e3)))
    X = np.asarray(draw(st.lists(st.floats(-3, 3, allow_nan=False), min_size=n * d, max_size=n * d))).reshape(n, d)
    if dtype == "bool":
        X = X > 0
    elif dtype.startswith(("int", "uint")):
        X = np.clip(np.round(X * 3), 0 if dtype == "uint8" else -100, 100)
    else:
        X = X * scale
    y = np.asarray(draw(st.lists(st.sampled_from((1, -1)), min_size=n, max_size=n)))
    return np.column_stack([X, y]).astype(dtype if dtype != "bool" else "int8"), n, d


@pytest.mark.slow
@SETTINGS
@given(table=tables(), alg=st.sampled_from(ALGORITHMS), fmap=st.sampled_from(FEATURES), kern=st.sampled_from(KERNELS),
       margin=st.booleans())
@example(table=(THIN_AFFINE, 9, 2), alg="perceptron", fmap="linear", kern="affine", margin=True)
@example(table=(THIN_AFFINE, 9, 2), alg="svm", fmap="linear", kern="affine", margin=False)
def test_a_random_table_is_refused_in_one_line_or_its_claims_hold(tmp_path, table, alg, fmap, kern, margin):
    T, n, d = table
    path = tmp_path / "t.npy"
    np.save(path, T)
    X, y = T[:, :-1].astype(float), T[:, -1].astype(float)
    if margin:
        res = run_cli(["margin", str(path), "--kernel", kern, "--json", "--budget", "3"])
        if res["rc"] != 0:
            return _one_line_refusal(res)
        outcome, detail = audit.check_margin({"spec": kern}, res, X, y)
    else:
        from percviz.core.solvers import get_solver

        flag, spec = ("--kernel", kern) if get_solver(alg).representation == "kernel" else ("--features", fmap)
        res = run_cli(["solve", str(path), "-a", alg, flag, spec, "--json", "--max-iter", "200"])
        if res["rc"] != 0:
            return _one_line_refusal(res)
        outcome, detail = audit.check_solve({"spec": spec}, res, X, y)
    assert not outcome.startswith("FINDING"), (outcome, detail)


@pytest.mark.slow
@SETTINGS
@given(t=st.one_of(st.sampled_from((1e-300, 1e-12, 0.05, 0.9)), st.floats(-1, 2)),
       ns=st.lists(st.integers(-2, 60), min_size=1, max_size=3))
def test_random_sweeps_over_n_record_the_fixed_margin(t, ns):
    res = run_cli(["sweep", "-a", "snkp", "--family", "fixed", "--over", "n", "--n", ",".join(map(str, ns)),
                   "--margin", repr(t), "--json", "--max-iter", "30", "--workers", "1"])
    if res["rc"] != 0:
        return _one_line_refusal(res)
    outcome, detail = audit.check_sweep({"level": t}, res)
    assert outcome == "sweep-ok", (outcome, detail)


@pytest.mark.slow
@SETTINGS
@given(fmap=st.sampled_from(("linear", "quadratic", "poly:degree=4", "rff:dim=8")),
       ns=st.lists(st.integers(1, 30), min_size=1, max_size=3), trials=st.integers(1, 12), seed=st.integers(0, 5))
def test_random_cover_runs_give_fractions_that_cover_confirms(fmap, ns, trials, seed):
    """(Valid ranges only: refusing a negative --seed or --trials is the cover CLI's argument handling, issue 28's
    other item.)"""
    res = run_cli(["cover", "--features", fmap, "--n", ",".join(map(str, ns)), "--trials", str(trials),
                   "--seed", str(seed), "--json"])
    if res["rc"] != 0:
        return _one_line_refusal(res)
    d = json.loads(res["out"])
    for row in d["rows"]:
        if row["fraction"] is None:  # every labeling undecided: said so, not guessed
            assert row["undecided"] > 0
            continue
        assert 0.0 <= row["fraction"] <= 1.0
        if row["n"] <= d["d_hat"] and row.get("undecided", 0) == 0:
            assert row["fraction"] == 1.0  # n ≤ d̂ points in general position: every labeling separable (Cover)


def test_the_oracle_says_not_separable_only_with_an_exact_witness():
    """The audit's truth: XOR, a point under both labels and alternating collinear points are 'no' (exact Gordan
    witnesses); a set separable by a margin of 1e-31 is never 'no'."""
    xor = np.array([[0, 0], [1, 1], [0, 1], [1, 0]], float), np.array([1, 1, -1, -1])
    assert audit.truly_separable(*xor, "kernel", "affine") == "no"
    assert audit.truly_separable(*xor, "kernel", "poly:degree=2,c=1") == "yes"
    assert audit.truly_separable(np.array([[0, 0], [0, 0], [1, 1.0]]), np.array([1, -1, 1]), "kernel", "affine") == "no"
    line = np.array([[i, 0] for i in range(10)], float), np.array([1, -1] * 5)
    assert audit.truly_separable(*line, "kernel", "affine") == "no"
    assert audit.truly_separable(THIN_AFFINE[:, :2], THIN_AFFINE[:, 2], "kernel", "affine") != "no"
