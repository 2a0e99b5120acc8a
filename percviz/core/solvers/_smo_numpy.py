"""SMO's pure-numpy loop: the pairs of the compiled loop in _smo_loop, with numpy vector operations."""

from __future__ import annotations

import numpy as np

from percviz.core.solvers._smo_loop import DONE, NEED, OPTIMAL, SHRINK, UNBOUNDED, fill_numpy


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


def accumulate_numpy(acc, rows, cache, slots, coef):
    """The same sums in the same order with numpy."""
    for k in range(len(slots)):
        acc += coef[k] * cache[slots[k], rows]
