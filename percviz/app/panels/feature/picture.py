"""The feature-space picture's static items: points, hull, the least-norm point ρ_K."""

from __future__ import annotations

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import Qt
from PySide6.QtGui import QPen

from percviz.app.panels.geometry_panel import (
    color,
    cosmetic_pen,
    filled_paths_item,
    path_item,
    pen_style,
    polygon_item,
    scatter_style,
    segments_item,
    shape_style,
)
from percviz.core import gram as core_gram


def _hull(t, alpha: int):
    return color("#8a8a8a" if not t.dark else "#9aa4b0", alpha)


def _star(t) -> str:
    return "#1e7b34" if not t.dark else "#7be495"


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
        t, pic, th = self.theme, self.picture, self.themed
        self._static_labels: list = []  # "0 ∈ hull" or "ρ_K", then "0": placed clear of each other (_declutter)
        emb, hull = pic.embedding, pic.hull
        S = self._screen(emb.coords)
        self._points_screen = S
        r = max(1.0, float(np.abs(S[:, :2]).max()) if len(S) else 1.0)
        self.plot.setRange(xRange=(-1.2 * r, 1.2 * r), yRange=(-1.2 * r, 1.2 * r), padding=0.02)
        ang = np.linspace(0, 2 * np.pi, 241)
        circle = np.column_stack([np.cos(ang), np.sin(ang)])
        self.plot.addItem(th(path_item([circle], QPen(), z=-40), pen_style(lambda t: cosmetic_pen(t.grid, 1.2, 220, Qt.DashLine))))
        if hull.dim == 3:
            view = self.R[2] if self.is_3d else np.array([0, 0, 1.0])
            centre = emb.coords.mean(axis=0)
            T = np.array(hull.faces, dtype=int).reshape(-1, 3)
            P = emb.coords[T]  # faces × 3 vertices × 3
            nrm = np.cross(P[:, 1] - P[:, 0], P[:, 2] - P[:, 0])
            nrm *= np.where(np.einsum("ij,ij->i", nrm, P.mean(axis=1) - centre) < 0, -1.0, 1.0)[:, None]
            facing = nrm @ view > 0
            self.plot.addItem(th(filled_paths_item(S[T[~facing]][:, :, :2], _hull(t, 30), z=-30),
                                 shape_style(lambda t: _hull(t, 30))))
            self.plot.addItem(th(filled_paths_item(S[T[facing]][:, :, :2], _hull(t, 45), z=-29),
                                 shape_style(lambda t: _hull(t, 45))))
            # an edge is in front when one of its faces is (edges keyed a·n + b, a < b)
            n_pts = len(S)
            F = np.concatenate([T[:, [0, 1]], T[:, [1, 2]], T[:, [0, 2]]])
            F.sort(axis=1)
            front_keys = np.unique((F[:, 0] * n_pts + F[:, 1])[np.tile(facing, 3)])
            E = np.sort(np.array(hull.edges, dtype=int).reshape(-1, 2), axis=1)
            in_front = np.isin(E[:, 0] * n_pts + E[:, 1], front_keys)
            self.plot.addItem(th(segments_item(S[E[~in_front]][:, :, :2], QPen(), z=-20), pen_style(
                lambda t: cosmetic_pen(_hull(t, None).name(), t.thin_line_width, 200, Qt.DashLine))))
            self.plot.addItem(th(segments_item(S[E[in_front]][:, :, :2], QPen(), z=-19), pen_style(
                lambda t: cosmetic_pen(_hull(t, None).name(), 0.75 * t.line_width, 220))))
        elif hull.dim == 2:
            poly = S[hull.faces[0], :2]
            self.plot.addItem(th(polygon_item(poly, _hull(t, 45), z=-25), shape_style(
                lambda t: _hull(t, 45), lambda t: cosmetic_pen(_hull(t, None).name(), t.line_width))))
        elif hull.dim == 1:
            a, b = hull.edges[0]
            self.plot.addItem(th(path_item([S[[a, b], :2]], QPen(), z=-25),
                                 pen_style(lambda t: cosmetic_pen(_hull(t, None).name(), t.line_width))))
        # the origin and the hull's point nearest to it
        mnp = pic.min_norm
        star_col = _star
        if mnp is None and self._witness_skipped:
            self._static_readout = [(f"ρ_K not computed: over {core_gram.BOUND_MAX_N} points (or rank "
                                     f"{core_gram.BOUND_MAX_RANK}) with this kernel it takes minutes", star_col)]
        elif mnp is None:
            self._static_readout = [("ρ_K: the hull's point nearest the origin is being computed…", star_col)]
        elif mnp.separable is None:  # undecided: neither ρ_K nor "0 in the hull" is claimed
            self._static_readout = [(f"ρ_K not resolved (undecided): {mnp.note}", star_col)]
        elif mnp.separable:
            m = self._screen(pic.min_point)[0]
            self.plot.addItem(th(path_item([np.array([[0, 0], m[:2]])], QPen(), z=5),
                                 pen_style(lambda t: cosmetic_pen(_star(t), t.line_width, 255, Qt.DashLine))))
            self.plot.addItem(th(pg.ScatterPlotItem([m[0]], [m[1]], symbol="star"), scatter_style(
                lambda t: 2.1 * t.marker_size, lambda t: color(_star(t)), lambda t: pg.mkPen(t.background, width=1))))
            self._static_labels.append(self.text_item("ρ_K", m[:2], (1.15, -0.2), 0.95, star_col, fill=True))
            where = "" if pic.embedding.exact else " (in the full space)"
            self._static_readout = [(f"★ nearest hull point: ρ_K = {mnp.norm:.4g}{where}", star_col)]
        else:
            self.plot.addItem(th(pg.ScatterPlotItem([0], [0], symbol="o"), scatter_style(
                lambda t: 2.4 * t.marker_size, lambda t: None, lambda t: pg.mkPen(_star(t), width=2.5))))
            self._static_labels.append(self.text_item("0 ∈ hull", (0, 0), (0.5, -1.0), 0.95, star_col, fill=True))
            self._static_readout = [("0 lies in the hull: no separator exists (Gordan)", star_col)]
        self.plot.addItem(th(pg.ScatterPlotItem([0], [0], symbol="o"), scatter_style(
            lambda t: 0.8 * t.marker_size, lambda t: t.foreground, lambda t: None)))
        self._static_labels.append(self.text_item("0", (0, 0), (1.4, 1.2), 0.9))
        # the points, drawn last so they sit on top; nearer points over farther ones
        order = np.argsort(S[:, 2])  # one item, drawn back to front
        # one shared brush and pen per class: the scatter renders each distinct style once, not per point
        ordered = self.classes[order]

        def points(item, t):
            styles = {int(c): (t.class_symbol(int(c)), pg.mkBrush(color(t.class_color(int(c)))),
                               pg.mkPen(color(t.class_color(int(c))), width=2.5)) for c in np.unique(ordered)}
            cls = [styles[int(c)] for c in ordered]
            item.setSymbol([c[0] for c in cls])
            item.setSize(t.marker_size)
            item.setBrush([c[1] for c in cls])
            item.setPen([c[2] for c in cls])

        self.plot.addItem(th(pg.ScatterPlotItem(S[order, 0], S[order, 1]), points))
        self._point_labels = []
        if not self._labels_later:
            self._make_point_labels()
        self._set_texts()  # (the labels are fitted by _draw_dynamic, which redraw calls next)
