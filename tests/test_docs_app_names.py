"""Every file, class, function and constant docs/app.md names exists (the page a newcomer follows)."""

from __future__ import annotations

import ast
import importlib.util
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PAGE = (ROOT / "docs" / "app.md").read_text(encoding="utf-8")
SPANS = re.findall(r"`([^`\n]+)`", PAGE)
#: `app/x.py` or `core/x.py` (in percviz/), `tests/…`, `bench/…`, with an optional `: Name`
FILE_REF = re.compile(r"^((?:app|core)/[\w/]+\.py|(?:tests|bench)/[\w/]+\.py)(?::\s*(\w+))?$")
DOTTED = re.compile(r"^percviz(?:\.\w+)+$")


def _path(ref: str) -> Path:
    return ROOT / ("percviz/" + ref if ref.startswith(("app/", "core/")) else ref)


def _top_names(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    names = set()
    for node in tree.body:
        if isinstance(node, (ast.ClassDef, ast.FunctionDef)):
            names.add(node.name)
        elif isinstance(node, ast.Assign):
            names.update(t.id for t in node.targets if isinstance(t, ast.Name))
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            names.add(node.target.id)
    return names


FILE_REFS = sorted({m.groups() for s in SPANS if (m := FILE_REF.match(s.strip()))})
DOTTED_REFS = sorted({s.strip() for s in SPANS if DOTTED.match(s.strip())})


def test_the_page_names_enough_to_check():
    assert len(FILE_REFS) >= 30 and len(DOTTED_REFS) >= 5, (len(FILE_REFS), len(DOTTED_REFS))


@pytest.mark.parametrize("ref, name", FILE_REFS, ids=[f"{r}:{n or ''}" for r, n in FILE_REFS])
def test_a_named_file_and_what_it_defines_exist(ref, name):
    path = _path(ref)
    assert path.is_file(), f"docs/app.md names {ref}, which does not exist"
    if name:
        assert name in _top_names(path), f"docs/app.md names {ref}: {name}, which it does not define"


@pytest.mark.parametrize("dotted", DOTTED_REFS)
def test_a_dotted_name_resolves(dotted):
    """percviz.a.b.Name: the longest importable module prefix, then attributes read off its source."""
    parts = dotted.split(".")
    for cut in range(len(parts), 0, -1):
        module_name = ".".join(parts[:cut])
        try:
            spec = importlib.util.find_spec(module_name)
        except ModuleNotFoundError:  # a parent that is a module, not a package
            spec = None
        if spec is not None:
            break
    rest = parts[cut:]
    assert spec is not None and spec.origin, f"{dotted}: no module"
    if rest:
        assert rest[0] in _top_names(Path(spec.origin)), f"docs/app.md names {dotted}, not defined in {module_name}"
