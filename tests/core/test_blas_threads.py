"""The solver thread's BLAS runs on one thread, in scipy.linalg's own OpenBLAS too (core.grid.one_blas_thread)."""

from __future__ import annotations

import os
import subprocess
import sys


def test_scipys_lapack_is_limited_even_when_imported_after_the_limit_was_set_up():
    """A fresh interpreter, as the app starts: the first limit is made before scipy.linalg is imported (its
    OpenBLAS loads then). Two spinning LAPACK threads on two shared cores starved the window in the soak."""
    code = (
        "import sys\n"
        "from percviz.core.grid import one_blas_thread\n"
        "with one_blas_thread():\n"
        "    import scipy.linalg\n"
        "    from threadpoolctl import threadpool_info\n"
        "    libs = [(i['filepath'], i['num_threads']) for i in threadpool_info() if i['user_api'] == 'blas']\n"
        "assert all(n == 1 for _, n in libs), libs\n"
    )
    env = {k: v for k, v in os.environ.items() if k not in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS")}
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, env=env)
    assert out.returncode == 0, out.stdout + out.stderr
