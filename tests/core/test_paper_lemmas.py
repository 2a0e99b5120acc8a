"""The paper's claims the core solvers rely on, checked with independent computations (Ramdas & Peña):
Lemma 1 (L(α) < 0 ⇒ Gα > 0) on the solvers' iterates, Lemma 8's middle inequality L^q_μ(α_k) ≥ −½μ_k dist(q, W)²
with the witness set W computed by a QP of the test's own, and ISNKPVN's total-iteration bound."""

import math

import numpy as np
import pytest
from scipy.optimize import minimize

from percviz.core.data import PointSet
from percviz.core.problem import Problem
from percviz.core.solvers import Status, get_solver


def project_simplex(v):
    """Euclidean projection on the simplex (sort-based, written here independently of percviz.core.gram)."""
    u = np.sort(v)[::-1]
    css = np.cumsum(u) - 1
    k = np.nonzero(u - css / np.arange(1, len(v) + 1) > 0)[0][-1]
    return np.maximum(v - css[k] / (k + 1), 0)


def loss(G, a):
    """L(α) = max_i −(Gα)_i + ½‖α‖²_G (the paper's eq. for L)."""
    Ga = G @ a
    return -Ga.min() + 0.5 * a @ Ga


def smoothed_loss(G, a, mu, q):
    """L^q_μ(α) = sup_{p∈Δ} {−⟨Gα, p⟩ − μ/2‖p − q‖²} + ½‖α‖²_G, the sup at the projection of q − Gα/μ."""
    Ga = G @ a
    p = project_simplex(q - Ga / mu)
    return -Ga @ p - 0.5 * mu * (p - q) @ (p - q) + 0.5 * a @ Ga


def simplex_qp(objective, grad, n, eq=None):
    cons = [{"type": "eq", "fun": lambda p: p.sum() - 1, "jac": lambda p: np.ones(n)}]
    if eq is not None:
        cons.append({"type": "eq", "fun": lambda p: eq @ p, "jac": lambda p: eq})
    res = minimize(objective, np.full(n, 1 / n), jac=grad, bounds=[(0, 1)] * n, constraints=cons,
                   method="SLSQP", options={"ftol": 1e-14, "maxiter": 500})
    assert res.success, res.message
    return res.x


def independent_rho(G) -> float:
    """ρ_K = min_{p∈Δ} ‖p‖_G on a separable set (minimax duality), by SLSQP rather than the project's gram."""
    p = simplex_qp(lambda p: p @ G @ p, lambda p: 2 * G @ p, len(G))
    return math.sqrt(max(p @ G @ p, 0.0))


def separable_set(seed, n=24, gap=0.15):
    rng = np.random.default_rng(seed)
    X = rng.uniform(-1, 1, size=(6 * n, 2))
    s = X[:, 0] + 0.5 * X[:, 1] - 0.1
    X = X[np.abs(s) > gap][:n]
    return PointSet.from_signed(X, np.where(X[:, 0] + 0.5 * X[:, 1] - 0.1 > 0, 1, -1))


@pytest.mark.parametrize("name", ["snkp", "nkp", "snkpvn", "isnkpvn"])
@pytest.mark.parametrize("kernel", ["affine", "rbf:gamma=1"])
def test_lemma_1_negative_loss_means_a_separator(name, kernel):
    pr = Problem(separable_set(3), kernel=kernel)
    G = np.asarray(pr.G)
    seen_negative = False
    for snap in get_solver(name)(pr, max_iter=20000, bound=False).snapshots():
        a = np.asarray(snap.alpha)
        if loss(G, a) < 0:
            seen_negative = True
            assert (G @ a > 0).all()  # Lemma 1
            # … and f_α is perfect: y_j f(x_j)/√K(x_j, x_j) = (Gα)_j, through the decision function itself
            assert (pr.y * snap.decision(pr.X) > 0).all()
        if snap.status is Status.SEPARATOR:
            assert (G @ a > 0).all()
    assert snap.status is Status.SEPARATOR
    if name in ("snkp", "nkp"):
        assert seen_negative or snap.iteration == 0 or (G @ a > 0).all()


