"""Progress of `percviz sweep` and `percviz cover`: a bar on a terminal's stderr (runs done, time left),
nothing with --json or when stderr is not a terminal; and no import circle between cli and cli_experiments."""

import ast
import fcntl
import os
import pty
import struct
import subprocess
import sys
import termios
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SWEEP = ["sweep", "-a", "snkp", "--levels", "0.5,0.2,0.1", "--workers", "1"]
COVER = ["cover", "--n", "3,4", "--trials", "60"]


def _on_a_terminal(argv, size=(24, 100)) -> tuple[str, str]:
    """(stdout, stderr) of `python -m percviz argv` with stderr on a pseudo-terminal of `size` (rows, columns)."""
    master, slave = pty.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", *size, 0, 0))
    proc = subprocess.Popen([sys.executable, "-m", "percviz", *argv], stdout=subprocess.PIPE, stderr=slave,
                            env={**os.environ, "PYTHONPATH": str(ROOT)}, text=True)
    os.close(slave)
    err = b""
    while True:
        try:
            chunk = os.read(master, 4096)
        except OSError:  # the terminal closed with the process
            break
        if not chunk:
            break
        err += chunk
    out = proc.stdout.read()
    assert proc.wait(timeout=120) == 0, err
    os.close(master)
    return out, err.decode()


@pytest.mark.slow
@pytest.mark.parametrize("argv,unit,total", [(SWEEP, "run", 3), (COVER, "LP", 120)])
def test_a_terminal_shows_runs_done_and_time_left(argv, unit, total):
    out, err = _on_a_terminal(argv)
    assert f"{total}/{total} [" in err and f"{unit}/s]" in err and "100%" in err, err
    assert f"0/{total} [00:00<?" in err  # the time left, estimated from the runs done (unknown at first)
    assert "PARTIAL" not in out and "Traceback" not in err
    _, err = _on_a_terminal(argv, size=(0, 0))  # a terminal that reports no size still gets a bar
    assert f"{total}/{total}" in err


@pytest.mark.slow
@pytest.mark.parametrize("argv", [SWEEP, COVER])
def test_quiet_with_json_or_without_a_terminal(argv):
    out, err = _on_a_terminal([*argv, "--json"])
    assert err.strip() == "" and out.startswith("{")
    piped = subprocess.run([sys.executable, "-m", "percviz", *argv], capture_output=True, text=True,
                           env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert piped.returncode == 0 and piped.stderr == ""


def _imports(module: Path) -> set[str]:
    """Every module a file imports, at the top or inside a function."""
    names = set()
    for node in ast.walk(ast.parse(module.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module:
            names.add(node.module)
            names.update(f"{node.module}.{a.name}" for a in node.names)
    return names


def test_no_import_circle_between_cli_and_cli_experiments():
    pkg = ROOT / "percviz"
    experiments, common = _imports(pkg / "cli_experiments.py"), _imports(pkg / "cli_common.py")
    assert "percviz.cli" not in experiments and "percviz.cli_common" in experiments
    assert not {"percviz.cli", "percviz.cli_experiments"} & common
    assert not any(n.startswith("percviz.cli") for n in _imports(pkg / "core" / "experiments" / "runners.py"))
    import percviz.cli as cli
    import percviz.cli_common as common_mod
    assert cli.UsageError is common_mod.UsageError  # one exception class, raised by both
