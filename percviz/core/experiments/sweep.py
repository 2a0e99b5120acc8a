"""Margin and accuracy sweeps: run registered solvers over a scene family, fit log–log rates, draw the bounds.

A separable sweep records, per scene, ρ_K (gram.optimal_margin) and each algorithm's iterations to a
separator; the fitted slope of log iterations against log 1/ρ_K estimates the rate exponent (the paper:
≈ 1 for SNKP, √log n/ρ_K; 2 for the perceptrons and NKP, 1/ρ_K²). A certificate sweep (non-separable
family) does the same against log 1/ε (NVN ≈ 1/ε², ISNKPVN ≈ √n/ε·log(1/ε)). A sweep over n (`ns`) keeps ρ_K
fixed (the `fixed` family) and fits log iterations against log √(log n): SNKP's Theorem 1 bound
2√(2 log n)/ρ_K grows as √(log n) (exponent 1), NKP's 1/ρ_K² and the perceptrons' do not depend on n.
Scenes run in separate processes when there is more than one task and more than one worker, or on Dask.
"""

from __future__ import annotations

import math
import time
from dataclasses import asdict, dataclass, field
from typing import Iterator

import numpy as np

from percviz.core import budget, gram
from percviz.core.errors import ParameterError
from percviz.core.experiments.families import FAMILIES, get_family
from percviz.core.experiments.runners import run_all
from percviz.core.problem import Problem
from percviz.core.solvers import get_solver
from percviz.core.solvers.base import Status

#: Solvers whose `bound` metric is an iteration count once the data are separable (their theorems).
ITERATION_BOUNDS = {
    "perceptron": "Novikoff R²/ρ²",
    "normalized-perceptron": "1/ρ₂²",
    "kernel-perceptron": "Novikoff max K/γ²",
    "nkp": "1/ρ_K²",
    "snkp": "2√(2 log n)/ρ_K",
    "snkpvn": "2√(2n)/ρ_K",
}
#: The certificate algorithms of a sweep against ε and the label of the line drawn for each.
#: The numbers of points of a sweep over n: n = 2 is the mirror pair alone; 10⁶ points stay O(nD) on the factor.
MIN_N, MAX_N = 2, 1_000_000
DEFAULT_NS = (10, 100, 1000, 10_000, 100_000)
DEFAULT_MARGIN = 0.05
EPS_BOUNDS = {"nvn": "1/ε² (von Neumann)", "isnkpvn": "2√(2n)/ε·⌈log(‖q₀‖_G/ε)/log γ⌉ (Theorem 4 rate)"}


#: The sweep window's default algorithms: a separable family's (the rates 1/ρ_K against 1/ρ_K²), else certificates'.
SWEEP_ALGORITHMS = {True: "snkp,nkp,kernel-perceptron", False: "nvn,isnkpvn"}
#: What the paper says each algorithm's slope should be (against 1/ρ_K, or 1/ε for certificates).
PAPER_SLOPES = {"snkp": "1", "nkp": "2", "normalized-perceptron": "2", "perceptron": "2", "kernel-perceptron": "2",
                "nvn": "2", "isnkpvn": "≈ 1"}


@dataclass(frozen=True)
class SweepSpec:
    """What to sweep: algorithms, family (with its kernel/φ-map unless given), seed, levels or accuracies."""

    algorithms: tuple[str, ...]
    family: str = "line"
    kernel: str | None = None
    features: str | None = None
    seed: int = 0
    levels: tuple[float, ...] | None = None
    eps: tuple[float, ...] | None = None
    max_iter: int = 200_000
    #: Numbers of points of a sweep over n at the one fixed margin `levels` = (ρ_K,); None: a margin/ε sweep.
    ns: tuple[int, ...] | None = None

    def __post_init__(self):
        fam = get_family(self.family)
        if self.ns is not None:
            self._check_ns(fam)
        if not self.algorithms:
            raise ParameterError("A sweep needs at least one algorithm, e.g. --algorithms snkp,nkp.")
        for a in self.algorithms:
            get_solver(a)  # raises for unknown names
        object.__setattr__(self, "algorithms", tuple(self.algorithms))
        object.__setattr__(self, "levels", tuple(float(t) for t in (self.levels or fam.levels)))
        object.__setattr__(self, "eps", tuple(float(e) for e in (self.eps or fam.eps)))
        if not fam.separable and not self.eps:
            raise ParameterError(f"The '{self.family}' family is not separable: give accuracies ε to sweep.")
        for e in self.eps:
            if not 0 < e < 1:
                raise ParameterError(f"Every ε must be in (0, 1). Got {e!r} instead.")

    def _check_ns(self, fam) -> None:
        if not fam.fixed_margin:
            known = ", ".join(f.name for f in FAMILIES.values() if f.fixed_margin)
            raise ParameterError(f"A sweep over n needs a family whose margin does not change with n ({known}); "
                                 f"'{self.family}' is not one.")
        if not self.ns or any(int(v) != v or not MIN_N <= v <= MAX_N for v in self.ns):
            raise ParameterError(f"Every n of a sweep over n must be a whole number from {MIN_N} to {MAX_N:,}. "
                                 f"Got {self.ns!r} instead.")
        if self.levels is None:
            object.__setattr__(self, "levels", (DEFAULT_MARGIN,))
        if len(self.levels) != 1 or not 0 < self.levels[0] < 1:
            raise ParameterError(f"A sweep over n takes one margin ρ_K in (0, 1). Got {self.levels!r} instead.")
        object.__setattr__(self, "ns", tuple(int(v) for v in self.ns))

    @property
    def separable(self) -> bool:
        return get_family(self.family).separable

    @property
    def over_n(self) -> bool:
        return self.ns is not None

    @property
    def kernel_spec(self) -> str:
        return self.kernel or get_family(self.family).kernel

    @property
    def features_spec(self) -> str:
        return self.features or get_family(self.family).features

    def tasks(self) -> list[tuple]:
        """(scene index, level t, ε or None[, n]): one task per scene (separable), per ε (certificates) or per n."""
        if self.over_n:
            return [(i, self.levels[0], None, n) for i, n in enumerate(self.ns)]
        if self.separable:
            return [(i, t, None) for i, t in enumerate(self.levels)]
        return [(i, t, e) for i, (t, e) in enumerate((t, e) for t in self.levels for e in self.eps)]


