"""SMO's pair updates, many per call: a compiled loop (numba) and a pure-numpy loop that take the same pairs.

Both run `pairs(state, max_pairs)` on the arrays of `PairState` and stop after max_pairs pairs, or when
the KKT violation on the active set is below tol (OPTIMAL), or when the column cache lacks a column of a kernel
that the loop cannot compute itself (NEED: the caller computes it, stores it and calls again; the pair then
restarts from its selection, which is a function of the state only), or when the step is unbounded (UNBOUNDED),
or when the shrinking counter is due and every point must first come back (SHRINK: LIBSVM's unshrinking, which
needs the caller to rebuild F). Other shrinking happens inside the loop (_shrink_py), so that a run of many
cheap pairs does not return to Python every min(n, 1000) pairs. The arithmetic is written in the same order in both, so that the iterates are equal
bit for bit: m = max F over I_up, b_t = m − F_t on I_low (0 elsewhere, clipped at 0), a_t = max(K_tt − 2K_it
+ K_ii, τ) in the order (K_it·(−2) + K_tt) + K_ii, the gain b²/a (first maximum wins), δ = b_j / a_j clipped,
and F_t −= (K_ti − K_tj)·δ over the active set (as LIBSVM: the caller rebuilds F on the shrunk points
before it reads them, see SMO._refresh).
"""

from __future__ import annotations

import math

import numpy as np

DONE, OPTIMAL, NEED, UNBOUNDED, SHRINK = 0, 1, 2, 3, 4
#: Kernels whose columns the loop computes itself (no return to Python): x·z, 1 + x·z, exp(−γ‖x − z‖²).
FILL_NONE, FILL_LINEAR, FILL_AFFINE, FILL_RBF = 0, 1, 2, 3

#: Set to 1 to run the pure-numpy loop (the compiled one is used when numba imports).
NUMPY_ENV = "PERCVIZ_SMO_NUMPY"


