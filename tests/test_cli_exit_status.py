"""Every command's exit status: 0 done, 2 the command line, 1 the data or a budget's refusal, 70 a bug, 130 Ctrl-C;
each failure exactly one line on stderr, no traceback."""

import os
import signal
import subprocess
import sys
import time

import pytest

from percviz import cli
from percviz.cli_common import EXIT_DATA, EXIT_INTERNAL, EXIT_INTERRUPTED, EXIT_OK, EXIT_USAGE


@pytest.fixture
def files(tmp_path):
    (tmp_path / "ok.csv").write_text("x,y,label\n0,0,1\n1,1,1\n3,3,-1\n4,3,-1\n")
    (tmp_path / "nan.csv").write_text("x,y,label\n0,0,1\n1,nan,-1\n")
    (tmp_path / "xor.csv").write_text("x,y,label\n0,0,1\n1,1,1\n0,1,-1\n1,0,-1\n")
    (tmp_path / "wide.csv").write_text("a,b,c,label\n0,0,0,1\n1,1,1,-1\n")
    return tmp_path


#: (command, good argv, bad-usage argv, bad-data argv); {t} is the folder of the files above.
CASES = {
    "solve": (["solve", "{t}/ok.csv", "-a", "perceptron", "--json"],
              ["solve", "{t}/ok.csv", "-a", "perceptron", "--max-iter", "x"],
              ["solve", "{t}/nan.csv", "-a", "perceptron"]),
    "margin": (["margin", "{t}/ok.csv", "--json"], ["margin", "{t}/ok.csv", "--kernel", "sigmoid"],
               ["margin", "{t}/nan.csv"]),
    "export": (["export", "{t}/ok.csv", "-a", "perceptron", "--out", "{t}/run.html", "--steps", "2"],
               ["export", "{t}/ok.csv", "--out", "{t}/run.avi"],
               ["export", "{t}/wide.csv", "-a", "perceptron", "--out", "{t}/run.html"]),
    "list": (["list", "--json"], ["list", "--frobnicate"], None),
    "sweep": (["sweep", "-a", "perceptron", "--levels", "0.5", "--max-iter", "50", "--workers", "1", "--json"],
              ["sweep", "--seed", "-1"], ["sweep", "--over", "n", "--n", "100000", "-a", "snkp", "--json"]),
    "cover": (["cover", "--n", "3,4", "--trials", "5", "--json"], ["cover", "--n", "nan"],
              ["cover", "--n", "1e9", "--json"]),
    "window": (None, ["--panel", "canvas"], ["{t}/nan.csv", "--screenshot", "{t}/shot.png"]),
}


def _run(capsys, argv, t):
    code = cli.main([a.format(t=t) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


def _one_line(err):
    assert err.count("\n") == 1 and err.startswith("percviz") and ": error: " in err, err
    assert "Traceback" not in err and "internal error" not in err, err


@pytest.mark.parametrize("command", [c for c, v in CASES.items() if v[0]])
def test_good_input_exits_0_with_nothing_on_stderr(capsys, files, command, monkeypatch):
    monkeypatch.setenv("PERCVIZ_MEMORY_BUDGET", "4G")
    code, out, err = _run(capsys, CASES[command][0], files)
    assert code == EXIT_OK and out and err == "", err


@pytest.mark.parametrize("command", list(CASES))
def test_bad_usage_exits_2_in_one_line(capsys, files, command):
    code, out, err = _run(capsys, CASES[command][1], files)
    assert code == EXIT_USAGE and out == "", err
    _one_line(err)


@pytest.mark.parametrize("command", [c for c, v in CASES.items() if v[2]])
def test_bad_data_or_a_refusal_exits_1_in_one_line(capsys, files, command, monkeypatch):
    monkeypatch.setenv("PERCVIZ_MEMORY_BUDGET", "4M")  # sweep over n = 10⁵ and cover at n = 10⁹: over it
    t0 = time.thread_time()
    code, out, err = _run(capsys, CASES[command][2], files)
    assert code == EXIT_DATA and out == "", err
    _one_line(err)
    assert time.thread_time() - t0 < 3  # refused before the work (the sweep computed ρ_K of 10⁵ points first: 5 s)


def test_a_bug_exits_70_in_one_line(capsys, files, monkeypatch):
    def boom(*args, **kwargs):
        raise ZeroDivisionError("bug")

    monkeypatch.setattr(cli, "margin", boom)
    monkeypatch.delenv("PERCVIZ_DEBUG", raising=False)
    code, out, err = _run(capsys, ["margin", "{t}/ok.csv"], files)
    assert code == EXIT_INTERNAL and out == ""
    assert err.count("\n") == 1 and "internal error: ZeroDivisionError: bug" in err and "Traceback" not in err


def test_ctrl_c_in_process_exits_130(capsys, files, monkeypatch):
    def interrupted(argv):
        raise KeyboardInterrupt

    monkeypatch.setattr(cli, "cmd_solve", interrupted)
    code, out, err = _run(capsys, ["solve", "{t}/ok.csv", "-a", "perceptron"], files)
    assert code == EXIT_INTERRUPTED and out == "" and err == "percviz solve: error: interrupted\n"


def _cpu_seconds(pid: int) -> float:
    """User + system CPU time of a running process, from /proc (Linux)."""
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


@pytest.mark.slow
@pytest.mark.skipif(not os.path.exists("/proc/self/stat"), reason="reads a process's CPU time from /proc")
def test_sigint_during_a_long_solve_exits_130_without_a_traceback(files):
    proc = subprocess.Popen([sys.executable, "-m", "percviz", "solve", str(files / "xor.csv"), "-a", "perceptron",
                             "--max-iter", "100000000", "--json"],  # XOR: the perceptron never stops
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        for _ in range(600):  # until it has spent 2 s of CPU time: past the imports, inside the run
            if proc.poll() is not None or _cpu_seconds(proc.pid) > 2.0:
                break
            time.sleep(0.1)
        else:
            raise TimeoutError("the solve did not start within 60 s")
        assert proc.poll() is None, proc.communicate()
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
            assert proc.wait(timeout=10) == -signal.SIGKILL
    assert proc.returncode == EXIT_INTERRUPTED, err
    assert out == "" and err == "percviz solve: error: interrupted\n"
