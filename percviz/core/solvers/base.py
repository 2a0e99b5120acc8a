"""The one solver interface: built from a problem and typed parameters, advanced one update at a time."""

from __future__ import annotations

import enum
import inspect
import math
import types
from dataclasses import dataclass
from typing import Any, Callable, ClassVar, Iterator, Mapping

import numpy as np

from percviz.core import budget
from percviz.core.decision import DecisionFunction, ZeroDecision
from percviz.core.errors import ParameterError
from percviz.core.dense_gram import certificate_refuted
from percviz.core.params import ParamSet, ParamSpec
from percviz.core.problem import Problem


class Status(str, enum.Enum):
    """Where a run stands after an update."""

    RUNNING = "running"
    SEPARATOR = "separator"  # a perfect separator was found (Gα > 0, or every a·y_i > 0)
    CERTIFICATE = "certificate"  # p in the simplex with ‖p‖_G under the tolerance (Gordan, §5)
    NONSEPARABLE = "nonseparable"  # a proof of non-separability (Ho–Kashyap e ≤ 0, LP τ > 0)
    CONVERGED = "converged"  # an optimizer converged without a separator claim (MSE, SVM, …)
    MAX_ITER = "max_iter"  # the iteration limit was reached
    DIVERGED = "diverged"  # non-finite or exploding iterates: the run stopped, nothing is claimed

    @property
    def done(self) -> bool:
        return self is not Status.RUNNING

    @property
    def text(self) -> str:
        return {
            "running": "running",
            "separator": "separator found",
            "certificate": "ε-certificate (no separator with a margin above ε)",
            "nonseparable": "proof of non-separability",
            "converged": "converged",
            "max_iter": "iteration limit",
            "diverged": "diverged (numerical failure)",
        }[self.value]


def _frozen_array(a) -> np.ndarray | None:
    if a is None:
        return None
    a = np.array(a, dtype=float, copy=True)
    a.setflags(write=False)
    return a


@dataclass(frozen=True, eq=False)
class Snapshot:
    """What one update produced; immutable, safe to hand to another thread."""

    iteration: int
    status: Status
    decision: DecisionFunction
    metrics: Mapping[str, float]
    triggers: tuple[int, ...] = ()
    alpha: np.ndarray | None = None  # dual coefficients on the points (halos on the canvas)
    p: np.ndarray | None = None  # the distribution p_k (a certificate when status is CERTIFICATE)
    weights: np.ndarray | None = None  # explicit weight vector a (d̂,) or matrix (c, d̂)
    message: str = ""
    feet: np.ndarray | None = None  # estimated projection points x̂_i on f = 0 (input-space SVM), (n, d)

    def __post_init__(self):
        object.__setattr__(self, "alpha", _frozen_array(self.alpha))
        object.__setattr__(self, "p", _frozen_array(self.p))
        object.__setattr__(self, "weights", _frozen_array(self.weights))
        object.__setattr__(self, "feet", _frozen_array(self.feet))
        clean = {k: float(v) for k, v in self.metrics.items() if v is not None}
        object.__setattr__(self, "metrics", types.MappingProxyType(clean))
        object.__setattr__(self, "triggers", tuple(int(t) for t in self.triggers))


@dataclass(frozen=True)
class MetricInfo:
    """How a metric is named and plotted."""

    key: str
    label: str
    log_default: bool = False
    help: str = ""
    #: Which plot shows it: "norms" (norms, criteria, steps: ≥ 0, often spanning decades), "margins" (signed),
    #: "counts" (integers), or "bound" (with what it bounds: the counts when the solver reports mistakes).
    group: str = "norms"


