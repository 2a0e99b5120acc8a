"""Shared pieces of the weight-vector procedures of Duda–Hart–Stork ch. 5 (not a solver module)."""

from __future__ import annotations

from typing import Callable

import numpy as np

from percviz.core.decision import FeatureLinear
from percviz.core.params import ParamSpec
from percviz.core.solvers.base import Solver, Status

#: The views every weight-vector procedure supports (the weight view handles d̂ ≤ 3).
WEIGHT_VIEWS = frozenset({"canvas", "curves", "weight", "feature"})

PERCEPTRON_FAMILY = "Perceptron rules (Duda–Hart–Stork)"
RELAXATION_FAMILY = "Relaxation"
LEAST_SQUARES_FAMILY = "Least squares"
HO_KASHYAP_FAMILY = "Ho–Kashyap"

MAX_PASSES = ParamSpec(
    "max_passes", int, 0, 0, 10**8, help="Stop after this many passes through the samples (0: no limit)."
)
MARGIN_VECTOR = ParamSpec(
    "margin_vector",
    "choice",
    "ones",
    choices=("ones", "fisher", "classes"),
    help="Targets b: all ones; Fisher's n/n₁ for + and n/n₂ for −; or b_plus and b_minus per class.",
)
B_PLUS = ParamSpec("b_plus", float, 1.0, 0, None, low_open=True, help="Target b_i of the + samples ('classes').")
B_MINUS = ParamSpec("b_minus", float, 1.0, 0, None, low_open=True, help="Target b_i of the − samples ('classes').")


def schedule(name: str, eta1: float, m: int = 1) -> Callable[[int], float]:
    """η(k) for k = 1, 2, …: 'constant' η₁; '1/k' η₁/k; '1/sqrt(k)' η₁/√k; 'k' η₁k; '1/(1+k/m)' η₁/(1 + k/m)."""
    if name == "constant":
        return lambda k: eta1
    if name == "1/k":
        return lambda k: eta1 / k
    if name == "1/sqrt(k)":
        return lambda k: eta1 * k**-0.5
    if name == "k":
        return lambda k: eta1 * float(k)
    if name == "1/(1+k/m)":
        return lambda k: eta1 / (1 + k / m)
    raise ValueError(f"unknown schedule {name!r}")


def margin_vector(solver: Solver) -> np.ndarray:
    """The margin vector b from the solver's margin_vector, b_plus and b_minus parameters."""
    v = solver.values
    y = solver.problem.y
    n = len(y)
    if v["margin_vector"] == "ones":
        return np.ones(n)
    if v["margin_vector"] == "fisher":  # DHS: b_i = n/n₁ on ω₁, n/n₂ on ω₂
        n1 = int((y > 0).sum())
        return np.where(y > 0, n / n1, n / (n - n1))
    return np.where(y > 0, v["b_plus"], v["b_minus"])


def stable_norm(a) -> float:
    """‖a‖ without overflow for huge components (points at 1e-300 need weights near 1e300)."""
    a = np.asarray(a, dtype=float)
    m = float(np.abs(a).max(initial=0.0))
    return m * float(np.linalg.norm(a / m)) if 0 < m < np.inf else float(np.linalg.norm(a))


def weight_metrics(Y: np.ndarray, a: np.ndarray, scores: np.ndarray | None = None) -> dict[str, float | None]:
    """‖a‖, training errors (a·y_i ≤ 0 counts as wrong) and the margin min_i a·y_i / ‖a‖."""
    s = Y @ a if scores is None else scores
    norm = stable_norm(a)
    return {
        "weight_norm": norm,
        "train_errors": int((s <= 0).sum()),
        "margin": float(s.min() / norm) if norm > 0 else None,
    }


def j_perceptron(scores: np.ndarray) -> float:
    """J_p = Σ over a·y ≤ 0 of −a·y."""
    return float(-scores[scores <= 0].sum())


def j_perceptron_margin(scores: np.ndarray, b) -> float:
    """J_p′ = Σ max(0, b − a·y): the perceptron criterion with margin (the notes' J_p_margin)."""
    return float(np.maximum(b - scores, 0.0).sum())


def initial_weights(warm_start) -> np.ndarray | None:
    """A finite warm-start vector, else None (start at 0)."""
    if warm_start is None:
        return None
    a = np.array(warm_start, dtype=float).ravel()
    return a if np.isfinite(a).all() else None


