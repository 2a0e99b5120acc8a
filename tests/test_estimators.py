"""percviz.estimators: scikit-learn's own estimator checks, its tools (Pipeline, CV, grid search, displays)."""

import subprocess
import sys

import numpy as np
import pytest

pytest.importorskip("sklearn", reason="scikit-learn is the optional extra percviz[sklearn]")

from sklearn.base import clone  # noqa: E402
from sklearn.datasets import load_iris, make_blobs  # noqa: E402
from sklearn.linear_model import LinearRegression  # noqa: E402
from sklearn.model_selection import GridSearchCV, cross_val_score  # noqa: E402
from sklearn.pipeline import make_pipeline  # noqa: E402
from sklearn.preprocessing import StandardScaler  # noqa: E402
from sklearn.utils.estimator_checks import parametrize_with_checks  # noqa: E402

from percviz import estimators as E  # noqa: E402
from percviz.core.errors import DataError, ParameterError  # noqa: E402
from percviz.core.solvers import get_solver, load_all  # noqa: E402

#: One of each kind: kernel (generic and alias, RBF), features, native multi-class, certificate-seeking,
#: multiplicative, one-step. Small max_iter keeps the ~50 checks each fast.
CHECKED = [
    E.PerceptronFamilyClassifier(algorithm="snkp", max_iter=200),
    E.SNKPClassifier(kernel="rbf", gamma=0.5, max_iter=200),
    E.PerceptronClassifier(max_iter=300),
    E.LinearMachineClassifier(max_iter=300),
    E.NVNClassifier(max_iter=300),
    E.WinnowClassifier(max_iter=300),
    E.MSEClassifier(),
]


#: The checks each of CHECKED fails today, as scikit-learn reports them (xfail is strict: a check that starts to
#: pass must be taken off). SNKP under RBF γ = 0.5 separates the check's data at iterate 0 (uniform α), so its
#: n_iter_ is honestly 0; linear SNKP (PerceptronFamilyClassifier) and NVN do need updates there and pass.
EXPECTED_FAILED = {
    "SNKPClassifier": {"check_non_transformer_estimators_n_iter": "iterate 0 (uniform α) already separates: n_iter_ = 0"},
}


def _expected_failed(estimator) -> dict[str, str]:
    return EXPECTED_FAILED.get(type(estimator).__name__, {})


@parametrize_with_checks(CHECKED, expected_failed_checks=_expected_failed)
def test_scikit_learn_estimator_checks(estimator, check):
    check(estimator)


def test_every_alias_follows_the_registry():
    """One class per algorithm; its keyword defaults are the ParamSpecs' defaults (one source)."""
    assert set(E.ALIASES) == set(load_all())
    X, y = make_blobs(n_samples=24, centers=[[-2, -2], [2, 2]], cluster_std=0.4, random_state=0)
    for name, cls in E.ALIASES.items():
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
