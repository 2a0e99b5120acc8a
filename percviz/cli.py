"""The `percviz` command: the window (default), or `solve`, `margin`, `export` and `list` without one.

Only the window and `export` load Qt, lazily; `solve`, `margin` and `list` use `percviz.core` alone.
Every error prints one line on stderr: status 2 for a command line that cannot be used as given, 1 for data that
cannot be used (or a computation a budget refuses), 3 for a missing GUI/export part, 130 when interrupted, and
70 for anything unexpected (a bug; PERCVIZ_DEBUG=1 shows the traceback).
"""

from __future__ import annotations

import argparse
import math
import os
import sys
from pathlib import Path
from typing import Any, Sequence

import numpy as np

from percviz import __version__
from percviz.core.errors import DataError, ParameterError, PercvizError, PresetError, SpecError
from percviz.core.glossary import MARGINS, margin_term
from percviz.cli_common import (  # noqa: F401
    EXIT_DATA, EXIT_INTERNAL, EXIT_INTERRUPTED, EXIT_OK, EXIT_UNAVAILABLE, EXIT_USAGE, UsageError,
)
from percviz.cli_data import (  # noqa: F401  (the data helpers, under their old names here)
    _FROM_FLAGS, _flag_of, _is_flag_field, _load_scene_or_table, _looks_like_json, load_with_overrides, parse_params,
    resolve_data,
)
from percviz.cli_common import Parser as _Parser, clean as _clean, fail as _fail, print_json as _print_json  # noqa: F401

SUBCOMMANDS = ("solve", "margin", "export", "list", "sweep", "cover")
PANEL_CHOICES = ("canvas", "curves", "weight", "feature")


class Unavailable(Exception):
    """A part of percviz (the window, the exporter) cannot be loaded here."""


# ---------------------------------------------------------------------------------------------------
# Parsers
# ---------------------------------------------------------------------------------------------------

def _add_label_column(p: argparse.ArgumentParser) -> None:
    p.add_argument("--label-column", "-l", metavar="NAME|INDEX",
                   help="the CSV/.npy column holding the labels, by header name or 0-based index (default: the "
                        "last); the other columns are the point's coordinates, any number of them")


def _add_run_options(p: argparse.ArgumentParser, *, algorithm_help: str) -> None:
    p.add_argument("--algorithm", "-a", metavar="NAME", help=algorithm_help)
    p.add_argument("--kernel", "-k", metavar="SPEC",
                   help="kernel spec, e.g. affine, linear, 'rbf:gamma=0.5', 'poly:degree=3,c=1' (default: the "
                        "preset's, else affine)")
    p.add_argument("--features", "-f", metavar="SPEC",
                   help="φ-map for the weight-vector procedures, e.g. linear, quadratic (default: the preset's, "
                        "else linear)")
    p.add_argument("--param", "-p", dest="params", action="append", default=[], metavar="KEY=VALUE",
                   help="an algorithm parameter (repeatable), e.g. --param eps=1e-4")
    p.add_argument("--max-iter", type=int, metavar="N", help="iteration limit (default: the preset's or the "
                                                               "algorithm's)")


def gui_parser() -> argparse.ArgumentParser:
    p = _Parser(
        prog="percviz",
        description="Interactive perceptrons, kernels, margins and certificates. Without a sub-command, opens "
                    "the window on DATA (a preset .json, a CSV x,y,label, or a shipped scene's name).",
        epilog="Sub-commands (no window): 'percviz solve DATA --algorithm NAME [--json]', "
               "'percviz margin DATA [--json]', 'percviz export PRESET.json --out run.gif', "
               "'percviz list', 'percviz sweep --algorithms snkp,nkp [--json]', 'percviz cover'. "
               "Run 'percviz solve --help' for details.",
    )
    p.add_argument("data", nargs="?", metavar="DATA", help="preset .json, CSV x,y,label, or shipped scene name")
    _add_run_options(p, algorithm_help="algorithm to select (default: the preset's, else snkp)")
    p.add_argument("--steps", type=int, metavar="N", help="run N updates before showing (or taking the screenshot)")
    p.add_argument("--screenshot", metavar="OUT.png", help="render offscreen, save a PNG and exit")
    p.add_argument("--panel", choices=PANEL_CHOICES, help="with --screenshot: capture only this panel")
    p.add_argument("--version", action="version", version=f"percviz {__version__}")
    return p


