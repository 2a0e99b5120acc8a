"""Readable names for a race's lanes: 'NKP · Gaussian RBF γ = 2', never the raw spec `nkp (rbf:gamma=2)`."""

from __future__ import annotations

import re

from percviz.core.errors import PercvizError
from percviz.core.features import FEATURE_MAPS, parse_features
from percviz.core.kernels import KERNELS, parse_kernel
from percviz.core.param_labels import human_label
from percviz.core.solvers import get_solver

#: Where a kernel's or φ-map's display name turns into its formula ('Gaussian RBF exp(−γ‖x−z‖²)').
_FORMULA = re.compile(r"\s+(?=exp\(|1 \+ |x·z|\(x·z|\(1, )")


def algorithm_name(name: str) -> str:
    """The algorithm's acronym when its display name has one ('NKP'), else its display name without a trailing
    aside in brackets."""
    try:
        cls = get_solver(name)
    except PercvizError:
        return name
    shown = cls.display_name or name
    acronym = re.search(r"\(([A-Z][A-Za-z0-9–-]{1,9})\)\s*$", shown)
    if acronym:
        return acronym.group(1)
    return re.sub(r"\s+\([^)]*\)\s*$", "", shown) or shown  # 'SVM by SMO (pairwise updates)': 'SVM by SMO'



def _values_text(cls, values: dict) -> str:
    """' γ = 2' for the values that differ from the defaults (each by its symbol, else its label)."""
    parts = []
    for spec in cls.params.specs:
        if spec.name in values and values[spec.name] != spec.default:
            label = human_label(spec, cls.name)
            symbol = label.split()[-1] if len(label.split()[-1]) <= 3 else label
            value = values[spec.name]
            parts.append(f"{symbol} = {value:g}" if isinstance(value, (int, float)) else f"{symbol} = {value}")
    return (" " + ", ".join(parts)) if parts else ""


def kernel_name(spec: str) -> str:
    """'Gaussian RBF γ = 2' for 'rbf:gamma=2' (the spec itself if it does not parse)."""
    try:
        k = parse_kernel(spec)
    except PercvizError:
        return str(spec)
    cls = KERNELS[k.name]
    return _FORMULA.split(cls.display_name or k.name)[0] + _values_text(cls, dict(k.values))


def features_name(spec: str) -> str:
    """'φ augmented linear' for 'linear'."""
    try:
        f = parse_features(spec)
    except PercvizError:
        return f"φ {spec}"
    cls = FEATURE_MAPS[f.name]
    text = _FORMULA.split(cls.display_name or f.name)[0]
    return "φ " + text[:1].lower() + text[1:] + _values_text(cls, dict(f.values))


def lane_name(lane) -> str:
    """'NKP · Gaussian RBF γ = 2' or 'Perceptron · φ augmented linear'."""
    try:
        rep = get_solver(lane.algorithm).representation
    except PercvizError:
        return lane.algorithm
    spec = kernel_name(lane.kernel) if rep == "kernel" else features_name(lane.features) if rep == "features" else ""
    return f"{algorithm_name(lane.algorithm)} · {spec}" if spec else algorithm_name(lane.algorithm)


__all__ = ["algorithm_name", "features_name", "kernel_name", "lane_name"]
