"""The tests' independent separability oracle: an exact LP (HiGHS), sharing no code with percviz."""

import numpy as np
from scipy.optimize import linprog


def lp_separable(Y) -> bool:
    """Is there an a with a·y_i ≥ 1 for every row y_i, after scaling the columns and then the rows to unit size?"""
    Y = np.asarray(Y, float)
    m = np.abs(Y).max(axis=0)
    Y = Y / np.where(m > 0, m, 1.0)
    Y = Y / np.linalg.norm(Y, axis=1, keepdims=True)
    r = linprog(np.zeros(Y.shape[1]), A_ub=-Y, b_ub=-np.ones(len(Y)), bounds=[(None, None)] * Y.shape[1])
    return r.status == 0
