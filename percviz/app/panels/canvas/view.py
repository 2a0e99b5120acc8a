"""The canvas: place, move and delete points; see the decision function, its boundary and margins.

`CanvasView` keeps the view box, the mouse and the order of its layers (layer.py), each drawing one thing, bottom
to top: decision image and colour bar, boundary/margin/level lines, slacks, halos, points, trigger and hover rings,
caption, then layers other modules add (input distances). The decision function is evaluated once per snapshot and
view for every layer (picture.py); every theme or scale change reaches every layer through `apply_theme`.

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
from PySide6.QtCore import QEvent, QObject, QPointF, Qt, QTimer, Signal
from PySide6.QtWidgets import QHBoxLayout, QLabel, QToolButton, QVBoxLayout, QWidget

from percviz.app.panels.canvas.caption_layer import CaptionLayer
from percviz.app.panels.canvas.halo_layer import HaloLayer
from percviz.app.panels.canvas.image_layer import DecisionImageLayer
from percviz.app.panels.canvas.layer import CanvasLayer, smooth_line
from percviz.app.panels.canvas.lines_layer import BoundaryLayer
from percviz.app.panels.canvas.picture import PicturePath, view_grid
from percviz.app.panels.canvas.points_layer import PointsLayer
from percviz.app.panels.canvas.ring_layers import HoverRingLayer, TriggerRingLayer
from percviz.app.panels.canvas.slack_layer import SlackLayer
from percviz.app.panels.canvas.tooltip import point_tooltip
from percviz.app.panels.canvas_viewbox import CanvasViewBox, skip_hover_while_dragging
from percviz.app.panels.panel import Panel, decision_drawable
from percviz.app.theme import Theme, theme_for
from percviz.core.grid import GridEvaluator, ViewGrid
from percviz.core.scene import SceneModel
from percviz.app.timing import DRAG_POINTS_WAIT_S

#: Grid resolution (cells along the longer side of the view) when paused and while animating.
FINE_RESOLUTION = 256
COARSE_RESOLUTION = 128
#: Snapshots closer together than this (seconds) count as an animation: coarse grid, refined later.
ANIMATION_GAP = 0.25
#: Points within this many pixels of the cursor can be dragged, hovered or deleted.
PICK_PIXELS = 14


def _single_shot(parent, seconds: float, slot) -> QTimer:
    timer = QTimer(parent)
    timer.setSingleShot(True)
    timer.setInterval(int(seconds * 1000))
    timer.timeout.connect(slot)
    return timer


class CanvasView(QWidget, Panel):
    """The plane: points of the scene and the decision function of the snapshot shown, drawn by layers."""

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
        self.problem = self.solver_cls = self.snapshot = None
        #: A preset's view settings the canvas applies (percviz.core.presets.ViewSettings, `apply_view`).
        self.view_settings = {"colormap": "diverging", "levels": (0.0,), "shading": True, "halos": True}
        self.layers: list[CanvasLayer] = []
        self._last_cursor: tuple[float, float] | None = None
        self._last_snapshot_time, self._animating, self._sync_draw, self._draw_failed = -1.0, False, False, False
        self._drawn_key: tuple | None = None  # (snapshot, grid, theme) of the picture requested last
        self.picture_of: tuple | None = None
        self._redraw_pending = self._redraw_held = False
        self._keep_picture = False  # the next set_problem keeps the picture (keep_picture)
        self._has_picture = False  # a snapshot's picture is drawn (cleared by set_problem)
        self.lines_smooth = True  # antialiased lines (off while a point is dragged)
        self.last_redraw_ms = 0.0
        self.fine_resolution, self.coarse_resolution = FINE_RESOLUTION, COARSE_RESOLUTION
        self.pictures = PicturePath(self, self.evaluator, self._show_picture, self._show_failure)
        self.pictures.current = lambda snap: snap is self.snapshot
        self._build()
        self.image_layer, self.boundary_layer, self.slack_layer = DecisionImageLayer(), BoundaryLayer(), SlackLayer()
        self.halo_layer, self.points_layer = HaloLayer(), PointsLayer()
        self.trigger_layer, self.hover_layer, self.caption_layer = TriggerRingLayer(), HoverRingLayer(), CaptionLayer()
        for layer in (self.image_layer, self.boundary_layer, self.slack_layer, self.halo_layer, self.points_layer,
                      self.trigger_layer, self.hover_layer, self.caption_layer):
            self.layers.append(layer)
            layer.attach(self)
        scene.points_changed.connect(self._on_points_changed)
        self._refine = _single_shot(self, ANIMATION_GAP, self._on_refine)
        self._points_wait = _single_shot(self, DRAG_POINTS_WAIT_S, self._draw_moved_points)
        self.apply_theme(self.theme)
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
        skip_hover_while_dragging(self.plot.scene(), self.scene_model)
        self.viewbox.sigRangeChanged.connect(self._on_range_changed)
        for w in (self.plot, self.plot.viewport()):
            w.installEventFilter(self)

    # -- the layers' items, by their old names (tests and tools) ---------------------------------------
    image = property(lambda self: self.image_layer.image)
    colorbar = property(lambda self: self.image_layer.colorbar)
    boundary_curve = property(lambda self: self.boundary_layer.boundary_curve)
    margin_curve = property(lambda self: self.boundary_layer.margin_curve)
    margin_under = property(lambda self: self.boundary_layer.margin_under)
    level_curve = property(lambda self: self.boundary_layer.level_curve)
    slack_curve = property(lambda self: self.slack_layer.slack_curve)
    slack_labels = property(lambda self: self.slack_layer.slack_labels)
    halo_items = property(lambda self: self.halo_layer.halo_items)
    points_item = property(lambda self: self.points_layer.item)
    trigger_ring = property(lambda self: self.trigger_layer.ring)
    hover_ring = property(lambda self: self.hover_layer.ring)
    overlay = property(lambda self: self.caption_layer.text)
    overlay_box = property(lambda self: self.caption_layer.box)

    slack_data = property(lambda self: self.slack_layer.slack_data)  # canvas.slack_data(): segments and ξ labels
    halo_data = property(lambda self: self.halo_layer.halo_data)  # canvas.halo_data(): halos' positions and sizes

    def layer(self, name: str) -> CanvasLayer:
        """The layer called `name` (CanvasLayer.name)."""
        return next(layer for layer in self.layers if layer.name == name)

    # -- the panel contract ----------------------------------------------------------------------------
    @classmethod
    def supports(cls, solver_cls) -> tuple[bool, str]:
        if solver_cls is None or "canvas" in solver_cls.views:
            return True, ""
        return False, f"{solver_cls.display_name} has no picture in the plane."

    def add_layer(self, layer: CanvasLayer) -> None:
        """Draw `layer` on the canvas from now on, above the built-in ones."""
        self.layers.append(layer)
        layer.attach(self)
        layer.apply_theme(self.theme, self.theme.scale)
        layer.set_problem(self.problem, self.solver_cls)
        layer.draw(self.snapshot)

    def keep_picture(self) -> None:
        """The next new problem keeps the picture drawn until its first snapshot replaces it (Live's rerun)."""
        self._keep_picture = True

    def set_problem(self, problem, solver_cls) -> None:
        """A new problem (or None): forget the old run's picture (kept while a point is dragged: no blank frame)."""
        keep = problem is not None and self._has_picture and (self.scene_model.dragging or self._keep_picture)
        self._keep_picture = False
        self.problem, self.solver_cls = problem, solver_cls
        ok, why = self.supports(solver_cls)
        self.message.setText(why)
        self.message.setVisible(not ok)
        for layer in self.layers:
            layer.set_problem(problem, solver_cls)
        if keep and ok:  # `snapshot` stays what is drawn until the new run's first one
            return
        self.snapshot = None
        self.pictures.cancel()
        self._drawn_key = None
        self._has_picture = False
        for layer in self.layers:
            layer.clear()
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
        self._drawn_key = None
        self.apply_theme(self.theme)  # restyles the colour map and redraws

    def highlight_point(self, index) -> None:
        """Ring a point hovered in another panel (None or −1: none)."""
        self.hover_layer.external = None if index is None or index < 0 else int(index)
        self.hover_layer.redraw()

    def apply_theme(self, theme) -> None:
        """Restyle the plot, then every layer (one call: a theme or scale change reaches each of them)."""
        self.theme = t = theme
        self.plot.setBackground(t.background)
        item = self.plot.getPlotItem()
        label_style = {"color": t.foreground, "font-size": f"{t.font_pt:.0f}pt"}
        t.style_axes([item.getAxis("left"), item.getAxis("bottom")])
        item.setLabel("bottom", "x₁", **label_style)
        item.setLabel("left", "x₂", **label_style)
        for layer in self.layers:
            layer.apply_theme(t, t.scale)
        self.title.setFont(t.font(t.font_pt, bold=True))
        self.message.setFont(t.font())
        self.fit_button.setFont(t.font())
        self.fit_button.setText("Fit" if t.scale > 1 else "Fit to data")  # presenting: room for the caption (key F)
        self._drawn_key = None
        self._draw_points()
        self._schedule()

    def fix_colour_scale(self, largest: float) -> None:
        """Keep the colour map at ±(a nice number ≥ largest) until the next problem (an animation's frames)."""
        self.image_layer.fix_colour_scale(largest)
        self._drawn_key = None

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
        if self._redraw_pending and not self._redraw_held:
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

    def grid(self, resolution: int) -> ViewGrid:
        """The evaluation grid of the view at this resolution (percviz.app.panels.canvas.picture.view_grid)."""
        return view_grid(self.viewbox.viewRange(), resolution)

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
        grid = self.grid(self.coarse_resolution if coarse else self.fine_resolution)
        key = (id(snap), grid.key, id(self.theme))
        self._has_picture = True
        if key != self._drawn_key:
            self._request_picture(snap, grid)
            self._drawn_key = key
        for layer in self.layers:
            layer.draw(snap)
        if coarse:
            self._refine.start()
        self.last_redraw_ms = 1e3 * (time.perf_counter() - t0)

    def _smooth_lines(self, on: bool) -> None:
        """Antialiased boundary, margin, level and slack lines (on), or plain ones (while a point is dragged)."""
        self.lines_smooth = on
        for layer in self.layers:
            for curve in layer.lines():
                smooth_line(curve, on)

    def _request_picture(self, snap, grid: ViewGrid) -> None:
        if not decision_drawable(snap.decision):  # a diverged iterate: say so, draw nothing of it
            self.message.setText("The iterate diverged (its coefficients are not finite or too large): nothing to draw.")
            self.message.show()
            self._draw_failed = True
            return
        X, y = self.training_points()
        self.pictures.request(snap, grid, X, y, self.margin_level(), self._animating and len(X) > 300, not self._sync_draw)

    def _show_picture(self, pic) -> None:
        self.picture_of = (pic.snap, pic.grid)  # what the image shows (tests compare it with an independent evaluation)
        if self._draw_failed:
            self._draw_failed = False
            self.message.hide()
        for layer in self.layers:
            layer.draw_picture(pic)

    def _show_failure(self, exc) -> None:
        self.message.setText(f"Cannot draw the decision function here: {exc}")
        self.message.show()
        self._draw_failed = True

    computing_picture = property(lambda self: self.pictures.computing, doc="A picture is computed off the UI thread.")

    def shutdown(self, wait_ms: int = 3000) -> bool:
        """The window closes: drop the picture being computed and wait for its threads (True when none runs)."""
        return self.pictures.shutdown(wait_ms)

    def training_points(self):
        """Points of the problem being run and their ±1 labels (labels None for multi-class)."""
        if self.problem is None:
            return np.zeros((0, 2)), None
        pts = self.problem.points
        y = pts.y if pts.n and pts.classes.max() <= 1 else None
        return pts.X, y

    def margin_level(self) -> float | None:
        """The solver's fixed margin level (SVM: f = ±1), or None when margins follow the closest point."""
        level = None if self.solver_cls is None else self.solver_cls.margin_level
        return float(level) if level is not None and level > 0 else None

    def _draw_points(self) -> None:
        self.points_layer.redraw()
        self.hover_layer.redraw()

    # -- scene and mouse ---------------------------------------------------------------------------------------
    def _on_points_changed(self, kind: str) -> None:
        if kind in ("replace", "clear") or (kind in ("undo", "redo") and self._outside_view()):
            self.fit_to_data()  # first: at 100k its range change redecimates, and the points are drawn once
        if kind == "move" and self.scene_model.dragging and self._has_picture:
            if not self._points_wait.isActive():  # drawn with the rerun's boundary, or after DRAG_POINTS_WAIT_S
                self._points_wait.start()
            return
        self._draw_moved_points()

    def _draw_moved_points(self) -> None:
        self._points_wait.stop()
        if self.points_layer.drawn_for is not self.scene_model.points.X:
            self._draw_points()

    def _outside_view(self) -> bool:
        X = self.scene_model.points.X
        if len(X) == 0:
            return False
        (x0, x1), (y0, y1) = self.viewbox.viewRange()
        return bool(np.any((X[:, 0] < x0) | (X[:, 0] > x1) | (X[:, 1] < y0) | (X[:, 1] > y1)))

    def _on_range_changed(self, *_):
        if self.scene_model.n > self.points_layer.decimator.cap:
            self.points_layer.redecimate()
            self.hover_layer.redraw()
        if self.snapshot is not None:
            self._animating = True  # zooming/panning: coarse now, refined when it stops
            self._schedule()

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
                self.hover_layer.hovered = -1
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

    hovered = property(lambda self: self.hover_layer.hovered, doc="The point under the cursor (−1: none).")

    def _set_hovered(self, i: int) -> None:
        if i != self.hover_layer.hovered:
            self.hover_layer.hovered = i
            self.hover_layer.redraw()
            vp = self.plot.viewport()
            vp.setCursor(Qt.CursorShape.OpenHandCursor if i >= 0 else Qt.CursorShape.CrossCursor)
            vp.setToolTip(point_tooltip(self, i) if i >= 0 else "")
            self.pointHovered.emit(i)

    def delete_hovered(self) -> bool:
        """Remove the hovered point, else the point nearest the cursor; False if there is none near."""
        h = self.hover_layer.hovered
        i = h if 0 <= h < self.scene_model.n else None
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
