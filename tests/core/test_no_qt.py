"""The core and the CLI's solve path never import Qt."""

import subprocess
import sys

CHECK = """
import sys
import percviz.core, percviz.core.solvers
percviz.core.solvers.load_all()
{extra}
bad = sorted(m for m in sys.modules if m.split('.')[0] in ('PySide6', 'PyQt5', 'PyQt6', 'shiboken6', 'pyqtgraph'))
assert not bad, bad
print('clean', len(percviz.core.solvers.SOLVERS))
"""


def _run(extra: str) -> str:
    out = subprocess.run([sys.executable, "-c", CHECK.format(extra=extra)], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    return out.stdout


def test_core_imports_no_qt():
    assert _run("").startswith("clean")


def test_registry_is_not_empty():
    n = int(_run("").split()[1])
    assert n >= 1
