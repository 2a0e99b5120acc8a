"""The canvas: place, move and delete points; see the decision function, its boundary and margins.

Drawn, bottom to top: the decision function as a diverging colour map (symmetric range clipped at
the largest |f(x_i)| over the points, with a colour bar), or c region colours for multi-class
algorithms; the margin levels (dashed); the decision boundary f = 0 (thick); halos sized by the
weights α_i (or by p_i when the snapshot is a certificate of non-separability); the points (+ and −
differ by shape as well as colour); a ring on the point(s) that triggered the update shown.

Margin levels are the two level sets at ±δ, where δ is the smallest margin of a training point, so
the closest point(s) touch a margin line (nothing is drawn until every point is on its side):
- affine decision functions (`decision.affine()`): exact lines w·x + b = ±δ, δ = min_i y_i f(x_i);
- kernel expansions: the paper's normalized margin f(x)/(‖f‖_K √K(x, x)) at ±min_i of its value
  y_i f(x_i)/(‖f‖_K √K(x_i, x_i)) = (Gα)_i/‖α‖_G, the "margin" the curves show; ‖f‖_K cancels, so the
  curves drawn are the level sets of f/√K(x, x) (of f itself for RBF and Laplacian);
- other explicit feature maps: f = ±min_i y_i f(x_i);
- a solver class with `margin_level` (the SVM: 1) fixes the levels at f = ±margin_level, drawn even when
  points are inside the band; for such solvers each point with slack ξ_i = max(0, 1 − y_i f(x_i)) > 0 is
  marked: a segment to its margin line along the normal (affine f; length ξ_i/‖w‖) and its ξ_i written
  next to it (up to MAX_SLACK_LABELS points).
For RBF-like kernels f → 0 far from every point, so the band |f| < δ also reaches out there and the
margin curves can enclose the data from outside: that is the level set, drawn as it is.

Mouse: left click places a point of `current_class`; right click or shift+click places a − point;
dragging a point moves it (one undo step); ctrl+click removes the nearest point; Delete/Backspace
removes the hovered (else nearest) point; dragging elsewhere pans, the wheel zooms. Every edit goes
through the `SceneModel`.

While snapshots arrive quickly (animation) the image is computed on a coarse grid, and refined once
they stop; every redraw is coalesced to one evaluation per event-loop turn.
"""

from __future__ import annotations

import time

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QEvent, QObject, QPointF, QRectF, Qt, QTimer, Signal
from PySide6.QtGui import QColor, QFontMetrics, QPainterPath, QPen
from PySide6.QtWidgets import QGraphicsRectItem, QGraphicsSimpleTextItem, QHBoxLayout, QLabel, QToolButton, QVBoxLayout, QWidget

from percviz.app.run.background import Task
from percviz.app.panels.canvas_layers import CanvasLayer
from percviz.app.panels.canvas_viewbox import CanvasViewBox, PassiveScatter
from percviz.app.panels.curves import nice_ceil
from percviz.app.panels.panel import Panel, decision_drawable
from percviz.app.panels.point_decimation import PointDecimator
from percviz.app.theme import Theme, theme_for
from percviz.core.decision import FeatureLinear, KernelExpansion, ZeroDecision
from percviz.core.glossary import MARGINS, margin_text
from percviz.core.margin_geometry import certificate_scale as _certificate_scale
from percviz.core.grid import GridEvaluator, ViewGrid, contour_lines, line_in_rect, sample_image
from percviz.core.margin_geometry import closest_margin, slacks
from percviz.core.scene import SceneModel
from percviz.core.solvers.base import Status

#: Grid resolution (cells along the longer side of the view) when paused and while animating.
FINE_RESOLUTION = 256
COARSE_RESOLUTION = 128
#: Snapshots closer together than this (seconds) count as an animation: coarse grid, refined later.
ANIMATION_GAP = 0.25
#: Evaluations costlier than this (multiply-adds: cells × feature dimension, or point rows) run on a Task, off the
#: UI thread (issue 10: rff:dim=5000 on a 256² grid is ~0.25 s of UI-thread CPU); the old picture stays meanwhile.
BACKGROUND_WORK = 2e7
#: While a point is dragged its new position waits up to this long (seconds) for its rerun's boundary, so that
#: a Live drag repaints the canvas once per move (point and boundary together), not twice.
DRAG_POINT_WAIT = 0.03
#: Contours with more vertices than this are drawn without antialiasing: an antialiased stroke of a 12,000-vertex
#: boundary (rff:dim=5000) took 230–450 ms per paint on the UI thread, an aliased one ~15 ms.
SMOOTH_VERTICES = 3000
#: Points within this many pixels of the cursor can be dragged, hovered or deleted.
PICK_PIXELS = 14
#: The image covers the visible range plus this fraction on each side, so small pans show no seam.
IMAGE_PAD = 0.15
#: Halo sizes are rounded to this many steps (a handful of distinct symbols to render).
HALO_STEPS = 8
#: Above FEW_HALOS halos they grow less with the weight, and less again above DENSE_HALOS (they would hide the points).
FEW_HALOS, DENSE_HALOS = 24, 300
#: At most this many halos, the heaviest (a 100,000-point SNKP run weighs every point; 100k discs stall a frame).
MAX_HALOS = 2000
#: The colour map's range is at most ±LEVEL_LIMIT (the image is float32; nice_ceil must stay finite).
LEVEL_LIMIT = 1e37
#: At most this many slack values ξ_i are written on the canvas (the largest ones).
MAX_SLACK_LABELS = 10


def _bold_symbols() -> dict[str, QPainterPath]:
    """A bolder "+" and "−" than pyqtgraph's, readable from the back of a lecture hall."""
    plus = QPainterPath()
    a, b = 0.5, 0.17
    pts = [(-a, -b), (-b, -b), (-b, -a), (b, -a), (b, -b), (a, -b), (a, b), (b, b), (b, a), (-b, a), (-b, b), (-a, b)]
    plus.moveTo(*pts[0])
    for p in pts[1:]:
        plus.lineTo(*p)
    plus.closeSubpath()
    minus = QPainterPath()
    minus.addRect(QRectF(-0.5, -0.17, 1.0, 0.34))
    return {"+": plus, "_": minus}


#: The preset's colour maps (percviz.core.presets.COLORMAPS) other than the theme's own "diverging".
NAMED_COLORMAPS = {"diverging-cb": "CET-D1A", "viridis": "viridis", "cividis": "cividis"}


def _named_colormap(name: str, t) -> pg.ColorMap:
    """The decision-function colour map a preset names ("diverging": the theme's, blended with the background)."""
    if name == "gray":
        return pg.ColorMap([0.0, 1.0], [(40, 40, 40), (235, 235, 235)])
    if name in NAMED_COLORMAPS:
        return pg.colormap.get(NAMED_COLORMAPS[name])
    return _blended_colormap(t)


def _blended_colormap(t) -> pg.ColorMap:
    """The theme's diverging map mixed with the background at the theme's map opacity (drawn opaque: faster)."""
    bg = np.array(QColor(t.background).getRgb()[:3], dtype=float)
    a = t.map_alpha / 255.0
    cols = [np.array(QColor(c).getRgb()[:3], dtype=float) * a + bg * (1 - a) for c in t.diverging]
    return pg.ColorMap(np.linspace(0.0, 1.0, len(cols)), [tuple(int(round(v)) for v in c) for c in cols])


def stepped_level(current: float | None, largest: float) -> float:
    """The colour map's range ±L: a "nice" number ≥ the largest |f(x_i)|, kept while it stays within a factor 2.

    A colour scale that does not change every frame is easier to read while animating, and the colour bar
    (its gradient and axis) is then not redrawn each frame."""
    largest = min(largest, LEVEL_LIMIT)  # a diverging f (1e308) must not give an infinite colour scale
    if current is not None and 0.5 * current <= largest <= current:
        return current
    return nice_ceil(largest)


