"""The percviz command line: solve/margin JSON, one-line errors with exit codes, dispatch to the app."""

import json
import math
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from percviz import cli
from percviz.core import datasets as D
from percviz.core.data import PointSet
from percviz.core.presets import Preset, load_preset, save_preset, write_csv
from percviz.core.problem import Problem
from percviz.core.solvers import get_solver, load_all

load_all()


@pytest.fixture
def csv4(tmp_path):
    p = tmp_path / "four.csv"
    p.write_text("x,y,label\n0,0,1\n1,1,1\n3,3,-1\n4,3,-1\n")
    return p


def run(capsys, *argv):
    """main() in-process: (exit code, stdout, stderr)."""
    code = cli.main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


def solve_json(capsys, *argv):
    code, out, err = run(capsys, "solve", *argv, "--json")
    assert code == 0, err
    assert err == ""
    return json.loads(out)


REQUIRED = {"algorithm", "kernel", "features", "n", "status", "iterations", "train_errors", "margin",
            "certificate_g_norm", "alpha", "weights", "p", "history"}


def test_solve_json_matches_a_direct_run(capsys, csv4):
    res = solve_json(capsys, csv4, "--algorithm", "perceptron")
    assert REQUIRED <= set(res)
    snap = get_solver("perceptron")(Problem(PointSet([[0, 0], [1, 1], [3, 3], [4, 3]], [0, 0, 1, 1]))).run()
    assert (res["status"], res["iterations"]) == ("separator", snap.iteration)
    assert res["weights"] == snap.weights.tolist()
    assert res["n"] == 4 and res["train_errors"] == 0 and res["alpha"] is None and res["p"] is None
    assert res["features"] == "linear" and res["kernel"] == "affine"
    # margin: independently min_i y_i a·φ(x_i) / ‖a‖ on the augmented rows
    X = np.array([[0, 0], [1, 1], [3, 3], [4, 3]], float)
    y = np.array([1, 1, -1, -1])
    a = np.array(res["weights"])
    expect = np.min(y * (np.column_stack([np.ones(4), X]) @ a)) / np.linalg.norm(a)
    assert res["margin"] == pytest.approx(expect, rel=1e-12) and res["margin"] > 0
    hist = res["history"]
    assert hist["iteration"] == list(range(res["iterations"] + 1))
    assert all(len(v) == len(hist["iteration"]) for v in hist.values())
    assert hist["train_errors"][-1] == 0 and hist["train_errors"][1] > 0


def test_solve_reproduces_the_notes_on_a_shipped_scene(capsys):
    res = solve_json(capsys, "notes-80-separable")  # the preset's algorithm: fixed-increment
    assert (res["algorithm"], res["status"], res["iterations"]) == ("fixed-increment", "separator", 28)
    assert res["n"] == 80 and res["margin"] > 0


def test_iteration_limit_gives_max_iter_and_no_margin(capsys):
    res = solve_json(capsys, "notes-80-separable", "--max-iter", "5")
    assert (res["status"], res["iterations"], res["margin"]) == ("max_iter", 5, None)
    assert res["train_errors"] > 0 and len(res["history"]["iteration"]) == 6


def test_flags_override_the_preset(capsys, tmp_path):
    path = save_preset(Preset(D.separable(), algorithm="fixed-increment", max_iter=3), tmp_path / "p.json")
    assert solve_json(capsys, path)["status"] == "max_iter"
    res = solve_json(capsys, path, "--max-iter", "1000", "--algorithm", "variable-increment", "--param", "b=1")
    assert (res["algorithm"], res["status"], res["iterations"]) == ("variable-increment", "separator", 46)  # notes
    assert res["params"]["b"] == 1.0


def test_non_separable_run_has_no_margin(capsys, tmp_path):
    path = write_csv(D.overlapping_gaussians(), tmp_path / "g.csv")
    res = solve_json(capsys, path, "-a", "fixed-increment", "--max-iter", "300")
    assert res["status"] == "max_iter" and res["margin"] is None and res["train_errors"] > 0


