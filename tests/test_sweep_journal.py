"""`percviz sweep --out FILE` / `--resume FILE`: a sweep killed with SIGKILL mid-run and resumed gives, run for
run, the records of a sweep never interrupted; a journal of other arguments is refused in one line."""

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from percviz.cli import main

SWEEP = ["sweep", "--over", "n", "--n", "10,30,100,300,1000,3000,10000,30000", "-a", "snkp,nkp,perceptron",
         "--workers", "1", "--json"]


def _runs(out: str) -> list[dict]:
    """The records without their timings (the one field that differs between two runs of the same sweep)."""
    return [{k: v for k, v in r.items() if k != "seconds"} for r in json.loads(out)["runs"]]


def _lines(path: Path) -> int:
    return path.read_text().count("\n") if path.exists() else 0


@pytest.mark.slow
def test_kill_9_mid_sweep_then_resume_equals_an_uninterrupted_sweep(tmp_path):
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[1])}
    journal = tmp_path / "sweep.jsonl"
    cmd = [sys.executable, "-m", "percviz", *SWEEP]
    proc = subprocess.Popen([*cmd, "--out", str(journal)], env=env, stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE)
    deadline = time.monotonic() + 120
    while _lines(journal) < 1 + 3 * 2 and proc.poll() is None and time.monotonic() < deadline:
        time.sleep(0.02)  # the header and two finished scenes (three runs each)
    assert proc.poll() is None, "the sweep ended before it could be killed: make it longer"
    proc.send_signal(signal.SIGKILL)
    assert proc.wait(timeout=60) == -signal.SIGKILL
    kept = _lines(journal) - 1
    assert 6 <= kept < 8 * 3, kept  # some scenes done, some not
    resumed = subprocess.run([*cmd, "--resume", str(journal)], env=env, capture_output=True, text=True)
    assert resumed.returncode == 0, resumed.stderr
    whole = subprocess.run(cmd, env=env, capture_output=True, text=True)
    assert whole.returncode == 0, whole.stderr
    assert _runs(resumed.stdout) == _runs(whole.stdout)
    assert len(_runs(whole.stdout)) == 8 * 3 and json.loads(resumed.stdout)["complete"] is True
    assert _lines(journal) == 1 + 8 * 3  # the journal now holds every run once


def test_resume_skips_the_runs_in_the_journal_and_drops_a_torn_line(tmp_path, capsys):
    journal = tmp_path / "j.jsonl"
    argv = ["sweep", "-a", "snkp,nkp", "--levels", "0.5,0.2,0.1", "--workers", "1", "--json"]
    assert main([*argv, "--out", str(journal)]) == 0
    whole = _runs(capsys.readouterr().out)
    lines = journal.read_text().splitlines(keepends=True)
    assert len(lines) == 1 + 6 and json.loads(lines[0])["sweep"]["levels"] == [0.5, 0.2, 0.1]
    # keep scene 0 (two runs), half of scene 1, and a torn line: scene 1 and 2 must run again
    by_scene = [ln for ln in lines[1:] if json.loads(ln)["scene"] == 0]
    other = [ln for ln in lines[1:] if json.loads(ln)["scene"] == 1][:1]
    marked = [{**json.loads(ln), "iterations": -7} for ln in by_scene]  # shows which runs were not rerun
    journal.write_text(lines[0] + "".join(json.dumps(m) + "\n" for m in marked) + other[0] + '{"scene": 2, "le')
    assert main([*argv, "--resume", str(journal)]) == 0
    got = _runs(capsys.readouterr().out)
    assert [r["iterations"] for r in got if r["scene"] == 0] == [-7, -7]
    assert [r for r in got if r["scene"] != 0] == [r for r in whole if r["scene"] != 0]
    assert _lines(journal) == 1 + 6


def test_out_refuses_an_existing_journal_and_resume_another_sweep(tmp_path, capsys):
    journal = tmp_path / "j.jsonl"
    assert main(["sweep", "-a", "snkp", "--levels", "0.5", "--out", str(journal), "--json"]) == 0
    capsys.readouterr()
    assert main(["sweep", "-a", "snkp", "--levels", "0.5", "--out", str(journal)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and f"--resume {journal}" in err
    assert main(["sweep", "-a", "snkp", "--levels", "0.5", "--seed", "3", "--resume", str(journal)]) == 1  # data: another sweep
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "another sweep (different seed)" in err
    (tmp_path / "x.jsonl").write_text("a,b\n1,2\n")
    assert main(["sweep", "-a", "snkp", "--levels", "0.5", "--resume", str(tmp_path / "x.jsonl")]) == 1
    assert "not a sweep journal" in capsys.readouterr().err
