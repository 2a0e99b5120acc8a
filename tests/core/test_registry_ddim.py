"""Every algorithm × φ-map × kernel on tables in R^1, R^3, R^5 and wide ones (d ≫ n), through `percviz solve`.

Each run ends in a one-line refusal or in a result whose claim bench/audit_claims.py's independent checker confirms
(f rebuilt from the JSON in exact fractions or 60-digit decimals, separability by its own LP): issue 28.
"""

import contextlib
import importlib.util
import io
from pathlib import Path

import numpy as np
import pytest

from percviz import cli
from percviz.core.solvers import get_solver, load_all

_spec = importlib.util.spec_from_file_location("_audit_claims", Path(__file__).parents[2] / "bench" / "audit_claims.py")
audit = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(audit)

NAMES = sorted(load_all())
FEATURE_MAPS = ("linear", "linear1d", "quadratic", "poly:degree=3", "rff:dim=20")
KERNEL_SPECS = ("linear", "affine", "poly:degree=2,c=1", "rbf:gamma=0.5", "laplacian:gamma=0.5")
SHAPES = {"d1": (12, 1), "d3": (12, 3), "d5": (12, 5), "wide": (5, 20)}


def table(shape: str, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """Points of the shape, labelled by a random hyperplane (both labels present)."""
    n, d = SHAPES[shape]
    rng = np.random.default_rng(seed + 7 * d)
    X = rng.normal(size=(n, d))
    w = rng.normal(size=d + 1)
    y = np.where(w[0] + X @ w[1:] > 0, 1, -1)
    y[:2] = (1, -1)
    return X, y


def run_cli(argv: list[str]) -> dict:
    """`percviz ARGV` in this process, as audit_claims.run_child reports it (rc, out, err)."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            rc = cli.main(argv) or 0
        except SystemExit as e:
            rc = e.code if isinstance(e.code, int) else 1
    return {"rc": rc, "out": out.getvalue(), "err": err.getvalue(), "timeout": False, "signal": 0, "seconds": 0.0}


def _check(tmp_path, name: str, spec: str, shape: str, max_iter: int = 300):
    X, y = table(shape)
    path = tmp_path / f"{shape}.csv"
    audit.write_csv(str(path), X, y)
    rep = get_solver(name).representation
    flag = "--kernel" if rep == "kernel" else "--features"
    res = run_cli(["solve", str(path), "-a", name, flag, spec, "--json", "--max-iter", str(max_iter)])
    outcome, detail = audit.check_solve({"spec": spec}, res, X, y)
    assert not outcome.startswith("FINDING"), (outcome, detail)
    return outcome, detail


#: The cases over about a second (the 1,771-term cubic map on R²⁰: its input distances project through it).
SLOW_CASES = {("poly:degree=3", "wide"), ("poly:degree=12", "d5")}


def _param(name: str, spec: str, shape: str):
    marks = [pytest.mark.slow] if (spec, shape) in SLOW_CASES else []
    return pytest.param(name, spec, shape, marks=marks)


def _cases():
    for name in NAMES:
        rep = get_solver(name).representation
        specs = KERNEL_SPECS if rep == "kernel" else FEATURE_MAPS
        for spec in specs:
            for shape in SHAPES:
                yield _param(name, spec, shape)


@pytest.mark.parametrize("name,spec,shape", [_param(*case) for case in [
    ("perceptron", "quadratic", "d5"), ("perceptron", "poly:degree=12", "d5"), ("perceptron", "rff:dim=20", "d5"),
    ("batch-perceptron", "quadratic", "wide"), ("svm", "poly:degree=2,c=1", "d3"), ("snkp", "affine", "d1"),
]])
def test_the_reproducers_of_issue_28_give_a_checked_result(tmp_path, name, spec, shape):
    """perceptron -f quadratic / poly:degree=12 on 40 points in R⁵ crashed with a broadcast ValueError."""
    outcome, _ = _check(tmp_path, name, spec, shape)
    assert outcome != "refused" or spec == "poly:degree=12"


def test_linear1d_on_a_table_reads_the_first_coordinate(tmp_path):
    outcome, _ = _check(tmp_path, "perceptron", "linear1d", "d3")
    assert outcome in ("separator-exact", "status:max_iter", "refused", "proof-ok", "status:nonseparable")


@pytest.mark.parametrize("name,spec,shape", list(_cases()))
def test_every_algorithm_map_and_kernel_in_d_dims(tmp_path, name, spec, shape):
    _check(tmp_path, name, spec, shape)
