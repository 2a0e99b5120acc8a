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
    monomial_exponents,
)

#: Step of the central differences used for feature maps without an analytic Jacobian.
FD_STEP = 1e-6


def _monomial_jacobian(X: np.ndarray, degree: int) -> np.ndarray:
    """∂(x^e)/∂x for every monomial of `monomial_exponents(degree, d)` (shape (m, T, d)), built degree by degree as
    features._monomials builds the monomials: ∂(u·x_v)/∂x = x_v ∂u/∂x + u e_v, O(m·T·d) in all."""
    m, d = X.shape
    cols, grads = [np.ones(m)], [np.zeros((m, d))]
    prev = [(0, np.ones(m), np.zeros((m, d)))]  # (lowest variable allowed next, monomial, its gradient)
    for _ in range(degree):
        nxt = []
        for low, col, grad in prev:
            for v in range(low, d):
                g = grad * X[:, v:v + 1]
                g[:, v] += col
                nxt.append((v, col * X[:, v], g))
        cols.extend(c for _, c, _ in nxt)
        grads.extend(g for _, _, g in nxt)
        prev = nxt
    return np.stack(grads, axis=1)


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
