"""percviz.estimators: scikit-learn's own estimator checks, its tools (Pipeline, CV, grid search, displays)."""

import subprocess
import sys
import warnings

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

pytest.importorskip("sklearn", reason="scikit-learn is the optional extra percviz[sklearn]")

from sklearn.base import clone  # noqa: E402
from sklearn.datasets import load_breast_cancer, load_iris, make_blobs  # noqa: E402
from sklearn.linear_model import LinearRegression  # noqa: E402
from sklearn.metrics.pairwise import laplacian_kernel, linear_kernel, polynomial_kernel, rbf_kernel  # noqa: E402
from sklearn.model_selection import GridSearchCV, cross_val_score  # noqa: E402
from sklearn.pipeline import make_pipeline  # noqa: E402
from sklearn.preprocessing import PolynomialFeatures, StandardScaler  # noqa: E402
from sklearn.utils.estimator_checks import check_estimator, check_non_transformer_estimators_n_iter  # noqa: E402

from percviz import estimators as E  # noqa: E402
from percviz.core.errors import DataError, ParameterError, PercvizError  # noqa: E402
from percviz.core.solvers import get_solver, load_all  # noqa: E402
from percviz.core.solvers.base import DEPRECATED_NAMES  # noqa: E402

#: Every estimator class: the generic one (SNKP) and one alias per registered algorithm (deprecated names aside).
EVERY_CLASS = [(name, cls) for name, cls in sorted(E.ALIASES.items()) if name not in DEPRECATED_NAMES]
#: The input-space SVM's updates take ~0.1–1 s each: one outer step keeps its ~50 checks to seconds.
FAST = {"input-space-svm": {"steps": 1}}


#: Failures owned by another item (none now: the input-space SVM runs on d = 1 since its contour rectangle is
#: built only in the plane).
FIXED_ELSEWHERE: dict[str, set[str]] = {}


def _instance(name: str, cls, **kw):
    return cls(**{"max_iter": 300, **FAST.get(name, {}), **kw})


@pytest.mark.slow
@pytest.mark.parametrize("name,cls", [("generic", E.PerceptronFamilyClassifier), *EVERY_CLASS],
                         ids=lambda v: v if isinstance(v, str) else "")
def test_check_estimator_with_at_most_the_declared_failures(name, cls):
    """scikit-learn's check_estimator on every class: every check passes, or fails with a reason declared by
    expected_failed_checks (from the solver class's capabilities: a declared check may pass on these data)."""
    est = E.PerceptronFamilyClassifier(max_iter=300) if name == "generic" else _instance(name, cls)
    declared = E.expected_failed_checks(est)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        results = check_estimator(est, expected_failed_checks=declared, on_fail=None)
    failed = {r["check_name"]: repr(r["exception"])[:300] for r in results
              if r["status"] == "failed" and r["check_name"] not in FIXED_ELSEWHERE.get(name, ())}
    assert failed == {}
    assert {r["check_name"] for r in results if r["status"] == "xfail"} <= set(declared)
    assert sum(r["status"] == "passed" for r in results) >= 40


def test_the_n_iter_waiver_is_real_and_ho_kashyap_passes_the_check():
    """The waived check fails for a real reason: SNKP's uniform α with RBF already separates setosa on iris (0
    updates, a checked separator); Ho–Kashyap counts its a(1) = Y⁺b(1) as the notes' step 1 and passes it."""
    X, y = load_iris(return_X_y=True)
    snkp = E.SNKPClassifier(kernel="rbf", gamma=0.5, max_iter=200).fit(X, y)
    assert snkp.n_iter_.min() == 0 and snkp.status_[int(np.argmin(snkp.n_iter_))] == "separator"
    assert "check_non_transformer_estimators_n_iter" in E.expected_failed_checks(snkp)
    hk = E.HoKashyapClassifier()
    assert E.expected_failed_checks(hk) == {}
    check_non_transformer_estimators_n_iter("HoKashyapClassifier", hk)
    fitted = clone(hk).fit(X, y)
    assert fitted.n_iter_.min() == 1 and fitted.status_[0] == "separator"  # setosa: separated by a(1)


