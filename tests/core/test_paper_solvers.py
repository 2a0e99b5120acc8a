"""The algorithms of Ramdas & Peña: their bounds, the sharp per-iterate inequalities, and naive re-implementations."""

import math

import numpy as np
import pytest
from scipy.special import logsumexp

from percviz.core import gram
from percviz.core.data import PointSet
from percviz.core.problem import Problem
from percviz.core.solvers import Status, get_solver


# -- seeded data sets ---------------------------------------------------------------------------------------
def make_separable(n: int, target: float, kernel: str, seed: int) -> Problem:
    """n separable points whose ρ_K is about `target` (set by a few points placed near the boundary).

    Linear-type kernels: a random line, bulk points ≥ 0.2 from it, and four points at distance 2·target.
    RBF/Laplacian: a circle of radius 0.6 with a 0.1 gap, plus one + − pair `target`·√(2/γ) apart.
    """
    rng = np.random.default_rng(seed)
    name = kernel.split(":")[0]
    if name in ("affine", "linear", "poly"):
        th = rng.uniform(0, 2 * np.pi)
        w = np.array([np.cos(th), np.sin(th)])
        b = 0.0 if name == "linear" else rng.uniform(-0.3, 0.3)
        X = rng.uniform(-1, 1, size=(8 * n, 2))
        X = X[np.abs(X @ w + b) > 0.2][: n - 4]
        u = np.array([-w[1], w[0]])
        H = np.array([-b * w + t * u + side * 2 * target * w for side in (1, -1) for t in (-0.5, 0.5)])
        X = np.vstack([X, H])
        y = np.where(X @ w + b > 0, 1, -1)
    else:
        gamma = float(kernel.split("=")[1])
        X = rng.uniform(-1, 1, size=(8 * n, 2))
        r = np.linalg.norm(X, axis=1)
        X = X[np.abs(r - 0.6) > 0.1][: n - 2]
        d = target * np.sqrt(2 / gamma)
        c = np.array([0.6, 0.0]) * rng.choice([-1, 1])
        X = np.vstack([X, c - [d / 2, 0], c + [d / 2, 0]])
        y = np.where(np.linalg.norm(X, axis=1) < 0.6, 1, -1)
        y[-2:] = [1, -1]
    return Problem(PointSet.from_signed(X, y), kernel=kernel)


def xor() -> PointSet:
    return PointSet.from_signed([[0, 0], [1, 1], [0, 1], [1, 0]], [1, 1, -1, -1])


def duplicated_flipped(seed: int = 5) -> PointSet:
    """A separable cloud plus one of its points again with the opposite label (margin exactly 0)."""
    rng = np.random.default_rng(seed)
    X = rng.uniform(-1, 1, size=(60, 2))
    X = X[np.abs(X[:, 0] - X[:, 1]) > 0.2][:20]
    y = np.where(X[:, 0] > X[:, 1], 1, -1)
    return PointSet.from_signed(np.vstack([X, X[3]]), np.r_[y, -y[3]])


def overlapping_clouds(seed: int = 8) -> PointSet:
    rng = np.random.default_rng(seed)
    X = np.vstack([rng.normal([0.3, 0.3], 0.6, size=(20, 2)), rng.normal([-0.3, -0.3], 0.6, size=(20, 2))])
    return PointSet.from_signed(X, np.r_[np.ones(20), -np.ones(20)])


NON_SEPARABLE = {
    "xor-affine": lambda: Problem(xor(), kernel="affine"),
    "xor-linear": lambda: Problem(
        PointSet.from_signed([[1, 1], [-1, -1], [1, -1], [-1, 1]], [1, 1, -1, -1]), kernel="linear"
    ),
    "duplicated-affine": lambda: Problem(duplicated_flipped(), kernel="affine"),
    "duplicated-rbf": lambda: Problem(duplicated_flipped(), kernel="rbf:gamma=0.5"),
    "overlapping-affine": lambda: Problem(overlapping_clouds(), kernel="affine"),
}

