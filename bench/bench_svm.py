"""Benchmark: the SVM by SMO against scikit-learn's SVC (LIBSVM) and the interior-point `svm` solver.

Run: python bench/bench_svm.py [n ...]        (default n = 200, 500, 1000, 2000)
Data: two Gaussian clouds (seeded; 'overlap' and 'apart', see DATA), soft margin C = 1, tol = 1e-3 for both SMO and SVC, kernels
RBF (γ = 0.5) and affine 1 + x·z (SVC: kernel='poly', degree=1, gamma=1, coef0=1). Columns, medians of
several runs (all in this one process, side by side):
  svc       SVC(...).fit(X, y), from the raw points (LIBSVM computes its own kernel);
  smo       Problem + SMO(...).run(), from scratch (α = 0);
  ×svc      smo / svc                      (target ≤ 5 at n = 2000);
  warm      SMO from the previous α after one point moved by 0.05 (the Live-mode drag; target ≤ 5 ms at n = 200),
            and after one support vector was deleted; with the pair updates of each (for the deletion also
            those of a cold run on the smaller set: deleting a point can make the problem harder) and of the cold run;
  ipm       the interior-point `svm` (Clarabel), one solve (show_iterations=False), and ipm / smo;
  Δobj      |dual objective SMO − SVC| / |SVC|, both at tol 1e-3 (so not 0: the tests check 1e-6 at tight tol).
BLAS runs single-threaded (threadpoolctl) so that all three are timed alike.

Then the warm starts at n = 200 after each kind of small edit (`python bench/bench_svm.py edits` for this part
only): a point moved by ~0.05 (any point, a support vector), a point added, a point deleted (not a support vector,
a free one, one at the bound C), on several seeded sets — soft margin C = 1 on 'overlap', hard margin on 'apart'
with the points on the wrong side of x₁ = ±0.3 removed (separable). Per edit kind: CPU time of the run (thread
time: this 2-core machine is shared, and wall time then also counts the waits for a core) and wall time, median
and worst over sets × repeats, the pairs SMO needed after the start and the Newton solves of the start; in the same
run the cold SMO and SVC on the same sets. Target: ≤ 5 ms warm, ≤ 20 ms cold.

`python bench/bench_svm.py grid [n ...] [--solver NAME]` (issue 26): the grid n ∈ {200, 1000, 2000, 5000} × {separated,
overlapping} × {rbf γ = 0.5, linear x·z} × C ∈ {1, 100}, tol 1e-3, CPU-time medians of 3, SMO over SVC
(kernel='linear' for linear) in the same process, after a first solve timed apart (numba's import and cache load);
pairs: SMO's, svc-it: SVC's n_iter_; Δobj the relative difference of the dual objectives, ΔSV the points in one
support set only (at tol 1e-3: two ε-optimal points; ΔSV@1e-6: both solvers again at tol 1e-6, untimed). Targets: every cell ≤ 2×, the median cell ≤ 1×. Then the Live rerun after dragging
one point at n = 200, C = 100, overlapping (warm start from the last α; target ≤ 10 ms warm).

`python bench/bench_svm.py phases`: a cold run at n = 200 split into its phases (points, Problem, the solver's
setup and checks, start, the pair updates, the last snapshot with its certification), CPU time.
"""

from __future__ import annotations

import sys
import time

import numpy as np
from sklearn.svm import SVC

from percviz.core.data import PointSet
from percviz.core.problem import Problem
from percviz.core.solvers import get_solver

C, TOL = 1.0, 1e-3
TIGHT = 1e-6  # the grid's support sets are also compared at this tol (both solvers at the optimum)
KERNELS = {
    "rbf": ("rbf:gamma=0.5", dict(kernel="rbf", gamma=0.5)),
    "affine": ("affine", dict(kernel="poly", degree=1, gamma=1.0, coef0=1.0)),
}
IPM_MAX_N = 2000  # the interior-point solve at n = 2000 takes seconds (and ~400 MB): one run only there


#: Distance between the two cloud centres: 'overlap' puts ~16 % of the points on the wrong side (many support
#: vectors, ~40 % of n), 'apart' ~2 % (few support vectors, ~7 % of n).
DATA = {"overlap": 2.0, "apart": 4.0}