#: Every metric a solver may report, by key: the curves panel and the CLI's history read this.
METRICS: dict[str, MetricInfo] = {
    m.key: m
    for m in (
        MetricInfo("alpha_g_norm", "‖α‖_G", True, "G-norm of the coefficient vector α_k"),
        MetricInfo("p_g_norm", "‖p‖_G", True, "G-norm of the distribution p_k (→ 0 proves non-separability)"),
        MetricInfo("margin", "normalized margin", False, "min_i (Gα)_i / ‖α‖_G, or min_i a·y_i / ‖a‖", group="margins"),
        MetricInfo("loss", "L(α)", False, "L(α) = max_i −(Gα)_i + ½‖α‖²_G (negative ⇒ separator)", group="margins"),
        MetricInfo("mu", "μ_k", True, "smoothing parameter μ_k"),
        MetricInfo("train_errors", "training errors", False, "number of training points misclassified", group="counts"),
        MetricInfo("bound", "theoretical bound", True, "the paper's bound for this algorithm at this iterate", group="bound"),
        MetricInfo("criterion", "criterion J", True, "the criterion function being minimized"),
        MetricInfo("weight_norm", "‖a‖", True, "Euclidean norm of the weight vector"),
        MetricInfo("weight_reach", "‖w‖·max‖φ(xᵢ)‖", True,
                   "SVM: the most w can move f across the points, scale-free (≈ 0: f is the constant b); at least "
                   "half the range of f on the points"),
        MetricInfo("e_plus_norm", "‖e⁺‖", True, "Ho–Kashyap: norm of the positive part of the error"),
        MetricInfo("error_norm", "‖e‖", True, "Ho–Kashyap/MSE: norm of the error vector Ya − b"),
        MetricInfo("step_size", "step η_k", True, "the step size used by this update"),
        MetricInfo("outer", "outer loop t", False, "ISNKPVN: index of the current SNKPVN call", group="counts"),
        MetricInfo("delta", "δ_t", True, "ISNKPVN: accuracy of the current SNKPVN call"),
        MetricInfo("mistakes", "mistakes", False, "cumulative number of corrections made", group="counts"),
        MetricInfo("objective", "objective", False, "objective value of an optimization (LP, SVM dual)"),
        MetricInfo("slack_sum", "Σ ξ_i", False, "SVM: total slack Σ max(0, 1 − y_i f(x_i))"),
        MetricInfo("support_vectors", "support vectors", False, "SVM: number of points with α_i > 0", group="counts"),
        MetricInfo("kkt_gap", "KKT violation m − M", True, "SMO: max violation of the SVM dual's KKT conditions"),
        MetricInfo("j_perceptron", "J_p", False, "perceptron criterion Σ_{a·y ≤ 0} (−a·y)"),
        MetricInfo("j_perceptron_margin", "J_p′", False, "perceptron criterion with margin Σ max(0, b − a·y)"),
        MetricInfo("j_relaxation", "J_r", False, "relaxation criterion ½ Σ_{a·y ≤ b} (a·y − b)² / ‖y‖²"),
        MetricInfo("j_squared", "J_s = ‖Ya − b‖²", True, "squared-error criterion ‖e‖² (MSE, LMS, Ho–Kashyap)"),
        MetricInfo("gradient_norm", "‖∇J‖", True, "norm of the gradient of the criterion"),
        MetricInfo("input_margin", "input-space margin", False, "min_i of the Euclidean distance from x_i to f = 0",
                   group="margins"),
        MetricInfo(
            "input_margin_estimate", "estimated input margin", False, "Akaho: min_i y_i·(3), the linearized distance at x̂_i",
            group="margins",
        ),
    )
}


#: Capabilities whose default is derived from the class (set one in a class body to declare it there).
_DERIVED_CAPABILITIES = ("warm_start", "scale_dependent")
#: Words of registry names written in capitals in class names ('snkp' → SNKPClassifier, 'lp-feasibility' →
#: LPFeasibilityClassifier).
NAME_ACRONYMS = frozenset({"snkp", "nkp", "nvn", "snkpvn", "isnkpvn", "lp", "mse", "lms", "rls", "svm"})
#: Old names kept for compatibility → the algorithm that supersedes them (their estimator is a deprecated alias).
DEPRECATED_NAMES: dict[str, str] = {"smo": "svm"}
#: The algorithm chosen when none is: the paper's smoothed normalized kernel perceptron.
DEFAULT_ALGORITHM = "snkp"
#: The algorithm whose solution defines the SVM's margins (the CLI's input-space margin, hard then soft).
REFERENCE_SVM = "svm"
#: The race offered when a scene brings none: the paper's three perceptrons.
PAPER_RACE = ("perceptron", "nkp", "snkp")


