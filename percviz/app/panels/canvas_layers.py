"""The old home of `CanvasLayer` (now percviz.app.panels.canvas.layer), kept importable until the merge."""

from percviz.app.panels.canvas.layer import CanvasLayer  # noqa: F401
