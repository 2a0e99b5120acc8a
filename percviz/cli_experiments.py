"""`percviz sweep` and `percviz cover`: the experiments of percviz.core.experiments on the command line (no Qt)."""

from __future__ import annotations

import math
import os
import time
from pathlib import Path
from typing import Sequence

from percviz.cli_common import (EXIT_DATA, EXIT_OK, INT64_MAX, Parser, UsageError, fail, positive_seconds,
                                print_json, progress, seed_type, whole)
from percviz.core.budget import BudgetError
from percviz.core.experiments.families import FAMILIES
from percviz.core.experiments.runners import BACKENDS


def _floats(text: str | None, what: str) -> tuple[float, ...] | None:
    if text is None:
        return None
    try:
        return tuple(float(v) for v in text.split(",") if v.strip())
    except ValueError:
        raise UsageError(f"{what} takes numbers separated by commas, e.g. 0.5,0.2,0.1; got '{text}'") from None


def sweep_parser() -> Parser:
    p = Parser(prog="percviz sweep", description="Run algorithms over a family of scenes whose margin ρ_K "
                "shrinks (or over accuracies ε on a non-separable family, or over the number of points n at a "
                "fixed margin) and fit log–log rates.")
    p.add_argument("--over", choices=("margin", "n"), default="margin",
                   help="margin: levels of the family (default); n: numbers of points at one fixed ρ_K "
                        "(the 'fixed' family), iterations against √(log n)")
    p.add_argument("--n", metavar="N,…", help="with --over n: numbers of points (default 10,100,1000,10000,100000)")
    p.add_argument("--margin", type=float, metavar="RHO", help="with --over n: the fixed ρ_K in (0, 1) (default 0.05)")
    p.add_argument("--algorithms", "-a", default="snkp,nkp,perceptron", metavar="A,B,…",
                   help="registered algorithms, comma-separated (default snkp,nkp,perceptron)")
    p.add_argument("--family", choices=list(FAMILIES),
                   help="; ".join(f"{f.name}: {f.description}" for f in FAMILIES.values())
                   + " (default: line, or fixed with --over n)")
    p.add_argument("--kernel", "-k", metavar="SPEC", help="kernel spec (default: the family's)")
    p.add_argument("--features", "-f", metavar="SPEC", help="φ-map (default: the family's)")
    p.add_argument("--seed", type=seed_type, default=0, help="seed of the family's points, ≥ 0 (default 0)")
    p.add_argument("--levels", metavar="T,…", help="family levels t in (0, 1] (smaller: thinner margin)")
    p.add_argument("--eps", metavar="E,…", help="accuracies ε for a non-separable family (e.g. flip)")
    p.add_argument("--max-iter", type=int, default=200_000, metavar="N", help="iteration limit per run")
    _add_runner_options(p, workers=min(2, os.cpu_count() or 1), budget=None)
    p.add_argument("--out", metavar="FILE", help="write each finished run to FILE as one JSON line as it finishes")
    p.add_argument("--resume", metavar="FILE", help="continue the sweep journalled in FILE (--out of the same "
                   "arguments): its finished runs are kept, the others run and are appended (a new FILE starts)")
    p.add_argument("--json", action="store_true", help="print runs and slopes as JSON (no progress bar)")
    return p


def _add_runner_options(p: Parser, *, workers: int, budget: float | None) -> None:
    """--workers, --backend, --scheduler and --time-budget: where the runs go and how long they may take."""
    p.add_argument("--workers", type=int, default=workers,
                   help=f"local processes, or the workers of a Dask cluster started here (default {workers})")
    p.add_argument("--backend", choices=BACKENDS,
                   help="processes: this machine (default); dask: each run a task of a Dask cluster (a local one "
                        "of --workers processes unless --scheduler is given); needs pip install 'percviz[dask]'")
    p.add_argument("--scheduler", metavar="tcp://HOST:PORT", help="the Dask scheduler to run on (implies "
                   "--backend dask); its workers need the same percviz installed")
    p.add_argument("--time-budget", type=positive_seconds, default=budget, metavar="SECONDS",
                   help="stop after this many seconds and report the runs finished, marked partial"
                        + (" (default: no limit)" if budget is None else
                           f"; a run estimated past it is refused up front (default {budget:g})"))


