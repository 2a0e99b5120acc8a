"""k_x, K_xy, K_xx and K_xyx of every differentiable kernel against central finite differences, in 1–3 dimensions."""

import numpy as np
import pytest

from percviz.core.kernel_derivatives import K_xx, K_xy, K_xyx, NotDifferentiable, is_differentiable, k_x
from percviz.core.kernels import KERNELS, make_kernel, parse_kernel

KERNEL_SPECS = ["linear", "affine", "poly:degree=2,c=1", "poly:degree=3,c=0.5", "poly:degree=1,c=2", "rbf:gamma=0.7"]
H = 1e-5


def _fd(fun, X, Z, wrt):
    """Central differences of fun(X, Z) (shape (m, n, ...)) in each coordinate of X or Z: a trailing axis d."""
    base = fun(X, Z)
    out = np.zeros(base.shape + (X.shape[1],))
    for c in range(X.shape[1]):
        e = np.zeros(X.shape[1])
        e[c] = H
        if wrt == "x":
            out[..., c] = (fun(X + e, Z) - fun(X - e, Z)) / (2 * H)
        else:
            out[..., c] = (fun(X, Z + e) - fun(X, Z - e)) / (2 * H)
    return out


@pytest.mark.parametrize("spec", KERNEL_SPECS)
@pytest.mark.parametrize("d", [1, 2, 3])
def test_derivatives_match_finite_differences(spec, d):
    k = parse_kernel(spec)
    r = np.random.default_rng(d)
    X, Z = r.normal(size=(4, d)), r.normal(size=(5, d))
    kx = k_x(k, X, Z)
    assert kx.shape == (4, 5, d)
    np.testing.assert_allclose(kx, _fd(lambda A, B: k(A, B), X, Z, "x"), rtol=1e-6, atol=1e-7)
    kxy = K_xy(k, X, Z)
    assert kxy.shape == (4, 5, d, d)
    np.testing.assert_allclose(kxy, _fd(lambda A, B: k_x(k, A, B), X, Z, "z"), rtol=1e-6, atol=1e-7)
    kxx = K_xx(k, X, Z)
    np.testing.assert_allclose(kxx, _fd(lambda A, B: k_x(k, A, B), X, Z, "x"), rtol=1e-6, atol=1e-7)
    kxyx = K_xyx(k, X, Z)
    assert kxyx.shape == (4, 5, d, d, d)
    np.testing.assert_allclose(kxyx, _fd(lambda A, B: K_xy(k, A, B), X, Z, "x"), rtol=1e-5, atol=1e-6)


def test_k_xy_is_psi_dot_psi_for_an_explicit_map():
    # the homogeneous quadratic kernel (x·z)² has φ(x) = (x1², √2 x1x2, x2²); ψ(x) = ∇φ(x)
    k = make_kernel("poly", degree=2, c=0.0)
    x, z = np.array([0.3, -1.2]), np.array([2.0, 0.7])

    def psi(v):
        return np.array([[2 * v[0], 0.0], [np.sqrt(2) * v[1], np.sqrt(2) * v[0]], [0.0, 2 * v[1]]])

    def phi(v):
        return np.array([v[0] ** 2, np.sqrt(2) * v[0] * v[1], v[1] ** 2])

    np.testing.assert_allclose(K_xy(k, x, z)[0, 0], psi(x).T @ psi(z), rtol=1e-12)
    np.testing.assert_allclose(k_x(k, x, z)[0, 0], psi(x).T @ phi(z), rtol=1e-12)


def test_laplacian_is_refused_with_a_reason():
    k = make_kernel("laplacian", gamma=0.5)
    assert not is_differentiable(k)
    with pytest.raises(NotDifferentiable, match="not differentiable at x = z"):
        K_xy(k, np.zeros((1, 2)), np.zeros((1, 2)))
    # every other kernel of the core is covered
    assert {name for name in KERNELS if is_differentiable(KERNELS[name]())} == {"linear", "affine", "poly", "rbf"}
