"""What the weight-space and feature-space panels share: title, plot, caption, message, hover, theme."""

from __future__ import annotations

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QPointF, Qt, QTimer, Signal
from PySide6.QtGui import QBrush, QColor, QPainterPath, QPen, QPixmapCache, QPolygonF
from PySide6.QtWidgets import (
    QGraphicsItem,
    QGraphicsPathItem,
    QGraphicsPolygonItem,
    QLabel,
    QSizePolicy,
    QVBoxLayout,
    QWidget,
)

from percviz.app.panels.panel import Panel
from percviz.app.theme import theme_for

#: What a panel says when the scene gives it no problem to draw.
NOTHING_YET = (
    "Nothing to draw yet: the scene needs at least one + and one − point "
    "(left click places +, right click places −). If points are there, the status bar says what is wrong."
)
#: Hovering within this many pixels of a constraint line or point selects it.
HOVER_PX = 7.0


def color(spec: str, alpha: int | None = None) -> QColor:
    c = QColor(spec)
    if alpha is not None:
        c.setAlpha(int(alpha))
    return c


def cosmetic_pen(spec: str, width: float, alpha: int | None = None, style=Qt.SolidLine) -> QPen:
    """A pen whose width is in pixels whatever the zoom."""
    pen = QPen(color(spec, alpha))
    pen.setWidthF(float(width))
    pen.setCosmetic(True)
    pen.setStyle(style)
    return pen


def polygon_item(points, fill: QColor, pen: QPen | None = None, z: float = 0.0) -> QGraphicsPolygonItem:
    """A filled polygon in data coordinates."""
    item = QGraphicsPolygonItem(QPolygonF([QPointF(float(x), float(y)) for x, y in np.asarray(points)]))
    item.setBrush(QBrush(fill))
    item.setPen(pen if pen is not None else QPen(Qt.NoPen))
    item.setZValue(z)
    return item


#: A static segments item with at least this many segments is painted from a cached pixmap.
STATIC_CACHE_MIN = 64
#: Qt's pixmap cache holds at least this much (KB) once a geometry panel exists.
PIXMAP_CACHE_KB = 64 * 1024


def path_item(polylines, pen: QPen, z: float = 0.0) -> QGraphicsPathItem:
    """Several polylines (each k×2, data coordinates) as one item."""
    path = QPainterPath()
    for line in polylines:
        line = np.asarray(line, dtype=float)
        if len(line) < 2:
            continue
        path.moveTo(float(line[0, 0]), float(line[0, 1]))
        for x, y in line[1:]:
            path.lineTo(float(x), float(y))
    item = QGraphicsPathItem(path)
    item.setPen(pen)
    item.setZValue(z)
    return item


def segments_item(segments, pen: QPen, z: float = 0.0, static: bool = True) -> pg.PlotCurveItem:
    """Many line segments (m×2×2, data coordinates) as ONE item, built from arrays (no per-segment Python).

    static: the item keeps its segments; it is then painted once into a pixmap that later repaints reuse
    (a thousand translucent lines across the view cost 20–60 ms a paint, drawn again whenever an iterate
    moved; drawn as lines instead of one path, or without the pixmap, they cost the same, measured).
    """
    S = np.asarray(segments, dtype=float).reshape(-1, 2, 2)
    item = pg.PlotCurveItem(S[:, :, 0].ravel(), S[:, :, 1].ravel(), connect="pairs", pen=pen,
                            skipFiniteCheck=True)
    item.setZValue(z)
    if static and len(S) >= STATIC_CACHE_MIN:
        item.setCacheMode(QGraphicsItem.CacheMode.DeviceCoordinateCache)
    return item


def filled_paths_item(polygons, fill: QColor, z: float = 0.0) -> QGraphicsPathItem:
    """Many filled polygons as one item; overlaps are filled once (their union), so alpha does not stack."""
    arr = np.asarray(polygons, dtype=float) if len(polygons) else np.zeros((0, 3, 2))
    if arr.ndim == 3 and arr.shape[1] >= 3:
        # equal-sized polygons (hull triangles): one array-built path, each polygon a closed subpath
        m, k, _ = arr.shape
        closed = np.concatenate([arr, arr[:, :1]], axis=1).reshape(-1, 2)
        connect = np.ones((m, k + 1), dtype=bool)
        connect[:, -1] = False
        path = pg.arrayToQPath(closed[:, 0], closed[:, 1], connect=connect.ravel()) if m else QPainterPath()
    else:
        path = QPainterPath()
        for poly in polygons:
            poly = np.asarray(poly, dtype=float)
            if len(poly) < 3:
                continue
            path.addPolygon(QPolygonF([QPointF(float(x), float(y)) for x, y in poly]))
            path.closeSubpath()
    path.setFillRule(Qt.WindingFill)
    item = QGraphicsPathItem(path)
    item.setBrush(QBrush(fill))
    item.setPen(QPen(Qt.NoPen))
    item.setZValue(z)
    return item