@dataclass(frozen=True)
class RunRecord:
    """One algorithm on one scene: the scene's ρ_K, the iterations to halt, how it halted, its bound."""

    scene: int
    level: float
    n: int
    rho: float | None  # ρ_K when resolved (the certified interval at most 0.1% wide), else None (see rho_note)
    algorithm: str
    iterations: int
    status: str
    eps: float | None = None
    bound: float | None = None
    margin: float | None = None
    seconds: float | None = field(default=None, compare=False)  # the solver's run to its halt (not ρ_K)
    over_n: bool = False  # a run of a sweep over n: its abscissa is √(log n)
    rho_interval: tuple[float, float] | None = None  # certified lo ≤ ρ_K ≤ hi
    rho_exact: bool = False  # ρ_K known to 1e-6 relative
    rho_note: str | None = None  # why rho is None

    def as_dict(self) -> dict:
        return asdict(self)


@dataclass(frozen=True)
class Slope:
    """A least-squares line log y = slope·log x + intercept over `points` runs."""

    slope: float
    intercept: float
    points: int


@dataclass
class SweepResult:
    """All the records of a sweep, in task then algorithm order, with the fitted slopes."""

    spec: SweepSpec
    runs: list[RunRecord] = field(default_factory=list)

    @property
    def slopes(self) -> dict[str, Slope | None]:
        return {a: fit_slope(self.runs, a) for a in self.spec.algorithms}


def _finite(v) -> float | None:
    return float(v) if v is not None and math.isfinite(v) else None


def _eps_bound(algorithm: str, problem: Problem, eps: float, solver) -> float | None:
    """The line drawn for a certificate run: NVN ‖p_k‖_G ≤ 1/√(k + ‖p₀‖_G⁻²); ISNKPVN's Theorem 4 rate."""
    q0 = np.full(problem.n, 1.0 / problem.n)
    q0_norm = math.sqrt(problem.gram.quad(q0))  # the Gram operator: no n×n matrix for finite feature maps
    if algorithm == "nvn":
        return 1.0 / eps**2
    if algorithm == "isnkpvn" and q0_norm > eps:
        loops = math.ceil(math.log(q0_norm / eps) / math.log(solver.values["gamma"]))
        return 2.0 * math.sqrt(2.0 * problem.n) / eps * max(loops, 1)
    return None


def recorded_rho(margin) -> tuple[float | None, str | None]:
    """(ρ_K, None) when the margin is resolved (or exactly known), else (None, why): never a 0.0 standing for
    'could not resolve'."""
    if margin.exact or margin.resolved and margin.separable:
        return float(margin.rho), None
    lo, hi = margin.interval
    if not margin.decided:
        why = "the time budget ran out" if not margin.complete else "below what double precision resolves on G"
        return None, f"separability undecided ({why}): {lo:.3g} ≤ ρ_K ≤ {hi:.3g}"
    return None, f"ρ_K not resolved: {lo:.3g} ≤ ρ_K ≤ {hi:.3g}"


