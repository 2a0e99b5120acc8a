"""Every registered algorithm through the CLI path (`percviz solve --json`, i.e. Solver.run_recording) on every
shipped scene and on small generated scenes: a JSON result that agrees with its own weights, or one clear
line on stderr; never an internal error, never a non-finite number."""

import json

import numpy as np
import pytest
from lp_oracle import lp_separable

from percviz import cli
from percviz.core.data import PointSet
from percviz.core.presets import shipped_presets, write_csv
from percviz.core.problem import Problem
from percviz.core.solvers import load_all

ALGOS = sorted(load_all())
SCENES = [s.name for s in shipped_presets()]


def run(capsys, *argv):
    code = cli.main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


def check_outcome(code, out, err, points: PointSet | None = None):
    """A result (exit 0, finite JSON, a status consistent with the returned decision) or exactly one error line."""
    assert "internal error" not in err and "Traceback" not in err, err
    if code != 0:
        assert code in (1, 2), err  # the data refused (1) or a parameter the command line set (2)
        assert out == "" and err.count("\n") == 1 and err.startswith("percviz solve: error: "), err
        return None
    assert err == ""
    res = json.loads(out, parse_constant=lambda c: pytest.fail(f"non-finite number {c} in the JSON"))
    assert res["status"] in {"separator", "certificate", "nonseparable", "converged", "max_iter", "diverged"}
    for k, v in res["metrics"].items():
        assert v is None or np.isfinite(v), k
    if points is not None and res["status"] == "separator" and res["weights"] is not None:
        # The separator claim, checked on the JSON's own numbers: every training point on its side.
        w = np.asarray(res["weights"], float)
        prob = Problem(points, res["kernel"], res["features"] or "linear")
        if w.ndim == 1:
            assert (prob.Y @ w > 0).all()
        else:
            scores = prob.Phi @ w.T
            assert (scores.argmax(axis=1) == points.classes).all()
    if points is not None and res["status"] == "nonseparable":
        prob = Problem(points, res["kernel"], res["features"] or "linear")
        assert not lp_separable(prob.Y), "a proof of non-separability on a separable set"
    return res


@pytest.mark.parametrize("scene", SCENES)
def test_every_algorithm_on_every_shipped_scene(capsys, scene):
    outcomes = {}
    for algo in ALGOS:
        code, out, err = run(capsys, "solve", scene, "--algorithm", algo, "--max-iter", 300, "--json")
        res = check_outcome(code, out, err)
        outcomes[algo] = res["status"] if res else "refused"
    # The scene's multi-class algorithms run on a three-class scene (the crash); two-class ones refuse.
    if scene == "three-class-linear-machine":
        for algo in ("linear-machine", "kesler", "mse-multiclass"):
            assert outcomes[algo] != "refused", algo
        assert outcomes["perceptron"] == "refused"


def test_the_three_class_scene_with_its_own_algorithm_separates(capsys):
    code, out, err = run(capsys, "solve", "three-class-linear-machine", "--json")
    res = check_outcome(code, out, err)
    assert res["algorithm"] == "linear-machine" and res["status"] == "separator" and res["train_errors"] == 0
    # The history was recorded at every update (the path that crashed), ending at the final iteration.
    assert res["history"]["iteration"] == list(range(res["iterations"] + 1))
    assert len(res["history"]["train_errors"]) == res["iterations"] + 1


def _generated(rng, kind: str) -> PointSet:
    if kind == "separable":
        X = rng.normal(size=(12, 2))
        y = np.where(X[:, 0] + 0.3 * X[:, 1] > 0, 0, 1)
        y[:2] = (0, 1)
    elif kind == "xor":
        X = np.array([[0, 0], [1, 1], [0, 1], [1, 0]], float)
        y = np.array([0, 0, 1, 1])
    elif kind == "duplicate-opposite":
        X = np.array([[0.5, 0.5], [0.5, 0.5], [2, 2]], float)
        y = np.array([0, 1, 0])
    elif kind == "collinear":
        t = np.linspace(-1, 1, 7)
        X = np.column_stack([t, 2 * t])
        y = (t > 0.1).astype(int)
    elif kind == "three-classes":
        X = rng.normal(size=(9, 2)) + np.repeat(np.array([[0, 0], [4, 0], [0, 4]]), 3, axis=0)
        y = np.repeat([0, 1, 2], 3)
    else:  # tiny scale
        X = rng.normal(size=(8, 2)) * 1e-9
        y = np.where(X[:, 0] > 0, 0, 1)
        y[:2] = (0, 1)
    return PointSet(X, y)


@pytest.mark.parametrize("kind", ["separable", "xor", "duplicate-opposite", "collinear", "three-classes", "tiny"])
def test_every_algorithm_on_small_generated_scenes(capsys, tmp_path, kind):
    pts = _generated(np.random.default_rng(7), kind)
    path = tmp_path / f"{kind}.csv"
    write_csv(pts, path)
    for algo in ALGOS:
        code, out, err = run(capsys, "solve", path, "--algorithm", algo, "--max-iter", 2000, "--json")
        check_outcome(code, out, err, pts)