class Solver:
    """Base class of every algorithm.

    Subclasses set the class attributes, declare `params`, and implement:
      _reset()                     set the initial state (iterate 0) from self.problem and self.values
      _update() -> tuple[int, ...] perform one update; return the index(es) of the triggering point(s)
      _halt() -> Status | None     the halting test on the current state (None: keep going)
      _state() -> dict             decision, metrics and optionally alpha, p, weights, message
    The base class counts iterations, applies max_iter and builds immutable snapshots.
    """

    name: ClassVar[str] = ""  # short command-line name, e.g. "snkp"
    display_name: ClassVar[str] = ""
    family: ClassVar[str] = ""
    description: ClassVar[str] = ""
    params: ClassVar[ParamSet] = ParamSet()
    #: "kernel" (works on G / a kernel), "features" (explicit weights on φ(x)) or "multiclass".
    representation: ClassVar[str] = "kernel"
    #: Which views can show this algorithm: a subset of {"canvas", "curves", "weight", "feature"}.
    views: ClassVar[frozenset[str]] = frozenset({"canvas", "curves"})
    #: Metric keys this solver reports (the curves panel offers these).
    metric_keys: ClassVar[tuple[str, ...]] = ()
    #: A fixed margin level: the decision function's margin lines are f = ±margin_level (the SVM: 1); None:
    #: the margin follows the closest point.
    margin_level: ClassVar[float | None] = None
    default_max_iter: ClassVar[int] = 1000
    #: Another registered name this one opens with fixed parameter values (`alias_values`): old presets and
    #: scripts keep working, the lists (GUI, `percviz list`) show only the algorithm itself.
    alias_of: ClassVar[str | None] = None
    alias_values: ClassVar[Mapping[str, Any]] = {}

    # -- capabilities: read by the app, the estimators and the CLI, which never list solver names --------------
    #: What the constructor's `warm_start` keyword takes: "alpha" (dual coefficients, one per point: the same
    #: optimum, sooner; Live always passes the last finished run's), "weights" (a start other than a = 0: another
    #: run; Live passes the last weights only when the user asks), or None. Default: "alpha" for a kernel solver
    #: whose constructor takes `warm_start`, "weights" for the others that take it.
    warm_start: ClassVar[str | None] = None
    #: False: Reset (stepping by hand) starts cold even under Live; only edits get the warm start.
    warm_start_on_reset: ClassVar[bool] = True
    #: Every update is heavy: a Live rerun goes to the worker from its first update (the UI thread never waits).
    live_on_worker: ClassVar[bool] = False
    #: Iterate 0 is not f ≡ 0 (uniform α or p, a pseudoinverse, an SVM): it may already halt, after 0 updates.
    starts_away_from_zero: ClassVar[bool] = False
    #: The algorithm's own numbering counts iterate 0 as its first step (Ho–Kashyap's a(1) = Y⁺b(1), the notes'
    #: step 1): the estimators' n_iter_ counts it.
    start_is_an_update: ClassVar[bool] = False
    #: '' when the halting state on overlapping classes is a classifier; else why not (a proof, an arbitrary
    #: iterate): the estimators declare it as scikit-learn's `poor_score` tag.
    no_fit_on_overlap: ClassVar[str] = ""
    #: The result depends on the points' scale (the soft margin's C against the slacks): the CLI never runs it on
    #: rescaled points. Default: a parameter named C.
    scale_dependent: ClassVar[bool] = False
    _declared: ClassVar[frozenset[str]] = frozenset()

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        inherited = frozenset().union(*(getattr(b, "_declared", frozenset()) for b in cls.__mro__[1:]))
        cls._declared = inherited | (frozenset(cls.__dict__) & set(_DERIVED_CAPABILITIES))
        if "warm_start" not in cls._declared:
            takes = "warm_start" in inspect.signature(cls.__init__).parameters
            cls.warm_start = None if not takes else ("alpha" if cls.representation == "kernel" else "weights")
        if "scale_dependent" not in cls._declared:
            cls.scale_dependent = "C" in cls.params.names()

    def __init__(self, problem: Problem, *, max_iter: int | None = None, **values: Any):
        self.problem = problem
        mi = self.default_max_iter if max_iter is None else max_iter
        self.max_iter = MAX_ITER_SPEC.coerce(mi, self.display_name or self.name)
        self.values = self.params.validate(values, self.display_name or self.name)
        budget.check_solver(self)  # before _check_problem, which may build K or G
        self._check_problem()
        self.iteration = 0
        self.status = Status.RUNNING
        self._last: Snapshot | None = None
        self._started = False

    # -- subclass hooks -------------------------------------------------------
    def _check_problem(self) -> None:
        """Raise DataError when the problem cannot be solved by this algorithm (default: needs + and −)."""
        if self.representation == "multiclass":
            if self.problem.n == 0:
                from percviz.core.errors import DataError

                raise DataError(f"{self.display_name} needs points: place some first.")
            return
        self.problem.points.require_two_classes(self.display_name)
        if self.representation == "features":
            _check_feature_scale(self.problem, self.display_name)

    def _reset(self) -> None:
        raise NotImplementedError

    def _update(self) -> tuple[int, ...]:
        raise NotImplementedError

    def _halt(self) -> Status | None:
        raise NotImplementedError

    def _state(self) -> dict[str, Any]:
        raise NotImplementedError

    # -- the interface --------------------------------------------------------
    def start(self) -> Snapshot:
        """Reset to the initial state and return its snapshot (iteration 0)."""
        with np.errstate(all="ignore"):  # overflow is detected and reported as DIVERGED, never as warnings
            return self._base_start()

    def _base_start(self) -> Snapshot:
        self._reset()
        self.iteration = 0
        self._stop_note = ""
        halted = self._guarded_halt()
        self.status = halted or (Status.MAX_ITER if self.max_iter == 0 else Status.RUNNING)
        self._started = True
        self._last = self._snapshot(())
        return self._last

    def step(self) -> Snapshot:
        """Perform one update and return its snapshot; once done, returns the last snapshot again."""
        with np.errstate(all="ignore"):
            return self._base_step()

    def _base_step(self) -> Snapshot:
        if not self._started:
            return self.start()
        if self.status.done:
            assert self._last is not None
            return self._last
        self._last = self._snapshot(self._one_update())
        return self._last

    def _one_update(self) -> tuple[int, ...]:
        triggers = self._update()
        self.iteration += 1
        halted = self._guarded_halt()
        if halted is not None:
            self.status = halted
        elif self.iteration >= self.max_iter:
            self.status = Status.MAX_ITER
        return triggers

    def advance(self, updates: int) -> Snapshot:
        """Fast-forward: perform up to `updates` updates, building only the last snapshot, and return it."""
        with np.errstate(all="ignore"):
            return self._base_advance(updates)

    def _base_advance(self, updates: int) -> Snapshot:
        if not self._started:
            self.start()
        triggers = None
        for _ in range(max(0, int(updates))):
            if self.status.done:
                break
            triggers = self._one_update()
        if triggers is not None:
            self._last = self._snapshot(triggers)
        assert self._last is not None
        return self._last

    def run_recording(self, record: Callable[[int, dict[str, float]], None]) -> Snapshot:
        """Run to the end like run(), building only the first and last snapshots; record(iteration, metrics)
        is called for the start and after every update (the metrics only: no decision function is kept)."""
        with np.errstate(all="ignore"):
            return self._base_run_recording(record)

    def _base_run_recording(self, record) -> Snapshot:
        snap = self.start()
        record(snap.iteration, dict(snap.metrics))
        while not self.status.done:
            triggers = self._one_update()
            clean: dict[str, float] = {}
            if not self.status.done:
                raw = {k: float(v) for k, v in self._metrics().items() if v is not None}
                clean = {k: v for k, v in raw.items() if math.isfinite(v)}
                if len(clean) < len(raw):
                    bad = sorted(set(raw) - set(clean))
                    self._diverge(f"the metric {', '.join(bad)} became non-finite at iteration {self.iteration}")
            if self.status.done:
                self._last = self._snapshot(triggers)
                record(self._last.iteration, dict(self._last.metrics))
            else:
                record(self.iteration, clean)
        assert self._last is not None
        return self._last

    def _metrics(self) -> Mapping[str, Any]:
        """The metrics of the current state (default: those of _state(); override where that is cheaper)."""
        return self._state()["metrics"]

    @property
    def done(self) -> bool:
        return self._started and self.status.done

    @property
    def last(self) -> Snapshot | None:
        return self._last

    def snapshots(self) -> Iterator[Snapshot]:
        """Yield the initial snapshot, then one per update until the run is done."""
        snap = self.start()
        yield snap
        while not snap.status.done:
            snap = self.step()
            yield snap

    def run(self) -> Snapshot:
        """Run to the end; return the final snapshot."""
        snap = self.start()
        while not snap.status.done:
            snap = self.step()
        return snap

    def _snapshot(self, triggers) -> Snapshot:
        st = dict(self._state())
        st = self._checked(st)
        return Snapshot(iteration=self.iteration, status=self.status, triggers=tuple(triggers), **st)

    # -- the claims, checked before they are shown ---------------------------------
    def _guarded_halt(self) -> Status | None:
        """The halting test, then the divergence test of the iterates (cheap: O(size of the iterate))."""
        halted = self._halt()
        if halted is Status.DIVERGED:
            return halted
        # every CHECK_EVERY updates (and at every snapshot, in _checked): cheap enough for single-sample rules
        why = _exploded(self) if self.iteration % CHECK_EVERY == 0 or halted is not None else ""
        if why:
            self._stop_note = f"Diverged at iteration {self.iteration}: {why}. {DIVERGED_ADVICE}"
            return Status.DIVERGED
        return halted

    def _diverged_because(self, message: str) -> Status:
        """For a solver's _halt: stop the run as DIVERGED with the solver's own explanation."""
        self._stop_note = message
        return Status.DIVERGED

    def _diverge(self, why: str) -> None:
        self.status = Status.DIVERGED
        self._stop_note = f"Diverged: {why}. {DIVERGED_ADVICE}"

    def _checked(self, st: dict[str, Any]) -> dict[str, Any]:
        """Apply the central checks to a state before it becomes a snapshot.

        Non-finite or exploding numbers stop the run as DIVERGED (never drawn: the decision becomes f ≡ 0 and
        non-finite metrics are dropped); a SEPARATOR claim stands only if the snapshot's own decision function,
        evaluated on the training points, has the right sign everywhere with a scale-aware tolerance.
        """
        metrics = dict(st.get("metrics") or {})
        bad = [k for k, v in metrics.items() if v is not None and not math.isfinite(float(v))]
        arrays = {k: st.get(k) for k in ("weights", "alpha", "p")}
        scales = {"weights": _feature_size(self), "alpha": 1.0, "p": 1.0}
        bad += [k for k, v in arrays.items() if v is not None and not _finite_and_tame(v, scales[k])]
        if bad and self.status is not Status.DIVERGED:
            self._diverge(f"{', '.join(sorted(bad))} became non-finite or exploded (beyond {EXPLODED:g})")
        if self.status is Status.DIVERGED:
            n_out = getattr(st.get("decision"), "n_outputs", 1)
            st["decision"] = ZeroDecision(n_outputs=n_out)
            for k, v in arrays.items():
                if v is not None and not _finite_and_tame(v, scales[k]):
                    st[k] = None
            metrics = {k: v for k, v in metrics.items() if v is None or math.isfinite(float(v))}
        elif self.status is Status.SEPARATOR:
            why = separator_refuted(self.problem, st["decision"], self.representation)
            if why:
                self.status = Status.CONVERGED
                self._stop_note = (
                    f"Not claimed as a separator: the halting test passed, but {why} (rounding at this scale). "
                    "Scale the points to about unit size, or change the kernel's parameters."
                )
        elif self.status is Status.CERTIFICATE:
            why = certificate_refuted(self.problem, st.get("p"), self.values.get("eps", self.values.get("delta")))
            if why:
                self.status = Status.CONVERGED
                st["message"] = ""
                self._stop_note = f"Not claimed as a certificate: the halting test passed on the stored G, but {why}."
        if (self.status.done and self.status is not Status.SEPARATOR and self.status is not Status.DIVERGED
                and metrics.get("train_errors") == 0):
            # "0 training errors" reads as "every point on its side": the same check as a separator's
            bad = sign_failures(self.problem, st["decision"])
            if bad:
                metrics["train_errors"] = bad
        st["metrics"] = metrics
        note = getattr(self, "_stop_note", "")
        if note and self.status.done:
            msg = st.get("message") or ""
            st["message"] = f"{msg} {note}".strip() if note not in msg else msg
        return st