def solve_parser() -> argparse.ArgumentParser:
    p = _Parser(prog="percviz solve", description="Run one algorithm on DATA to the end and report the result.")
    p.add_argument("data", metavar="DATA", help="preset .json, CSV (features…, label), .npy/.npz, or shipped scene "
                                                "name")
    _add_label_column(p)
    _add_run_options(p, algorithm_help="algorithm name (required for CSV data; default: the preset's); "
                                       "'percviz list' shows them all")
    p.add_argument("--json", action="store_true", help="print one JSON object instead of a summary")
    return p


def margin_parser() -> argparse.ArgumentParser:
    p = _Parser(prog="percviz margin",
                description="The optimal normalized margin ρ_K of DATA under a kernel, and its witness p.")
    p.add_argument("data", metavar="DATA", help="preset .json, CSV (features…, label), .npy/.npz, or shipped scene "
                                                "name")
    _add_label_column(p)
    p.add_argument("--kernel", "-k", metavar="SPEC", help="kernel spec (default: the preset's, else affine)")
    p.add_argument("--input", action="store_true",
                   help="also the SVM's input-space margin: the smallest distance from a point to its curve f = 0")
    p.add_argument("--json", action="store_true", help="print one JSON object instead of a summary")
    p.add_argument("--budget", type=float, metavar="S",
                   help="seconds the computation may take (default 20); past it, the interval found so far")
    return p


def export_parser() -> argparse.ArgumentParser:
    p = _Parser(prog="percviz export", description="Render a preset's run as an animated GIF or an MP4, or as an "
                "interactive handout (.html: one self-contained page that plays the run in any browser), no window.")
    p.add_argument("data", metavar="PRESET", help="preset .json, CSV x,y,label, or shipped scene name")
    p.add_argument("--out", "-o", required=True, metavar="OUT", help="output file: .gif, .mp4 or .html (handout)")
    p.add_argument("--steps", type=int, metavar="N", help="number of updates to record (default: the whole run)")
    p.add_argument("--fps", type=float, default=10.0, metavar="F", help="frames per second (default 10)")
    _add_run_options(p, algorithm_help="algorithm (default: the preset's)")
    return p


def list_parser() -> argparse.ArgumentParser:
    p = _Parser(prog="percviz list", description="List the algorithms, kernels, φ-maps and shipped scenes.")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    return p


# ---------------------------------------------------------------------------------------------------
# Shared helpers
# ---------------------------------------------------------------------------------------------------

def _separator_margin(problem, snap, representation: str) -> float | None:
    """Normalized margin of the returned decision when it separates the training set, else None."""
    m = snap.metrics.get("margin")
    if m is None and representation == "kernel" and snap.alpha is not None:
        a = np.asarray(snap.alpha)
        Ga = problem.gram @ a
        nrm = math.sqrt(max(float(a @ Ga), 0.0))
        m = float(Ga.min() / nrm) if nrm > 0 else None
    elif m is None and snap.weights is not None and np.ndim(snap.weights) == 1:
        w = np.asarray(snap.weights)
        nrm = float(np.linalg.norm(w))
        m = float((problem.Y @ w).min() / nrm) if nrm > 0 else None
    if m is None or not math.isfinite(m) or m <= 0 or _train_errors(problem, snap) > 0:
        return None  # a margin is claimed only for a decision that separates the points
    from percviz.core.solvers.base import separator_refuted

    if snap.status.value != "separator" and separator_refuted(problem, snap.decision, representation):
        return None  # the separator claim's own check (rounding-aware), also for a run that stopped elsewhere
    return float(m)


