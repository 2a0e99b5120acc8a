"""∇φ for the explicit feature maps: the Jacobian ∂φ(x)/∂x of shape (m, d̂, d), so ∇(a·φ)(x) = a·∇φ(x)."""

from __future__ import annotations

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


def _sum_into(M: np.ndarray, index: np.ndarray, size: int) -> np.ndarray:
    """out[:, k] = Σ over j with index[j] = k of M[:, j], added in the order of j (as a one-hot product adds them)."""
    m = M.shape[0]
    bins = (np.arange(m)[:, None] * size + index[None, :]).ravel()
    return np.bincount(bins, weights=M.ravel(), minlength=m * size).reshape(m, size)


def monomial_gradient(X: np.ndarray, degree: int, w: np.ndarray) -> np.ndarray:
    """∇(w·φ)(x) at each row for φ the monomials up to `degree` (shape (m, d)), by reverse mode on the monomial tree:
    O(m·d̂) where the Jacobian takes O(m·d̂·d) (a cubic map on R⁴⁰: 12,341 × 40 per point)."""
    X = np.atleast_2d(np.asarray(X, dtype=float))
    m, d = X.shape
    steps = monomial_steps(degree, d)
    vals, ends = [np.ones((m, 1))], [1]
    for parent, var in steps:
        vals.append(vals[-1][:, parent] * X[:, var])
        ends.append(ends[-1] + parent.size)
    grad = np.zeros((m, d))
    adj = np.broadcast_to(w[ends[-2]:ends[-1]], (m, ends[-1] - ends[-2]))  # ∂(w·φ)/∂(monomial), top degree
    for t in range(len(steps), 0, -1):
        parent, var = steps[t - 1]
        grad += _sum_into(adj * vals[t - 1][:, parent], var, d)  # ∂(u·x_v)/∂x_v = u
        below = ends[t - 2] if t >= 2 else 0  # the monomials of degree t − 1: w[below:ends[t − 1]]
        adj = w[below:ends[t - 1]] + _sum_into(adj * X[:, var], parent, ends[t - 1] - below)  # ∂(u·x_v)/∂u = x_v
    return grad
