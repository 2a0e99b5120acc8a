"""The memory budget: estimated before allocating, refused with one line saying what to do."""

import tracemalloc

import numpy as np
import pytest

from percviz import cli
from percviz.core import budget
from percviz.core.data import PointSet
from percviz.core.presets import write_csv
from percviz.core.problem import Problem
from percviz.core.solvers import get_solver


@pytest.mark.parametrize("text, expect", [
    ("", 4 * 2**30), ("16G", 16 * 2**30), ("512M", 512 * 2**20), ("1.5GiB", int(1.5 * 2**30)), ("2048", 2048),
    ("lots", 4 * 2**30),
])  # fmt: skip
def test_budget_from_the_environment(monkeypatch, text, expect):
    monkeypatch.setenv(budget.ENV, text)
    assert budget.budget_bytes() == expect


def points(n, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 2))
    return PointSet.from_signed(X, np.where(X[:, 0] > 0, 1, -1))


def test_100000_point_snkp_is_refused_before_allocating():
    # Before: an internal MemoryError after asking for 74.5 GiB (one n×n matrix of 8·10¹⁰ bytes). The RBF
    # kernel has no finite feature map, so G must be dense (the affine kernel's n×3 factor is allowed).
    problem = Problem(points(100_000), "rbf:gamma=0.5")
    tracemalloc.start()
    # G in float32 at this size (core.dense_gram): 4·10¹⁰ bytes, and 4 GiB hold at most 32,7xx points of it
    with pytest.raises(budget.BudgetError, match=r"100,000×100,000 G of the rbf.* in float32\) would need about 37\.3 GiB"
                       r".*budget is 4 GiB.*at most 32,[0-9]{3} points"):
        get_solver("snkp")(problem)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert peak < 50 * 2**20  # nothing n×n was allocated (8 n² bytes would be 80 GB)


def test_weight_vector_algorithms_on_many_points_are_allowed():
    for name in ("perceptron", "lp-perceptron", "fixed-increment", "mse"):
        get_solver(name)(Problem(points(100_000)))  # O(n·d̂) memory: within the budget


def test_the_cli_refuses_with_one_line_and_the_env_raises_the_budget(capsys, tmp_path, monkeypatch):
    path = write_csv(points(400), tmp_path / "p.csv")
    monkeypatch.setenv(budget.ENV, "1M")  # 400 points: 3.5 · 8 · 400² = 4.5 MB > 1 MiB
    # (the interior point builds n×n matrices; svm's default SMO keeps kernel columns within its cache_mb)
    for argv in (["solve", path, "-a", "nvn"], ["solve", path, "-a", "svm", "-p", "method=interior-point"],
                 ["margin", path]):
        assert cli.main([str(a) for a in argv]) == 1  # a budget's refusal: status 1
        out, err = capsys.readouterr()
        assert out == "" and err.count("\n") == 1 and "budget is 1 MiB" in err and budget.ENV in err
    monkeypatch.setenv(budget.ENV, "64M")
    assert cli.main(["solve", str(path), "-a", "nvn", "--max-iter", "5"]) == 0
    capsys.readouterr()


@pytest.mark.parametrize("n, itemsize", [(1500, 8), (4500, 4)])
def test_estimates_bound_the_measured_peak(n, itemsize):
    # The estimate (G built in place, plus its block scratch) covers what a kernel run really allocates
    # (traced by numpy), and that is G plus little: G in float64 to 4096 points, in float32 above.
    from percviz.core.gram_operator import gram_bytes

    get_solver("snkp")(Problem(points(1100), kernel="rbf:gamma=0.5"), max_iter=5, bound=False).run()  # imports
    problem = Problem(points(n), kernel="rbf:gamma=0.5")
    tracemalloc.start()
    get_solver("snkp")(problem, max_iter=5, bound=False).run()
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert problem.G.dtype.itemsize == itemsize
    assert itemsize * n * n < peak < gram_bytes(problem) < itemsize * n * n + 10 * 2**20  # + 2 blocks of 4 MiB
