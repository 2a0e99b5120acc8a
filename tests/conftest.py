"""Shared test configuration: offscreen Qt, settings and data in temporary folders, one BLAS thread."""

import os
import tempfile

import pytest

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
# Preferences (QSettings) and autosaves never touch the user's real folders during a test run.
os.environ.setdefault("PERCVIZ_CONFIG_DIR", tempfile.mkdtemp(prefix="percviz-config-"))
os.environ.setdefault("PERCVIZ_DATA_DIR", tempfile.mkdtemp(prefix="percviz-data-"))

try:  # scikit-learn (a test extra) brings threadpoolctl
    from threadpoolctl import threadpool_limits

    _limits = threadpool_limits(limits=1)
except ImportError:  # pragma: no cover - without it tests still run, only slower on a busy machine
    _limits = None


def _slow_ids() -> tuple[set[str], set[str]]:
    """tests/slow_tests.txt: the exact test ids, and the function ids (all their parameters) marked slow."""
    from pathlib import Path

    lines = (Path(__file__).with_name("slow_tests.txt").read_text(encoding="utf-8")).splitlines()
    ids = {line.strip() for line in lines if line.strip() and not line.startswith("#")}
    return ids, {i for i in ids if "[" not in i}


def _mark_slow(items):
    """Mark `slow` the tests listed in tests/slow_tests.txt (the quick loop is `pytest -m "not slow"`)."""
    exact, functions = _slow_ids()
    for item in items:
        if item.nodeid in exact or item.nodeid.split("[")[0] in functions:
            item.add_marker(pytest.mark.slow)


#: a file's expected cost, for the order in which xdist hands files out: a slow test counts this many quick ones
SLOW_WEIGHT, SOAK_WEIGHT = 20, 800


def pytest_collection_modifyitems(config, items):
    """Mark `slow` the tests listed in tests/slow_tests.txt (before `-m` deselects)."""
    _mark_slow(items)


class _CostliestFirst:
    """Orders the files by their expected cost, the costliest first: with `--dist loadfile --no-loadscope-reorder`
    xdist hands them out in this order, so a one-test soak of a minute no longer comes last, on one worker, alone."""

    @pytest.hookimpl(trylast=True)  # after every conftest has marked its tests
    def pytest_collection_modifyitems(self, items):
        cost: dict[str, int] = {}
        for item in items:
            file = item.nodeid.split("::")[0]
            weight = SOAK_WEIGHT if item.get_closest_marker("soak") else SLOW_WEIGHT if item.get_closest_marker("slow") else 1
            cost[file] = cost.get(file, 0) + weight
        items.sort(key=lambda item: -cost[item.nodeid.split("::")[0]])  # stable: a file's tests keep their order


def pytest_configure(config):
    config.pluginmanager.register(_CostliestFirst(), "percviz-costliest-first")
    if getattr(config.option, "numprocesses", None) and not hasattr(config, "workerinput"):
        _warm_numba_beside_the_workers(config)


def _warm_numba_beside_the_workers(config) -> None:
    """xdist's controller compiles the numba loops once (tests/warm_numba.py) while the workers collect: on a clean
    checkout each worker would compile them itself (~13 s of CPU each); the cache is read by whoever comes later."""
    import subprocess
    import sys
    from pathlib import Path

    warm = subprocess.Popen([sys.executable, str(Path(__file__).with_name("warm_numba.py"))],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)

    def reap() -> None:  # long done by the end of a run; a run stopped early does not wait for it
        if warm.poll() is None:
            warm.kill()
        warm.communicate()  # reaps it

    config.add_cleanup(reap)