SEPARABLE = [
    (n, target, kernel)
    for kernel, ns in (("affine", (10, 50, 200)), ("rbf:gamma=0.5", (10, 50)))
    for n in ns
    for target in (0.1, 0.01, 0.001)
] + [(200, 0.1, "rbf:gamma=8"), (200, 0.01, "rbf:gamma=8")]


def run(name, problem, max_iter=None, **params):
    s = get_solver(name)(problem, max_iter=max_iter, **params)
    return s.advance(10**9)


def simplex(a) -> bool:
    return a.min() >= -1e-15 and abs(a.sum() - 1) < 1e-9


def separates(problem, snap) -> bool:
    """y_i f(x_i) > 0 through the decision function itself (an independent evaluation path)."""
    return bool((problem.y * snap.decision(problem.X) > 0).all())


# -- separable sets: SNKP within 2√(2 log n)/ρ_K, NKP within 1/ρ_K² ----------------------------------------
@pytest.mark.parametrize("n,target,kernel", SEPARABLE)
def test_snkp_halts_within_its_bound(n, target, kernel):
    pr = make_separable(n, target, kernel, seed=n)
    rho = gram.optimal_margin(pr).rho
    assert 5e-5 < rho < 0.5
    snap = run("snkp", pr)
    assert snap.status is Status.SEPARATOR
    bound = 2 * math.sqrt(2 * math.log(n)) / rho
    assert snap.iteration <= bound and snap.iteration <= snap.metrics["bound"]  # the theorem, and the metric
    assert simplex(snap.alpha) and separates(pr, snap)
    assert snap.metrics["train_errors"] == 0 and snap.metrics["loss"] > -0.5 * rho**2 - 1e-12


@pytest.mark.parametrize("n,target,kernel", SEPARABLE)
def test_nkp_halts_within_its_bound(n, target, kernel):
    pr = make_separable(n, target, kernel, seed=n)
    rho = gram.optimal_margin(pr).rho
    snap = run("nkp", pr, max_iter=int(1 / rho**2) + 1)
    assert snap.status is Status.SEPARATOR
    assert snap.iteration <= 1 / rho**2 and snap.iteration <= snap.metrics["bound"]
    assert simplex(snap.alpha) and separates(pr, snap)


# -- the sharp per-iterate inequalities --------------------------------------------------------------------
def entropic_L(G, alpha, mu):
    """L_μ(α) = sup_p {−⟨Gα, p⟩ − μ(Σ p log p + log n)} + ½‖α‖²_G = μ log Σ e^{−Gα/μ} − μ log n + ½‖α‖²_G."""
    Ga = G @ alpha
    return mu * logsumexp(-Ga / mu) - mu * math.log(alpha.size) + 0.5 * alpha @ Ga


def l2_L(G, alpha, mu, q):
    """L^q_μ(α) = sup_p {−⟨Gα, p⟩ − μ/2‖p − q‖²} + ½‖α‖²_G, the sup attained at the projection of q − Gα/μ."""
    Ga = G @ alpha
    p = gram.project_simplex(q - Ga / mu)
    return -Ga @ p - 0.5 * mu * (p - q) @ (p - q) + 0.5 * alpha @ Ga


def L(G, alpha):
    Ga = G @ alpha
    return -Ga.min() + 0.5 * alpha @ Ga


@pytest.mark.parametrize(
    "problem",
    [
        make_separable(50, 0.01, "affine", seed=1),
        make_separable(50, 0.01, "rbf:gamma=0.5", seed=2),
        NON_SEPARABLE["xor-affine"](),
        NON_SEPARABLE["overlapping-affine"](),
    ],
)
def test_snkp_lemmas_4_and_5_at_every_iterate(problem):
    """Lemma 4: L_μk(α_k) ≥ L(α_k) − μ_k log n; Lemma 5 (appendix): L_μk(α_k) ≤ −½‖p_k‖²_G."""
    G = np.asarray(problem.G)
    n = problem.n
    count = 0
    for snap in get_solver("snkp")(problem, max_iter=400).snapshots():
        mu = snap.metrics["mu"]
        assert mu == pytest.approx(2.0 if snap.iteration == 0 else 4 / ((snap.iteration + 1) * (snap.iteration + 2)))
        Lmu = entropic_L(G, snap.alpha, mu)
        pnorm2 = snap.p @ G @ snap.p
        assert snap.metrics["p_g_norm"] ** 2 == pytest.approx(pnorm2, rel=1e-9, abs=1e-14)
        assert Lmu <= -0.5 * pnorm2 + 1e-12
        assert Lmu >= L(G, snap.alpha) - mu * math.log(n) - 1e-12
        assert simplex(snap.alpha) and simplex(snap.p)
        count += 1
    assert count > 3


