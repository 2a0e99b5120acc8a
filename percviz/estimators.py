"""scikit-learn estimators for every registered algorithm: one `PerceptronFamilyClassifier` plus one alias each.

`PerceptronFamilyClassifier(algorithm="snkp", kernel="rbf", gamma=0.5)` runs any algorithm of the registry; the
aliases (`SNKPClassifier`, `WinnowClassifier`, …) are generated from the registry with the algorithm fixed and its
typed parameters as real keyword arguments (defaults and ranges from its ParamSpecs: one source). This is the only
module of percviz that imports scikit-learn (the optional extra `percviz[sklearn]`).
"""

from __future__ import annotations

import inspect
import math
import warnings
from typing import Any

import numpy as np

try:
    from sklearn.base import BaseEstimator, ClassifierMixin
    from sklearn.utils.multiclass import check_classification_targets
    from sklearn.utils.validation import check_is_fitted, validate_data
except ImportError as e:  # pragma: no cover - exercised by the no-scikit-learn run
    raise ImportError(
        "percviz.estimators needs scikit-learn ≥ 1.6: pip install 'percviz[sklearn]'"
    ) from e

from percviz.core.data import PointSet
from percviz.core.decision import DerivativeExpansion, KernelExpansion
from percviz.core.errors import DataError, ParameterError
from percviz.core.features import parse_features
from percviz.core.kernels import Kernel, parse_kernel
from percviz.core.problem import Problem
from percviz.core.solvers import Status, get_solver, load_all
from percviz.core.solvers.base import DEFAULT_ALGORITHM, DEPRECATED_NAMES, MAX_ITER_SPEC, NAME_ACRONYMS
from percviz.core.spec import parse_spec

#: The fitted attributes as formulas (class docstrings and docs/library.md); tests/test_estimators.py recomputes each.
FORMULA_KERNEL = (
    "Fitted: f(x) = Σ_j dual_coef_[k, j] K(support_vectors_[j], x) + intercept_[k] for every kernel (the input-space "
    "SVM adds Σ_j dual_derivative_coef_[j]·∂K(u, x)/∂u at u = support_vectors_[j]); with a kernel affine in x "
    "(linear, affine) also f(x) = coef_[k]·x + affine_intercept_[k], where affine_intercept_ = intercept_ + "
    "Σ_j dual_coef_[k, j] for the affine kernel 1 + x·z."
)
FORMULA_FEATURES = (
    "Fitted: f(x) = weights_[k]·φ(x) on the φ-map; with the linear map also f(x) = coef_[k]·x + intercept_[k] "
    "(affine_intercept_ = intercept_)."
)
#: Estimator-level names; an algorithm parameter of the same name is exposed as `algorithm_<name>` in its alias.
RESERVED = ("algorithm", "kernel", "gamma", "degree", "coef0", "features", "max_iter", "algorithm_params")
#: Kernel parameters set at the estimator level → the name in the kernel's ParamSpecs.
KERNEL_PARAMS = {"gamma": "gamma", "degree": "degree", "coef0": "c"}
#: ‖p‖_G at or below this (recomputed here) is reported as a certificate.
CERTIFICATE_TOL = 1e-2
#: Parameters that only change what the window draws (a theoretical-bound curve that costs a ρ_K computation, the
#: replay of interior-point iterates), never the fitted classifier: an estimator turns them off and does not expose them.
DISPLAY_ONLY = {"bound": False, "show_iterations": False}
#: Checks of scikit-learn that do not apply, with the reason (passed to check_estimator / parametrize_with_checks).
_N_ITER_REASON = (
    "n_iter_ counts the updates honestly: this algorithm starts away from 0 (uniform α or p, an SVM) and halts at "
    "iterate 0, n_iter_ = 0, when that start already separates"
)


def expected_failed_checks(estimator) -> dict[str, str]:
    """scikit-learn checks that may fail for this estimator, each with its reason (from its solver's capabilities)."""
    cls = estimator._known_solver()
    if cls is not None and cls.starts_away_from_zero and not cls.start_is_an_update:
        return {"check_non_transformer_estimators_n_iter": _N_ITER_REASON}
    return {}


