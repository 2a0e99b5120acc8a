"""A memory budget: estimate what an algorithm will allocate before it allocates, and refuse beyond the budget.

The budget is 4 GiB unless the environment variable PERCVIZ_MEMORY_BUDGET says otherwise (bytes, or a number
with K, M, G or T, e.g. "16G"). Estimates count the dense n×n matrices (the kernel matrix K, the signed Gram
matrix G and their temporaries), the n×d̂ feature matrices, and the LP/QP matrices, with the factors measured
on the solvers (peak RSS at n = 4,000 divided by 8n² bytes: 3.3 for the kernel algorithms, 11.3 for the SVM).
"""

from __future__ import annotations

from percviz.core.dense_gram import dense_advice, dense_what
from percviz.core.gram_operator import factored_width, gram_bytes
from percviz.core.memory_budget import (  # noqa: F401 - the budget's arithmetic, also read as budget.*
    DEFAULT_BYTES,
    ENV,
    BudgetError,
    budget_bytes,
    gib,
    largest_n,
    require,
    square_matrices,
)

#: Dense n×n float64 matrices alive at a solver's peak, by what it needs (measured, rounded up).
SQUARE_MATRICES = {"kernel": 3.5, "svm": 12}

#: Kernel solvers that build their own n×n QP matrices instead of reading G (counted as "svm").
GRAM_FREE = ("svm", "input-space-svm")


#: n×n×d×d tensors alive while the input-space SVM builds K_xy and its temporaries (ŝ, t̂, û of Akaho's §3.3).
INPUT_SECOND_DERIVATIVES = 4
#: n×n×d×d×d tensors alive while the Hessians of a polynomial f are built (K_xyx, for the stability test (17)).
INPUT_THIRD_DERIVATIVES = 5


def input_derivative_bytes(n: int, d: int, third: bool) -> float:
    """Bytes of the input-space SVM's derivative tensors: n²d² (K_xy) and, with `third`, n²d³ (K_xyx)."""
    return 8.0 * n * n * d * d * (INPUT_SECOND_DERIVATIVES + (INPUT_THIRD_DERIVATIVES * d if third else 0))


def check_input_derivatives(problem, who: str) -> None:
    """Refuse the input-space SVM when its n×n×d×d (and, for polynomial kernels, n×n×d³) tensors exceed the budget."""
    from percviz.core.kernels import PolynomialKernel

    n, d = problem.X.shape
    third = isinstance(problem.kernel, PolynomialKernel)
    require(
        input_derivative_bytes(n, d, third),
        f"{who} in R^{d:,} (its {'n²d³ third' if third else 'n²d² second'} input-derivative tensors)",
        "The input-space SVM suits low-dimensional inputs: reduce the dimension (e.g. PCA) or use the SVM",
    )


def check_solver(solver) -> None:
    """Refuse a solver on its problem before anything large is allocated."""
    check_solver_class(type(solver), solver.problem)


def check_solver_class(cls, problem) -> None:
    """check_solver for an algorithm's class on a problem, before any solver (or ρ_K of the problem) is made."""
    n = problem.n
    rep = cls.representation
    who = f"{cls.display_name} on {n:,} points"
    if getattr(cls, "columns_on_demand", False):  # SMO: kernel columns on demand: O(n) plus its own bounded cache (cache_mb)
        return
    if rep == "kernel" and cls.name not in GRAM_FREE:
        nbytes = gram_bytes(problem)
        if factored_width(problem) is not None:  # G kept as its n×D factor: no n×n matrix at all
            require(nbytes, f"{who} (G as its n×D factor)", "Use fewer points")
        else:  # the dense G built in place (core.dense_gram): G itself and block-sized scratch
            require(nbytes, f"{who} ({dense_what(problem)})", dense_advice(problem))
        return
    if cls.name == "input-space-svm":
        check_input_derivatives(problem, who)
    if cls.name in GRAM_FREE or rep == "kernel":
        count = SQUARE_MATRICES["svm" if cls.name in GRAM_FREE else "kernel"]
        require(
            square_matrices(n, count),
            f"{who} (the {n:,}×{n:,} kernel matrices, {gib(square_matrices(n, 1))} each)",
            f"Use at most {largest_n(count):,} points here, or a weight-vector algorithm on explicit features",
        )
        return
    d_hat = problem.features.dimension()
    # Φ and Y (n×d̂ each) plus a few n×d̂ temporaries, and the LP's sparse matrix (about 3 nonzeros per entry).
    require(
        8.0 * 6 * n * d_hat,
        f"{who} with the {problem.features.spec} map (n×d̂ = {n:,}×{d_hat:,} feature matrices)",
        "Use fewer points or a smaller feature map",
    )