def _superscript(k: int) -> str:
    return str(k).translate(str.maketrans("-0123456789", "⁻⁰¹²³⁴⁵⁶⁷⁸⁹"))


def _spot_hash(X: np.ndarray, cls: np.ndarray) -> np.ndarray:
    """A 64-bit hash of each drawn spot's (x, y, class) bits, to match spots across an edit."""
    bits = np.ascontiguousarray(X, dtype=np.float64).view(np.uint64).reshape(-1, 2)
    with np.errstate(over="ignore"):
        h = bits[:, 0] * np.uint64(0x9E3779B97F4A7C15) ^ bits[:, 1] * np.uint64(0xC2B2AE3D27D4EB4F)
        return h ^ (np.asarray(cls, dtype=np.uint64) * np.uint64(0x165667B19E3779F9))


class CanvasView(QWidget, Panel):
    """The plane: points of the scene and the decision function of the snapshot shown."""

    view = "canvas"  # drawn in the snapshot frame (redraw_interval None), in the central area
    pointHovered = Signal(int)
    cursorMoved = Signal(float, float)

    def __init__(self, scene: SceneModel, parent=None, theme: Theme | None = None):
        super().__init__(parent)
        self.setObjectName("canvas")
        self.setAccessibleName("canvas")
        self.scene_model = scene
        self.current_class = 0
        self.theme = theme or theme_for()
        self.evaluator = GridEvaluator()
        self.problem = None
        self.solver_cls = None
        self.snapshot = None
        #: A preset's view settings the canvas applies (percviz.core.presets.ViewSettings, `apply_view`).
        self.view_settings = {"colormap": "diverging", "levels": (0.0,), "shading": True, "halos": True}
        #: Drawings added by other modules (percviz.app.panels.canvas_layers.CanvasLayer), above the decision function.
        self.layers: list[CanvasLayer] = []
        self._hovered = -1
        self._external_highlight: int | None = None
        self._last_cursor: tuple[float, float] | None = None
        self._last_snapshot_time = -1.0
        self._animating = False
        self._drawn_key: tuple | None = None
        self._bg_task: Task | None = None  # the picture computed off the UI thread, and the next one wanted
        self._bg_wanted: tuple | None = None
        self._bg_cancelled: list[Task] = []  # cancelled pictures whose threads may still run (shutdown waits)
        self._sync_draw = False
        self.picture_of: tuple | None = None
        self._image_mode = ""  # "map" (diverging colour map) or "regions" (multi-class RGBA)
        self._draw_failed = False
        self._halo_key: tuple | None = None
        self._map_level: float | None = None
        self._level_fixed = False  # fix_colour_scale: the map's range no longer follows the snapshot
        self._redraw_pending = False
        self._keep_picture = False  # the next set_problem keeps the picture (keep_picture)
        self._has_picture = False  # a snapshot's picture is drawn (cleared by set_problem)
        self._symbols = _bold_symbols()
        self.last_redraw_ms = 0.0
        self.fine_resolution, self.coarse_resolution = FINE_RESOLUTION, COARSE_RESOLUTION
        self._build()
        scene.points_changed.connect(self._on_points_changed)
        self._refine = QTimer(self)
        self._refine.setSingleShot(True)
        self._refine.setInterval(int(ANIMATION_GAP * 1000))
        self._refine.timeout.connect(self._on_refine)
        self._points_wait = QTimer(self)
        self._points_wait.setSingleShot(True)
        self._points_wait.setInterval(int(DRAG_POINT_WAIT * 1000))
        self._points_wait.timeout.connect(self._draw_moved_points)
        self.apply_theme(self.theme)
        self._draw_points()
        self.fit_to_data()

    # -- construction -------------------------------------------------------------------------
    def _build(self) -> None:
        self.viewbox = CanvasViewBox(self.scene_model, self._pick, self._on_click)
        self.plot = pg.PlotWidget(viewBox=self.viewbox, antialias=True)
        self.plot.setObjectName("canvas-plot")
        self.plot.setFocusPolicy(Qt.FocusPolicy.StrongFocus)
        self.plot.setMouseTracking(True)
        self.plot.viewport().setCursor(Qt.CursorShape.CrossCursor)
        item = self.plot.getPlotItem()
        item.setMenuEnabled(False)
        item.hideButtons()
        item.setLabel("bottom", "x₁")
        item.setLabel("left", "x₂")
        item.showGrid(x=False, y=False)

        self.image = pg.ImageItem(axisOrder="row-major")
        self.image.setZValue(-10)
        self.plot.addItem(self.image)
        self.colorbar = pg.ColorBarItem(values=(-1.0, 1.0), interactive=False, width=14)
        self.colorbar.axis.enableAutoSIPrefix(False)
        self.colorbar.setImageItem(self.image, insert_in=item)

        self.margin_curve = pg.PlotCurveItem(connect="finite", antialias=True)
        # a wider band of the background colour under the dashed margins: visible over any colour map
        self.margin_under = pg.PlotCurveItem(connect="finite", antialias=True)
        self.margin_curve.sigPlotChanged.connect(self._copy_margins)
        self.boundary_curve = pg.PlotCurveItem(connect="finite", antialias=True)
        self.level_curve = pg.PlotCurveItem(connect="finite", antialias=True)  # a preset's extra levels of f
        self.slack_curve = pg.PlotCurveItem(connect="pairs", antialias=True)
        self.slack_labels: list[pg.TextItem] = []
        self._slacks_shown = 0  # how many of them _set_slacks wrote
        self._bar_labels: list[str] = []  # the colour bar's name, longest first (_fit_bar_label)
        # halos: one scatter per class (and one for p of a certificate), so pen and brush are scalars
        self.halo_items = [PassiveScatter(pxMode=True) for _ in range(7)]
        self.points_item = PassiveScatter(pxMode=True)
        self._decimator, self._shown_points = PointDecimator(), None
        self._drawn_for = None  # the coordinate array the points item shows
        self._drawn_spots = None  # (positions, classes, style, hashes) of the points item's spots, in its order
        self.trigger_ring = PassiveScatter(pxMode=True)
        self.hover_ring = PassiveScatter(pxMode=True)
        for z, it in enumerate((self.level_curve, self.margin_under, self.margin_curve, self.boundary_curve,
                                self.slack_curve, *self.halo_items)):
            it.setZValue(z)
            self.plot.addItem(it)
        for z, it in enumerate((self.points_item, self.trigger_ring, self.hover_ring)):
            it.setZValue(20 + z)
            self.plot.addItem(it)

        # a screen-fixed overlay (top left): iteration, status and margin of the snapshot shown
        self.overlay_box = QGraphicsRectItem()
        self.overlay_box.setParentItem(self.viewbox)
        self.overlay_box.setZValue(99)
        self.overlay_box.setPen(QPen(Qt.PenStyle.NoPen))
        self.overlay = QGraphicsSimpleTextItem()
        self.overlay.setParentItem(self.viewbox)
        self.overlay.setPos(12, 8)
        self.overlay.setZValue(100)

        self.fit_button = QToolButton(self)
        self.fit_button.setText("Fit to data")
        self.fit_button.setToolTip("Zoom so that every point is visible")
        self.fit_button.setAccessibleName("fit to data")
        self.fit_button.clicked.connect(self.fit_to_data)
        self.message = QLabel(self)
        self.message.setWordWrap(True)
        self.message.hide()

        bar = QHBoxLayout()
        bar.setContentsMargins(4, 2, 4, 0)
        self.title = QLabel("Decision function  f(x)")
        bar.addWidget(self.title)
        bar.addStretch(1)
        self.header = bar  # the title row: the run caption goes there when no corner of the plot is free
        bar.addWidget(self.fit_button)
        lay = QVBoxLayout(self)
        lay.setContentsMargins(0, 0, 0, 0)
        lay.setSpacing(0)
        lay.addLayout(bar)
        lay.addWidget(self.message)
        lay.addWidget(self.plot, 1)

        self.plot.scene().sigMouseMoved.connect(self._on_mouse_moved)
        self._skip_hover_while_dragging(self.plot.scene())
        self.viewbox.sigRangeChanged.connect(self._on_range_changed)
        self.viewbox.sigResized.connect(lambda *_: (self._declutter_slacks(self._slacks_shown), self._fit_bar_label()))
        for w in (self.plot, self.plot.viewport()):
            w.installEventFilter(self)

    def _skip_hover_while_dragging(self, scene) -> None:
        """pyqtgraph looks for the items under the cursor on every mouse move (hover events, which no item may
        accept mid-drag); while a point is dragged that search is skipped (our own hover is `_on_mouse_moved`)."""
        send = scene.sendHoverEvents

        def send_hover(ev, exitOnly=False):  # noqa: N803 (pyqtgraph's name)
            if not (self.scene_model.dragging and not exitOnly):
                send(ev, exitOnly)

        scene.sendHoverEvents = send_hover

    # -- the panel contract ----------------------------------------------------------------------------
    @classmethod
    def supports(cls, solver_cls) -> tuple[bool, str]:
        if solver_cls is None or "canvas" in solver_cls.views:
            return True, ""
        return False, f"{solver_cls.display_name} has no picture in the plane."

    def add_layer(self, layer: CanvasLayer) -> None:
        """Draw `layer` on the canvas from now on (percviz.app.panels.canvas_layers)."""
        self.layers.append(layer)
        layer.attach(self)
        layer.apply_theme(self.theme)
        layer.set_problem(self.problem, self.solver_cls)
        layer.draw(self.snapshot)

    def keep_picture(self) -> None:
        """The next new problem keeps the picture drawn until its first snapshot replaces it (Live's rerun)."""
        self._keep_picture = True

    def set_problem(self, problem, solver_cls) -> None:
        """A new problem (or None): forget the old run's picture (kept while a point is dragged: no blank frame)."""
        keep = problem is not None and self._has_picture and (
            self.scene_model.dragging or self._keep_picture)
        self._keep_picture = False
        multi_before = getattr(self.solver_cls, "representation", "") == "multiclass"
        self.problem, self.solver_cls = problem, solver_cls
        if multi_before != (getattr(solver_cls, "representation", "") == "multiclass"):
            self._draw_points()  # the classes' shapes: 1, 2, 3… for a multi-class machine, + and − otherwise
        self._level_fixed = False
        ok, why = self.supports(solver_cls)
        self.message.setText(why)
        self.message.setVisible(not ok)
        if keep and ok:  # `snapshot` stays what is drawn until the new run's first one
            for layer in self.layers:
                layer.set_problem(problem, solver_cls)
            return
        self.snapshot = None
        self._cancel_evaluation()
        self._drawn_key = None
        self._map_level = None
        self._has_picture = False
        for it in (self.margin_curve, self.margin_under, self.boundary_curve, self.level_curve):
            it.setData([], [])
        self._set_slacks(np.zeros((0, 2)), np.zeros((0, 2)), np.zeros(0))
        self._clear_halos()
        self._halo_key = None
        self.trigger_ring.setData([])
        self.image.clear()
        self.overlay.setText("")
        self._fit_overlay_box()
        for layer in self.layers:
            layer.set_problem(problem, solver_cls)
            layer.draw(None)

    def set_snapshot(self, snapshot) -> None:
        """Show this snapshot (drawn on the next event-loop turn; bursts are coalesced)."""
        now = time.perf_counter()
        self._animating = now - self._last_snapshot_time < ANIMATION_GAP
        self._last_snapshot_time = now
        self.snapshot = snapshot
        self._schedule()

    def set_history(self, snapshots) -> None:  # the canvas shows only the current snapshot
        pass

    def apply_view(self, view) -> None:
        """A preset's colour map, extra level curves of f, shading and halos (percviz.core.presets.ViewSettings)."""
        self.level_curve.setData([], [])
        self.view_settings = {"colormap": view.colormap, "levels": tuple(view.levels), "shading": bool(view.shading),
                              "halos": bool(view.halos)}
        self._image_mode = ""
        self._drawn_key = None
        self.apply_theme(self.theme)  # restyles the colour map and redraws

    def highlight_point(self, index) -> None:
        """Ring a point hovered in another panel (None or −1: none)."""
        self._external_highlight = None if index is None or index < 0 else int(index)
        self._draw_hover()

    def apply_theme(self, theme) -> None:
        self.theme = theme
        for layer in self.layers:
            layer.apply_theme(theme)
        t = theme
        old, sig = getattr(self, "_styles", None), self._point_style_key(t)
        self._styles = self._make_styles(t)
        if old is not None and getattr(self, "_point_sig", None) == sig:  # the same look: the drawn spots stay
            self._styles["point_brushes"], self._styles["point_pen"] = old["point_brushes"], old["point_pen"]
        self._point_sig = sig
        self._styles["colormap"] = _named_colormap(self.view_settings["colormap"], t)
        self._image_mode = ""
        self.plot.setBackground(t.background)
        item = self.plot.getPlotItem()
        font = t.font()
        label_style = {"color": t.foreground, "font-size": f"{t.font_pt:.0f}pt"}
        t.style_axes([item.getAxis("left"), item.getAxis("bottom"), self.colorbar.axis])
        item.setLabel("bottom", "x₁", **label_style)
        item.setLabel("left", "x₂", **label_style)
        self.colorbar.setColorMap(_named_colormap(self.view_settings["colormap"], t))
        self.colorbar.axis.setLabel("f(x)", **label_style)
        self._bar_shown = None  # (levels, label) the colour bar shows
        fm = QFontMetrics(font)
        self.colorbar.axis.setWidth(fm.horizontalAdvance("−0.000") + 1.2 * fm.height() + 8)
        self.boundary_curve.setPen(pg.mkPen(t.boundary, width=1.5 * t.line_width, cap=Qt.PenCapStyle.RoundCap))
        width = max(1.5, 1.5 * t.thin_line_width)
        self.margin_curve.setPen(pg.mkPen(t.margin, width=width, style=Qt.PenStyle.DashLine, cap=Qt.PenCapStyle.FlatCap))
        under = QColor(t.background)
        under.setAlpha(150)
        self.margin_under.setPen(pg.mkPen(under, width=width + 2 * max(1.0, t.scale)))
        self.slack_curve.setPen(pg.mkPen(t.foreground, width=max(1.0, 0.75 * t.line_width)))
        self.level_curve.setPen(pg.mkPen(t.foreground, width=max(1.0, 0.75 * t.line_width), style=Qt.PenStyle.DotLine))
        for label in self.slack_labels:
            label.setColor(t.foreground)
            label.setFont(t.font(0.85 * t.font_pt))
            label.fill = pg.mkBrush(self._label_fill(t))
        self.overlay.setFont(t.font(t.font_pt * 1.15, bold=True))
        self.overlay.setBrush(QColor(t.foreground))
        box = QColor(t.background)
        box.setAlpha(215)
        self.overlay_box.setBrush(box)
        self._fit_overlay_box()
        self.title.setFont(t.font(t.font_pt, bold=True))
        self.message.setFont(t.font())
        self.fit_button.setFont(t.font())
        self.fit_button.setText("Fit" if t.scale > 1 else "Fit to data")  # presenting: room for the caption (key F)
        self._drawn_key = None
        self._draw_points()
        self._schedule()

    @staticmethod
    def _point_style_key(t) -> tuple:
        """What the points' pens and brushes are made from (percviz.app.panels.canvas._make_styles)."""
        return tuple(QColor(t.class_color(k)).rgba() for k in range(6)) + (QColor(t.foreground).rgba(), t.scale)

    @staticmethod
    def _make_styles(t) -> dict:
        """Pens and brushes made once per theme (pyqtgraph caches rendered symbols by pen/brush identity)."""
        def rgba(c, a):
            q = QColor(c)
            return (q.red(), q.green(), q.blue(), a)

        w = max(1.0, t.scale)
        hl = QColor(t.highlight)
        return {
            "halo_brushes": [pg.mkBrush(*rgba(t.class_color(k), 48)) for k in range(6)],
            "halo_pens": [pg.mkPen(*rgba(t.class_color(k), 170), width=w) for k in range(6)],
            "cert_brush": pg.mkBrush(hl.red(), hl.green(), hl.blue(), 90),
            "cert_pen": pg.mkPen(hl, width=w),
            "point_brushes": [pg.mkBrush(t.class_color(k)) for k in range(6)],
            "point_pen": pg.mkPen(*rgba(t.foreground, 210), width=max(1.0, 0.8 * t.scale)),
            "ring_pen": pg.mkPen(t.highlight, width=1.5 * t.line_width),
            "colormap": _blended_colormap(t),
            "hover_pen": pg.mkPen(t.foreground, width=t.thin_line_width, style=Qt.PenStyle.DotLine),
        }

    # -- view -------------------------------------------------------------------------------------------
    def fit_to_data(self) -> None:
        """Zoom so that every point is visible with some room around it."""
        X = self.scene_model.points.X
        if len(X) == 0:
            self.viewbox.setRange(xRange=(-3, 3), yRange=(-3, 3), padding=0)
            return
        lo, hi = X.min(axis=0), X.max(axis=0)
        centre, half = (lo + hi) / 2, np.maximum((hi - lo) / 2, 1.0) * 1.2
        self.viewbox.setRange(
            xRange=(centre[0] - half[0], centre[0] + half[0]), yRange=(centre[1] - half[1], centre[1] + half[1]), padding=0
        )

    def view_range(self) -> tuple[float, float, float, float]:
        """The visible rectangle (x_min, x_max, y_min, y_max), e.g. to save with a preset."""
        (x0, x1), (y0, y1) = self.viewbox.viewRange()
        return float(x0), float(x1), float(y0), float(y1)

    def set_view_range(self, x_min: float, x_max: float, y_min: float, y_max: float) -> None:
        self.viewbox.setRange(xRange=(x_min, x_max), yRange=(y_min, y_max), padding=0)

    def set_current_class(self, cls: int) -> None:
        """The class a plain left click places (0 is "+")."""
        self.current_class = int(cls)

    def redraw_now(self) -> None:
        """Draw the current snapshot at full resolution now (tests, screenshots)."""
        self._animating = False
        self._redraw_pending = False
        self._sync_draw = True
        try:
            self._redraw(fine=True)
        finally:
            self._sync_draw = False

    # -- drawing -----------------------------------------------------------------------------------------
    def _schedule(self) -> None:
        if not self._redraw_pending:
            self._redraw_pending = True
            QTimer.singleShot(0, self._on_scheduled)

    def _on_scheduled(self) -> None:
        if self._redraw_pending and not getattr(self, "_redraw_held", False):
            self._redraw_pending = False
            self._redraw()

    def hold_redraw(self) -> None:
        """The queued redraw waits for release_redraw (a window relayout under way: drawn once, at its end)."""
        self._redraw_held = True

    def release_redraw(self) -> None:
        self._redraw_held = False
        if self._redraw_pending:  # a relayout's size, not a zoom: drawn fine at once (no coarse pass, no refine)
            self._animating = False
            self._refine.stop()
            self._redraw_pending = False
            self._redraw(fine=True)

    def _on_refine(self) -> None:
        self._animating = False
        self._redraw(fine=True)

    def _grid(self, resolution: int) -> ViewGrid:
        (x0, x1), (y0, y1) = self.viewbox.viewRange()
        px, py = IMAGE_PAD * (x1 - x0), IMAGE_PAD * (y1 - y0)
        # snap the rectangle to a lattice so that panning back and forth reuses the cached rows
        step = max(x1 - x0, y1 - y0) / 16
        x0, x1 = np.floor((x0 - px) / step) * step, np.ceil((x1 + px) / step) * step
        y0, y1 = np.floor((y0 - py) / step) * step, np.ceil((y1 + py) / step) * step
        return ViewGrid.fit(float(x0), float(x1), float(y0), float(y1), resolution)

    def _redraw(self, fine: bool = False) -> None:
        snap = self.snapshot
        if snap is None:
            return
        t0 = time.perf_counter()
        self._draw_moved_points()  # a dragged point's move waiting for this boundary: both in one repaint
        # while animating or dragging a point: coarse now, refined once nothing new came for ANIMATION_GAP
        coarse = not fine and (self._animating or self.scene_model.dragging)
        # a dragged point's lines are drawn without antialiasing (stroking them smooth was a third of a Live
        # drag's repaint); the refinement draws them smooth again
        self._smooth_lines(not (coarse and self.scene_model.dragging))
        grid = self._grid(self.coarse_resolution if coarse else self.fine_resolution)
        key = (id(snap), grid.key, id(self.theme))
        self._has_picture = True
        if key != self._drawn_key:
            self._draw_decision(snap, grid, background=not self._sync_draw)
            self._drawn_key = key
        if self.view_settings["halos"]:
            self._draw_weights(snap)
        else:
            self._clear_halos()
            self._halo_key = None
        self._draw_triggers(snap)
        self._draw_overlay(snap)
        for layer in self.layers:
            layer.draw(snap)
        if coarse:
            self._refine.start()
        self.last_redraw_ms = 1e3 * (time.perf_counter() - t0)

    def _smooth_lines(self, on: bool) -> None:
        """Antialiased boundary, margin, level and slack lines (on), or plain ones (while a point is dragged)."""
        self._lines_smooth = on
        for c in (self.margin_curve, self.margin_under, self.boundary_curve, self.level_curve, self.slack_curve):
            self._smooth_line(c)

    def _smooth_line(self, curve) -> None:
        """Antialias one line item unless a point is dragged or it has more than SMOOTH_VERTICES vertices."""
        x = curve.xData
        on = getattr(self, "_lines_smooth", True) and (x is None or len(x) <= SMOOTH_VERTICES)
        if curve.opts["antialias"] != on:
            curve.opts["antialias"] = on
            curve.update()

    def _draw_decision(self, snap, grid: ViewGrid, background: bool = False) -> None:
        d = snap.decision
        if not decision_drawable(d):  # a diverged iterate: say so, draw nothing of it
            self.message.setText("The iterate diverged (its coefficients are not finite or too large): nothing to draw.")
            self.message.show()
            self._draw_failed = True
            return
        X, _y = self._training_points()
        preview = self._animating and len(X) > 300
        if background and evaluation_work(d, grid, len(X)) > BACKGROUND_WORK:
            self._evaluate_off(snap, grid, X, preview)
            return
        self._bg_wanted = None  # a cheaper picture supersedes one still computed off the thread
        try:
            grid, F, fx = _evaluate_picture(self.evaluator, d, grid, X, preview)
        except (ArithmeticError, ValueError, MemoryError) as exc:  # e.g. a kernel overflowing far out, the budget
            self._show_failure(exc)
            return
        self._show_decision(snap, grid, F, fx)

    def _show_failure(self, exc) -> None:
        self.message.setText(f"Cannot draw the decision function here: {exc}")
        self.message.show()
        self._draw_failed = True

    @property
    def computing_picture(self) -> bool:
        """A picture is being computed off the UI thread (tests wait for it)."""
        return self._bg_wanted is not None or self._bg_task is not None

    def _evaluate_off(self, snap, grid: ViewGrid, X, preview: bool) -> None:
        """Evaluate on a Task; one at a time, the latest request next (older ones are dropped)."""
        self._bg_wanted = (snap, grid, X, preview)
        if self._bg_task is None:
            self._start_next_evaluation()

    def _start_next_evaluation(self) -> None:
        req, self._bg_wanted = self._bg_wanted, None
        if req is None:
            return
        snap, grid, X, preview = req
        task = Task(self, name="percviz-canvas-picture")
        self._bg_task = task
        # a fresh evaluator: the UI thread's one (and its caches) is never touched from the task's thread
        task.done.connect(lambda out, t=task, r=req: self._on_evaluated(t, r, out))
        task.failed.connect(lambda text, t=task, r=req: self._on_evaluated(t, r, ValueError(text)))
        task.start(_evaluate_or_error, GridEvaluator(), snap.decision, grid, X, preview)

    def _on_evaluated(self, task, req, out) -> None:
        if task is not self._bg_task:
            return
        self._bg_task = None
        snap = req[0]
        if self._bg_wanted is None and snap is self.snapshot:  # still the picture wanted
            if isinstance(out, Exception):
                self._show_failure(out)
            else:
                self._show_decision(snap, *out)
        self._start_next_evaluation()

    def _cancel_evaluation(self) -> Task | None:
        self._bg_wanted = None
        task, self._bg_task = self._bg_task, None
        if task is not None:
            task.cancel()
            self._bg_cancelled = [t for t in self._bg_cancelled if t.running] + [task]
        return task

    def shutdown(self, wait_ms: int = 3000) -> bool:
        """The window closes: drop the picture being computed and wait for its threads (True when none runs)."""
        self._cancel_evaluation()
        end = time.monotonic() + wait_ms / 1000
        return all(t.wait(max(1, int(1000 * (end - time.monotonic())))) for t in self._bg_cancelled)

    def _show_decision(self, snap, grid: ViewGrid, F, fx) -> None:
        d = snap.decision
        self.picture_of = (snap, grid)  # what the image shows (tests compare it with an independent evaluation)
        if self._draw_failed:
            self._draw_failed = False
            self.message.hide()
        if not np.isfinite(F).all():
            big = float(np.finfo(np.float32).max) / 4
            F = np.nan_to_num(F, nan=0.0, posinf=big, neginf=-big)
        rect = QRectF(grid.x_min, grid.y_min, grid.x_max - grid.x_min, grid.y_max - grid.y_min)
        xs, ys = grid.xs, grid.ys
        if F.ndim == 3:
            self._draw_regions(F, rect, xs, ys)
            return
        _X, y = self._training_points()
        L = float(np.max(np.abs(fx))) if len(fx) else 0.0
        if not (np.isfinite(L) and L > 0):
            L = float(np.nanmax(np.abs(F))) if F.size else 1.0
            L = L if np.isfinite(L) and L > 0 else 1.0
        ab = d.affine()
        level = self._margin_level()
        span = float(np.hypot(grid.x_max - grid.x_min, grid.y_max - grid.y_min))
        # a fixed-level (SVM) f that varies by under 1e-6 of its level over the view: w = 0, f constant, no boundary
        flat = level is not None and (L < 1e-6 * level or (ab is not None and np.hypot(ab[0], ab[1]) * span < 1e-6 * level))
        if flat:
            L = max(L, level)
        scale = _certificate_scale(snap)
        cancelled = scale > L  # a certificate's f ≈ 0: coloured on its coefficients' scale, not magnified
        if cancelled:
            L = scale
        if not self._level_fixed:
            self._map_level = stepped_level(self._map_level, L)
        L = self._map_level
        # very small or large values: show f·10^-e on the colour bar, and say so in its label
        e = int(np.floor(np.log10(L)))
        e = max(e if abs(e) >= 3 else 0, -300)  # 10^-e stays finite even for a subnormal L
        shown = _scaled_for_image(F, e)
        self.colorbar.setVisible(self.view_settings["shading"])
        self.image.setVisible(self.view_settings["shading"])
        self.image.setImage(shown, autoLevels=False, levels=(-L * 10.0**-e, L * 10.0**-e))
        if self._image_mode != "map":
            self.image.setColorMap(self._styles["colormap"])
            self._image_mode = "map"
        self.image.setRect(rect)
        label = "f(x)" if e == 0 else f"f(x) × 10{_superscript(-e)}"
        bar = ((-L * 10.0**-e, L * 10.0**-e), f"{label} ≈ 0 (certificate)" if cancelled else label)
        if bar != self._bar_shown:  # the same scale again (most moves of a drag): the bar's axis is not redone
            self._bar_shown = bar
            self.colorbar.setLevels(bar[0])
            self._bar_labels = [bar[1], f"{label} ≈ 0", label] if cancelled else [label]
            self._fit_bar_label()
        if flat or isinstance(d, ZeroDecision) or (ab is not None and ab[0] == 0 and ab[1] == 0):
            self.boundary_curve.setData([], [])
            self.margin_curve.setData([], [])
            self._set_slacks(np.zeros((0, 2)), np.zeros((0, 2)), np.zeros(0))
            return
        big = (grid.x_min - 2 * (grid.x_max - grid.x_min), grid.x_max + 2 * (grid.x_max - grid.x_min),
               grid.y_min - 2 * (grid.y_max - grid.y_min), grid.y_max + 2 * (grid.y_max - grid.y_min))
        if ab is not None:
            self._set_lines(self.boundary_curve, [line_in_rect(ab, 0.0, big)])
        else:
            self._set_lines(self.boundary_curve, [contour_lines(F, 0.0, xs, ys)])
        extra = [v for v in self.view_settings["levels"] if v != 0 and np.isfinite(v)]
        if extra and ab is not None:  # no extra levels (every shipped scene): the curve is never touched
            self._set_lines(self.level_curve, [line_in_rect(ab, v, big) for v in extra])
        elif extra:
            self._set_lines(self.level_curve, [contour_lines(F, v, xs, ys) for v in extra])
        delta, field = self._margin(d, fx, y, F, grid)
        self._draw_slacks(d, ab, fx, y)
        if delta is None:
            self.margin_curve.setData([], [])
        elif ab is not None:
            self._set_lines(self.margin_curve, [line_in_rect(ab, s * delta, big) for s in (1, -1)])
        else:
            self._set_lines(self.margin_curve, [contour_lines(field, s * delta, xs, ys) for s in (1, -1)])

    def _fit_bar_label(self) -> None:
        """The colour bar's name: the longest of its forms that fits the bar's height (at 3× 'f(x) ≈ 0 (cert…' was
        cut), the whole one in the bar's tooltip."""
        if not self._bar_labels:
            return
        axis = self.colorbar.axis
        room = axis.size().height() - 4
        for text in self._bar_labels:  # measured as drawn (its rich text's own size, not the axis font's)
            if text != axis.labelText:
                axis.setLabel(text)
            if axis.label.boundingRect().width() <= room:
                break
        axis.resizeEvent()  # pyqtgraph centres an axis's name only on a resize: the longer name hung off the top
        self.colorbar.setToolTip(self._bar_labels[0])

    def fix_colour_scale(self, largest: float) -> None:
        """Keep the colour map at ±(a nice number ≥ largest) until the next problem (an animation's frames)."""
        if np.isfinite(largest) and largest > 0:
            self._map_level, self._level_fixed = nice_ceil(min(largest, LEVEL_LIMIT)), True
            self._drawn_key = None

    def _margin(self, d, fx, y, F, grid):
        """(δ, field): margin lines are {field = ±δ}; δ None when some training point is not strictly on its side."""
        if y is None or len(fx) == 0:
            return None, None
        level = self._margin_level()
        if level is not None:
            return level, F
        field = F
        g = fx
        if isinstance(d, KernelExpansion) and d.affine() is None and not getattr(d.kernel, "unit_diagonal", False):
            X, _ = self._training_points()
            g = fx / np.sqrt(np.asarray(d.kernel.diag(X), dtype=float))
            field = F / self.evaluator.kernel_diag(d.kernel, grid)
        delta = closest_margin(g, y)
        return (delta, field) if delta is not None else (None, None)

    def _copy_margins(self, curve) -> None:
        x, y = curve.getData()
        self.margin_under.setData([] if x is None else x, [] if y is None else y, connect="finite")
        self._smooth_line(self.margin_under)

    def _margin_level(self) -> float | None:
        """The solver's fixed margin level (SVM: f = ±1), or None when margins follow the closest point."""
        level = None if self.solver_cls is None else self.solver_cls.margin_level
        return float(level) if level is not None and level > 0 else None

    def _draw_slacks(self, d, ab, fx, y) -> None:
        """Slacks ξ_i = max(0, level − y_i f(x_i)) of a fixed-level (SVM) run: segments (affine f) and values."""
        level = self._margin_level()
        if level is None or y is None or len(fx) != len(y) or self._animating and len(fx) > 300:
            self._set_slacks(np.zeros((0, 2)), np.zeros((0, 2)), np.zeros(0))
            return
        X, _ = self._training_points()
        self._set_slacks(*slacks(X, y, fx, level, ab))

    def _set_slacks(self, starts: np.ndarray, ends: np.ndarray, values: np.ndarray) -> None:
        if len(starts) and np.any(starts != ends):
            P = np.empty((2 * len(starts), 2))
            P[0::2], P[1::2] = starts, ends
            self.slack_curve.setData(P[:, 0], P[:, 1], connect="pairs")
            self._smooth_line(self.slack_curve)
        else:
            self.slack_curve.setData([], [])
        order = np.argsort(-values)[:MAX_SLACK_LABELS]
        t = self.theme
        while len(self.slack_labels) < len(order):
            label = pg.TextItem(color=t.foreground, anchor=(-0.15, 1.0), fill=self._label_fill(t))
            label.setFont(t.font(0.85 * t.font_pt))
            label.setZValue(19)
            self.plot.addItem(label, ignoreBounds=True)
            self.slack_labels.append(label)
        for j, label in enumerate(self.slack_labels):
            if j < len(order):
                i = order[j]
                label.setText(f"ξ={values[i]:.2g}")
                label.setPos(float(starts[i, 0]), float(starts[i, 1]))
                label.show()
            else:
                label.hide()
        self._slacks_shown = len(order)
        self._declutter_slacks(len(order))

    #: Where a ξ label may sit by its point (TextItem anchors): right-above first, then left-above, below.
    SLACK_ANCHORS = ((-0.15, 1.0), (1.15, 1.0), (-0.15, 0.0), (1.15, 0.0))

    def _declutter_slacks(self, shown: int) -> None:
        """Largest ξ first, each label by its point where it covers no label placed before it, else hidden (at
        2× the XOR soft margin's "ξ=1.2" sat under "ξ=0.96")."""
        taken: list[QRectF] = []
        markers = self._marker_rects()  # (scene pixels) a label never hides another point's marker
        inside = self.viewbox.sceneBoundingRect()  # nor is it cut at the view's edge ('ξ=0.0003…')
        for label in self.slack_labels[:shown]:
            at = self.viewbox.mapViewToScene(label.pos())
            others = [m for m in markers if not m.contains(at)]  # its own point's marker: the label is by it
            for anchor in self.SLACK_ANCHORS:
                label.setAnchor(anchor)
                rect = label.mapRectToScene(label.boundingRect())  # where it is drawn, its padding included
                if inside.contains(rect) and not any(rect.intersects(r) for r in taken) \
                        and not any(rect.intersects(m) for m in others):
                    label.show()
                    taken.append(rect)
                    break
            else:
                label.hide()

    #: Above this many points the ξ labels are placed against each other only (a marker test per point is too slow).
    SLACK_MARKER_CAP = 2000

    def _marker_rects(self) -> list[QRectF]:
        """The scene-pixel boxes of the markers in view (none above SLACK_MARKER_CAP points)."""
        pts = self.scene_model.points
        if pts.n == 0 or pts.n > self.SLACK_MARKER_CAP:
            return []
        (x0, x1), (y0, y1) = self.viewbox.viewRange()
        X = pts.X[(pts.X[:, 0] >= x0) & (pts.X[:, 0] <= x1) & (pts.X[:, 1] >= y0) & (pts.X[:, 1] <= y1)]
        r = 0.5 * self.theme.marker_size * 1.35 * 0.8  # a little inside the drawn marker: labels may touch its rim
        out = []
        for x, y in X:
            c = self.viewbox.mapViewToScene(QPointF(float(x), float(y)))
            out.append(QRectF(c.x() - r, c.y() - r, 2 * r, 2 * r))
        return out

    @staticmethod
    def _label_fill(t) -> QColor:
        c = QColor(t.background)
        c.setAlpha(190)
        return c

    def slack_data(self) -> tuple[np.ndarray, list[str]]:
        """The slack segments drawn ((2m, 2): start, end, ...) and the ξ labels shown (for tests and tools)."""
        x, y = self.slack_curve.getData()
        segs = np.zeros((0, 2)) if x is None else np.column_stack([x, y])
        return segs, [label.textItem.toPlainText() for label in self.slack_labels if label.isVisible()]

    def _draw_regions(self, F: np.ndarray, rect: QRectF, xs, ys) -> None:
        """Multi-class: argmax regions in light class colours, darker where the winner is clear; boundaries."""
        t = self.theme
        F = np.asarray(F, dtype=np.float64)  # float32 scores near its max overflowed in their differences (soak)
        c = F.shape[0]
        part = np.partition(F, c - 2, axis=0) if c >= 2 else F
        gap = part[-1] - part[-2] if c >= 2 else np.zeros(F.shape[1:])
        scale = float(np.percentile(gap, 95)) or 1.0
        strength = 0.18 + 0.30 * np.clip(gap / scale, 0.0, 1.0)
        labels = F.argmax(axis=0)
        bg = np.array(QColor(t.background).getRgb()[:3], dtype=np.float32)
        cols = np.array([QColor(t.class_color(k)).getRgb()[:3] for k in range(c)], dtype=np.float32)
        rgb = bg + (cols[labels] - bg) * strength[..., None]
        rgba = np.concatenate([rgb, np.full(labels.shape + (1,), 255, np.float32)], axis=-1).astype(np.uint8)
        self.colorbar.hide()
        self.image.setVisible(self.view_settings["shading"])
        self.image.setLookupTable(None)
        self._image_mode = "regions"
        self.image.setImage(rgba, autoLevels=False, levels=(0, 255))
        self.image.setRect(rect)
        segs = []
        for k in range(c):
            others = np.delete(F, k, axis=0).max(axis=0)
            segs.append(contour_lines(F[k] - others, 0.0, xs, ys))
        self._set_lines(self.boundary_curve, segs)
        self.margin_curve.setData([], [])

    def _set_lines(self, curve, pieces: list[np.ndarray]) -> None:
        """Draw polylines (each (k, 2), NaN rows allowed between parts) as one curve."""
        parts = []
        for P in pieces:
            if len(P):
                parts += [P, np.full((1, 2), np.nan)]
        if not parts:
            curve.setData([], [])
        else:
            P = np.concatenate(parts[:-1])
            curve.setData(P[:, 0], P[:, 1], connect="finite")
        self._smooth_line(curve)

    def _training_points(self):
        """Points of the problem being run and their ±1 labels (labels None for multi-class)."""
        if self.problem is None:
            return np.zeros((0, 2)), None
        pts = self.problem.points
        y = pts.y if pts.n and pts.classes.max() <= 1 else None
        return pts.X, y

    def _weights(self, snap):
        """Halo weights: p_i for a certificate, else α_i; None when they do not match the points."""
        w = snap.p if snap.status == Status.CERTIFICATE and snap.p is not None else snap.alpha
        if w is None or self.problem is None or len(w) != self.problem.n or self.problem.n != self.scene_model.n:
            return None, False
        return np.asarray(w, dtype=float), snap.status == Status.CERTIFICATE

    def _draw_weights(self, snap) -> None:
        w, certificate = self._weights(snap)
        if w is None or not np.any(w > 0):
            keep, rel = np.zeros(0, dtype=np.int64), np.zeros(0)
        else:
            keep = np.flatnonzero(w > 1e-3 * w.max())
            if len(keep) > MAX_HALOS:
                keep = np.sort(keep[np.argpartition(w[keep], -MAX_HALOS)[-MAX_HALOS:]])
            # halo area grows like the weight, in HALO_STEPS steps: pyqtgraph caches the few symbols, and
            # a frame whose rounded sizes did not change redraws no halo
            rel = np.ceil(np.sqrt(w[keep] / w.max()) * HALO_STEPS) / HALO_STEPS
        key = (keep.tobytes(), rel.tobytes(), certificate, id(self.theme), self.scene_model.points.X.tobytes())
        if key == self._halo_key:
            return
        self._halo_key = key
        self._clear_halos()
        if len(keep) == 0:
            return
        t = self.theme
        X = self.scene_model.points.X
        classes = self.scene_model.points.classes
        # dense scenes get smaller halos: they overlap anyway, and large translucent discs cost most of a repaint
        grow = 1.8 if len(keep) <= FEW_HALOS else 1.1 if len(keep) <= DENSE_HALOS else 0.7
        sizes = t.marker_size * (1.3 + grow * rel)
        st = self._styles
        if certificate:
            self.halo_items[6].setData(pos=X[keep], size=sizes, symbol="o", brush=st["cert_brush"], pen=st["cert_pen"])
            return
        which = classes[keep] % 6
        for k in np.unique(which):
            sel = which == k
            self.halo_items[k].setData(
                pos=X[keep[sel]], size=sizes[sel], symbol="o", brush=st["halo_brushes"][k], pen=st["halo_pens"][k]
            )

    def _clear_halos(self) -> None:
        for it in self.halo_items:
            if len(it.data):
                it.setData([])

    def halo_data(self) -> tuple[np.ndarray, np.ndarray]:
        """Positions (m, 2) and pixel sizes (m,) of the halos drawn (for tests and tools)."""
        pos, size = [], []
        for it in self.halo_items:
            if len(it.data):
                x, y = it.getData()
                pos.append(np.column_stack([x, y]))
                size.append(np.array([p.size() for p in it.points()]))
        if not pos:
            return np.zeros((0, 2)), np.zeros(0)
        return np.concatenate(pos), np.concatenate(size)

    def _draw_triggers(self, snap) -> None:
        idx = [i for i in snap.triggers if 0 <= i < self.scene_model.n]
        if not idx:
            self.trigger_ring.setData([])
            return
        t = self.theme
        self.trigger_ring.setData(
            pos=self.scene_model.points.X[idx], size=t.marker_size * 2.1, symbol="o", brush=None,
            pen=self._styles["ring_pen"],
        )

    def _draw_overlay(self, snap) -> None:
        parts = [f"iteration {snap.iteration}", snap.status.text]
        margin = margin_text(self.solver_cls, dict(snap.metrics), lambda v: f"{v:.3g}", snap.status)
        if margin:  # which margin, as everywhere (core.glossary)
            parts.append(margin)
        im = snap.metrics.get("input_margin")  # measured in the plane (input-space SVM)
        if im is not None and np.isfinite(im):
            parts.append(f"{MARGINS['input'].short} = {im:.3g}")
        text = "   ·   ".join(parts)
        self.overlay.setText(text)
        if self.overlay.boundingRect().width() > self.viewbox.width() - 30:
            self.overlay.setText("\n".join(parts))  # a narrow view: one item per line
        self._fit_overlay_box()

    def _fit_overlay_box(self) -> None:
        r = self.overlay.boundingRect()
        self.overlay_box.setVisible(bool(self.overlay.text()))
        self.overlay_box.setRect(QRectF(6, 5, r.width() + 12, r.height() + 6))

    def _draw_points(self) -> None:
        t = self.theme
        pts = self.scene_model.points
        self._drawn_for = pts.X  # (immutable: a new array after every edit)
        if pts.n == 0:
            self.points_item.setData([])
            self._drawn_spots = None
            self._draw_hover()
            return
        multi = self.solver_cls is not None and self.solver_cls.representation == "multiclass"
        symbols = tuple(self._symbols.get(s, s) for s in (t.class_symbol(k, multi) for k in range(6)))
        edge, brushes = self._styles["point_pen"], self._styles["point_brushes"]
        X, cls = pts.X, pts.classes
        shown = self._decimator.shown(X, self.viewbox.viewRange())  # None: every point
        self._shown_points = shown
        if shown is not None:
            X, cls = X[shown], cls[shown]
        style = (symbols, id(edge), id(brushes), t.marker_size)
        if not self._patch_spots(X, cls, style):
            self._set_spots(X, cls, t.marker_size * 1.35, symbols, brushes, edge)
            self._drawn_spots = (np.array(X, dtype=float), np.array(cls), style, _spot_hash(X, cls))
        self._draw_hover()

    def _set_spots(self, X, cls, size, symbols, brushes, pen) -> None:
        """All the spots at once: the record pyqtgraph's setData(pos, size, symbol=[…], brush=[…], pen) builds,
        filled class by class with numpy (setData spends ~30 ms of per-spot Python on 10,000 spots).

        Relies on pyqtgraph 0.14's ScatterPlotItem internals (`data` records, `fragmentAtlas`, `sourceRect`),
        as `_patch_spots` does; a test compares the record and the picture with setData's.
        """
        item = self.points_item
        item.clear()
        item.setPen(pen, update=False)
        item.setSize(size, update=False)
        data = np.empty(len(X), dtype=item.data.dtype)  # object fields start as None, as in addPoints
        data["size"], data["visible"] = -1, True  # -1: the item's size (opts), as addPoints leaves it
        data["x"], data["y"] = X[:, 0], X[:, 1]
        k = np.asarray(cls) % 6
        table = {"symbol": np.empty(6, dtype=object), "brush": np.empty(6, dtype=object)}
        for j in range(6):
            table["symbol"][j], table["brush"][j] = symbols[j], brushes[j]
        data["symbol"], data["brush"] = table["symbol"][k], table["brush"][k]
        if item.opts["pxMode"] and item.opts["useCache"]:  # each class's place in the symbol atlas, looked up once
            used = np.unique(k)
            rects = item.fragmentAtlas[[(symbols[j], item.opts["size"], item.opts["pen"], brushes[j]) for j in used]]
            for j, rect in zip(used, rects):
                data["sourceRect"][k == j] = rect
        item.data = data
        item.prepareGeometryChange()
        item.informViewBoundsChanged()
        item.bounds = [None, None]
        item.invalidate()
        item.updateSpots(data)
        item.sigPlotChanged.emit(item)

    def _patch_spots(self, X, cls, style) -> bool:
        """Swap only the spots that changed (an edit changes at most a few of the drawn ones); False: redraw all.

        Re-setting 10,000 spots costs pyqtgraph ~30 ms of per-spot Python; a move, add or delete changes one or
        two. Spots are matched by a 64-bit hash of (x, y, class); any repeated hash falls back to a full redraw.
        """
        drawn, item = self._drawn_spots, self.points_item
        if drawn is None or drawn[2] != style or len(item.data) != len(drawn[0]):
            return False
        new_h = _spot_hash(X, cls)
        keep, add = np.isin(drawn[3], new_h), ~np.isin(new_h, drawn[3])
        if (~keep).sum() + add.sum() > 64 or len(np.unique(new_h)) != len(new_h):
            return False
        if keep.all() and not add.any():
            return True
        if not keep.all():
            item.data["item"][...] = None  # (pyqtgraph's SpotItems refer to rows of the old array)
            item.data = item.data[keep]
        symbols, brushes = style[0], self._styles["point_brushes"]
        if add.any():
            item.addPoints(pos=X[add], symbol=[symbols[k % 6] for k in cls[add]],
                           brush=[brushes[k % 6] for k in cls[add]])
        else:
            item.prepareGeometryChange()
            item.informViewBoundsChanged()
            item.bounds = [None, None]
            item.invalidate()
        self._drawn_spots = (np.concatenate([drawn[0][keep], X[add]]), np.concatenate([drawn[1][keep], cls[add]]),
                             style, np.concatenate([drawn[3][keep], new_h[add]]))
        return True

    def _draw_hover(self) -> None:
        i = self._external_highlight if self._external_highlight is not None else (self._hovered if self._hovered >= 0 else None)
        if i is None or i >= self.scene_model.n:
            self.hover_ring.setData([])
            return
        t = self.theme
        self.hover_ring.setData(
            pos=self.scene_model.points.X[[i]], size=t.marker_size * 2.4, symbol="o", brush=None,
            pen=self._styles["hover_pen"],
        )

    # -- scene and mouse ---------------------------------------------------------------------------------------
    def _on_points_changed(self, kind: str) -> None:
        if kind in ("replace", "clear") or (kind in ("undo", "redo") and self._outside_view()):
            self.fit_to_data()  # first: at 100k its range change redecimates, and the points are drawn once
        if kind == "move" and self.scene_model.dragging and self._has_picture:
            if not self._points_wait.isActive():  # drawn with the rerun's boundary, or after DRAG_POINT_WAIT
                self._points_wait.start()
            return
        self._draw_moved_points()

    def _draw_moved_points(self) -> None:
        self._points_wait.stop()
        if self._drawn_for is not self.scene_model.points.X:
            self._draw_points()

    def _outside_view(self) -> bool:
        X = self.scene_model.points.X
        if len(X) == 0:
            return False
        (x0, x1), (y0, y1) = self.viewbox.viewRange()
        return bool(np.any((X[:, 0] < x0) | (X[:, 0] > x1) | (X[:, 1] < y0) | (X[:, 1] > y1)))

    def _on_range_changed(self, *_):
        if self._slacks_shown:  # the labels' pixel boxes moved: placed again, so that none covers another
            self._declutter_slacks(self._slacks_shown)
        if self.scene_model.n > self._decimator.cap:
            self._redecimate()
        if self.snapshot is not None:
            self._animating = True  # zooming/panning: coarse now, refined when it stops
            self._schedule()

    def _redecimate(self) -> None:
        """Redraw the points if the view now shows a different subsample (exact once it holds at most the cap)."""
        shown = self._decimator.shown(self.scene_model.points.X, self.viewbox.viewRange())
        if shown is None or self._shown_points is None or not np.array_equal(shown, self._shown_points):
            self._draw_points()

    def _pick_radius(self) -> float:
        px = self.viewbox.viewPixelSize()
        return PICK_PIXELS * max(px[0], px[1]) * max(1.0, self.theme.scale)

    def _pick(self, x: float, y: float) -> int | None:
        return self.scene_model.nearest(x, y, self._pick_radius())

    def _on_click(self, x: float, y: float, button, modifiers) -> None:
        self.plot.setFocus()
        mods = Qt.KeyboardModifier(modifiers)
        if mods & Qt.KeyboardModifier.ControlModifier:
            i = self.scene_model.nearest(x, y, 3 * self._pick_radius())
            if i is not None:
                self.scene_model.remove_point(i)
                self._hovered = -1
            return
        negative = button == Qt.MouseButton.RightButton or bool(mods & Qt.KeyboardModifier.ShiftModifier)
        self.scene_model.add_point(x, y, 1 if negative else int(self.current_class))

    def _on_mouse_moved(self, pos) -> None:
        if not self.viewbox.sceneBoundingRect().contains(pos):
            self._set_hovered(-1)
            return
        p = self.viewbox.mapSceneToView(pos)
        self._last_cursor = (p.x(), p.y())
        self.cursorMoved.emit(float(p.x()), float(p.y()))
        i = self._pick(p.x(), p.y())
        self._set_hovered(-1 if i is None else i)

    def _set_hovered(self, i: int) -> None:
        if i != self._hovered:
            self._hovered = i
            self._draw_hover()
            vp = self.plot.viewport()
            vp.setCursor(Qt.CursorShape.OpenHandCursor if i >= 0 else Qt.CursorShape.CrossCursor)
            vp.setToolTip(self._point_tooltip(i) if i >= 0 else "")
            self.pointHovered.emit(i)

    def _point_tooltip(self, i: int) -> str:
        """'point 3 (+) at (0.5, −1.2), α = 0.031': what a hovered point is and how much it weighs."""
        pts = self.scene_model.points
        if not 0 <= i < pts.n:
            return ""
        names = {} if getattr(self.solver_cls, "representation", "") == "multiclass" else {0: "+", 1: "−"}
        c = int(pts.classes[i])
        text = f"point {i} ({names.get(c, f'class {c + 1}')}) at ({pts.X[i, 0]:.3g}, {pts.X[i, 1]:.3g})"
        snap = self.snapshot
        if snap is not None:
            w, certificate = self._weights(snap)
            if w is not None:
                text += f", {'p' if certificate else 'α'} = {w[i]:.3g}"
            level, (X, y) = self._margin_level(), self._training_points()
            if level is not None and y is not None and i < len(y):
                fx = float(np.ravel(self.evaluator.at_points(snap.decision, X[[i]]))[0])
                text += f", slack ξ = {max(0.0, level - y[i] * fx):.3g}"
        return text

    def delete_hovered(self) -> bool:
        """Remove the hovered point, else the point nearest the cursor; False if there is none near."""
        i = self._hovered if 0 <= self._hovered < self.scene_model.n else None
        if i is None and self._last_cursor is not None:
            i = self.scene_model.nearest(*self._last_cursor, 3 * self._pick_radius())
        if i is None:
            return False
        self.scene_model.remove_point(i)
        self._set_hovered(-1)
        return True

    def eventFilter(self, obj: QObject, ev: QEvent) -> bool:
        if ev.type() in (QEvent.Type.KeyPress, QEvent.Type.ShortcutOverride) and ev.key() in (Qt.Key.Key_Delete, Qt.Key.Key_Backspace):
            if ev.type() == QEvent.Type.KeyPress:
                self.delete_hovered()
            ev.accept()
            return True
        if ev.type() == QEvent.Type.Leave and obj is self.plot.viewport():
            self._set_hovered(-1)
        return super().eventFilter(obj, ev)

    def view_to_widget(self, x: float, y: float):
        """Widget (viewport) pixel position of the data point (x, y): for tests and tools."""
        return self.plot.mapFromScene(self.viewbox.mapViewToScene(QPointF(x, y)))