def _kernel(kernel, values: dict[str, Any]) -> Kernel:
    """The kernel of a spec or name with gamma/degree/coef0 applied where the kernel has them (as SVC ignores them)."""
    k = parse_kernel(kernel)
    given = {KERNEL_PARAMS[key]: v for key, v in values.items() if v is not None}
    given = {key: v for key, v in given.items() if key in k.params.names()}
    if not given:
        return k
    in_spec = set(parse_spec(kernel, "kernel")[1]) if isinstance(kernel, str) else set()
    twice = sorted(in_spec & set(given))
    if twice:
        raise ParameterError(
            f"The kernel's {', '.join(twice)} is given both in kernel={kernel!r} and as a keyword; give it once."
        )
    return type(k)(values=type(k).params.validate({**k.values, **given}, f"the {k.name} kernel"))


class _PercvizClassifier(ClassifierMixin, BaseEstimator):
    """The shared fit/predict of every percviz estimator (subclasses say which algorithm and parameters)."""

    # -- what a subclass provides ---------------------------------------------------------------------
    def _algorithm(self) -> str:
        raise NotImplementedError

    def _algorithm_values(self) -> dict[str, Any]:
        raise NotImplementedError

    # -- scikit-learn protocol ------------------------------------------------------------------------
    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        # Multi-class: natively for the linear machines, one-vs-rest for the two-class algorithms.
        tags.classifier_tags.multi_class = True
        tags.classifier_tags.poor_score = bool(getattr(self._known_solver(), "no_fit_on_overlap", ""))
        tags.input_tags.sparse = False
        return tags

    def _known_solver(self):
        """The solver class, or None for a name the registry does not know (fit says so; tags must not raise)."""
        try:
            return self._solver_class()
        except ParameterError:
            return None

    def _solver_class(self):
        name = self._algorithm()
        if not isinstance(name, str):
            raise ParameterError(f"algorithm must be a name such as 'snkp'; got {name!r}.")
        return get_solver(name)

    def _problem(self, points: PointSet, cls) -> Problem:
        kernel = _kernel(getattr(self, "kernel", "affine"), {k: getattr(self, k, None) for k in KERNEL_PARAMS})
        features = parse_features(getattr(self, "features", "linear"))
        return Problem(points, kernel, features)

    def _values(self, cls) -> dict[str, Any]:
        """The algorithm's parameter values: the display-only ones off unless given, then the estimator's."""
        off = {k: v for k, v in DISPLAY_ONLY.items() if k in cls.params.names()}
        return {**off, **self._algorithm_values()}

    def _run(self, cls, points: PointSet):
        """Run the algorithm to its end on points; (final snapshot, problem)."""
        problem = self._problem(points, cls)
        solver = cls(problem, max_iter=self.max_iter, **self._values(cls))
        return solver.advance(solver.max_iter), problem

    def fit(self, X, y):
        """Run the algorithm on (X, y) to its end; returns self."""
        if y is None:
            raise ValueError(f"{type(self).__name__} requires y to be passed, but the target y is None.")
        X, y = validate_data(self, X, y, dtype=np.float64)
        check_classification_targets(y)
        cls = self._solver_class()
        if self.max_iter is not None:
            MAX_ITER_SPEC.coerce(self.max_iter, type(self).__name__)
        cls.params.validate(self._values(cls), cls.display_name)  # bad values fail before any work
        self.classes_, idx = np.unique(y, return_inverse=True)
        c = len(self.classes_)
        if c < 2:
            raise DataError(
                f"{type(self).__name__} needs at least two classes in y; got one class ({self.classes_[0]!r})."
            )
        self.multiclass_ = "native" if cls.representation == "multiclass" else ("one-vs-rest" if c > 2 else "binary")
        if cls.representation == "multiclass":
            snap, problem = self._run(cls, PointSet(X, idx))
            runs = [(snap, problem)]
        else:  # class k is '+' (+1) against the rest; with two classes one run: classes_[1] is '+'
            positives = range(c) if c > 2 else [1]
            runs = [self._run(cls, PointSet.from_signed(X, np.where(idx == k, 1, -1))) for k in positives]
        self._decisions = [snap.decision for snap, _ in runs]
        self._record(cls, runs, X.shape[1])
        return self

    def _record(self, cls, runs, d: int) -> None:
        """The fitted attributes: n_iter_, status_, margin_, certificate_, dual_coef_/support_vectors_/intercept_
        (the kernel expansion), coef_/affine_intercept_ (the affine form in x), weights_ (on the φ-map)."""
        one = len(runs) == 1
        n_iter = [snap.iteration + (1 if cls.start_is_an_update else 0) for snap, _ in runs]
        status = [snap.status.value for snap, _ in runs]
        margins = [_checked_margin(snap, pr, cls.representation) for snap, pr in runs]
        certs = [_checked_certificate(snap, pr) for snap, pr in runs]
        self.n_iter_ = n_iter[0] if one else np.array(n_iter)
        self.status_ = status[0] if one else status
        self.margin_ = margins[0] if one else margins
        self.certificate_ = certs[0] if one else certs
        decisions = [snap.decision for snap, _ in runs]
        if cls.representation == "kernel" and all(isinstance(f, DerivativeExpansion) for f in decisions):
            # Akaho's expansion f = Σ a_j k(x̂_j, ·) + b_j·k_x(x̂_j, ·) + bias: bases x̂ (not the x_i), a and b
            self.support_vectors_ = [np.asarray(f.bases) for f in decisions]
            self.dual_coef_ = np.vstack([f.a for f in decisions])
            self.dual_derivative_coef_ = [np.asarray(f.b) for f in decisions]
            if one:
                self.support_vectors_, self.dual_derivative_coef_ = self.support_vectors_[0], self.dual_derivative_coef_[0]
            self.intercept_ = np.array([float(f.bias) for f in decisions])
        elif cls.representation == "kernel" and all(isinstance(f, KernelExpansion) for f in decisions):
            # f = Σ_j coef_j K(x_j, ·) + bias over the training points: the columns with a nonzero coefficient
            coef = np.vstack([f.coef for f in decisions])
            used = np.flatnonzero(np.abs(coef).sum(axis=0) > 0)
            self.support_vectors_ = np.asarray(decisions[0].centers)[used]
            self.dual_coef_ = coef[:, used]
            self.intercept_ = np.array([float(f.bias) for f in decisions])
        elif cls.representation == "features":
            self.weights_ = np.vstack([snap.weights for snap, _ in runs])
        elif cls.representation == "multiclass":
            W = np.asarray(runs[0][0].weights)
            self.weights_ = W if len(self.classes_) > 2 else (W[1] - W[0])[None, :]
        affine = [self._affine(f, d) for f in decisions]
        if all(a is not None for a in affine):
            if self.multiclass_ == "native":
                self.coef_, self.affine_intercept_ = affine[0]
            else:
                self.coef_ = np.vstack([a[0] for a in affine])
                self.affine_intercept_ = np.concatenate([a[1] for a in affine])
            if cls.representation != "kernel":  # no kernel expansion: intercept_ is the affine form's, as in LinearSVC
                self.intercept_ = self.affine_intercept_

    def _affine(self, decision, d: int):
        """(coef (k×d), intercept (k,)) when the decision is affine in x, else None."""
        if decision.n_outputs == 1:
            wb = decision.affine_weights(d)
            return None if wb is None else (np.asarray(wb[0])[None, :], np.array([wb[1]]))
        rows = [decision.features.affine_weights(w, d) for w in np.asarray(decision.weights)]
        if any(r is None for r in rows):
            return None
        W, b = np.vstack([r[0] for r in rows]), np.array([r[1] for r in rows])
        return (W, b) if len(self.classes_) > 2 else ((W[1] - W[0])[None, :], b[1:] - b[:1])

    def decision_function(self, X) -> np.ndarray:
        """Scores: (n,) for two classes (> 0 means classes_[1]), else (n, n_classes), argmax decides."""
        check_is_fitted(self)
        X = validate_data(self, X, reset=False, dtype=np.float64)
        if self.multiclass_ == "native":
            f = np.asarray(self._decisions[0](X))
            return f[:, 1] - f[:, 0] if len(self.classes_) == 2 else f
        scores = np.column_stack([np.asarray(dec(X)) for dec in self._decisions])
        return scores[:, 0] if len(self.classes_) == 2 else scores

    def predict(self, X) -> np.ndarray:
        """The class of each row of X (ties go to the first class)."""
        f = self.decision_function(X)
        return self.classes_[(f > 0).astype(int)] if f.ndim == 1 else self.classes_[np.argmax(f, axis=1)]