@pytest.mark.parametrize("name", sorted(NON_SEPARABLE))
def test_snkpvn_lemma_8_corrected_on_non_separable_sets(name):
    """−½‖p_k‖²_G ≥ L^q_μk(α_k) ≥ −½μ_k dist(q, W)², so ‖p_k‖²_G ≤ 2μ_k·min{1, ‖q‖²_G/ρ_K²} (corrected)."""
    pr = NON_SEPARABLE[name]()
    G = np.asarray(pr.G)
    rho = gram.optimal_margin(pr).rho
    q = np.full(pr.n, 1 / pr.n)
    qn = math.sqrt(q @ G @ q)
    factor = min(1.0, qn / abs(rho)) if rho else 1.0
    for snap in get_solver("snkpvn")(pr, max_iter=300, delta=1e-6).snapshots():
        k, mu = snap.iteration, snap.metrics["mu"]
        assert mu == pytest.approx(4 * pr.n / ((k + 1) * (k + 2)))
        p2 = snap.p @ G @ snap.p
        Lq = l2_L(G, snap.alpha, mu, q)
        assert Lq <= -0.5 * p2 + 1e-12  # the appendix's unified proof (with ½)
        assert Lq >= L(G, snap.alpha) - mu - 1e-12
        assert p2 <= 2 * mu * factor**2 + 1e-12
        assert snap.metrics["p_g_norm"] <= snap.metrics["bound"] * (1 + 1e-9)
        assert p2 <= (2 * math.sqrt(2 * pr.n) / (k + 1) * factor) ** 2 * (1 + 1e-9)  # Lemma 8's conclusion


def test_snkpvn_lemma_7_on_a_separable_set():
    """ρ_K > 0: −½‖p_k‖²_G ≥ L^q_μk(α_k) ≥ L(α_k) − μ_k, and a separator within 2√(2n)/ρ_K steps."""
    pr = make_separable(60, 0.01, "affine", seed=7)
    G = np.asarray(pr.G)
    rho = gram.optimal_margin(pr).rho
    for q_choice in ("uniform", "balanced"):
        last = None
        for snap in get_solver("snkpvn")(pr, q=q_choice, delta=1e-6).snapshots():
            q = np.full(pr.n, 1 / pr.n) if q_choice == "uniform" else np.where(pr.y > 0, 0.5 / (pr.y > 0).sum(), 0.5 / (pr.y < 0).sum())
            Lq = l2_L(G, snap.alpha, snap.metrics["mu"], q)
            assert Lq <= -0.5 * snap.p @ G @ snap.p + 1e-12
            assert Lq >= L(G, snap.alpha) - snap.metrics["mu"] - 1e-12
            last = snap
        assert last.status is Status.SEPARATOR and separates(pr, last)
        assert last.iteration <= 2 * math.sqrt(2 * pr.n) / rho and last.iteration <= last.metrics["bound"]


