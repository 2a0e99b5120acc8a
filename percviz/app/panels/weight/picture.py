"""The weight-space picture's static items: constraint lines, the solution cone, the overview inset."""

from __future__ import annotations

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import Qt
from PySide6.QtGui import QPen

from percviz.app.panels.geometry_panel import (
    color,
    cosmetic_pen,
    path_item,
    pen_style,
    polygon_item,
    scatter_style,
    segments_item,
    shape_style,
)
from percviz.app.panels.weight.style import FADE_ABOVE, MAX_LABELS, _cone_colors
from percviz.core.geometry import cone_1d, line_segments, wall_indices
from percviz.core.glossary import MARGINS


def _fill(t) -> str:
    return _cone_colors(t.dark)[0]


def _edge(t) -> str:
    return _cone_colors(t.dark)[1]


def _mfill(t) -> str:
    return _cone_colors(t.dark)[2]


class WeightPicture:
    """Builds the items that change with the problem, not with the run."""

    def _draw_overview(self, segs, ok) -> None:
        """The small inset: every constraint line faint, the cone, and a box around the framed part."""
        pic, t = self.cone2, self.theme
        ov = self.overview
        ov.clear()
        ov.setBackground(color(t.background, 235))
        if not pic.bounded or len(pic.polygon) < 3:
            ov.hide()
            return
        lines, lok = line_segments(pic.normals, pic.offsets, pic.overview)
        lok &= pic.has_line
        th = self.themed
        if lok.any():
            ov.addItem(th(segments_item(lines[lok], QPen(), z=-5), pen_style(lambda t: cosmetic_pen(t.foreground, 1.0, 70))))
        ov.addItem(th(polygon_item(pic.polygon, color(_fill(t)), z=-2),
                      shape_style(lambda t: color(_fill(t), 200), lambda t: cosmetic_pen(_edge(t), 1.0))))
        x0, x1, y0, y1 = pic.frame
        ov.addItem(th(path_item([np.array([[x0, y0], [x1, y0], [x1, y1], [x0, y1], [x0, y0]])], QPen(), z=1),
                      pen_style(lambda t: cosmetic_pen(t.foreground, 1.5, 230))))
        mid = np.array([[(x0 + x1) / 2, (y0 + y1) / 2]])  # a ring a few pixels wide: the frame may be a speck here
        ov.addItem(th(pg.ScatterPlotItem(mid[:, 0], mid[:, 1], symbol="o"),
                      scatter_style(lambda t: 12, lambda t: None, lambda t: pg.mkPen(_edge(t), width=2))))
        ox0, ox1, oy0, oy1 = pic.overview
        ov.setRange(xRange=(ox0, ox1), yRange=(oy0, oy1), padding=0.0)
        ov.show()
        self._place_overview()

    def _place_overview(self) -> None:
        """The inset in the plot's top-right corner, a quarter of its width."""
        side = int(max(60, min(self.plot.width(), self.plot.height()) * 0.28))
        self.overview.setGeometry(self.plot.width() - side - 4, 4, side, side)

    def _class_color(self, i: int) -> str:
        return self.theme.class_color(int(self.classes[i]))

    def _class_colour(self, i: int):
        """Point i's class colour as a function of the theme (a label restyled in place)."""
        c = int(self.classes[i])
        return lambda t: t.class_color(c)

    @staticmethod
    def _star_style():
        """a*: a star in the cone's edge colour, outlined in the background's."""
        return scatter_style(lambda t: 2.0 * t.marker_size, lambda t: color(_edge(t)),
                             lambda t: pg.mkPen(t.background, width=1))

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
        th = self.themed
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
            self.plot.addItem(th(polygon_item(cone.wedge, color(_fill(t)), z=-20), shape_style(lambda t: color(_fill(t), 55))))
            self.plot.addItem(th(polygon_item(cone.margin_region, color(_mfill(t)), z=-19),
                                 shape_style(lambda t: color(_mfill(t), 70))))
        Z = red.Z
        L = 4.0 * R
        n = len(Z)
        D = np.column_stack([-Z[:, 1], Z[:, 0]]) / np.linalg.norm(Z, axis=1)[:, None]
        lines = np.stack([-L * D, L * D], axis=1)
        for cls in np.unique(self.classes):
            mine = self.classes == cls
            self.plot.addItem(th(segments_item(lines[mine], QPen(), z=-5),
                                 pen_style(lambda t, c=int(cls): cosmetic_pen(t.class_color(c), t.line_width, 230))))
        if n <= 12:
            off = self.margin_b * Z / np.einsum("ij,ij->i", Z, Z)[:, None]  # the wall a·z = b: moved in by b/‖z‖
            walls = np.stack([off - L * D, off + L * D], axis=1)
            self.plot.addItem(th(segments_item(walls, QPen(), z=-6),
                                 pen_style(lambda t: cosmetic_pen(_edge(t), t.thin_line_width, 160, Qt.DashLine))))
        if n <= MAX_LABELS:
            for i in range(n):
                d = D[i] if D[i, 1] > 0 or (D[i, 1] == 0 and D[i, 0] > 0) else -D[i]
                self._line_label(f"y{i}: x = {red.t[i]:g}", 0.86 * R * d, self._class_colour(i), Z[i], 0.0, 0.9)
        self.plot.addItem(th(pg.ScatterPlotItem([0], [0], symbol="o"),
                             scatter_style(lambda t: 6, lambda t: t.foreground, lambda t: None)))
        if cone.shortest is not None:
            s = cone.shortest
            self.plot.addItem(th(path_item([np.array([[0, 0], s])], QPen()),
                                 pen_style(lambda t: cosmetic_pen(_edge(t), t.thin_line_width, 220, Qt.DashLine))))
            self.plot.addItem(th(pg.ScatterPlotItem([s[0]], [s[1]], symbol="star"), self._star_style()))
            self._fixed_labels.append(self.text_item("a*", s, (-0.25, 1.0), 0.95, _edge))
            self._static_readout = [(f"★ a* = ({s[0]:.4g}, {s[1]:.4g}), the shortest a with a·yᵢ ≥ {self.margin_b:g}",
                                     _edge)]
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
        t, pic, th = self.theme, self.cone2, self.themed
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
                ang = np.linspace(0, 2 * np.pi, 181)
                rings.append(np.column_stack([r * np.cos(ang), r * np.sin(ang)]))
                self.text_item(f"{deg}°", (r * 0.71, -r * 0.71), (0, 0), 0.75, lambda t: t.grid)
        self.plot.addItem(th(path_item(rings, QPen(), z=-30), pen_style(lambda t: cosmetic_pen(t.grid, 1.0, 200, Qt.DotLine))))
        self.plot.addItem(th(pg.ScatterPlotItem([0], [0], symbol="+"),
                             scatter_style(lambda t: 10, lambda t: t.grid, lambda t: pg.mkPen(t.grid))))
        if len(pic.polygon) >= 3:
            # on top of the constraint lines: a thin cone must not vanish under its own walls
            # a halo in the background colour first, so the cone's outline reads over a bundle of lines
            self.plot.addItem(th(polygon_item(pic.polygon, color(_fill(t), 0), z=-3), shape_style(
                lambda t: color(_fill(t), 0), lambda t: cosmetic_pen(t.background, 3.2 * t.line_width, 200))))
            self.plot.addItem(th(polygon_item(pic.polygon, color(_fill(t), 150), z=-2), shape_style(
                lambda t: color(_fill(t), 150), lambda t: cosmetic_pen(_edge(t), 1.5 * t.line_width))))
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
            for sel, width, alpha, z in ((mine & strong, lambda t: t.line_width, 230 if n <= FADE_ABOVE else 170, -5),
                                         (mine & ~strong & ~far, lambda t: max(1.0, 0.45 * t.line_width), 80, -8),
                                         (mine & far, lambda t: max(1.0, 0.35 * t.line_width), 35, -9)):
                if sel.any():
                    pen = pen_style(lambda t, c=int(cls), w=width, a=alpha: cosmetic_pen(t.class_color(c), w(t), a))
                    self.plot.addItem(th(segments_item(segs[sel], QPen(), z=z), pen))
        fracs = (0.07, 0.93) if n <= MAX_LABELS else (0.07, 0.93, 0.22, 0.78, 0.36, 0.64)  # spread when many
        for k, i in enumerate(self._label_choice(pic, vok, walls)):
            frac = fracs[i % 2] if n <= MAX_LABELS else fracs[k % len(fracs)]
            seg = self._visible[i]
            self._line_label(str(i), seg[0] + frac * (seg[1] - seg[0]), self._class_colour(i), pic.normals[i],
                             pic.offsets[i], frac)
        if pic.best_point is not None:
            bp = pic.best_point
            self.plot.addItem(th(pg.ScatterPlotItem([bp[0]], [bp[1]], symbol="star"), self._star_style()))
            self._fixed_labels.append(self.text_item("a*", bp, (-0.25, 1.0), 0.95, _edge))
            self._static_readout = [(f"★ a*: the largest {MARGINS['geometric'].name}, γ(a*) = {pic.best_margin:.4g}",
                                     _edge)]
        if pic.empty and self.thin:
            self.set_title("Weight space: the solution cone is too thin to draw here")
            cap = (f"No cone is drawn: at this scale it is below what the picture resolves, but {self.thin}. "
                   "Scale the points to about unit size to see it.")
        elif pic.empty:
            self.set_title("Weight space: the cone is empty — no linear separator")
            # at the top: far-side iterates are marked along the edges, and the bottom holds their label
            label = self.text_item("<div align='center'>the cone is empty — no linear separator</div>",
                                   ((xmin + xmax) / 2, ymax - 0.1 * (ymax - ymin)), (0.5, 0), 1.2,
                                   None, fill=True)
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

    # hover and highlight -------------------------------------------------------------------------
    def _lines(self) -> tuple[np.ndarray, np.ndarray]:
        """(normals, offsets) of every constraint line in the drawn plane."""
        if self.mode == "1d":
            return self.reduction.Z, np.zeros(len(self.reduction.Z))
        return self.cone2.normals, self.cone2.offsets
