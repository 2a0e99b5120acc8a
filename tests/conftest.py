"""Shared test configuration: offscreen Qt, settings and data in temporary folders, one BLAS thread."""

import os
import tempfile

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
# Preferences (QSettings) and autosaves never touch the user's real folders during a test run.
os.environ.setdefault("PERCVIZ_CONFIG_DIR", tempfile.mkdtemp(prefix="percviz-config-"))
os.environ.setdefault("PERCVIZ_DATA_DIR", tempfile.mkdtemp(prefix="percviz-data-"))

try:  # scikit-learn (a test extra) brings threadpoolctl
    from threadpoolctl import threadpool_limits

    _limits = threadpool_limits(limits=1)
except ImportError:  # pragma: no cover - without it tests still run, only slower on a busy machine
    _limits = None