def test_certificate_on_xor(capsys, tmp_path):
    path = write_csv(D.xor(), tmp_path / "xor.csv")
    res = solve_json(capsys, path, "-a", "isnkpvn")
    assert res["status"] == "certificate" and res["margin"] is None
    p = np.array(res["p"])
    assert p.min() >= 0 and p.sum() == pytest.approx(1.0)
    G = Problem(D.xor()).G
    assert res["certificate_g_norm"] == pytest.approx(math.sqrt(max(p @ G @ p, 0.0)), rel=1e-6, abs=1e-7)
    assert res["certificate_g_norm"] <= res["params"]["eps"]


def test_summary_text(capsys, csv4):
    code, out, err = run(capsys, "solve", csv4, "-a", "perceptron")
    assert code == 0 and err == ""
    # a φ-space perceptron reports the geometric margin of its weights, and says so (not "normalized")
    assert "separator found" in out and "training errors: 0" in out and "geometric margin γ(a) of" in out


def test_margin_of_the_papers_example(capsys):
    code, out, err = run(capsys, "margin", "normalization-example", "--json")
    assert code == 0, err
    res = json.loads(out)
    # §2 of the paper: normalized, every + is (0.6, 0.8) and every − (0.8, 0.6): ρ = √0.02.
    assert res["separable"] is True and res["rho"] == pytest.approx(math.sqrt(0.02), rel=1e-6)
    assert res["kernel"] == "linear" and len(res["p"]) == res["n"]
    assert res["exact"] is True and res["rho_interval"][0] == res["rho"] <= res["rho_interval"][1]


def test_margin_reports_an_unresolved_interval(capsys, tmp_path):
    """Random labels under RBF γ = 0.5, n = 200: ρ_K ≈ 1.62e-5, certified only to ~4e-4 (see test_gram)."""
    rng = np.random.default_rng(0)
    pts = PointSet.from_signed(rng.normal(0, 2, (200, 2)), rng.choice([-1, 1], 200))
    path = write_csv(pts, tmp_path / "random.csv")
    res = json.loads(run(capsys, "margin", path, "--kernel", "rbf:gamma=0.5", "--json")[1])
    lo, hi = res["rho_interval"]
    assert res["separable"] and res["exact"] is False and 0 < lo == res["rho"] < hi
    code, out, _ = run(capsys, "margin", path, "--kernel", "rbf:gamma=0.5")
    assert code == 0 and "not resolved to 1e-6" in out


def test_margin_non_separable(capsys, tmp_path):
    path = write_csv(D.xor(), tmp_path / "xor.csv")
    code, out, err = run(capsys, "margin", path, "--json")
    assert code == 0, err
    assert json.loads(out)["separable"] is False


def test_list_json(capsys):
    code, out, _ = run(capsys, "list", "--json")
    res = json.loads(out)
    assert code == 0 and {"rbf", "affine", "linear"} <= set(res["kernels"])
    assert "default" in res["presets"] and "perceptron" in {a["name"] for a in res["algorithms"]}


# --- bad input: exit 2, one line on stderr, nothing on stdout ----------------------------------------

def _write_bad_files(tmp_path):
    (tmp_path / "ragged.csv").write_text("x,y,label\n0,0,1\n1,1\n")
    (tmp_path / "nan.csv").write_text("0,0,1\n1,nan,-1\n")
    (tmp_path / "text.csv").write_text("0,0,1\n1,abc,-1\n")
    (tmp_path / "one.csv").write_text("0,0,1\n1,1,1\n")
    (tmp_path / "origin.csv").write_text("0,0,1\n1,1,1\n3,3,-1\n")
    (tmp_path / "ok.csv").write_text("0,0,1\n1,1,1\n3,3,-1\n")
    (tmp_path / "broken.json").write_text('{"format": "percviz-preset", "version": 1, "points": [[0, 0]], ')
    (tmp_path / "newer.json").write_text(json.dumps({"format": "percviz-preset", "version": 9}))


