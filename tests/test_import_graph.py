"""The import graph of percviz, read from the source (ast: module-level and function-level imports): no circles."""

import ast
from pathlib import Path

import pytest

import percviz

ROOT = Path(percviz.__file__).parent
#: The one circle left to another item of issue 24 (cli_experiments takes cli's private _Parser and _print_json;
#: a public CLI helper module breaks it). Remove once that is merged.
CLI_PAIR = frozenset({"percviz.cli", "percviz.cli_experiments"})


def _modules() -> dict[str, Path]:
    out = {}
    for path in ROOT.rglob("*.py"):
        parts = list(path.relative_to(ROOT.parent).with_suffix("").parts)
        out[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    return out


def _type_checking_only(node) -> bool:
    t = node.test
    return isinstance(node, ast.If) and (getattr(t, "id", None) == "TYPE_CHECKING" or getattr(t, "attr", None) == "TYPE_CHECKING")


def _imported(tree: ast.AST, package: str) -> list[str]:
    """Every dotted name an import statement anywhere in the tree brings in (not under `if TYPE_CHECKING:`)."""
    names, todo = [], [tree]
    while todo:
        node = todo.pop()
        if isinstance(node, ast.If) and _type_checking_only(node):
            todo.extend(node.orelse)
            continue
        if isinstance(node, ast.Import):
            names += [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                up = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join(up + ([base] if base else []))
            names += [f"{base}.{a.name}" for a in node.names]
        todo.extend(ast.iter_child_nodes(node))
    return names


def import_graph() -> dict[str, set[str]]:
    """module → the percviz modules it imports (a package's own ancestors aside: they always run first)."""
    mods = _modules()

    def owner(name: str) -> str | None:
        while name and name not in mods:
            name = name.rpartition(".")[0]
        return name or None

    graph = {}
    for mod, path in mods.items():
        package = mod if path.name == "__init__.py" else mod.rpartition(".")[0]
        found = {owner(n) for n in _imported(ast.parse(path.read_text(encoding="utf-8")), package)}
        graph[mod] = {m for m in found if m and m != mod and not mod.startswith(m + ".")}
    return graph


def circles(graph: dict[str, set[str]]) -> list[frozenset[str]]:
    """The strongly connected components of more than one module (Tarjan's algorithm, iterative)."""
    index, low, on, stack, out, counter = {}, {}, set(), [], [], 0
    for start in graph:
        if start in index:
            continue
        work = [(start, iter(sorted(graph[start])))]
        index[start] = low[start] = counter
        counter += 1
        stack.append(start)
        on.add(start)
        while work:
            v, it = work[-1]
            w = next(it, None)
            if w is not None:
                if w not in index:
                    index[w] = low[w] = counter
                    counter += 1
                    stack.append(w)
                    on.add(w)
                    work.append((w, iter(sorted(graph[w]))))
                elif w in on:
                    low[v] = min(low[v], index[w])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[v])
            if low[v] == index[v]:
                comp = set()
                while True:
                    w = stack.pop()
                    on.discard(w)
                    comp.add(w)
                    if w == v:
                        break
                if len(comp) > 1:
                    out.append(frozenset(comp))
    return out


@pytest.fixture(scope="module")
def graph() -> dict[str, set[str]]:
    """The graph read once for this module's tests (parsing every module takes about a second)."""
    return import_graph()


def test_the_graph_sees_function_level_imports(graph):
    """The reader is not blind: percviz.show imports the window's handle inside a function, and a circle is found."""
    assert "percviz.app.handle" in graph["percviz"]
    assert "percviz.core.dense_gram" in graph["percviz.core.gram_operator"]
    assert circles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [frozenset("abc")]


def test_no_import_circle_in_core(graph):
    assert [c for c in circles(graph) if any(m.startswith("percviz.core") for m in c)] == []


def test_no_import_circle_anywhere_else(graph):
    assert [c for c in circles(graph) if c != CLI_PAIR] == []


def test_cli_and_cli_experiments(graph):
    if CLI_PAIR in circles(graph):
        pytest.skip("cli ↔ cli_experiments: another helper's item of issue 24 (a public CLI helper module)")
