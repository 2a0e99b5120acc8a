"""The worked examples of docs/library.md run as written, and print what the page says they print."""

import os
import re
from pathlib import Path

import pytest

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")  # the notebook example opens the window

DOC = Path(__file__).resolve().parents[1] / "docs" / "library.md"


def example(name: str) -> str:
    """The code of the block marked '# example: NAME' (IPython magics such as %gui qt left out)."""
    blocks = dict(re.findall(r"```python\n# example: (\S+)\n(.*?)```", DOC.read_text(), re.S))
    return "\n".join(line for line in blocks[name].splitlines() if not line.startswith("%"))


def printed(name: str) -> list[str]:
    """The '# …' comments after print(...) lines: what the page promises each print shows."""
    return [m.group(1).strip() for m in re.finditer(r"^print\(.*\)[ \t]+# (.*)$", example(name), re.M)]


def run(name: str, capsys, cwd=None) -> list[str]:
    exec(compile(example(name), f"docs/library.md:{name}", "exec"), {"__name__": "__doc_example__"})
    return capsys.readouterr().out.splitlines()


def test_breast_cancer_example(capsys):
    pytest.importorskip("sklearn", reason="the example uses scikit-learn's breast cancer data")
    assert run("breast-cancer", capsys) == printed("breast-cancer")


def test_grid_search_example(capsys):
    pytest.importorskip("sklearn", reason="the example is a scikit-learn grid search")
    assert run("grid-search", capsys) == printed("grid-search")


def test_notebook_example(capsys, tmp_path, monkeypatch, qapp):
    """As in a notebook after %gui qt: show() returns at once and the window stays live."""
    from percviz.app import handle

    monkeypatch.setattr(handle, "event_loop_integrated", lambda: True)  # what %gui qt provides
    monkeypatch.chdir(tmp_path)
    opened = []
    real_show = handle.show
    monkeypatch.setattr(handle, "show", lambda *a, **k: opened.append(real_show(*a, **k)) or opened[-1])
    try:
        assert run("notebook", capsys) == printed("notebook")
        assert opened and opened[0].is_open
    finally:
        for h in opened:
            h.close()
    from percviz.core.presets import load_preset

    assert (tmp_path / "xor-rbf.png").stat().st_size > 10_000
    assert load_preset(tmp_path / "xor-rbf.json").kernel == "rbf:gamma=1"
    page = (tmp_path / "xor-rbf.html").read_text()
    assert '"outcome":"separator found"' in page and '"kernel":"rbf:gamma=1"' in page
    assert opened[0]._repr_html_().startswith("<iframe")  # the closed window's handle still shows its handout


@pytest.mark.slow
def test_handout_example(tmp_path):
    """The notebook cells of Example 4 as a plain script, in a fresh interpreter without Qt: what they print,
    the file, and the HTML a notebook renders for the cell's last line."""
    import subprocess
    import sys

    *cells, last = example("handout").rstrip().splitlines()
    assert last.split("#")[0].strip() == "run"  # a notebook displays the value of a cell's last line
    script = "\n".join(cells) + """
import sys
shown = run._repr_html_()   # what Jupyter, VS Code and Colab render
open("shown.html", "w").write(shown)
bad = sorted(m for m in sys.modules if m.split('.')[0] in ('PySide6', 'shiboken6', 'pyqtgraph'))
assert not bad, bad
"""
    proc = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.splitlines() == printed("handout")
    shown = (tmp_path / "shown.html").read_text()
    assert shown.startswith('<iframe class="percviz-handout"') and 'sandbox="allow-scripts"' in shown
    assert 'srcdoc="&lt;!DOCTYPE html&gt;' in shown and "<script" not in shown
    page = (tmp_path / "ring.html").read_text()
    assert "A ring, RBF" in page and "http://" not in page and "https://" not in page
