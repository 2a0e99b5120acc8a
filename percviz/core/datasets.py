"""Seeded generators reproducing exactly the data sets of the course notes (Duda–Hart–Stork ch. 5).

Every generator draws with `np.random.default_rng(seed)` in the notes' order, so the default seeds give
bit-for-bit the samples the notes print results for. Labels follow the notes and `PointSet`: label 0 is
ω₁ = class “+”, label 1 is ω₂ = class “−”.

One-dimensional examples live on the x-axis: the sample x becomes the point (x, 0). With the feature map
`linear1d` (φ = (1, x1)) the weight space is exactly the notes' (a0, a1) plane, so the weight-space view
draws their 2-D solution cone; with `linear` the third weight a2 is free and the cone is a wedge × R.

`DATASETS` maps a scene name to (function, one-line description); each function takes keyword arguments
with the notes' defaults and returns a `PointSet`. The Winnow stream is d-dimensional (d up to 2000), so
it is not a scene: `winnow_streams` returns plain arrays.
"""

from __future__ import annotations

from typing import Callable

import numpy as np

from percviz.core.data import PointSet
from percviz.core.errors import ParameterError

#: (w0, w1, w2) of the line the notes use to generate the separable data.
W_GEN = np.array([-1.7, -0.6, 1.0])
_MAX_ROUNDS = 1000


def _augment(X) -> np.ndarray:
    X = np.asarray(X, dtype=float)
    return np.column_stack([np.ones(len(X)), X])


def _check_seed(seed) -> int:
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0:
        raise ParameterError(f"A data-set seed must be a whole number ≥ 0. Got {seed!r} instead.")
    return int(seed)


def sample_side(r: np.random.Generator, mean, sd, m: int, side: int, gap: float) -> np.ndarray:
    """m Gaussian points on one side of the line W_GEN, at least `gap` from it (4m draws per round)."""
    out = np.empty((0, 2))
    for _ in range(_MAX_ROUNDS):
        if len(out) >= m:
            break
        X = r.normal(mean, sd, size=(4 * m, 2))
        dist = side * (_augment(X) @ W_GEN) / np.linalg.norm(W_GEN[1:])  # signed distance, notes' order
        out = np.vstack([out, X[dist > gap]])
    if len(out) < m:
        raise ParameterError(
            f"Only {len(out)} of {m} points landed more than gap = {gap:g} from the line after "
            f"{_MAX_ROUNDS} rounds; choose a smaller gap."
        )
    return out[:m]


def separable_arrays(seed: int = 1, gap: float = 0.3) -> tuple[np.ndarray, np.ndarray]:
    """The notes' `make_separable`: 40 ω₁, 30 ω₂ main cloud, 10 ω₂ far cluster, shuffled (X, labels)."""
    if not gap >= 0:
        raise ParameterError(f"The gap must be ≥ 0. Got {gap!r} instead.")
    r = np.random.default_rng(_check_seed(seed))
    X1 = sample_side(r, [3.0, 5.0], [1.2, 0.7], 40, +1, gap)
    X2 = sample_side(r, [3.0, 2.2], [1.2, 0.7], 30, -1, gap)
    X2f = sample_side(r, [6.0, -3.0], [0.5, 0.5], 10, -1, gap)
    X, labels = np.vstack([X1, X2, X2f]), np.r_[np.zeros(40, int), np.ones(40, int)]
    order = r.permutation(len(X))
    return X[order], labels[order]


def separable(seed: int = 1, gap: float = 0.3) -> PointSet:
    """The 80-sample separable set (the notes' Xs, labs; d̂ = 3 with the augmented map)."""
    return PointSet(*separable_arrays(seed, gap))


def hard_points(gap: float) -> tuple[np.ndarray, np.ndarray]:
    """The notes' four extra samples at distance `gap` from W_GEN: two ω₁ then two ω₂, 3 apart along it."""
    w = W_GEN[1:]
    n_hat = w / np.linalg.norm(w)
    u_line = np.array([n_hat[1], -n_hat[0]])
    x_line = -W_GEN[0] * w / (w @ w)
    X = np.array([x_line + s * 3 * u_line + side * gap * n_hat for side in (+1, -1) for s in (+1, -1)])
    return X, np.array([0, 0, 1, 1])


def thin_gap(gap: float = 0.1, seed: int = 1) -> PointSet:
    """The separable set plus four samples `gap` from the line: a thin solution cone (notes: 0.3, 0.1, 0.03)."""
    if not gap > 0:
        raise ParameterError(f"The gap must be > 0 (the samples must stay separable). Got {gap!r} instead.")
    X, lab = separable_arrays(seed)
    Xh, labh = hard_points(gap)
    return PointSet(np.vstack([X, Xh]), np.r_[lab, labh])


#: The notes' one-dimensional example: x = 1.0, 2.5 in ω₁ and −1.5, 0.2 in ω₂.
ONE_D_X = np.array([1.0, 2.5, -1.5, 0.2])
ONE_D_LABELS = np.array([0, 0, 1, 1])


def one_dimensional() -> PointSet:
    """The four 1-D samples on the x-axis at (x, 0); use the `linear1d` map for the (a0, a1) cone."""
    return PointSet(np.column_stack([ONE_D_X, np.zeros(4)]), ONE_D_LABELS)


def ring(seed: int = 21) -> PointSet:
    """30 ω₂ points in the disk r < 0.9 and 30 ω₁ points in the ring 1.3 < r < 2 (quadratic features)."""
    r = np.random.default_rng(_check_seed(seed))
    radius = np.r_[r.uniform(0.0, 0.9, 30), r.uniform(1.3, 2.0, 30)]
    angle = r.uniform(0, 2 * np.pi, 60)
    X = np.column_stack([radius * np.cos(angle), radius * np.sin(angle)])
    return PointSet(X, np.repeat([1, 0], 30))