# -- non-separable sets: certificates, and the LP agrees ---------------------------------------------------
@pytest.mark.parametrize("name", sorted(NON_SEPARABLE))
def test_isnkpvn_returns_a_certificate(name):
    pr = NON_SEPARABLE[name]()
    G = np.asarray(pr.G)
    eps, gamma = 1e-3, 2.0
    m = gram.optimal_margin(pr)
    assert not m.separable
    snaps = list(get_solver("isnkpvn")(pr, eps=eps, gamma=gamma, max_iter=20000).snapshots())
    last = snaps[-1]
    assert last.status is Status.CERTIFICATE
    assert simplex(last.p) and math.sqrt(max(last.p @ G @ last.p, 0)) < eps
    q0 = math.sqrt(np.full(pr.n, 1 / pr.n) @ G @ np.full(pr.n, 1 / pr.n))
    assert last.metrics["outer"] <= max(0, math.ceil(math.log(q0 / eps) / math.log(gamma)))
    for s in snaps:  # Lemma 8 (corrected) inside every call, with q_t of that call: ‖q_t‖_G = γ δ_t
        assert s.metrics["p_g_norm"] <= s.metrics["bound"] * (1 + 1e-9) or s is last
    assert last.iteration <= 4300  # the notes measured at most 4.3k on zero-margin sets


@pytest.mark.parametrize("name,eps", [("xor-affine", 1e-3), ("xor-linear", 1e-3), ("overlapping-affine", 1e-3),
                                      ("duplicated-affine", 1e-2), ("duplicated-rbf", 1e-2)])
def test_nvn_returns_a_certificate_and_obeys_the_decay_bound(name, eps):
    pr = NON_SEPARABLE[name]()
    G = np.asarray(pr.G)
    solver = get_solver("nvn")(pr, eps=eps, max_iter=50000)
    p0 = np.full(pr.n, 1 / pr.n)
    inv0 = 1 / (p0 @ G @ p0)
    snap = solver.start()
    while not snap.status.done:
        snap = solver.step()
        # the von Neumann decay ‖p_k‖²_G ≤ 1/(k + ‖p_0‖_G⁻²) while no separator has been found
        assert snap.p @ G @ snap.p <= 1 / (snap.iteration + inv0) + 1e-12
        assert snap.metrics["p_g_norm"] <= snap.metrics["bound"] * (1 + 1e-9)
    assert snap.status is Status.CERTIFICATE
    assert simplex(snap.p) and math.sqrt(max(snap.p @ G @ snap.p, 0)) <= eps
    assert not gram.optimal_margin(pr).separable
    if "duplicated" in name:  # margin 0: the decay bound caps the steps at 1/ε²
        assert snap.iteration <= 1 / eps**2
    if name == "duplicated-rbf":  # the notes measured about 1/(4ε²) steps on such sets
        assert snap.iteration == pytest.approx(1 / (4 * eps**2), rel=0.01)


def test_isnkpvn_on_a_separable_set_finds_a_separator_within_its_bounds():
    pr = make_separable(80, 0.01, "affine", seed=3)
    rho = gram.optimal_margin(pr).rho
    snaps = list(get_solver("isnkpvn")(pr, eps=1e-4).snapshots())
    last = snaps[-1]
    assert last.status is Status.SEPARATOR and separates(pr, last)
    q0 = snaps[0].metrics["delta"] * 2.0
    assert last.metrics["outer"] <= math.ceil(math.log(q0 / rho) / math.log(2.0))  # errata: ⌈log(‖q₀‖/ρ)/log γ⌉
    per_call: dict[float, int] = {}
    for s in snaps[1:]:
        per_call[s.metrics["outer"]] = per_call.get(s.metrics["outer"], 0) + 1
    assert max(per_call.values()) <= 2 * math.sqrt(2 * pr.n) / rho


def test_zero_norm_start_returns_at_once():
    """‖q_0‖_G = 0 exactly (one point with both labels): every primal–dual algorithm certifies at iteration 0."""
    pr = Problem(PointSet.from_signed([[1.0, 1.0], [1.0, 1.0]], [1, -1]), kernel="affine")
    for name in ("isnkpvn", "nvn", "snkpvn"):
        snap = get_solver(name)(pr).start()
        assert snap.status is Status.CERTIFICATE and snap.iteration == 0
        assert np.allclose(snap.p, [0.5, 0.5])