def _train_errors(problem, snap) -> int:
    if "train_errors" in snap.metrics:
        return int(snap.metrics["train_errors"])
    f = snap.decision(problem.X)
    if snap.decision.n_outputs == 1:
        return int(np.sum(problem.y * f <= 0))
    return int(np.sum(np.argmax(f, axis=1) != problem.points.classes))


def _certificate_norm(problem, snap) -> float | None:
    if snap.status.value != "certificate" or snap.p is None:
        return None
    if "p_g_norm" in snap.metrics:
        return float(snap.metrics["p_g_norm"])
    p = np.asarray(snap.p)
    return math.sqrt(problem.gram.quad(p))


def _input_margin(problem, snap) -> float | None:
    """Input-space margin of the result: min distance from x_i to f = 0; None unless it separates the points."""
    from percviz.core.input_distance import input_distances, search_too_costly

    if snap.decision.n_outputs != 1 or problem.points.n_classes != 2 or _train_errors(problem, snap) > 0:
        return None
    if "input_margin" in snap.metrics:
        return float(snap.metrics["input_margin"])
    if search_too_costly(snap.decision, *problem.X.shape) is not None:
        return None  # declined, with the reason in input_margin_note
    return input_distances(snap.decision, problem.X, problem.y).margin


def _input_margin_note(problem, snap) -> str | None:
    """Why solve reports no input-space margin for a separator (the search would take too long), or None."""
    from percviz.core.input_distance import search_too_costly

    if ("input_margin" in snap.metrics or snap.decision.n_outputs != 1 or problem.points.n_classes != 2
            or _train_errors(problem, snap) > 0):
        return None
    return search_too_costly(snap.decision, *problem.X.shape)


def _scale_free(preset, algorithm: str | None = None):
    """(preset, s): a homogeneous kernel's points multiplied by a power of two s when K(x, x) would underflow
    (core.problem.scale_free_factor); its G, α, p, ρ_K and verdicts are those of the points as given."""
    from percviz.core.data import PointSet
    from percviz.core.problem import scale_free_factor
    from percviz.core.solvers import get_solver

    # an algorithm whose result depends on the points' scale (the SVM's C: Solver.scale_dependent) is never rescaled
    cls = get_solver(algorithm) if algorithm is not None else None
    if cls is not None and (cls.scale_dependent or cls.representation != "kernel"):
        return preset, 1.0
    s = scale_free_factor(preset.points.X, preset.kernel)
    if s == 1.0:
        return preset, 1.0
    return preset.replace(points=PointSet(preset.points.X * s, preset.points.classes)), s


def solve(preset) -> dict[str, Any]:
    """Run the preset's algorithm to the end; the result as the JSON document `percviz solve` prints."""
    preset, scale = _scale_free(preset, preset.algorithm)
    solver = preset.make_solver()
    problem = solver.problem
    from percviz.core.history import MetricHistory

    history = MetricHistory(solver.metric_keys)  # bounded: thinned evenly past HISTORY_ROWS rows
    snap = solver.run_recording(history.record)  # snapshots only at the ends: long runs stay fast
    from percviz.core.decision_record import decision_record
    rep = solver.representation
    return {
        "algorithm": solver.name,
        "display_name": solver.display_name,
        "representation": rep,
        "kernel": problem.kernel.spec,
        "features": problem.features.spec if rep != "kernel" else None,
        "params": dict(solver.values),
        "max_iter": solver.max_iter,
        "n": problem.n,
        "n_classes": problem.points.n_classes,
        "status": snap.status.value,
        "status_text": snap.status.text,  # e.g. "ε-certificate (no separator with a margin above ε)"
        "iterations": snap.iteration,
        "train_errors": _train_errors(problem, snap),
        "margin": _separator_margin(problem, snap, rep),
        "margin_kind": margin_term(type(solver)).key,  # which margin `margin` is (percviz.core.glossary.MARGINS)
        "margin_name": margin_term(type(solver)).short,
        "input_margin": _unscaled(_input_margin(problem, snap), scale),
        "input_margin_note": _input_margin_note(problem, snap),
        "certificate_g_norm": _certificate_norm(problem, snap),
        "alpha": snap.alpha,
        "weights": snap.weights,
        "p": snap.p,
        "message": snap.message,
        "decision": decision_record(snap.decision, problem.X / scale, scale),  # f as numbers (core/decision_record)
        "bias": getattr(snap.decision, "bias", None),
        "metrics": dict(snap.metrics),
        "history": history.as_dict(),
        "history_every": history.every,  # 1: every update; k: every k-th iteration (a long run, thinned)
    }