def _checked_margin(snap, problem: Problem, representation: str) -> float | None:
    """The normalized margin of a reported separator, recomputed on the training points (None without one)."""
    if snap.status is not Status.SEPARATOR or snap.decision.n_outputs != 1:
        return None
    y = problem.y
    if not (y * np.asarray(snap.decision(problem.X)) > 0).all():
        return None  # a claim that does not hold on the points is not shown
    if representation == "kernel" and snap.alpha is not None:
        a = np.asarray(snap.alpha)
        if snap.decision.bias != 0.0:  # a kernel expansion with a free bias (SVM): its own margin metric
            m = snap.metrics.get("margin")
            return float(m) if m is not None and math.isfinite(m) and m > 0 else None
        Ga = problem.gram @ a
        nrm = math.sqrt(max(float(a @ Ga), 0.0))
        return float(Ga.min() / nrm) if nrm > 0 else None
    if snap.weights is not None:
        w = np.asarray(snap.weights)
        nrm = float(np.linalg.norm(w))
        return float((problem.Y @ w).min() / nrm) if nrm > 0 else None
    return None


def _checked_certificate(snap, problem: Problem) -> np.ndarray | None:
    """p of a reported certificate of non-separability, checked: p ≥ 0, Σp = 1 and ‖p‖_G small, recomputed."""
    if snap.status is not Status.CERTIFICATE or snap.p is None:
        return None
    p = np.asarray(snap.p, dtype=float)
    norm = math.sqrt(problem.gram.quad(p))
    if p.min() < -1e-12 or abs(p.sum() - 1.0) > 1e-9 or norm > CERTIFICATE_TOL:
        return None
    return p.copy()


