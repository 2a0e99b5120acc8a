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
        self.scratch = np.empty(n)
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
        # ints: [clock, need, last i, last j, since shrink, shrink every, n_act, unshrunk, shrinking]
        self.ints = np.array([1, -1, -1, -1, 0, min(n, 1000), n, 0, 1], dtype=np.int64)
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
              owner, X, sq, kind, gamma, scratch, Fbar):
    """The loop itself, in scalar form (compiled by numba; see pairs_numpy for the numpy form)."""
    done = 0
    top = 1e-14 * C if C < np.inf else 0.0  # within rounding of C is on C
    n_act = ints[6]
    # i: the maximum of F over I_up on the active set (first maximum wins); after a pair it is found again in
    # the same pass that updates F (the flags of i and j are final by then)
    m = -np.inf
    ii = -1
    for k in range(n_act):
        t = act[k]
        if flags[t] & 1 and F[t] > m:
            m = F[t]
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
        Ki = cache[si]
        big = 0.0  # the violation m − M is max b when positive
        best = -1.0
        jj = 0
        di = diag[i]
        for k in range(n_act):  # j: the largest gain b²/a over the candidates (b > 0 on I_low)
            t = act[k]
            if flags[t] & 2:
                b = m - F[t]
                if b > 0.0:
                    if b > big:
                        big = b
                    a = Ki[t] * -2.0 + diag[t] + di
                    if a < tau:
                        a = tau
                    g = b * b / a
                    if g > best:
                        best = g
                        jj = k
        viol[0] = big
        if big < tol:
            return done, OPTIMAL
        j = act[jj]
        sj = slot[j]
        if sj < 0:
            if kind == 0:
                ints[1] = j
                return done, NEED
            stamp[si] = ints[0]  # i is the newest: its column is not evicted for j's
            ints[0] += 1
            sj = _fill(cache, slot, owner, stamp, ints, X, sq, diag, kind, gamma, j, scratch)
        stamp[si] = ints[0]
        stamp[sj] = ints[0] + 1
        ints[0] += 2
        Kj = cache[sj]
        b = m - F[j]
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
        m = -np.inf
        ii = -1
        for k in range(n_act):  # F on the active set, and the next i
            t = act[k]
            f = F[t] - (Ki[t] - Kj[t]) * delta
            F[t] = f
            if flags[t] & 1 and f > m:
                m = f
                ii = k
        ints[2] = i
        ints[3] = j
        done += 1
        ints[4] += 1
        if ints[4] >= ints[5]:
            ints[4] = 0
            if ints[8]:
                k = _shrink(F, flags, act, n_act, inactive, tol, ints)
                if k < 0:
                    return done, SHRINK
                if k < n_act:
                    n_act = k
                    ints[6] = k
                    m = -np.inf
                    ii = -1
                    for k in range(n_act):
                        t = act[k]
                        if flags[t] & 1 and F[t] > m:
                            m = F[t]
                            ii = k
    return done, DONE


def _shrink_py(F, flags, act, n_act, inactive, tol, ints):
    """LIBSVM's shrinking on the active set: the new n_act, or −1 when the caller must first bring every point
    back (m − M at most 10·tol for the first time: ints[7] = 0). Out go the points at a bound that the KKT
    conditions keep there for now: only in I_up with F_t < M, or only in I_low with F_t > m (m, M on the set)."""
    m = -np.inf
    M = np.inf
    for k in range(n_act):
        t = act[k]
        f = F[t]
        if flags[t] & 1 and f > m:
            m = f
        if flags[t] & 2 and f < M:
            M = f
    if ints[7] == 0:
        v = -np.inf if m == -np.inf else max(m - M, 0.0)
        if v <= 10.0 * tol:
            return -1
    w = 0
    for k in range(n_act):
        t = act[k]
        f = F[t]
        if (flags[t] == 1 and f < M) or (flags[t] == 2 and f > m):
            inactive[t] = True
        else:
            act[w] = t
            w += 1
    return w


