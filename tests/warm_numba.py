"""Compile percviz's numba loops into their on-disk cache with a few small solves (run once beside the test workers).

On a clean checkout each xdist worker would otherwise compile the same loops (SMO's pairs, Akaho's projection tail:
~8 s of CPU each); the workers that come later load them from the cache. Run as `python tests/warm_numba.py`.
"""

from __future__ import annotations

import numpy as np

from percviz.core.data import PointSet
from percviz.core.problem import Problem
from percviz.core.solvers import get_solver


def main() -> None:
    """The loops' argument types as the suite meets them: SMO's kernel kinds, Akaho on RBF and a polynomial."""
    rng = np.random.default_rng(0)
    X = np.vstack([rng.normal((-1, 0), 0.7, (15, 2)), rng.normal((1, 0), 0.7, (15, 2))])
    points = PointSet(X, np.repeat([0, 1], 15))
    for kernel in ("rbf:gamma=0.5", "linear", "affine", "poly:degree=2,c=1"):
        get_solver("svm")(Problem(points, kernel), C=10.0).run()
    for kernel in ("rbf:gamma=1", "poly:degree=3,c=1"):
        get_solver("input-space-svm")(Problem(points, kernel)).run()


if __name__ == "__main__":
    main()
