"""The run caption the canvas shows (and the handout replays): algorithm, iteration, the margin by its name, outcome."""

from __future__ import annotations

import numpy as np

from percviz.core.glossary import MARGINS, margin_term, margin_text, outcome


def _fmt(value: float) -> str:
    return f"{value:.4g}" if abs(value) >= 1e-3 or value == 0 else f"{value:.2e}"


def algorithm_label(solver_cls) -> str:
    """A short name for the caption: the acronym in 'Normalized Kernel Perceptron (NKP)', else the display name."""
    if solver_cls is None:
        return ""
    name = solver_cls.display_name or solver_cls.name
    if name.endswith(")") and " (" in name:
        short = name[name.rindex(" (") + 2:-1]
        if short and short.replace("–", "").replace("-", "").isupper():
            return short
    return name


def run_caption(snapshot, solver_cls) -> tuple[str, str, str]:
    """(algorithm, 'iteration 37', 'margin 0.0123 · separator found') for the canvas caption."""
    algo = algorithm_label(solver_cls)
    if snapshot is None:
        return algo, "", ""
    details = []
    margin = margin_text(solver_cls, dict(snapshot.metrics), _fmt, snapshot.status)  # says which margin (core.glossary)
    if margin:
        details.append(margin)
    d_x = snapshot.metrics.get("input_margin")  # measured in the plane (the input-space SVM)
    if d_x is not None and np.isfinite(d_x):
        details.append(f"{MARGINS['input'].short} = {_fmt(d_x)}")
    if snapshot.status.done:
        details.append(outcome(snapshot.status, dict(snapshot.metrics)).words)
    return algo, f"iteration {snapshot.iteration}", "  ·  ".join(details)


def caption_lines(snapshot, solver_cls) -> list[str]:
    """The caption as one line, longest first, for less and less room: the outcome and the margin's symbol last.

    'iteration 48 · normalized margin m(α) = 0.0123 · separator found', …, 'separator found · m(α) = 0.0123',
    'separator found' (a running run's last is its margin)."""
    _algo, iteration, details = run_caption(snapshot, solver_cls)
    out = [t for t in ("  ·  ".join(x for x in (iteration, details) if x), details) if t]
    if snapshot is not None:
        value = snapshot.metrics.get("margin")
        short = ""
        if margin_text(solver_cls, dict(snapshot.metrics), _fmt, snapshot.status):  # one the caption shows (not w = 0)
            short = f"{margin_term(solver_cls).symbol} = {_fmt(value)}"
        words = outcome(snapshot.status, dict(snapshot.metrics)).words if snapshot.status.done else ""
        # the outcome before the bare margin: "certificate of non-separability" says more than "m(α) = −0.6454"
        out += [t for t in ("  ·  ".join(x for x in (words, short) if x), words or short) if t]
    return list(dict.fromkeys(out))


__all__ = ["algorithm_label", "caption_lines", "run_caption"]
