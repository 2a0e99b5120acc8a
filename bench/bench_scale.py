"""Benchmark: the paper's algorithms at n = 100,000 with the affine kernel on the factored G (issue 13).

Run: python bench/bench_scale.py [n]            (default n = 100,000; the dense comparison is at n = 4,000)
     python bench/bench_scale.py rbf [n ...]    (the dense RBF G, default n = 2,000, 5,000, 10,000; see rbf_main)
Reports, for a set with ρ_K = 0 (bench_core.zero_margin: nothing stops early):
  - SNKP iterations/s and NKP updates/s at n (targets ≥ 100 and ≥ 10,000), medians over chunks of
    Solver.advance, bound=False; NKP's one-off set-up (the hull of the rows) is timed apart;
  - the same at n = 4,000 on the dense G and on the factored G, side by side (the ratio dense/factored);
  - reading an n-point CSV (core.presets.read_csv) and building the operator;
  - `percviz solve` on that CSV (SNKP and NKP, a fixed iteration limit, the bound metric on) in a subprocess
    with one BLAS thread: wall time and peak RSS (target < 500 MB). (With OpenBLAS's default threads on this
    loaded machine, each small O(n) BLAS call can wait ~10 ms for its second thread.)
With `rbf`, for the RBF kernel (dense G, core.dense_gram), side by side in one run:
  - building G: the previous whole-matrix build, in place in float64 and in float32, each in a fresh process
    (seconds and peak RSS), the first SNKP step of a new scene (start + one update; float32 above 4096 points),
    and, for scale, filling a fresh n×n float32 array once (this VM's first touch of memory, 0.2–3 s per 400 MB);
  - SNKP iterations/s against one G·v per second on the same G (target: near 1 G·v per iteration);
  - `percviz solve` peak RSS; float32 against float64 iterates (α, margin, triggers).
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


def cli_run(csv: Path, algorithm: str, max_iter: int, kernel: str = "affine") -> tuple[float, float, str]:
    """(wall seconds, peak RSS in MB, status) of `percviz solve` in a fresh process."""
    code = (
        "import resource, subprocess, sys, json, time; t = time.perf_counter(); "
        f"r = subprocess.run([sys.executable, '-m', 'percviz.cli', 'solve', {str(csv)!r}, '--algorithm', "
        f"{algorithm!r}, '--kernel', {kernel!r}, '--max-iter', '{max_iter}', '--json'], capture_output=True, text=True); "
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


# -- dense RBF: G built in place (core.dense_gram) against the previous whole-matrix build -------------------
RBF_SIZES = (2_000, 5_000, 10_000)


def rbf_set(n: int, seed: int = 0) -> Problem:
    """n points in the square, labelled by a wavy line, plus the first again with the other label (ρ_K = 0)."""
    rng = np.random.default_rng(seed)
    X = rng.uniform(-1, 1, size=(n - 1, 2))
    y = np.where(X[:, 0] + 0.3 * np.sin(3 * X[:, 1]) > 0, 1.0, -1.0)
    return Problem(PointSet.from_signed(np.vstack([X, X[:1]]), np.r_[y, -y[:1]]), "rbf:gamma=0.5")


def previous_build(problem: Problem) -> np.ndarray:
    """The build before core.dense_gram: the whole K(X, X), then the signed copy and ½(G + Gᵀ)."""
    s = problem.y / np.sqrt(problem.self_kernel)
    K = problem.kernel(problem.X, problem.X)
    G = s[:, None] * K * s[None, :]
    del K
    assert np.isfinite(G).all()
    G = 0.5 * (G + G.T)
    np.fill_diagonal(G, 1.0)
    return G


def _one(what: str, n: int) -> None:
    """In a fresh process: build G (or make the first SNKP step) once; print seconds and peak RSS in MB."""
    import resource

    problem = rbf_set(n)
    problem.self_kernel, problem.y  # noqa: B018
    t = time.perf_counter()
    if what == "previous":
        previous_build(problem)
    elif what == "touch":  # what fresh memory for a float32 G costs by itself (page faults; slow in this VM)
        np.empty((n, n), dtype=np.float32).fill(1.0)
    elif what in ("float64", "float32"):
        from percviz.core.dense_gram import build_dense

        build_dense(problem, np.dtype(what))
    else:  # "step": what the app's first Step costs on a new scene (the auto storage), start + one update
        get_solver("snkp")(rbf_set(50), bound=False).run()  # imports, outside the timing
        t = time.perf_counter()
        s = get_solver("snkp")(problem, bound=False)
        s.start()
        s.step()
    print(time.perf_counter() - t, resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024)


def _fresh(what: str, n: int) -> tuple[float, float]:
    env = {**os.environ, "OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"}
    out = subprocess.run([sys.executable, __file__, "_one", what, str(n)], capture_output=True, text=True,
                         check=True, env=env, cwd=Path(__file__).parent).stdout.split()
    return float(out[0]), float(out[1])


def snkp_rates(problem: Problem, seconds: float = 3.0, chunk: int = 10) -> tuple[float, float]:
    """(SNKP iterations/s, G·v products/s), medians over alternating chunks of each (the machine is shared)."""
    s = get_solver("snkp")(problem, max_iter=10**8, bound=False)
    s.start()
    G, v = problem.gram, np.random.default_rng(1).random(problem.n)
    its, gvs, t0 = [], [], time.perf_counter()
    while time.perf_counter() - t0 < seconds and not s.done:
        t = time.perf_counter()
        s.advance(chunk)
        its.append((time.perf_counter() - t) / chunk)
        t = time.perf_counter()
        for _ in range(chunk):
            G @ v
        gvs.append((time.perf_counter() - t) / chunk)
    return 1.0 / float(np.median(its)), 1.0 / float(np.median(gvs))


def agreement(n: int, iters: int = 200) -> str:
    """SNKP on the float32 G against the float64 G of the same points: α, Gα's margin, triggers."""
    runs = {}
    for dt in ("float64", "float32"):
        p = rbf_set(n)
        p.gram_dtype = dt
        s = get_solver("snkp")(p, max_iter=iters, bound=False)
        s.start()
        trig = [s.step().triggers[0] for _ in range(iters)]
        runs[dt] = (np.asarray(s.last.alpha), s.last.metrics["margin"], trig)
    (a64, m64, t64), (a32, m32, t32) = runs["float64"], runs["float32"]
    same = np.mean(np.asarray(t64) == np.asarray(t32))
    return (f"max|α32 − α64| / max α64 = {np.abs(a32 - a64).max() / a64.max():.1e}, margin {m32:.6g} vs {m64:.6g}, "
            f"same trigger in {same:.0%} of {iters} iterations")


