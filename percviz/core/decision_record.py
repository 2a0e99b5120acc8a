"""A snapshot's decision function as plain numbers, enough for an independent program to recompute f(x_i).

Every float is a float64 that JSON carries exactly (Python writes the shortest repr that round-trips). The forms:

- ``zero``: f ≡ 0.
- ``features``: f(x) = weights·φ(x) (or g_k(x) = weights[k]·φ(x), argmax); φ's columns are ``columns``. For
  ``rff`` the draws are given: φ(x) = (1, scale·cos(ω_j·x + c_j)), ``omega`` (D × d), ``phase`` (D), scale = √(2/D).
- ``kernel-expansion``: f(x) = Σ_i coef_i K(s·c_i, s·x) + bias with the centres c_i the input points (``centers`` =
  "points") or listed, s = ``input_scale`` = ``centers_scale`` (a power of two; 1 unless a homogeneous kernel ran
  on rescaled points), K = ``kernel``.
  SVM and SMO: coef_i = α_i y_i and bias = b; the paper's algorithms: coef_i = α_i y_i/√K(x_i, x_i), bias 0.
- ``derivative-expansion`` (input-space SVM): f(x) = Σ_j a_j K(x̂_j, x) + Σ_j b_j·∂K(u, x)/∂u|_{u = x̂_j} + bias.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from percviz.core.decision import DerivativeExpansion, FeatureLinear, KernelExpansion, ZeroDecision
from percviz.core.features import RandomFourier


def decision_record(decision, X: np.ndarray, input_scale: float = 1.0) -> dict[str, Any]:
    """The JSON-ready description of `decision` (X: the training points, named rather than repeated).

    input_scale: s when the decision was computed on s·X (a homogeneous kernel on tiny points): then
    f(x) = Σ coef_i K(s·c_i, s·x) + bias, which has the sign of the same expansion on the points as given."""
    if isinstance(decision, ZeroDecision):
        return {"form": "zero", "outputs": int(decision.n_outputs)}
    if isinstance(decision, FeatureLinear):
        fm = decision.features
        rec: dict[str, Any] = {"form": "features", "features": fm.spec, "outputs": int(decision.n_outputs),
                               "columns": fm.term_names(X.shape[1]), "weights": decision.weights.tolist()}
        if isinstance(fm, RandomFourier):
            omega, phase = fm._draws(X.shape[1])
            rec["rff"] = {"omega": omega.tolist(), "phase": phase.tolist(), "scale": float(np.sqrt(2.0 / fm.dim)),
                          "seed": int(fm.seed), "gamma": float(fm.gamma), "dim": int(fm.dim)}
        return rec
    if isinstance(decision, KernelExpansion):
        s = float(input_scale)
        same = decision.centers.shape == X.shape and np.array_equal(decision.centers, X * s)
        return {"form": "kernel-expansion", "kernel": decision.kernel.spec, "outputs": 1,
                "centers": "points" if same else (decision.centers / s).tolist(), "centers_scale": s,
                "input_scale": s, "coef": decision.coef.tolist(), "bias": float(decision.bias),
                "support": np.flatnonzero(decision.coef).tolist()}
    if isinstance(decision, DerivativeExpansion):
        return {"form": "derivative-expansion", "kernel": decision.kernel.spec, "outputs": 1,
                "bases": decision.bases.tolist(), "a": decision.a.tolist(), "b": decision.b.tolist(),
                "bias": float(decision.bias)}
    return {"form": "unknown", "type": type(decision).__name__}
