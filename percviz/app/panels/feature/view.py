"""The feature-space panel: the points y_i φ̃(x_i), their convex hull and its point nearest the origin.

This is the picture behind §5 of the paper: the data are separable exactly when the origin is outside
the hull (Gordan), the hull's least norm is then ρ_K, and every p in the simplex gives the hull point
Σ p_i y_i φ̃(x_i) whose norm is ‖p‖_G. Points are embedded from the eigendecomposition of G; three
dimensions are drawn by an orthographic projection the mouse can rotate (no OpenGL needed).
"""

from __future__ import annotations

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QCoreApplication, QTimer
from PySide6.QtWidgets import QGraphicsItem

from percviz.app.panels.feature.job import FeatureJobs, PictureJob, cached_witness, separating_witness, signed_unit_gram
from percviz.app.panels.feature.labels import FeatureLabels
from percviz.app.panels.feature.overlay import FeatureOverlay
from percviz.app.panels.feature.picture import FeaturePicture
from percviz.app.panels.feature.rotation import _axis_rotation, _RotatingViewBox
from percviz.app.panels.feature.style import SYNC_MAX_N
from percviz.app.timing import MIN_NORM_GRACE_MS
from percviz.app.panels.geometry_panel import (
    GeometryPanel,
)
from percviz.app.timing import PANEL_INTERVAL_S
from percviz.core.errors import PercvizError
from percviz.core.geometry import feature_picture
from percviz.core.glossary import MARGINS
from percviz.core.grid import one_blas_thread


