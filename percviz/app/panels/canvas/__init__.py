"""The canvas as layers: `CanvasView` (view.py) orders its `CanvasLayer`s (layer.py), each drawing one thing."""

from percviz.app.panels.canvas.image_layer import LEVEL_LIMIT, stepped_level
from percviz.app.panels.canvas.layer import SMOOTH_VERTICES, CanvasLayer
from percviz.app.panels.canvas.picture import BACKGROUND_WORK, Picture, evaluation_work
from percviz.app.panels.canvas.slack_layer import MAX_SLACK_LABELS
from percviz.app.panels.canvas.view import CanvasView

__all__ = ["BACKGROUND_WORK", "LEVEL_LIMIT", "MAX_SLACK_LABELS", "SMOOTH_VERTICES", "CanvasLayer", "CanvasView",
           "Picture", "evaluation_work", "stepped_level"]
