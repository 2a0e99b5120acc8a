"""Benchmark: iterations against n at a fixed margin, n = 10 … 100,000 (issue 13: the paper's √(log n) made visible).

Run: python bench/bench_sweep_n.py [margin] [max n]      (defaults 0.05 and 100,000; one BLAS thread)
The 'fixed' family has ρ_K = margin exactly at every n (affine kernel; above 1000 points G is factored, n×3).
Reports, per n: the certified ρ_K and the seconds it took; per algorithm the iterations to a separator, the
bound (SNKP 2√(2 log n)/ρ_K, NKP and the Normalized Perceptron 1/ρ_K², the perceptron Novikoff R²/ρ²),
iterations/bound and the solver's seconds; then the slopes of log iterations on log √(log n) (1: ∝ √log n,
0: flat in n) and the wall time of the whole sweep with 2 processes against 1 in the same run.
"""

from __future__ import annotations

import os
import sys
import time

for var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(var, "1")  # before numpy: the spawned workers inherit it too

from percviz.core import gram  # noqa: E402
from percviz.core.experiments import FAMILIES, SweepSpec, run_sweep  # noqa: E402
from percviz.core.problem import Problem  # noqa: E402

ALGORITHMS = ("snkp", "nkp", "normalized-perceptron", "perceptron")


def ladder(top: int) -> tuple[int, ...]:
    """10, 30, 100, 300, … up to top (1–3 steps per decade)."""
    out, k = [], 0
    while True:
        n = (10, 30)[k % 2] * 10 ** (k // 2)
        if n > top:
            return tuple(out) if out[-1] == top else (*out, top)
        out.append(n)
        k += 1


def main(margin: float, top: int) -> None:
    ns = ladder(top)
    print(f"fixed family, ρ_K = {margin} at every n, affine kernel, n = {', '.join(f'{n:,}' for n in ns)}")
    print(f"{'n':>8} {'rho_K (certified)':>18} {'rho s':>6}")
    for n in ns:
        t = time.perf_counter()
        m = gram.optimal_margin(Problem(FAMILIES["fixed"].scene(margin, 0, n), "affine"))
        print(f"{n:8,d} {m.rho:18.12f} {time.perf_counter() - t:6.2f}")
    spec = SweepSpec(ALGORITHMS, "fixed", levels=(margin,), ns=ns)
    walls, results = {}, {}
    for workers in (1, 2):
        t = time.perf_counter()
        results[workers] = run_sweep(spec, workers=workers)
        walls[workers] = time.perf_counter() - t
    print(f"{'n':>8} {'algorithm':<22} {'iterations':>10} {'bound':>9} {'it/bound':>8} {'seconds':>8}")
    result = results[1]  # the serial run's records: its seconds share no core with another process
    for r in result.runs:
        print(f"{r.n:8,d} {r.algorithm:<22} {r.iterations:10d} {r.bound:9.1f} {r.iterations / r.bound:8.3f} "
              f"{r.seconds:8.3f}  {r.status}")
    for a, s in result.slopes.items():
        print(f"slope of log iterations on log √(log n), {a:<22} {round(s.slope, 3) + 0.0:6.3f} over {s.points} runs")
    print(f"whole sweep ({len(ns)} sets × {len(ALGORITHMS)} algorithms, ρ_K included): "
          f"{walls[2]:.1f} s with 2 processes, {walls[1]:.1f} s with 1 ({walls[1] / walls[2]:.2f}×)")
    print(f"largest n = {ns[-1]:,}: " + ", ".join(f"{r.algorithm} {r.seconds:.2f} s"
                                                 for r in result.runs if r.n == ns[-1]))


if __name__ == "__main__":
    main(float(sys.argv[1]) if len(sys.argv) > 1 else 0.05, int(sys.argv[2]) if len(sys.argv) > 2 else 100_000)
