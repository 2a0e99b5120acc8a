"""Benchmark: µs per iteration of the paper's algorithms against one dense G·v product.

Run: python bench/bench_core.py [n ...]       (default n = 100, 1000, 4000)
For each n, a set with ρ_K = 0 (a separable cloud plus one point repeated with the other label; affine
kernel, G dense n×n) keeps every algorithm running. Columns:
  update    µs per update without snapshots (Solver.advance), the algorithm's own cost;
  step      µs per update including the immutable snapshot (Solver.step), what the GUI pays;
  ×G·v      both divided by the median time of one dense product G @ v at the same n, measured just
            before each algorithm (the machine is shared: medians over chunks of updates).
Targets (issue 2): SNKP/SNKPVN ≤ 1.5 × one G·v; NKP/NVN ≤ 0.1 × one G·v at n = 4000.
The ρ_K computation for the `bound` metric is switched off (bound=False): it is a one-off QP.
BLAS runs single-threaded (threadpoolctl) so that G·v and the algorithms are timed alike.
"""

from __future__ import annotations

import sys
import time

import numpy as np

from percviz.core.data import PointSet
from percviz.core.problem import Problem
from percviz.core.solvers import get_solver

ALGORITHMS = {
    "perceptron": {},
    "normalized-perceptron": {},
    "kernel-perceptron": {},
    "nkp": {},
    "snkp": {},
    "nvn": {"eps": 1e-6},
    "snkpvn": {"delta": 1e-6},
    "isnkpvn": {"eps": 1e-6},
}
BUDGET = 0.6  # seconds of timing per algorithm and mode


def zero_margin(n: int, seed: int = 0) -> Problem:
    """A separable cloud plus one of its points again with the other label: ρ_K = 0, so nothing stops early."""
    rng = np.random.default_rng(seed)
    X = rng.uniform(-1, 1, size=(3 * n, 2))
    X = X[np.abs(X[:, 0] - X[:, 1]) > 0.1][: n - 1]
    y = np.where(X[:, 0] > X[:, 1], 1.0, -1.0)
    return Problem(PointSet.from_signed(np.vstack([X, X[:1]]), np.r_[y, -y[:1]]), kernel="affine")


def gv_seconds(G: np.ndarray, reps: int = 15) -> float:
    """Median time of one dense G @ v."""
    v = np.random.default_rng(1).random(G.shape[0])
    G @ v
    ts = []
    for _ in range(reps):
        t = time.perf_counter()
        G @ v
        ts.append(time.perf_counter() - t)
    return float(np.median(ts))


def per_update(problem: Problem, name: str, params: dict, with_snapshots: bool) -> tuple[float, int]:
    """Median seconds per update over chunks of updates (about BUDGET seconds), and the updates timed.

    A run that stops (e.g. NVN certifying) is restarted outside the timed region.
    """
    cls = get_solver(name)
    extra = {"bound": False} if "bound" in cls.params.names() else {}

    def fresh():
        s = cls(problem, max_iter=10**8, **extra, **params)
        s.start()
        return s

    s = fresh()
    done, per, t0, chunk = 0, [], time.perf_counter(), 1
    while time.perf_counter() - t0 < BUDGET:
        if s.done:
            s = fresh()
        before, t = s.iteration, time.perf_counter()
        if with_snapshots:
            for _ in range(chunk):
                s.step()
        else:
            s.advance(chunk)
        k = s.iteration - before
        if k:
            per.append((time.perf_counter() - t) / k)
        done += k
        chunk = min(chunk * 2, 64)
    return float(np.median(per)) if per else float("nan"), done


def main(sizes: list[int]) -> None:
    try:  # one BLAS thread: on a shared 2-core machine a second thread makes G·v times erratic
        from threadpoolctl import threadpool_limits

        threadpool_limits(1)
        print("BLAS threads: 1")
    except ImportError:
        print("BLAS threads: library default (threadpoolctl not installed)")
    print(f"{'n':>6} {'algorithm':<22} {'update µs':>11} {'×G·v':>7} {'step µs':>11} {'×G·v':>7} {'updates':>8}")
    for n in sizes:
        pr = zero_margin(n)
        G = np.asarray(pr.G)
        print(f"{n:>6} {'one dense G·v':<22} {gv_seconds(G) * 1e6:>11.1f}")
        for name, params in ALGORITHMS.items():
            gv = gv_seconds(G)
            up, k = per_update(pr, name, params, with_snapshots=False)
            st, _ = per_update(pr, name, params, with_snapshots=True)
            print(f"{n:>6} {name:<22} {up * 1e6:>11.1f} {up / gv:>7.3f} {st * 1e6:>11.1f} {st / gv:>7.3f} {k:>8}")
        sys.stdout.flush()


if __name__ == "__main__":
    main([int(a) for a in sys.argv[1:]] or [100, 1000, 4000])
