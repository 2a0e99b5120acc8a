"""The old import path of the weight-space view (percviz.app.panels.weight), kept while other branches merge."""

from percviz.app.panels.weight import FADE_ABOVE, MAX_FAR_MARKS, MAX_LABELS, MAX_PATH, TAIL, WeightView

__all__ = ["FADE_ABOVE", "MAX_FAR_MARKS", "MAX_LABELS", "MAX_PATH", "TAIL", "WeightView"]