def _how(args) -> dict:
    """The runners' backend and scheduler from the options (a scheduler asks for Dask)."""
    if args.workers < 1:
        raise UsageError("--workers must be 1 or more")
    if args.scheduler is not None:
        if args.backend == "processes":
            raise UsageError("--scheduler runs on Dask: drop --backend processes")
        if not args.scheduler.strip():
            raise UsageError("--scheduler takes the scheduler's address, e.g. tcp://10.0.0.5:8786")
        return {"backend": "dask", "scheduler": args.scheduler.strip()}
    return {"backend": args.backend or "processes", "scheduler": None}


def _whole_list(text: str | None, what: str, low: int, high: int) -> tuple[int, ...] | None:
    """Comma-separated whole numbers from low to high, each once."""
    if text is None:
        return None
    values = tuple(whole(v, what, low, high) for v in text.split(",") if v.strip())
    if not values:
        raise UsageError(f"{what} takes whole numbers separated by commas, e.g. 10,100,1000; got '{text}'")
    twice = sorted({v for v in values if values.count(v) > 1})
    if twice:
        raise UsageError(f"{what} lists {', '.join(map(str, twice))} more than once; give each number once")
    return values


def _over_n(args) -> tuple[tuple[float, ...] | None, tuple[int, ...] | None]:
    """(levels, ns) of the spec: --margin and --n with --over n, refused without it."""
    from percviz.core.experiments.sweep import DEFAULT_NS, MAX_N, MIN_N

    if args.over != "n":
        if args.n is not None or args.margin is not None:
            raise UsageError("--n and --margin belong to a sweep over n: add --over n")
        return _floats(args.levels, "--levels"), None
    if args.levels is not None or args.eps is not None:
        raise UsageError("--over n keeps one margin: give it with --margin, not --levels or --eps")
    ns = _whole_list(args.n, "--n", MIN_N, MAX_N)
    if args.margin is not None and not (math.isfinite(args.margin) and 0 < args.margin < 1):
        raise UsageError(f"A sweep over n takes one margin ρ_K in (0, 1) (--margin); got {args.margin!r}")
    return (None if args.margin is None else (args.margin,)), (DEFAULT_NS if ns is None else ns)


def _journal(args, spec):
    """(journal or None, the runs it already holds): --out starts a new file, --resume continues one."""
    from percviz.core.experiments import journal

    if args.out and args.resume:
        raise UsageError("--out starts a journal and --resume continues one: give one of them")
    path = args.out or args.resume
    if path is None:
        return None, []
    path = Path(path)
    if path.is_dir():
        raise UsageError(f"{path} is a folder: give --out a file name, e.g. sweep.jsonl")
    if args.out and path.exists() and path.stat().st_size > 0:
        raise UsageError(f"{path} exists: continue it with --resume {path}, or give --out a new file")
    kept = journal.read(path, spec) if args.resume else []
    return journal.Journal(path, spec), kept


