"""The last few rows of the projection (12) for RBF expansions, each to its end in one compiled call.

input_distance.project iterates all moving rows as one numpy batch; near the end only a handful are left (rows
that creep or were slowed down, often for the whole 200 iterations), and every iteration then costs the ~50 numpy
calls of a batch whatever its size. `finish_rows` runs those rows by the same rules (the step of (12), the
convergence test, halving the rate when the step stops shrinking, the step bound, the iteration budget), with
f and ∇f of f(z) = f₀ + Σ_j k_j(z)(a_j + 2γ b_j·(z − x̂_j)), k_j = exp(−γ‖z − x̂_j‖²), summed in scalar form:
the same iterates up to rounding (numpy's exp and BLAS sum differently).
"""

from __future__ import annotations

import math

import numpy as np

from percviz.core.decision import DerivativeExpansion, KernelExpansion
from percviz.core.kernels import RBFKernel

_compiled = None


def rbf_terms(decision):
    """(B, a, b, f₀, γ) of an RBF DerivativeExpansion or KernelExpansion on its non-zero bases, else None."""
    if not isinstance(getattr(decision, "kernel", None), RBFKernel):
        return None
    if isinstance(decision, DerivativeExpansion):
        nz = np.flatnonzero((decision.a != 0) | (decision.b != 0).any(axis=1))
        B, a, b = decision.bases[nz], decision.a[nz], decision.b[nz]
    elif isinstance(decision, KernelExpansion) and decision.coef.ndim == 1:
        nz = np.flatnonzero(decision.coef)
        B, a = decision.centers[nz], decision.coef[nz]
        b = np.zeros_like(B)
    else:
        return None
    f = lambda v: np.ascontiguousarray(v, dtype=np.float64)  # noqa: E731
    return f(B), f(a), f(b), float(decision.bias), float(decision.kernel.gamma)


def _rows_py(xi, xl, rate, last, sc, ms, left, B, a, b, bias, gam, on_curve, conv, slowed):
    """Iterate (12) on each row to its end in place (xl: the end points); conv, slowed: per row."""
    m, d = xi.shape
    nb = B.shape[0]
    BB = np.empty(nb)
    bb = np.empty(nb)
    for j in range(nb):
        s, t = 0.0, 0.0
        for k in range(d):
            s += B[j, k] * B[j, k]
            t += b[j, k] * B[j, k]
        BB[j], bb[j] = s, t
    wB = np.empty(d)
    Kb = np.empty(d)
    g = np.empty(d)
    dl = np.empty(d)
    for r in range(m):
        z = xl[r]
        while True:
            zz = 0.0
            for k in range(d):
                zz += z[k] * z[k]
                wB[k] = 0.0
                Kb[k] = 0.0
            sw = 0.0
            for j in range(nb):
                zb, zc = 0.0, 0.0
                for k in range(d):
                    zb += z[k] * B[j, k]
                    zc += z[k] * b[j, k]
                d2 = zz + BB[j] - 2.0 * zb
                if d2 < 0.0:
                    d2 = 0.0
                K = math.exp(-gam * d2)
                w = K * (a[j] + 2.0 * gam * (zc - bb[j]))
                sw += w
                for k in range(d):
                    wB[k] += w * B[j, k]
                    Kb[k] += K * b[j, k]
            f = bias + sw
            gg, tl = 0.0, 0.0
            for k in range(d):
                g[k] = -2.0 * gam * (sw * z[k] - wB[k]) + 2.0 * gam * Kb[k]
                gg += g[k] * g[k]
                tl += (z[k] - xi[r, k]) * g[k]
            if not (gg > 1e-300 and math.isfinite(gg) and math.isfinite(f)):
                break  # ∇f = 0 or non-finite: (12) is undefined, the row stops where it is
            c = (f - tl) / gg
            step = 0.0
            for k in range(d):
                dl[k] = xi[r, k] - g[k] * c - z[k]
                step += dl[k] * dl[k]
            step = math.sqrt(step)
            done = abs(f) / math.sqrt(gg) <= on_curve * sc[r] and step <= 1e-10 * sc[r]
            if done:
                conv[r] = True
            else:
                if step >= last[r]:
                    rate[r] *= 0.5
                    slowed[r] = True
                fac = rate[r] * min(1.0, ms[r] / max(step, 1e-300))
                for k in range(d):
                    z[k] = z[k] + fac * dl[k]
            last[r] = step
            left[r] -= 1
            if done or rate[r] <= 1e-6 or left[r] <= 0:
                break


def compiled_rows():
    """The numba-compiled _rows_py (cached on disk), or None without numba."""
    global _compiled
    if _compiled is None:
        try:
            import numba
        except ImportError:  # pragma: no cover - numba is a dependency
            _compiled = False
        else:
            _compiled = numba.njit(cache=True, nogil=True)(_rows_py)
    return _compiled or None