def test_start_that_already_separates_counts_zero_iterations():
    pr = Problem(PointSet.from_signed([[1.0, 0.0], [-1.0, 0.0]], [1, -1]), kernel="affine")  # G = I
    for name in ("snkp", "snkpvn", "isnkpvn", "nvn"):
        snap = get_solver(name)(pr).start()
        assert snap.status is Status.SEPARATOR and snap.iteration == 0
    snap = get_solver("nkp")(pr).run()
    assert snap.iteration == 2 and snap.triggers == (1,)  # e_0 first (every (Gα)_i = 0, smallest index)


# -- naive re-implementations, exactly as the paper writes them ---------------------------------------------
def softmax(v):
    e = np.exp(v - v.max())
    return e / e.sum()


def naive_nkp(G, limit):
    a = np.zeros(len(G))
    for k in range(limit + 1):
        if (G @ a > 0).all():
            return a, k
        if k == limit:
            return a, k
        th = 1 / (k + 1)
        a = (1 - th) * a + th * np.eye(len(G))[np.argmin(G @ a)]


def naive_smoothed(G, a, mu, prox, exit_p, limit):
    p = prox(G @ a, mu)
    for k in range(limit + 1):
        if (G @ a > 0).all():
            return a, p, k, "separator"
        if exit_p(p):
            return a, p, k, "certificate"
        if k == limit:
            return a, p, k, "max_iter"
        th = 2 / (k + 3)
        a_new = (1 - th) * (a + th * p) + th**2 * prox(G @ a, mu)
        mu = (1 - th) * mu
        p = (1 - th) * p + th * prox(G @ a_new, mu)
        a = a_new


def naive_isnkpvn(G, gamma, eps, limit):
    n = len(G)
    q, total, t = np.full(n, 1 / n), 0, 0
    while True:
        delta = math.sqrt(max(q @ G @ q, 0)) / gamma
        if delta <= 1e-7:
            return q, total, "certificate", t
        prox = lambda Ga, mu, q=q: gram.project_simplex(q - Ga / mu)  # noqa: E731
        a, p, k, how = naive_smoothed(G, q, 2 * n, prox, lambda p: math.sqrt(max(p @ G @ p, 0)) < delta, limit - total)
        total += k
        if how != "certificate":
            return a, total, how, t
        q = p
        if delta < eps:
            return q, total, "certificate", t
        t += 1


def naive_nvn(G, eps, limit):
    n = len(G)
    p = np.full(n, 1 / n)
    for k in range(limit + 1):
        if (G @ p > 0).all():
            return p, k, "separator"
        if math.sqrt(max(p @ G @ p, 0)) <= eps:
            return p, k, "certificate"
        j = int(np.argmin(G @ p))
        d = np.eye(n)[j] - p  # minimize ‖p + λd‖²_G over [0, 1]
        lam = min(max(-(p @ G @ d) / (d @ G @ d), 0), 1)
        p = p + lam * d
    return p, limit, "max_iter"


SMALL = {
    "separable-affine": lambda: make_separable(15, 0.05, "affine", seed=11),
    "separable-rbf": lambda: make_separable(15, 0.05, "rbf:gamma=0.5", seed=12),
    "xor-affine": NON_SEPARABLE["xor-affine"],
    "overlapping-affine": NON_SEPARABLE["overlapping-affine"],
}


@pytest.mark.parametrize("case", sorted(SMALL))
def test_solvers_match_naive_implementations(case):
    pr = SMALL[case]()
    G = np.asarray(pr.G)
    n = pr.n
    limit = 3000

    a, k = naive_nkp(G, limit)
    s = run("nkp", pr, max_iter=limit)
    assert s.iteration == k and np.allclose(s.alpha, a, atol=1e-12)

    a, p, k, how = naive_smoothed(G, np.full(n, 1 / n), 2.0, lambda Ga, mu: softmax(-Ga / mu), lambda p: False, limit)
    s = run("snkp", pr, max_iter=limit)
    assert (s.iteration, s.status.value) == (k, how) and np.allclose(s.alpha, a, atol=1e-10)
    assert np.allclose(s.p, p, atol=1e-10)

    q = np.full(n, 1 / n)
    prox = lambda Ga, mu: gram.project_simplex(q - Ga / mu)  # noqa: E731
    a, p, k, how = naive_smoothed(G, q, 2.0 * n, prox, lambda p: math.sqrt(max(p @ G @ p, 0)) < 1e-3, limit)
    s = run("snkpvn", pr, max_iter=limit, delta=1e-3)
    assert (s.iteration, s.status.value) == (k, how) and np.allclose(s.alpha, a, atol=1e-10)

    v, k, how, t = naive_isnkpvn(G, 2.0, 1e-3, limit)
    s = run("isnkpvn", pr, max_iter=limit, eps=1e-3)
    assert (s.iteration, s.status.value, s.metrics["outer"]) == (k, how, t)
    assert np.allclose(s.p if how == "certificate" else s.alpha, v, atol=1e-10)

    p, k, how = naive_nvn(G, 1e-3, 20000)
    s = run("nvn", pr, max_iter=20000, eps=1e-3)
    assert (s.iteration, s.status.value) == (k, how) and np.allclose(s.p, p, atol=1e-10)


