"""What a hovered point is: the canvas's tooltip."""

from __future__ import annotations

import numpy as np

from percviz.app.panels.canvas.halo_layer import snapshot_weights


def point_tooltip(canvas, i: int) -> str:
    """'point 3 (+) at (0.5, −1.2), α = 0.031': what a hovered point is and how much it weighs."""
    pts = canvas.scene_model.points
    if not 0 <= i < pts.n:
        return ""
    multi = canvas.solver_cls is not None and canvas.solver_cls.representation == "multiclass"
    names = {} if multi else {0: "+", 1: "−"}
    c = int(pts.classes[i])
    text = f"point {i} ({names.get(c, f'class {c + 1}')}) at ({pts.X[i, 0]:.3g}, {pts.X[i, 1]:.3g})"
    snap = canvas.snapshot
    if snap is not None:
        w, certificate = snapshot_weights(snap, canvas.problem, canvas.scene_model.n)
        if w is not None:
            text += f", {'p' if certificate else 'α'} = {w[i]:.3g}"
        level, (X, y) = canvas.margin_level(), canvas.training_points()
        if level is not None and y is not None and i < len(y):
            fx = float(np.ravel(canvas.evaluator.at_points(snap.decision, X[[i]]))[0])
            text += f", slack ξ = {max(0.0, level - y[i] * fx):.3g}"
    return text
