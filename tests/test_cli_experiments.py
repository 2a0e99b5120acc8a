"""`percviz sweep` and `percviz cover`: JSON records, tables, one-line errors, and no Qt loaded."""

import json
import math
import subprocess
import sys

from percviz.cli import main


def test_sweep_json_has_runs_and_slopes(capsys):
    assert main(["sweep", "--algorithms", "snkp,nkp", "--family", "line", "--seed", "0", "--workers", "1",
                 "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert len(out["runs"]) == 12 and {r["algorithm"] for r in out["runs"]} == {"snkp", "nkp"}
    assert all(r["status"] == "separator" and r["rho"] > 0 and r["iterations"] <= r["bound"] for r in out["runs"])
    assert 0.75 <= out["slopes"]["snkp"] <= 1.35 and 1.6 <= out["slopes"]["nkp"] <= 2.8


def test_sweep_table_and_certificate_sweep(capsys):
    assert main(["sweep", "-a", "nvn,isnkpvn", "--family", "flip", "--eps", "0.1,0.02", "--workers", "1"]) == 0
    text = capsys.readouterr().out
    assert "certificate" in text and "slope of log iterations on log 1/ε, nvn" in text


def test_sweep_bad_input_is_one_line(capsys):
    assert main(["sweep", "-a", "snkp", "--levels", "0.5,x"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "--levels" in err
    assert main(["sweep", "-a", "snkp", "--levels", "2"]) == 2
    assert "(0, 1]" in capsys.readouterr().err


def test_cover_json(capsys):
    assert main(["cover", "--features", "quadratic", "--n", "6,12", "--trials", "60", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["d_hat"] == 6 and [r["n"] for r in out["rows"]] == [6, 12]
    assert out["rows"][0]["fraction"] == 1.0 and out["rows"][1]["formula"] == 0.5


CHECK = """
import sys
from percviz.cli import main
assert main(["sweep", "-a", "snkp", "--levels", "0.5,0.2", "--json"]) == 0
assert main(["cover", "--n", "3,6", "--trials", "20"]) == 0
bad = sorted(m for m in sys.modules if m.split('.')[0] in ('PySide6', 'shiboken6', 'pyqtgraph', 'superqt'))
assert not bad, bad
assert 'percviz.app' not in sys.modules
sys.stderr.write('clean')
"""


def test_sweep_and_cover_load_no_qt():
    out = subprocess.run([sys.executable, "-c", CHECK], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    assert out.stderr.endswith("clean")


def test_sweep_over_n_json_and_table(capsys):
    assert main(["sweep", "--over", "n", "--n", "10,100,400", "--margin", "0.1", "-a", "snkp,nkp",
                 "--workers", "1", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["over"] == "n" and out["family"] == "fixed" and out["margin"] == 0.1 and out["ns"] == [10, 100, 400]
    assert [r["n"] for r in out["runs"]] == [10, 10, 100, 100, 400, 400]
    for r in out["runs"]:
        assert r["status"] == "separator" and abs(r["rho"] - 0.1) < 1e-6 and r["seconds"] >= 0
        limit = 2 * (2 * math.log(r["n"])) ** 0.5 / 0.1 if r["algorithm"] == "snkp" else 1 / 0.1**2
        assert r["iterations"] <= limit
    assert set(out["slopes"]) == {"snkp", "nkp"}
    assert main(["sweep", "--over", "n", "--n", "10,50", "-a", "snkp", "--workers", "1"]) == 0
    text = capsys.readouterr().out.splitlines()
    assert text[0].startswith("family fixed at ρ_K = 0.05") and "√log n" in text[1]
    assert [line.split()[0] for line in text[2:4]] == ["10", "50"]
    assert text[-1].startswith("slope of log iterations on log √(log n), snkp: ")


def test_sweep_over_n_bad_input_is_one_line(capsys):
    for argv, says in ((["--n", "10"], "--over n"), (["--over", "n", "--n", "10,2.5"], "whole numbers"),
                       (["--over", "n", "--levels", "0.1"], "--margin"),
                       (["--over", "n", "--margin", "1.5"], "one margin"),
                       (["--over", "n", "--family", "line"], "does not change with n")):
        assert main(["sweep", "-a", "snkp", *argv]) == 2
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and says in err, err
