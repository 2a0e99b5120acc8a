"""Cover's function-counting theorem: how many labelings of n points a linear rule can realize.

For n points in general position in d dimensions, exactly C(n, d̂) = 2 Σ_{i=0}^{d̂−1} binom(n−1, i) of the 2ⁿ
labelings are linearly separable with a bias, d̂ = d + 1 weights (T. M. Cover, 1965; the notes' LP section).
The simulations decide separability with the notes' min-τ linear program, whose optimum is 0 or 1.
"""

from __future__ import annotations

import itertools
import time
from dataclasses import dataclass
from math import comb, sqrt

import numpy as np

from percviz.core.certify import unit_rows
from percviz.core.errors import ParameterError

#: Seconds one labeling's LP may take before it counts as undecided (a row of the table says how many were).
LP_TIME_LIMIT = 10.0


def _check(n: int, d_hat: int) -> None:
    for name, v, low in (("n", n, 0), ("d_hat", d_hat, 1)):
        if isinstance(v, bool) or not isinstance(v, (int, np.integer)) or v < low:
            raise ParameterError(f"{name} must be a whole number ≥ {low}. Got {v!r} instead.")


def separable_dichotomies(n: int, d_hat: int) -> int:
    """C(n, d̂) = 2 Σ_{i=0}^{d̂−1} binom(n−1, i): linearly separable labelings of n points in general position."""
    _check(n, d_hat)
    if n == 0:
        return 1  # the empty labeling
    return 2 * sum(comb(n - 1, i) for i in range(d_hat))


def separable_fraction(n: int, d_hat: int) -> float:
    """C(n, d̂)/2ⁿ, the notes' `cover_fraction`: 1 for n ≤ d̂, exactly ½ at n = 2d̂ (the capacity)."""
    return separable_dichotomies(n, d_hat) / 2**n


def capacity(d_hat: int) -> int:
    """n = 2d̂, where half of all labelings are separable."""
    _check(0, d_hat)
    return 2 * d_hat


def is_separable(X, labels) -> bool:
    """Whether the labelled points are linearly separable with a bias: the notes' LP test min τ < ½."""
    X = np.asarray(X, dtype=float)
    labels = np.asarray(labels)
    Y = np.column_stack([np.ones(len(X)), X])
    Y = np.where((labels == 0)[:, None], Y, -Y)
    return separable_rows(Y) is True


def separable_rows(Y, time_limit: float = LP_TIME_LIMIT) -> bool | None:
    """Is there an a with a·y_i > 0 for every row y_i?  True, False, or None when the LP cannot decide.

    The LP max t s.t. Z a ≥ t·1, −1 ≤ a ≤ 1, t ≤ 1 runs on the scale-free rows Z (columns scaled to max |·| = 1,
    then rows to unit length: the same answer, and well posed for φ-maps whose columns differ by many orders, e.g.
    x1¹² beside 1); True only when its a, taken back to Y's columns, separates Y in floating point, False when
    the optimum is 0 to the LP's tolerance. The dual simplex first, the interior point method when it trips.
    """
    from scipy.optimize import linprog

    Y = np.asarray(Y, dtype=float)
    if not np.isfinite(Y).all():
        return None
    Z, D = unit_rows(Y)
    n, m = Z.shape
    if (np.abs(Z).sum(axis=1) == 0).any():
        return False  # a zero row: a·0 > 0 is impossible
    c = np.r_[np.zeros(m), -1.0]
    A = np.column_stack([-Z, np.ones(n)])
    bounds = [(-1.0, 1.0)] * m + [(None, 1.0)]
    for method in ("highs-ds", "highs-ipm"):
        res = linprog(c, A_ub=A, b_ub=np.zeros(n), bounds=bounds, method=method,
                      options={"time_limit": float(time_limit)})
        if res.status != 0 or res.x is None:
            continue
        t = -float(res.fun)
        if t > 1e-9 and (Y @ (D * res.x[:m]) > 0).all():
            return True
        if t <= 1e-9:
            return False
    return None


def count_separable_labelings(X) -> int:
    """Brute force over all 2ⁿ labelings of the points X (n ≤ 16): how many are separable (by the LP)."""
    X = np.asarray(X, dtype=float)
    if len(X) > 16:
        raise ParameterError(f"Counting all 2ⁿ labelings needs n ≤ 16 points; got {len(X)}.")
    return sum(is_separable(X, np.array(lab)) for lab in itertools.product((0, 1), repeat=len(X)))


@dataclass(frozen=True)
class CoverRow:
    """One line of the notes' table: simulated separable fraction, its standard error, Cover's value."""

    n: int
    fraction: float
    std_error: float
    formula: float
    trials: int = 0
    #: labelings the LP could not decide (not counted in `fraction`, which is over the decided ones)
    undecided: int = 0

    @property
    def formula_std_error(self) -> float:
        """√(f(1 − f)/trials) with f the formula: the spread the simulation should show if Cover is right."""
        return sqrt(self.formula * (1 - self.formula) / self.trials) if self.trials else float("nan")


