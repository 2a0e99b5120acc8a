"""Human labels of the parameters (forms, tooltips, help): 'Max passes' rather than `max_passes`.

A spec's own `label` wins; otherwise the label of its name for that owner (solver, kernel or φ-map), then of its
name alone. Names are kept as they are: presets, the CLI and scripts use them.
"""

from __future__ import annotations

from percviz.core.params import ParamSpec

#: Labels by parameter name (what the name means in most algorithms).
BY_NAME: dict[str, str] = {
    "eta": "Learning rate η(1)",
    "schedule": "Rate schedule η(k)",
    "b": "Margin b",
    "max_passes": "Max passes (0: no limit)",
    "average": "Averaged weights",
    "alpha": "Promotion factor α",
    "step": "Step size rule",
    "tol": "Tolerance",
    "margin_vector": "Target margins b_i",
    "b_plus": "Target b of + samples",
    "b_minus": "Target b of − samples",
    "m": "Rate constant m",
    "r0": "Initial R₁ = r0·I",
    "passes": "Passes",
    "b1": "Initial margins b(1)",
    "bound": "Show the paper's bound (computes ρ_K)",
    "mean": "Average over violated samples",
    "margin": "Margin type",
    "C": "Penalty C",
    "show_iterations": "Show interior-point iterates",
    "eps": "Accuracy ε",
    "delta": "Accuracy δ",
    "q": "Prox centre q",
    "gamma": "Width γ",
    "degree": "Degree k",
    "dim": "Random features D",
    "seed": "Random seed",
    "coef0": "Offset c",
    "c": "Offset c",
    "sigma": "Width σ",
}

#: Labels that depend on the owner: (owner name, parameter name) → label.
BY_OWNER: dict[tuple[str, str], str] = {
    ("relaxation", "eta"): "Relaxation factor η",
    ("batch-relaxation", "eta"): "Relaxation factor η",
    ("ho-kashyap", "eta"): "Step η",
    ("gradient-descent", "eta"): "Fixed step η (0: 1/λ_max)",
    ("isnkpvn", "gamma"): "Shrink factor γ",
    ("lp-feasibility", "b"): "Margin b > 0",
    ("lp-perceptron", "b"): "Margin b > 0",
    ("lms", "max_passes"): "Max passes (0: no limit)",
}


def human_label(spec: ParamSpec, owner: str = "") -> str:
    """The label a person reads for this parameter of `owner` (solver/kernel/φ-map name)."""
    if spec.label:
        return spec.label
    return BY_OWNER.get((owner, spec.name)) or BY_NAME.get(spec.name) or spec.name.replace("_", " ").capitalize()


__all__ = ["BY_NAME", "BY_OWNER", "human_label"]
