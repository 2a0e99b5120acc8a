"""`percviz solve`, `margin` and `list` run without loading Qt (only the window and export need it)."""

import subprocess
import sys

CHECK = """
import sys
from percviz.cli import main
codes = [main(["solve", {csv!r}, "-a", "snkp", "--json"]),
         main(["solve", "default", "--json"]),
         main(["margin", {csv!r}, "--json"]),
         main(["list"])]
assert codes == [0, 0, 0, 0], codes
bad = sorted(m for m in sys.modules if m.split('.')[0] in ('PySide6', 'PyQt5', 'PyQt6', 'shiboken6', 'pyqtgraph'))
assert not bad, bad
assert 'percviz.app' not in sys.modules
sys.stderr.write('clean')
"""


def test_solve_margin_list_load_no_qt(tmp_path):
    csv = tmp_path / "d.csv"
    csv.write_text("x,y,label\n0,0,1\n1,1,1\n3,3,-1\n4,3,-1\n")
    out = subprocess.run([sys.executable, "-c", CHECK.format(csv=str(csv))], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    assert out.stderr.endswith("clean")