def _unscaled(distance: float | None, scale: float) -> float | None:
    """An input-space distance measured on s·X, for the points as given."""
    return None if distance is None else float(distance) / scale


def _summary(result: dict[str, Any], title: str) -> str:
    status_text = {
        "separator": "separator found", "certificate": "ε-certificate (no separator with a margin above ε)",
        "diverged": "diverged", "nonseparable": "proof of non-separability", "converged": "converged",
        "max_iter": "iteration limit reached", "running": "running",
    }[result["status"]]
    space = result["kernel"] if result["representation"] == "kernel" else f"φ = {result['features']}"
    lines = [
        f"{result['display_name']} ({result['algorithm']}) on {title}: {result['n']} points, {space}",
        f"status: {status_text} after {result['iterations']} iterations (limit {result['max_iter']})",
        f"training errors: {result['train_errors']}",
    ]
    if result["margin"] is not None:
        lines.append(f"{result.get('margin_name', 'margin')} of the separator: {result['margin']:.6g}")
    if result.get("input_margin") is not None:
        lines.append(f"{MARGINS['input'].short} (input-space margin, to the curve f = 0): {result['input_margin']:.6g}")
    elif result.get("input_margin_note"):
        lines.append(f"input-space margin {result['input_margin_note']}")
    if result["certificate_g_norm"] is not None:
        lines.append(f"certificate: ‖p‖_G = {result['certificate_g_norm']:.3g} (no separator in this space has a "
                     "margin above ‖p‖_G)")
    if result["message"]:
        lines.append(result["message"])
    return "\n".join(lines)


def cmd_solve(argv: Sequence[str]) -> int:
    args = solve_parser().parse_args(argv)
    preset = load_with_overrides(args, need_algorithm=True)
    result = solve(preset)
    if args.json:
        _print_json(result)
    else:
        print(_summary(result, args.data))
    return EXIT_OK


# ---------------------------------------------------------------------------------------------------
# percviz margin
# ---------------------------------------------------------------------------------------------------

def margin(preset, budget: float | None = None) -> dict[str, Any]:
    """ρ_K, separability and the witness p of the preset's points under its kernel."""
    from percviz.core.problem import Problem

    try:
        from percviz.core.gram import optimal_margin
    except ImportError as e:
        raise Unavailable(f"the margin computation (percviz.core.gram) is not available: {e}") from None
    preset, _ = _scale_free(preset)  # ρ_K, p and α do not depend on a homogeneous kernel's scale
    problem = Problem(preset.points, preset.kernel, preset.features)
    if problem.points.n and problem.points.classes.max() > 1:
        raise DataError(
            f"The optimal margin ρ_K is defined for two classes (+ and −), but the points use "
            f"{problem.points.n_classes} classes; relabel them as + and −."
        )
    problem.points.require_two_classes("The optimal margin")
    if budget is not None and not budget >= 0:
        raise UsageError(f"--budget must be a number of seconds ≥ 0; got {budget}.")
    from percviz.core import budget as memory

    from percviz.core.dense_gram import dense_advice, dense_what
    from percviz.core.gram_operator import factored_width, gram_bytes

    n = problem.n
    if factored_width(problem) is not None:  # G kept as its n×D factor
        memory.require(gram_bytes(problem), f"The optimal margin on {n:,} points (G as its n×D factor)",
                       "Use fewer points")
    else:
        memory.require(gram_bytes(problem), f"The optimal margin on {n:,} points ({dense_what(problem)})",
                       dense_advice(problem))
    res = optimal_margin(problem, budget)
    return {
        "kernel": problem.kernel.spec,
        "n": problem.n,
        "separable": bool(res.separable),
        "verdict": getattr(res, "verdict", "separable" if res.separable else "not separable"),
        "complete": bool(getattr(res, "complete", True)),  # False: the time budget ended it first
        # ρ_K when known (exact, or a separable set's certified lower end); null, with the reason, when only the
        # interval is known: never a 0.0 standing for "could not resolve"
        "rho": float(res.rho) if res.exact or res.separable else None,
        "rho_note": None if res.exact or res.separable else (
            f"ρ_K is only bracketed: {res.interval[0]:.3g} ≤ ρ_K ≤ {res.interval[1]:.3g}"),
        "rho_interval": [float(v) for v in res.interval],  # certified: lo ≤ ρ_K ≤ hi
        "exact": bool(res.exact),  # ρ_K known to 1e-6 relative
        "p": getattr(res, "p", None),
        "alpha": getattr(res, "alpha", None),
    }