#: How often (in updates) the iterates are checked for divergence between snapshots.
CHECK_EVERY = 32
#: An iterate component beyond this means the run is diverging (long before floats overflow).
EXPLODED = 1e100
DIVERGED_ADVICE = "Nothing is claimed; lower the step size or margin parameters, or scale the points to unit size"
#: A separator must beat rounding: min_i y_i f(x_i) > SIGN_TOL · max_i |f(x_i)|.
SIGN_TOL = 1e-12
_EVAL_CHUNK = 2048  # rows of the decision function evaluated at once (bounds the kernel block's memory)


def _finite_and_tame(v, scale=1.0) -> bool:
    """Finite, and every |v|·scale within EXPLODED (scale broadcasts along v's last axis)."""
    a = np.asarray(v, dtype=float)
    if not np.isfinite(a).all():
        return False
    try:
        with np.errstate(over="ignore"):
            return float((np.abs(a) * scale).max(initial=0.0)) <= EXPLODED
    except ValueError:  # shapes differ (a solver's own vector): by size alone
        return float(np.abs(a).max(initial=0.0)) <= EXPLODED


def _feature_size(solver: "Solver"):
    """max_i |φ_j(x_i)| per feature j, cached: a weight is measured by the scores it gives, |a_j|·max|φ_j|."""
    size = solver.__dict__.get("_feature_size_cache")
    if size is None:
        size = 1.0
        if solver.representation != "kernel":
            size = np.abs(np.asarray(solver.problem.Phi)).max(axis=0, initial=0.0)
        solver.__dict__["_feature_size_cache"] = size
    return size


