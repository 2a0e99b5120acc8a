"""Seeded batch: the input-space margin of Akaho's input-space SVM against the SVM it starts from.

Run: python bench/input_space_batch.py  (prints one line per set and a summary)
"""

from __future__ import annotations

import numpy as np
from sklearn.datasets import make_circles, make_moons

from percviz.core.data import PointSet
from percviz.core.datasets import ring
from percviz.core.problem import Problem
from percviz.core.solvers import get_solver


def sets():
    yield "notes ring", ring(), ["rbf:gamma=0.5", "rbf:gamma=1", "poly:degree=2,c=1"]
    for seed in range(8):
        X, lab = make_circles(50, factor=0.5, noise=0.06, random_state=seed)
        yield f"rings {seed}", PointSet(2 * X, lab), ["rbf:gamma=0.5", "poly:degree=2,c=1"]
        X, lab = make_moons(40, noise=0.08, random_state=seed)
        yield f"moons {seed}", PointSet(X, lab), ["rbf:gamma=2", "poly:degree=3,c=1"]


def main() -> None:
    rows = []
    for name, ps, kernels in sets():
        for kernel in kernels:
            pr = Problem(ps, kernel=kernel)
            try:
                s = get_solver("input-space-svm")(pr, margin="hard")
            except Exception as exc:  # e.g. a kernel that cannot separate the set
                print(f"{name:11s} {kernel:18s} skipped: {exc}")
                continue
            first = s.start().metrics.get("input_margin")
            last = s.run().metrics.get("input_margin")
            rows.append((name, kernel, first, last))
            print(f"{name:11s} {kernel:18s} SVM {first:.4f} -> input-space SVM {last:.4f}  ×{last / first:.3f}")
    ratios = np.array([r[3] / r[2] for r in rows])
    print(f"{len(rows)} runs: never lower: {bool((ratios >= 1 - 1e-9).all())}; larger (>1%) on "
          f"{int((ratios > 1.01).sum())}; median ratio {np.median(ratios):.3f}, min {ratios.min():.3f}, max {ratios.max():.3f}")


if __name__ == "__main__":
    main()
