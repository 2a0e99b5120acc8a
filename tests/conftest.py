"""Shared test configuration: offscreen Qt, and one BLAS thread (small products are faster and steadier)."""

import os

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

try:  # scikit-learn (a test extra) brings threadpoolctl
    from threadpoolctl import threadpool_limits

    _limits = threadpool_limits(limits=1)
except ImportError:  # pragma: no cover - without it tests still run, only slower on a busy machine
    _limits = None
