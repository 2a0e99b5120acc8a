"""Akaho's input-space SVM against the clock: CPU time per run (cold, and Live's warm rerun after one point moves).

Run: python bench/bench_akaho.py            (the timing table: circle sets, RBF γ = 1, n = 50, 100, 200)
     python bench/bench_akaho.py --reference PATH   (write the feet/margins of the fixed sets to PATH, JSON)
CPU time is time.process_time (both cores count); medians of --repeat runs.
"""

from __future__ import annotations

import argparse
import json
import time

import numpy as np
from sklearn.datasets import make_circles, make_moons

from percviz.core.data import PointSet
from percviz.core.problem import Problem
from percviz.core.shipped import _moons
from percviz.core.solvers import get_solver


def circles(n: int, seed: int = 0) -> PointSet:
    """The issue's circle sets: sklearn make_circles (factor 0.5, noise 0.06), scaled by 2."""
    X, lab = make_circles(n, factor=0.5, noise=0.06, random_state=seed)
    return PointSet(2 * X, lab)


def reference_sets():
    """(name, points, kernel, params) of the fixed sets whose feet and margins the tests hold to the reference."""
    yield "circles50", circles(50), "rbf:gamma=1", {}
    yield "circles50-hard", circles(50), "rbf:gamma=1", {"margin": "hard"}
    yield "circles100", circles(100), "rbf:gamma=1", {}
    yield "circles200", circles(200), "rbf:gamma=1", {}
    X, lab = make_moons(40, noise=0.08, random_state=0)
    yield "moons40-rbf", PointSet(X, lab), "rbf:gamma=2", {"margin": "hard"}
    yield "moons40-poly3", PointSet(X, lab), "poly:degree=3,c=1", {"margin": "hard"}
    yield "moons30-live", _moons(30, 0.1, 13), "rbf:gamma=2", {"margin": "soft", "C": 10.0}


def moved(ps: PointSet, i: int | None = None, by=(-0.03, 0.02)) -> PointSet:
    """The set with one point dragged a little (the point of largest x by default)."""
    X = ps.X.copy()
    i = int(np.argmax(X[:, 0])) if i is None else i
    X[i] += by
    return PointSet(X, ps.classes)


def run(ps: PointSet, kernel: str, warm=None, **params):
    """One whole run; returns (solver, last snapshot)."""
    s = get_solver("input-space-svm")(Problem(ps, kernel), **params, **({"warm_start": warm} if warm is not None else {}))
    return s, s.run()


def _r(a):
    """Rounded to 12 significant digits (the reference is held to 1e-6)."""
    return [float(f"{v:.12g}") for v in np.ravel(a)]


def record(solver, snap) -> dict:
    """What the reference keeps of a run: each step's estimate and measured margin (and feet up to 50 points),
    and the kept step's feet and distances."""
    small = len(snap.feet) <= 50
    steps = [{"estimate": s.estimate, "input_margin": s.measured.margin, **({"feet": _r(s.feet)} if small else {})}
             for s in solver._steps]
    return {"best": solver._best.index, "input_margin": snap.metrics.get("input_margin"),
            "input_margin_estimate": snap.metrics.get("input_margin_estimate"), "feet": _r(snap.feet),
            "distances": _r(solver._best.measured.distances), "steps": steps}


def write_reference(path: str) -> None:
    out = {}
    for name, ps, kernel, params in reference_sets():
        s, snap = run(ps, kernel, **params)
        out[name] = {"kernel": kernel, "params": params, "cold": record(s, snap)}
        s2, snap2 = run(moved(ps), kernel, warm=snap.alpha, **params)
        out[name]["warm_moved"] = record(s2, snap2)
        print(name, snap.metrics.get("input_margin"), snap2.metrics.get("input_margin"))
    with open(path, "w") as fh:
        json.dump(out, fh)


def timing(repeat: int, threads: bool) -> None:
    from percviz.core.grid import one_blas_thread

    run(circles(30), "rbf:gamma=1")  # imports and first calls
    if not threads:  # as Live's worker runs it
        one_blas_thread().__enter__()
    print(f"{'n':>4} {'cold CPU s':>11} {'warm CPU s':>11}  (median of {repeat}; BLAS threads: {'default' if threads else 1})")
    for n in (50, 100, 200):
        ps = circles(n)
        cold, warm = [], []
        for _ in range(repeat):
            t = time.process_time()
            _, snap = run(ps, "rbf:gamma=1")
            cold.append(time.process_time() - t)
            t = time.process_time()
            run(moved(ps), "rbf:gamma=1", warm=snap.alpha)
            warm.append(time.process_time() - t)
        print(f"{n:4d} {np.median(cold):11.3f} {np.median(warm):11.3f}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--reference", help="write the reference feet and margins to this JSON file")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--blas-threads", action="store_true", help="BLAS's default threads (the worker runs with one)")
    args = ap.parse_args()
    if args.reference:
        write_reference(args.reference)
    else:
        timing(args.repeat, args.blas_threads)


if __name__ == "__main__":
    main()