class PerceptronFamilyClassifier(_PercvizClassifier):
    """Any algorithm of percviz as a scikit-learn classifier.

    algorithm: a registered name ('percviz list'); kernel: a name or spec ('rbf', 'rbf:gamma=0.5') for the dual
    algorithms; gamma/degree/coef0 set the kernel's γ, degree and offset c where it has them; features: the
    φ-map spec for the weight-vector procedures; max_iter: the update limit (None: the algorithm's default);
    algorithm_params: the algorithm's own parameters, e.g. {'eps': 1e-4}.

    Kernel algorithms: FORMULA_KERNEL; weight-vector procedures and linear machines: FORMULA_FEATURES. Two classes
    give one row k = 0 (> 0 means classes_[1]); more, one row per class (one-vs-rest or native).
    """

    def __init__(self, *, algorithm=DEFAULT_ALGORITHM, kernel="affine", gamma=None, degree=None, coef0=None, features="linear",
                 max_iter=None, algorithm_params=None):
        self.algorithm = algorithm
        self.kernel = kernel
        self.gamma = gamma
        self.degree = degree
        self.coef0 = coef0
        self.features = features
        self.max_iter = max_iter
        self.algorithm_params = algorithm_params

    def _algorithm(self):
        return self.algorithm

    def _algorithm_values(self):
        if self.algorithm_params is not None and not isinstance(self.algorithm_params, dict):
            raise ParameterError(f"algorithm_params must be a dict such as {{'eps': 1e-4}}; got "
                                 f"{self.algorithm_params!r}.")
        return dict(self.algorithm_params or {})


