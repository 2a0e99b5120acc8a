"""The decision function as an image: a diverging colour map with its colour bar, or c region colours.

The map's range is symmetric, ±(a nice number ≥ the largest |f(x_i)| over the points), kept while it stays within
a factor 2 (`stepped_level`); very small or large values are shown as f·10^-e, said in the bar's label.
"""

from __future__ import annotations

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QRectF
from PySide6.QtGui import QColor, QFontMetrics

from percviz.app.panels.canvas.layer import CanvasLayer
from percviz.app.panels.curves import nice_ceil

#: The colour map's range is at most ±LEVEL_LIMIT (the image is float32; nice_ceil must stay finite).
LEVEL_LIMIT = 1e37
#: The preset's colour maps (percviz.core.presets.COLORMAPS) other than the theme's own "diverging".
NAMED_COLORMAPS = {"diverging-cb": "CET-D1A", "viridis": "viridis", "cividis": "cividis"}


def named_colormap(name: str, t) -> pg.ColorMap:
    """The decision-function colour map a preset names ("diverging": the theme's, blended with the background)."""
    if name == "gray":
        return pg.ColorMap([0.0, 1.0], [(40, 40, 40), (235, 235, 235)])
    if name in NAMED_COLORMAPS:
        return pg.colormap.get(NAMED_COLORMAPS[name])
    return blended_colormap(t)


def blended_colormap(t) -> pg.ColorMap:
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


def superscript(k: int) -> str:
    return str(k).translate(str.maketrans("-0123456789", "⁻⁰¹²³⁴⁵⁶⁷⁸⁹"))


def scaled_for_image(F, e: int):
    """f·10^-e for the float32 image: scaled in float64, clipped so that no value overflows it."""
    if not e:
        return F
    big = float(np.finfo(np.float32).max) / 4
    with np.errstate(over="ignore"):  # far from the points f can exceed the level by far: clipped below
        shown = np.asarray(F, dtype=np.float64) * 10.0**-e
    return np.clip(shown, -big, big, out=shown)


class DecisionImageLayer(CanvasLayer):
    """The image of f (or of the winning class) under everything, and the colour bar beside the plot."""

    name = "image"

    def __init__(self):
        self.image = pg.ImageItem(axisOrder="row-major")
        self.image.setZValue(-10)
        self.colorbar = pg.ColorBarItem(values=(-1.0, 1.0), interactive=False, width=14)
        self.colorbar.axis.enableAutoSIPrefix(False)
        # a tick label at the bar's end would hang half over the plot's edge (cut there: '0.15' in dark at 2×)
        self.colorbar.axis.setStyle(hideOverlappingLabels=True)
        self.map_level: float | None = None
        self.level_fixed = False  # fix_colour_scale: the map's range no longer follows the snapshot
        self.mode = ""  # "map" (diverging colour map) or "regions" (multi-class RGBA)
        self.bar_labels: list[str] = []  # the colour bar's name, longest first (fit_bar_label)
        self.bar_shown = None  # (levels, label) the colour bar shows
        self.colormap = None

    def attach(self, canvas) -> None:
        super().attach(canvas)
        canvas.plot.addItem(self.image)
        self.colorbar.setImageItem(self.image, insert_in=canvas.plot.getPlotItem())
        canvas.viewbox.sigResized.connect(lambda *_: self.fit_bar_label())

    def set_problem(self, problem, solver_cls) -> None:
        self.level_fixed = False

    def clear(self) -> None:
        self.map_level = None
        self.image.clear()

    def restyle_map(self) -> None:
        """The preset's colour map in the current theme (drawn again on the next picture)."""
        self.colormap = named_colormap(self.canvas.view_settings["colormap"], self.canvas.theme)
        self.colorbar.setColorMap(self.colormap)
        self.mode = ""

    def apply_theme(self, theme, scale=None) -> None:
        theme.style_axes([self.colorbar.axis])
        self.restyle_map()
        self.colorbar.axis.setLabel("f(x)", color=theme.foreground, **{"font-size": f"{theme.font_pt:.0f}pt"})
        self.bar_shown = None
        fm = QFontMetrics(theme.font())
        self.colorbar.axis.setWidth(fm.horizontalAdvance("−0.000") + 1.2 * fm.height() + 8)

    def fix_colour_scale(self, largest: float) -> None:
        """Keep the colour map at ±(a nice number ≥ largest) until the next problem (an animation's frames)."""
        if np.isfinite(largest) and largest > 0:
            self.map_level, self.level_fixed = nice_ceil(min(largest, LEVEL_LIMIT)), True

    def draw_picture(self, pic) -> None:
        g = pic.grid
        rect = QRectF(g.x_min, g.y_min, g.x_max - g.x_min, g.y_max - g.y_min)
        if pic.regions:
            self.draw_regions(pic.F, rect)
            return
        shading = self.canvas.view_settings["shading"]
        L = pic.largest
        if pic.flat:
            L = max(L, pic.level)
        scale = pic.certificate_scale
        cancelled = scale > L  # a certificate's f ≈ 0: coloured on its coefficients' scale, not magnified
        if cancelled:
            L = scale
        if not self.level_fixed:
            self.map_level = stepped_level(self.map_level, L)
        L = self.map_level
        e = int(np.floor(np.log10(L)))
        e = max(e if abs(e) >= 3 else 0, -300)  # 10^-e stays finite even for a subnormal L
        self.colorbar.setVisible(shading)
        self.image.setVisible(shading)
        self.image.setImage(scaled_for_image(pic.F, e), autoLevels=False, levels=(-L * 10.0**-e, L * 10.0**-e))
        if self.mode != "map":
            self.image.setColorMap(self.colormap)
            self.mode = "map"
        self.image.setRect(rect)
        label = "f(x)" if e == 0 else f"f(x) × 10{superscript(-e)}"
        bar = ((-L * 10.0**-e, L * 10.0**-e), f"{label} ≈ 0 (certificate)" if cancelled else label)
        if bar != self.bar_shown:  # the same scale again (most moves of a drag): the bar's axis is not redone
            self.bar_shown = bar
            self.colorbar.setLevels(bar[0])
            self.bar_labels = [bar[1], f"{label} ≈ 0", label] if cancelled else [label]
            self.fit_bar_label()

    def draw_regions(self, F: np.ndarray, rect: QRectF) -> None:
        """Multi-class: argmax regions in light class colours, darker where the winner is clear."""
        t = self.canvas.theme
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
        self.image.setVisible(self.canvas.view_settings["shading"])
        self.image.setLookupTable(None)
        self.mode = "regions"
        self.image.setImage(rgba, autoLevels=False, levels=(0, 255))
        self.image.setRect(rect)

    def fit_bar_label(self) -> None:
        """The colour bar's name: the longest of its forms that fits the bar's height (at 3× 'f(x) ≈ 0 (cert…' was
        cut), the whole one in the bar's tooltip."""
        if not self.bar_labels:
            return
        axis = self.colorbar.axis
        room = axis.size().height() - 4
        for text in self.bar_labels:  # measured as drawn (its rich text's own size, not the axis font's)
            if text != axis.labelText:
                axis.setLabel(text)
            if axis.label.boundingRect().width() <= room:
                break
        axis.resizeEvent()  # pyqtgraph centres an axis's name only on a resize: the longer name hung off the top
        self.colorbar.setToolTip(self.bar_labels[0])
