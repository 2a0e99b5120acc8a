"""Every algorithm of percviz; each module registers its solvers on import."""

from __future__ import annotations

import importlib
import pkgutil

from percviz.core.solvers.base import (
    DEFAULT_ALGORITHM,
    PAPER_RACE,
    REFERENCE_SVM,
    METRICS,
    SOLVERS,
    MetricInfo,
    Snapshot,
    Solver,
    Status,
    register,
    unknown_solver,
)

_loaded = False


def load_all() -> dict[str, type[Solver]]:
    """Import every module of this package once, so that all solvers are registered."""
    global _loaded
    if not _loaded:
        for mod in sorted(pkgutil.iter_modules(__path__), key=lambda m: m.name):
            if mod.name != "base" and not mod.name.startswith("_"):
                importlib.import_module(f"{__name__}.{mod.name}")
        _loaded = True
    return SOLVERS


def get_solver(name: str) -> type[Solver]:
    """The solver class registered under a short name."""
    load_all()
    if name not in SOLVERS:
        raise unknown_solver(name)
    return SOLVERS[name]


def by_family() -> dict[str, list[type[Solver]]]:
    """Registered solvers grouped by family, in registration order within each family (aliases left out)."""
    load_all()
    groups: dict[str, list[type[Solver]]] = {}
    for cls in SOLVERS.values():
        if cls.alias_of is None:
            groups.setdefault(cls.family, []).append(cls)
    return groups


__all__ = [
    "DEFAULT_ALGORITHM",
    "PAPER_RACE",
    "REFERENCE_SVM",
    "METRICS",
    "SOLVERS",
    "MetricInfo",
    "Snapshot",
    "Solver",
    "Status",
    "by_family",
    "get_solver",
    "load_all",
    "register",
]
