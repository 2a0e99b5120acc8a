"""Layers other modules draw on the canvas, above the decision function: subclass `CanvasLayer`, then
`window.panels["canvas"].add_layer(MyLayer())`.

The canvas calls `attach(canvas)` once (add your pyqtgraph items to `canvas.plot` there, with a z value between
the decision image (−100) and the points (10)), `set_problem(problem, solver_cls)` at every new run,
`draw(snapshot)` whenever it redraws (snapshot None: nothing to show) and `apply_theme(theme)` on a restyle. A
layer reads the scene through `canvas.scene_model` and never computes for longer than a frame (16 ms) in
`draw`: heavy work goes to a percviz.app.run.background.Task and the layer draws the result when it arrives.
"""

from __future__ import annotations


class CanvasLayer:
    """A drawing added to the canvas (module docstring); every hook defaults to nothing."""

    def attach(self, canvas) -> None:
        """Add the layer's items to canvas.plot (once)."""
        self.canvas = canvas

    def set_problem(self, problem, solver_cls) -> None:
        """A new run (problem None: the scene cannot be solved)."""

    def draw(self, snapshot) -> None:
        """The canvas redraws the snapshot shown (None: none)."""

    def apply_theme(self, theme) -> None:
        """Restyle (percviz.app.theme.Theme)."""
