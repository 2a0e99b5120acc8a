"""The weight-space panel: constraint planes a·y_i = 0, the solution cone, and the iterates a(k).

With two weights (1-D data) the (a0, a1) plane is drawn as in the notes' figure; with three, directions
a/‖a‖ are shown by the gnomonic projection of `percviz.core.geometry` (planes become lines, the cone a
convex polygon).
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pyqtgraph as pg

from percviz.app.panels.geometry_panel import (
    HOVER_PX,
    GeometryPanel,
    color,
    cosmetic_pen,
    path_item,
)
from percviz.app.panels.panel import drawable
from percviz.app.panels.weight.labels import WeightLabels
from percviz.app.panels.weight.overlay import WeightOverlay
from percviz.app.panels.weight.picture import WeightPicture
from percviz.app.panels.weight.style import MAX_PATH, TAIL
from percviz.app.timing import PANEL_INTERVAL_S
from percviz.core.certify import refute_nonseparable
from percviz.core.errors import PercvizError
from percviz.core.geometry import cone_1d, cone_picture, line_reduction
from percviz.core.glossary import MARGINS


class WeightView(WeightPicture, WeightLabels, WeightOverlay, GeometryPanel):
    """Weight space of an explicit-weight procedure (augmented linear map, at most three weights)."""

    view, redraw_interval, dock_title = "weight", PANEL_INTERVAL_S, "Weight space"

    defer_during_drag = True  # set_problem rebuilds the cone picture: once per drag pause, not per move

    @classmethod
    def supports(cls, solver_cls) -> tuple[bool, str]:
        if solver_cls is None:
            return False, "Choose an algorithm to see its weight space."
        if "weight" in solver_cls.views:  # the solver's declaration is the one source
            return True, ""
        name = solver_cls.display_name or solver_cls.name
        if solver_cls.representation == "multiclass":
            return False, (
                f"{name} keeps one weight vector per class; the weight-space view draws the solution cone "
                "of a single vector a. Choose a two-class procedure (perceptron, relaxation, …) to see it."
            )
        return False, (
            f"{name} is a kernel algorithm: it works with coefficients α on the points, not with an explicit "
            "weight vector a. Its picture is in the feature-space panel. The weight-space view shows the "
            "explicit-weight procedures (perceptron, relaxation, Ho–Kashyap, …) with the augmented linear map."
        )

    def __init__(self, scene, parent=None):
        super().__init__(scene, parent)
        self.setAccessibleName("weight")
        self.readout.setToolTip(MARGINS["geometric"].tooltip)  # the margin every number here is
        self.mode: str | None = None  # "1d" | "2d" | None (message shown)
        self.thin = ""  # why an "empty" cone is not claimed (the exact LP finds or may find a separator)
        self.reduction = self.cone1 = self.cone2 = None
        self._weights: dict[int, np.ndarray] = {}
        self._static_radius = 0.0
        self._line_labels: list = []
        self._labels_to_make: list | None = None  # a split redraw's line labels, made in a turn of their own
        self._drawing = 0  # counts redraws: a queued label turn belongs to one
        self._fixed_labels: list = []
        self._iter_label = None  # a(k)'s label (made with the dynamic items)
        self._dynamic_items: list = []
        self._segments: dict = {}  # each constraint's drawn segment, by point index
        self._empty_label = None
        self._static_readout: list = []
        self._hover_label: tuple | None = None
        self.plot.getViewBox().sigRangeChanged.connect(self._place_labels)
        self.plot.getViewBox().sigResized.connect(self._place_labels)  # a relaid dock moves labels in pixels
        # the overview: where the framed cone sits among the constraint lines (bounded cones only)
        self.overview = pg.PlotWidget(self.plot)
        self.overview.setAccessibleName("weight overview")
        self.overview.setMenuEnabled(False)
        self.overview.hideButtons()
        self.overview.setAspectLocked(True)
        self.overview.setMouseEnabled(False, False)
        for axis in ("left", "bottom"):
            self.overview.hideAxis(axis)
        self.overview.hide()
        self._dynamic: list = []
        self._highlight_items: list = []
        self.show_message("Place + and − points and choose an algorithm to see its weight space.")

    # -- the panel contract ----------------------------------------------------------------------
    def set_problem(self, problem, solver_cls) -> None:
        self.problem, self.solver_cls, self.snapshot = problem, solver_cls, None
        self._weights.clear()
        self.history = []
        self.mode = None
        self._static_radius = 0.0
        if self._refuses(problem, solver_cls, "Weight space"):
            return
        try:
            self._prepare(problem)
        except PercvizError as err:
            self.mode = None
            self.show_message(str(err), "Weight space")
            return
        self.redraw(split=True)

    def set_history(self, snapshots) -> None:
        super().set_history(snapshots)
        if not self.mode:
            self._weights.clear()
            return
        hist = self.history
        newest = max(self._weights, default=-1)
        if not hist or hist[0].iteration not in self._weights:
            self._weights.clear()  # a new run
            newest = -1
        start = len(hist)
        while start > 0 and hist[start - 1].iteration > newest:  # only the snapshots not seen yet
            start -= 1
        for s in hist[start:]:
            self._remember(s)
        if len(self._weights) > len(hist):
            # the session thinned its bounded history (it only ever drops snapshots): drop them here too
            keep = {s.iteration for s in hist}
            self._weights = {k: w for k, w in self._weights.items() if k in keep}
        if self.snapshot is not None:
            self._remember(self.snapshot)
        if self.snapshot is not None and self.mode:
            self._draw_dynamic()

    def set_snapshot(self, snapshot) -> None:
        self.snapshot = snapshot
        if snapshot is None or not self.mode:
            return
        self._remember(snapshot)
        need = self._radius_1d() if self.mode == "1d" else 0.0
        if need > self._static_radius * 1.0001:
            # grow in steps of 1.5× so that a growing weight vector does not rebuild the picture every frame
            self._static_radius = 1.5 * need
            self.redraw()
        else:
            self._draw_dynamic()

    # -- preparation -----------------------------------------------------------------------------
    def _prepare(self, problem) -> None:
        Y = np.asarray(problem.Y, dtype=float)
        dhat = Y.shape[1]
        fm = problem.features
        if dhat > 3:
            raise PercvizError(
                f"The weight-space picture needs at most 3 weights, but the {fm.display_name or fm.spec} map "
                f"has {dhat}. Choose the augmented linear map (1, x1, x2) to see the solution cone."
            )
        if dhat < 2:
            raise PercvizError("The weight-space picture needs at least 2 weights (a bias and a slope).")
        self.reduction = line_reduction(problem.Phi, problem.y, problem.X, fm.term_names())
        if self.reduction is None and dhat == 2:
            raise PercvizError("This 2-weight map is not (1, x1): the weight-space view cannot read it as 1-D data.")
        self.classes = np.asarray(problem.points.classes)
        if self.reduction is not None:
            self.mode = "1d"
            self.margin_b = self._margin_parameter()
            self.cone1 = cone_1d(self.reduction.Z, self.margin_b)
            self.cone2 = None
        else:
            self.mode = "2d"
            self.cone2 = cone_picture(Y)
            self.cone1 = None
        # "the cone is empty" is a proof (Gordan): shown only when the exact LP on the points confirms it; and a
        # cone (with its a*) only when the LP does not prove that there is none (a QP at 1e-6 found one for XOR)
        self.thin = ""
        phantom = False
        if (self.cone1 or self.cone2).empty:
            self.thin = refute_nonseparable(Y, problem)
        elif not self._cone_separates(Y):  # its a* misses a point: the exact LP decides (n×3: cheap)
            phantom = refute_nonseparable(Y, problem) == ""  # "": the LP proves there is no separator
        if phantom and self.cone1 is not None:
            e = np.zeros((0, 2))
            self.cone1 = replace(self.cone1, empty=True, angles=None, wedge=e, margin_region=e, shortest=None,
                                 best=None)
        elif phantom:
            self.cone2 = replace(self.cone2, empty=True, polygon=np.zeros((0, 2)), best=None, best_margin=0.0,
                                 best_point=None)

    def _cone_separates(self, Y) -> bool:
        """Whether the picture's own best vector puts every sample strictly on its side (then no LP is needed)."""
        if self.cone1 is not None:
            return self.cone1.shortest is not None and bool((self.reduction.Z @ self.cone1.shortest > 0).all())
        best = self.cone2.best
        return best is not None and bool((Y @ best > 0).all())

    def _margin_parameter(self) -> float:
        """The margin b of the current algorithm's parameters (the notes' figure uses b = 1)."""
        params = self.scene.settings.params or {}
        for key in ("b", "margin"):
            v = params.get(key)
            try:
                if v is not None and float(v) > 0:
                    return float(v)
            except (TypeError, ValueError):
                pass
        return 1.0

    def _remember(self, snapshot) -> None:
        w = snapshot.weights
        if w is not None:
            w = np.asarray(w, dtype=float)  # no copy: the solvers' weights are float arrays already
            # a diverged iterate (inf, nan, or too large to draw) is not drawn: it would break the view's range
            if w.shape == (self.problem.Y.shape[1],) and drawable(w):
                self._weights[int(snapshot.iteration)] = w

    def _path(self) -> np.ndarray:
        """The weights a(0..k) up to the shown snapshot (thinned if very long)."""
        if not self._weights:
            return np.zeros((0, self.problem.Y.shape[1]))
        k = self.snapshot.iteration if self.snapshot is not None else max(self._weights)
        its = sorted(i for i in self._weights if i <= k)
        if len(its) > MAX_PATH:  # the older iterates thinned evenly, the last TAIL kept whole
            head = len(its) - TAIL
            keep = np.unique(np.r_[np.linspace(0, head - 1, MAX_PATH - TAIL).astype(int), np.arange(head, len(its))])
            its = [its[j] for j in keep]
        return np.array([self._weights[i] for i in its]).reshape(len(its), -1)

    # -- drawing ---------------------------------------------------------------------------------
    def redraw(self, split: bool = False) -> None:
        """The whole picture; split (a new problem's first picture): the constraints' labels (a third of the cost,
        ~1 ms each) in the next event-loop turn of the panel's own (Panel.in_turn_of_its_own)."""
        if not self.mode:
            return
        self.show_plot()
        self.plot.clear()
        self._styles = []
        self._dynamic, self._highlight_items, self._line_labels, self._fixed_labels = [], [], [], []
        self._drawing += 1
        self._labels_to_make: list | None = [] if split else None
        self._empty_label = None
        self._static_readout = []
        if self.mode == "1d":
            self._draw_static_1d()
        else:
            self._draw_static_2d()
        # (the static constraint lines are painted from a pixmap cache, see geometry_panel.segments_item: Qt
        # caches the part in view, and the iterates moving over them no longer repaint them)
        self._make_dynamic_items()
        self._draw_dynamic()
        self._draw_highlight()
        self._place_labels()
        todo, self._labels_to_make = self._labels_to_make, None
        if todo:
            drawing = self._drawing
            self.in_turn_of_its_own("labels", lambda: self._make_line_labels(drawing, todo))

    def _restyled(self) -> None:
        """The items restyled in place (GeometryPanel.apply_theme): the inset's background, the iterate, the
        highlight and the labels (their sizes changed) follow."""
        if not self.mode:
            return
        self.overview.setBackground(color(self.theme.background, 235))
        self._draw_dynamic()
        self._draw_highlight()
        self._place_labels()

    def resizeEvent(self, event) -> None:
        super().resizeEvent(event)
        self._place_overview()

    def _hover_index(self, point, pixel):
        if not self.mode:
            return None
        N, h = self._lines()
        norms = np.linalg.norm(N, axis=1)
        ok = norms > 0
        if not ok.any():
            return None
        dist = np.full(len(N), np.inf)
        dist[ok] = np.abs(N[ok] @ point + h[ok]) / norms[ok]
        i = int(np.argmin(dist))
        return i if dist[i] <= HOVER_PX * pixel else None

    def _draw_highlight(self) -> None:
        for item in self._highlight_items:
            self.plot.removeItem(item)
        self._highlight_items = []
        self._hover_label = None
        i = self.highlighted
        if not self.mode or i is None or i >= len(self._lines()[0]):
            return
        t = self.theme
        if self.mode == "1d":
            z = self.reduction.Z[i]
            d = np.array([-z[1], z[0]]) / np.linalg.norm(z)
            L = 4.0 * self._static_radius
            seg = np.array([-L * d, L * d])
            text, pos = f"point {i}: a·y{i} = 0", -0.6 * self._static_radius * (d if d[1] >= 0 else -d)
        else:
            seg = self._segments.get(i)
            if seg is None:
                return
            vis = self._visible.get(i, seg)
            text, pos = f"point {i}: a·y{i} = 0", vis[0] + 0.25 * (vis[1] - vis[0])
        glow = path_item([seg], cosmetic_pen(t.highlight, 3.2 * t.line_width, 170), z=-4)
        core = path_item([seg], cosmetic_pen(self._class_color(i), 1.4 * t.line_width), z=-3)
        for it in (glow, core):
            self.plot.addItem(it)
            self._highlight_items.append(it)
        label = pg.TextItem(text, color=t.foreground, anchor=(0.5, 1.2), fill=color(t.background, 220))
        label.setFont(t.font(t.font_pt, bold=True))
        label.setPos(float(pos[0]), float(pos[1]))
        label.setZValue(50)
        self.plot.addItem(label)
        self._highlight_items.append(label)
        N, h = self._lines()
        self._hover_label = (label, N[i], h[i], 0.22)
        self._place_labels()