def svm_input_margin(preset) -> dict[str, Any]:
    """The input-space margin of the SVM (hard margin when the kernel separates the points, else soft, C = 1)."""
    from percviz.core.input_distance import input_distances
    from percviz.core.problem import Problem
    from percviz.core.solvers import REFERENCE_SVM, get_solver

    problem = Problem(preset.points, preset.kernel, preset.features)
    cls = get_solver(REFERENCE_SVM)
    try:
        snap, kind = cls(problem, margin="hard", show_iterations=False).run(), "hard"
    except DataError:
        snap, kind = cls(problem, margin="soft", C=1.0, show_iterations=False).run(), "soft, C = 1"
    res = input_distances(snap.decision, problem.X, problem.y)
    return {"input_margin": res.margin, "input_margin_svm": kind, "input_margin_note": res.reason or None,
            "svm_margin": snap.metrics.get("margin")}


def cmd_margin(argv: Sequence[str]) -> int:
    args = margin_parser().parse_args(argv)
    preset = load_with_overrides(args, need_algorithm=False)
    result = margin(preset, args.budget)
    if args.input:
        result.update(svm_input_margin(preset))
    if args.json:
        _print_json(result)
    else:
        verdict = result["verdict"]
        rho = "unresolved" if result["rho"] is None else f"{result['rho']:.6g}"
        line = f"{args.data}: {result['n']} points, kernel {result['kernel']}: {verdict}, ρ_K = {rho}"
        if verdict == "undecided":
            lo, hi = result["rho_interval"]
            why = "the time budget ran out" if not result["complete"] else "below what double precision resolves on G"
            line = (f"{args.data}: {result['n']} points, kernel {result['kernel']}: separability undecided "
                    f"({why}): {lo:.3g} ≤ ρ_K ≤ {hi:.3g}")
        elif not result["exact"]:
            lo, hi = result["rho_interval"]
            line += f" (not resolved to 1e-6: {lo:.3g} ≤ ρ_K ≤ {hi:.3g})"
        print(line)
        if args.input:
            im = result["input_margin"]
            head = f"SVM ({result['input_margin_svm']}): input-space margin "
            print(head + (f"{im:.6g}" if im is not None else f"none ({result['input_margin_note']})")
                  + (f"; its feature-space margin 1/‖w‖ = {result['svm_margin']:.6g}" if result["svm_margin"] else ""))
    return EXIT_OK


# ---------------------------------------------------------------------------------------------------
# percviz list
# ---------------------------------------------------------------------------------------------------

