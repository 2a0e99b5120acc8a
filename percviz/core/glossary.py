"""One glossary of the margins and run outcomes percviz shows: names, symbols and formulas every label reads.

Several different numbers are all "a margin" (MARGINS lists each) (Ramdas & Peña §3; Duda–Hart–Stork §5.4; the SVM):
- the normalized margin of a kernel iterate α: m(α) = min_i (Gα)_i / ‖α‖_G (what the kernel perceptrons report);
- the optimal margin ρ_K = sup_{‖α‖_G = 1} min_i (Gα)_i of the whole data set (> 0 iff separable; the best m(α));
- the geometric margin of an explicit weight vector a in φ-space: γ(a) = min_i a·y_i / ‖a‖;
- the SVM's margin 1/‖w‖: the distance in feature space from f = 0 to the margin lines f = ±1;
and, for multi-class machines, min_i (w_{y_i} − max_{j≠y_i} w_j)·φ(x_i) / ‖W‖.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class MarginTerm:
    """One kind of margin: its key, name, symbol, formula and a sentence for tooltips and the help page."""

    key: str
    name: str
    symbol: str
    formula: str
    meaning: str

    @property
    def short(self) -> str:
        """How a value is introduced in a caption or status line: 'normalized margin m(α)'."""
        return f"{self.name} {self.symbol}"

    @property
    def tooltip(self) -> str:
        return f"{self.name[0].upper()}{self.name[1:]}: {self.symbol} = {self.formula}. {self.meaning}"


MARGINS: dict[str, MarginTerm] = {
    t.key: t
    for t in (
        MarginTerm(
            "normalized", "normalized margin", "m(α)", "min_i (Gα)_i / ‖α‖_G",
            "The margin of the current kernel iterate α (Ramdas & Peña §3): positive exactly when every point is on "
            "its side; it never exceeds ρ_K.",
        ),
        MarginTerm(
            "rho", "optimal margin", "ρ_K", "sup_{‖α‖_G = 1} min_i (Gα)_i",
            "The best normalized margin any α can reach on these points with this kernel: > 0 iff they are "
            "separable, < 0 minus the radius of the largest G-ball in their hull otherwise.",
        ),
        MarginTerm(
            "geometric", "geometric margin", "γ(a)", "min_i a·y_i / ‖a‖",
            "The margin of an explicit weight vector a in φ-space (y_i the signed, augmented φ(x_i)): the distance "
            "from the closest point to the hyperplane a·y = 0 there.",
        ),
        MarginTerm(
            "svm", "SVM margin", "γ(w)", "min_i y_i f(x_i) / ‖w‖ (= 1/‖w‖ at the hard-margin optimum, f = ±1 on the lines)",
            "The distance in feature space from the closest point to the SVM's hyperplane f = 0, negative when a "
            "point is misclassified. At the hard-margin optimum it is 1/‖w‖, half the band's width; it is not ρ_K "
            "(that normalizes each point by √K(x, x)).",
        ),
        MarginTerm(
            "multiclass", "multi-class margin", "γ(W)", "min_i (w_{y_i} − max_{j≠y_i} w_j)·φ(x_i) / ‖W‖",
            "How far the worst point is from being assigned another class, per unit norm of all the weights.",
        ),
        MarginTerm(
            "input", "input-space distance", "d_x", "min_i distance from x_i to the curve f = 0 in the plane",
            "The distance on the canvas itself; for a non-linear kernel it differs from every margin above.",
        ),
    )
}


def margin_term(solver_cls: Any) -> MarginTerm:
    """What the `margin` metric of this solver class means (a class may say so in `margin_kind`)."""
    kind = getattr(solver_cls, "margin_kind", None)
    if kind in MARGINS:
        return MARGINS[kind]
    if isinstance(getattr(solver_cls, "margin_level", None), (int, float)):
        return MARGINS["svm"]
    rep = getattr(solver_cls, "representation", "kernel")
    return MARGINS["geometric" if rep == "features" else "multiclass" if rep == "multiclass" else "normalized"]


@dataclass(frozen=True)
class Outcome:
    """How one run status is worded and which colour role shows it (the app maps roles to colours)."""

    key: str
    words: str
    role: str  # "neutral", "success", "certificate", "proof", "info", "warning", "error"
    meaning: str


#: Every status a run can end in, worded for the audience; `diverged` is listed ahead of the solvers using it.
OUTCOMES: dict[str, Outcome] = {
    o.key: o
    for o in (
        Outcome("running", "running", "neutral", "The algorithm has not stopped yet."),
        Outcome("separator", "separator found", "success", "Checked: every training point is strictly on its side."),
        Outcome("certificate", "certificate of non-separability", "certificate",
                "A distribution p over the points with ‖p‖_G under the tolerance: 0 is (nearly) in their hull."),
        Outcome("nonseparable", "proof of non-separability", "proof",
                "An exact proof that no separator exists (Ho–Kashyap e ≤ 0, or an LP with τ > 0)."),
        Outcome("converged", "converged (not separating)", "info",
                "The optimizer reached its optimum; this is no claim that the points are separated."),
        Outcome("max_iter", "iteration limit", "warning", "Stopped by the iteration limit: nothing was decided."),
        Outcome("diverged", "diverged", "error", "The iterates grew without bound or became non-finite."),
    )
}


def outcome(status: Any, metrics: dict | None = None) -> Outcome:
    """The wording of a status (an enum member or its value); 'converged' says whether the result separates."""
    key = getattr(status, "value", status)
    out = OUTCOMES.get(str(key)) or Outcome(str(key), str(key).replace("_", " "), "neutral", "")
    if out.key == "converged" and metrics is not None and metrics.get("train_errors") == 0:
        return Outcome(out.key, "converged (every point on its side)", out.role, out.meaning)
    return out


#: Below this ‖w‖·max‖φ(x_i)‖ (how far w moves f across the points, in units of the margin lines f = ±1) an
#: SVM's optimum counts as w = 0 (f constant: no boundary to draw). ‖w‖ alone is not scale-free: points at 1e3
#: with a cubic kernel have ‖w‖ ≈ 1e-9 and a boundary all the same.
ZERO_W = 1e-6


#: What an SVM's iteration 0 is (its w = 0 is the start, not an optimum).
SVM_START = ("Iteration 0 is the start, before any update: α = 0, so w = 0 and f is constant "
             "(no boundary yet). Step or Play to optimise.")


def degenerate_note(solver_cls: Any, metrics: dict, iteration: int | None = None) -> str:
    """A sentence when the result cannot be drawn as a boundary (an SVM with w = 0), else ''; at iteration 0 it
    says that this is the start (w = 0 before any step), not an optimum."""
    if margin_term(solver_cls).key == "svm":
        wn = metrics.get("weight_reach", metrics.get("weight_norm"))
        if wn is not None and wn < ZERO_W:
            if iteration == 0:
                return SVM_START
            return ("w = 0: the SVM's optimum is a constant f(x) = b, so there is no boundary and no margin "
                    "(no linear separator does better on these points: try another kernel).")
    return ""


def margin_text(solver_cls: Any, metrics: dict, fmt=lambda v: f"{v:.4g}", status: Any = None) -> str:
    """'normalized margin m(α) = 0.21' for a status line or caption ('' when there is none to show: no value, an
    SVM's w = 0, or a diverged run, which claims nothing)."""
    value = metrics.get("margin")
    if value is None or value != value or degenerate_note(solver_cls, metrics):
        return ""
    if str(getattr(status, "value", status)) == "diverged":
        return ""
    return f"{margin_term(solver_cls).short} = {fmt(value)}"


__all__ = ["MARGINS", "OUTCOMES", "SVM_START", "MarginTerm", "Outcome", "ZERO_W", "degenerate_note", "margin_term", "margin_text",
           "outcome"]