def evaluation_work(d, grid: ViewGrid, n_points: int) -> float:
    """Multiply-adds of one picture of an explicit φ-map: the grid's cells (and the points) times its dimension."""
    cells = grid.nx * grid.ny + n_points
    if d.n_outputs == 1 and d.affine() is not None:
        return float(cells)
    if isinstance(d, FeatureLinear):
        return float(cells) * d.features.dimension() * max(1, int(d.n_outputs))
    return float(cells)  # kernel pictures reuse per-point rows cached across snapshots: kept on the UI thread


def _scaled_for_image(F, e: int):
    """f·10^-e for the float32 image: scaled in float64, clipped so that no value overflows it."""
    if not e:
        return F
    big = float(np.finfo(np.float32).max) / 4
    with np.errstate(over="ignore"):  # far from the points f can exceed the level by far: clipped below
        shown = np.asarray(F, dtype=np.float64) * 10.0**-e
    return np.clip(shown, -big, big, out=shown)


def _evaluate_picture(evaluator: GridEvaluator, d, grid: ViewGrid, X, preview: bool):
    """(the grid used, f on it, f at the points): the canvas's evaluation, on either thread."""
    grid = evaluator.plan(d, grid)  # coarser when the grid would exceed the memory budget
    F = evaluator.evaluate(d, grid)
    if not len(X):
        fx = np.zeros(0)
    elif preview:
        fx = sample_image(F, grid, X)  # a preview: the exact values come with the refined frame
    else:
        fx = evaluator.at_points(d, X)
    return grid, F, fx


def _evaluate_or_error(evaluator, d, grid, X, preview):
    try:
        return _evaluate_picture(evaluator, d, grid, X, preview)
    except (ArithmeticError, ValueError, MemoryError) as exc:
        return exc
