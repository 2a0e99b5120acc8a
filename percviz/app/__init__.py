"""The Qt layer of percviz: main window, panels, controls and the solver worker (see docs/app.md)."""

import warnings

# Panels park unused markers at NaN; pyqtgraph's ScatterPlotItem then warns while computing its bounds
# (nanmin of an all-NaN slice). Harmless, and it flooded the terminal during animations.
warnings.filterwarnings(
    "ignore", message="All-NaN slice encountered", category=RuntimeWarning, module=r"pyqtgraph\..*"
)