def test_smo_classifier_is_a_deprecated_alias_of_the_one_svm():
    X, y = make_blobs(n_samples=40, centers=2, cluster_std=1.5, random_state=4)
    with pytest.warns(FutureWarning, match="SmoClassifier is deprecated.*SVMClassifier"):
        old = E.SmoClassifier(C=1.0, kernel="rbf", gamma=0.5)
    assert isinstance(old, E.SVMClassifier) and old.get_params() == E.SVMClassifier(C=1.0, kernel="rbf",
                                                                                     gamma=0.5).get_params()
    new = E.SVMClassifier(C=1.0, kernel="rbf", gamma=0.5).fit(X, y)
    fitted = old.fit(X, y)
    np.testing.assert_array_equal(fitted.decision_function(X), new.decision_function(X))


def test_every_alias_follows_the_registry():
    """One class per algorithm; its keyword defaults are the ParamSpecs' defaults (one source)."""
    assert set(E.ALIASES) == set(load_all()) | set(DEPRECATED_NAMES)
    X, y = make_blobs(n_samples=24, centers=[[-2, -2], [2, 2]], cluster_std=0.4, random_state=0)
    for name, cls in EVERY_CLASS:
        est = cls(max_iter=50)
        params = est.get_params()
        for spec in get_solver(name).params.specs:
            if spec.name in E.DISPLAY_ONLY:
                assert spec.name not in params
                continue
            key = spec.name if spec.name not in E.RESERVED else f"algorithm_{spec.name}"
            assert params[key] == spec.default, (name, key)
        fitted = clone(est).fit(X, y)
        assert fitted.score(X, y) == 1.0, name  # well-separated blobs
        assert fitted.n_iter_ <= 50
    assert E.ISNKPVNClassifier().get_params()["algorithm_gamma"] == 2.0  # its γ is not the kernel's


def test_any_two_labels_and_the_sign_convention():
    X = np.array([[0.0, 1.0], [0.2, 1.5], [2.0, -1.0], [2.5, -0.5]])
    y = np.array(["spam", "spam", "ham", "ham"])
    est = E.SNKPClassifier().fit(X, y)
    assert list(est.classes_) == ["ham", "spam"]
    f = est.decision_function(X)
    assert f.shape == (4,) and ((f > 0) == (y == "spam")).all()  # > 0 means classes_[1]
    assert list(est.predict(X)) == list(y)
    assert est.status_ == "separator" and est.margin_ > 0 and est.certificate_ is None


def test_mse_coefficients_equal_least_squares_on_the_labels():
    """The notes' MSE rule with b = 1 solves min ‖Ya − 1‖ = min Σ (a·(1, x_i) − y_i)²: linear regression on ±1."""
    X, y = make_blobs(n_samples=60, centers=2, n_features=6, cluster_std=3.0, random_state=3)
    est = E.MSEClassifier().fit(X, y)
    ref = LinearRegression().fit(X, np.where(y == est.classes_[1], 1.0, -1.0))
    np.testing.assert_allclose(est.coef_[0], ref.coef_, rtol=1e-8, atol=1e-10)
    np.testing.assert_allclose(est.intercept_[0], ref.intercept_, rtol=1e-8, atol=1e-10)
    np.testing.assert_allclose(est.decision_function(X), ref.predict(X), rtol=1e-8, atol=1e-10)


def test_certificate_of_non_separability_in_5d():
    X = np.zeros((4, 5))
    X[:, :2] = [[1, 1], [-1, -1], [1, -1], [-1, 1]]  # XOR: no affine separator
    est = E.NVNClassifier().fit(X, [1, 1, 0, 0])
    assert est.status_ == "certificate" and est.margin_ is None
    p = est.certificate_
    assert p.min() >= 0 and p.sum() == pytest.approx(1.0)
    # p is a convex combination of the signed rows y_i (1, x_i)/‖·‖ at the origin: Σ p_i y_i φ̃_i ≈ 0
    rows = np.where(np.array([1, 1, 0, 0]) == 1, 1.0, -1.0)[:, None] * np.column_stack([np.ones(4), X])
    rows /= np.linalg.norm(rows, axis=1, keepdims=True)
    assert np.linalg.norm(p @ rows) < 1e-2