class PairState:
    """The arrays both loops work on (one object, so that the caller never copies them)."""

    def __init__(self, y: np.ndarray, diag: np.ndarray, C: float, tau: float, tol: float, capacity: int,
                 kernel: tuple | None = None):
        n = len(y)
        # (kind, X, ‖x‖², γ) of a kernel whose columns the loop fills itself (FILL_*), else kind 0 (NEED)
        kind, X, sq, gamma = kernel if kernel is not None else (0, np.zeros((1, 1)), np.zeros(1), 0.0)
        self.kind, self.gamma = int(kind), float(gamma)
        self.X, self.sq = np.ascontiguousarray(X, dtype=np.float64), np.ascontiguousarray(sq, dtype=np.float64)
        self.scratch = np.empty((2, n))  # the loop's gains, the fill's exponents and bits
        self.Fbar = np.zeros(n)  # Σ over α_s = C of C y_s K(·, x_s), kept by the loops (soft margin)
        self.y = np.ascontiguousarray(y, dtype=np.float64)
        self.diag = np.ascontiguousarray(diag, dtype=np.float64)
        self.C, self.tau, self.tol = float(C), float(tau), float(tol)
        self.alpha = np.zeros(n)
        self.F = self.y.copy()
        self.act = np.arange(n, dtype=np.int64)  # the active set is act[:n_act] (n_act = ints[6])
        self.inactive = np.zeros(n, dtype=bool)  # (kept by the caller with act)
        self.cache = np.empty((max(2, min(capacity, n)), n))  # pages are touched only as columns arrive
        self.slot = np.full(n, -1, dtype=np.int64)
        self.owner = np.full(len(self.cache), -1, dtype=np.int64)
        self.stamp = np.zeros(len(self.cache), dtype=np.int64)
        # ints: [clock, need, last i, last j, since shrink, shrink every, n_act, unshrunk, shrinking, epoch of act]
        self.ints = np.array([1, -1, -1, -1, 0, min(n, 1000), n, 0, 1, 0], dtype=np.int64)
        # the compiled loop's contiguous copies on a shrunk active set: F, flags, K_tt and cached columns at act
        self.cF, self.cfl, self.cdg = np.empty(n), np.empty(n, dtype=np.int8), np.empty(n)
        self.ccache = np.empty_like(self.cache)  # (pages are touched only when the set is shrunk)
        self.ctag = np.full(len(self.cache), -1, dtype=np.int64)  # the epoch of each compact column
        self.viol = np.array([np.inf])  # m − M on the active set after the last call
        self.sync_flags()

    @property
    def n_act(self) -> int:
        return int(self.ints[6])

    @n_act.setter
    def n_act(self, value: int) -> None:
        self.ints[6] = value

    def sync_flags(self) -> None:
        """flags_t = 1 on I_up (α_t y_t can grow) + 2 on I_low (it can shrink), from α (the compiled loop's copy
        of these tests; it keeps them for the pairs it moves)."""
        a, pos, C = self.alpha, self.y > 0, self.C
        self.flags = (np.where(pos, a < C, a > 0).astype(np.int8) + 2 * np.where(pos, a > 0, a < C)).astype(np.int8)

    def missing(self, t: int, count: int, use_numpy: bool = False) -> np.ndarray:
        """t and up to count − 1 other active points whose columns are not cached and that the selection is likely
        to ask for next: the largest F on I_up and the smallest on I_low (the candidates for i and j), the most
        extreme first, ties to the lower index (so that both loops cache the same columns)."""
        if count <= 1:
            return np.array([t], dtype=np.int64)
        fn = None if use_numpy else compiled(_missing_py)
        if fn is not None:
            out = np.empty(count, dtype=np.int64)
            k = fn(self.alpha, self.F, self.y, self.C, self.slot, self.inactive, t, out)
            return out[:k]
        a, F, pos, C = self.alpha, self.F, self.y > 0, self.C
        score = np.where(np.where(pos, a < C, a > 0), F, -np.inf)  # ±F: larger is more extreme
        np.maximum(score, np.where(np.where(pos, a > 0, a < C), -F, -np.inf), out=score)
        score[(self.slot >= 0) | self.inactive] = -np.inf
        score[t] = -np.inf
        order = np.argsort(-score, kind="stable")[: count - 1]
        return np.concatenate([[t], order[np.isfinite(score[order])]]).astype(np.int64)

    def store_all(self, idx: np.ndarray, rows: np.ndarray) -> None:
        """Columns idx (rows of `rows`) into the free slots, when the cache holds every column."""
        free = np.flatnonzero(self.owner < 0)[: len(idx)]
        self.cache[free] = rows
        self.owner[free], self.slot[idx] = idx, free
        self.stamp[free] = self.ints[0] + np.arange(len(idx))
        self.ints[0] += len(idx)

    def store(self, i: int, col: np.ndarray) -> None:
        """Put column i into the least recently used slot."""
        s = int(self.stamp.argmin())
        old = int(self.owner[s])
        if old >= 0:
            self.slot[old] = -1
        self.cache[s] = col
        self.owner[s], self.slot[i] = i, s
        self.stamp[s] = self.ints[0]  # the newest: the column the loop asks for next is never evicted for it
        self.ints[0] += 1


def _pairs_py(F, alpha, y, diag, C, tau, tol, act, inactive, cache, slot, stamp, ints, viol, max_pairs, flags,
              owner, X, sq, kind, gamma, scratch, Fbar, cF, cfl, cdg, ccache, ctag):
    """The compiled loop (_smo_numpy.pairs_numpy: the numpy one) on contiguous copies of a shrunk active set."""
    # F, flags and K_tt of act[:n_act] go to cF, cfl, cdg (in that order) so that the passes read memory in
    # order and vectorize; F comes back at the end
    n_act = ints[6]
    if n_act < len(F):
        ints[9] += 1  # the compact columns of earlier calls are out of date (act or a slot may have changed)
        for k in range(n_act):
            t = act[k]
            cF[k] = F[t]
            cfl[k] = flags[t]
            cdg[k] = diag[t]
    done, why = _loop(F, alpha, y, diag, C, tau, tol, act, inactive, cache, slot, stamp, ints, viol, max_pairs,
                      flags, owner, X, sq, kind, gamma, scratch, Fbar, cF, cfl, cdg, ccache, ctag)
    if ints[6] < len(F):
        for k in range(ints[6]):
            F[act[k]] = cF[k]
    return done, why