def pen_style(pen_of):
    """A style (for GeometryPanel.themed) that gives a line item the theme's pen."""
    return lambda item, t: item.setPen(pen_of(t))


def shape_style(fill_of, pen_of=None):
    """A style for a filled QGraphics shape: its brush and (or no) outline from the theme."""
    def style(item, t):
        item.setBrush(QBrush(fill_of(t)))
        item.setPen(pen_of(t) if pen_of is not None else QPen(Qt.NoPen))
    return style


def scatter_style(size_of, brush_of, pen_of):
    """A style for a ScatterPlotItem: marker size, brush and pen from the theme."""
    def style(item, t):
        item.setSize(size_of(t))
        item.setBrush(brush_of(t))
        item.setPen(pen_of(t))
    return style


def arrow_angle(direction) -> float:
    """pyqtgraph ArrowItem angle (0 points left, clockwise on screen) for a data-space direction."""
    return 180.0 - float(np.degrees(np.arctan2(direction[1], direction[0])))


class GeometryPanel(QWidget, Panel):
    """A titled plot with a caption below; shows a message instead of the plot when it has nothing to draw."""

    pointHovered = Signal(int)

    def __init__(self, scene, parent=None):
        super().__init__(parent)
        # the cached constraint layers (segments_item) live in Qt's pixmap cache: at presentation size
        # six of them would overflow its default 10 MB and be painted again every frame
        QPixmapCache.setCacheLimit(max(QPixmapCache.cacheLimit(), PIXMAP_CACHE_KB))
        self.scene = scene
        self.theme = theme_for("light")
        self.problem = None
        self.solver_cls = None
        self.snapshot = None
        self.history: list = []
        self.highlighted: int | None = None
        self._hovered: int | None = None

        self.title = QLabel(self)
        self.title.setTextFormat(Qt.RichText)
        self.title.setWordWrap(True)
        self.readout = QLabel(self)  # the numbers of the picture, in the colours of their markers
        self.readout.setTextFormat(Qt.RichText)
        self.readout.setWordWrap(True)
        self.plot = pg.PlotWidget(self, viewBox=self._make_view_box())
        self.plot.setMenuEnabled(False)
        self.plot.hideButtons()
        self.plot.setAspectLocked(True)
        self.plot.setMouseTracking(True)
        self.caption = QLabel(self)
        self.caption.setTextFormat(Qt.RichText)
        self.caption.setWordWrap(True)
        self.message = QLabel(self)
        self.message.setAlignment(Qt.AlignCenter)
        self.message.setWordWrap(True)
        self.message.setSizePolicy(QSizePolicy.Expanding, QSizePolicy.Expanding)
        self.message.hide()
        lay = QVBoxLayout(self)
        lay.setContentsMargins(6, 4, 6, 4)
        lay.setSpacing(3)
        lay.addWidget(self.title)
        lay.addWidget(self.readout)
        lay.addWidget(self.plot, 1)
        lay.addWidget(self.message, 1)
        lay.addWidget(self.caption)
        self.plot.scene().sigMouseMoved.connect(self._on_mouse_moved)
        self.setMinimumSize(260, 220)
        self._fit_timer = QTimer(self)
        self._fit_timer.setSingleShot(True)
        self._fit_timer.timeout.connect(self._fit_texts)
        #: the drawn items and how each takes its look from a theme (themed): restyled in place on a change
        self._styles: list = []
        self._style_widgets()

    # -- the panel contract ----------------------------------------------------------------------
    def set_history(self, snapshots) -> None:
        self.history = list(snapshots)

    def set_run(self, snapshots, snapshot) -> None:
        """History and shown snapshot at once, drawn once (the paced updates while animating)."""
        self.snapshot = None  # set_history has nothing to draw yet
        self.set_history(snapshots)
        self.set_snapshot(snapshot)

    def highlight_point(self, index) -> None:
        index = None if index is None or int(index) < 0 else int(index)
        if index != self.highlighted:
            self.highlighted = index
            self._draw_highlight()

    def apply_theme(self, theme) -> None:
        """A theme or scale change: the drawn items restyled in place (same items, same data), else a redraw."""
        self.theme = theme
        self._style_widgets()
        if self._styles and not self.showing_message:
            for item, style in self._styles:
                style(item, theme)
            self._restyled()
        else:
            self.redraw()

    def themed(self, item, style):
        """Give `item` its look from the theme now (style(item, theme)) and again on every theme or scale change."""
        style(item, self.theme)
        self._styles.append((item, style))
        return item

    def _restyled(self) -> None:
        """After an in-place restyle: redraw what follows the run or the text sizes (subclasses)."""

    # -- for subclasses ---------------------------------------------------------------------------
    def _make_view_box(self):
        """The plot's ViewBox (None: pyqtgraph's default)."""
        return None

    def redraw(self) -> None:
        """Rebuild everything from self.problem / self.snapshot."""

    def _draw_highlight(self) -> None:
        """Show self.highlighted."""

    def _hover_index(self, point: np.ndarray, pixel: float) -> int | None:
        """The point index under the mouse (data coordinates; pixel = data units per pixel)."""
        return None

    def _refuses(self, problem, solver_cls, title: str) -> bool:
        """Show why nothing is drawn (algorithm not supported, or no points yet) and return True; else False.

        Every set_problem starts here, so the readout's height is free to shrink again."""
        self._release_readout()
        ok, why = self.supports(solver_cls)
        if not ok:
            self.show_message(why, title)
            return True
        if problem is None or problem.n == 0:
            self.show_message(NOTHING_YET, title)
            return True
        return False

    def show_message(self, text: str, title: str = "") -> None:
        """Replace the plot by a sentence (unsupported algorithm, no problem, bad data)."""
        self.plot.clear()
        self._styles = []
        self.plot.hide()
        self.caption.hide()
        self.readout.hide()
        self.message.setText(text)
        self.message.show()
        self.set_title(title)

    def show_plot(self) -> None:
        self.message.hide()
        self.plot.show()
        self.readout.show()  # empty until the first numbers, but already holding its lines
        self.caption.show()
        self._fit_timer.start(0)

    _readout_floor = 0  # px: the tallest the readout has been for this problem and width

    _compact = False  # the readout in its short form (see _fit_texts), until the width or the problem changes
    _parts: list = []
    _readout_tip: str | None = None  # the readout's full tooltip, kept while it is in its short form

    @staticmethod
    def short_part(text: str) -> str:
        """A readout part reduced to its last clause, its marker kept: "★ a*: the largest geometric margin, γ(a*) =
        0.017" → "★ γ(a*) = 0.017" (the whole text stays in the readout's tooltip)."""
        tail = text.replace(": ", ", ").split(", ")[-1]
        mark = text[0] if text and not text[0].isalnum() and text[0] not in "(‖−-" else ""
        tail = tail.replace(" = ", "\u00a0=\u00a0")  # a value never wraps away from its name
        if mark and tail.startswith(mark):
            tail = tail[len(mark):].lstrip()
        return f"{mark}\u00a0{tail}" if mark else tail  # nor a marker from its text

    def set_readout(self, parts) -> None:
        """Show (text, colour) pairs on one wrapped line above the plot (a colour may be a function of the theme)."""
        self._parts = list(parts)
        shown = [(self.short_part(txt) if self._compact else txt, c(self.theme) if callable(c) else c)
                 for txt, c in parts if txt]
        html = " &nbsp;·&nbsp; ".join(f"<span style='color:{c}'><b>{txt}</b></span>" for txt, c in shown)
        self.readout.setToolTip(" · ".join(txt for txt, _ in parts if txt) if self._compact else
                                self.readout.toolTip() if self._readout_tip is None else self._readout_tip)
        if html == self.readout.text():
            return
        width = max(self.width() - 12, 50)
        lines = self.readout.heightForWidth(width)
        self.readout.setText(html)
        self.readout.setVisible(not self.showing_message)
        height = self.readout.heightForWidth(width) if html else 0
        if height > self._readout_floor:
            # the readout never gets shorter during a run: a plot resized by a line coming and going would
            # relayout (and repaint from scratch) the whole picture every few frames
            self._readout_floor = height
            self.readout.setMinimumHeight(height)
        if height != lines:
            self._fit_timer.start(0)

    @property
    def showing_message(self) -> bool:
        return not self.message.isHidden()

    def set_title(self, html: str) -> None:
        self.title.setText(f"<b>{html}</b>" if html else "")
        self.title.setVisible(bool(html))
        self._fit_timer.start(0)

    #: The texts around the plot may take at most this share of the panel's height.
    TEXT_SHARE = 0.38

    def _fit_texts(self) -> None:
        """Keep the plot the largest part of the panel: in a narrow dock or at presentation scale the caption
        moves into the plot's tooltip, then the title and readout shrink."""
        if self.showing_message:
            return
        t = self.theme
        w, budget = max(self.width() - 12, 50), self.TEXT_SHARE * self.height()
        self.title.setFont(t.font(t.title_pt))
        self.title.setVisible(bool(self.title.text()))
        self.readout.setFont(t.font(1.05 * t.font_pt))

        def used(with_caption: bool) -> int:
            labels = [lab for lab in (self.title, self.readout) if not lab.isHidden() and lab.text()]
            if with_caption and self.caption.text():
                labels.append(self.caption)
            return sum(lab.heightForWidth(w) for lab in labels)

        fits = used(True) <= budget
        self.caption.setVisible(fits)
        self.plot.setToolTip("" if fits else self.caption.text())
        if used(False) > budget:
            self.title.setFont(t.font(t.font_pt))
        if used(False) > budget:
            self.readout.setFont(t.font(0.85 * t.font_pt))
        self._reserve_readout()
        # last resort (a projector's font in a narrow dock): the title goes to the tooltip too; the dock's
        # own title bar still names the panel
        squeezed = used(False) > budget and bool(self.title.text())
        self.title.setVisible(bool(self.title.text()) and not squeezed)
        if squeezed:
            self.plot.setToolTip(self.title.text() + ("<br>" + self.caption.text() if not fits else ""))
        if not self._compact and used(False) > budget and self._parts:
            # 3× in a 350 px dock: the readout alone took two thirds of the panel; its parts' last clauses
            self._readout_tip = self.readout.toolTip()
            self._compact = True
            self._readout_floor = 0
            self.readout.setText("")
            self.readout.setMinimumHeight(0)
            self.set_readout(self._parts)

    def resizeEvent(self, event) -> None:
        super().resizeEvent(event)
        if event.oldSize().width() != event.size().width():
            self._release_readout()
        self._fit_timer.start(0)

    #: Lines of text the readout reserves from the start, so that its first numbers do not resize the plot.
    READOUT_LINES = 2

    def _release_readout(self) -> None:
        self._readout_floor = 0
        if self._compact:
            self._compact = False
            self.readout.setToolTip(self._readout_tip or "")
            self.set_readout(self._parts)
        self._reserve_readout()

    def _reserve_readout(self) -> None:
        """Hold READOUT_LINES lines of the readout's current font (the font changes with theme and fitting)."""
        probe = QLabel("<br>".join(["<b>Ag</b>"] * self.READOUT_LINES))
        probe.setTextFormat(Qt.RichText)
        probe.setWordWrap(True)
        probe.setFont(self.readout.font())
        self._readout_floor = max(self._readout_floor, probe.heightForWidth(200))
        self.readout.setMinimumHeight(self._readout_floor)

    def text_item(self, html: str, pos, anchor=(0.5, 0.5), size: float = 1.0, color_: str | None = None,
                  fill: bool = False):
        """A label in data coordinates whose size follows the theme (on a background patch if fill); color_ a
        colour, a function of the theme, or None (the theme's foreground). Restyled in place (themed)."""
        item = pg.TextItem(anchor=anchor)
        if not html.startswith("<"):
            item.setText(html)

        def style(it, t):
            c = color_(t) if callable(color_) else color_ or t.foreground
            if fill:
                it.fill = pg.mkBrush(color(t.background, 210))
            if html.startswith("<"):
                it.setHtml(f"<span style='color:{c}'>{html}</span>")
            else:
                it.setColor(c)
            it.setFont(t.font(t.font_pt * size))

        self.themed(item, style)
        item.setPos(float(pos[0]), float(pos[1]))
        item.setZValue(40)
        self.plot.addItem(item)
        return item

    def _style_widgets(self) -> None:
        t = self.theme
        self.setAutoFillBackground(True)
        self.setPalette(t.palette())
        self.plot.setBackground(t.background)
        fg = t.foreground
        for lab, pt in (
            (self.title, t.title_pt),
            (self.readout, 1.05 * t.font_pt),
            (self.caption, 0.9 * t.font_pt),
            (self.message, 1.1 * t.font_pt),
        ):
            lab.setFont(t.font(pt))
            lab.setStyleSheet(f"color: {fg};")
        self.message.setStyleSheet(f"color: {fg}; background: {t.background}; padding: 18px;")
        for name in ("left", "bottom"):
            ax = self.plot.getAxis(name)
            ax.setPen(pg.mkPen(t.foreground))
            ax.setTextPen(pg.mkPen(t.foreground))
            ax.setTickFont(t.font(0.9 * t.font_pt))
            ax.label.setFont(t.font(t.font_pt))
        self._fit_timer.start(0)

    def _on_mouse_moved(self, pos) -> None:
        if self.showing_message or self.problem is None:
            return
        vb = self.plot.getViewBox()
        if not vb.sceneBoundingRect().contains(pos):
            idx = None
        else:
            p = vb.mapSceneToView(pos)
            px = vb.viewPixelSize()
            idx = self._hover_index(np.array([p.x(), p.y()]), float(max(px[0], px[1])))
        if idx != self._hovered:
            self._hovered = idx
            self.highlight_point(idx)
            self.pointHovered.emit(-1 if idx is None else int(idx))

    def leaveEvent(self, event) -> None:
        if self._hovered is not None:
            self._hovered = None
            self.highlight_point(None)
            self.pointHovered.emit(-1)
        super().leaveEvent(event)