def shrink_numpy(F, flags, act, n_act, inactive, tol, ints) -> int:
    """_shrink_py with numpy (the same set, in the same order)."""
    a_ = act[:n_act]
    Fa, fl = F[a_], flags[a_]
    m = float(Fa[(fl & 1) > 0].max(initial=-np.inf))
    M = float(Fa[(fl & 2) > 0].min(initial=np.inf))
    if ints[7] == 0:
        v = -np.inf if m == -np.inf else max(m - M, 0.0)
        if v <= 10.0 * tol:
            return -1
    stuck = ((fl == 1) & (Fa < M)) | ((fl == 2) & (Fa > m))
    inactive[a_[stuck]] = True
    keep = a_[~stuck]
    act[: len(keep)] = keep
    return len(keep)


def pairs_numpy(F, alpha, y, diag, C, tau, tol, act, inactive, cache, slot, stamp, ints, viol, max_pairs, flags,
                owner, X, sq, kind, gamma, scratch, Fbar):
    """The same loop with numpy vector operations on the active set (one pair per Python iteration)."""
    fill = fill_numpy
    done = 0
    top = 1e-14 * C if C < np.inf else 0.0  # within rounding of C is on C
    a_ = act[: ints[6]]
    pos = y[a_] > 0
    dg = diag[a_]
    while done < max_pairs:
        al, Fa = alpha[a_], F[a_]
        up = np.where(pos, al < C, al > 0)
        fu = np.where(up, Fa, -np.inf)
        ii = int(fu.argmax())
        m = float(fu[ii])
        if m == -np.inf:
            viol[0] = -np.inf
            return done, OPTIMAL
        i = int(a_[ii])
        si = int(slot[i])
        if si < 0:
            if kind == 0:
                ints[1] = i
                return done, NEED
            si = int(fill(cache, slot, owner, stamp, ints, X, sq, diag, kind, gamma, i, scratch))
        Ki = cache[si]
        low = np.where(pos, al > 0, al < C)
        b = np.where(low, m - Fa, 0.0)
        big = float(np.maximum(b.max(), 0.0))
        viol[0] = big
        np.maximum(b, 0.0, out=b)
        if big < tol:
            return done, OPTIMAL
        cand = np.flatnonzero(b > 0.0)
        a = Ki[a_[cand]] * -2.0 + dg[cand] + diag[i]
        np.maximum(a, tau, out=a)
        bc = b[cand]
        jj = int(cand[int((bc * bc / a).argmax())])
        j = int(a_[jj])
        sj = int(slot[j])
        if sj < 0:
            if kind == 0:
                ints[1] = j
                return done, NEED
            stamp[si] = ints[0]
            ints[0] += 1
            sj = int(fill(cache, slot, owner, stamp, ints, X, sq, diag, kind, gamma, j, scratch))
        stamp[si], stamp[sj] = ints[0], ints[0] + 1
        ints[0] += 2
        Kj = cache[sj]
        bj = m - float(F[j])
        aj_ = float(Ki[j]) * -2.0 + float(diag[j]) + float(diag[i])
        delta = bj / (aj_ if aj_ >= tau else tau)
        yi, yj, ai, aj = float(y[i]), float(y[j]), float(alpha[i]), float(alpha[j])
        cap_i = C - ai if yi > 0 else ai
        cap_j = aj if yj > 0 else C - aj
        if cap_i < delta:
            delta = cap_i
        if cap_j < delta:
            delta = cap_j
        if not np.isfinite(delta):
            return done, UNBOUNDED
        ai = (C if yi > 0 else 0.0) if delta == cap_i else ai + yi * delta
        aj = (0.0 if yj > 0 else C) if delta == cap_j else aj - yj * delta
        # within rounding of a bound is on it, rounding relative to the operands (as in _pairs_py)
        low_i, low_j = 1e-14 * max(abs(float(alpha[i])), abs(delta)), 1e-14 * max(abs(float(alpha[j])), abs(delta))
        ai = 0.0 if ai <= low_i else (C if ai >= C - top else ai)
        aj = 0.0 if aj <= low_j else (C if aj >= C - top else aj)
        a0i, a0j = float(alpha[i]), float(alpha[j])
        alpha[i], alpha[j] = ai, aj
        if C < np.inf:
            for t, new, old, Kt in ((i, ai, a0i, Ki), (j, aj, a0j, Kj)):
                if (new == C) != (old == C):
                    Fbar += (C * y[t] if new == C else -(C * y[t])) * Kt
        for t, at in ((i, ai), (j, aj)):  # the compiled loop's flags of the pair
            flags[t] = int(at < C if y[t] > 0 else at > 0) + 2 * int(at > 0 if y[t] > 0 else at < C)
        F[a_] = Fa - (Ki[a_] - Kj[a_]) * delta
        ints[2], ints[3] = i, j
        done += 1
        ints[4] += 1
        if ints[4] >= ints[5]:
            ints[4] = 0
            if ints[8]:
                k = shrink_numpy(F, flags, act, len(a_), inactive, tol, ints)
                if k < 0:
                    return done, SHRINK
                if k < len(a_):
                    ints[6] = k
                    a_ = act[:k]
                    pos = y[a_] > 0
                    dg = diag[a_]
    return done, DONE


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
    n, d = X.shape
    for r in range(n):
        dot = X[r, 0] * X[t, 0]
        for k in range(1, d):
            dot += X[r, k] * X[t, k]
        if kind == 3:
            v = dot * -2.0 + sq[r] + sq[t]
            if v < 0.0:
                v = 0.0
            row[r] = v * -gamma
        elif kind == 2:
            row[r] = dot + 1.0
        else:
            row[r] = dot
    if kind == 3:
        _exp(row, row, scratch)
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


