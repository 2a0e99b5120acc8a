"""SMO's pair updates behind one call: the compiled loop (_smo_loop) or the numpy one (_smo_numpy), same pairs."""

from __future__ import annotations

from percviz.core.solvers._smo_loop import PairState, _accumulate_py, compiled, compiled_pairs
from percviz.core.solvers._smo_numpy import accumulate_numpy, pairs_numpy


def accumulate(acc, rows, cache, slots, coef, use_numpy: bool = False) -> None:
    """acc += Σ_k coef_k K(x_rows, x_{s_k}) from the cached columns (slots), by the compiled loop or numpy."""
    fn = None if use_numpy else compiled(_accumulate_py)
    (fn or accumulate_numpy)(acc, rows, cache, slots, coef)


def run_pairs(state: PairState, max_pairs: int, use_numpy: bool = False) -> tuple[int, int]:
    """Up to max_pairs pair updates on state by the compiled loop (or the numpy one); (pairs done, why it stopped)."""
    s = state
    args = (s.F, s.alpha, s.y, s.diag, s.C, s.tau, s.tol, s.act, s.inactive, s.cache, s.slot, s.stamp, s.ints, s.viol,
            int(max_pairs), s.flags, s.owner, s.X, s.sq, s.kind, s.gamma, s.scratch, s.Fbar)
    fn = None if use_numpy else compiled_pairs()
    if fn is None:
        done, why = pairs_numpy(*args)
    else:
        done, why = fn(*args, s.cF, s.cfl, s.cdg, s.ccache, s.ctag)
    return int(done), int(why)