def test_multiclass_native_and_one_vs_rest():
    X, y = load_iris(return_X_y=True)
    X = StandardScaler().fit_transform(X)
    native = E.MSEMulticlassClassifier().fit(X, y)
    ovr = E.MSEClassifier().fit(X, y)
    assert native.multiclass_ == "native" and ovr.multiclass_ == "one-vs-rest"
    assert native.decision_function(X).shape == ovr.decision_function(X).shape == (150, 3)
    assert native.coef_.shape == ovr.coef_.shape == (3, 4)
    assert len(ovr.status_) == 3 and ovr.n_iter_.shape == (3,)
    assert native.score(X, y) > 0.8 and ovr.score(X, y) > 0.7
    # one-vs-rest: row k of coef_ is the two-class fit of class k against the rest
    k1 = E.MSEClassifier().fit(X, y == 1)
    np.testing.assert_allclose(ovr.coef_[1], k1.coef_[0], rtol=1e-10)


def test_clear_errors():
    X, y = make_blobs(n_samples=20, centers=2, random_state=0)
    with pytest.raises(ParameterError, match="Known algorithms"):
        E.PerceptronFamilyClassifier(algorithm="nope").fit(X, y)
    with pytest.raises(ParameterError, match="eps"):
        E.NVNClassifier(eps=-1).fit(X, y)
    with pytest.raises(ParameterError, match="eps"):
        E.PerceptronFamilyClassifier(algorithm="nvn", algorithm_params={"eps": 0}).fit(X, y)
    with pytest.raises(ParameterError, match="gamma"):
        E.SNKPClassifier(kernel="rbf", gamma=-2).fit(X, y)
    with pytest.raises(ParameterError, match="given both"):
        E.SNKPClassifier(kernel="rbf:gamma=1", gamma=2).fit(X, y)
    with pytest.raises(ParameterError, match="max_iter"):
        E.SNKPClassifier(max_iter=-1).fit(X, y)
    with pytest.raises(DataError, match="one class"):
        E.SNKPClassifier().fit(X, np.zeros(20))
    with pytest.raises(TypeError, match="unexpected keyword"):
        E.SNKPClassifier(epsilon=1)
    with pytest.raises(TypeError):
        E.SNKPClassifier("rbf")  # keyword-only


def test_pipeline_cross_validation_and_grid_search_over_gamma():
    X, y = make_blobs(n_samples=80, centers=2, n_features=4, cluster_std=2.5, random_state=1)
    pipe = make_pipeline(StandardScaler(), E.SNKPClassifier(kernel="rbf", max_iter=300))
    scores = cross_val_score(pipe, X, y, cv=3)
    assert scores.shape == (3,) and scores.mean() > 0.8
    grid = GridSearchCV(pipe, {"snkpclassifier__gamma": [0.01, 0.1, 1.0, 100.0]}, cv=3).fit(X, y)
    means = grid.cv_results_["mean_test_score"]
    assert grid.best_params_["snkpclassifier__gamma"] != 100.0  # γ = 100: a bump on each point, no generalization
    assert means[3] < max(means)
    generic = GridSearchCV(E.PerceptronFamilyClassifier(kernel="rbf", max_iter=200),
                           {"algorithm": ["snkp", "nkp"], "gamma": [0.1, 1.0]}, cv=3).fit(X, y)
    assert generic.best_estimator_.algorithm in ("snkp", "nkp")


def test_decision_boundary_display():
    pytest.importorskip("matplotlib", reason="DecisionBoundaryDisplay draws with matplotlib")
    import matplotlib

    matplotlib.use("Agg")
    from sklearn.inspection import DecisionBoundaryDisplay

    X, y = make_blobs(n_samples=40, centers=2, random_state=2)
    est = E.SNKPClassifier(kernel="rbf", gamma=0.5).fit(X, y)
    disp = DecisionBoundaryDisplay.from_estimator(est, X, response_method="decision_function", grid_resolution=30)
    assert disp.response.shape == (30, 30)
    # the display's grid values are the estimator's own decision function
    grid = np.column_stack([disp.xx0.ravel(), disp.xx1.ravel()])
    np.testing.assert_allclose(disp.response.ravel(), est.decision_function(grid))
    assert (disp.response > 0).any() and (disp.response < 0).any()