def rbf_main(sizes=RBF_SIZES) -> None:
    try:
        from threadpoolctl import threadpool_limits

        threadpool_limits(1)
    except ImportError:
        pass
    print("dense RBF (γ = 0.5, ρ_K = 0), 1 BLAS thread; build/first step in fresh processes (peak RSS includes ~60 MB "
          "of Python + numpy)")
    cols = ("previous", "float64", "float32", "step", "touch")
    print(f"{'n':>7} {'previous build':>20} {'in place f64':>20} {'in place f32':>20} {'first step (auto)':>20} "
          f"{'touching n² f32':>20} {'prev/f32':>8}")
    for n in sizes:
        r = {w: _fresh(w, n) for w in cols}
        cells = " ".join(f"{r[w][0]:>7.2f} s {r[w][1]:>7.0f} MB" for w in cols)
        print(f"{n:>7,} {cells} {r['previous'][0] / r['float32'][0]:>7.1f}×")
    print("SNKP iterations/s against one G·v (same process, same points)")
    for n in sizes:
        for dt in ("float64", "float32"):
            p = rbf_set(n)
            p.gram_dtype = dt
            it_s, gv_s = snkp_rates(p)
            print(f"  n = {n:>6,} {dt}: {it_s:>8.1f} it/s, {gv_s:>8.1f} G·v/s, it/G·v = {it_s / gv_s:.2f}")
            del p
    with tempfile.TemporaryDirectory() as tmp:
        for n in sizes:
            csv = write_csv(rbf_set(n).points, Path(tmp) / f"rbf_{n}.csv")
            wall, peak, status = cli_run(csv, "snkp", 200, kernel="rbf:gamma=0.5")
            print(f"  percviz solve {n:,} points --kernel rbf --algorithm snkp --max-iter 200: {wall:.1f} s, "
                  f"peak RSS {peak:,.0f} MB, status {status}")
    for n in (2_000, 10_000):
        print(f"  float32 against float64, n = {n:,}, 200 SNKP iterations: {agreement(n)}")


if __name__ == "__main__":
    if len(sys.argv) > 1 and sys.argv[1] == "_one":
        _one(sys.argv[2], int(sys.argv[3]))
    elif len(sys.argv) > 1 and sys.argv[1] == "rbf":
        rbf_main(tuple(int(a) for a in sys.argv[2:]) or RBF_SIZES)
    else:
        main(int(sys.argv[1]) if len(sys.argv) > 1 else 100_000)
