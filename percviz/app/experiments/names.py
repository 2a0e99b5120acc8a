"""Readable names of the race's lanes and of the kernels and φ-maps they run with ('NKP · Gaussian RBF γ = 2')."""

from __future__ import annotations

from percviz.app.panels.overlays import algorithm_label
from percviz.core.glossary import margin_term, outcome
from percviz.core.kernels import parse_kernel
from percviz.core.param_labels import human_label
from percviz.core.solvers import get_solver

#: A non-breaking space: a value never goes to the next line without its symbol ("γ = 2", "m(α) = 0.01").
NBSP = "\u00a0"


def _short(display_name: str) -> str:
    """The words of a display name before its formula: 'Gaussian RBF exp(−γ‖x−z‖²)' → 'Gaussian RBF'."""
    words = []
    for w in display_name.split():
        if not w.strip("()").isalpha():
            break
        words.append(w)
    return " ".join(words) or display_name


def _symbol(spec, owner: str) -> str:
    """The parameter's symbol from its human label ('Width γ' → 'γ'), else the label itself."""
    label = human_label(spec, owner)
    last = label.split()[-1]
    return last if len(last) <= 2 else label


def _named(obj) -> tuple[str, str]:
    """(short name, its parameters): 'Full polynomial of degree k' with k = 3 → ('Full polynomial of degree 3', '')."""
    name, parts = _short(obj.display_name), []
    for spec in obj.params.specs:
        v = obj.values.get(spec.name, spec.default)
        text = f"{v:g}" if isinstance(v, float) else str(v)
        sym = _symbol(spec, obj.name)
        if name.endswith(f" {sym}"):  # the name already says where the value goes
            name = name[: -len(sym)] + text
        else:
            parts.append(f"{sym}{NBSP}={NBSP}{text}")
    return name, ", ".join(parts)


def kernel_words(spec: str) -> str:
    """'rbf:gamma=2' → 'Gaussian RBF γ = 2'; 'affine' → 'Affine linear'."""
    name, values = _named(parse_kernel(spec))
    return f"{name} {values}".strip()


def features_words(spec: str) -> str:
    """'quadratic' → 'φ = Full quadratic'; 'poly:degree=3' → 'φ = Full polynomial of degree 3'."""
    from percviz.core.features import parse_features

    name, values = _named(parse_features(spec))
    return f"φ{NBSP}={NBSP}{name}" + (f", {values}" if values else "")


def runs_on(lane) -> str:
    """What a lane's algorithm runs on: its kernel (kernel solvers) or its φ-map."""
    cls = get_solver(lane.algorithm)
    return kernel_words(lane.kernel) if cls.representation == "kernel" else features_words(lane.features)


def lane_name(lane) -> str:
    """'NKP · Gaussian RBF γ = 2', 'Perceptron · φ = Augmented linear'."""
    return f"{algorithm_label(get_solver(lane.algorithm))} · {runs_on(lane)}"


def lane_margin(lane):
    """The glossary's MarginTerm of a lane's `margin` metric (normalized m(α), geometric γ(a), …)."""
    return margin_term(get_solver(lane.algorithm))


def outcome_words(snapshot) -> str:
    """'separator found', 'running', 'iteration limit' (core.glossary's OUTCOMES)."""
    return outcome(snapshot.status, dict(snapshot.metrics)).words
