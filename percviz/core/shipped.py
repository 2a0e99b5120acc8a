"""Builds the shipped scenes (`percviz/presets/*.json`) from the notes' data sets and fixed coordinates.

Run `python -m percviz.core.shipped` to rewrite the files, `--check` to verify they are up to date.
The counts quoted in explanations are measured here by running the solvers, so they cannot go stale.
"""

from __future__ import annotations

import argparse
import sys
from typing import Callable

import numpy as np

from percviz.core import datasets as D
from percviz.core.data import PointSet
from percviz.core.presets import (
    SHIPPED_DIR,
    Preset,
    ViewSettings,
    atomic_write_text,
    preset_from_dict,
    preset_to_json,
)
from percviz.core.problem import Problem
from percviz.core.solvers import get_solver

CANVAS_CURVES = ("canvas", "curves")


def _count(points: PointSet, algorithm: str, kernel="affine", features="linear", max_iter=100000, **params):
    """(status, iterations) of one run: the numbers the explanations quote."""
    solver = get_solver(algorithm)(Problem(points, kernel, features), max_iter=max_iter, **params)
    snap = solver.run()
    return snap.status.value, snap.iteration


def default() -> Preset:
    # A + cloud, a − cloud and a small − group far down-left: the uniform start of SNKP does not separate.
    plus = [(-1.3, 2.3), (0.2, 1.4), (-1.5, 2.2), (-1.3, 2.0), (-0.1, 1.8), (-0.5, -0.3), (-0.5, 1.3), (-2.0, 1.3)]
    minus = [(0.7, -1.8), (0.2, -1.5), (0.6, -1.6), (1.9, -1.1), (0.6, -0.8), (2.0, -1.1),
             (-2.6, -2.4), (-3.0, -2.0), (-2.4, -2.4)]
    pts = PointSet(plus + minus, [0] * len(plus) + [1] * len(minus))
    status, k = _count(pts, "snkp")
    return Preset(
        pts,
        title="Welcome: two classes and a smoothed perceptron",
        explanation=(
            "Left-click places a + point, right-click a − point; drag to move one. "
            f"Press Space to step the Smoothed Normalized Kernel Perceptron (SNKP): it finds a separating line "
            f"here in {k} updates, and the halos show the weights α_i it puts on the points. "
            "Drag the lonely + point near the middle across the line and watch SNKP adapt; try the RBF kernel "
            "for curved boundaries."
        ),
        kernel="affine",
        algorithm="snkp",
        view=ViewSettings(panels=CANVAS_CURVES, range=(-4.0, 4.0, -4.0, 4.0)),
    )


def one_dimensional() -> Preset:
    pts = D.one_dimensional()
    status, k = _count(pts, "fixed-increment", features="linear1d")
    return Preset(
        pts,
        title="The notes' 1-D example and its solution cone",
        explanation=(
            "Four samples on a line: x = 1.0 and 2.5 are +, x = −1.5 and 0.2 are −. With φ(x) = (1, x) the weight "
            "space is the (a0, a1) plane, and the solution cone spans the directions from 101.31° to 135.00°, "
            "bounded by the walls of x = 1.0 and x = 0.2 (the other two constraints are inactive). "
            f"Step the fixed-increment rule: a(k) enters the cone after {k} corrections."
        ),
        features="linear1d",
        algorithm="fixed-increment",
        view=ViewSettings(panels=("canvas", "weight", "curves"), range=(-2.5, 3.5, -1.5, 1.5)),
    )


def separable_80() -> Preset:
    pts = D.separable()
    status, k = _count(pts, "fixed-increment")
    return Preset(
        pts,
        title="The notes' 80 separable samples",
        explanation=(
            "Two classes on either side of a line, kept at least 0.3 from it; the − class has a small far "
            "cluster at the bottom right. "
            f"The fixed-increment perceptron cycles through the samples and finds a separating line after {k} "
            "corrections in 4 passes, as in the notes. Compare gradient descent on J_s, which the far cluster "
            "pulls off course."
        ),
        algorithm="fixed-increment",
        view=ViewSettings(panels=("canvas", "weight", "curves")),
    )


def ring_quadratic() -> Preset:
    pts = D.ring()
    status, k = _count(pts, "fixed-increment", features="quadratic")
    return Preset(
        pts,
        title="A disk inside a ring: the quadratic φ-map",
        explanation=(
            "No line separates the inner disk (−) from the ring around it (+), but with "
            "φ(x) = (1, x1, x2, x1², x1x2, x2²) a circle is a hyperplane. "
            f"The fixed-increment rule finds a boundary in {k} corrections: a slightly tilted ellipse, not the "
            "circle you would draw, because the perceptron stops at the first boundary that works."
        ),
        features="quadratic",
        algorithm="fixed-increment",
        view=ViewSettings(panels=("canvas", "feature", "curves"), range=(-2.5, 2.5, -2.5, 2.5)),
    )


