"""The explicit φ-maps: the notes' quadratic, full polynomials, random Fourier features, the 1-D map."""

from math import comb

import numpy as np
import pytest

from percviz.core.decision import FeatureLinear
from percviz.core.errors import ParameterError, SpecError
from percviz.core.features import FEATURE_MAPS, parse_features, register_features

rng = np.random.default_rng(0)
X = rng.normal(size=(7, 2))


def test_quadratic_is_the_notes_six_terms_in_their_order():
    f = parse_features("quadratic")
    x1, x2 = X.T
    expected = np.column_stack([np.ones(7), x1, x2, x1**2, x1 * x2, x2**2])  # the notes' quad_features
    np.testing.assert_array_equal(f.transform(X), expected)
    assert f.term_names() == ["1", "x1", "x2", "x1²", "x1x2", "x2²"]
    assert f.affine_coefficients(np.ones(6)) is None and not f.affine_in_input


def test_quadratic_circle_is_a_hyperplane():
    """The notes: the circle x1² + x2² = ρ² is a = (−ρ², 0, 0, 1, 0, 1)."""
    dec = FeatureLinear(parse_features("quadratic"), [-1.1**2, 0, 0, 1, 0, 1])
    t = np.linspace(0, 2 * np.pi, 9)
    np.testing.assert_allclose(dec(1.1 * np.column_stack([np.cos(t), np.sin(t)])), 0, atol=1e-12)
    assert dec.affine() is None


@pytest.mark.parametrize("k", [1, 2, 3, 5])
def test_polynomial_has_all_monomials(k):
    f = parse_features(f"poly:degree={k}")
    assert f.dimension() == comb(2 + k, k)  # the notes' count C(d + k, k) with d = 2
    # Every monomial x1^i x2^j with i + j ≤ k, each once: at (2, 3) and (5, 7) the columns are the pairs
    # (2^i 3^j, 5^i 7^j), listed here from the exponents alone (not from the map's own table).
    P = f.transform(np.array([[2.0, 3.0], [5.0, 7.0]]))
    expected = sorted((2.0**i * 3.0**j, 5.0**i * 7.0**j) for i in range(k + 1) for j in range(k + 1 - i))
    assert sorted(map(tuple, P.T.tolist())) == expected
    assert len(set(f.term_names())) == f.dimension()
    assert f.affine_in_input == (k == 1)


def test_poly2_equals_quadratic_and_poly1_is_affine():
    at = np.array([[2.0, 3.0]])
    # literal transcriptions: (1, x1, x2, x1², x1x2, x2²) and (1, x1, x2) at (2, 3)
    assert parse_features("poly:degree=2").transform(at).tolist() == [[1.0, 2.0, 3.0, 4.0, 6.0, 9.0]]
    assert parse_features("quadratic").transform(at).tolist() == [[1.0, 2.0, 3.0, 4.0, 6.0, 9.0]]
    p1 = parse_features("poly:degree=1")
    assert p1.transform(at).tolist() == parse_features("linear").transform(at).tolist() == [[1.0, 2.0, 3.0]]
    w1, w2, b = p1.affine_coefficients([0.5, 2.0, -1.0])
    assert (w1, w2, b) == (2.0, -1.0, 0.5)
    assert FeatureLinear(p1, [0.5, 2.0, -1.0]).affine() == (2.0, -1.0, 0.5)


def test_linear1d_ignores_x2():
    f = parse_features("linear1d")
    np.testing.assert_array_equal(f.transform(X), np.column_stack([np.ones(7), X[:, 0]]))
    assert f.affine_coefficients([-1.5, 2.5]) == (2.5, 0.0, -1.5)
    dec = FeatureLinear(f, [-1.5, 2.5])
    assert dec([[0.6, 7.0]])[0] == pytest.approx(0.0)  # the notes' boundary x = 0.6


def test_rff_approximates_the_rbf_kernel_and_is_seeded():
    f = parse_features("rff:dim=4000,gamma=0.5,seed=3")
    P = f.transform(X)
    assert P.shape == (7, 4001) and (P[:, 0] == 1).all()
    K = P[:, 1:] @ P[:, 1:].T
    d2 = ((X[:, None, :] - X[None, :, :]) ** 2).sum(-1)
    assert np.abs(K - np.exp(-0.5 * d2)).max() < 0.08  # Monte Carlo error ~ 1/√D
    again = parse_features("rff:dim=4000,gamma=0.5,seed=3").transform(X)
    np.testing.assert_array_equal(P, again)
    other = parse_features("rff:dim=4000,gamma=0.5,seed=4").transform(X)
    assert not np.allclose(P, other)
    assert f.term_names()[0] == "1" and len(f.term_names()) == 4001
    assert f.affine_coefficients(np.ones(4001)) is None


def test_bad_specs_are_refused_clearly():
    with pytest.raises(ParameterError, match="degree"):
        parse_features("poly:degree=0")
    with pytest.raises(ParameterError, match="gamma"):
        parse_features("rff:gamma=-1")
    with pytest.raises(SpecError, match="Unknown feature map 'cubic'. Known feature maps: linear, linear1d"):
        parse_features("cubic")
    with pytest.raises(SpecError, match="Empty feature-map spec"):
        parse_features(" ")
    with pytest.raises(ValueError, match="feature map 'poly' registered twice"):
        register_features(type("Impostor", (FEATURE_MAPS["poly"],), {"name": "poly"}))
    assert FEATURE_MAPS["poly"].__name__ == "Polynomial"
    assert {"linear", "linear1d", "quadratic", "poly", "rff"} <= set(FEATURE_MAPS)
