"""Issue 28's file reproducers: each gives one line naming the file and what to do, never an internal error."""

import json
import os

import numpy as np
import pytest

from percviz import cli
from percviz.core.history import MetricHistory


def run(capsys, *argv):
    code = cli.main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


def one_line(code, out, err, *words, status=1):
    assert code == status and out == "" and err.count("\n") == 1, err
    assert "internal error" not in err and "Traceback" not in err
    for w in words:
        assert w in err, err


@pytest.fixture
def not_zip(tmp_path):
    p = tmp_path / "points.npz"
    p.write_bytes(b"PK\x03\x04 this is no zip archive at all")
    return p


@pytest.mark.parametrize("argv", [
    ["solve", "{f}", "-a", "perceptron", "--json"],
    ["margin", "{f}", "--json"],
    ["margin", "{f}", "--input", "--json"],
    ["export", "{f}", "--out", "{d}/run.gif"],
    ["{f}", "--screenshot", "{d}/shot.png"],
])  # fmt: skip
def test_an_npz_that_is_not_a_zip_archive_is_named_with_the_fix(capsys, not_zip, argv):
    argv = [a.format(f=not_zip, d=not_zip.parent) for a in argv]
    one_line(*run(capsys, *argv), "points.npz", "not a NumPy .npz archive", "np.savez")


def test_a_pickled_or_garbage_npy_says_what_numpy_format_means(capsys, tmp_path):
    p = tmp_path / "points.npy"
    p.write_bytes(b"not an array")
    one_line(*run(capsys, "solve", p, "-a", "perceptron"), "points.npy", "np.save")


@pytest.mark.skipif(not hasattr(os, "symlink"), reason="needs symbolic links")
def test_a_symlink_loop_is_not_called_a_missing_file(capsys, tmp_path):
    a, b = tmp_path / "a.csv", tmp_path / "b.csv"
    os.symlink(b, a)
    os.symlink(a, b)
    code, out, err = run(capsys, "solve", a, "-a", "perceptron")
    one_line(code, out, err, "symbolic link", status=2)
    assert "no such file" not in err


@pytest.mark.parametrize("argv", [["solve", "", "-a", "perceptron"], ["margin", ""], [""]])
def test_empty_data_is_refused_by_every_command_alike(capsys, argv):
    code, out, err = run(capsys, *argv)
    one_line(code, out, err, "DATA is empty", status=2)
    assert "folder" not in err


@pytest.mark.skipif(not os.path.exists("/proc/self/mem"), reason="needs /proc")
def test_an_unreadable_regular_file_names_the_file(capsys):
    one_line(*run(capsys, "solve", "/proc/self/mem", "-a", "perceptron"), "/proc/self/mem", "cannot be read")


def test_a_two_column_xy_csv_is_not_read_as_points_with_five_classes(capsys, tmp_path):
    p = tmp_path / "xy.csv"
    p.write_text("x,y\n0,1\n1,2\n2,3\n3,4\n4,5\n")
    code, out, err = run(capsys, "solve", p, "-a", "perceptron")
    one_line(code, out, err, "'y' is a coordinate", "label column")
    assert "use 5 classes" not in err and "6 classes" not in err


def test_a_headerless_table_whose_last_column_is_a_coordinate_says_so(capsys, tmp_path):
    p = tmp_path / "pts.csv"
    p.write_text("".join(f"{i},{0.1 * i + 0.05}\n" for i in range(6)))
    one_line(*run(capsys, "solve", p, "-a", "perceptron"), "looks like a coordinate")


def test_a_label_column_named_on_the_command_line_is_taken_as_given(capsys, tmp_path):
    p = tmp_path / "xy.csv"
    p.write_text("x,y\n0,1\n1,-1\n2,1\n3,-1\n")
    code, out, err = run(capsys, "solve", p, "-a", "perceptron", "--label-column", "y", "--json")
    assert code == 0, err
    assert json.loads(out)["n"] == 4


# --- a long run's history stays bounded -------------------------------------------------------------

def test_history_thins_evenly_and_keeps_both_ends():
    h = MetricHistory(["m"], rows=100)
    for it in range(100_001):
        h.record(it, {"m": float(it)})
    cols = h.as_dict()
    its = cols["iteration"]
    assert len(its) <= 101 and its[0] == 0 and its[-1] == 100_000
    assert cols["m"] == [float(i) for i in its]  # each kept row is that iteration's own metrics
    gaps = np.diff(its[:-1])
    assert (gaps == h.every).all() and h.every >= 100_000 / 100


def test_history_backfills_a_metric_that_appears_late():
    h = MetricHistory(["a"], rows=8)
    h.record(0, {"a": 1.0})
    h.record(1, {"a": 2.0, "b": 5.0})
    assert h.as_dict() == {"iteration": [0, 1], "a": [1.0, 2.0], "b": [None, 5.0]}


def test_solve_with_a_huge_iteration_limit_keeps_a_bounded_history(capsys, tmp_path, monkeypatch):
    from percviz.core import history

    monkeypatch.setattr(history, "HISTORY_ROWS", 50)
    p = tmp_path / "xor.csv"
    p.write_text("x,y,label\n0,0,1\n1,1,1\n0,1,-1\n1,0,-1\n")  # never separable: runs to the limit
    code, out, err = run(capsys, "solve", p, "-a", "perceptron", "--max-iter", "5000", "--json")
    assert code == 0, err
    res = json.loads(out)
    hist = res["history"]
    assert res["status"] == "max_iter" and res["iterations"] == 5000
    assert len(hist["iteration"]) <= 51 and hist["iteration"][0] == 0 and hist["iteration"][-1] == 5000
    assert res["history_every"] == 128 and all(len(v) == len(hist["iteration"]) for v in hist.values())
