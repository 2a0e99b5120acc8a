"""What the canvas draws of a margin, computed from the decision values at the training points.

- `closest_margin(g, y)`: the margin δ = min_i y_i g(x_i) of a strict separator (None when some point is on the
  wrong side or on the boundary); the margin lines are then {g = ±δ}. For a kernel expansion g = f/√K(x, x),
  so that δ is the normalized margin the paper's bounds use ((Gα)_i = y_i f(x_i)/√K(x_i, x_i)).
- `slacks(X, y, fx, level, ab)`: the soft-margin slacks ξ_i = max(0, level − y_i f(x_i)) (the notes' SVM with
  level 1), and for an affine f(x) = w·x + b the segment from x_i to where y f reaches the level along w.
- `certificate_scale(snap)`: the colour scale of a certificate's f ≈ 0 (its size without cancellation).
"""

from __future__ import annotations

import numpy as np

from percviz.core.decision import KernelExpansion

#: Slacks below this fraction of the level are not drawn (rounding of a point exactly on its margin line).
SLACK_TOL = 1e-6


def closest_margin(g: np.ndarray, y: np.ndarray) -> float | None:
    """min_i y_i g_i when every point is strictly on its side (finite), else None."""
    if len(g) == 0:
        return None
    delta = float(np.min(np.asarray(y, dtype=float) * np.asarray(g, dtype=float)))
    return delta if delta > 0 and np.isfinite(delta) else None


def slacks(X: np.ndarray, y: np.ndarray, fx: np.ndarray, level: float,
           ab: tuple[float, float, float] | None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(starts, ends, ξ) of the points with slack ξ_i = max(0, level − y_i f(x_i)) > 0.

    With an affine f the segment runs from x_i along w to the point where y_i f = level (x + t·w moves f by
    t‖w‖², so t = y_i ξ_i / ‖w‖²); otherwise ends = starts (only the values are shown)."""
    X, y, fx = np.asarray(X, dtype=float), np.asarray(y, dtype=float), np.asarray(fx, dtype=float)
    xi = np.maximum(0.0, level - y * fx)
    idx = np.flatnonzero(xi > SLACK_TOL * level)
    starts = X[idx]
    if ab is not None and (ab[0] or ab[1]):
        w = np.array(ab[:2], dtype=float)
        ends = starts + (y[idx] * xi[idx] / float(w @ w))[:, None] * w
    else:
        ends = starts.copy()
    return starts, ends, xi[idx]


def certificate_scale(snap) -> float:
    """For a certificate of non-separability drawn as a kernel expansion f = Σ c_i K(x_i, ·): the size f would have
    without cancellation, Σ|c_i|√K(x_i, x_i) · max_i √K(x_i, x_i) (Cauchy–Schwarz bounds |K(x_i, x)| by it on the
    points' range); 0 otherwise. The certificate says Σ α_i y_i φ(x_i) ≈ 0, so f ≈ 0 everywhere: shading it on its
    own tiny scale (f × 10⁴) would draw the residual as if it were a separator's picture."""
    d = snap.decision
    if str(getattr(snap.status, "value", "")) != "certificate" or not isinstance(d, KernelExpansion) or not d.coef.size:
        return 0.0
    root = np.sqrt(np.maximum(np.asarray(d.kernel.diag(d.centers), float), 0.0))
    scale = float(np.abs(d.coef) @ root) * float(root.max(initial=0.0))
    return scale if np.isfinite(scale) else 0.0