def test_percviz_imports_without_scikit_learn():
    """`import percviz` never needs scikit-learn; percviz.estimators says how to get it in one line."""
    code = (
        "import sys; sys.modules['sklearn'] = None\n"
        "import percviz, percviz.core, percviz.cli\n"
        "try:\n    import percviz.estimators\nexcept ImportError as e:\n    print(e)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert "pip install 'percviz[sklearn]'" in out.stdout


# -------------------------------------------------------------------------------------------------------------
# The fitted attributes reproduce decision_function (issue 28): f recomputed with scikit-learn's own kernels
# -------------------------------------------------------------------------------------------------------------

#: percviz's kernel keywords → the same kernel from sklearn.metrics.pairwise (an independent evaluation).
KERNELS = {
    "affine": ({"kernel": "affine"}, lambda X, U: 1.0 + linear_kernel(X, U)),
    "linear": ({"kernel": "linear"}, lambda X, U: linear_kernel(X, U)),
    "poly": ({"kernel": "poly", "degree": 3, "coef0": 1.0},
             lambda X, U: polynomial_kernel(X, U, degree=3, gamma=1.0, coef0=1.0)),
    "rbf": ({"kernel": "rbf", "gamma": 0.5}, lambda X, U: rbf_kernel(X, U, gamma=0.5)),
    "laplacian": ({"kernel": "laplacian", "gamma": 0.5}, lambda X, U: laplacian_kernel(X, U, gamma=0.5)),
}


def _derivative_terms(kernel: str, X, U, B) -> np.ndarray:
    """(m, n): b_j·∂K(u, x)/∂u at u = U_j for each row x of X, in closed form (∂/∂u of 1 + u·x is x, of
    (u·x + 1)³ is 3(u·x + 1)² x, of exp(−γ‖u − x‖²) is −2γ(u − x)K)."""
    bx = X @ B.T
    if kernel in ("affine", "linear"):
        return bx
    if kernel == "poly":
        return 3.0 * (X @ U.T + 1.0) ** 2 * bx
    return -2.0 * 0.5 * rbf_kernel(X, U, gamma=0.5) * ((B * U).sum(axis=1)[None, :] - bx)


def _two_and_three_classes():
    X2, y2 = make_blobs(n_samples=30, centers=[[-1.5, -1], [1.5, 1]], cluster_std=0.9, random_state=5)
    X, y = load_iris(return_X_y=True)
    keep = np.r_[0:12, 50:62, 100:112]
    X3 = StandardScaler().fit_transform(X[:, 2:4])[keep] + np.random.default_rng(0).normal(0, 0.05, (36, 2))
    return [(X2, y2), (X3, y[keep])]


def _rows(f: np.ndarray) -> np.ndarray:
    """decision_function as (m, rows): one column per row k of the fitted attributes."""
    return f[:, None] if f.ndim == 1 else f


def _check_dual(est, kernel: str, X, f) -> None:
    Ks = KERNELS[kernel][1]
    if isinstance(est.support_vectors_, list) or hasattr(est, "dual_derivative_coef_"):  # Akaho: bases per row
        svs = est.support_vectors_ if isinstance(est.support_vectors_, list) else [est.support_vectors_]
        ders = est.dual_derivative_coef_ if isinstance(est.dual_derivative_coef_, list) else [est.dual_derivative_coef_]
        for k, (U, B) in enumerate(zip(svs, ders)):
            terms = Ks(X, U) * est.dual_coef_[k] + _derivative_terms(kernel, X, U, B)
            _assert_sum(terms, est.intercept_[k], f[:, k])
        return
    K = Ks(X, est.support_vectors_)
    for k in range(f.shape[1]):
        _assert_sum(K * est.dual_coef_[k], est.intercept_[k], f[:, k])


def _assert_sum(terms: np.ndarray, intercept: float, f: np.ndarray) -> None:
    """Σ_j terms[:, j] + intercept == f up to the rounding of the sum (1e-10 of Σ|terms|)."""
    mine = terms.sum(axis=1) + intercept
    scale = np.abs(terms).sum(axis=1) + abs(intercept) + 1e-300
    np.testing.assert_array_less(np.abs(mine - f), 1e-10 * scale + 1e-15)


@pytest.mark.parametrize("name,cls", [(n, c) for n, c in EVERY_CLASS if get_solver(n).representation == "kernel"],
                         ids=lambda v: v if isinstance(v, str) else "")
@pytest.mark.parametrize("kernel", sorted(KERNELS))
def test_kernel_estimators_attributes_give_decision_function(name, cls, kernel):
    """f(x) = Σ_j dual_coef_[k, j] K(support_vectors_[j], x) + intercept_[k] (Akaho: + the derivative terms) and,
    for kernels affine in x, f(x) = coef_[k]·x + affine_intercept_[k], on two and three classes."""
    if name == "input-space-svm" and kernel == "laplacian":
        pytest.skip("the input-space SVM refuses the Laplacian kernel (not differentiable; tested in tests/core)")
    for X, y in _two_and_three_classes():
        est = _instance(name, cls, **KERNELS[kernel][0]).fit(X, y)
        Z = np.vstack([X, np.random.default_rng(1).normal(0, 2, (25, 2))])  # the points and new ones
        f = _rows(est.decision_function(Z))
        _check_dual(est, kernel, Z, f)
        if kernel in ("affine", "linear"):
            _check_rows(np.concatenate([Z[:, None, :] * est.coef_[None], np.broadcast_to(
                est.affine_intercept_[None, :, None], (len(Z), len(est.affine_intercept_), 1))], axis=2), f)
        else:
            assert not hasattr(est, "coef_")


@pytest.mark.parametrize("name,cls", [(n, c) for n, c in EVERY_CLASS if get_solver(n).representation != "kernel"],
                         ids=lambda v: v if isinstance(v, str) else "")
@pytest.mark.parametrize("features", ["linear", "quadratic"])
def test_weight_estimators_attributes_give_decision_function(name, cls, features):
    """f(x) = weights_[k]·φ(x) with φ from scikit-learn's PolynomialFeatures (the notes' order (1, x1, x2, x1²,
    x1x2, x2²)); with the linear map also f(x) = coef_[k]·x + intercept_[k] = coef_[k]·x + affine_intercept_[k]."""
    degree = {"linear": 1, "quadratic": 2}[features]
    for X, y in _two_and_three_classes():
        est = _instance(name, cls, features=features).fit(X, y)
        Z = np.vstack([X, np.random.default_rng(1).normal(0, 2, (25, 2))])
        f = _rows(est.decision_function(Z))
        Phi = PolynomialFeatures(degree).fit_transform(Z)
        _check_rows(Phi[:, None, :] * est.weights_[None, :, :], f)
        if degree == 1:
            np.testing.assert_array_equal(est.intercept_, est.affine_intercept_)
            _check_rows(np.concatenate([Z[:, None, :] * est.coef_[None], np.broadcast_to(
                est.intercept_[None, :, None], (len(Z), len(est.intercept_), 1))], axis=2), f)
        else:
            assert not hasattr(est, "coef_") and not hasattr(est, "intercept_")


def _check_rows(terms: np.ndarray, f: np.ndarray) -> None:
    """terms (m, rows, j) summed over j equal f (m, rows) up to the rounding of the sum."""
    assert terms.shape[:2] == f.shape
    for k in range(f.shape[1]):
        _assert_sum(terms[:, k, :], 0.0, f[:, k])


def test_issue_28_snkp_attributes_on_iris_and_breast_cancer():
    """The reproducers: SNKP(max_iter=5000) on iris, argmax of the documented f against decision_function (52 of
    150 disagreed), and the signs on standardized breast_cancer (69 of 569 disagreed)."""
    X, y = load_iris(return_X_y=True)
    est = E.SNKPClassifier(max_iter=5000).fit(X, y)
    f = (1 + X @ est.support_vectors_.T) @ est.dual_coef_.T + est.intercept_
    assert (f.argmax(axis=1) == est.decision_function(X).argmax(axis=1)).all()
    np.testing.assert_allclose(X @ est.coef_.T + est.affine_intercept_, est.decision_function(X), atol=1e-9)
    X, y = load_breast_cancer(return_X_y=True)
    X = StandardScaler().fit_transform(X)
    est = E.SNKPClassifier().fit(X, y)
    f = (1 + X @ est.support_vectors_.T) @ est.dual_coef_[0] + est.intercept_[0]
    assert est.status_ == "separator" and (np.sign(f) == np.sign(est.decision_function(X))).all()


# -------------------------------------------------------------------------------------------------------------
# Random estimator parameters (issue 28's property test, the estimators' part): a one-line refusal, or a fit
# whose attributes give its decision_function
# -------------------------------------------------------------------------------------------------------------

def _sklearn_kernel(kernel: str, gamma: float, degree: int, coef0: float):
    """The kernel by scikit-learn (an empty expansion, max_iter = 0, gives no columns)."""
    k = _SKLEARN_KERNELS(kernel, gamma, degree, coef0)
    return lambda X, U: np.zeros((len(X), 0)) if len(U) == 0 else k(X, U)


def _SKLEARN_KERNELS(kernel, gamma, degree, coef0):
    return {
        "affine": lambda X, U: 1.0 + linear_kernel(X, U),
        "linear": linear_kernel,
        "poly": lambda X, U: polynomial_kernel(X, U, degree=degree, gamma=1.0, coef0=coef0),
        "rbf": lambda X, U: rbf_kernel(X, U, gamma=gamma),
        "laplacian": lambda X, U: laplacian_kernel(X, U, gamma=gamma),
    }[kernel]


def _derivative(kernel: str, gamma: float, degree: int, coef0: float, X, U, B) -> np.ndarray:
    bx = X @ B.T
    if kernel in ("affine", "linear"):
        return bx
    if kernel == "poly":
        return degree * (X @ U.T + coef0) ** (degree - 1) * bx
    return -2.0 * gamma * rbf_kernel(X, U, gamma=gamma) * ((B * U).sum(axis=1)[None, :] - bx)


@st.composite
def _case(draw):
    name = draw(st.sampled_from([n for n, _ in EVERY_CLASS]))
    kernel = draw(st.sampled_from(sorted(KERNELS)))
    gamma = draw(st.one_of(st.floats(0.05, 3.0), st.sampled_from([0.0, -1.0, float("nan"), float("inf")])))
    degree = draw(st.one_of(st.integers(1, 4), st.sampled_from([0, -2])))
    coef0 = draw(st.one_of(st.floats(0.0, 2.0), st.sampled_from([-1.0, float("nan")])))
    max_iter = draw(st.one_of(st.integers(0, 200), st.sampled_from([-1, None])))
    d = draw(st.integers(1, 4))
    n = draw(st.integers(4, 24))
    seed = draw(st.integers(0, 2**16))
    classes = draw(st.sampled_from([2, 3]))
    return name, kernel, gamma, degree, coef0, max_iter, d, n, seed, classes


@pytest.mark.slow
@settings(max_examples=40, deadline=None, derandomize=True, database=None,
          suppress_health_check=[HealthCheck.too_slow])
@given(_case())
def test_random_estimator_parameters(case):
    name, kernel, gamma, degree, coef0, max_iter, d, n, seed, classes = case
    rng = np.random.default_rng(seed)
    y = np.arange(n) % classes
    X = rng.normal(0, 1, (n, d)) + y[:, None] * 1.5
    cls = E.ALIASES[name]
    kernel_rep = get_solver(name).representation == "kernel"
    kw = ({"kernel": kernel, "gamma": gamma, "degree": degree, "coef0": coef0} if kernel_rep
          else {"features": "linear"})
    kw.update(FAST.get(name, {}))
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            est = cls(max_iter=max_iter, **kw).fit(X, y)
    except PercvizError as e:
        text = str(e)
        assert text and "\n" not in text and "internal error" not in text.lower(), text
        return
    f = _rows(est.decision_function(X))
    assert np.isfinite(f).all()
    if not kernel_rep:
        _check_rows(np.concatenate([X[:, None, :] * est.coef_[None], np.broadcast_to(
            est.intercept_[None, :, None], (n, len(est.intercept_), 1))], axis=2), f)
        return
    g = float(gamma) if kernel in ("rbf", "laplacian") else 0.0
    K = _sklearn_kernel(kernel, g, degree, coef0)
    if hasattr(est, "dual_derivative_coef_"):
        svs = est.support_vectors_ if isinstance(est.support_vectors_, list) else [est.support_vectors_]
        ders = est.dual_derivative_coef_ if isinstance(est.dual_derivative_coef_, list) else [est.dual_derivative_coef_]
        for k, (U, B) in enumerate(zip(svs, ders)):
            _assert_sum(K(X, U) * est.dual_coef_[k] + _derivative(kernel, g, degree, coef0, X, U, B),
                        est.intercept_[k], f[:, k])
    elif hasattr(est, "dual_coef_"):
        for k in range(f.shape[1]):
            _assert_sum(K(X, est.support_vectors_) * est.dual_coef_[k], est.intercept_[k], f[:, k])
