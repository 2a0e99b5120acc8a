"""The Qt layer of percviz: main window, panels, controls and the solver worker (see docs/app.md)."""