def _column_py(cache, ccache, ctag, s, act, n_act, epoch):
    """Column s of the cache on the active set: all of it, or its entries at act[:n_act] (gathered once per epoch)."""
    if n_act == cache.shape[1]:
        return cache[s]
    if ctag[s] != epoch:
        src, dst = cache[s], ccache[s]
        for k in range(n_act):
            dst[k] = src[act[k]]
        ctag[s] = epoch
    return ccache[s]


def _loop_py(F, alpha, y, diag, C, tau, tol, act, inactive, cache, slot, stamp, ints, viol, max_pairs, flags,
             owner, X, sq, kind, gamma, scratch, Fbar, cF, cfl, cdg, ccache, ctag):
    """The pairs on the active set, whose k-th point is act[k] and has F pF[k], flags pfl[k] and K_tt pdg[k]."""
    done = 0
    top = 1e-14 * C if C < np.inf else 0.0  # within rounding of C is on C
    n_act = ints[6]
    full = n_act == len(F)
    pF, pfl, pdg = (F, flags, diag) if full else (cF, cfl, cdg)
    gain = scratch[0]
    # i: the maximum of F over I_up on the active set (first maximum wins); after a pair it is found again in
    # the same pass that updates F (the flags of i and j are final by then)
    m = -np.inf
    ii = -1
    for k in range(n_act):
        if pfl[k] & 1 and pF[k] > m:
            m = pF[k]
            ii = k
    while done < max_pairs:
        if ii < 0:
            viol[0] = -np.inf
            return done, OPTIMAL
        i = act[ii]
        si = slot[i]
        if si < 0:
            if kind == 0:
                ints[1] = i
                return done, NEED
            si = _fill(cache, slot, owner, stamp, ints, X, sq, diag, kind, gamma, i, scratch)
            ctag[si] = -1
        Ki = cache[si]
        cKi = _column(cache, ccache, ctag, si, act, n_act, ints[9])
        di = diag[i]
        # j: the largest gain b²/a over I_low with b = m − F_t > 0 (first maximum wins); the violation m − M is
        # max b when positive. Without branches, so that it vectorizes
        big = 0.0
        best = -1.0
        for k in range(n_act):
            b = m - pF[k]
            a = cKi[k] * -2.0 + pdg[k] + di
            a = tau if a < tau else a
            ok = (pfl[k] & 2 != 0) & (b > 0.0)
            g = b * b / a if ok else -1.0
            gain[k] = g
            best = g if g > best else best
            b = b if ok else 0.0
            big = b if b > big else big
        viol[0] = big
        if big < tol:
            return done, OPTIMAL
        jj = 0
        while gain[jj] != best:
            jj += 1
        j = act[jj]
        sj = slot[j]
        if sj < 0:
            if kind == 0:
                ints[1] = j
                return done, NEED
            stamp[si] = ints[0]  # i is the newest: its column is not evicted for j's
            ints[0] += 1
            sj = _fill(cache, slot, owner, stamp, ints, X, sq, diag, kind, gamma, j, scratch)
            ctag[sj] = -1
        stamp[si] = ints[0]
        stamp[sj] = ints[0] + 1
        ints[0] += 2
        Kj = cache[sj]
        cKj = _column(cache, ccache, ctag, sj, act, n_act, ints[9])
        b = m - pF[jj]
        a = Ki[j] * -2.0 + diag[j] + di
        if a < tau:
            a = tau
        delta = b / a
        yi, yj, ai, aj = y[i], y[j], alpha[i], alpha[j]
        cap_i = C - ai if yi > 0 else ai
        cap_j = aj if yj > 0 else C - aj
        if cap_i < delta:
            delta = cap_i
        if cap_j < delta:
            delta = cap_j
        if not np.isfinite(delta):
            return done, UNBOUNDED
        if delta == cap_i:
            ai = C if yi > 0 else 0.0
        else:
            ai = ai + yi * delta
        if delta == cap_j:
            aj = 0.0 if yj > 0 else C
        else:
            aj = aj - yj * delta
        # within rounding of a bound is on it (a 1e-16 left by ai + yi·delta is not a support vector); rounding is
        # relative to the operands, so coefficients of 1e-18 (a cubic kernel on points at 1e3) are kept
        low = 1e-14 * max(abs(alpha[i]), abs(delta))
        if ai <= low:
            ai = 0.0
        elif ai >= C - top:
            ai = C
        low = 1e-14 * max(abs(alpha[j]), abs(delta))
        if aj <= low:
            aj = 0.0
        elif aj >= C - top:
            aj = C
        a0i, a0j = alpha[i], alpha[j]
        alpha[i] = ai
        alpha[j] = aj
        if C < np.inf:  # F̄ = Σ_{α_s = C} C y_s K(·, x_s) on every point (LIBSVM's G_bar), for SMO._refresh
            for t, new, old in ((i, ai, a0i), (j, aj, a0j)):
                if (new == C) != (old == C):
                    c = C * y[t] if new == C else -(C * y[t])
                    Kt = Ki if t == i else Kj
                    for r in range(len(Fbar)):
                        Fbar[r] += c * Kt[r]
        flags[i] = (1 if (ai < C if yi > 0 else ai > 0) else 0) + (2 if (ai > 0 if yi > 0 else ai < C) else 0)
        flags[j] = (1 if (aj < C if yj > 0 else aj > 0) else 0) + (2 if (aj > 0 if yj > 0 else aj < C) else 0)
        pfl[ii] = flags[i]
        pfl[jj] = flags[j]
        m = -np.inf
        for k in range(n_act):  # F on the active set, and the next i (its first index after the pass)
            f = pF[k] - (cKi[k] - cKj[k]) * delta
            pF[k] = f
            v = f if pfl[k] & 1 else -np.inf
            m = v if v > m else m
        ii = -1
        if m > -np.inf:
            ii = 0
            while not (pF[ii] == m and pfl[ii] & 1):
                ii += 1
            m = pF[ii]
        ints[2] = i
        ints[3] = j
        done += 1
        ints[4] += 1
        if ints[4] >= ints[5]:
            ints[4] = 0
            if ints[8]:
                k = _shrink(pF, pfl, pdg, act, n_act, inactive, tol, ints, F, cF, cfl, cdg)
                if k < 0:
                    return done, SHRINK
                if k < n_act:
                    n_act = k
                    ints[6] = k
                    ints[9] += 1
                    pF, pfl, pdg = cF, cfl, cdg
                    m = -np.inf
                    ii = -1
                    for k in range(n_act):
                        if pfl[k] & 1 and pF[k] > m:
                            m = pF[k]
                            ii = k
    return done, DONE


