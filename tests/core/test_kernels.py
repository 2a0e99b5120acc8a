"""Kernels against scikit-learn's pairwise kernels, their gradients against finite differences, and spec errors."""

import numpy as np
import pytest

from percviz.core.data import PointSet
from percviz.core.errors import DataError, ParameterError, PercvizError, SpecError
from percviz.core.kernels import KERNELS, make_kernel, parse_kernel
from percviz.core.problem import Problem


def _pairwise(name):
    """scikit-learn's kernel `name`, the independent reference (those tests skip without scikit-learn)."""
    def call(*args, **kwargs):
        mod = pytest.importorskip("sklearn.metrics.pairwise", reason="scikit-learn's kernels are the reference")
        return getattr(mod, name)(*args, **kwargs)
    return call


laplacian_kernel, linear_kernel, polynomial_kernel, rbf_kernel = map(
    _pairwise, ("laplacian_kernel", "linear_kernel", "polynomial_kernel", "rbf_kernel")
)

RNG = np.random.default_rng(17)
X = RNG.normal(size=(7, 2))
Z = RNG.normal(size=(5, 2))

REFERENCE = {
    "linear": (lambda A, B: linear_kernel(A, B)),
    "affine": (lambda A, B: 1.0 + linear_kernel(A, B)),
    "poly:degree=3,c=0.5": (lambda A, B: polynomial_kernel(A, B, degree=3, gamma=1.0, coef0=0.5)),
    "poly:degree=1,c=0": (lambda A, B: polynomial_kernel(A, B, degree=1, gamma=1.0, coef0=0.0)),
    "rbf:gamma=0.7": (lambda A, B: rbf_kernel(A, B, gamma=0.7)),
    "laplacian:gamma=1.3": (lambda A, B: laplacian_kernel(A, B, gamma=1.3)),
}


@pytest.mark.parametrize("spec", sorted(REFERENCE))
def test_kernel_matrix_and_diagonal_match_scikit_learn(spec):
    k = parse_kernel(spec)
    assert np.allclose(k(X, Z), REFERENCE[spec](X, Z), rtol=1e-12, atol=1e-12)
    assert np.allclose(k.diag(X), np.diag(REFERENCE[spec](X, X)), rtol=1e-12, atol=1e-12)
    assert k(X[0], Z).shape == (1, 5)  # a single point is one row


def test_every_registered_kernel_is_checked():
    assert {s.split(":")[0] for s in REFERENCE} == set(KERNELS)


@pytest.mark.parametrize("spec", sorted(REFERENCE))
def test_grad_x_matches_central_differences(spec):
    k = parse_kernel(spec)
    # keep the Laplacian away from its kinks (a coordinate of x equal to one of z)
    A = X + 0.013
    G = k.grad_x(A, Z)
    assert G.shape == (A.shape[0], Z.shape[0], 2)
    h = 1e-6
    for d in range(2):
        e = np.zeros(2)
        e[d] = h
        fd = (k(A + e, Z) - k(A - e, Z)) / (2 * h)
        assert np.allclose(G[:, :, d], fd, rtol=1e-6, atol=1e-7)


def test_affine_coefficients_reproduce_the_expansion():
    coef = RNG.normal(size=7)
    P = RNG.normal(size=(9, 2))
    for name in ("linear", "affine"):
        k = make_kernel(name)
        w1, w2, b = k.affine_coefficients(X, coef)
        assert np.allclose(k(P, X) @ coef, P @ [w1, w2] + b, atol=1e-12)
        assert k.affine_in_input
    assert parse_kernel("rbf").affine_coefficients(X, coef) is None


@pytest.mark.parametrize(
    "spec,error,words",
    [
        ("", SpecError, "Empty"),
        ("   ", SpecError, "Empty"),
        ("sigmoid", SpecError, "Unknown kernel 'sigmoid'"),
        ("rbf:gamma", SpecError, "key=value"),
        ("rbf:=2", SpecError, "key=value"),
        ("rbf:gamma=1,gamma=2", SpecError, "given twice"),
        ("rbf:width=1", ParameterError, "Unknown parameter 'width'"),
        ("rbf:gamma=0", ParameterError, "gamma"),
        ("rbf:gamma=-1", ParameterError, "gamma"),
        ("rbf:gamma=abc", ParameterError, "Got 'abc'"),
        ("rbf:gamma=nan", ParameterError, "gamma"),
        ("poly:degree=2.5", ParameterError, "integer"),
        ("poly:degree=0", ParameterError, "degree"),
        ("poly:c=-1", ParameterError, "c"),
        ("laplacian:gamma=0", ParameterError, "gamma"),
        ("linear:gamma=1", ParameterError, "Unknown parameter"),
    ],
)
def test_bad_specs_are_refused_with_a_readable_message(spec, error, words):
    with pytest.raises(error, match=words) as info:
        parse_kernel(spec)
    assert isinstance(info.value, PercvizError)
    assert "\n" not in str(info.value)


def test_spec_round_trip_and_aliases():
    for spec in ("rbf:gamma=0.5", "poly:degree=3,c=1", "affine", "laplacian:gamma=2"):
        k = parse_kernel(spec)
        assert parse_kernel(k.spec).spec == k.spec
    assert parse_kernel("Gaussian:gamma=2").spec == parse_kernel("rbf:gamma=2").spec
    assert parse_kernel("polynomial").name == "poly"
    assert parse_kernel("rbf").gamma == 0.5  # the default


def test_a_second_kernel_under_a_known_name_is_refused_and_the_first_kept():
    from percviz.core.kernels import RBFKernel, register_kernel

    class Impostor(RBFKernel):
        name = "rbf"

    with pytest.raises(ValueError, match="kernel 'rbf' registered twice"):
        register_kernel(Impostor)
    assert KERNELS["rbf"] is RBFKernel
    assert type(parse_kernel("rbf:gamma=2")) is RBFKernel
    with pytest.raises(SpecError, match="Unknown kernel 'sigmoid'. Known kernels: linear, affine, poly, rbf"):
        make_kernel("sigmoid")


@pytest.mark.parametrize("spec", ["linear", "poly:degree=2,c=0"])
def test_zero_self_kernel_is_refused_naming_the_point(spec):
    pts = PointSet.from_signed([[1.0, 2.0], [-1.0, 0.5], [0.0, 0.0], [3.0, 1.0]], [1, -1, 1, -1])
    with pytest.raises(DataError, match=r"Point 2 at \(0, 0\).*K\(x, x\) = 0") as info:
        Problem(pts, kernel=spec).G
    assert "Move or delete that point" in str(info.value)


def test_normalized_signed_gram_matrix():
    """G_ij = y_i y_j K_ij/√(K_ii K_jj) (§3): unit diagonal, symmetric, PSD."""
    y = np.array([1, -1, 1, 1, -1, -1, 1])
    for spec in REFERENCE:
        if spec.startswith(("linear", "poly:degree=1,c=0")):
            continue
        pr = Problem(PointSet.from_signed(X, y), kernel=spec)
        K = REFERENCE[spec](X, X)
        s = y / np.sqrt(np.diag(K))
        assert np.allclose(pr.G, s[:, None] * K * s[None, :], atol=1e-12)
        assert np.allclose(np.diag(pr.G), 1) and np.array_equal(pr.G, pr.G.T)
        assert np.linalg.eigvalsh(pr.G).min() > -1e-10
        assert not pr.G.flags.writeable