def _exploded(solver: "Solver") -> str:
    """Which iterate is non-finite or exploding ('' if none): a and W by their scores (|a|·max|φ|, so points
    scaled by 1e-300 may need weights of 1e300), b, p and Gp by their size."""
    for name in ("a", "W", "b", "p", "Gp"):
        v = solver.__dict__.get(name)
        if isinstance(v, np.ndarray) and v.dtype.kind == "f":
            scale = _feature_size(solver) if name in ("a", "W") else 1.0
            if not _finite_and_tame(v, scale):
                return f"the iterate {name} became non-finite or exploded (its scores beyond {EXPLODED:g})"
    return ""


def feature_reach(problem: Problem) -> float:
    """max_i ‖φ(x_i)‖ = max_i √K(x_i, x_i) of the kernel: |f(x_i) − b| ≤ ‖w‖ times this on every point."""
    d = np.asarray(problem.kernel.diag(np.asarray(problem.X, dtype=float)), dtype=float)
    return float(np.sqrt(max(float(d.max(initial=0.0)), 0.0)))


def weight_reach(wn: float, problem: Problem, fx: np.ndarray) -> float:
    """‖w‖·max‖φ(x_i)‖, and at least half the range of f on the points (a lower bound on it that no cancellation
    in ‖w‖² = αᵀQα can hide: a computed ‖w‖ of 0 while f spans −1…1 is rounding, not w = 0)."""
    fx = np.asarray(fx, dtype=float)
    spread = 0.5 * float(np.ptp(fx)) if fx.size and np.isfinite(fx).all() else 0.0
    return max(wn * feature_reach(problem), spread)