def simulate(ns=(3, 4, 6, 8, 10), trials: int = 250, seed: int = 77, d: int = 2) -> list[CoverRow]:
    """The notes' experiment: for each n, label `trials` sets of N(0, I) points at random and test them by LP.

    The draws follow the notes' order (points, then labels, from one generator), so the default arguments
    reproduce the printed fractions 1.000, 0.880, 0.476, 0.184, 0.068.
    """
    if isinstance(trials, bool) or not isinstance(trials, (int, np.integer)) or trials < 1:
        raise ParameterError(f"trials must be a whole number ≥ 1. Got {trials!r} instead.")
    rng = np.random.default_rng(seed)
    rows = []
    for n in ns:
        _check(n, d + 1)
        hits = 0
        for _ in range(trials):
            X = rng.normal(size=(n, d))
            lab = rng.integers(0, 2, n)
            hits += is_separable(X, lab)
        frac = hits / trials
        rows.append(CoverRow(int(n), frac, sqrt(frac * (1 - frac) / trials), separable_fraction(int(n), d + 1), trials))
    return rows


def feature_dimension(features: str) -> int:
    """d̂ of a φ-map spec: the number of weights (the length of φ(x))."""
    from percviz.core.features import parse_features

    return int(np.asarray(parse_features(features).transform(np.zeros((1, 2)))).shape[1])


def is_separable_rows(Phi, labels) -> bool:
    """Whether a·φ(x_i) has the sign of the label for some a (homogeneous in φ): the LP test min τ < ½."""
    Phi = np.asarray(Phi, dtype=float)
    Y = np.where((np.asarray(labels) == 0)[:, None], Phi, -Phi)
    return separable_rows(Y) is True


#: Labelings per Cover run (one task of a pool or a Dask cluster); each run draws from its own seed [seed, n, k].
CHUNK = 50


def cover_runs(ns, trials: int) -> dict[tuple[int, int], tuple[int, int]]:
    """{(n, k): (n, labelings of run k)}: the runs of a simulation, CHUNK labelings each (the last fewer)."""
    if isinstance(trials, bool) or not isinstance(trials, (int, np.integer)) or trials < 1:
        raise ParameterError(f"trials must be a whole number ≥ 1. Got {trials!r} instead.")
    runs = {}
    for n in ns:
        for k in range(-(-int(trials) // CHUNK)):
            runs[(int(n), k)] = (int(n), min(CHUNK, int(trials) - k * CHUNK))
    return runs


def cover_run(features: str, n: int, k: int, count: int, seed: int,
              stop_at: float | None = None) -> tuple[int, int, int]:
    """Run k at n: (separable, drawn, undecided) of `count` labelings of N(0, I) points mapped by φ, from seed
    [seed, n, k]; an undecided labeling (the LP ran out of time or stalled) is drawn but neither separable nor not.

    With `stop_at` (a time.time() instant) it stops drawing once that has passed: the labelings drawn are
    the first ones of the full run, so a stopped run is a prefix of the run anywhere else.
    """
    from percviz.core.features import parse_features

    fmap = parse_features(features)
    rng = np.random.default_rng([int(seed), int(n), int(k)])
    hits = drawn = undecided = 0
    while drawn < count and (stop_at is None or drawn == 0 or time.time() < stop_at):
        Phi = np.asarray(fmap.transform(rng.normal(size=(int(n), 2))), dtype=float)
        lab = rng.integers(0, 2, int(n))
        verdict = separable_rows(np.where((lab == 0)[:, None], Phi, -Phi))
        hits += verdict is True
        undecided += verdict is None
        drawn += 1
    return int(hits), drawn, int(undecided)


def cover_row(n: int, hits: int, trials: int, d_hat: int, undecided: int = 0) -> CoverRow:
    """The row of n from its separable count over `trials` labelings drawn, `undecided` of which the LP left open
    (the fraction is over the decided ones; `trials` of the row counts those)."""
    decided = trials - undecided
    frac = hits / decided if decided else float("nan")
    err = sqrt(frac * (1 - frac) / decided) if decided else float("nan")
    return CoverRow(int(n), frac, err, separable_fraction(int(n), d_hat), decided, undecided)


def simulate_features(ns, features: str = "quadratic", trials: int = 200, seed: int = 0) -> list[CoverRow]:
    """Cover's count through a φ-map: N(0, I) points in the plane, mapped by φ, labelled at random, LP-tested.

    The images φ(x_i) of random points are in general position in R^d̂ (d̂ = len φ; e.g. six points lie on
    no common conic), so the formula with that d̂ applies. features="linear" is the notes' plane, d̂ = 3.
    """
    return list(iter_simulate_features(ns, features, trials, seed))


def iter_simulate_features(ns, features: str = "quadratic", trials: int = 200, seed: int = 0):
    """simulate_features one row at a time (a background worker yields between rows), its runs here in order."""
    d_hat = feature_dimension(features)
    for n in ns:
        _check(n, d_hat)
    ns = list(dict.fromkeys(int(n) for n in ns))  # one row per distinct n
    runs = cover_runs(ns, trials)
    hits: dict[int, int] = {}
    open_: dict[int, int] = {}
    for (n, k), (_, count) in runs.items():
        found, _drawn, undecided = cover_run(features, n, k, count, seed)
        hits[n] = hits.get(n, 0) + found
        open_[n] = open_.get(n, 0) + undecided
        if k == (int(trials) - 1) // CHUNK:
            yield cover_row(n, hits[n], int(trials), d_hat, open_[n])