def _xor_points() -> PointSet:
    base = D.xor()
    extra_plus = [(1.6, 0.8), (0.7, 1.5), (-1.5, -0.7), (-0.8, -1.6)]
    extra_minus = [(1.4, -0.6), (0.6, -1.4), (-1.6, 0.7), (-0.7, 1.5)]
    X = np.vstack([base.X, extra_plus, extra_minus])
    return PointSet(X, np.r_[base.classes, [0] * 4, [1] * 4])


def xor_linear() -> Preset:
    pts = _xor_points()
    status, k = _count(pts, "isnkpvn")
    return Preset(
        pts,
        title="XOR with a linear kernel: a certificate instead of a line",
        explanation=(
            "No line puts the two + corners on one side and the two − corners on the other. "
            f"ISNKPVN proves it: after {k} updates it returns a distribution p over the points whose "
            "weighted ± combination is (almost) zero in feature space, so no separator can exist. "
            "The halos show p; open the XOR + RBF scene to see a kernel succeed."
        ),
        algorithm="isnkpvn",
        view=ViewSettings(range=(-2.5, 2.5, -2.5, 2.5)),
    )


def xor_rbf() -> Preset:
    pts = _xor_points()
    status, k = _count(pts, "nkp", kernel="rbf:gamma=1")
    return Preset(
        pts,
        title="XOR with an RBF kernel: separable after all",
        explanation=(
            "The same XOR points as before, now with the Gaussian kernel exp(−‖x − z‖²). "
            f"In its feature space the classes are separable, and the Normalized Kernel Perceptron finds a "
            f"separator in {k} updates; "
            "the boundary curves around the corners. Change γ and watch the bumps widen or narrow."
        ),
        kernel="rbf:gamma=1",
        algorithm="nkp",
        view=ViewSettings(range=(-2.5, 2.5, -2.5, 2.5)),
    )


def overlapping() -> Preset:
    pts = D.overlapping_gaussians()
    status, k = _count(pts, "isnkpvn")
    _, k_hk = _count(pts, "ho-kashyap")
    return Preset(
        pts,
        title="Two overlapping Gaussians: proofs of non-separability",
        explanation=(
            "Fifty + points from N((0, 1), I) and fifty − points from N((1.5, −0.5), I) overlap, so no line "
            "separates them and a perceptron would cycle forever. "
            f"ISNKPVN returns a certificate ‖p‖_G ≤ ε after {k} updates. Switch to Ho–Kashyap: after {k_hk} "
            "updates (the notes' step 94) its error vector e = Ya − b is ≤ 0 without being 0, which proves the "
            "same thing."
        ),
        algorithm="isnkpvn",
        view=ViewSettings(range=(-3.5, 4.5, -3.5, 4.5)),
    )


def normalization() -> Preset:
    r = 5.0
    t_plus = np.geomspace(r, 1 / r, 5)  # stored longest first: the classic perceptron's first step is long
    t_minus = np.geomspace(1 / r, r, 6)
    X = np.vstack([np.outer(t_plus, (0.6, 0.8)), np.outer(t_minus, (0.8, 0.6))])
    pts = PointSet(X, [0] * 5 + [1] * 6)
    _, k_classic = _count(pts, "kernel-perceptron", kernel="linear")
    _, k_nkp = _count(pts, "nkp", kernel="linear")
    return Preset(
        pts,
        title="Why normalize? The paper's example",
        explanation=(
            f"The + points lie on the line 6x2 = 8x1 and the − points on 8x2 = 6x1, with lengths from 1/r to r, "
            f"r = {r:g}. "
            "Normalized to unit length every + point is (0.6, 0.8) and every − point (0.8, 0.6), a margin of "
            "about 0.14; unnormalized the margin shrinks to about 0.14/r while the radius grows to r, a factor r⁴ "
            f"in the perceptron's bound. Here the classic kernel perceptron (homogeneous linear kernel) needs "
            f"{k_classic} updates and NKP, which normalizes, {k_nkp}."
        ),
        kernel="linear",
        algorithm="kernel-perceptron",
        view=ViewSettings(range=(-0.5, 4.5, -0.5, 4.5)),
    )