def _bad_inputs(tmp_path):
    t = str(tmp_path)
    return {
        "missing file": (["solve", f"{t}/nope.csv", "-a", "perceptron"], "no such file"),
        "folder": (["solve", t, "-a", "perceptron"], "is a folder"),
        "ragged CSV": (["solve", f"{t}/ragged.csv", "-a", "perceptron"], "line 3"),
        "NaN": (["solve", f"{t}/nan.csv", "-a", "perceptron"], "finite"),
        "text in CSV": (["solve", f"{t}/text.csv", "-a", "perceptron"], "not a number"),
        "truncated preset": (["solve", f"{t}/broken.json"], "truncated"),
        "newer preset": (["solve", f"{t}/newer.json"], "newer percviz"),
        "CSV without algorithm": (["solve", f"{t}/ok.csv"], "--algorithm"),
        "unknown algorithm": (["solve", f"{t}/ok.csv", "-a", "quantum"], "Unknown algorithm 'quantum'"),
        "unknown kernel": (["solve", f"{t}/ok.csv", "-a", "perceptron", "-k", "sigmoid"], "Unknown kernel"),
        "bad kernel parameter": (["solve", f"{t}/ok.csv", "-a", "perceptron", "-k", "rbf:gamma=0"], "gamma"),
        "unknown feature map": (["solve", f"{t}/ok.csv", "-a", "perceptron", "-f", "cubic"], "Unknown feature"),
        "unknown parameter": (["solve", f"{t}/ok.csv", "-a", "perceptron", "--param", "eta=2"], "--param eta"),
        "parameter out of range": (["solve", f"{t}/ok.csv", "-a", "variable-increment", "-p", "eta=-1"], "eta"),
        "parameter not K=V": (["solve", f"{t}/ok.csv", "-a", "perceptron", "-p", "eta"], "KEY=VALUE"),
        "negative max-iter": (["solve", f"{t}/ok.csv", "-a", "perceptron", "--max-iter", "-1"], "max_iter"),
        "max-iter not a number": (["solve", f"{t}/ok.csv", "-a", "perceptron", "--max-iter", "x"], "invalid int"),
        "one class only": (["solve", f"{t}/one.csv", "-a", "perceptron"], "no − point"),
        "K(x,x)=0": (["solve", f"{t}/origin.csv", "-a", "nkp", "-k", "linear"], "K(x, x) = 0"),
        "unknown flag": (["solve", f"{t}/ok.csv", "-a", "perceptron", "--frobnicate"], "unrecognized"),
        "margin of one class": (["margin", f"{t}/one.csv"], "no − point"),
        "margin of three classes": (["margin", "three-class-linear-machine"], "two classes"),
        "window, bad file": ([f"{t}/nan.csv"], "finite"),
        "window, panel without screenshot": (["--panel", "canvas"], "--screenshot"),
        "window, screenshot not png": (["--screenshot", f"{t}/x.jpg"], ".png"),
        "export, bad suffix": (["export", f"{t}/ok.csv", "--out", f"{t}/run.avi"], ".gif or .mp4"),
        "export, bad fps": (["export", f"{t}/ok.csv", "--out", f"{t}/run.gif", "--fps", "0"], "--fps"),
    }


BAD = sorted(_bad_inputs(Path("/nonexistent")))
#: Cases whose file or points cannot be used: exit status 1 (the others are the command line's: 2).
DATA_CASES = {"ragged CSV", "NaN", "text in CSV", "truncated preset", "newer preset", "one class only", "K(x,x)=0",
              "margin of one class", "margin of three classes", "window, bad file"}


