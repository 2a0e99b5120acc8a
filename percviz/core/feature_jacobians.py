"""∇φ for the explicit feature maps: the Jacobian ∂φ(x)/∂x of shape (m, d̂, d), so ∇(a·φ)(x) = a·∇φ(x)."""

from __future__ import annotations

import functools

import numpy as np

from percviz.core.features import (
    AugmentedLinear,
    AugmentedLinear1D,
    FeatureMap,
    Polynomial,
    Quadratic,
    RandomFourier,
    monomial_steps,
    monomial_exponents,
)

#: Step of the central differences used for feature maps without an analytic Jacobian.
FD_STEP = 1e-6


def _monomial_jacobian(X: np.ndarray, degree: int) -> np.ndarray:
    """∂(x^e)/∂x for every monomial of `monomial_exponents(degree, d)` (shape (m, T, d)), built degree by degree as
    features._monomials builds the monomials: ∂(u·x_v)/∂x = x_v ∂u/∂x + u e_v, vectorized per degree."""
    m, d = X.shape
    col, grad = np.ones((m, 1)), np.zeros((m, 1, d))
    grads = [grad]
    for parent, var in monomial_steps(degree, d):  # the products of features._monomials
        g = grad[:, parent, :] * X[:, var][:, :, None]
        g[:, np.arange(var.size), var] += col[:, parent]
        col, grad = col[:, parent] * X[:, var], g
        grads.append(g)
    return np.concatenate(grads, axis=1)


def feature_jacobian(features: FeatureMap, X) -> np.ndarray:
    """∂φ_k(x)/∂x_c at each row of X: shape (m, d̂, d); central differences for maps not listed here."""
    X = np.atleast_2d(np.asarray(X, dtype=float))
    m, d = X.shape
    if isinstance(features, AugmentedLinear):
        J = np.zeros((m, 1 + d, d))
        J[:, 1:, :] = np.eye(d)
        return J
    if isinstance(features, AugmentedLinear1D):
        J = np.zeros((m, 2, d))
        J[:, 1, 0] = 1.0
        return J
    if isinstance(features, Quadratic):
        return _monomial_jacobian(X, 2)
    if isinstance(features, Polynomial):
        return _monomial_jacobian(X, features.degree)
    if isinstance(features, RandomFourier):
        omega, phase = features._draws(d)
        s = -np.sqrt(2.0 / features.dim) * np.sin(X @ omega.T + phase)  # (m, D)
        J = np.zeros((m, 1 + features.dim, d))
        J[:, 1:, :] = s[:, :, None] * omega[None, :, :]
        return J
    cols = []
    for c in range(d):
        e = np.zeros(d)
        e[c] = FD_STEP
        cols.append((features.transform(X + e) - features.transform(X - e)) / (2 * FD_STEP))
    return np.stack(cols, axis=2)


@functools.lru_cache(maxsize=16)
def _tree_maps(degree: int, d: int):
    """Per degree t: the one-hot maps monomial → its variable (T_t × d) and monomial → its parent (T_t × T_{t−1})."""
    from scipy import sparse

    maps, size = [], 1
    for parent, var in monomial_steps(degree, d):
        ones, rows = np.ones(parent.size), np.arange(parent.size)
        maps.append((parent, var, sparse.csr_array((ones, (rows, var)), shape=(parent.size, d)),
                     sparse.csr_array((ones, (rows, parent)), shape=(parent.size, size))))
        size = parent.size
    return tuple(maps)


def monomial_gradient(X: np.ndarray, degree: int, w: np.ndarray) -> np.ndarray:
    """∇(w·φ)(x) at each row for φ the monomials up to `degree` (shape (m, d)), by reverse mode on the monomial tree:
    O(m·d̂) where the Jacobian takes O(m·d̂·d) (a cubic map on R⁴⁰: 12,341 × 40 per point)."""
    X = np.atleast_2d(np.asarray(X, dtype=float))
    m, d = X.shape
    maps = _tree_maps(degree, d)
    vals, ends = [np.ones((m, 1))], [1]
    for parent, var, _, _ in maps:
        vals.append(vals[-1][:, parent] * X[:, var])
        ends.append(ends[-1] + parent.size)
    grad = np.zeros((m, d))
    adj = np.broadcast_to(w[ends[-2]:ends[-1]], (m, ends[-1] - ends[-2]))  # ∂(w·φ)/∂(monomial), top degree
    for t in range(len(maps), 0, -1):
        parent, var, to_var, to_parent = maps[t - 1]
        grad += (adj * vals[t - 1][:, parent]) @ to_var  # ∂(u·x_v)/∂x_v = u
        adj = w[ends[t - 2] if t >= 2 else 0:ends[t - 1]] + (adj * X[:, var]) @ to_parent  # ∂(u·x_v)/∂u = x_v
    return grad