PerceptronFamilyClassifier.__doc__ = PerceptronFamilyClassifier.__doc__.replace(
    "FORMULA_KERNEL", FORMULA_KERNEL).replace("FORMULA_FEATURES", FORMULA_FEATURES)

# -------------------------------------------------------------------------------------------------------------
# One alias per registered algorithm, generated from the registry
# -------------------------------------------------------------------------------------------------------------

def alias_name(algorithm: str) -> str:
    """'snkp' → 'SNKPClassifier', 'kernel-perceptron' → 'KernelPerceptronClassifier'."""
    return "".join(p.upper() if p in NAME_ACRONYMS else p.capitalize() for p in algorithm.split("-")) + "Classifier"


def _alias(name: str, solver) -> type:
    """A classifier class for one algorithm: its ParamSpecs become keyword-only arguments with their defaults."""
    exposed = {
        (f"algorithm_{s.name}" if s.name in RESERVED else s.name): s
        for s in solver.params.specs if s.name not in DISPLAY_ONLY
    }
    front: dict[str, Any] = (
        {"kernel": "affine", "gamma": None, "degree": None, "coef0": None}
        if solver.representation == "kernel" else {"features": "linear"}
    )
    defaults = {**front, **{k: s.default for k, s in exposed.items()}, "max_iter": None}
    signature = inspect.Signature(
        [inspect.Parameter("self", inspect.Parameter.POSITIONAL_OR_KEYWORD)]
        + [inspect.Parameter(k, inspect.Parameter.KEYWORD_ONLY, default=v) for k, v in defaults.items()]
    )
    cls_name = alias_name(name)

    def __init__(self, **params):
        unknown = sorted(set(params) - set(defaults))
        if unknown:
            raise TypeError(f"{cls_name}() got an unexpected keyword argument {unknown[0]!r}")
        for key, default in defaults.items():
            setattr(self, key, params.get(key, default))

    __init__.__signature__ = signature
    __init__.__qualname__ = f"{cls_name}.__init__"
    doc_params = ", ".join(f"{k}={v!r}" for k, v in defaults.items())
    kernel_note = (f"gamma/degree/coef0 set the kernel's parameters where it has them. {FORMULA_KERNEL}"
                   if solver.representation == "kernel" else f"features is the φ-map spec. {FORMULA_FEATURES}")
    return type(cls_name, (_PercvizClassifier,), {
        "__init__": __init__,
        "__module__": __name__,
        "__qualname__": cls_name,
        "__doc__": f"{solver.display_name} ('{name}') as a scikit-learn classifier: {cls_name}({doc_params}); "
                   f"{kernel_note}",
        "_algorithm": lambda self: name,
        "_algorithm_values": lambda self: {s.name: getattr(self, k) for k, s in exposed.items()},
        "algorithm_name": name,
    })


def _deprecated_alias(old: str, new: type) -> type:
    """A class for an old algorithm name: the estimator that supersedes it, with a FutureWarning on construction."""
    cls_name = alias_name(old)

    def __init__(self, **params):
        warnings.warn(f"{cls_name} is deprecated and will be removed; use {new.__name__}, the one SVM estimator "
                      "(the same optimum, the same parameters).", FutureWarning, stacklevel=2)
        new.__init__(self, **params)

    __init__.__signature__ = inspect.signature(new.__init__)
    __init__.__qualname__ = f"{cls_name}.__init__"
    return type(cls_name, (new,), {"__init__": __init__, "__module__": __name__, "__qualname__": cls_name,
                                   "__doc__": f"Deprecated: {new.__name__} under its old name '{old}'."})


ALIASES: dict[str, type] = {}
for _name, _solver in sorted(load_all().items()):
    if _name not in DEPRECATED_NAMES:
        ALIASES[_name] = globals()[alias_name(_name)] = _alias(_name, _solver)
for _old, _new in DEPRECATED_NAMES.items():
    ALIASES[_old] = globals()[alias_name(_old)] = _deprecated_alias(_old, ALIASES[_new])

__all__ = ["ALIASES", "PerceptronFamilyClassifier", "alias_name", *(alias_name(n) for n in ALIASES)]
