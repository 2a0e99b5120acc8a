"""Benchmark: the paper's algorithms at n = 100,000 with the affine kernel on the factored G (issue 13).

Run: python bench/bench_scale.py [n]            (default n = 100,000; the dense comparison is at n = 4,000)
Reports, for a set with ρ_K = 0 (bench_core.zero_margin: nothing stops early):
  - SNKP iterations/s and NKP updates/s at n (targets ≥ 100 and ≥ 10,000), medians over chunks of
    Solver.advance, bound=False; NKP's one-off set-up (the hull of the rows) is timed apart;
  - the same at n = 4,000 on the dense G and on the factored G, side by side (the ratio dense/factored);
  - reading an n-point CSV (core.presets.read_csv) and building the operator;
  - `percviz solve` on that CSV (SNKP and NKP, a fixed iteration limit, the bound metric on) in a subprocess
    with one BLAS thread: wall time and peak RSS (target < 500 MB). (With OpenBLAS's default threads on this
    loaded machine, each small O(n) BLAS call can wait ~10 ms for its second thread.)
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

from bench_core import zero_margin
from percviz.core.data import PointSet
from percviz.core.presets import read_csv, write_csv
from percviz.core.problem import Problem
from percviz.core.solvers import get_solver

BUDGET = 2.0  # seconds of timing per algorithm


def rate(problem: Problem, name: str, budget: float = BUDGET) -> tuple[float, float, int]:
    """(updates per second as the median over chunks, seconds of start + first update, updates timed)."""
    s = get_solver(name)(problem, max_iter=10**8, bound=False)
    t = time.perf_counter()
    s.start()
    s.advance(1)
    setup = time.perf_counter() - t
    per, done, chunk, t0 = [], 0, 1, time.perf_counter()
    while time.perf_counter() - t0 < budget and not s.done:
        before, t = s.iteration, time.perf_counter()
        s.advance(chunk)
        k = s.iteration - before
        if k:
            per.append((time.perf_counter() - t) / k)
        done += k
        chunk = min(chunk * 2, 512)
    return 1.0 / float(np.median(per)), setup, done


def cli_run(csv: Path, algorithm: str, max_iter: int) -> tuple[float, float, str]:
    """(wall seconds, peak RSS in MB, status) of `percviz solve` in a fresh process."""
    code = (
        "import resource, subprocess, sys, json, time; t = time.perf_counter(); "
        f"r = subprocess.run([sys.executable, '-m', 'percviz.cli', 'solve', {str(csv)!r}, '--algorithm', "
        f"{algorithm!r}, '--kernel', 'affine', '--max-iter', '{max_iter}', '--json'], capture_output=True, text=True); "
        "wall = time.perf_counter() - t; peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024; "
        "status = json.loads(r.stdout)['status'] if r.returncode == 0 else 'error: ' + r.stderr.strip(); "
        "print(wall, peak, status, sep='\\t')"
    )
    env = {**os.environ, "OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"}
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, env=env).stdout
    wall, peak, status = out.strip().split("\t")
    return float(wall), float(peak), status


def thin_margin(n: int, gap: float = 1e-3, seed: int = 0) -> Problem:
    """A separable set: uniform points in the square, labelled by a line, none within `gap` of it."""
    rng = np.random.default_rng(seed)
    X = rng.uniform(-1, 1, size=(2 * n, 2))
    s = X[:, 0] + 0.5 * X[:, 1] - 0.2
    X, s = X[np.abs(s) > gap][:n], s[np.abs(s) > gap][:n]
    return Problem(PointSet.from_signed(X, np.where(s > 0, 1.0, -1.0)), "affine")


def main(n: int) -> None:
    try:
        from threadpoolctl import threadpool_limits

        threadpool_limits(1)  # the shared 2-core machine: one BLAS thread times both paths alike
    except ImportError:
        pass
    print(f"n = {n:,}, affine kernel, ρ_K = 0 (nothing stops early), bound=False")
    big = zero_margin(n)
    t = time.perf_counter()
    gram = big.gram
    print(f"operator: {type(gram).__name__} {gram.n:,}×{gram.factor.shape[1]} built in {time.perf_counter() - t:.3f} s")
    for name, target in (("snkp", 100), ("nkp", 10_000)):
        r, setup, k = rate(big, name)
        print(f"  {name:<5} {r:>10,.0f} updates/s (target ≥ {target:,}; {k:,} timed; start + first update {setup:.2f} s)")
    print(f"n = {n:,}, a separable set with a gap of 1e-3 around its line (SNKP may stop early)")
    sep = thin_margin(n)
    for name in ("snkp", "nkp"):
        r, setup, k = rate(sep, name)
        print(f"  {name:<5} {r:>10,.0f} updates/s ({k:,} timed; start + first update {setup:.2f} s)")

    m = 4000
    print(f"n = {m:,}: dense G against the factored G (same points)")
    small = zero_margin(m)
    pair = {form: Problem(small.points, "affine", gram_form=form) for form in ("dense", "factored")}
    for name in ("snkp", "nkp"):
        rd, sd, _ = rate(pair["dense"], name, 1.0)
        rf, sf, _ = rate(pair["factored"], name, 1.0)
        print(f"  {name:<5} dense {rd:>10,.0f}/s  factored {rf:>10,.0f}/s  factored/dense {rf / rd:>7.1f}×"
              f"  (set-up {sd:.2f} s / {sf:.2f} s)")

    with tempfile.TemporaryDirectory() as tmp:
        csv = write_csv(big.points, Path(tmp) / "big.csv")
        t = time.perf_counter()
        pts = read_csv(csv)
        read = time.perf_counter() - t
        t = time.perf_counter()
        Problem(pts, "affine").gram
        print(f"CSV of {pts.n:,} points ({csv.stat().st_size / 2**20:.1f} MB): read {read:.2f} s, "
              f"operator {time.perf_counter() - t:.2f} s")
        for name, its in (("snkp", 500), ("nkp", 20_000)):
            wall, peak, status = cli_run(csv, name, its)
            print(f"  percviz solve --algorithm {name} --max-iter {its:,}: {wall:.1f} s, peak RSS {peak:,.0f} MB "
                  f"(target < 500), status {status}")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 100_000)
