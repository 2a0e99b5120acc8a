"""Input derivatives of the core's kernels for any input dimension d (Akaho's k_x and K_xy).

    k_x(x, z)  = ∂k(x, z)/∂x              = ψ(x)·φ(z)     shape (m, n, d)
    K_xy(x, z) = ∂²k(x, z)/∂x ∂zᵀ         = ψ(x)·ψ(z)ᵀ    shape (m, n, d, d), [i, j, a, b] = ∂²k/∂x_a ∂z_b
    K_xx(x, z) = ∂²k(x, z)/∂x ∂xᵀ                         shape (m, n, d, d) (Hessians of f, for (13)–(17))

X is m×d and Z is n×d. The Laplacian kernel exp(−γ‖x − z‖₁) is not differentiable where a coordinate of
x − z vanishes, in particular at x = z, so K_xy does not exist on the diagonal: it is refused with a clear
NotDifferentiable error (a DataError) instead of returning a subgradient.
"""

from __future__ import annotations

import numpy as np

from percviz.core.data import as_rows as _rows
from percviz.core.errors import DataError
from percviz.core.kernels import AffineKernel, Kernel, LaplacianKernel, LinearKernel, PolynomialKernel, RBFKernel


class NotDifferentiable(DataError):
    """The kernel has no second input derivative where it is needed."""


def is_differentiable(kernel: Kernel) -> bool:
    """True when k_x, K_xy and K_xx exist everywhere for this kernel."""
    return type(kernel) in (LinearKernel, AffineKernel, PolynomialKernel, RBFKernel)


def require_differentiable(kernel: Kernel, who: str) -> None:
    """Raise NotDifferentiable when the kernel has no second input derivative."""
    if is_differentiable(kernel):
        return
    if isinstance(kernel, LaplacianKernel):
        raise NotDifferentiable(
            f"{who} needs the kernel's second derivatives, and the Laplacian kernel exp(−γ‖x − z‖₁) is not "
            "differentiable at x = z (nor where a coordinate of x − z is 0). Use the RBF kernel exp(−γ‖x − z‖²)."
        )
    raise NotDifferentiable(
        f"{who} needs the second input derivatives of the {kernel.spec} kernel, which percviz does not know. "
        "Use linear, affine, poly or rbf."
    )


def k_x(kernel: Kernel, X, Z) -> np.ndarray:
    """∂k(x, z)/∂x at x = X[i], z = Z[j]: shape (m, n, d) (the kernels' own grad_x)."""
    require_differentiable(kernel, "k_x")
    return np.asarray(kernel.grad_x(_rows(X), _rows(Z)), dtype=float)


def K_xy(kernel: Kernel, X, Z) -> np.ndarray:
    """∂²k(x, z)/∂x_a ∂z_b at x = X[i], z = Z[j]: shape (m, n, d, d)."""
    require_differentiable(kernel, "K_xy")
    X, Z = _rows(X), _rows(Z)
    m, n, d = X.shape[0], Z.shape[0], X.shape[1]
    eye = np.eye(d)[None, None]
    if isinstance(kernel, (LinearKernel, AffineKernel)):
        return np.broadcast_to(eye, (m, n, d, d)).copy()
    if isinstance(kernel, PolynomialKernel):
        p, s = kernel.degree, X @ Z.T + kernel.c
        # ∂/∂z_b of p s^{p−1} z_a = p(p−1) s^{p−2} x_b z_a + p s^{p−1} δ_ab
        outer = Z[None, :, :, None] * X[:, None, None, :]
        second = p * (p - 1) * s ** (p - 2) if p >= 2 else np.zeros_like(s)
        return second[:, :, None, None] * outer + (p * s ** (p - 1))[:, :, None, None] * eye
    g, k = kernel.gamma, kernel.gram(X, Z)
    diff = X[:, None, :] - Z[None, :, :]
    # ∂/∂z_b of −2γ k (x_a − z_a) = −4γ² k (x_a − z_a)(x_b − z_b) + 2γ k δ_ab
    return k[:, :, None, None] * (-4.0 * g * g * diff[..., :, None] * diff[..., None, :] + 2.0 * g * eye)


def K_xx(kernel: Kernel, X, Z) -> np.ndarray:
    """∂²k(x, z)/∂x_a ∂x_b at x = X[i], z = Z[j]: shape (m, n, d, d)."""
    require_differentiable(kernel, "K_xx")
    X, Z = _rows(X), _rows(Z)
    m, n, d = X.shape[0], Z.shape[0], X.shape[1]
    if isinstance(kernel, (LinearKernel, AffineKernel)):
        return np.zeros((m, n, d, d))
    if isinstance(kernel, PolynomialKernel):
        p, s = kernel.degree, X @ Z.T + kernel.c
        second = p * (p - 1) * s ** (p - 2) if p >= 2 else np.zeros_like(s)
        return second[:, :, None, None] * (Z[None, :, :, None] * Z[None, :, None, :])
    g, k = kernel.gamma, kernel.gram(X, Z)
    diff = X[:, None, :] - Z[None, :, :]
    eye = np.eye(d)[None, None]
    return k[:, :, None, None] * (4.0 * g * g * diff[..., :, None] * diff[..., None, :] - 2.0 * g * eye)


def K_xyx(kernel: Kernel, X, Z) -> np.ndarray:
    """∂³k(x, z)/∂x_a ∂z_b ∂x_c at x = X[i], z = Z[j]: shape (m, n, d, d, d) (Hessians of ψ-terms of f)."""
    require_differentiable(kernel, "K_xyx")
    X, Z = _rows(X), _rows(Z)
    m, n, d = X.shape[0], Z.shape[0], X.shape[1]
    if isinstance(kernel, (LinearKernel, AffineKernel)):
        return np.zeros((m, n, d, d, d))
    eye = np.eye(d)
    if isinstance(kernel, PolynomialKernel):
        p, s = kernel.degree, X @ Z.T + kernel.c
        c3 = p * (p - 1) * (p - 2) * s ** (p - 3) if p >= 3 else np.zeros_like(s)
        c2 = p * (p - 1) * s ** (p - 2) if p >= 2 else np.zeros_like(s)
        za_xb_zc = Z[None, :, :, None, None] * X[:, None, None, :, None] * Z[None, :, None, None, :]
        # ∂/∂x_c of c2 x_b z_a + p s^{p−1} δ_ab: c3 z_c x_b z_a + c2 z_a δ_bc + c2 z_c δ_ab
        t2 = Z[None, :, :, None, None] * eye[None, None, None] + Z[None, :, None, None, :] * eye[None, None, :, :, None]
        return c3[..., None, None, None] * za_xb_zc + c2[..., None, None, None] * t2
    g, k = kernel.gamma, kernel.gram(X, Z)
    u = X[:, None, :] - Z[None, :, :]  # (m, n, d)
    # h_ab = k(−4γ² u_a u_b + 2γ δ_ab); ∂h_ab/∂x_c = −2γ u_c h_ab + k(−4γ²)(δ_ac u_b + u_a δ_bc)
    h = k[..., None, None] * (-4.0 * g * g * u[..., :, None] * u[..., None, :] + 2.0 * g * eye)
    t1 = -2.0 * g * h[..., None] * u[..., None, None, :]
    t2 = -4.0 * g * g * k[..., None, None, None] * (
        eye[None, None, :, None, :] * u[..., None, :, None] + u[..., :, None, None] * eye[None, None, None, :, :]
    )
    return t1 + t2
