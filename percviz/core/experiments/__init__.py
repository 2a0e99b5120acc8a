"""Experiments on the solver registry: margin families, sweeps with fitted rates, lock-step races (Qt-free)."""

from percviz.core.experiments.families import FAMILIES, Family, get_family
from percviz.core.experiments.race import Lane, Race
from percviz.core.experiments.sweep import RunRecord, SweepSpec, fit_slope, iter_sweep, run_sweep

__all__ = [
    "FAMILIES", "Family", "Lane", "Race", "RunRecord", "SweepSpec",
    "fit_slope", "get_family", "iter_sweep", "run_sweep",
]