def run_task(spec: SweepSpec, index: int, level: float, eps: float | None, n: int | None = None) -> list[RunRecord]:
    """Build one scene, compute ρ_K and run every algorithm of the spec on it (top level: spawn-safe)."""
    fam = get_family(spec.family)
    points = fam.scene(level, spec.seed, n)
    records = []
    # One Problem for every algorithm: the ρ_K certified here is its memo, so each solver's `bound` reads that value
    # instead of recomputing it within gram.SYNC_BUDGET (NKP's bound at n = 300,000 differed between two machines).
    problem = Problem(points, spec.kernel_spec, spec.features_spec)
    for name in spec.algorithms:  # the memory budget first: ρ_K of 10⁵ points took 5 s before a refusal
        budget.check_solver_class(get_solver(name), problem)
    margin = gram.optimal_margin(problem)
    for name in spec.algorithms:
        cls = get_solver(name)
        kw = {"eps": eps} if eps is not None and "eps" in {p.name for p in cls.params.specs} else {}
        solver = cls(problem, max_iter=spec.max_iter, **kw)
        t0 = time.perf_counter()
        snap = solver.run()
        seconds = time.perf_counter() - t0
        if eps is None:
            bound = _finite(snap.metrics.get("bound")) if name in ITERATION_BOUNDS else None
        else:
            bound = _eps_bound(name, problem, eps, solver)
        rho, note = recorded_rho(margin)
        records.append(RunRecord(index, level, problem.n, rho, name, int(snap.iteration),
                                 snap.status.value, eps, bound, _finite(snap.metrics.get("margin")), seconds,
                                 spec.over_n, tuple(float(v) for v in margin.interval), bool(margin.exact), note))
    return records


def iter_sweep(spec: SweepSpec, workers: int = 2, poll: float | None = None, *, backend: str = "processes",
               scheduler: str | None = None, client=None, skip: frozenset[int] = frozenset()
               ) -> Iterator[tuple[int, int, list[RunRecord]]]:
    """Yield (tasks done, tasks in all, the records of the task just done) as tasks finish.

    The tasks (scenes, skipping the indices in `skip`) run through runners.run_all: here, in a spawn-context
    process pool (more than one task and worker), or on Dask (backend "dask", a `scheduler` address or a
    distributed `client`), each task one run whose result depends on the spec and its scene alone.
    Closing the generator (Cancel) drops the tasks not finished. With `poll` (seconds) it also yields
    (done, total, []) while it waits, so a worker can check for Cancel that often.
    """
    tasks = [t for t in spec.tasks() if t[0] not in skip]
    # the largest sets first (a sweep over n): the smaller ones then fill the other processes meanwhile
    tasks.sort(key=lambda t: -(t[3] if len(t) > 3 else 0))
    total, done = len(tasks), 0
    runs = run_all(run_task, {t[0]: (spec, *t) for t in tasks}, workers=workers, poll=poll, backend=backend,
                   scheduler=scheduler, client=client)
    try:
        for key, records in runs:
            if key is None:
                yield done, total, []
                continue
            done += 1
            yield done, total, records
    finally:
        runs.close()


def sort_runs(spec: SweepSpec, runs: list[RunRecord]) -> list[RunRecord]:
    """The records by scene, then in the spec's algorithm order."""
    order = {a: i for i, a in enumerate(spec.algorithms)}
    return sorted(runs, key=lambda r: (r.scene, order[r.algorithm]))


def run_sweep(spec: SweepSpec, workers: int = 2, **how) -> SweepResult:
    """Run the whole sweep (`how`: iter_sweep's backend, scheduler, client); records sorted by scene, algorithm."""
    return SweepResult(spec, sort_runs(spec, [r for _, _, recs in iter_sweep(spec, workers, **how) for r in recs]))


def goal(record: RunRecord) -> bool:
    """Whether a run reached what its sweep measures: a separator (ε None) or a certificate."""
    want = Status.SEPARATOR if record.eps is None else Status.CERTIFICATE
    return record.status == want.value


def x_value(record: RunRecord) -> float:
    """The abscissa of a run's fit: 1/ρ_K (separable sweeps), 1/ε (certificate sweeps) or √(log n) (over n)."""
    if record.over_n:
        return math.sqrt(math.log(record.n))
    return 1.0 / record.rho if record.eps is None else 1.0 / record.eps


def fit_slope(runs: list[RunRecord], algorithm: str) -> Slope | None:
    """Least squares of log iterations on log x over the runs that reached the goal in ≥ 1 iteration."""
    pts = [(x_value(r), r.iterations) for r in runs
           if r.algorithm == algorithm and goal(r) and r.iterations >= 1
           and (r.eps is not None or r.over_n or (r.rho is not None and r.rho > 0))]
    if len({x for x, _ in pts}) < 2:
        return None
    x, y = np.log([p[0] for p in pts]), np.log([p[1] for p in pts])
    slope, intercept = np.polyfit(x, y, 1)
    return Slope(float(slope), float(intercept), len(pts))