def thin_margin() -> Preset:
    gap = 0.03
    pts = D.thin_gap(gap)
    _, k_fixed = _count(pts, "fixed-increment")
    _, k_perc = _count(pts, "perceptron")
    _, k_snkp = _count(pts, "snkp")
    return Preset(
        pts,
        title="A thin margin: many perceptron updates, few SNKP ones",
        explanation=(
            f"The 80 samples plus four points only {gap} from the generating line, so the solution cone is "
            f"very thin. The fixed-increment rule needs {k_fixed} corrections and the perceptron {k_perc}, "
            f"while SNKP separates in {k_snkp} updates: its bound grows like 1/ρ instead of 1/ρ². "
            "Switch algorithms and compare the curves."
        ),
        algorithm="snkp",
        view=ViewSettings(panels=("canvas", "curves", "weight")),
    )


def circles_rbf() -> Preset:
    inner = [(1.0 * np.cos(a), 1.0 * np.sin(a)) for a in np.radians(np.arange(8) * 45 + 10)]
    outer = [(2.6 * np.cos(a), 2.6 * np.sin(a)) for a in np.radians(np.arange(16) * 22.5)]
    pts = PointSet(np.round(np.array(inner + outer), 6), [0] * 8 + [1] * 16)
    status, k = _count(pts, "nkp", kernel="rbf:gamma=0.5")
    return Preset(
        pts,
        title="Concentric circles with the RBF kernel",
        explanation=(
            "A circle of + points inside a circle of − points: no line separates them. "
            f"With the Gaussian kernel exp(−0.5‖x − z‖²) the Normalized Kernel Perceptron finds a closed "
            f"boundary in {k} updates. "
            "Raise γ to make it hug the points, lower it to smooth it out."
        ),
        kernel="rbf:gamma=0.5",
        algorithm="nkp",
        view=ViewSettings(range=(-3.5, 3.5, -3.5, 3.5)),
    )


def three_class() -> Preset:
    rng = np.random.default_rng(2)
    centers = np.array([[-1.8, 1.5], [1.8, 1.5], [0.0, -1.8]])
    X = np.round(np.vstack([c + 0.9 * rng.normal(size=(10, 2)) for c in centers]), 2)
    pts = PointSet(X, np.repeat([0, 1, 2], 10))
    status, k = _count(pts, "linear-machine")
    return Preset(
        pts,
        title="Three classes: the linear machine",
        explanation=(
            "Three clusters, one weight vector per class: a point goes to the class whose g_i(x) = a_i·φ(x) is "
            "largest, so the regions are convex and meet along lines g_i = g_j. "
            f"The multicategory fixed-increment rule separates them in {k} corrections; each correction adds "
            "φ(x) to the right class and subtracts it from the winner."
        ),
        algorithm="linear-machine",
        view=ViewSettings(range=(-4.0, 4.0, -4.0, 4.0)),
    )


def winnow_stream() -> Preset:
    rng = np.random.default_rng(1)
    levels = rng.integers(0, 3, size=(120, 2)) / 2  # each coordinate off (0), half (½) or on (1)
    jitter = rng.uniform(0, 0.08, size=(120, 2))
    X = np.round(np.clip(levels + np.where(levels == 1, -jitter, jitter), 0, 1), 3)
    pts = PointSet(X, np.where((X >= 0.75).any(axis=1), 0, 1))  # + when x1 or x2 is on: a disjunction
    features = "poly:degree=8"
    _, k_winnow = _count(pts, "winnow", features=features)
    _, k_fixed = _count(pts, "fixed-increment", features=features)
    return Preset(
        pts,
        title="A sparse stream for Winnow",
        explanation=(
            "120 samples whose coordinates are off (0), half (½) or on (1), slightly jittered; a sample is + "
            "when x1 or x2 is on, the kind of disjunction Winnow is made for. "
            "φ lists all 45 monomials up to degree 8: nonnegative, and sparse, since any power of 0 or ½ is "
            "nearly zero, so only the monomials of the 'on' coordinates light up. "
            f"Balanced Winnow's multiplicative updates separate the stream after {k_winnow} mistakes, the "
            f"fixed-increment rule after {k_fixed}: with two inputs the rules are alike, and Winnow's edge shows "
            "when most features are irrelevant (the notes' d = 2000 stream: 59 mistakes against 662)."
        ),
        features=features,
        algorithm="winnow",
        view=ViewSettings(panels=("canvas", "weight", "curves"), range=(-0.25, 1.25, -0.25, 1.25)),
    )


