"""`percviz sweep` and `percviz cover`: the experiments of percviz.core.experiments on the command line (no Qt)."""

from __future__ import annotations

import math
import os
from typing import Sequence

from percviz.cli import EXIT_OK, UsageError, _Parser, _print_json
from percviz.core.experiments.families import FAMILIES


def _floats(text: str | None, what: str) -> tuple[float, ...] | None:
    if text is None:
        return None
    try:
        return tuple(float(v) for v in text.split(",") if v.strip())
    except ValueError:
        raise UsageError(f"{what} takes numbers separated by commas, e.g. 0.5,0.2,0.1; got '{text}'") from None


def sweep_parser() -> _Parser:
    p = _Parser(prog="percviz sweep", description="Run algorithms over a family of scenes whose margin ρ_K "
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
    p.add_argument("--seed", type=int, default=0, help="seed of the family's points (default 0)")
    p.add_argument("--levels", metavar="T,…", help="family levels t in (0, 1] (smaller: thinner margin)")
    p.add_argument("--eps", metavar="E,…", help="accuracies ε for a non-separable family (e.g. flip)")
    p.add_argument("--max-iter", type=int, default=200_000, metavar="N", help="iteration limit per run")
    p.add_argument("--workers", type=int, default=min(2, os.cpu_count() or 1),
                   help="processes (default: 2 when there are 2 cores)")
    p.add_argument("--json", action="store_true", help="print runs and slopes as JSON")
    return p


def _over_n(args) -> tuple[tuple[float, ...] | None, tuple[int, ...] | None]:
    """(levels, ns) of the spec: --margin and --n with --over n, refused without it."""
    from percviz.core.experiments.sweep import DEFAULT_NS

    if args.over != "n":
        if args.n is not None or args.margin is not None:
            raise UsageError("--n and --margin belong to a sweep over n: add --over n")
        return _floats(args.levels, "--levels"), None
    if args.levels is not None or args.eps is not None:
        raise UsageError("--over n keeps one margin: give it with --margin, not --levels or --eps")
    ns = _floats(args.n, "--n")
    if ns is not None and any(v != int(v) for v in ns):
        raise UsageError(f"--n takes whole numbers, e.g. 10,100,1000; got '{args.n}'")
    return (None if args.margin is None else (args.margin,)), (DEFAULT_NS if ns is None else tuple(int(v) for v in ns))


def cmd_sweep(argv: Sequence[str]) -> int:
    from percviz.core.experiments.sweep import SweepSpec, run_sweep

    args = sweep_parser().parse_args(argv)
    if args.max_iter < 1 or args.workers < 1:
        raise UsageError("--max-iter and --workers must be 1 or more")
    algorithms = tuple(a.strip() for a in args.algorithms.split(",") if a.strip())
    levels, ns = _over_n(args)
    family = args.family or ("fixed" if ns is not None else "line")
    spec = SweepSpec(algorithms, family, args.kernel, args.features, args.seed,
                     levels, _floats(args.eps, "--eps"), args.max_iter, ns)
    result = run_sweep(spec, workers=args.workers)
    slopes = {a: (None if s is None else s.slope) for a, s in result.slopes.items()}
    if ns is not None:
        return _print_over_n(spec, result, slopes, args.json)
    if args.json:
        _print_json({"family": spec.family, "kernel": spec.kernel_spec, "features": spec.features_spec,
                     "seed": spec.seed, "x": "1/rho" if spec.separable else "1/eps",
                     "runs": [r.as_dict() for r in result.runs], "slopes": slopes})
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
    return EXIT_OK


def cover_parser() -> _Parser:
    p = _Parser(prog="percviz cover", description="Cover's function counting: simulated fraction of separable "
                "random labelings (decided by the LP) against the formula.")
    p.add_argument("--features", "-f", default="linear", metavar="SPEC",
                   help="φ-map whose dimension is d̂ (linear: the plane, d̂ = 3; quadratic: 6; poly:degree=3: 10)")
    p.add_argument("--n", metavar="N,…", help="numbers of points (default 1 … 4d̂)")
    p.add_argument("--trials", type=int, default=200, help="labelings per n (default 200)")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--json", action="store_true")
    return p


def cmd_cover(argv: Sequence[str]) -> int:
    from percviz.core import cover

    args = cover_parser().parse_args(argv)
    d_hat = cover.feature_dimension(args.features)
    ns = _floats(args.n, "--n")
    if ns is not None and any(v != int(v) or v < 1 for v in ns):
        raise UsageError(f"--n takes whole numbers ≥ 1; got '{args.n}'")
    ns = tuple(int(v) for v in ns) if ns else tuple(range(1, 4 * d_hat + 1))
    rows = cover.simulate_features(ns, args.features, args.trials, args.seed)
    if args.json:
        _print_json({"features": args.features, "d_hat": d_hat, "trials": args.trials, "rows": [
            {"n": r.n, "n_over_d_hat": r.n / d_hat, "fraction": r.fraction, "std_error": r.std_error,
             "formula": r.formula, "undecided": r.undecided} for r in rows]})
        return EXIT_OK
    print(f"φ-map {args.features}: d̂ = {d_hat}, {args.trials} random labelings per n")
    for r in rows:
        print(f"n = {r.n:3d} (n/d̂ = {r.n / d_hat:4.2f}): separable fraction {r.fraction:.3f} (± {r.std_error:.3f}), "
              f"Cover's formula {r.formula:.3f}" + (
                  f"; {r.undecided} of {r.trials + r.undecided} labelings undecided (the LP ran out of its "
                  f"{cover.LP_TIME_LIMIT:g} s or stalled: fewer points or a smaller φ-map decide them)"
                  if r.undecided else ""))
    return EXIT_OK


def _print_over_n(spec, result, slopes, as_json: bool) -> int:
    """The sweep over n: one row per (n, algorithm) with ρ_K, √(log n), iterations, bound and seconds."""
    if as_json:
        _print_json({"family": spec.family, "kernel": spec.kernel_spec, "features": spec.features_spec,
                     "seed": spec.seed, "over": "n", "margin": spec.levels[0], "ns": list(spec.ns),
                     "x": "sqrt(log n)", "runs": [r.as_dict() for r in result.runs], "slopes": slopes})
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
    return EXIT_OK
