"""Benchmark: iterations against n at a fixed margin, n = 10 … 100,000 (issue 13: the paper's √(log n) made visible).

Run: python bench/bench_sweep_n.py [margin] [max n]      (defaults 0.05 and 100,000; one BLAS thread)
     python bench/bench_sweep_n.py backends [margin] [max n]   (SNKP, NKP, perceptron: the local process pool
     of 2 against a two-worker distributed.LocalCluster; wall time and each worker's peak RSS; one run each)
The 'fixed' family has ρ_K = margin exactly at every n (affine kernel; above 1000 points G is factored, n×3).
Reports, per n: the certified ρ_K and the seconds it took; per algorithm the iterations to a separator, the
bound (SNKP 2√(2 log n)/ρ_K, NKP and the Normalized Perceptron 1/ρ_K², the perceptron Novikoff R²/ρ²),
iterations/bound and the solver's seconds; then the slopes of log iterations on log √(log n) (1: ∝ √log n,
0: flat in n) and the wall time of the whole sweep with 2 processes against 1 in the same run.
"""

from __future__ import annotations

import os
import resource
import sys
import time

for var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(var, "1")  # before numpy: the spawned workers inherit it too

from percviz.core import gram  # noqa: E402
from percviz.core.experiments import FAMILIES, SweepSpec, run_sweep  # noqa: E402
from percviz.core.experiments.runners import run_all  # noqa: E402
from percviz.core.experiments.sweep import run_task, sort_runs  # noqa: E402
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


def _task_with_peak(spec, *task):
    """run_task, and the worker's (pid, peak RSS in MiB) after it: the worker's high-water mark so far."""
    records = run_task(spec, *task)
    return records, os.getpid(), resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def _run(spec, **how):
    """(wall seconds, records, {worker pid: peak MiB}) of the sweep through runners.run_all."""
    tasks = sorted(spec.tasks(), key=lambda t: -t[3])
    t = time.perf_counter()
    records, peaks = [], {}
    for key, (recs, pid, peak) in run_all(_task_with_peak, {t[0]: (spec, *t) for t in tasks}, workers=2, **how):
        print(f"  n = {recs[0].n:>9,d} done at {time.perf_counter() - t:7.1f} s on worker {pid} "
              f"(peak so far {peak:.0f} MiB)", flush=True)
        records.extend(recs)
        peaks[pid] = max(peaks.get(pid, 0.0), peak)
    return time.perf_counter() - t, sort_runs(spec, records), peaks


def backends(margin: float, top: int) -> None:
    """The same sweep on the local pool and on a two-worker LocalCluster: wall time, peak RSS per worker."""
    from distributed import Client, LocalCluster

    spec = SweepSpec(("snkp", "nkp", "perceptron"), "fixed", levels=(margin,), ns=ladder(top))
    print(f"fixed family, ρ_K = {margin}, n = {', '.join(f'{n:,}' for n in spec.ns)}; SNKP, NKP, perceptron")
    print("local process pool (2 spawned processes):")
    wall_pool, runs_pool, peaks_pool = _run(spec, backend="processes")
    print("distributed.LocalCluster (2 worker processes, 1 thread each, 127.0.0.1):")
    t = time.perf_counter()
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None,
                      host="127.0.0.1") as cluster, Client(cluster) as client:
        print(f"  cluster up in {time.perf_counter() - t:.1f} s (not in its wall time below)")
        wall_dask, runs_dask, peaks_dask = _run(spec, client=client)
    same = runs_pool == runs_dask
    print(f"{'backend':<26} {'wall s':>8}  peak RSS per worker (MiB)")
    for name, wall, peaks in (("local process pool", wall_pool, peaks_pool), ("LocalCluster", wall_dask, peaks_dask)):
        print(f"{name:<26} {wall:8.1f}  " + ", ".join(f"{p:.0f}" for p in sorted(peaks.values())))
    print(f"records identical run for run: {same} ({len(runs_pool)} runs)")
    for a, b in zip(runs_pool, runs_dask):
        if a != b:
            diff = {k: (v, getattr(b, k)) for k, v in a.as_dict().items() if k != "seconds" and v != getattr(b, k)}
            print(f"  differs at n = {a.n:,}, {a.algorithm}: {diff}")
    for r in runs_pool:
        if r.n == spec.ns[-1]:
            print(f"  n = {r.n:,}: {r.algorithm} {r.iterations} iterations (bound {r.bound if r.bound is None else round(r.bound, 1)}), {r.seconds:.1f} s, "
                  f"ρ_K = {r.rho:.9f}")


if __name__ == "__main__" and sys.argv[1:2] == ["backends"]:
    backends(float(sys.argv[2]) if len(sys.argv) > 2 else 0.05, int(sys.argv[3]) if len(sys.argv) > 3 else 1_000_000)
elif __name__ == "__main__":
    main(float(sys.argv[1]) if len(sys.argv) > 1 else 0.05, int(sys.argv[2]) if len(sys.argv) > 2 else 100_000)