def _shrink_py(pF, pfl, pdg, act, n_act, inactive, tol, ints, F, cF, cfl, cdg):
    """LIBSVM's shrinking of the active set: its new size (kept points first in act, cF, cfl, cdg), or −1."""
    # −1: m − M ≤ 10·tol for the first time (ints[7] = 0), every point must come back first. Out go the points at
    # a bound that the KKT conditions keep there for now: only in I_up with F_t < M, or only in I_low with F_t > m
    # (m, M on the set); F keeps their last value
    m = -np.inf
    M = np.inf
    for k in range(n_act):
        f = pF[k]
        if pfl[k] & 1 and f > m:
            m = f
        if pfl[k] & 2 and f < M:
            M = f
    if ints[7] == 0:
        v = -np.inf if m == -np.inf else max(m - M, 0.0)
        if v <= 10.0 * tol:
            return -1
    w = 0
    for k in range(n_act):
        t = act[k]
        f = pF[k]
        fl = pfl[k]
        if (fl == 1 and f < M) or (fl == 2 and f > m):
            inactive[t] = True
            F[t] = f
        else:
            act[w] = t
            cF[w] = f
            cfl[w] = fl
            cdg[w] = pdg[k]
            w += 1
    return w


# exp(x) for the RBF columns, the same bits in numpy and in the compiled loop (numpy's SIMD exp and libm's differ
# in the last bit): x = k ln2 + r with |r| ≤ ln2/2 (k by the 1.5·2⁵² rounding trick, ln2 in two parts so that
# k·LN2_HI is exact), e^r by its Taylor polynomial of degree 13 (truncation < 0.8 ulp), times 2^k built from its
# bits; below −708 (where 2^k would be subnormal) the value is 0. Accurate to about 1 ulp, and it vectorizes.
LN2_HI, LN2_LO, INV_LN2 = 6.93147180369123816490e-01, 1.90821492927058770002e-10, 1.44269504088896338700e00
SHIFT = 6755399441055744.0
SHIFT_BITS = int(np.array([SHIFT]).view(np.int64)[0])
EXP_FLOOR = -708.0
_T = [1.0 / math.factorial(k) for k in range(14)]
T0, T1, T2, T3, T4, T5, T6, T7, T8, T9, T10, T11, T12, T13 = _T