def decision_on_points(decision: DecisionFunction, X: np.ndarray) -> np.ndarray:
    """The decision function's values on the training points, evaluated in bounded chunks."""
    X = np.asarray(X, dtype=float)
    parts = [np.asarray(decision(X[i : i + _EVAL_CHUNK]), dtype=float) for i in range(0, len(X), _EVAL_CHUNK)]
    return np.concatenate(parts) if parts else np.zeros(0)


def rounding_of_terms(problem: Problem, decision: DecisionFunction) -> np.ndarray | None:
    """A bound on the rounding of f(x_j) as a sum of terms: 8·(terms)·eps·Σ|term| (None when not known).

    Kernel expansions: |coef_i K(c_i, x_j)| ≤ |coef_i| √(K(c_i, c_i) K(x_j, x_j)) (Cauchy–Schwarz); φ-maps:
    Σ_k |w_k φ_k(x_j)|. A sign below it is rounding: e.g. f ≡ (Σ α_i y_i) K on one point carrying both labels,
    where Σ α_i y_i = 0 in exact arithmetic and ±1e-17 in floats."""
    from percviz.core.decision import FeatureLinear, KernelExpansion

    eps = np.finfo(float).eps
    if isinstance(decision, KernelExpansion):
        nz = np.flatnonzero(decision.coef)
        if nz.size == 0:
            return None
        kc = np.sqrt(np.maximum(np.asarray(decision.kernel.diag(decision.centers[nz]), dtype=float), 0.0))
        kx = np.sqrt(np.maximum(np.asarray(decision.kernel.diag(problem.X), dtype=float), 0.0))
        total = float(np.abs(decision.coef[nz]) @ kc) * kx + abs(float(decision.bias))
        return 8.0 * (nz.size + 1) * eps * total
    if isinstance(decision, FeatureLinear) and decision.weights.ndim == 1:
        try:
            Phi = np.asarray(decision.features.transform(problem.X), dtype=float)
        except Exception:  # noqa: BLE001 - a map that cannot be rebuilt here: no extra test
            return None
        return 8.0 * Phi.shape[1] * eps * (np.abs(Phi) @ np.abs(decision.weights))
    return None