def cmd_list(argv: Sequence[str]) -> int:
    args = list_parser().parse_args(argv)
    from percviz.core.features import FEATURE_MAPS
    from percviz.core.kernels import KERNELS
    from percviz.core.presets import shipped_presets
    from percviz.core.solvers import by_family

    algos = [
        {"name": c.name, "display_name": c.display_name, "family": fam, "representation": c.representation,
         "params": {s.name: {"default": s.default, "range": s.range_text(), "help": s.help} for s in c.params.specs}}
        for fam, classes in by_family().items() for c in classes
    ]
    kernels = {k: c.display_name for k, c in KERNELS.items()}
    features = {k: c.display_name for k, c in FEATURE_MAPS.items()}
    scenes = [s.name for s in shipped_presets()]
    if args.json:
        _print_json({"algorithms": algos, "kernels": kernels, "features": features, "presets": scenes})
        return EXIT_OK
    print("algorithms:")
    for a in algos:
        print(f"  {a['name']:24s} {a['display_name']}  [{a['family']}]")
    print("kernels:  " + ", ".join(kernels))
    print("φ-maps:   " + ", ".join(features))
    print("scenes:   " + ", ".join(scenes))
    return EXIT_OK


# ---------------------------------------------------------------------------------------------------
# The window and export (Qt, loaded lazily)
# ---------------------------------------------------------------------------------------------------

_QT_LIBS_HINT = (
    "on a bare Debian install the Qt system libraries: apt-get install libgl1 libegl1 libfontconfig1 "
    "libglib2.0-0 libdbus-1-3 libxkbcommon0"
)


def _import_app(module: str, func: str, what: str):
    """Import percviz.app.<module>.<func>, turning a missing part or missing Qt into one clear line."""
    import importlib

    try:
        mod = importlib.import_module(f"percviz.app.{module}")
    except ModuleNotFoundError as e:
        if e.name in (f"percviz.app.{module}", "percviz.app"):
            missing = f"percviz.app.{module} is missing"
            raise Unavailable(f"{what} is not available in this installation ({missing})") from None
        raise Unavailable(f"cannot start {what}: the Python package '{e.name}' is missing; "
                          "reinstall percviz with its dependencies (pip install -e .)") from None
    except ImportError as e:
        raise Unavailable(f"cannot start {what}: {e}; {_QT_LIBS_HINT}") from None
    fn = getattr(mod, func, None)
    if fn is None:
        raise Unavailable(f"{what} is not available in this installation (percviz.app.{module}.{func} is missing)")
    return fn


def cmd_gui(argv: Sequence[str]) -> int:
    args = gui_parser().parse_args(argv)
    if args.steps is not None and args.steps < 0:
        raise UsageError("--steps must be 0 or more")
    if args.panel and not args.screenshot:
        raise UsageError("--panel only applies with --screenshot OUT.png")
    if args.screenshot:
        out = Path(args.screenshot)
        if out.suffix.lower() != ".png":
            raise UsageError(f"--screenshot writes a PNG; give a file name ending in .png, not '{out.name}'")
        if not out.resolve().parent.is_dir():
            raise UsageError(f"--screenshot: the folder {out.resolve().parent} does not exist")
    # Validate everything before Qt starts, so a bad file is one line, not a dialog.
    args.preset = load_with_overrides(args, need_algorithm=False) if args.data is not None else None
    if args.preset is not None:
        args.preset.points.require_plane("The percviz window")
    if args.preset is None and (args.algorithm or args.kernel or args.features or args.params or args.max_iter):
        from percviz.core.presets import default_preset

        args.preset = default_preset().with_overrides(
            algorithm=args.algorithm, kernel=args.kernel, features=args.features,
            params=parse_params(args.params), max_iter=args.max_iter,
        )
    if not args.screenshot:
        _check_display()
    launch = _import_app("launch", "launch", "the percviz window")
    return int(launch(args) or 0)


def _check_display() -> None:
    """On Linux without any display Qt aborts the process; say so in one line instead."""
    env = os.environ
    if sys.platform.startswith("linux") and not (
        env.get("QT_QPA_PLATFORM") or env.get("DISPLAY") or env.get("WAYLAND_DISPLAY")
    ):
        raise Unavailable(
            "no display to open the window on (DISPLAY and WAYLAND_DISPLAY are unset); run percviz in a "
            "desktop session, or use --screenshot OUT.png, 'percviz solve' or 'percviz export' without a window"
        )


