"""The side panel as parts: status words, class selector, algorithm/kernel choosers, run box, the panel."""

from percviz.app.panels.controls.class_selector import CLASS_LABELS, ClassSelector
from percviz.app.panels.controls.panel import ControlsPanel
from percviz.app.panels.controls.status import (
    LONG_RUN,
    SPEEDS,
    format_number,
    speed_text,
    status_text,
)

__all__ = ["CLASS_LABELS", "LONG_RUN", "SPEEDS", "ClassSelector", "ControlsPanel", "format_number",
           "speed_text", "status_text"]
