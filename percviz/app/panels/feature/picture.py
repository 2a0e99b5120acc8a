"""The feature-space picture's static items: points, hull, the least-norm point ρ_K."""

from __future__ import annotations

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import Qt

from percviz.app.panels.geometry_panel import (
    color,
    cosmetic_pen,
    filled_paths_item,
    path_item,
    polygon_item,
    segments_item,
)
from percviz.core import gram as core_gram


class FeaturePicture:
    """Builds the items that change with the problem, not with the run."""

    # -- data ----------------------------------------------------------------------------------------
    def _screen(self, P) -> np.ndarray:
        """Embedded coordinates → (screen x, screen y, depth)."""
        P = np.atleast_2d(np.asarray(P, dtype=float))
        if P.shape[1] == 2:
            return np.column_stack([P, np.zeros(len(P))])
        return P @ self.R.T

    def _draw_static(self) -> None:
        t, pic = self.theme, self.picture
        self._static_labels: list = []  # "0 ∈ hull" or "ρ_K", then "0": placed clear of each other (_declutter)
        emb, hull = pic.embedding, pic.hull
        S = self._screen(emb.coords)
        self._points_screen = S
        r = max(1.0, float(np.abs(S[:, :2]).max()) if len(S) else 1.0)
        self.plot.setRange(xRange=(-1.2 * r, 1.2 * r), yRange=(-1.2 * r, 1.2 * r), padding=0.02)
        th = np.linspace(0, 2 * np.pi, 241)
        circle = np.column_stack([np.cos(th), np.sin(th)])
        self.plot.addItem(path_item([circle], cosmetic_pen(t.grid, 1.2, 220, Qt.DashLine), z=-40))
        hull_col = "#8a8a8a" if not t.dark else "#9aa4b0"
        if hull.dim == 3:
            view = self.R[2] if self.is_3d else np.array([0, 0, 1.0])
            centre = emb.coords.mean(axis=0)
            T = np.array(hull.faces, dtype=int).reshape(-1, 3)
            P = emb.coords[T]  # faces × 3 vertices × 3
            nrm = np.cross(P[:, 1] - P[:, 0], P[:, 2] - P[:, 0])
            nrm *= np.where(np.einsum("ij,ij->i", nrm, P.mean(axis=1) - centre) < 0, -1.0, 1.0)[:, None]
            facing = nrm @ view > 0
            self.plot.addItem(filled_paths_item(S[T[~facing]][:, :, :2], color(hull_col, 30), z=-30))
            self.plot.addItem(filled_paths_item(S[T[facing]][:, :, :2], color(hull_col, 45), z=-29))
            # an edge is in front when one of its faces is (edges keyed a·n + b, a < b)
            n_pts = len(S)
            F = np.concatenate([T[:, [0, 1]], T[:, [1, 2]], T[:, [0, 2]]])
            F.sort(axis=1)
            front_keys = np.unique((F[:, 0] * n_pts + F[:, 1])[np.tile(facing, 3)])
            E = np.sort(np.array(hull.edges, dtype=int).reshape(-1, 2), axis=1)
            in_front = np.isin(E[:, 0] * n_pts + E[:, 1], front_keys)
            self.plot.addItem(segments_item(S[E[~in_front]][:, :, :2],
                                            cosmetic_pen(hull_col, t.thin_line_width, 200, Qt.DashLine), z=-20))
            self.plot.addItem(segments_item(S[E[in_front]][:, :, :2], cosmetic_pen(hull_col, 0.75 * t.line_width, 220),
                                            z=-19))
        elif hull.dim == 2:
            poly = S[hull.faces[0], :2]
            self.plot.addItem(polygon_item(poly, color(hull_col, 45), cosmetic_pen(hull_col, t.line_width), z=-25))
        elif hull.dim == 1:
            a, b = hull.edges[0]
            self.plot.addItem(path_item([S[[a, b], :2]], cosmetic_pen(hull_col, t.line_width), z=-25))
        # the origin and the hull's point nearest to it
        mnp = pic.min_norm
        star_col = "#1e7b34" if not t.dark else "#7be495"
        if mnp is None and self._witness_skipped:
            self._static_readout = [(f"ρ_K not computed: over {core_gram.BOUND_MAX_N} points (or rank "
                                     f"{core_gram.BOUND_MAX_RANK}) with this kernel it takes minutes", star_col)]
        elif mnp is None:
            self._static_readout = [("ρ_K: the hull's point nearest the origin is being computed…", star_col)]
        elif mnp.separable is None:  # undecided: neither ρ_K nor "0 in the hull" is claimed
            self._static_readout = [(f"ρ_K not resolved (undecided): {mnp.note}", star_col)]
        elif mnp.separable:
            m = self._screen(pic.min_point)[0]
            self.plot.addItem(path_item([np.array([[0, 0], m[:2]])], cosmetic_pen(star_col, t.line_width, 255, Qt.DashLine),
                                        z=5))
            self.plot.addItem(pg.ScatterPlotItem([m[0]], [m[1]], symbol="star", size=2.1 * t.marker_size,
                                                 brush=color(star_col), pen=pg.mkPen(t.background, width=1)))
            self._static_labels.append(self.text_item("ρ_K", m[:2], (1.15, -0.2), 0.95, star_col, fill=True))
            where = "" if pic.embedding.exact else " (in the full space)"
            self._static_readout = [(f"★ nearest hull point: ρ_K = {mnp.norm:.4g}{where}", star_col)]
        else:
            self.plot.addItem(pg.ScatterPlotItem([0], [0], symbol="o", size=2.4 * t.marker_size, brush=None,
                                                 pen=pg.mkPen(star_col, width=2.5)))
            self._static_labels.append(self.text_item("0 ∈ hull", (0, 0), (0.5, -1.0), 0.95, star_col, fill=True))
            self._static_readout = [("0 lies in the hull: no separator exists (Gordan)", star_col)]
        self.plot.addItem(pg.ScatterPlotItem([0], [0], symbol="o", size=0.8 * t.marker_size, brush=t.foreground,
                                             pen=None))
        self._static_labels.append(self.text_item("0", (0, 0), (1.4, 1.2), 0.9, t.foreground))
        # the points, drawn last so they sit on top; nearer points over farther ones
        order = np.argsort(S[:, 2])  # one item, drawn back to front
        # one shared brush and pen per class: the scatter renders each distinct style once, not per point
        styles = {int(c): (t.class_symbol(int(c)), pg.mkBrush(color(t.class_color(int(c)))),
                           pg.mkPen(color(t.class_color(int(c))), width=2.5)) for c in np.unique(self.classes)}
        cls = [styles[int(c)] for c in self.classes[order]]
        self.plot.addItem(pg.ScatterPlotItem(
            S[order, 0], S[order, 1], symbol=[c[0] for c in cls], size=t.marker_size,
            brush=[c[1] for c in cls], pen=[c[2] for c in cls],
        ))
        self._point_labels = []
        if not self._labels_later:
            self._make_point_labels()
        self._set_texts()  # (the labels are fitted by _draw_dynamic, which redraw calls next)