def _exp_py(x, out, scratch):
    """out = exp(x) elementwise (x ≤ 0; the scheme above), scratch a float array of the same length."""
    n = len(x)
    for r in range(n):
        v = x[r] if x[r] > EXP_FLOOR else EXP_FLOOR
        t = v * INV_LN2 + SHIFT
        k = t - SHIFT
        u = (v - k * LN2_HI) - k * LN2_LO
        out[r] = ((((((((((((T13 * u + T12) * u + T11) * u + T10) * u + T9) * u + T8) * u + T7) * u + T6) * u + T5)
                      * u + T4) * u + T3) * u + T2) * u + T1) * u + T0
        scratch[r] = t
    bits = scratch.view(np.int64)
    for r in range(n):
        bits[r] = (bits[r] - SHIFT_BITS + 1023) << 52
    scale = bits.view(np.float64)
    for r in range(n):
        out[r] = out[r] * scale[r] if x[r] > EXP_FLOOR else 0.0


def exp_numpy(x: np.ndarray) -> np.ndarray:
    """_exp_py with numpy: the same operations, so the same bits."""
    v = np.maximum(x, EXP_FLOOR)
    t = v * INV_LN2 + SHIFT
    k = t - SHIFT
    u = (v - k * LN2_HI) - k * LN2_LO
    p = T13 * u
    for c in _T[12:0:-1]:
        p += c
        p *= u
    p += T0
    p *= ((t.view(np.int64) - SHIFT_BITS + 1023) << 52).view(np.float64)
    p[~(x > EXP_FLOOR)] = 0.0
    return p


def _fill_py(cache, slot, owner, stamp, ints, X, sq, diag, kind, gamma, t, scratch):
    """Column t of the kernel into the least recently used slot (first minimum of stamp); returns the slot.

    Each entry term by term: x_r·x_t summed over the coordinates in order, then x·z, 1 + x·z or
    exp(−γ max(0, (−2 x·z + ‖x_r‖²) + ‖x_t‖²)) (by _exp_py), and K_tt from the diagonal."""
    s = 0
    for k in range(1, len(stamp)):
        if stamp[k] < stamp[s]:
            s = k
    old = owner[s]
    if old >= 0:
        slot[old] = -1
    row = cache[s]
    xs = scratch[0]  # the exponents apart from row: _exp vectorizes only on distinct arrays
    n, d = X.shape
    xt = X[t, 0]
    for r in range(n):  # (coordinate after coordinate over all r: these loops vectorize)
        row[r] = X[r, 0] * xt
    for k in range(1, d):
        xt = X[t, k]
        for r in range(n):
            row[r] += X[r, k] * xt
    if kind == 3:
        st = sq[t]
        for r in range(n):
            v = row[r] * -2.0 + sq[r] + st
            v = 0.0 if v < 0.0 else v
            xs[r] = v * -gamma
    elif kind == 2:
        for r in range(n):
            row[r] += 1.0
    if kind == 3:
        _exp(xs, row, scratch[1])
    row[t] = diag[t]
    owner[s] = t
    slot[t] = s
    stamp[s] = ints[0]
    ints[0] += 1
    return s


