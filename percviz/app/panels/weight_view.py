"""The weight-space panel: constraint planes a·y_i = 0, the solution cone, and the iterates a(k).

With two weights (1-D data) the (a0, a1) plane is drawn as in the notes' figure; with three, directions
a/‖a‖ are shown by the gnomonic projection of `percviz.core.geometry` (planes become lines, the cone a
convex polygon).
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QRectF, Qt

from percviz.app.panels.geometry_panel import (
    HOVER_PX,
    GeometryPanel,
    arrow_angle,
    color,
    cosmetic_pen,
    path_item,
    polygon_item,
    segments_item,
)
from percviz.app.panels.panel import drawable
from percviz.app.run.panel_pacer import PANEL_INTERVAL
from percviz.core.certify import refute_nonseparable
from percviz.core.errors import PercvizError
from percviz.core.glossary import MARGINS
from percviz.core.geometry import cone_1d, cone_picture, line_reduction, line_segment, line_segments, wall_indices

#: At most this many constraint lines carry a label (all of them up to this many points; beyond, the
#: cone's walls and the lines nearest to the cone).
MAX_LABELS = 30
#: Beyond this many constraints, lines that are not walls of the cone are faded.
FADE_ABOVE = 30
#: At most this many iterates are drawn on the path (older ones are thinned evenly).
MAX_PATH = 1500
#: The last this many iterates are drawn bold with dots; a longer path before them is a faint trace.
TAIL = 12
#: At most this many iterates on the far hemisphere are marked on the edge of the view.
MAX_FAR_MARKS = 240


def _cone_colors(dark: bool) -> tuple[str, str, str]:
    """(fill, edge, margin fill) of the solution region."""
    return ("#3fae5a", "#1e7b34", "#1e7b34") if not dark else ("#4cc46a", "#7be495", "#2f9e4f")


def _iterate_color(dark: bool) -> str:
    return "#6a3d9a" if not dark else "#c9a7ff"


class WeightView(GeometryPanel):
    """Weight space of an explicit-weight procedure (augmented linear map, at most three weights)."""

    view, redraw_interval, dock_title = "weight", PANEL_INTERVAL, "Weight space"
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
        self._empty_label = None
        self._static_readout: list = []
        self._hover_label: tuple | None = None
        self.plot.getViewBox().sigRangeChanged.connect(self._place_labels)
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
        params = getattr(getattr(self.scene, "settings", None), "params", {}) or {}
        for key in ("b", "margin"):
            v = params.get(key)
            try:
                if v is not None and float(v) > 0:
                    return float(v)
            except (TypeError, ValueError):
                pass
        return 1.0

    def _remember(self, snapshot) -> None:
        w = getattr(snapshot, "weights", None)
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

    def _line_label(self, text: str, pos, color_: str, normal, offset: float, frac: float) -> None:
        """The label of one constraint line, kept on it by _place_labels (made now, or queued by a split redraw)."""
        if self._labels_to_make is not None:
            self._labels_to_make.append((text, pos, color_, normal, offset, frac))
            return
        item = self.text_item(text, pos, (0.5, 0.5), 0.9, color_, fill=True)
        self._line_labels.append((item, normal, offset, frac))

    def _make_line_labels(self, drawing: int, todo: list) -> None:
        if drawing != self._drawing or not self.mode:
            return  # the picture was drawn again meanwhile (with its own labels)
        for args in todo:
            self._line_label(*args)
        self._place_labels()

    def _place_labels(self, *_args) -> None:
        """Keep each constraint's label on its line, inside whatever part of the plane is in view."""
        if self._empty_label is not None:
            self._empty_label.setTextWidth(max(120.0, 0.9 * self.plot.getViewBox().width()))
        labels = list(self._line_labels) + ([self._hover_label] if self._hover_label else [])
        if not labels or not self.mode:
            return
        (x0, x1), (y0, y1) = self.plot.getViewBox().viewRange()
        box = (x0, x1, y0, y1)
        for item, normal, offset, frac in labels:
            seg = line_segment(normal, offset, box)
            if seg is None:
                item.hide()
                continue
            if (seg[1, 1], seg[1, 0]) < (seg[0, 1], seg[0, 0]):
                seg = seg[::-1]  # fraction 1 is the upper end
            pos = seg[0] + frac * (seg[1] - seg[0])
            item.setPos(*pos)
            # text grows towards the middle of the view, so it is never cut at the edge
            item.setAnchor((0.0 if pos[0] < 0.5 * (x0 + x1) else 1.0, item.anchor.y()))
            item.show()
        # no label over another: the earlier ones (the cone's walls first) win; the hover label always shows
        vb = self.plot.getViewBox()

        def box(item) -> QRectF:
            # the label's box in scene pixels, from its anchor (its own transform may not be updated yet)
            br = item.textItem.boundingRect()
            at = vb.mapViewToScene(item.pos())
            return QRectF(at.x() - item.anchor.x() * br.width(), at.y() - item.anchor.y() * br.height(),
                          br.width(), br.height())

        taken = [box(item) for item in getattr(self, "_fixed_labels", [])]
        # a narrow plot or a projector's big font has room for fewer labels: about one per 45 px of width
        room = max(4, int(vb.sceneBoundingRect().width() / (45.0 * self.theme.scale)))
        hover = (self._hover_label or (None,))[0]
        shown = 0
        for item, *_ in labels:
            if not item.isVisible():
                continue
            rect = box(item)
            if item is not hover and (shown >= room or any(rect.intersects(r) for r in taken)):
                item.hide()
            else:
                taken.append(rect)
                shown += item is not hover

    def _draw_overview(self, segs, ok) -> None:
        """The small inset: every constraint line faint, the cone, and a box around the framed part."""
        pic, t = self.cone2, self.theme
        ov = self.overview
        ov.clear()
        ov.setBackground(color(t.background, 235))
        if not pic.bounded or len(pic.polygon) < 3:
            ov.hide()
            return
        fill, edge, _ = _cone_colors(t.dark)
        lines, lok = line_segments(pic.normals, pic.offsets, pic.overview)
        lok &= pic.has_line
        if lok.any():
            ov.addItem(segments_item(lines[lok], cosmetic_pen(t.foreground, 1.0, 70), z=-5))
        ov.addItem(polygon_item(pic.polygon, color(fill, 200), cosmetic_pen(edge, 1.0), z=-2))
        x0, x1, y0, y1 = pic.frame
        ov.addItem(path_item([np.array([[x0, y0], [x1, y0], [x1, y1], [x0, y1], [x0, y0]])],
                             cosmetic_pen(t.foreground, 1.5, 230), z=1))
        mid = np.array([[(x0 + x1) / 2, (y0 + y1) / 2]])  # a ring a few pixels wide: the frame may be a speck here
        ov.addItem(pg.ScatterPlotItem(mid[:, 0], mid[:, 1], symbol="o", size=12, brush=None,
                                      pen=pg.mkPen(edge, width=2)))
        ox0, ox1, oy0, oy1 = pic.overview
        ov.setRange(xRange=(ox0, ox1), yRange=(oy0, oy1), padding=0.0)
        ov.show()
        self._place_overview()

    def _place_overview(self) -> None:
        """The inset in the plot's top-right corner, a quarter of its width."""
        side = int(max(60, min(self.plot.width(), self.plot.height()) * 0.28))
        self.overview.setGeometry(self.plot.width() - side - 4, 4, side, side)

    def resizeEvent(self, event) -> None:
        super().resizeEvent(event)
        self._place_overview()

    def _class_color(self, i: int) -> str:
        return self.theme.class_color(int(self.classes[i]))

    # 1-D: the (a0, a1) plane ------------------------------------------------------------------------
    def _radius_1d(self) -> float:
        """Half-width of the 1-D picture: the cone's shortest vector and every drawn iterate fit inside."""
        r = 3.0
        if self.cone1.shortest is not None:
            r = max(r, 1.8 * float(np.linalg.norm(self.cone1.shortest)))
        B = self._path() @ self.reduction.M.T
        if len(B):
            r = max(r, 1.15 * float(np.abs(B).max()))
        return r

    def _draw_static_1d(self) -> None:
        t, red, cone = self.theme, self.reduction, self.cone1
        R = self._static_radius = max(self._static_radius, self._radius_1d())
        fill, edge, mfill = _cone_colors(t.dark)
        self.plot.showAxis("left")
        self.plot.showAxis("bottom")
        self.plot.showGrid(x=True, y=True, alpha=0.15)
        first = "a0" if np.allclose(red.M[0], [1, 0, 0][: red.M.shape[1]]) else "b0"
        second = "a1" if first == "a0" else "b1"
        self.plot.setLabel("bottom", first)
        self.plot.setLabel("left", second)
        self.overview.hide()
        self.plot.setAspectLocked(True)
        self.plot.setRange(xRange=(-R, R), yRange=(-R, R), padding=0.02)
        if not cone.empty:
            cone = cone_1d(red.Z, self.margin_b, half=1e3 * R)
            self.plot.addItem(polygon_item(cone.wedge, color(fill, 55), z=-20))
            self.plot.addItem(polygon_item(cone.margin_region, color(mfill, 70), z=-19))
        Z = red.Z
        L = 4.0 * R
        n = len(Z)
        D = np.column_stack([-Z[:, 1], Z[:, 0]]) / np.linalg.norm(Z, axis=1)[:, None]
        lines = np.stack([-L * D, L * D], axis=1)
        for cls in np.unique(self.classes):
            mine = self.classes == cls
            self.plot.addItem(segments_item(lines[mine], cosmetic_pen(t.class_color(int(cls)), t.line_width, 230),
                                            z=-5))
        if n <= 12:
            off = self.margin_b * Z / np.einsum("ij,ij->i", Z, Z)[:, None]  # the wall a·z = b: moved in by b/‖z‖
            walls = np.stack([off - L * D, off + L * D], axis=1)
            self.plot.addItem(segments_item(walls, cosmetic_pen(edge, t.thin_line_width, 160, Qt.DashLine), z=-6))
        if n <= MAX_LABELS:
            for i in range(n):
                d = D[i] if D[i, 1] > 0 or (D[i, 1] == 0 and D[i, 0] > 0) else -D[i]
                self._line_label(f"y{i}: x = {red.t[i]:g}", 0.86 * R * d, self._class_color(i), Z[i], 0.0, 0.9)
        self.plot.addItem(pg.ScatterPlotItem([0], [0], symbol="o", size=6, brush=t.foreground, pen=None))
        if cone.shortest is not None:
            s = cone.shortest
            self.plot.addItem(path_item([np.array([[0, 0], s])], cosmetic_pen(edge, t.thin_line_width, 220, Qt.DashLine)))
            self.plot.addItem(
                pg.ScatterPlotItem([s[0]], [s[1]], symbol="star", size=2.0 * t.marker_size, brush=color(edge),
                                   pen=pg.mkPen(t.background, width=1))
            )
            self._fixed_labels.append(self.text_item("a*", s, (-0.25, 1.0), 0.95, edge))
            self._static_readout = [(f"★ a* = ({s[0]:.4g}, {s[1]:.4g}), the shortest a with a·yᵢ ≥ {self.margin_b:g}",
                                     edge)]
        unit = "b" if first == "b0" else "a"
        if cone.empty and self.thin:
            self.set_title("Weight space (1-D data): the solution cone is too thin to draw here")
            cap = f"No cone is drawn: at this scale it is below what the picture resolves, but {self.thin}."
        elif cone.empty:
            self.set_title("Weight space (1-D data): the cone is empty — no linear separator")
            cap = "No direction satisfies every a·yᵢ > 0: the constraint lines leave no common side."
        else:
            lo, hi = cone.angles
            self.set_title(f"Weight space ({first}, {second}): solution cone from {lo:.2f}° to {hi:.2f}°")
            cap = (
                f"Green wedge: the solution cone {unit}·yᵢ > 0. Darker: the margin region {unit}·yᵢ ≥ b = "
                f"{self.margin_b:g}, its walls moved in by b/‖yᵢ‖. ★ the shortest vector in it."
            )
        self.caption.setText(cap + f"<br><i>{red.description}.</i>")

    # 2-D: the gnomonic picture -----------------------------------------------------------------------
    def _draw_static_2d(self) -> None:
        t, pic = self.theme, self.cone2
        fill, edge, _ = _cone_colors(t.dark)
        self.plot.hideAxis("left")
        self.plot.hideAxis("bottom")
        self.plot.showGrid(x=False, y=False)
        xmin, xmax, ymin, ymax = pic.frame  # the cone fills the view; the overview inset shows its whereabouts
        self.plot.setAspectLocked(not pic.bounded)  # a thin cone's rectangle is stretched across (at most MAX_STRETCH)
        self.plot.setRange(xRange=(xmin, xmax), yRange=(ymin, ymax), padding=0.02)
        # rings at fixed angles from the tangent point c, for orientation
        rings = []
        for deg in (30, 60, 75):
            r = np.tan(np.radians(deg))
            if r < 1.3 * max(abs(xmin), abs(xmax), abs(ymin), abs(ymax)):
                th = np.linspace(0, 2 * np.pi, 181)
                rings.append(np.column_stack([r * np.cos(th), r * np.sin(th)]))
                self.text_item(f"{deg}°", (r * 0.71, -r * 0.71), (0, 0), 0.75, t.grid)
        self.plot.addItem(path_item(rings, cosmetic_pen(t.grid, 1.0, 200, Qt.DotLine), z=-30))
        self.plot.addItem(pg.ScatterPlotItem([0], [0], symbol="+", size=10, brush=t.grid, pen=pg.mkPen(t.grid)))
        if len(pic.polygon) >= 3:
            # on top of the constraint lines: a thin cone must not vanish under its own walls
            # a halo in the background colour first, so the cone's outline reads over a bundle of lines
            self.plot.addItem(polygon_item(pic.polygon, color(fill, 0), cosmetic_pen(t.background, 3.2 * t.line_width,
                                                                                     200), z=-3))
            self.plot.addItem(polygon_item(pic.polygon, color(fill, 150), cosmetic_pen(edge, 1.5 * t.line_width), z=-2))
        n = len(pic.normals)
        segs, ok = line_segments(pic.normals, pic.offsets, pic.box)
        ok &= pic.has_line
        vis, vok = line_segments(pic.normals, pic.offsets, pic.frame)
        vok &= ok
        self._segments = {int(i): segs[i] for i in np.flatnonzero(ok)}
        self._visible = {int(i): vis[i] for i in np.flatnonzero(vok)}
        self._draw_overview(segs, ok)
        walls = wall_indices(pic.polygon, pic.normals, pic.offsets)
        strong = np.zeros(n, bool)
        strong[walls] = True
        if n <= FADE_ABOVE:
            strong[:] = True
        # many points: the cone's walls stay bold, the other constraints fade (the farther, the fainter);
        # one item per class and style, whatever n
        far = self._far_lines(pic) & ~strong
        for cls in np.unique(self.classes):
            mine = ok & (self.classes == cls)
            for sel, width, alpha, z in ((mine & strong, t.line_width, 230 if n <= FADE_ABOVE else 170, -5),
                                         (mine & ~strong & ~far, max(1.0, 0.45 * t.line_width), 80, -8),
                                         (mine & far, max(1.0, 0.35 * t.line_width), 35, -9)):
                if sel.any():
                    pen = cosmetic_pen(t.class_color(int(cls)), width, alpha)
                    self.plot.addItem(segments_item(segs[sel], pen, z=z))
        fracs = (0.07, 0.93) if n <= MAX_LABELS else (0.07, 0.93, 0.22, 0.78, 0.36, 0.64)  # spread when many
        for k, i in enumerate(self._label_choice(pic, vok, walls)):
            frac = fracs[i % 2] if n <= MAX_LABELS else fracs[k % len(fracs)]
            seg = self._visible[i]
            self._line_label(str(i), seg[0] + frac * (seg[1] - seg[0]), self._class_color(i), pic.normals[i],
                             pic.offsets[i], frac)
        if pic.best_point is not None:
            bp = pic.best_point
            self.plot.addItem(
                pg.ScatterPlotItem([bp[0]], [bp[1]], symbol="star", size=2.0 * t.marker_size, brush=color(edge),
                                   pen=pg.mkPen(t.background, width=1))
            )
            self._fixed_labels.append(self.text_item("a*", bp, (-0.25, 1.0), 0.95, edge))
            self._static_readout = [(f"★ a*: the largest {MARGINS['geometric'].name}, γ(a*) = {pic.best_margin:.4g}",
                                     edge)]
        if pic.empty and self.thin:
            self.set_title("Weight space: the solution cone is too thin to draw here")
            cap = (f"No cone is drawn: at this scale it is below what the picture resolves, but {self.thin}. "
                   "Scale the points to about unit size to see it.")
        elif pic.empty:
            self.set_title("Weight space: the cone is empty — no linear separator")
            # at the top: far-side iterates are marked along the edges, and the bottom holds their label
            label = self.text_item("<div align='center'>the cone is empty — no linear separator</div>",
                                   ((xmin + xmax) / 2, ymax - 0.1 * (ymax - ymin)), (0.5, 0), 1.2,
                                   t.foreground, fill=True)
            self._empty_label = label  # wrapped to the view's width (_place_labels): a narrow dock cut it
            self._fixed_labels.append(label)
            cap = (
                "Every direction violates some constraint: 0 lies in the hull of the yᵢ (Gordan). "
                "Lines: the planes a·yᵢ = 0 seen from the origin."
            )
        else:
            self.set_title(
                f"Weight space: solution cone of a = ({', '.join(self.problem.features.term_names())}) weights"
            )
            cap = (
                "Directions a/‖a‖ projected from the origin onto the plane tangent at c = mean of yᵢ/‖yᵢ‖ "
                "(gnomonic: each plane a·yᵢ = 0 is a line). Green: the solution cone."
                + ("" if pic.bounded else " It reaches the horizon, so the view box cuts it.")
                + f" ★ a*, the direction of the largest {MARGINS['geometric'].name} (γ(a*) = {pic.best_margin:.3g})."
            )
        x0, x1, y0, y1 = pic.frame
        if pic.bounded:
            cap += (" Framed on the cone (stretched across it to fill the view); the inset, in true proportions, "
                    "shows where it sits among all the constraints.")
        self.caption.setText(cap + " Rings: angle from c.")

    @staticmethod
    def _line_distances(pic) -> np.ndarray:
        """Distance of each constraint line from the middle of the cone (or of the view when it is empty)."""
        P = pic.polygon
        centre = P.mean(axis=0) if len(P) >= 3 else np.array([(pic.view[0] + pic.view[1]) / 2,
                                                               (pic.view[2] + pic.view[3]) / 2])
        norms = np.linalg.norm(pic.normals, axis=1)
        return np.abs(pic.normals @ centre + pic.offsets) / np.where(norms > 0, norms, np.inf)

    def _far_lines(self, pic) -> np.ndarray:
        """With many constraints, those farther from the cone than the view's half-width (drawn faintest)."""
        if len(pic.normals) <= FADE_ABOVE:
            return np.zeros(len(pic.normals), bool)
        return self._line_distances(pic) > 0.5 * (pic.view[1] - pic.view[0])

    def _label_choice(self, pic, visible: np.ndarray, walls: np.ndarray) -> list[int]:
        """At most MAX_LABELS lines to label: all when few; else the walls, then the lines nearest the cone."""
        idx = np.flatnonzero(visible)
        if len(idx) <= MAX_LABELS:
            return [int(i) for i in idx]
        dist = self._line_distances(pic)
        first = [int(i) for i in walls if visible[i]]
        rest = [int(i) for i in idx[np.argsort(dist[idx])] if int(i) not in set(first)]
        return (first + rest)[: min(MAX_LABELS, max(12, len(first)))]

    # the iterates ------------------------------------------------------------------------------
    # The dynamic items are made once per redraw and then only fed new data: adding and removing
    # graphics items costs far more than the drawing itself.
    def _make_dynamic_items(self) -> None:
        t = self.theme
        col = _iterate_color(t.dark)
        self._trigger_item = segments_item(np.zeros((0, 2, 2)), cosmetic_pen(col, 1.2 * t.line_width, 200, Qt.DashLine),
                                           z=-1, static=False)
        self._path_line = pg.PlotCurveItem(pen=pg.mkPen(color(col, 200), width=t.thin_line_width), connect="finite")
        self._tail_line = pg.PlotCurveItem(pen=pg.mkPen(color(col, 220), width=t.thin_line_width), connect="finite")
        self._path_dots = pg.ScatterPlotItem(symbol="o", size=0.45 * t.marker_size, brush=color(col, 160), pen=None)
        self._far_marks = pg.ScatterPlotItem(symbol="x", size=0.7 * t.marker_size, pen=pg.mkPen(col, width=1.5),
                                             brush=None)
        self._current = pg.ScatterPlotItem(symbol="o", size=1.3 * t.marker_size, brush=col,
                                           pen=pg.mkPen(t.background, width=2))
        self._edge_arrow = pg.ArrowItem(angle=0, headLen=2.0 * t.marker_size, tipAngle=40, tailLen=None,
                                        pen=pg.mkPen(col, width=2), brush=color(t.background))
        self._iter_label = pg.TextItem("", color=col, anchor=(-0.15, 0.5), fill=color(t.background, 200))
        self._iter_label.setFont(t.font(t.font_pt, bold=True))
        for item, z in ((self._path_line, 43), (self._tail_line, 44), (self._path_dots, 44), (self._far_marks, 44), (self._current, 45),
                        (self._edge_arrow, 46), (self._iter_label, 47), (self._trigger_item, -1)):
            item.setZValue(z)
            item.hide()
            self.plot.addItem(item)
        self._dynamic_items = [self._trigger_item, self._path_line, self._tail_line, self._path_dots, self._far_marks, self._current,
                               self._edge_arrow, self._iter_label]

    def _draw_dynamic(self) -> None:
        if not self.mode or not hasattr(self, "_dynamic_items"):
            self._dynamic = []
            return
        shown: list = []
        A = self._path() if self.snapshot is not None else np.zeros((0, 0))
        self.set_readout(self._static_readout + self._iterate_readout(A))
        if len(A):
            shown += self._draw_triggers()
            if self.mode == "1d":
                shown += self._draw_iterates_1d(A @ self.reduction.M.T)
            else:
                shown += self._draw_iterates_2d(A)
        for item in self._dynamic_items:
            item.setVisible(any(item is s_ for s_ in shown))
        self._dynamic = shown

    def _iterate_readout(self, A: np.ndarray) -> list[tuple[str, str]]:
        """The current weights and their margin min_i a·yᵢ/‖a‖ (negative: some sample misclassified)."""
        if not len(A):
            return []
        a = A[-1]
        w = self.reduction.M @ a if self.mode == "1d" else a
        if not np.any(w):
            return [(f"{self._iterate_label()} = 0", _iterate_color(self.theme.dark))]
        margin = float(np.min(np.asarray(self.problem.Y) @ a) / np.linalg.norm(a))
        comps = ", ".join(f"{v:.3g}" for v in w)
        return [(f"{self._iterate_label()} = ({comps}), {MARGINS['geometric'].short} = {margin:.4g}",
                 _iterate_color(self.theme.dark))]

    def _draw_triggers(self) -> list:
        """The constraint(s) of the sample(s) that caused the last update, in the iterate's colour."""
        segs = []
        n = len(self._lines()[0])
        triggers = tuple(getattr(self.snapshot, "triggers", ()) or ())
        if len(triggers) > 3:  # a batch update: every misclassified sample, no single line to point at
            return []
        for i in triggers:
            if not 0 <= int(i) < n:
                continue
            if self.mode == "1d":
                z = self.reduction.Z[int(i)]
                d = np.array([-z[1], z[0]]) / np.linalg.norm(z)
                L = 4.0 * self._static_radius
                segs.append(np.array([-L * d, L * d]))
            elif int(i) in getattr(self, "_segments", {}):
                segs.append(self._segments[int(i)])
        if not segs:
            return []
        S = np.array(segs)
        self._trigger_item.setData(S[:, :, 0].ravel(), S[:, :, 1].ravel(), connect="pairs")
        return [self._trigger_item]

    def _set_path(self, P: np.ndarray) -> list:
        """The iterate path: whole while short; when long a faint thinned trace, and the last TAIL iterates bold
        with dots (a long run is never a solid blob)."""
        t = self.theme
        col = _iterate_color(t.dark)
        long = len(P) > 2 * TAIL
        pen = pg.mkPen(color(col, 30), width=1.0) if long else pg.mkPen(color(col, 200), width=t.thin_line_width)
        self._path_line.setPen(pen)
        self._path_line.setData(P[:, 0], P[:, 1], connect="finite")
        shown = [self._path_line]
        tail = P[-TAIL:] if long else P
        if long:
            self._tail_line.setData(tail[:, 0], tail[:, 1], connect="finite")
            shown.append(self._tail_line)
        if len(tail) <= 60:
            good = np.all(np.isfinite(tail), axis=1)
            self._path_dots.setData(tail[good, 0], tail[good, 1])
            shown.append(self._path_dots)
        return shown

    def _iterate_label(self) -> str:
        """a(k) of the iterate drawn: the snapshot's, or the last drawable one before it (a diverged a is not drawn)."""
        k = int(self.snapshot.iteration)
        if k not in self._weights and self._weights:
            k = max((i for i in self._weights if i <= k), default=k)
        return f"a({k})"

    def _set_label(self, text: str, pos, anchor) -> list:
        (x0, x1), _ = self.plot.getViewBox().viewRange()
        if anchor == (-0.15, 0.5) and pos[0] > 0.5 * (x0 + x1):
            anchor = (1.15, 0.5)  # text towards the middle of the view, never cut at its right edge
        inside = self.plot.getViewBox().sceneBoundingRect()
        for words in dict.fromkeys((text, text.split(" ")[0])):  # "a(300) beyond the view", else just "a(300)"
            self._iter_label.setText(words)
            self._iter_label.setAnchor(anchor)
            self._iter_label.setPos(float(pos[0]), float(pos[1]))
            if inside.contains(self._iter_label.sceneBoundingRect()):
                break  # whole in the view (a narrow dock at a projector's font cut the long one)
        return [self._iter_label]

    def _draw_iterates_1d(self, B: np.ndarray) -> list:
        shown = self._set_path(B)
        cur = B[-1]
        self._current.setData([cur[0]], [cur[1]])
        return shown + [self._current] + self._set_label(self._iterate_label(), cur, (-0.15, 0.5))

    def _view_centre(self) -> tuple[np.ndarray, np.ndarray]:
        """The middle of the framed view and its half-widths (x, y)."""
        xmin, xmax, ymin, ymax = self.cone2.frame
        return np.array([(xmin + xmax) / 2, (ymin + ymax) / 2]), np.array([(xmax - xmin) / 2, (ymax - ymin) / 2])

    def _edge_position(self, direction) -> np.ndarray:
        """Where a point at infinity in this direction meets the edge of the view (just inside)."""
        centre, half = self._view_centre()
        d = np.atleast_2d(np.asarray(direction, dtype=float))
        out = centre + d * (0.93 / np.maximum((np.abs(d) / half).max(axis=1), 1e-12))[:, None]
        return out[0] if np.ndim(direction) == 1 else out

    def _draw_iterates_2d(self, A: np.ndarray) -> list:
        zero = ~(np.linalg.norm(A, axis=1) > 0)
        proj = self.cone2.projection.project(np.where(zero[:, None], self.cone2.projection.center, A))
        # NaN rows break the path: an iterate on the far hemisphere, or a = 0 (no direction at all),
        # is never drawn as a wrong point
        P = np.where(zero[:, None], np.nan, proj.points)
        far_rows = proj.far & ~zero
        shown = self._set_path(P)
        if far_rows.any():
            rows = np.flatnonzero(far_rows)
            if len(rows) > MAX_FAR_MARKS:  # on the edge they overlap anyway; thousands cost ~7 ms a frame
                rows = rows[np.unique(np.linspace(0, len(rows) - 1, MAX_FAR_MARKS).astype(int))]
            E = self._edge_position(proj.edge[rows])
            self._far_marks.setData(E[:, 0], E[:, 1])
            shown.append(self._far_marks)
        if zero[-1]:
            return shown  # the readout says a(k) = 0
        centre, half = self._view_centre()
        cur, far = P[-1], bool(proj.far[-1])
        off_view = far or bool((np.abs(cur - centre) > half).any())
        label = self._iterate_label()
        if off_view:
            d = proj.edge[-1] if far else (cur - centre) / np.linalg.norm(cur - centre)
            pos = self._edge_position(d)
            self._edge_arrow.setStyle(angle=arrow_angle(d))
            self._edge_arrow.setPos(float(pos[0]), float(pos[1]))
            shown.append(self._edge_arrow)
            label += " on the far side (a·c ≤ 0)" if far else " beyond the view"
            # the label sits inside the view, away from the edge the arrow points at (text y runs downwards)
            anchor = (1.05 if d[0] > 0 else -0.05, 0.5 if abs(d[1]) < 0.7 else (-0.3 if d[1] > 0 else 1.3))
        else:
            pos = cur
            self._current.setData([cur[0]], [cur[1]])
            shown.append(self._current)
            anchor = (-0.15, 0.5)
        return shown + self._set_label(label, pos, anchor)

    # hover and highlight -------------------------------------------------------------------------
    def _lines(self) -> tuple[np.ndarray, np.ndarray]:
        """(normals, offsets) of every constraint line in the drawn plane."""
        if self.mode == "1d":
            return self.reduction.Z, np.zeros(len(self.reduction.Z))
        return self.cone2.normals, self.cone2.offsets

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
            seg = getattr(self, "_segments", {}).get(i)
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