def cmd_sweep(argv: Sequence[str]) -> int:
    from percviz.core.experiments.sweep import SweepResult, SweepSpec, iter_sweep, sort_runs

    args = sweep_parser().parse_args(argv)
    if args.max_iter < 1:
        raise UsageError("--max-iter must be 1 or more")
    how = _how(args)
    algorithms = tuple(a.strip() for a in args.algorithms.split(",") if a.strip())
    levels, ns = _over_n(args)
    family = args.family or ("fixed" if ns is not None else "line")
    spec = SweepSpec(algorithms, family, args.kernel, args.features, args.seed,
                     levels, _floats(args.eps, "--eps"), args.max_iter, ns)
    book, runs = _journal(args, spec)
    done = frozenset(r.scene for r in runs)
    total = len(spec.tasks())
    bar = progress(total * len(spec.algorithms), "run", "sweep", quiet=args.json, initial=len(runs))
    deadline = None if args.time_budget is None else time.monotonic() + args.time_budget
    stopped = False
    try:
        if book is not None:
            book.start(runs)
        sweep = iter_sweep(spec, args.workers, poll=0.5, skip=done, **how)
        try:
            for finished, left, records in sweep:
                if records:
                    if book is not None:
                        book.add(records)
                    runs.extend(records)
                bar.update(len(records))
                if deadline is not None and time.monotonic() > deadline and finished < left:
                    stopped = True
                    break
        finally:
            sweep.close()
    except BudgetError as e:
        return fail("percviz sweep", str(e), EXIT_DATA)
    finally:
        bar.close()
        if book is not None:
            book.close()
    result = SweepResult(spec, sort_runs(spec, runs))
    missing = sorted({t[0] for t in spec.tasks()} - {r.scene for r in runs})
    note = _stop_note(args, stopped, missing, total)
    slopes = {a: (None if s is None else s.slope) for a, s in result.slopes.items()}
    if ns is not None:
        return _print_over_n(spec, result, slopes, args.json, missing, note)
    if args.json:
        print_json({"family": spec.family, "kernel": spec.kernel_spec, "features": spec.features_spec,
                    "seed": spec.seed, "x": "1/rho" if spec.separable else "1/eps",
                    "runs": [r.as_dict() for r in result.runs], "slopes": slopes,
                    "complete": not missing, "missing_scenes": missing})
        return EXIT_OK
    eps_col = not spec.separable
    print(f"family {spec.family} (kernel {spec.kernel_spec}, φ {spec.features_spec}, seed {spec.seed})")
    head = f"{'scene':>5} {'rho_K':>10} " + (f"{'eps':>9} " if eps_col else "")
    print(head + f"{'algorithm':<20} {'iterations':>10} {'bound':>10}  status")
    for r in result.runs:
        bound = "" if r.bound is None else f"{r.bound:.4g}"
        e = f"{r.eps:9.3g} " if eps_col else ""
        rho = "unresolved" if r.rho is None else f"{r.rho:.4g}"
        print(f"{r.scene:5d} {rho:>10} {e}{r.algorithm:<20} {r.iterations:10d} {bound:>10}  {r.status}")
    x = "1/ε" if eps_col else "1/ρ_K"
    for a, s in slopes.items():
        print(f"slope of log iterations on log {x}, {a}: " + ("n/a (fewer than 2 halting runs)" if s is None else f"{s:.3f}"))
    if note:
        print(note)
    return EXIT_OK


def _stop_note(args, stopped: bool, missing: list[int], total: int) -> str | None:
    """The line that marks a partial sweep (stopped at the time budget), with how to finish it."""
    if not missing:
        return None
    again = f" Finish it with --resume {args.out or args.resume}." if (args.out or args.resume) else \
        " Journal it with --out FILE to resume it later."
    why = f"stopped at the time budget of {args.time_budget:g} s" if stopped else "stopped"
    return f"PARTIAL: {why}: {total - len(missing)} of {total} scenes done, scenes {missing} not run.{again}"


def cover_parser() -> Parser:
    p = Parser(prog="percviz cover", description="Cover's function counting: simulated fraction of separable "
               "random labelings (decided by the LP) against the formula.")
    p.add_argument("--features", "-f", default="linear", metavar="SPEC",
                   help="φ-map whose dimension is d̂ (linear: the plane, d̂ = 3; quadratic: 6; poly:degree=3: 10)")
    p.add_argument("--n", metavar="N,…", help="numbers of points (default 1 … 4d̂)")
    p.add_argument("--trials", default="200", metavar="T", help="labelings per n (default 200)")
    p.add_argument("--seed", type=seed_type, default=0, help="seed of the points and labels, ≥ 0 (default 0)")
    _add_runner_options(p, workers=1, budget=COVER_TIME_BUDGET)
    p.add_argument("--json", action="store_true", help="print the rows as JSON (no progress bar)")
    return p


