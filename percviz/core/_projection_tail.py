"""The last few rows of the projection (12) for RBF expansions, each to its end in one compiled call; and one
batch iteration's bookkeeping in the plane, compiled (`compiled_step`), with numpy's arithmetic bit for bit.

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


def _step_py(f, g, ids, xi, xl, rate, last, sc, ms, left, out, conv, slowed, on_curve):
    """One iteration of project's numpy batch after f, ∇f (d = 2, G = I), in place; the rows left, or −1."""
    # numpy's IEEE operations in numpy's order (its row sums start from +0; no fused multiply-add): the same bits.
    # −1, nothing changed, where numpy's errstate would see an overflow: the caller runs that iteration in numpy.
    m = xi.shape[0]
    gmin, gmax, fmax = math.inf, -math.inf, -math.inf
    nan = False
    gg = np.empty(m)
    for r in range(m):
        gg[r] = 0.0 + g[r, 0] * g[r, 0] + g[r, 1] * g[r, 1]
        if math.isnan(gg[r]) or math.isnan(f[r]):
            nan = True
        else:
            gmin, gmax, fmax = min(gmin, gg[r]), max(gmax, gg[r]), max(fmax, abs(f[r]))
    if not nan and gmin > 1e-300 and math.isfinite(gmax) and math.isfinite(fmax) and math.isinf(gmax + fmax):
        return -1  # numpy's gg.max() + |f|.max() overflows
    d0, d1, st = np.empty(m), np.empty(m), np.empty(m)
    ok, lost = np.empty(m, np.bool_), np.zeros(m, np.bool_)
    for r in range(m):
        ok[r] = math.isfinite(gg[r]) and gg[r] > 1e-300 and math.isfinite(f[r])
        if not ok[r]:
            continue
        tl = 0.0 + (xl[r, 0] - xi[r, 0]) * g[r, 0] + (xl[r, 1] - xi[r, 1]) * g[r, 1]
        c = (f[r] - tl) / gg[r]
        d0[r] = xi[r, 0] - g[r, 0] * c - xl[r, 0]
        d1[r] = xi[r, 1] - g[r, 1] * c - xl[r, 1]
        st[r] = math.sqrt(0.0 + d0[r] * d0[r] + d1[r] * d1[r])
        if not math.isfinite(st[r]):  # _far_step: through ∇f/‖∇f‖ and a scaled norm
            root = math.sqrt(gg[r])
            c = (f[r] - tl) / root
            d0[r] = xi[r, 0] - (g[r, 0] / root) * c - xl[r, 0]
            d1[r] = xi[r, 1] - (g[r, 1] / root) * c - xl[r, 1]
            if not (math.isfinite(d0[r]) and math.isfinite(d1[r])):
                d0[r], d1[r], lost[r] = 0.0, 0.0, True
            big = max(max(abs(d0[r]), abs(d1[r])), 1e-300)
            q0, q1 = d0[r] / big, d1[r] / big
            st[r] = big * math.sqrt(0.0 + q0 * q0 + q1 * q1)
            if math.isinf(st[r]):
                return -1
        if math.isinf(abs(f[r]) / math.sqrt(gg[r])):
            return -1
        fac = rate[r] * 0.5 if st[r] >= last[r] else rate[r]
        fac = fac * (ms[r] / st[r] if st[r] > ms[r] else 1.0)
        if math.isinf(xl[r, 0] + fac * d0[r]) or math.isinf(xl[r, 1] + fac * d1[r]):
            return -1
    w = 0
    for r in range(m):
        i = ids[r]
        if not ok[r]:  # ∇f = 0 (or non-finite): (12) is undefined here, the row stops where it is
            out[i, 0], out[i, 1] = xl[r, 0], xl[r, 1]
            continue
        if lost[r]:
            left[r] = 1
        done = abs(f[r]) / math.sqrt(gg[r]) <= on_curve * sc[r] and st[r] <= 1e-10 * sc[r]
        if done:
            conv[i] = True
        elif st[r] >= last[r]:
            rate[r] *= 0.5
            slowed[i] = True
        fac = rate[r] * (ms[r] / st[r] if st[r] > ms[r] else 1.0)
        x0 = xl[r, 0] + (0.0 if done else fac * d0[r])
        x1 = xl[r, 1] + (0.0 if done else fac * d1[r])
        last[r] = st[r]
        left[r] -= 1
        if done or rate[r] <= 1e-6 or left[r] <= 0:
            out[i, 0], out[i, 1] = x0, x1
            continue
        ids[w], xi[w, 0], xi[w, 1], xl[w, 0], xl[w, 1] = i, xi[r, 0], xi[r, 1], x0, x1
        rate[w], last[w], sc[w], ms[w], left[w] = rate[r], last[r], sc[r], ms[r], left[r]
        w += 1
    return w


def _rbf_exponent(Z, ZB, BB, mg):
    """−γ·max(‖z‖² + ‖x̂_j‖² − 2 z·x̂_j, 0) for z in the plane, elementwise as numpy (‖z‖² as einsum's); (t, finite)."""
    m, nb = ZB.shape
    t = np.empty((m, nb))
    fin = True
    for i in range(m):
        ee = 0.0 + Z[i, 0] * Z[i, 0] + Z[i, 1] * Z[i, 1]
        for j in range(nb):
            d2 = ee + BB[j] - 2.0 * ZB[i, j]
            if d2 < 0.0:
                d2 = 0.0
            t[i, j] = mg * d2
            fin = fin and math.isfinite(t[i, j])
    return t, fin


def _rbf_weights(K, Zb, a, bb, c2):
    """w_j = k_j (a_j + 2γ (z·b_j − b_j·x̂_j)), elementwise as numpy; (w, finite)."""
    m, nb = K.shape
    w = np.empty((m, nb))
    fin = True
    for i in range(m):
        for j in range(nb):
            w[i, j] = K[i, j] * (a[j] + c2 * (Zb[i, j] - bb[j]))
            fin = fin and math.isfinite(w[i, j])
    return w, fin


def _rbf_value_gradient(sw, Z, wB, Kb, bias, m2, c2):
    """f = f₀ + Σ_j w_j, ∇f = −2γ (Σ_j w_j z − Σ_j w_j x̂_j) + 2γ Σ_j k_j b_j, elementwise as numpy; (f, ∇f, ok)."""
    m, d = Z.shape
    f, g = np.empty(m), np.empty((m, d))
    fin = True
    for i in range(m):
        f[i] = bias + sw[i]
        fin = fin and math.isfinite(f[i])
        for k in range(d):
            g[i, k] = m2 * (sw[i] * Z[i, k] - wB[i, k]) + c2 * Kb[i, k]
            fin = fin and math.isfinite(g[i, k])
    return f, g, fin


_jitted: dict = {}


def _jit(fn):
    """fn compiled by numba (cached on disk), or None without numba."""
    if fn.__name__ not in _jitted:
        try:
            import numba
        except ImportError:  # pragma: no cover - numba is a dependency
            _jitted[fn.__name__] = None
        else:
            _jitted[fn.__name__] = numba.njit(cache=True, nogil=True)(fn)
    return _jitted[fn.__name__]


def compiled_step():
    """The numba-compiled _step_py, or None without numba."""
    return _jit(_step_py)


def compiled_rbf_glue():
    """The compiled elementwise parts of an RBF DerivativeExpansion's (f, ∇f) (batched_eval), or None."""
    parts = (_jit(_rbf_exponent), _jit(_rbf_weights), _jit(_rbf_value_gradient))
    return None if None in parts else parts