@pytest.mark.parametrize("case", BAD)
def test_bad_input_is_one_line_with_its_exit_status(capsys, tmp_path, case):
    _write_bad_files(tmp_path)
    argv, words = _bad_inputs(tmp_path)[case]
    code, out, err = run(capsys, *argv)
    assert code == (1 if case in DATA_CASES else 2), err
    assert out == ""
    assert err.count("\n") == 1 and err.endswith("\n") and "Traceback" not in err
    assert words in err, err
    assert err.startswith("percviz")


def test_unexpected_error_is_one_line_exit_70(capsys, csv4, monkeypatch):
    def boom(preset):
        raise ZeroDivisionError("bug")

    monkeypatch.setattr(cli, "solve", boom)
    monkeypatch.delenv("PERCVIZ_DEBUG", raising=False)
    code, out, err = run(capsys, "solve", csv4, "-a", "perceptron")
    assert code == 70 and err.count("\n") == 1 and "internal error: ZeroDivisionError: bug" in err
    monkeypatch.setenv("PERCVIZ_DEBUG", "1")
    with pytest.raises(ZeroDivisionError):
        cli.main(["solve", str(csv4), "-a", "perceptron"])


# --- dispatch to the app (faked: these tests never start Qt) -------------------------------------------

def test_window_gets_the_parsed_namespace_with_the_resolved_preset(capsys, monkeypatch, tmp_path):
    seen = {}

    def fake_launch(args):
        seen["args"] = args
        return 0

    monkeypatch.setattr(cli, "_import_app", lambda module, func, what: fake_launch)
    out = tmp_path / "shot.png"
    code, _, err = run(capsys, "notes-80-separable", "-a", "variable-increment", "-p", "b=1", "--steps", "7",
                       "--screenshot", out, "--panel", "weight", "--max-iter", "50", "-k", "rbf:gamma=2")
    assert code == 0, err
    a = seen["args"]
    assert (a.algorithm, a.params, a.steps, a.screenshot, a.panel, a.max_iter) == (
        "variable-increment", ["b=1"], 7, str(out), "weight", 50)
    assert a.data == "notes-80-separable" and a.kernel == "rbf:gamma=2" and a.features is None
    assert a.preset.algorithm == "variable-increment" and a.preset.params == {"b": 1.0}
    assert a.preset.max_iter == 50 and a.preset.points.n == 80 and a.preset.kernel == "rbf:gamma=2"


def test_window_without_data_leaves_preset_empty(capsys, monkeypatch):
    seen = {}

    def fake_launch(args):
        seen["args"] = args
        return 0

    monkeypatch.setattr(cli, "_import_app", lambda *a: fake_launch)
    assert run(capsys)[0] == 0
    assert seen["args"].preset is None and seen["args"].data is None


def test_window_without_a_display_is_one_line_exit_3(capsys, monkeypatch):
    for var in ("QT_QPA_PLATFORM", "DISPLAY", "WAYLAND_DISPLAY"):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setattr(cli.sys, "platform", "linux")
    monkeypatch.setattr(cli, "_import_app", lambda *a: pytest.fail("must not start Qt"))
    code, out, err = run(capsys, "default")
    assert code == 3 and err.count("\n") == 1 and "no display" in err


def test_export_gets_the_preset_and_options(capsys, monkeypatch, tmp_path):
    seen = {}
    monkeypatch.setattr(cli, "_import_app", lambda module, func, what: seen.update(where=(module, func)) or (
        lambda args: seen.update(args=args) or 0))
    code, _, err = run(capsys, "export", "notes-80-separable", "--out", tmp_path / "run.gif", "--steps", "12",
                       "--fps", "5")
    assert code == 0, err
    assert seen["where"] == ("classroom.export", "run_export")
    a = seen["args"]
    assert (a.steps, a.fps, a.out) == (12, 5.0, str(tmp_path / "run.gif")) and a.preset.points.n > 0