EXPORT_FUNCTION = "run_export"  # percviz.app.classroom.export.run_export(args) -> int


def cmd_export(argv: Sequence[str]) -> int:
    args = export_parser().parse_args(argv)
    out = Path(args.out)
    if out.suffix.lower() not in (".gif", ".mp4", ".html"):
        raise UsageError(f"--out must end in .gif or .mp4 (an animation) or .html (a handout), not '{out.name}'")
    if not out.resolve().parent.is_dir():
        raise UsageError(f"--out: the folder {out.resolve().parent} does not exist")
    if not (math.isfinite(args.fps) and 0 < args.fps <= 120):
        raise UsageError(f"--fps must be in (0, 120]; got {args.fps:g}")
    if args.steps is not None and args.steps < 1:
        raise UsageError("--steps must be 1 or more")
    args.preset = load_with_overrides(args, need_algorithm=False)
    args.preset.points.require_plane("The exporter")
    if out.suffix.lower() == ".html":  # the handout needs no Qt
        from percviz.handout import write_handout

        path = write_handout(args.preset, out, steps=args.steps)
        print(f"wrote {path}: handout, {path.stat().st_size / 1e6:.2f} MB")
        return 0
    export = _import_app("classroom.export", EXPORT_FUNCTION, "the exporter")
    return int(export(args) or 0)


# ---------------------------------------------------------------------------------------------------
# Entry point
# ---------------------------------------------------------------------------------------------------

def _experiments(name: str):
    """A command of percviz.cli_experiments (sweep, cover), imported when it runs."""
    def run(argv):
        from percviz import cli_experiments

        return getattr(cli_experiments, name)(argv)
    return run


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; returns the exit status."""
    argv = list(sys.argv[1:] if argv is None else argv)
    sub = argv[0] if argv and argv[0] in SUBCOMMANDS else None
    prog = f"percviz {sub}" if sub else "percviz"
    commands = {"solve": cmd_solve, "margin": cmd_margin, "export": cmd_export, "list": cmd_list,
                "sweep": _experiments("cmd_sweep"), "cover": _experiments("cmd_cover")}
    try:
        return commands[sub](argv[1:]) if sub else cmd_gui(argv)
    except Unavailable as e:
        return _fail(prog, str(e), EXIT_UNAVAILABLE)
    except (UsageError, SpecError, ParameterError) as e:  # the command line: its flags and their values
        return _fail(prog, str(e), EXIT_USAGE)
    except PercvizError as e:  # the data (DataError, PresetError) or a budget's refusal (BudgetError)
        return _fail(prog, str(e), EXIT_DATA)
    except FileNotFoundError as e:  # DATA or an output names nothing: the command line
        return _fail(prog, f"{e.filename}: no such file", EXIT_USAGE)
    except IsADirectoryError as e:
        return _fail(prog, f"{e.filename} is a folder, not a file", EXIT_USAGE)
    except PermissionError as e:
        return _fail(prog, f"{e.filename}: permission denied", EXIT_DATA)
    except OSError as e:
        where = f"{e.filename}: " if e.filename else ""
        return _fail(prog, f"{where}cannot be read or written ({e.strerror or e})", EXIT_DATA)
    except KeyboardInterrupt:
        return _fail(prog, "interrupted", EXIT_INTERRUPTED)
    except SystemExit:
        raise
    except Exception as e:  # a bug: one line for the user, the traceback on demand
        if os.environ.get("PERCVIZ_DEBUG"):
            raise
        return _fail(prog, f"internal error: {type(e).__name__}: {e} (set PERCVIZ_DEBUG=1 for the traceback)",
                     EXIT_INTERNAL)


if __name__ == "__main__":
    sys.exit(main())