def clouds(n: int, sep: float, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """Two unit Gaussian clouds whose centres are `sep` apart, labels ±1 at random."""
    rng = np.random.default_rng(seed)
    y = np.where(rng.random(n) < 0.5, 1.0, -1.0)
    X = rng.normal(size=(n, 2)) + np.outer(y, [sep / 2, 0.0])
    return X, y


def median_time(fn, reps: int) -> tuple[float, object]:
    out, ts = None, []
    for _ in range(reps):
        t = time.perf_counter()
        out = fn()
        ts.append(time.perf_counter() - t)
    return float(np.median(ts)), out


def svc_objective(svc: SVC, K: np.ndarray, y: np.ndarray) -> float:
    a = np.zeros(len(y))
    a[svc.support_] = np.abs(svc.dual_coef_[0])
    return float(a.sum() - 0.5 * (a * y) @ K @ (a * y))


def bench(n: int, data: str, name: str) -> None:
    spec, svc_kw = KERNELS[name]
    X, y = clouds(n, DATA[data])
    reps = 7 if n <= 1000 else 5
    smo = get_solver("smo")

    def cold():
        return smo(Problem(PointSet.from_signed(X, y), kernel=spec), C=C, tol=TOL).run()

    t_svc, svc = median_time(lambda: SVC(C=C, tol=TOL, **svc_kw).fit(X, y), reps)
    t_smo, last = median_time(cold, reps)
    X2 = X.copy()
    X2[0] += 0.05  # one point dragged a little
    moved = Problem(PointSet.from_signed(X2, y), kernel=spec)
    t_warm, warm = median_time(lambda: smo(moved, C=C, tol=TOL, warm_start=last.alpha).run(), reps)
    k = int(np.flatnonzero(last.alpha > 0)[0])  # a support vector deleted
    fewer = Problem(PointSet.from_signed(np.delete(X, k, axis=0), np.delete(y, k)), kernel=spec)
    t_del, dele = median_time(lambda: smo(fewer, C=C, tol=TOL, warm_start=np.delete(last.alpha, k)).run(), reps)
    cold_fewer = smo(fewer, C=C, tol=TOL).run().iteration  # deleting a point can make the problem harder
    K = Problem(PointSet.from_signed(X, y), kernel=spec).kernel(X, X)
    d_obj = abs(last.metrics["objective"] - svc_objective(svc, K, y)) / abs(svc_objective(svc, K, y))
    ipm = ""
    if n <= IPM_MAX_N:
        svm = get_solver("svm")
        ipm_reps = 3 if n <= 500 else 1
        t_ipm, _ = median_time(
            lambda: svm(Problem(PointSet.from_signed(X, y), kernel=spec), C=C, show_iterations=False).run(), ipm_reps
        )
        ipm = f"{1e3 * t_ipm:9.1f} ms {t_ipm / t_smo:7.1f}×"
    print(
        f"{n:5d} {data:7s} {name:7s} {1e3 * t_svc:8.2f} ms {1e3 * t_smo:8.2f} ms {t_smo / t_svc:6.2f}× "
        f"{1e3 * t_warm:7.2f} ms {warm.iteration:4d} {1e3 * t_del:7.2f} ms {dele.iteration:4d}/{cold_fewer:<5d}"
        f"{last.iteration:5d}"
        f" {ipm}  {d_obj:.1e}"
    )


EDITS = ("move", "move SV", "add", "del non-SV", "del free SV", "del bound SV")


def edit(X, y, alpha, C, kind, rng):
    """One small edit and the previous α carried over as Live does (kept, dropped, 0 when added), or None."""
    sv = alpha > 0
    pick = {"move": np.ones(len(y), bool), "move SV": sv, "del non-SV": ~sv, "del free SV": sv & (alpha < C),
            "del bound SV": alpha >= C}
    if kind == "add":
        x = 0.5 * (X[rng.integers(len(y))] + X[rng.integers(len(y))])
        label = y[np.argmin(((X - x) ** 2).sum(axis=1))]  # like its nearest neighbour: stays separable
        return np.vstack([X, x]), np.r_[y, label], np.r_[alpha, 0.0]
    idx = np.flatnonzero(pick[kind])
    if not idx.size:
        return None
    k = int(rng.choice(idx))
    if kind.startswith("move"):
        X2 = X.copy()
        X2[k] += rng.normal(scale=0.05, size=2)
        return X2, y, alpha
    return np.delete(X, k, axis=0), np.delete(y, k), np.delete(alpha, k)


def timed(fn, reps: int) -> tuple[list[float], list[float], object]:
    """CPU (thread) and wall times of reps calls."""
    cpu, wall, out = [], [], None
    for _ in range(reps):
        c, w = time.thread_time(), time.perf_counter()
        out = fn()
        cpu.append(time.thread_time() - c)
        wall.append(time.perf_counter() - w)
    return cpu, wall, out


def bench_edits(n: int = 200, seeds: int = 4, reps: int = 5) -> None:
    smo = get_solver("smo")
    print(f"\nwarm starts at n = {n} after one edit ({seeds} sets × {reps} runs; ms, CPU = thread time)")
    print("kernel  margin edit          cpu med  worst   wall med  worst   pairs max  solves max   (sets)")
    for name, (spec, svc_kw) in KERNELS.items():
        for margin in ("soft", "hard"):
            C = 1.0 if margin == "soft" else np.inf
            rows: dict[str, list] = {k: [] for k in ("svc", "cold", *EDITS)}
            for seed in range(seeds):
                if margin == "soft":
                    X, y = clouds(n, DATA["overlap"], seed)
                else:
                    X, y = clouds(3 * n, DATA["apart"], seed)
                    keep = y * X[:, 0] > 0.3
                    X, y = X[keep][:n], y[keep][:n]
                kw = dict(margin=margin, C=1.0, tol=TOL)
                svc_c = C if margin == "soft" else 1e8
                cpu, wall, _ = timed(lambda: SVC(C=svc_c, tol=TOL, **svc_kw).fit(X, y), reps)
                rows["svc"].append((cpu, wall, 0, 0))
                cpu, wall, last = timed(lambda: smo(Problem(PointSet.from_signed(X, y), kernel=spec), **kw).run(), reps)
                rows["cold"].append((cpu, wall, last.iteration, 0))
                rng = np.random.default_rng(100 + seed)
                for kind in EDITS:
                    out = edit(X, y, last.alpha, C, kind, rng)
                    if out is None:
                        continue
                    X2, y2, a2 = out

                    def warm():  # the Problem is built inside, as a Live rerun does
                        s = smo(Problem(PointSet.from_signed(X2, y2), kernel=spec), warm_start=a2, **kw)
                        return s, s.run()

                    cpu, wall, (s, snap) = timed(warm, reps)
                    rows[kind].append((cpu, wall, snap.iteration, getattr(s, "_solves", 0)))
            for kind, got in rows.items():
                if not got:
                    continue
                cpu = 1e3 * np.concatenate([g[0] for g in got])
                wall = 1e3 * np.concatenate([g[1] for g in got])
                pairs, solves = max(g[2] for g in got), max(g[3] for g in got)
                print(
                    f"{name:7s} {margin:6s} {kind:13s} {np.median(cpu):7.2f} {cpu.max():7.2f}   {np.median(wall):7.2f}"
                    f" {wall.max():7.2f}   {pairs:9d}  {solves:10d}   ({len(got)})"
                )


def bench_phases(n: int = 200, reps: int = 25) -> None:
    """Where a cold run's CPU time goes at n = 200: the points and Problem, the solver's setup and checks (the
    hard margin's separability proof), start, the pair updates, and the last snapshot with its certification."""
    smo = get_solver("smo")
    print(f"\ncold SMO at n = {n} by phase (CPU = thread time, median of {reps} runs; ms)")
    print("kernel  margin   points  problem  setup   start   pairs (µs each)       last   total")
    for name, (spec, _) in KERNELS.items():
        for margin in ("soft", "hard"):
            if margin == "soft":
                X, y = clouds(n, DATA["overlap"])
            else:
                X, y = clouds(3 * n, DATA["apart"])
                keep = y * X[:, 0] > 0.3
                X, y = X[keep][:n], y[keep][:n]
            ph: list[list[float]] = [[] for _ in range(7)]
            for _ in range(reps):
                t0 = time.thread_time()
                points = PointSet.from_signed(X, y)
                t1 = time.thread_time()
                problem = Problem(points, kernel=spec)
                t2 = time.thread_time()
                s = smo(problem, margin=margin, C=1.0, tol=TOL)
                t3 = time.thread_time()
                s.start()
                t4 = time.thread_time()
                triggers = ()
                while not s.status.done:
                    triggers = s._one_update()  # what advance() does, without its last snapshot
                t5 = time.thread_time()
                s._snapshot(triggers)
                t6 = time.thread_time()
                for k, v in enumerate((t1 - t0, t2 - t1, t3 - t2, t4 - t3, t5 - t4, t6 - t5, t6 - t0)):
                    ph[k].append(1e3 * v)
            med = [float(np.median(v)) for v in ph]
            print(f"{name:7s} {margin:6s} {med[0]:7.3f} {med[1]:7.3f} {med[2]:7.3f} {med[3]:7.3f} {med[4]:7.3f}"
                  f" ({1e3 * med[4] / max(s.iteration, 1):5.1f} × {s.iteration:3d}) {med[5]:7.3f} {med[6]:7.3f}")


GRID_KERNELS = {"rbf": ("rbf:gamma=0.5", dict(kernel="rbf", gamma=0.5)), "linear": ("linear", dict(kernel="linear"))}
GRID_DATA = {"separated": DATA["apart"], "overlapping": DATA["overlap"]}


def median_cpu(fn, reps: int) -> tuple[float, object]:
    """The median CPU (thread) time of reps calls: on a shared machine wall time also counts waits for a core."""
    out, ts = None, []
    for _ in range(reps):
        t = time.thread_time()
        out = fn()
        ts.append(time.thread_time() - t)
    return float(np.median(ts)), out


def warm_up(smo) -> None:
    """The first solve of the process (import numba, load the compiled loop from its on-disk cache) and of SVC,
    timed apart: the grid's cells are measured after it, so that its first cell does not pay it."""
    X, y = clouds(50, GRID_DATA["overlapping"])
    for name, (spec, svc_kw) in GRID_KERNELS.items():
        t = time.thread_time()
        smo(Problem(PointSet.from_signed(X, y), kernel=spec), C=1.0, tol=TOL).run()
        t_smo = time.thread_time() - t
        t = time.thread_time()
        SVC(C=1.0, tol=TOL, **svc_kw).fit(X, y)
        t_svc = time.thread_time() - t
        print(f"first solve in this process, {spec}, n = 50: svm {1e3 * t_smo:.1f} ms, SVC {1e3 * t_svc:.1f} ms (CPU)")


def bench_grid(sizes: list[int], solver: str = "svm", reps: int = 3) -> list[float]:
    """The issue-26 grid; returns the ratios SMO/SVC of every cell."""
    smo = get_solver(solver)
    warm_up(smo)
    print(f"grid: {solver} vs SVC, tol {TOL:g}, CPU-time medians of {reps} (ms; BLAS on one thread)")
    print("    n data        kernel     C      svc       smo    ×svc  pairs svc-it    Δobj   ΔSV ΔSV@1e-6")
    ratios = []
    for n in sizes:
        for data, sep in GRID_DATA.items():
            X, y = clouds(n, sep)
            for name, (spec, svc_kw) in GRID_KERNELS.items():
                K = Problem(PointSet.from_signed(X, y), kernel=spec).kernel(X, X)
                for c in (1.0, 100.0):
                    t_svc, svc = median_cpu(lambda: SVC(C=c, tol=TOL, **svc_kw).fit(X, y), reps)
                    t_smo, last = median_cpu(
                        lambda: smo(Problem(PointSet.from_signed(X, y), kernel=spec), C=c, tol=TOL).run(), reps)
                    o_svc = svc_objective(svc, K, y)
                    d_obj = abs(last.metrics["objective"] - o_svc) / abs(o_svc)
                    sv = set(np.flatnonzero(last.alpha > 0))
                    d_sv = len(sv ^ set(svc.support_))
                    # at tol 1e-3 both stop at different ε-optimal points (the sets differ on points with
                    # y f(x) within tol of 1); at tol 1e-6 both are at the optimum: the support sets there
                    tight = smo(Problem(PointSet.from_signed(X, y), kernel=spec), C=c, tol=TIGHT).run()
                    svc_t = SVC(C=c, tol=TIGHT, **svc_kw).fit(X, y)
                    d_sv6 = len(set(np.flatnonzero(tight.alpha > 0)) ^ set(svc_t.support_))
                    ratios.append(t_smo / t_svc)
                    print(f"{n:5d} {data:11s} {name:7s} {c:5g} {1e3 * t_svc:8.2f} {1e3 * t_smo:9.2f} "
                          f"{t_smo / t_svc:6.2f}× {last.iteration:6d} {svc.n_iter_[0]:6d} {d_obj:7.1e} {d_sv:5d} "
                          f"{d_sv6:6d}", flush=True)
    r = np.array(ratios)
    print(f"cells {len(r)}: worst {r.max():.2f}×, median {np.median(r):.2f}×, ≤ 2×: {(r <= 2).sum()}/{len(r)}")
    return ratios


def bench_live_drag(solver: str = "svm", reps: int = 15) -> float:
    """A Live rerun after dragging one point at n = 200, C = 100, overlapping: warm start from the last α."""
    smo = get_solver(solver)
    X, y = clouds(200, GRID_DATA["overlapping"])
    out = []
    for spec in ("rbf:gamma=0.5", "linear"):
        last = smo(Problem(PointSet.from_signed(X, y), kernel=spec), C=100.0, tol=TOL).run()
        rng = np.random.default_rng(7)
        ts = []
        for r in range(reps):
            X2 = X.copy()
            X2[rng.integers(len(y))] += rng.normal(scale=0.05, size=2)
            t = time.thread_time()
            smo(Problem(PointSet.from_signed(X2, y), kernel=spec), C=100.0, tol=TOL, warm_start=last.alpha).run()
            ts.append(time.thread_time() - t)
        med = float(np.median(ts[2:]))  # warm: the first two reruns are left out
        out.append(med)
        print(f"Live drag rerun, n = 200, C = 100, overlapping, {spec}: CPU median {1e3 * med:.2f} ms, "
              f"worst {1e3 * max(ts[2:]):.2f} ms (target ≤ 10 ms)")
    return max(out)


def main(argv: list[str]) -> None:
    if "grid" in argv:
        from threadpoolctl import threadpool_limits

        threadpool_limits(1)
        argv = [a for a in argv if a != "grid"]
        solver = "svm"
        if "--solver" in argv:
            k = argv.index("--solver")
            solver = argv[k + 1]
            del argv[k : k + 2]
        reps = 3
        if "--reps" in argv:
            k = argv.index("--reps")
            reps = int(argv[k + 1])
            del argv[k : k + 2]
        bench_grid([int(a) for a in argv] or [200, 1000, 2000, 5000], solver, reps)
        bench_live_drag(solver)
        return
    if "phases" in argv:
        try:
            from threadpoolctl import threadpool_limits

            threadpool_limits(1)
        except ImportError:
            pass
        bench_phases()
        return
    edits_only = "edits" in argv
    argv = [a for a in argv if a != "edits"]
    sizes = [int(a) for a in argv] or [200, 500, 1000, 2000]
    try:
        from threadpoolctl import threadpool_limits

        threadpool_limits(1)
    except ImportError:
        print("BLAS threads: library default (threadpoolctl not installed)")
    print(f"C = {C:g}, tol = {TOL:g}; medians of 5–7 runs (interior point: 3 up to n = 500, then 1)")
    print(
        "    n data    kernel       svc          smo    ×svc    warm:moved pairs  deleted pairs/cold cold pairs"
        "       ipm  ipm/smo  Δobj"
    )
    if not edits_only:
        for n in sizes:
            for data in DATA:
                for name in KERNELS:
                    bench(n, data, name)
    bench_edits()


if __name__ == "__main__":
    main(sys.argv[1:])
