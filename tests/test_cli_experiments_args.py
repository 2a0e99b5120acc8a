"""Issue 28's reproducers for `percviz sweep` and `percviz cover`: one line and exit 2 for bad arguments,
exit 1 for what the memory, size or time budget refuses (before anything is drawn), partial rows at the budget."""

import json
import multiprocessing
import os
import resource
import time

import pytest

from percviz.cli import main


def _one_line(capsys, *words):
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "internal error" not in err and "Traceback" not in err, err
    for w in words:
        assert w in err, err
    return err


@pytest.mark.parametrize("argv,says", [
    (["sweep", "-a", "snkp", "--seed", "-1"], "seed"),
    (["sweep", "--over", "n", "--n", "nan"], "--n takes whole numbers from 2 to 1,000,000; got 'nan'"),
    (["sweep", "--over", "n", "--n", "inf"], "got 'inf'"),
    (["sweep", "--over", "n", "--n", "10,10"], "more than once"),
    (["sweep", "--over", "n", "--n", "10", "--margin", "nan"], "(0, 1)"),
    (["cover", "--n", "nan"], "--n takes whole numbers"),
    (["cover", "--n", "99999999999999999999"], "99999999999999999999"),
    (["cover", "--seed", "-1"], "seed"),
    (["cover", "--trials", "0"], "--trials"),
    (["cover", "--trials", "2.5"], "--trials"),
    (["cover", "--time-budget", "nan"], "time budget"),
    (["sweep", "--out", "a.jsonl", "--resume", "b.jsonl"], "one of them"),
    (["cover", "--backend", "processes", "--scheduler", "tcp://127.0.0.1:1"], "drop --backend processes"),
])
def test_bad_arguments_are_one_usage_line(capsys, argv, says):
    assert main(argv) == 2
    _one_line(capsys, says)


def _peak_mib() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


@pytest.mark.parametrize("argv,says", [
    (["cover", "--n", "1e9"], "memory"),  # was: internal MemoryError (14.9 GiB)
    (["cover", "--features", "rff:dim=5000"], "memory"),  # was: no answer within 60 s
    (["cover", "--trials", "1000000000"], "time budget"),  # was: no answer within 60 s
    (["cover", "--trials", "1000000000", "--time-budget", "1e12"], "more than one command may run"),
])
def test_budgets_refuse_before_drawing(capsys, argv, says):
    before, t0 = _peak_mib(), time.process_time()
    assert main(argv) == 1
    assert time.process_time() - t0 < 10 and _peak_mib() - before < 200  # CPU time: refused before any work
    err = _one_line(capsys, says)
    assert "Use " in err or "use " in err  # says what to do


def test_time_budget_refusal_says_how_many_trials_fit(capsys):
    assert main(["cover", "--trials", "1000000000"]) == 1
    err = capsys.readouterr().err
    # 12 values of n, at least 2 ms per LP: 1.2e10 LPs ≥ 2.4e7 s; 600 s allow 600/(12·2 ms + …) < 25,000
    assert "at least 278 days" in err and "the time budget is 10 min" in err and "24,999 --trials" in err


@pytest.mark.slow
def test_cover_stops_at_the_time_budget_with_partial_rows(capsys):
    assert main(["cover", "--features", "quadratic", "--n", "2000,3000", "--trials", "400", "--time-budget", "2",
                 "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["complete"] is False and out["trials"] == 400
    assert sum(r["trials"] for r in out["rows"]) < 2 * 400
    assert all(r["partial"] == (r["trials"] < 400) for r in out["rows"])


@pytest.mark.slow
def test_sweep_stops_at_the_time_budget_and_ends_its_processes(capsys):
    assert main(["sweep", "--over", "n", "--n", "10,20,30,40,50,60,70,80,90,100,200,300,400,500,1000000",
                 "-a", "snkp,nkp,perceptron", "--workers", "2", "--time-budget", "1", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["complete"] is False and 14 in out["missing_scenes"]  # n = 10⁶ did not finish in 1 s
    assert {r["scene"] for r in out["runs"]}.isdisjoint(out["missing_scenes"])
    for child in multiprocessing.active_children():  # the process of the n = 10⁶ run (~280 s) was ended
        assert _ended(child), child


def _ended(child) -> bool:
    """The child process exits within 20 s. The pool's manager thread may reap it while this join waits: the join
    then returns at once and is_alive() still says True (waitpid: ECHILD), though no such process exists."""
    child.join(timeout=20)
    try:
        os.kill(child.pid, 0)
    except ProcessLookupError:
        return True
    return not child.is_alive()
