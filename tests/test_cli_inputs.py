"""Hostile DATA through the CLI: huge integers, pipes and devices, labels out of range: one line, no warning."""

import json
import os
import threading

import pytest

from percviz import cli

BASE = {"format": "percviz-preset", "version": 1, "points": [[0, 0], [1, 1]], "classes": [0, 1]}
HUGE = int("9" * 400)


def one_line_error(capsys, *argv) -> str:
    code = cli.main([str(a) for a in argv])
    out, err = capsys.readouterr()
    assert code == 1 and out == "", err  # the file cannot be used: status 1
    assert err.count("\n") == 1 and err.startswith("percviz solve: error: "), err  # no warning line before it
    assert "internal error" not in err and "Warning" not in err
    return err


@pytest.mark.parametrize("change, field", [
    ({"points": [[0, HUGE], [1, 1]]}, "points[0][1]"),
    ({"max_iter": HUGE}, "max_iter"),
    ({"algorithm": "lms", "params": {"eta": HUGE}}, "params.eta"),
    ({"view": {"levels": [HUGE]}}, "view.levels[0]"),
    ({"classes": [0, HUGE]}, "classes[1]"),
])  # fmt: skip
def test_400_digit_integers_name_their_field(capsys, tmp_path, change, field):
    path = tmp_path / "p.json"
    path.write_text(json.dumps({**BASE, **change}))
    err = one_line_error(capsys, "solve", path, "-a", "perceptron")
    assert f"(field '{field}')" in err and len(err) < 400  # the number is not repeated in full


def test_4301_digit_integer(capsys, tmp_path):
    path = tmp_path / "p.json"
    path.write_text(json.dumps(BASE).replace("[1, 1]", "[1, " + "9" * 4301 + "]"))
    assert "thousands of digits" in one_line_error(capsys, "solve", path, "-a", "perceptron")


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs FIFOs")
def test_a_fifo_is_refused_without_blocking(capsys, tmp_path):
    fifo = tmp_path / "points.csv"
    os.mkfifo(fifo)
    result = {}
    t = threading.Thread(target=lambda: result.setdefault("err", one_line_error(capsys, "solve", fifo, "-a", "nkp")))
    t.start()
    t.join(20)
    if t.is_alive():  # unblock the reader so the test process can end, then fail
        with open(fifo, "w") as fh:
            fh.write("\n")
        t.join()
        pytest.fail("reading DATA = a FIFO blocked")
    assert "not a regular file" in result["err"]


@pytest.mark.skipif(not os.path.exists("/dev/zero"), reason="needs /dev/zero")
def test_dev_zero_is_refused(capsys):
    assert "not a regular file" in one_line_error(capsys, "solve", "/dev/zero", "-a", "nkp")


@pytest.mark.parametrize("label", ["65", "64", "1e300"])
def test_csv_label_out_of_range_is_about_the_file_not_a_flag(capsys, tmp_path, label):
    path = tmp_path / "p.csv"
    path.write_text(f"x,y,label\n0,0,0\n1,1,1\n2,2,{label}\n")
    err = one_line_error(capsys, "solve", path, "-a", "linear-machine")
    assert "--classes" not in err and "p.csv" in err and "not a class" in err