#: The time budget of `percviz cover` (seconds) unless --time-budget says otherwise.
COVER_TIME_BUDGET = 600.0
#: Labelings one command may ask for (its runs are held in memory as tasks): 10⁷ (2·10⁵ runs of 50).
MAX_LABELINGS = 10_000_000
#: A lower bound on one min-τ LP's seconds: a + b·n·d̂. Half the least measured on the 2-core machine
#: (HiGHS through scipy: 3.7 ms at n×d̂ = 24×6, 35 ms at 100×91, 42 ms at 200×51, i.e. ≥ 4 ns per entry).
LP_SECONDS = (2e-3, 2e-9)


def cover_estimate(ns: Sequence[int], d_hat: int, trials: int) -> float:
    """At least how many seconds the simulation's LPs take (LP_SECONDS per LP, summed over every labeling)."""
    a, b = LP_SECONDS
    return trials * sum(a + b * n * d_hat for n in ns)


def _cover_budgets(ns, d_hat: int, trials: int, features: str, time_budget: float) -> None:
    """Refuse before anything is drawn: the largest LP past the memory budget, the runs past the time budget."""
    from percviz.core import budget

    n = max(ns)
    # Φ and the signed rows (n×d̂ each), the points, and the LP's copies of its matrix (as budget.check_solver)
    budget.require(8.0 * 6 * n * (d_hat + 2), f"Cover's LP at n = {n:,} with the {features} map (n×d̂ = "
                   f"{n:,}×{d_hat:,})", "Use a smaller --n or a smaller φ-map")
    need = cover_estimate(ns, d_hat, trials)
    if need > time_budget:
        fit = max(1, int(trials * time_budget / need))
        raise BudgetError(f"{trials:,} labelings at each of {len(ns):,} values of n (up to n = {n:,}, d̂ = {d_hat:,}) "
                          f"would take at least {_duration(need)}; the time budget is {_duration(time_budget)}. "
                          f"Use at most {fit:,} --trials, fewer or smaller --n, or a smaller φ-map (or raise "
                          "--time-budget)")
    if trials * len(ns) > MAX_LABELINGS:
        raise BudgetError(f"{trials:,} labelings at each of {len(ns):,} values of n are {trials * len(ns):,} LPs, "
                          f"more than one command may run ({MAX_LABELINGS:,}); use fewer --trials (a few hundred "
                          "give a standard error of about 0.02) or fewer values of --n")


def _duration(seconds: float) -> str:
    if seconds < 120:
        return f"{seconds:.0f} s"
    if seconds < 7200:
        return f"{seconds / 60:.0f} min"
    if seconds < 2 * 86400:
        return f"{seconds / 3600:.1f} h"
    return f"{seconds / 86400:.3g} days"


