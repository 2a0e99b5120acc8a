"""The memory budget's arithmetic: its size (PERCVIZ_MEMORY_BUDGET, else 4 GiB), bytes as text, the one-line refusal.

The bottom of core's budget code: core.dense_gram and core.budget (what a solver will allocate) build on it, so
that no import goes round in a circle.
"""

from __future__ import annotations

import os
import re

from percviz.core.errors import DataError

ENV = "PERCVIZ_MEMORY_BUDGET"
DEFAULT_BYTES = 4 * 2**30
_UNITS = {"": 1, "K": 2**10, "M": 2**20, "G": 2**30, "T": 2**40}


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
