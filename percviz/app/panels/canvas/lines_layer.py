"""The decision boundary f = 0 (thick), the margin levels (dashed, over a band of the background) and a preset's
extra level curves of f (dotted).

Margin levels are the two level sets at ±δ, where δ is the smallest margin of a training point, so the closest
point(s) touch a margin line (nothing is drawn until every point is on its side):
- affine decision functions (`decision.affine()`): exact lines w·x + b = ±δ, δ = min_i y_i f(x_i);
- kernel expansions: the paper's normalized margin f(x)/(‖f‖_K √K(x, x)) at ±min_i of its value
  y_i f(x_i)/(‖f‖_K √K(x_i, x_i)) = (Gα)_i/‖α‖_G, the "margin" the curves show; ‖f‖_K cancels, so the
  curves drawn are the level sets of f/√K(x, x) (of f itself for RBF and Laplacian);
- other explicit feature maps: f = ±min_i y_i f(x_i);
- a solver class with `margin_level` (the SVM: 1) fixes the levels at f = ±margin_level, drawn even when
  points are inside the band.
For RBF-like kernels f → 0 far from every point, so the band |f| < δ also reaches out there and the margin
curves can enclose the data from outside: that is the level set, drawn as it is.
"""

from __future__ import annotations

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import Qt
from PySide6.QtGui import QColor

from percviz.app.panels.canvas.layer import CanvasLayer, set_lines, smooth_line
from percviz.core.decision import KernelExpansion
from percviz.core.grid import contour_lines, line_in_rect
from percviz.core.margin_geometry import closest_margin


class BoundaryLayer(CanvasLayer):
    """f = 0, its margin levels and a preset's extra levels."""

    name = "boundary"

    def __init__(self):
        self.margin_curve = pg.PlotCurveItem(connect="finite", antialias=True)
        # a wider band of the background colour under the dashed margins: visible over any colour map
        self.margin_under = pg.PlotCurveItem(connect="finite", antialias=True)
        self.margin_curve.sigPlotChanged.connect(self._copy_margins)
        self.boundary_curve = pg.PlotCurveItem(connect="finite", antialias=True)
        self.level_curve = pg.PlotCurveItem(connect="finite", antialias=True)  # a preset's extra levels of f

    def attach(self, canvas) -> None:
        super().attach(canvas)
        for z, it in enumerate((self.level_curve, self.margin_under, self.margin_curve, self.boundary_curve)):
            it.setZValue(z)
            canvas.plot.addItem(it)

    def lines(self) -> tuple:
        return self.margin_curve, self.margin_under, self.boundary_curve, self.level_curve

    def clear(self) -> None:
        for it in self.lines():
            it.setData([], [])

    def apply_theme(self, theme, scale=None) -> None:
        t = theme
        scale = t.scale if scale is None else scale
        self.boundary_curve.setPen(pg.mkPen(t.boundary, width=1.5 * t.line_width, cap=Qt.PenCapStyle.RoundCap))
        width = max(1.5, 1.5 * t.thin_line_width)
        self.margin_curve.setPen(pg.mkPen(t.margin, width=width, style=Qt.PenStyle.DashLine, cap=Qt.PenCapStyle.FlatCap))
        under = QColor(t.background)
        under.setAlpha(150)
        self.margin_under.setPen(pg.mkPen(under, width=width + 2 * max(1.0, scale)))
        self.level_curve.setPen(pg.mkPen(t.foreground, width=max(1.0, 0.75 * t.line_width), style=Qt.PenStyle.DotLine))

    def _set(self, curve, pieces) -> None:
        set_lines(curve, pieces, self.canvas.lines_smooth)

    def draw_picture(self, pic) -> None:
        xs, ys = pic.grid.xs, pic.grid.ys
        if pic.regions:
            F = pic.F
            segs = []
            for k in range(F.shape[0]):
                others = np.delete(F, k, axis=0).max(axis=0)
                segs.append(contour_lines(F[k] - others, 0.0, xs, ys))
            self._set(self.boundary_curve, segs)
            self.margin_curve.setData([], [])
            return
        if pic.no_boundary:
            self.boundary_curve.setData([], [])
            self.margin_curve.setData([], [])
            return
        ab, big, F = pic.affine, pic.far_rect, pic.F
        if ab is not None:
            self._set(self.boundary_curve, [line_in_rect(ab, 0.0, big)])
        else:
            self._set(self.boundary_curve, [contour_lines(F, 0.0, xs, ys)])
        extra = [v for v in self.canvas.view_settings["levels"] if v != 0 and np.isfinite(v)]
        if extra and ab is not None:  # no extra levels (every shipped scene): the curve is never touched
            self._set(self.level_curve, [line_in_rect(ab, v, big) for v in extra])
        elif extra:
            self._set(self.level_curve, [contour_lines(F, v, xs, ys) for v in extra])
        delta, field = self.margin(pic)
        if delta is None:
            self.margin_curve.setData([], [])
        elif ab is not None:
            self._set(self.margin_curve, [line_in_rect(ab, s * delta, big) for s in (1, -1)])
        else:
            self._set(self.margin_curve, [contour_lines(field, s * delta, xs, ys) for s in (1, -1)])

    def margin(self, pic):
        """(δ, field): margin lines are {field = ±δ}; δ None when some training point is not strictly on its side."""
        d, fx, y, F = pic.snap.decision, pic.fx, pic.y, pic.F
        if y is None or len(fx) == 0:
            return None, None
        if pic.level is not None:
            return pic.level, F
        field, g = F, fx
        if isinstance(d, KernelExpansion) and d.affine() is None and not d.kernel.unit_diagonal:
            g = fx / np.sqrt(np.asarray(d.kernel.diag(pic.X), dtype=float))
            field = F / self.canvas.evaluator.kernel_diag(d.kernel, pic.grid)
        delta = closest_margin(g, y)
        return (delta, field) if delta is not None else (None, None)

    def _copy_margins(self, curve) -> None:
        x, y = curve.getData()
        self.margin_under.setData([] if x is None else x, [] if y is None else y, connect="finite")
        smooth_line(self.margin_under, self.canvas.lines_smooth)