def fill_numpy(cache, slot, owner, stamp, ints, X, sq, diag, kind, gamma, t, scratch=None):
    """_fill_py with numpy: the same slot and the same bits."""
    s = int(stamp.argmin())
    old = int(owner[s])
    if old >= 0:
        slot[old] = -1
    dot = X[:, 0] * X[t, 0]
    for k in range(1, X.shape[1]):
        dot += X[:, k] * X[t, k]
    if kind == 3:
        dot *= -2.0
        dot += sq
        dot += sq[t]
        np.maximum(dot, 0.0, out=dot)
        dot = exp_numpy(dot * -gamma)
    elif kind == 2:
        dot += 1.0
    dot[t] = diag[t]
    cache[s] = dot
    owner[s], slot[t], stamp[s] = t, s, ints[0]
    ints[0] += 1
    return s


def _missing_py(alpha, F, y, C, slot, inactive, t, out):
    """PairState.missing's choice by insertion into a short sorted list (compiled by numba); returns its length."""
    count = len(out)
    out[0] = t
    best = np.full(count, -np.inf)
    k = 1
    for s in range(len(F)):
        if s == t or slot[s] >= 0 or inactive[s]:
            continue
        sc = -np.inf
        if alpha[s] < C if y[s] > 0 else alpha[s] > 0:
            sc = F[s]
        if alpha[s] > 0 if y[s] > 0 else alpha[s] < C:
            if -F[s] > sc:
                sc = -F[s]
        if sc == -np.inf or (k == count and sc <= best[k - 1]):
            continue
        p = k if k < count else count - 1  # insert after the equal scores (ties: the lower index first)
        while p > 1 and best[p - 1] < sc:
            if p < count:
                best[p] = best[p - 1]
                out[p] = out[p - 1]
            p -= 1
        best[p] = sc
        out[p] = s
        if k < count:
            k += 1
    return k


def _accumulate_py(acc, rows, cache, slots, coef):
    """acc[r] += coef_k · cache[slots_k, rows_r], column after column (compiled by numba)."""
    for k in range(len(slots)):
        col = cache[slots[k]]
        c = coef[k]
        for r in range(len(rows)):
            acc[r] += c * col[rows[r]]


_compiled = None
# (compiled once compiled_pairs() has run; the loop calls them by these names)
_fill, _exp, _shrink, _column, _loop = _fill_py, _exp_py, _shrink_py, _column_py, _loop_py
_jitted: dict = {}


def compiled(fn):
    """fn compiled by numba (cached on disk), or None without numba."""
    if compiled_pairs() is None:
        return None
    if fn not in _jitted:
        import numba

        _jitted[fn] = numba.njit(cache=True, nogil=True)(fn)
    return _jitted[fn]


def compiled_pairs():
    """The numba-compiled loop (cached on disk, so a fresh process loads it), or None without numba."""
    global _compiled
    if _compiled is None:
        try:
            import numba
        except ImportError:  # pragma: no cover - numba is a dependency, but the numpy loop does the same
            _compiled = False
        else:
            global _fill, _exp, _shrink, _column, _loop
            jit = numba.njit(cache=True, nogil=True)
            _exp, _shrink, _fill, _column = jit(_exp_py), jit(_shrink_py), jit(_fill_py), jit(_column_py)
            _loop = jit(_loop_py)
            _compiled = numba.njit(cache=True, nogil=True)(_pairs_py)
    return _compiled or None
