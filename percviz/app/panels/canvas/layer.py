"""A canvas layer draws one thing on the canvas: subclass `CanvasLayer`, then `canvas.add_layer(MyLayer())`.

The canvas calls `attach(canvas)` once (add your pyqtgraph items to `canvas.plot` there, with a z value between
the decision image (−10) and the points (20)), `set_problem(problem, solver_cls)` at every new run, `clear()` when
the old run's picture is forgotten, `draw(snapshot)` whenever it redraws (snapshot None: nothing to show),
`draw_picture(picture)` when the decision function's picture of that snapshot is ready (percviz.app.panels.canvas.
picture: evaluated once for every layer) and `apply_theme(theme, scale)` on every theme or scale change. A layer
reads the scene through `canvas.scene_model` and never computes for longer than a frame (16 ms) in `draw`: heavy
work goes to a percviz.app.run.background.Task and the layer draws the result when it arrives.
"""

from __future__ import annotations

#: Contours with more vertices than this are drawn without antialiasing: an antialiased stroke of a 12,000-vertex
#: boundary (rff:dim=5000) took 230–450 ms per paint on the UI thread, an aliased one ~15 ms.
SMOOTH_VERTICES = 3000


class CanvasLayer:
    """A drawing on the canvas (module docstring); every hook defaults to nothing."""

    #: The layer's name in the canvas's list (`canvas.layer(name)`).
    name = "layer"

    def attach(self, canvas) -> None:
        """Add the layer's items to canvas.plot (once)."""
        self.canvas = canvas

    def set_problem(self, problem, solver_cls) -> None:
        """A new run (problem None: the scene cannot be solved)."""

    def clear(self) -> None:
        """The old run's picture is forgotten (a new problem that does not keep it)."""

    def draw(self, snapshot) -> None:
        """The canvas redraws the snapshot shown (None: none)."""

    def draw_picture(self, picture) -> None:
        """The decision function of the snapshot shown, evaluated on the view's grid (a `Picture`)."""

    def apply_theme(self, theme, scale: float | None = None) -> None:
        """Restyle (percviz.app.theme.Theme; scale: the presentation scale, theme.scale when None)."""

    def lines(self) -> tuple:
        """The layer's line items that are drawn aliased while a point is dragged (see `smooth_line`)."""
        return ()


def smooth_line(curve, allowed: bool) -> None:
    """Antialias one line item when allowed and it has at most SMOOTH_VERTICES vertices."""
    x = curve.xData
    on = allowed and (x is None or len(x) <= SMOOTH_VERTICES)
    if curve.opts["antialias"] != on:
        curve.opts["antialias"] = on
        curve.update()


def set_lines(curve, pieces, allowed: bool = True) -> None:
    """Draw polylines (each (k, 2), NaN rows allowed between parts) as one curve."""
    import numpy as np

    parts = []
    for P in pieces:
        if len(P):
            parts += [P, np.full((1, 2), np.nan)]
    if not parts:
        curve.setData([], [])
    else:
        P = np.concatenate(parts[:-1])
        curve.setData(P[:, 0], P[:, 1], connect="finite")
    smooth_line(curve, allowed)