def overlapping(seed=5, n=14):
    rng = np.random.default_rng(seed)
    X = np.r_[rng.normal(size=(n // 2, 2)), rng.normal(size=(n // 2, 2)) + 0.4]
    X = np.r_[X, X[:1]]  # one point again with the other label: W contains ½(e_0 + e_n)
    y = np.r_[np.ones(n // 2), -np.ones(n // 2), -1.0]
    return PointSet.from_signed(X, y)


@pytest.mark.parametrize("kernel", ["affine", "rbf:gamma=0.5"])
def test_lemma_8_middle_inequality_with_the_witness_set(kernel):
    pr = Problem(overlapping(), kernel=kernel)
    G = np.asarray(pr.G)
    n = pr.n
    q = np.full(n, 1 / n)
    # W = {p ∈ Δ : ‖p‖_G = 0} = {p ∈ Δ : Φ̃ᵗp = 0} with Φ̃ = V√Λ from G's eigenvectors (rank cut at rounding)
    lam, V = np.linalg.eigh(G)
    keep = lam > 1e-9 * lam.max()
    Phi = (V[:, keep] * np.sqrt(lam[keep])).T
    try:
        w = simplex_qp(lambda p: (p - q) @ (p - q), lambda p: 2 * (p - q), n, eq=Phi)
    except AssertionError:  # SLSQP may not converge on many equality rows: the known witness gives an upper
        w = np.zeros(n)  # bound on dist(q, W), which is all the inequality needs (sup over W ≥ its value at w)
        w[[0, n - 1]] = 0.5
    assert math.sqrt(max(w @ G @ w, 0)) < 1e-6  # a witness: the set is not separable
    dist2 = (w - q) @ (w - q)
    checked = 0
    for snap in get_solver("snkpvn")(pr, max_iter=400, delta=1e-6, bound=False).snapshots():
        mu = 4 * n / ((snap.iteration + 1) * (snap.iteration + 2))  # μ_k of §6 (μ_0 = 2n)
        Lq = smoothed_loss(G, np.asarray(snap.alpha), mu, q)
        p2 = snap.p @ G @ snap.p
        assert -0.5 * p2 >= Lq - 1e-12  # the first inequality (appendix)
        assert Lq >= -0.5 * mu * dist2 - 1e-9  # the middle one: L^q_μ ≥ sup over W = −½μ dist(q, W)²
        assert p2 <= mu * dist2 + 1e-9  # hence ‖p_k‖²_G ≤ μ_k dist(q, W)²
        checked += 1
        last = snap
    assert checked > 30 and last.status in (Status.CERTIFICATE, Status.MAX_ITER)


@pytest.mark.parametrize("seed", [1, 2])
def test_isnkpvn_total_iterations_on_a_separable_set(seed):
    """§6: a separator within T = log(‖q_0‖_G/ρ_K)/log γ calls (+1), each of at most 2√(2n)/ρ_K steps."""
    pr = Problem(separable_set(seed, n=30, gap=0.05), kernel="affine")
    G = np.asarray(pr.G)
    rho = independent_rho(G)
    assert rho > 1e-3
    gamma = 2.0
    outer = []
    snap = get_solver("isnkpvn")(pr, gamma=gamma, eps=1e-6, max_iter=10**6, bound=False).run_recording(
        lambda it, m: outer.append(int(m["outer"]))
    )
    assert snap.status is Status.SEPARATOR
    q0 = np.full(pr.n, 1 / pr.n)
    calls = math.ceil(math.log(math.sqrt(q0 @ G @ q0) / rho) / math.log(gamma)) + 1
    assert snap.metrics["outer"] + 1 <= calls
    assert snap.iteration <= calls * 2 * math.sqrt(2 * pr.n) / rho
    steps = np.bincount(outer[1:])
    assert steps.max(initial=0) <= 2 * math.sqrt(2 * pr.n) / rho + 1  # Lemma 7 inside each call