def test_normalized_perceptron_is_nkp_on_the_affine_kernel():
    """With φ = (1, x) the normalized rows have Gram matrix G of the affine kernel: the same iterates."""
    pr = make_separable(40, 0.02, "affine", seed=9)
    a = run("normalized-perceptron", pr)
    b = run("nkp", pr)
    assert a.status is b.status is Status.SEPARATOR
    assert a.iteration == b.iteration and np.allclose(a.alpha, b.alpha, atol=1e-12)
    assert a.metrics["margin"] == pytest.approx(b.metrics["margin"], rel=1e-9)
    assert a.metrics["bound"] == pytest.approx(b.metrics["bound"], rel=1e-6)
    assert a.iteration <= a.metrics["bound"] and separates(pr, a)


def test_kernel_perceptron_cycles_and_obeys_novikoff():
    pr = make_separable(30, 0.05, "rbf:gamma=2", seed=4)
    K = pr.kernel(pr.X, pr.X)
    y = pr.y
    # naive: cycle i = 0, 1, …; α_i += 1 when y_i Σ_j α_j y_j K_ji ≤ 0; stop after a clean pass
    alpha, order, i, clean = np.zeros(pr.n), [], 0, 0
    while clean < pr.n:
        if y[i] * (K[i] @ (alpha * y)) <= 0:
            alpha[i] += 1
            order.append(i)
            clean = 0
        else:
            clean += 1
        i = (i + 1) % pr.n
    snaps = list(get_solver("kernel-perceptron")(pr).snapshots())
    assert [s.triggers[0] for s in snaps[1:]] == order
    last = snaps[-1]
    assert last.status is Status.SEPARATOR and np.array_equal(last.alpha, alpha)
    assert separates(pr, last) and last.iteration <= last.metrics["bound"]


def test_perceptron_obeys_novikoff():
    pr = make_separable(60, 0.02, "affine", seed=6)
    snap = run("perceptron", pr)
    assert snap.status is Status.SEPARATOR and separates(pr, snap)
    R2 = (np.asarray(pr.Y) ** 2).sum(axis=1).max()
    rho = gram.margin_of_rows(np.asarray(pr.Y)).rho
    assert snap.iteration <= R2 / rho**2 and snap.iteration <= snap.metrics["bound"]  # Novikoff


def test_bound_metric_can_be_turned_off_and_is_skipped_when_costly(monkeypatch):
    pr = make_separable(12, 0.05, "rbf:gamma=0.5", seed=1)
    lin = make_separable(12, 0.05, "affine", seed=1)
    for name in ("nkp", "snkp", "snkpvn", "isnkpvn", "kernel-perceptron", "perceptron", "normalized-perceptron"):
        problem = lin if "perceptron" in name else pr
        assert "bound" in run(name, problem).metrics
        assert "bound" not in run(name, problem, bound=False).metrics
    monkeypatch.setattr(gram, "BOUND_MAX_N", 5)
    fresh = make_separable(12, 0.05, "rbf:gamma=0.5", seed=1)  # nothing memoized yet
    assert "bound" not in run("snkp", fresh).metrics  # G would have to be factored: skipped
    assert "bound" in run("normalized-perceptron", Problem(lin.points, kernel="rbf:gamma=0.5")).metrics  # rows
    assert "bound" in run("snkp", make_separable(12, 0.05, "affine", seed=1)).metrics
    assert "bound" in run("snkp", pr).metrics  # already memoized on this problem: still reported