def overlapping_gaussians(seed: int = 8) -> PointSet:
    """50 ω₁ from N((0, 1), I) then 50 ω₂ from N((1.5, −0.5), I): the notes' non-separable set."""
    r = np.random.default_rng(_check_seed(seed))
    X = np.vstack([r.normal([0.0, 1.0], 1.0, size=(50, 2)), r.normal([1.5, -0.5], 1.0, size=(50, 2))])
    return PointSet(X, np.repeat([0, 1], 50))


def xor() -> PointSet:
    """XOR: (1, 1), (−1, −1) in ω₁ and (1, −1), (−1, 1) in ω₂."""
    return PointSet(np.array([[1.0, 1.0], [-1.0, -1.0], [1.0, -1.0], [-1.0, 1.0]]), np.array([0, 0, 1, 1]))


def mse_five() -> PointSet:
    """The five-point pseudoinverse example of the MSE section (ω₁ first)."""
    X = np.array([[0.0, 1.0], [1.0, 3.0], [-1.0, 2.0], [2.0, 0.0], [3.0, 2.0]])
    return PointSet(X, np.array([0, 0, 0, 1, 1]))


def bayes_1d_arrays(seed: int = 41, sizes=(200, 2000, 200000)) -> list[tuple[np.ndarray, np.ndarray]]:
    """The notes' draws from p(x|ω₁) = N(1, 1), p(x|ω₂) = N(−1, 0.5²), equal priors: [(x, labels)] per size."""
    r = np.random.default_rng(_check_seed(seed))
    out = []
    for n_b in sizes:
        lab = r.integers(0, 2, n_b)
        x = np.where(lab == 0, r.normal(1.0, 1.0, n_b), r.normal(-1.0, 0.5, n_b))
        out.append((x, lab))
    return out


def bayes_1d(n: int = 200, seed: int = 41) -> PointSet:
    """The first sample (n = 200) of the 1-D two-Gaussian problem, on the x-axis (try poly:degree=3)."""
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or not 1 <= n <= 100000:
        raise ParameterError(f"n must be a whole number in [1, 100000]. Got {n!r} instead.")
    x, lab = bayes_1d_arrays(seed, (n,))[0]
    return PointSet(np.column_stack([x, np.zeros(n)]), lab)


def stochastic_stream_arrays(seed: int = 43, n: int = 20000) -> tuple[np.ndarray, np.ndarray]:
    """The stochastic-approximation stream: (x, labels) from the same 1-D problem, the notes' draw order."""
    r = np.random.default_rng(_check_seed(seed))
    lab = r.integers(0, 2, n)
    x = np.where(lab == 0, r.normal(1.0, 1.0, n), r.normal(-1.0, 0.5, n))
    return x, lab


def winnow_streams(seed: int = 31, dims=(20, 200, 2000), n: int = 3000) -> list[tuple[np.ndarray, np.ndarray]]:
    """Sparse binary streams, one per d in the notes' order: (augmented rows (1, x), z = ±1 labels).

    ω₁ (z = +1) when any of the first three features is on; the other d − 3 are irrelevant.
    """
    r = np.random.default_rng(_check_seed(seed))
    out = []
    for d in dims:
        Xb = (r.uniform(size=(n, d)) < 0.1).astype(float)
        Xb[:, :3] = r.uniform(size=(n, 3)) < 0.3
        z = np.where(Xb[:, :3].sum(axis=1) >= 1, 1, -1)
        out.append((_augment(Xb), z))
    return out


#: Scenes built from the notes' data: name → (function returning a PointSet, one-line description).
DATASETS: dict[str, tuple[Callable[..., PointSet], str]] = {
    "separable-80": (separable, "80 separable samples with a far ω₂ cluster (notes' make_separable, seed 1)"),
    "thin-gap": (thin_gap, "the 80 samples plus four points 0.1 from the line: a thin solution cone"),
    "one-dimensional": (one_dimensional, "four 1-D samples x = 1, 2.5 (+) and −1.5, 0.2 (−) on the x-axis"),
    "ring": (ring, "a disk (−) inside a ring (+): separable with quadratic features (seed 21)"),
    "overlapping-gaussians": (overlapping_gaussians, "two overlapping Gaussian classes of 50: not separable (seed 8)"),
    "xor": (xor, "the four XOR points: not linearly separable"),
    "mse-five": (mse_five, "the five-point pseudoinverse example of the MSE section"),
    "bayes-1d": (bayes_1d, "200 samples of N(1, 1) (+) vs N(−1, 0.25) (−) on the x-axis (seed 41)"),
}


#: The feature map each scene is meant for (others use the augmented linear map).
RECOMMENDED_FEATURES: dict[str, str] = {
    "one-dimensional": "linear1d",
    "ring": "quadratic",
    "bayes-1d": "poly:degree=3",
}


def make_dataset(name: str, **kwargs) -> PointSet:
    """Build a registered data set by name, e.g. make_dataset('thin-gap', gap=0.03)."""
    if name not in DATASETS:
        raise ParameterError(f"Unknown data set '{name}'. Known data sets: {', '.join(DATASETS)}.")
    fn = DATASETS[name][0]
    try:
        return fn(**kwargs)
    except TypeError as exc:
        raise ParameterError(f"Data set '{name}' does not take these arguments: {exc}.") from None
