"""No solver name is quoted in the app, the estimators or the CLI (issue 24): they read the solver classes'
capabilities (core.solvers.base.Solver), so adding an algorithm touches only core/solvers/."""

import ast
from pathlib import Path

import pytest

import percviz
from percviz.core.solvers import load_all
from percviz.core.solvers.base import DEPRECATED_NAMES

ROOT = Path(percviz.__file__).parent
FILES = sorted((ROOT / "app").rglob("*.py")) + [ROOT / "estimators.py", ROOT / "cli.py"]


def quoted_names(path: Path) -> list[tuple[int, str]]:
    """(line, name) of every string constant that is exactly a registered (or deprecated) algorithm name."""
    names = set(load_all()) | set(DEPRECATED_NAMES)
    tree = ast.parse(path.read_text(encoding="utf-8"))
    return [(n.lineno, n.value) for n in ast.walk(tree)
            if isinstance(n, ast.Constant) and isinstance(n.value, str) and n.value in names]


def test_the_reader_finds_a_quoted_name(tmp_path):
    probe = tmp_path / "probe.py"
    probe.write_text('WARM = ("smo", "svm")\nx = f"{WARM} snkp"\n', encoding="utf-8")
    assert quoted_names(probe) == [(1, "smo"), (1, "svm")]


@pytest.mark.parametrize("path", FILES, ids=lambda p: str(p.relative_to(ROOT)))
def test_no_solver_name_quoted(path):
    assert quoted_names(path) == []