class FeatureView(FeatureJobs, FeaturePicture, FeatureLabels, FeatureOverlay, GeometryPanel):
    """The Gordan picture of a kernel algorithm's normalized signed features (or of an explicit φ-map)."""

    view, redraw_interval, dock_title = "feature", PANEL_INTERVAL_S, "Feature space"

    defer_during_drag = True  # set_problem builds the Gram picture: once per drag pause, not per move

    _witness_skipped = False  # ρ_K was not computed (too costly): the readout says so instead of "computing…"

    @classmethod
    def supports(cls, solver_cls) -> tuple[bool, str]:
        if solver_cls is None:
            return False, "Choose an algorithm to see its feature space."
        if "feature" in solver_cls.views:  # the solver's declaration is the one source
            return True, ""
        name = solver_cls.display_name or solver_cls.name
        if solver_cls.representation != "multiclass":
            return False, f"{name} has no feature-space picture."
        return False, (
            f"{name} is a multi-class machine; the feature-space picture (hull of yᵢφ̃(xᵢ), Gordan's theorem) "
            "is about two classes. Choose a two-class algorithm to see it."
        )

    def __init__(self, scene, parent=None):
        self.picture = None
        super().__init__(scene, parent)
        self.readout.setToolTip("<br>".join(MARGINS[k].tooltip for k in ("rho", "normalized")))
        self.plot.hideAxis("left")
        self.plot.hideAxis("bottom")
        self.setAccessibleName("feature")
        self.R = np.eye(3)
        self._job: PictureJob | None = None
        self._inbox: list = []  # the current job's results not drawn yet
        self._drawing = 0  # counts redraws: a queued label turn belongs to one
        self._labels_later = False
        self._grace = QTimer(self)
        self._grace.setSingleShot(True)
        self._grace.setInterval(MIN_NORM_GRACE_MS)
        self._grace.timeout.connect(self._queue_inbox)
        self.features_mode = False
        self._trail_cache: dict = {}
        self._trail_attr = ""
        self._user_rotated = False
        self._point_labels: list = []
        self._points_screen: np.ndarray | None = None  # the points' (x, y, depth) on screen, once drawn
        self._static_labels: list = []
        self._p_label = self._dir_label = None  # the marks' labels (made with the dynamic items)
        self._dynamic_items: list = []
        self.classes = np.zeros(0, dtype=int)  # the problem's classes, once it has a picture
        self.plot.getViewBox().sigResized.connect(self._declutter)
        self.plot.getViewBox().sigRangeChanged.connect(self._declutter)  # (labels keep their pixel size)
        app = QCoreApplication.instance()
        if app is not None:
            app.aboutToQuit.connect(self.shutdown)
        self._dynamic: list = []
        self._highlight_items: list = []
        self._static_readout: list = []
        self.show_message("Place + and − points and choose an algorithm to see the feature space.")

    def _make_view_box(self):
        return _RotatingViewBox(self)

    @property
    def is_3d(self) -> bool:
        return self.picture is not None and self.picture.embedding.dim == 3

    # -- the panel contract ----------------------------------------------------------------------
    def set_problem(self, problem, solver_cls) -> None:
        self._stop_job()
        self.problem, self.solver_cls, self.snapshot = problem, solver_cls, None
        self.history, self.picture, self.G, self.Yhat = [], None, None, None
        self._trail_cache: dict = {}
        self._user_rotated = False
        self._witness_skipped = False
        if self._refuses(problem, solver_cls, "Feature space"):
            return
        self.features_mode = solver_cls.representation == "features"
        self.classes = np.asarray(problem.points.classes)
        if problem.n > SYNC_MAX_N:
            # O(n³) work (or the margin QP) never runs on the UI thread: the picture comes from a job
            self._start_job(PictureJob(problem, self.features_mode))
            text = f"Computing the feature-space picture of {problem.n} points…"
            if self.showing_message:
                self.show_message(text, "Feature space")
            else:  # while a point is dragged: the last picture stays, faded, until the new one is ready
                for item in self._dynamic_items + self._highlight_items:
                    item.hide()
                self._points_screen = None
                self.plot.getViewBox().setOpacity(0.35)
                self.set_title(text)
                self.set_readout([])
            return
        try:
            with one_blas_thread():
                G, Yhat = signed_unit_gram(problem, self.features_mode)
                self._install(G, Yhat, feature_picture(G, min_norm=False))
                mnp = cached_witness(problem, G) if not self.features_mode else separating_witness(G)
        except PercvizError as err:
            self.show_message(str(err), "Feature space")
            return
        if mnp is not None:
            self._install_min_norm(mnp)
        else:
            self._start_job(PictureJob(problem, self.features_mode, G))
        self.redraw(split=True)

    def set_reference(self, rho) -> None:
        """ρ_K has been computed (the session's signal): take the hull's least-norm point from the memo at once."""
        if rho is None or self.picture is None or self.picture.min_norm is not None or self.features_mode:
            return
        mnp = cached_witness(self.problem, self.G)
        if mnp is not None:
            self._stop_job()
            self._install_min_norm(mnp)
            self.redraw()

    def closeEvent(self, event) -> None:
        self.shutdown()
        super().closeEvent(event)

    def set_history(self, snapshots) -> None:
        super().set_history(snapshots)
        if self.picture is not None and self.snapshot is not None:
            self._draw_dynamic()

    def set_snapshot(self, snapshot) -> None:
        self.snapshot = snapshot
        if self.picture is not None:
            self._draw_dynamic()

    def rotate(self, d_horizontal: float, d_vertical: float) -> None:
        """Turn the 3-D picture about the screen's vertical and horizontal axes (degrees)."""
        self.R = _axis_rotation(0, d_vertical) @ _axis_rotation(1, d_horizontal) @ self.R
        self._user_rotated = True
        self.redraw(keep_range=True)

    # -- drawing ------------------------------------------------------------------------------------
    def redraw(self, keep_range: bool = False, split: bool = False) -> None:
        """The whole picture; split (a new problem's first picture): the points' number labels (~1 ms each, a
        third of the cost) in the next event-loop turn of the panel's own (Panel.in_turn_of_its_own)."""
        if self.picture is None:
            return
        self._drawing += 1
        self._labels_later = split
        self.plot.getViewBox().setOpacity(1.0)
        self.show_plot()
        rng = self.plot.getViewBox().viewRange() if keep_range else None
        self.plot.clear()
        self._styles = []
        self._dynamic, self._highlight_items = [], []
        self._draw_static()
        # the static layer (hull, points, circle) is painted once into a pixmap per zoom, not every frame
        for item in self.plot.getViewBox().addedItems:
            if not isinstance(item, pg.TextItem):
                item.setCacheMode(QGraphicsItem.DeviceCoordinateCache)
        if rng is not None:
            self.plot.setRange(xRange=rng[0], yRange=rng[1], padding=0)
        self._make_dynamic_items()
        self._draw_dynamic()
        self._draw_highlight()
        if split:
            drawing = self._drawing
            self.in_turn_of_its_own("labels", lambda: self._make_point_labels(drawing))

    def _restyled(self) -> None:
        """The items restyled in place (GeometryPanel.apply_theme): the run's marks, the highlight and the
        labels (their sizes changed, _draw_dynamic places them again) follow."""
        if self.picture is None:
            return
        self._draw_dynamic()
        self._draw_highlight()

    #: Where a label may sit around its point (TextItem anchors), its own first: right-above, left-above, …
    ANCHORS = ((-0.15, 1.0), (1.15, 1.0), (-0.15, 0.0), (1.15, 0.0), (0.5, 1.35), (0.5, -0.35))