def start_weights(warm: np.ndarray | None, d: int) -> np.ndarray:
    """a(1): the warm start when it has the feature space's dimension d̂, else 0."""
    return warm.copy() if warm is not None and warm.shape == (d,) else np.zeros(d)


def state(solver: Solver, a: np.ndarray, metrics: dict, message: str = "", scores=None) -> dict:
    """A snapshot state for weight vector a: FeatureLinear decision, weights, the common metrics."""
    Y = solver.problem.Y
    m = weight_metrics(Y, a, scores)
    m.update(metrics)
    return {
        "decision": FeatureLinear(solver.problem.features, a),
        "weights": a,
        "metrics": m,
        "message": message,
    }


#: A weight component beyond this means the iteration is diverging (long before floats overflow).
DIVERGED = 1e100


def diverged(a: np.ndarray, solver: Solver | None = None) -> bool:
    """True when a has a non-finite or astronomically large component (with a solver: large scores |a_j|·max|φ_j|,
    the measure the base class applies to every run)."""
    if solver is not None:
        from percviz.core.solvers.base import _feature_size, _finite_and_tame

        return not _finite_and_tame(a, _feature_size(solver))
    return not np.isfinite(a).all() or float(np.abs(a).max(initial=0.0)) > DIVERGED


def separates(Y: np.ndarray, a: np.ndarray) -> bool:
    """True when every a·y_i > 0 (the notes' convention: a·y ≤ 0 is misclassified)."""
    return bool((Y @ a > 0).all())


class CyclicScan:
    """Cycles through the samples in stored order, finding the next one a single-sample rule corrects.

    `violates(scores)` marks the samples the rule would correct. `find(a)` scans on from the current
    position with a fixed (a only changes at a correction) and returns the index to correct next, or a
    reason to stop: 'fixpoint' (a whole pass without a correction), 'pass_end' (`pass_end_ok(scores)` held
    at the end of a pass, as relaxation checks), or 'max_passes'.
    """

    def __init__(self, n: int, violates, max_passes: int = 0, pass_end_ok=None):
        self.n = n
        self.violates = violates
        self.max_passes = max_passes
        self.pass_end_ok = pass_end_ok
        self.pass_no = 1  # the pass being scanned (1-based, as in the notes)
        self.pos = 0  # next sample to look at in this pass
        self.corrected_this_pass = False
        self.next: int | None = None
        self.scores: np.ndarray | None = None
        self._scored: np.ndarray | None = None  # the a that `scores` belong to

    def scores_of(self, Y: np.ndarray, a: np.ndarray) -> np.ndarray:
        """Y @ a, taken from the last find() when it scanned this same a (the snapshot's metrics reuse it)."""
        return self.scores if a is self._scored and self.scores is not None else Y @ a

    def find(self, Y: np.ndarray, a: np.ndarray) -> str | None:
        self.scores, self._scored = Y @ a, a
        viol = self.violates(self.scores)
        while True:
            idx = np.flatnonzero(viol[self.pos :])
            if idx.size:
                self.next = self.pos + int(idx[0])
                return None
            self.next = None  # pass `pass_no` ends with this a
            if self.pass_end_ok is not None and self.pass_end_ok(self.scores):
                return "pass_end"
            if not self.corrected_this_pass:
                return "fixpoint"  # the whole pass went by without a correction
            if self.max_passes and self.pass_no >= self.max_passes:
                return "max_passes"
            self.pass_no, self.pos, self.corrected_this_pass = self.pass_no + 1, 0, False

    def halt(self, Y: np.ndarray, a: np.ndarray) -> tuple[str | None, Status | None]:
        """find(), then the run's status: (reason to stop or None, SEPARATOR/CONVERGED/MAX_ITER or None)."""
        stop = self.find(Y, a)
        if stop is None:
            return None, None
        if bool((self.scores > 0).all()):  # separates(Y, a), on the scores just computed
            return stop, Status.SEPARATOR
        return stop, Status.MAX_ITER if stop == "max_passes" else Status.CONVERGED

    def corrected(self, i: int) -> None:
        """Record a correction of sample i; the scan continues after it."""
        self.pos = i + 1
        self.corrected_this_pass = True

    @property
    def passes_used(self) -> int:
        """Passes as the notes count them: the pass in which the run stopped."""
        return self.pass_no


class ScanPasses:
    """Mixin for solvers driven by a CyclicScan in `self.scan`: the pass count as the notes give it."""

    @property
    def passes(self) -> int:
        """Passes through the samples as the notes count them (the pass in which the run stopped)."""
        return self.scan.passes_used