def cmd_cover(argv: Sequence[str]) -> int:
    from percviz.core import cover
    from percviz.core.experiments.runners import run_all

    args = cover_parser().parse_args(argv)
    how = _how(args)
    trials = whole(args.trials, "--trials", 1)
    d_hat = cover.feature_dimension(args.features)
    ns = _whole_list(args.n, "--n", 1, INT64_MAX) or tuple(range(1, 4 * d_hat + 1))
    try:
        _cover_budgets(ns, d_hat, trials, args.features, args.time_budget)
    except BudgetError as e:
        return fail("percviz cover", str(e), EXIT_DATA)
    runs = cover.cover_runs(ns, trials)
    stop_at = time.time() + args.time_budget  # each run stops drawing then (a run in flight ends on time)
    tasks = {key: (args.features, n, key[1], count, args.seed, stop_at) for key, (n, count) in runs.items()}
    hits: dict[int, int] = {}
    counted: dict[int, int] = {}
    undecided: dict[int, int] = {}
    bar = progress(trials * len(ns), "LP", "cover", quiet=args.json)
    deadline = time.monotonic() + args.time_budget
    stopped = False
    left = len(runs)
    results = run_all(cover.cover_run, tasks, workers=args.workers, poll=0.5, **how)
    try:
        for key, found in results:
            if key is not None:
                left -= 1
                hits[key[0]] = hits.get(key[0], 0) + found[0]
                counted[key[0]] = counted.get(key[0], 0) + found[1]
                undecided[key[0]] = undecided.get(key[0], 0) + found[2]
                stopped = stopped or found[1] < runs[key][1]
            bar.update(0 if key is None else found[1])
            if stopped or left and time.monotonic() > deadline:
                stopped = True
                break
    finally:
        results.close()
        bar.close()
    rows = [cover.cover_row(n, hits[n], counted[n], d_hat, undecided.get(n, 0)) for n in ns if counted.get(n)]
    note = None
    if stopped:
        done = sum(counted.values())
        note = (f"PARTIAL: stopped at the time budget of {args.time_budget:g} s after {done:,} of "
                f"{trials * len(ns):,} labelings; rows marked partial have fewer trials, n without a row did not run")
    if args.json:
        print_json({"features": args.features, "d_hat": d_hat, "trials": trials, "complete": not stopped, "rows": [
            {"n": r.n, "n_over_d_hat": r.n / d_hat, "fraction": r.fraction, "std_error": r.std_error,
             "formula": r.formula, "trials": r.trials, "undecided": r.undecided,
             "partial": r.trials + r.undecided < trials} for r in rows]})
        return EXIT_OK
    print(f"φ-map {args.features}: d̂ = {d_hat}, {trials} random labelings per n")
    for r in rows:
        part = f" PARTIAL ({r.trials + r.undecided} labelings)" if r.trials + r.undecided < trials else ""
        print(f"n = {r.n:3d} (n/d̂ = {r.n / d_hat:4.2f}): separable fraction {r.fraction:.3f} (± {r.std_error:.3f}), "
              f"Cover's formula {r.formula:.3f}{part}" + (
                  f"; {r.undecided} of {r.trials + r.undecided} labelings undecided (the LP ran out of its "
                  f"{cover.LP_TIME_LIMIT:g} s or stalled: fewer points or a smaller φ-map decide them)"
                  if r.undecided else ""))
    if note:
        print(note)
    return EXIT_OK


def _print_over_n(spec, result, slopes, as_json: bool, missing: list[int], note: str | None) -> int:
    """The sweep over n: one row per (n, algorithm) with ρ_K, √(log n), iterations, bound and seconds."""
    if as_json:
        print_json({"family": spec.family, "kernel": spec.kernel_spec, "features": spec.features_spec,
                    "seed": spec.seed, "over": "n", "margin": spec.levels[0], "ns": list(spec.ns),
                    "x": "sqrt(log n)", "runs": [r.as_dict() for r in result.runs], "slopes": slopes,
                    "complete": not missing, "missing_scenes": missing})
        return EXIT_OK
    print(f"family {spec.family} at ρ_K = {spec.levels[0]:g} (kernel {spec.kernel_spec}, φ {spec.features_spec}, "
          f"seed {spec.seed}); bounds: snkp 2√(2 log n)/ρ_K, nkp 1/ρ_K², perceptron Novikoff R²/ρ²")
    print(f"{'n':>8} {'rho_K':>10} {'√log n':>7} {'algorithm':<22} {'iterations':>10} {'bound':>9} {'seconds':>8}  status")
    for r in result.runs:
        bound = "" if r.bound is None else f"{r.bound:.4g}"
        rho = "unresolved" if r.rho is None else f"{r.rho:.6g}"
        print(f"{r.n:8d} {rho:>10} {math.sqrt(math.log(r.n)):7.3f} {r.algorithm:<22} {r.iterations:10d} "
              f"{bound:>9} {r.seconds:8.3f}  {r.status}")
    for a, s in slopes.items():
        print(f"slope of log iterations on log √(log n), {a}: "
              + ("n/a (fewer than 2 halting runs)" if s is None else f"{round(s, 3) + 0.0:.3f}")
              + " (1: ∝ √log n, 0: flat in n)")
    if note:
        print(note)
    return EXIT_OK