def sign_failures(problem: Problem, decision: DecisionFunction) -> int:
    """How many training points the decision function does not put on their side beyond rounding (SIGN_TOL)."""
    f = decision_on_points(decision, problem.X)
    if not np.isfinite(f).all():
        return int(len(problem.X)) or 0
    scale = float(np.abs(f).max(initial=0.0))
    if f.ndim == 1:
        return int(np.count_nonzero(~(problem.y * f > SIGN_TOL * scale)))
    cls = np.asarray(problem.points.classes)
    own = f[np.arange(len(cls)), cls]
    rival = np.where(np.arange(f.shape[1])[None, :] == cls[:, None], -np.inf, f).max(axis=1)
    return int(np.count_nonzero(~(own - rival > SIGN_TOL * scale)))


def separator_refuted(problem: Problem, decision: DecisionFunction, representation: str) -> str:
    """'' when the decision function classifies every training point correctly beyond rounding, else why not."""
    f = decision_on_points(decision, problem.X)
    if not np.isfinite(f).all():
        return "the decision function is not finite at some training point"
    if f.ndim == 1:
        yf = problem.y * f
        scale = float(np.abs(f).max(initial=0.0))
        i = int(np.argmin(yf)) if yf.size else 0
        if yf.size and not yf[i] > SIGN_TOL * scale:
            return f"the decision function gives y·f = {yf[i]:.3g} at point {i}"
        noise = rounding_of_terms(problem, decision)
        if noise is not None and yf.size:
            j = int(np.argmin(yf - noise))
            if not yf[j] > noise[j]:
                return (f"y·f = {yf[j]:.3g} at point {j} is below the rounding of the sum that gives it "
                        f"({noise[j]:.2g})")
        return ""
    cls = np.asarray(problem.points.classes)
    own = f[np.arange(len(cls)), cls]
    rival = np.where(np.arange(f.shape[1])[None, :] == cls[:, None], -np.inf, f).max(axis=1)
    gap = own - rival
    scale = float(np.abs(f).max(initial=0.0))
    i = int(np.argmin(gap)) if gap.size else 0
    if gap.size and not gap[i] > SIGN_TOL * scale:
        return f"point {i}'s own discriminant does not beat its strongest rival (gap {gap[i]:.3g})"
    return ""


#: Feature vectors beyond this size are refused: squares and sums of products of them would overflow.
MAX_FEATURE_SIZE = 1e30


def _check_feature_scale(problem: Problem, who: str) -> None:
    """Raise DataError when some |φ(x_i)| component exceeds MAX_FEATURE_SIZE (e.g. degree 8 at x ~ 1e6)."""
    from percviz.core.errors import DataError

    Y = np.asarray(problem.Y)
    big = float(np.abs(Y).max(initial=0.0))
    if big > MAX_FEATURE_SIZE:
        i = int(np.abs(Y).max(axis=1).argmax())
        raise DataError(
            f"{who}: the feature vector of point {i} reaches {big:.3g} with the {problem.features.spec} map, too "
            "large for double precision (its squares overflow). Scale the points down or use a lower-degree map."
        )


#: The common iteration limit, validated like every other parameter.
MAX_ITER_SPEC = ParamSpec("max_iter", int, 1000, 0, 10**8, help="Stop after this many updates.")

SOLVERS: dict[str, type[Solver]] = {}


def register(cls: type[Solver]) -> type[Solver]:
    """Class decorator: add a solver to the registry under its short name (refuses duplicates)."""
    if not cls.name or not cls.display_name or not cls.family:
        raise ValueError(f"{cls.__name__} must set name, display_name and family")
    if cls.name in SOLVERS:
        raise ValueError(f"solver {cls.name!r} registered twice")
    unknown = set(cls.metric_keys) - set(METRICS)
    if unknown:
        raise ValueError(f"{cls.__name__} reports unknown metrics {sorted(unknown)}; add them to METRICS")
    SOLVERS[cls.name] = cls
    return cls


def unknown_solver(name: str) -> ParameterError:
    return ParameterError(f"Unknown algorithm '{name}'. Known algorithms: {', '.join(sorted(SOLVERS))}.")
