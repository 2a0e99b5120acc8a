"""Every pacing constant of percviz/app (a `*_MS` or `*_S` name) is defined in percviz/app/timing.py only."""

from __future__ import annotations

import ast
import re
import subprocess
import sys
from pathlib import Path

APP = Path(__file__).resolve().parents[1] / "percviz" / "app"
TIMING = re.compile(r"^_?[A-Z][A-Z0-9_]*_(MS|S)$")


def _definitions(tree: ast.AST):
    """(line, name) of every assignment to a timing-like name that does not just rename another name."""
    for node in ast.walk(tree):
        if isinstance(node, (ast.Assign, ast.AnnAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            if isinstance(node.value, (ast.Name, ast.Attribute)):
                continue  # FIT_DELAY_MS = LAYOUT_FIT_DELAY_MS: read from timing, not defined
            for target in targets:
                for leaf in ast.walk(target):
                    if isinstance(leaf, ast.Name) and TIMING.match(leaf.id):
                        yield node.lineno, leaf.id


def _imports(tree: ast.AST):
    """(line, module, name) of every `from X import NAME` of a timing-like name."""
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            for alias in node.names:
                if TIMING.match(alias.name):
                    yield node.lineno, node.module, alias.name


def test_the_walker_finds_a_definition_and_skips_a_rename():
    tree = ast.parse("A_MS = 3\nB_S, C = 0.1, 2\nD_MS = A_MS\nclass K:\n    E_MS = 5\nF = 1\n")
    assert [name for _l, name in _definitions(tree)] == ["A_MS", "B_S", "E_MS"]


def test_every_timing_constant_of_the_app_lives_in_timing_py():
    stray, foreign = {}, {}
    for path in sorted(APP.rglob("*.py")):
        rel = path.relative_to(APP).as_posix()
        tree = ast.parse(path.read_text(encoding="utf-8"))
        if rel != "timing.py":
            found = [f"{line}: {name}" for line, name in _definitions(tree)]
            if found:
                stray[rel] = found
        wrong = [f"{line}: {name} from {mod}" for line, mod, name in _imports(tree) if mod != "percviz.app.timing"]
        if wrong:
            foreign[rel] = wrong
    assert stray == {}, f"define these in percviz/app/timing.py: {stray}"
    assert foreign == {}, f"import these from percviz.app.timing: {foreign}"


def test_each_constant_has_a_comment_with_its_reason():
    """Every constant of timing.py follows a `#:` comment (its unit is in its name)."""
    lines = (APP / "timing.py").read_text(encoding="utf-8").splitlines()
    names = [(i, m.group(1)) for i, line in enumerate(lines) if (m := re.match(r"^([A-Z][A-Z0-9_, ]*) = ", line))]
    assert len(names) >= 25
    for i, name in names:
        assert lines[i - 1].startswith("#:"), f"{name} has no comment"
        for part in name.split(","):
            assert TIMING.match(part.strip()), f"{part.strip()}: its name gives no unit (_MS or _S)"


def test_timing_imports_no_qt():
    code = "import sys, percviz.app.timing; sys.exit('PySide6' in sys.modules)"
    assert subprocess.run([sys.executable, "-c", code], check=False).returncode == 0
