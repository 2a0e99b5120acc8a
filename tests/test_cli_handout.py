"""`percviz export PRESET --out run.html [--steps N]`: the handout, written without Qt; bad options in one line."""

from __future__ import annotations

import json
import re
import subprocess
import sys

import pytest

from percviz import cli


def run(capsys, *argv):
    code = cli.main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


def embedded(path) -> dict:
    m = re.search(r'<script type="application/json" id="percviz-data">(.*?)</script>', path.read_text(), re.S)
    return json.loads(m.group(1))


def test_export_html_writes_the_handout_without_qt(tmp_path):
    out = tmp_path / "run.html"
    code = f"""
import sys
from percviz import cli
rc = cli.main(["export", "xor-rbf", "--out", {str(out)!r}, "--steps", "7"])
bad = sorted(m for m in sys.modules if m.split('.')[0] in ('PySide6', 'shiboken6', 'pyqtgraph'))
assert not bad, bad
sys.exit(rc)
"""
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.startswith(f"wrote {out}: handout")
    data = embedded(out)
    assert data["title"] and data["frames"][0]["iteration"] == 0
    assert data["frames"][-1]["iteration"] <= 7
    assert data["kernel"].startswith("rbf")


@pytest.mark.parametrize("argv, words", [
    (["--out", "{tmp}/run.htm"], "--out must end in .gif or .mp4 (an animation) or .html (a handout)"),
    (["--out", "{tmp}/missing/run.html"], "does not exist"),
    (["--out", "{tmp}/run.html", "--steps", "0"], "--steps must be 1 or more"),
])
def test_export_html_bad_options_are_one_line(capsys, tmp_path, argv, words):
    code, out, err = run(capsys, "export", "xor-rbf", *[a.format(tmp=tmp_path) for a in argv])
    assert code == 2 and err.count("\n") == 1 and words in err, err
