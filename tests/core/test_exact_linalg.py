"""Exact Gauss–Jordan (core.exact_linalg): null spaces and solves checked by substitution in Fractions."""

from fractions import Fraction as F

from percviz.core.exact_linalg import null_space, solve


def test_null_space_of_a_rank_two_matrix_is_one_exact_vector():
    A = [[F(1), F(2), F(3)], [F(4), F(5), F(6)], [F(7), F(8), F(9)]]
    (u,) = null_space(A, 3)
    assert u == [F(1), F(-2), F(1)]
    assert A[2] == [F(7), F(8), F(9)]  # the input is left as it was


def test_null_space_of_a_full_rank_matrix_is_empty_and_of_zero_is_the_identity():
    assert null_space([[F(2), F(1)], [F(1), F(1, 3)]], 2) == []
    assert null_space([[F(0), F(0)]], 2) == [[F(1), F(0)], [F(0), F(1)]]


def test_solve_finds_an_exact_solution_or_says_inconsistent():
    A = [[F(1, 3), F(1)], [F(1), F(1)]]
    u = solve(A, [F(0), F(1)])
    assert [sum(a * x for a, x in zip(row, u)) for row in A] == [F(0), F(1)]
    assert u == [F(3, 2), F(-1, 2)]
    assert solve([[F(1), F(1)], [F(2), F(2)]], [F(1), F(3)]) is None
    under = solve([[F(1), F(1), F(1)]], [F(1)])  # free unknowns set to 0
    assert under == [F(1), F(0), F(0)]


def test_gordan_witness_is_an_exact_convex_combination_at_zero():
    """Three vectors around the origin: the certificate's q ≥ 0, Σ q = 1, Σ q_i y_i = 0, checked in Fractions."""
    import numpy as np

    from percviz.core.certify import exact_separability, gordan_witness

    Y = np.array([[1.0, 2.0], [-1.0, -1.0], [0.5, -3.0]])
    q = gordan_witness(Y)
    assert q is not None and min(q) >= 0 and sum(q) == 1
    assert all(sum(qi * F(float(Y[i, k])) for i, qi in enumerate(q)) == 0 for k in range(2))
    assert exact_separability(Y).separable is False
