"""The weight-space view as a picture of items: style, picture (lines, cone), labels, overlay (iterates), view."""

from percviz.app.panels.weight.style import FADE_ABOVE, MAX_FAR_MARKS, MAX_LABELS, MAX_PATH, TAIL
from percviz.app.panels.weight.view import WeightView

__all__ = ["FADE_ABOVE", "MAX_FAR_MARKS", "MAX_LABELS", "MAX_PATH", "TAIL", "WeightView"]
