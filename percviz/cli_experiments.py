"""`percviz sweep` and `percviz cover`: the experiments of percviz.core.experiments on the command line (no Qt)."""

from __future__ import annotations

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
                "shrinks (or over accuracies ε on a non-separable family) and fit log–log rates.")
    p.add_argument("--algorithms", "-a", default="snkp,nkp,perceptron", metavar="A,B,…",
                   help="registered algorithms, comma-separated (default snkp,nkp,perceptron)")
    p.add_argument("--family", default="line", choices=list(FAMILIES),
                   help="; ".join(f"{f.name}: {f.description}" for f in FAMILIES.values()))
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


def cmd_sweep(argv: Sequence[str]) -> int:
    from percviz.core.experiments.sweep import SweepSpec, run_sweep

    args = sweep_parser().parse_args(argv)
    if args.max_iter < 1 or args.workers < 1:
        raise UsageError("--max-iter and --workers must be 1 or more")
    algorithms = tuple(a.strip() for a in args.algorithms.split(",") if a.strip())
    spec = SweepSpec(algorithms, args.family, args.kernel, args.features, args.seed,
                     _floats(args.levels, "--levels"), _floats(args.eps, "--eps"), args.max_iter)
    result = run_sweep(spec, workers=args.workers)
    slopes = {a: (None if s is None else s.slope) for a, s in result.slopes.items()}
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
        print(f"{r.scene:5d} {r.rho:10.4g} {e}{r.algorithm:<20} {r.iterations:10d} {bound:>10}  {r.status}")
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
             "formula": r.formula} for r in rows]})
        return EXIT_OK
    print(f"φ-map {args.features}: d̂ = {d_hat}, {args.trials} random labelings per n")
    for r in rows:
        print(f"n = {r.n:3d} (n/d̂ = {r.n / d_hat:4.2f}): separable fraction {r.fraction:.3f} (± {r.std_error:.3f}), "
              f"Cover's formula {r.formula:.3f}")
    return EXIT_OK