def test_missing_app_part_is_exit_3(capsys, monkeypatch, csv4):
    import importlib

    real = importlib.import_module

    def fake(name, *args):
        if name.startswith("percviz.app."):
            err = ModuleNotFoundError(f"No module named '{name}'")
            err.name = name
            raise err
        return real(name, *args)

    monkeypatch.setattr(importlib, "import_module", fake)
    code, out, err = run(capsys, "export", csv4, "--out", Path(csv4).with_suffix(".gif"))
    assert code == 3 and err.count("\n") == 1 and "not available" in err


# --- as a real process -------------------------------------------------------------------------------

def _proc(*argv):
    return subprocess.run([sys.executable, "-m", "percviz.cli", *map(str, argv)], capture_output=True, text=True)


def test_process_solve_json_and_errors(csv4):
    ok = _proc("solve", csv4, "-a", "perceptron", "--json")
    assert ok.returncode == 0 and json.loads(ok.stdout)["status"] == "separator"
    bad = _proc("solve", csv4, "-a", "perceptron", "--param", "eta=1")
    assert bad.returncode == 2 and bad.stdout == ""
    assert bad.stderr.count("\n") == 1 and "Traceback" not in bad.stderr


def test_console_script_is_installed():
    script = Path(sys.executable).with_name("percviz")
    assert script.exists()
    out = subprocess.run([str(script), "--version"], capture_output=True, text=True)
    assert out.returncode == 0 and out.stdout.startswith("percviz ")


def test_loading_a_scene_round_trips_through_the_cli(capsys, tmp_path):
    p = load_preset(Path(cli.__file__).parent / "presets" / "notes-ring-quadratic.json")
    res = solve_json(capsys, save_preset(p, tmp_path / "ring.json"))
    assert (res["features"], res["iterations"], res["status"]) == ("quadratic", 12, "separator")  # the notes


@pytest.mark.parametrize("algorithm", ["fixed-increment", "snkp", "isnkpvn", "ho-kashyap"])
def test_history_without_snapshots_equals_the_snapshot_history(algorithm):
    """`solve` steps without building a snapshot per update (run_recording); its history is the snapshots'."""
    pts = D.overlapping_gaussians(seed=3) if algorithm != "snkp" else PointSet(
        [[0, 0], [1, 0.2], [3, 3], [4, 3.5], [0.5, 1]], [0, 0, 1, 1, 0])
    preset = Preset(points=pts, algorithm=algorithm, max_iter=300)
    res = cli.solve(preset)
    snaps = list(preset.make_solver().snapshots())
    assert res["history"]["iteration"] == [s.iteration for s in snaps]
    for k, values in res["history"].items():
        if k != "iteration":
            assert values == [s.metrics.get(k) for s in snaps], k
    assert res["status"] == snaps[-1].status.value


@pytest.mark.parametrize("algorithm, kind, word", [("fixed-increment", "geometric", "geometric margin γ(a)"),
                                                    ("svm", "svm", "SVM margin γ(w)"),
                                                    ("snkp", "normalized", "normalized margin m(α)")])
def test_solve_says_which_margin_it_reports(capsys, algorithm, kind, word):
    d = solve_json(capsys, "notes-80-separable", "--algorithm", algorithm)
    assert d["margin_kind"] == kind and d["margin_name"] == word
    # the value is that margin: γ(a) = min a·y_i/‖a‖ recomputed from the returned weights for the weight algorithm
    if kind == "geometric":
        from percviz.core.presets import SHIPPED_DIR

        problem = load_preset(SHIPPED_DIR / "notes-80-separable.json").problem()
        a = np.asarray(d["weights"])
        assert d["margin"] == pytest.approx(float((problem.Y @ a).min() / np.linalg.norm(a)), rel=1e-9)
    code, out, _ = run(capsys, "solve", "notes-80-separable", "--algorithm", algorithm)
    assert f"{word} of the separator:" in out