def duplicated_flipped_n(n: int, seed: int) -> PointSet:
    """duplicated_flipped with n points: n − 1 on both sides of x1 = x2 (gap 0.2), point 3 again, flipped."""
    rng = np.random.default_rng(seed)
    X = rng.uniform(-1, 1, size=(3 * n, 2))
    X = X[np.abs(X[:, 0] - X[:, 1]) > 0.2][: n - 1]
    y = np.where(X[:, 0] > X[:, 1], 1, -1)
    return PointSet.from_signed(np.vstack([X, X[3]]), np.r_[y, -y[3]])


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_isnkpvn_step_counts_on_zero_margin_rbf_sets(seed):
    """ISNKPVN(γ = 2, ε = 1e-3) on n = 200 zero-margin sets (RBF γ = 0.5): within the paper's bounds.

    The step counts (4364, 13384 and 13036 when measured) are not pinned: they were this code's own output.
    Round 1 saw 13–15k where the notes saw ≤ 4.3k. The implementation follows §6 exactly (q_0 = 1/n,
    δ_t = ‖q_t‖_G/γ, SNKPVN(q_t, δ_t) with α_0 = q_t, μ_0 = 2n, inner exit ‖p_k‖_G < δ_t, outer halt δ_t < ε;
    test_solvers_match_naive_implementations checks it step for step against a literal transcription); the
    count depends on the data set: seed 0 gives the notes' 4.3k, seeds 1 and 2 three times that. All stay far
    inside the theory: with ρ_K = 0, Lemma 8 gives each call at most 2√(2n)/δ_t steps (≈ 40/δ_t here), and
    there are at most ⌈log(‖q_0‖_G/ε)/log γ⌉ calls; the total is a geometric series dominated by the last call.
    """
    pr = Problem(duplicated_flipped_n(200, seed), kernel="rbf:gamma=0.5")
    outer: list[int] = []
    deltas: dict[int, float] = {}

    def record(iteration, metrics):
        outer.append(int(metrics["outer"]))
        deltas.setdefault(int(metrics["outer"]), metrics["delta"])

    snap = get_solver("isnkpvn")(pr, eps=1e-3, gamma=2.0, max_iter=100000, bound=False).run_recording(record)
    assert snap.status is Status.CERTIFICATE
    G = np.asarray(pr.G)
    q0 = np.full(pr.n, 1 / pr.n)
    assert snap.metrics["outer"] <= math.ceil(math.log(math.sqrt(q0 @ G @ q0) / 1e-3) / math.log(2.0))
    steps = np.bincount(outer[1:])  # updates made in each call (the start snapshot is not an update)
    for t, k in enumerate(steps):
        assert k <= 2 * math.sqrt(2 * pr.n) / deltas[t] + 1  # Lemma 8 (corrected) with ρ_K = 0
    # the total: δ_{t+1} = ‖q_{t+1}‖_G/γ < δ_t/γ, so Σ_t 2√(2n)/δ_t ≤ 2√(2n)/δ_T · γ/(γ − 1) (geometric series)
    assert snap.iteration <= 2 * math.sqrt(2 * pr.n) / deltas[max(deltas)] * 2.0 / (2.0 - 1.0) + len(deltas)


def test_a_certificate_in_the_first_call_says_one_call():
    """The message read "after 1 calls"."""
    pr = Problem(xor(), kernel="affine")
    first = get_solver("isnkpvn")(pr, eps=0.5).run()
    assert first.status is Status.CERTIFICATE and first.metrics["outer"] == 0
    assert "after 1 call," in first.message
    later = get_solver("isnkpvn")(pr, eps=1e-3).run()
    assert f"after {int(later.metrics['outer']) + 1} calls," in later.message
