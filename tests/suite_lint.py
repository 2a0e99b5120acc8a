"""Lint of the test suite itself: no wait whose time-out goes unnoticed, no assertion on wall-clock time.

Run as a script (`python tests/suite_lint.py`) it prints every finding as `file:line: what` and exits 1 if any;
tests/test_suite_lint.py runs the same checks in the suite. bench/ is not linted: timings belong there.
"""

from __future__ import annotations

import ast
import sys
from pathlib import Path

TESTS = Path(__file__).resolve().parent

#: calls that read the wall clock (time.thread_time / process_time, CPU time, are the load-proof ones)
WALL_CLOCKS = {"monotonic", "perf_counter", "time", "monotonic_ns", "perf_counter_ns", "time_ns", "elapsed",
               "nsecsElapsed", "msecsSinceReference", "currentMSecsSinceEpoch"}
#: waits returning False on time-out; a bare call ignores that (qtbot.wait / QTest.qWait only sleep)
BOOLEAN_WAITS = {"wait", "wait_idle", "wait_ready", "waitForFinished", "waitForStarted", "tryAcquire"}
SLEEPS = {"qtbot", "QTest", "self"}


def _name(node: ast.AST) -> str:
    if isinstance(node, ast.Attribute):
        return node.attr
    if isinstance(node, ast.Name):
        return node.id
    return ""


def _reads_wall_clock(node: ast.AST) -> bool:
    """True when the expression calls a wall clock: time.monotonic(), time.perf_counter(), QElapsedTimer.elapsed()."""
    for sub in ast.walk(node):
        if isinstance(sub, ast.Call):
            f = sub.func
            if isinstance(f, ast.Attribute) and f.attr in WALL_CLOCKS:
                owner = f.value
                if f.attr in {"elapsed", "nsecsElapsed"} or _name(owner) in {"time", "QDateTime", "datetime"}:
                    return True
            if isinstance(f, ast.Name) and f.id in {"monotonic", "perf_counter"}:
                return True
    return False


def _walk_values(node: ast.AST):
    """ast.walk without the insides of len(...): how many timestamps were taken is a count, not a time."""
    todo = [node]
    while todo:
        n = todo.pop()
        yield n
        if isinstance(n, ast.Call) and _name(n.func) == "len":
            continue
        todo.extend(ast.iter_child_nodes(n))


def _names(node: ast.AST) -> set[str]:
    nodes = list(_walk_values(node))
    return {n.id for n in nodes if isinstance(n, ast.Name)} | {
        n.attr for n in nodes if isinstance(n, ast.Attribute) and isinstance(n.value, ast.Name)
        and n.value.id == "self"}


def _wall_names(fn: ast.AST) -> set[str]:
    """Names in a function (and its nested functions) holding a wall-clock reading or a value derived from one."""
    flows = []  # (target names, value) of every assignment and list append in the scope
    for node in ast.walk(fn):
        targets, value = [], None
        if isinstance(node, ast.Assign):
            targets, value = node.targets, node.value
        elif isinstance(node, (ast.AugAssign, ast.AnnAssign)) and node.value is not None:
            targets, value = [node.target], node.value
        elif isinstance(node, ast.Call) and _name(node.func) in {"append", "extend"} and node.args:
            targets, value = [node.func.value], node.args[0]  # type: ignore[attr-defined]
        if value is None:
            continue
        names = set()
        for t in targets:
            for n in ast.walk(t):
                if isinstance(n, ast.Name):
                    names.add(n.id)
                elif isinstance(n, ast.Attribute) and isinstance(n.value, ast.Name) and n.value.id == "self":
                    names.add(n.attr)
        flows.append((names, _reads_wall_clock(value), _names(value)))
    tainted: set[str] = set()
    for _ in range(4):  # derived values: t0 = monotonic(); dt = monotonic() - t0; gaps = diff(times) ...
        before = len(tainted)
        for names, reads, uses in flows:
            if reads or uses & tainted:
                tainted |= names
        if len(tainted) == before:
            break
    return tainted


def wall_clock_assertions(path: Path) -> list[tuple[int, str]]:
    """(line, text) of each assert in the file whose condition depends on a wall-clock reading."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    found = []
    scopes = [n for n in tree.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))]
    for scope in scopes:  # a top-level function or class with what it nests: one scope of names
        tainted = _wall_names(scope)
        for node in ast.walk(scope):
            if isinstance(node, ast.Assert) and (_reads_wall_clock(node.test) or _names(node.test) & tainted):
                found.append((node.lineno, "asserts on wall-clock time: " + ast.unparse(node.test)[:80]))
    return found


def ignored_waits(path: Path) -> list[tuple[int, str]]:
    """(line, text) of each wait whose False (time-out) result is dropped: a bare `x.wait(...)` statement, or
    `wait_idle/wait_ready(..., check=False)` whose result is not used."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    found = []
    for node in ast.walk(tree):
        if not (isinstance(node, ast.Expr) and isinstance(node.value, ast.Call)):
            continue
        call = node.value
        name = _name(call.func)
        if name not in BOOLEAN_WAITS:
            continue
        owner = call.func.value if isinstance(call.func, ast.Attribute) else None
        if name == "wait" and owner is not None and _name(owner) in SLEEPS:
            continue  # qtbot.wait(ms): a pause, not a wait for something
        if name == "wait" and owner is not None and _name(owner).endswith("barrier"):
            continue  # threading.Barrier.wait raises BrokenBarrierError on time-out
        raises = name in {"wait_idle", "wait_ready"} and not any(
            k.arg == "check" and isinstance(k.value, ast.Constant) and k.value.value is False for k in call.keywords)
        if not raises:
            found.append((node.lineno, "ignores a wait's result: " + ast.unparse(call)[:80]))
    return found


def test_files() -> list[Path]:
    return sorted(p for p in TESTS.rglob("*.py") if p.name != "suite_lint.py")


def findings() -> list[str]:
    out = []
    for path in test_files():
        rel = path.relative_to(TESTS.parent)
        for line, text in wall_clock_assertions(path) + ignored_waits(path):
            out.append(f"{rel}:{line}: {text}")
    return out


if __name__ == "__main__":
    lines = findings()
    print("\n".join(lines) or "tests/: 0 wall-clock assertions, 0 ignored waits")
    sys.exit(1 if lines else 0)