def accumulate_numpy(acc, rows, cache, slots, coef):
    """The same sums in the same order with numpy."""
    for k in range(len(slots)):
        acc += coef[k] * cache[slots[k], rows]


_compiled = None
_fill, _exp, _shrink = _fill_py, _exp_py, _shrink_py  # (compiled once compiled_pairs() has run; the loop calls them by these names)
_jitted: dict = {}


def compiled(fn):
    """fn compiled by numba (cached on disk), or None without numba."""
    if compiled_pairs() is None:
        return None
    if fn not in _jitted:
        import numba

        _jitted[fn] = numba.njit(cache=True, nogil=True)(fn)
    return _jitted[fn]


def accumulate(acc, rows, cache, slots, coef, use_numpy: bool = False) -> None:
    """acc += Σ_k coef_k K(x_rows, x_{s_k}) from the cached columns (slots), by the compiled loop or numpy."""
    fn = None if use_numpy else compiled(_accumulate_py)
    (fn or accumulate_numpy)(acc, rows, cache, slots, coef)


def compiled_pairs():
    """The numba-compiled loop (cached on disk, so a fresh process loads it), or None without numba."""
    global _compiled
    if _compiled is None:
        try:
            import numba
        except ImportError:  # pragma: no cover - numba is a dependency, but the numpy loop does the same
            _compiled = False
        else:
            global _fill, _exp, _shrink
            _exp = numba.njit(cache=True, nogil=True)(_exp_py)
            _shrink = numba.njit(cache=True, nogil=True)(_shrink_py)
            _fill = numba.njit(cache=True, nogil=True)(_fill_py)
            _compiled = numba.njit(cache=True, nogil=True)(_pairs_py)
    return _compiled or None


def run_pairs(state: PairState, max_pairs: int, use_numpy: bool = False) -> tuple[int, int]:
    """Up to max_pairs pair updates on state by the compiled loop (or the numpy one); (pairs done, why it stopped)."""
    s = state
    args = (s.F, s.alpha, s.y, s.diag, s.C, s.tau, s.tol, s.act, s.inactive, s.cache, s.slot, s.stamp, s.ints, s.viol,
            int(max_pairs), s.flags, s.owner, s.X, s.sq, s.kind, s.gamma, s.scratch, s.Fbar)
    fn = None if use_numpy else compiled_pairs()
    done, why = (fn or pairs_numpy)(*args)
    return int(done), int(why)