def _moons(n: int, noise: float, seed: int) -> PointSet:
    """Two interleaved half circles (+ above, − below) with Gaussian noise from the seed, rounded to 0.01."""
    r = np.random.default_rng(seed)
    t = np.linspace(0, np.pi, n // 2)
    upper = np.column_stack([np.cos(t), np.sin(t)])
    lower = np.column_stack([1 - np.cos(t), 0.5 - np.sin(t)])
    X = np.vstack([upper, lower]) + noise * r.normal(size=(n, 2))
    return PointSet(np.round(X, 2), np.repeat([0, 1], n // 2))


def input_space_margin() -> Preset:
    from percviz.core.input_distance import input_distances

    pts = _moons(30, 0.1, 13)
    kernel = "rbf:gamma=2"
    problem = Problem(pts, kernel)
    svm = get_solver("svm")(problem, margin="hard", show_iterations=False).run()
    near = input_distances(svm.decision, problem.X, problem.y)
    i = int(np.argmin(near.distances))
    x1, x2 = problem.X[i]
    best = get_solver("input-space-svm")(problem, margin="hard").run()
    after = input_distances(best.decision, problem.X, problem.y)
    sign = "+" if problem.y[i] > 0 else "−"
    # no curve can keep every point farther than half the closest +/− pair
    P, M = problem.X[problem.y > 0], problem.X[problem.y < 0]
    bound = 0.5 * float(np.linalg.norm(P[:, None] - M[None], axis=2).min())
    return Preset(
        pts,
        title="Margins in the plane: the input-space SVM (Akaho)",
        explanation=(
            f"Iteration 0 is the RBF SVM (γ = 2): its margin {svm.metrics['margin']:.3f} is measured in feature "
            f"space and its dashed lines f = ±1 keep every point outside, yet in the plane its curve passes only "
            f"{near.distances[i]:.3f} from the {sign} point at ({x1:.2f}, {x2:.2f}). View ▸ Input distances draws "
            "each point's shortest segment to the curve. Step through Akaho's input-space SVM: after "
            f"{best.iteration - 1} steps the nearest point is {after.margin:.3f} away (near the {bound:.3f} no curve "
            "can beat: half the closest +/− gap), while the feature-space margin shrinks."
        ),
        kernel=kernel,
        algorithm="input-space-svm",
        params={"margin": "hard"},
        view=ViewSettings(panels=CANVAS_CURVES, range=(-1.6, 2.6, -1.2, 1.7)),
    )


def race_thin_margin() -> Preset:
    pts = D.thin_gap(0.03)
    lanes = [{"algorithm": a, "kernel": "affine", "features": "linear", "params": {}}
             for a in ("perceptron", "nkp", "snkp")]
    _, k_perc = _count(pts, "perceptron")
    _, k_nkp = _count(pts, "nkp", max_iter=100000)
    _, k_snkp = _count(pts, "snkp")
    return Preset(
        pts,
        title="Race: perceptron, NKP and SNKP on the thin margin",
        explanation=(
            "The thin-margin scene, raced in lock-step (Experiments ▸ Race). "
            f"SNKP separates after {k_snkp} updates, the perceptron after {k_perc} and NKP after {k_nkp}: "
            "the paper's √log n/ρ_K against 1/ρ_K². Scrub back to compare the three boundaries at one iteration."
        ),
        algorithm="snkp",
        max_iter=20000,
        race=tuple(lanes),
    )


#: name → builder, in SHIPPED_ORDER.
BUILDERS: dict[str, Callable[[], Preset]] = {
    "default": default,
    "notes-1d-four-samples": one_dimensional,
    "notes-80-separable": separable_80,
    "notes-ring-quadratic": ring_quadratic,
    "xor-linear-certificate": xor_linear,
    "xor-rbf": xor_rbf,
    "overlapping-gaussians": overlapping,
    "normalization-example": normalization,
    "thin-margin": thin_margin,
    "concentric-circles-rbf": circles_rbf,
    "three-class-linear-machine": three_class,
    "winnow-sparse-stream": winnow_stream,
    "input-space-margin": input_space_margin,
    "race-thin-margin": race_thin_margin,
}


def build(name: str) -> Preset:
    """Build one shipped scene and validate it as a file would be."""
    preset = BUILDERS[name]()
    return preset_from_dict(preset.to_dict(), f"<shipped {name}>")


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="python -m percviz.core.shipped", description=__doc__.splitlines()[0])
    p.add_argument("names", nargs="*", help="scenes to build (default: all)")
    p.add_argument("--check", action="store_true", help="only verify that the files are up to date")
    args = p.parse_args(argv)
    stale = 0
    for name in args.names or BUILDERS:
        text = preset_to_json(build(name))
        path = SHIPPED_DIR / f"{name}.json"
        current = path.read_text(encoding="utf-8") if path.exists() else None
        if args.check:
            if current != text:
                print(f"stale: {path}")
                stale += 1
        elif current != text:
            SHIPPED_DIR.mkdir(exist_ok=True)
            atomic_write_text(path, text)
            print(f"wrote {path}")
    return 1 if stale else 0


if __name__ == "__main__":
    sys.exit(main())
