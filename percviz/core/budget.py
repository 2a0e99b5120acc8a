"""A memory budget: estimate what an algorithm will allocate before it allocates, and refuse beyond the budget.

The budget is 4 GiB unless the environment variable PERCVIZ_MEMORY_BUDGET says otherwise (bytes, or a number
with K, M, G or T, e.g. "16G"). Estimates count the dense n×n matrices (the kernel matrix K, the signed Gram
matrix G and their temporaries), the n×d̂ feature matrices, and the LP/QP matrices, with the factors measured
on the solvers (peak RSS at n = 4,000 divided by 8n² bytes: 3.3 for the kernel algorithms, 11.3 for the SVM).
"""

from __future__ import annotations

import os
import re

from percviz.core.errors import DataError

ENV = "PERCVIZ_MEMORY_BUDGET"
DEFAULT_BYTES = 4 * 2**30
_UNITS = {"": 1, "K": 2**10, "M": 2**20, "G": 2**30, "T": 2**40}

#: Dense n×n float64 matrices alive at a solver's peak, by what it needs (measured, rounded up).
SQUARE_MATRICES = {"kernel": 3.5, "svm": 12}

#: Kernel solvers that build their own n×n QP matrices instead of reading G (counted as "svm").
GRAM_FREE = ("svm", "input-space-svm")


class BudgetError(DataError):
    """The computation would need more memory than the budget allows."""


def budget_bytes() -> int:
    """The budget in bytes: PERCVIZ_MEMORY_BUDGET if set and valid, else 4 GiB."""
    raw = os.environ.get(ENV, "").strip().upper().removesuffix("B").removesuffix("I")
    m = re.fullmatch(r"(\d+(?:\.\d*)?)\s*([KMGT]?)", raw)
    if not m:
        return DEFAULT_BYTES
    return int(float(m.group(1)) * _UNITS[m.group(2)])


def gib(nbytes: float) -> str:
    """Bytes as readable text: '74.5 GiB', '512 MiB'."""
    if nbytes >= 2**30:
        return f"{nbytes / 2**30:.3g} GiB"
    return f"{nbytes / 2**20:.3g} MiB"


def require(nbytes: float, what: str, advice: str) -> None:
    """Raise BudgetError when nbytes exceeds the budget: what needs it, and what to do instead."""
    budget = budget_bytes()
    if nbytes > budget:
        raise BudgetError(
            f"{what} would need about {gib(nbytes)} of memory; the budget is {gib(budget)}. {advice} "
            f"(or raise the budget, e.g. {ENV}={max(1, int(nbytes / 2**30 + 1))}G)."
        )


def square_matrices(n: int, count: float) -> float:
    """Bytes of `count` dense n×n float64 matrices."""
    return 8.0 * count * n * n


def largest_n(count: float) -> int:
    """The most points whose `count` n×n matrices fit in the budget."""
    return int((budget_bytes() / (8.0 * count)) ** 0.5)


def check_solver(solver) -> None:
    """Refuse a solver on its problem before anything large is allocated."""
    n = solver.problem.n
    rep = solver.representation
    who = f"{solver.display_name} on {n:,} points"
    if getattr(solver, "columns_on_demand", False):  # SMO: kernel columns on demand: O(n) plus its own bounded cache (cache_mb)
        return
    if rep == "kernel" and solver.name not in GRAM_FREE:
        from percviz.core.dense_gram import dense_advice, dense_what
        from percviz.core.gram_operator import factored_width, gram_bytes

        nbytes = gram_bytes(solver.problem)
        if factored_width(solver.problem) is not None:  # G kept as its n×D factor: no n×n matrix at all
            require(nbytes, f"{who} (G as its n×D factor)", "Use fewer points")
        else:  # the dense G built in place (core.dense_gram): G itself and block-sized scratch
            require(nbytes, f"{who} ({dense_what(solver.problem)})", dense_advice(solver.problem))
        return
    if solver.name in GRAM_FREE or rep == "kernel":
        count = SQUARE_MATRICES["svm" if solver.name in GRAM_FREE else "kernel"]
        require(
            square_matrices(n, count),
            f"{who} (the {n:,}×{n:,} kernel matrices, {gib(square_matrices(n, 1))} each)",
            f"Use at most {largest_n(count):,} points here, or a weight-vector algorithm on explicit features",
        )
        return
    d_hat = solver.problem.features.dimension()
    # Φ and Y (n×d̂ each) plus a few n×d̂ temporaries, and the LP's sparse matrix (about 3 nonzeros per entry).
    require(
        8.0 * 6 * n * d_hat,
        f"{who} with the {solver.problem.features.spec} map (n×d̂ = {n:,}×{d_hat:,} feature matrices)",
        "Use fewer points or a smaller feature map",
    )
