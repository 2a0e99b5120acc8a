"""The feature-space overlay: the hull point of p or α, its trail, the direction and its hyperplane."""

from __future__ import annotations

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QPointF, Qt
from PySide6.QtGui import QPolygonF

from percviz.app.panels.feature.rotation import _in_simplex
from percviz.app.panels.feature.style import MAX_TRAIL
from percviz.app.panels.geometry_panel import (
    HOVER_PX,
    arrow_angle,
    color,
    cosmetic_pen,
    pen_style,
    polygon_item,
    scatter_style,
    shape_style,
)
from percviz.core.glossary import MARGINS


class FeatureOverlay:
    """Draws what changes with each snapshot, on items made once per problem."""

    def _direction(self, snapshot) -> tuple[np.ndarray | None, str]:
        """The current separating direction in embedded coordinates, and its name."""
        emb = self.picture.embedding
        if self.features_mode:
            w = snapshot.weights
            if w is None or np.ndim(w) != 1 or not np.any(w):
                return None, ""
            scores = self.Yhat @ np.asarray(w, dtype=float)  # ŷ_i·a = coords_i·d
            d = np.linalg.lstsq(emb.coords, scores, rcond=None)[0]
            return (d if np.any(d) else None), f"a({snapshot.iteration})"
        # Read the direction off the decision function itself, whatever its coefficients mean:
        # y_i (f(x_i) − b)/√K(x_i, x_i) = ⟨f, y_i φ̃(x_i)⟩ = coords_i · d (exactly when the embedding is).
        decision = snapshot.decision
        if decision is None or decision.n_outputs != 1:
            return None, ""
        rows = self._fit_rows  # a fixed subsample for large n: 3 unknowns, the decision costs O(n) per row
        try:
            f = np.asarray(decision(self.problem.X[rows]), dtype=float) - float(getattr(decision, "bias", 0.0) or 0.0)
        except Exception:  # a decision function this picture cannot read: draw no arrow
            return None, ""
        scores = self.problem.y[rows] * f / np.sqrt(self.problem.self_kernel[rows])
        if not np.all(np.isfinite(scores)) or not np.any(scores):
            return None, ""
        d = np.linalg.lstsq(emb.coords[rows], scores, rcond=None)[0]
        name = "α" if snapshot.alpha is not None else "f"
        return (d if np.linalg.norm(d) > 1e-12 else None), f"{name}({snapshot.iteration})"

    def _make_dynamic_items(self) -> None:
        """The items the snapshots move: made once per redraw, then only fed new data; restyled in place."""
        th = self.themed

        def col(t):
            return "#6a3d9a" if not t.dark else "#c9a7ff"

        def dir_col(t):
            return "#b35806" if not t.dark else "#fdb863"

        def label(colour):
            def style(item, t):
                item.setColor(colour(t))
                item.fill = pg.mkBrush(color(t.background, 200))
                item.setFont(t.font(t.font_pt, bold=True))
            return style

        def arrow(item, t):
            item.setStyle(headLen=1.6 * t.marker_size, pen=pg.mkPen(dir_col(t)), brush=color(dir_col(t)))

        self._trail = th(pg.PlotCurveItem(), pen_style(lambda t: pg.mkPen(col(t), width=t.thin_line_width)))
        self._p_ray = th(pg.PlotCurveItem(), pen_style(lambda t: cosmetic_pen(col(t), t.thin_line_width, 200, Qt.DotLine)))
        self._p_mark = th(pg.ScatterPlotItem(symbol="d"), scatter_style(
            lambda t: 1.5 * t.marker_size, col, lambda t: pg.mkPen(t.background, width=1.5)))
        self._p_label = th(pg.TextItem("", anchor=(-0.15, 1.0)), label(col))
        self._dir_line = th(pg.PlotCurveItem(), pen_style(lambda t: cosmetic_pen(dir_col(t), 1.3 * t.line_width)))
        self._dir_arrow = th(pg.ArrowItem(angle=0, tipAngle=35), arrow)
        self._dir_label = th(pg.TextItem("", anchor=(0.5, 1.1)), label(dir_col))
        self._plane_line = th(pg.PlotCurveItem(), pen_style(
            lambda t: cosmetic_pen(dir_col(t), t.thin_line_width, 220, Qt.DashLine)))
        self._plane_disk = th(polygon_item(np.zeros((3, 2)), color("#000000", 0)), shape_style(
            lambda t: color(dir_col(t), 14), lambda t: cosmetic_pen(dir_col(t), t.thin_line_width, 110, Qt.DotLine)))
        zs = ((self._trail, 5), (self._p_ray, 6), (self._p_mark, 60), (self._p_label, 61), (self._dir_line, 8),
              (self._dir_arrow, 9), (self._dir_label, 61), (self._plane_line, 7), (self._plane_disk, -35))
        for item, z in zs:
            item.setZValue(z)
            item.hide()
            self.plot.addItem(item)
        self._dynamic_items = [item for item, _ in zs]
        self._dir_col = dir_col

    def _trail_points(self, attr: str, upto: int) -> np.ndarray:
        """Embedded Σ w_i y_i φ̃(x_i) of every kept snapshot's p (or α) up to iteration `upto`; cached per iteration."""
        emb = self.picture.embedding
        cache = self._trail_cache
        n = len(self.G)
        new = [(s_.iteration, w) for s_ in self.history
               if s_.iteration not in cache and (w := (s_.p if attr == "p" else s_.alpha)) is not None
               and len(w) == n]
        if new:
            pts = emb.combine(np.array([w for _, w in new]))
            cache.update({it: q for (it, _), q in zip(new, pts)})
        its = sorted(it for it in cache if it <= upto)
        if len(its) > MAX_TRAIL:
            its = its[:: len(its) // MAX_TRAIL + 1] + [its[-1]]
        return np.array([cache[it] for it in its]).reshape(len(its), emb.dim)

    def _draw_dynamic(self) -> None:
        snap = self.snapshot
        if self.picture is None or not self._dynamic_items:
            return
        if snap is None:
            for item in self._dynamic_items:
                item.hide()
            self._dynamic = []
            self._declutter()  # the labelled points follow the weights
            self.set_readout(self._static_readout)
            return
        t = self.theme
        emb = self.picture.embedding
        readout = list(self._static_readout)
        col = "#6a3d9a" if not t.dark else "#c9a7ff"
        dir_col = self._dir_col
        shown: list = []
        p, pname = snap.p, "p"
        alpha = snap.alpha
        if p is None and alpha is not None and len(alpha) == len(self.G) and _in_simplex(alpha):
            p, pname = alpha, "α"  # NKP: α_k itself lies in the simplex, so Σ α_i y_i φ̃(x_i) is a hull point
        if p is not None and len(p) == len(self.G) and not self.features_mode:
            attr = "p" if pname == "p" else "alpha"
            if self._trail_attr != attr:
                self._trail_cache, self._trail_attr = {}, attr
            trail = self._trail_points(attr, snap.iteration)
            if len(trail) > 1:
                T = self._screen(trail)
                self._trail.setData(T[:, 0], T[:, 1])
                shown.append(self._trail)
            p = np.asarray(p, dtype=float)
            q = self._screen(emb.combine(p))[0]
            pg_norm = self._g_norm(p, snap if pname == "p" else None)
            self._p_ray.setData([0.0, q[0]], [0.0, q[1]])
            self._p_mark.setData([q[0]], [q[1]])
            self._p_label.setText(f"{pname}({snap.iteration})")
            self._p_label.setPos(float(q[0]), float(q[1]))
            shown += [self._p_ray, self._p_mark, self._p_label]
            readout.append((f"◆ ‖{pname}({snap.iteration})‖_G = {pg_norm:.4g}", col))
        d, name = self._direction(snap)
        if d is not None:
            u = d / np.linalg.norm(d)
            tip = self._screen(1.25 * u)[0]
            self._dir_line.setData([0.0, tip[0]], [0.0, tip[1]])
            shown.append(self._dir_line)
            if np.linalg.norm(tip[:2]) > 1e-9:
                self._dir_arrow.setStyle(angle=arrow_angle(tip[:2]))
                self._dir_arrow.setPos(float(tip[0]), float(tip[1]))
                shown.append(self._dir_arrow)
            if not getattr(snap.decision, "bias", 0.0):  # with a bias b the plane misses 0 (φ-maps: none)
                shown += self._hyperplane(u)
            # min_i z_i·d/‖d‖ = (Gα)_i/‖α‖_G for the iterate α: the glossary's m(α) (of f, a, read the same way)
            term = MARGINS["normalized"]
            symbol = term.symbol if name.startswith("α") else f"m({name.split('(')[0]})"
            margin = f", {term.name} {symbol} = {self._margin_of(d):.4g}" if emb.exact else ""
            readout.append((f"→ {name} direction{margin}", dir_col))
            self._dir_label.setText(name)
            self._dir_label.setPos(float(tip[0]), float(tip[1]))
            self._dir_label.home_pos = (float(tip[0]), float(tip[1]))
            self._dir_label.home_anchor = (0.0 if tip[0] < -0.3 else 1.0 if tip[0] > 0.3 else 0.5, 1.1)  # inward
            self._dir_label.setAnchor(self._dir_label.home_anchor)
            shown.append(self._dir_label)
        for item in self._dynamic_items:
            item.setVisible(any(item is s_ for s_ in shown))
        self._dynamic = shown
        self._declutter()  # the labels clear of each other; the labelled points follow the weights
        self.set_readout(readout)

    def _g_norm(self, p: np.ndarray, snap=None) -> float:
        """‖p‖_G: the solver's own figure when it reports one, else √(pᵀGp) over p's support."""
        reported = snap.metrics.get("p_g_norm") if snap is not None else None
        if reported is not None and np.isfinite(reported):
            return float(reported)
        nz = np.flatnonzero(p)
        if 2 * len(nz) < len(p):
            q = p[nz]
            return float(np.sqrt(max(q @ self.G[np.ix_(nz, nz)] @ q, 0.0)))
        return float(np.sqrt(max(p @ (self.G @ p), 0.0)))

    def _margin_of(self, d: np.ndarray) -> float:
        """min_i z_i·d/‖d‖ in the embedding: the normalized margin (exact when the embedding is)."""
        return float(np.min(self.picture.embedding.coords @ d) / np.linalg.norm(d))

    def _hyperplane(self, u: np.ndarray) -> list:
        """The plane (3-D: a disk) or line (2-D) through 0 orthogonal to u, where the sign of the score flips."""
        if len(u) == 2 or not self.is_3d:
            if len(u) != 2:
                return []
            v = np.array([-u[1], u[0]])
            seg = self._screen(np.array([-1.3 * v, 1.3 * v]))
            self._plane_line.setData(seg[:, 0], seg[:, 1])
            return [self._plane_line]
        # an orthonormal pair spanning u⊥
        a = np.eye(3)[int(np.argmin(np.abs(u)))]
        e1 = a - (a @ u) * u
        e1 /= np.linalg.norm(e1)
        e2 = np.cross(u, e1)
        th = np.linspace(0, 2 * np.pi, 121)
        disk = 1.15 * (np.cos(th)[:, None] * e1 + np.sin(th)[:, None] * e2)
        D = self._screen(disk)[:, :2]
        self._plane_disk.setPolygon(QPolygonF([QPointF(float(x), float(y)) for x, y in D]))
        return [self._plane_disk]

    # hover and highlight -----------------------------------------------------------------------------
    def _hover_index(self, point, pixel):
        S = self._points_screen
        if self.picture is None or S is None or not len(S):
            return None
        dist = np.linalg.norm(S[:, :2] - point, axis=1)
        i = int(np.argmin(dist))
        return i if dist[i] <= HOVER_PX * pixel + 0.5 * self.theme.marker_size * pixel else None

    def _draw_highlight(self) -> None:
        for item in self._highlight_items:
            self.plot.removeItem(item)
        self._highlight_items = []
        i = self.highlighted
        S = self._points_screen
        if self.picture is None or S is None or i is None or i >= len(S):
            return
        t = self.theme
        ring = pg.ScatterPlotItem([S[i, 0]], [S[i, 1]], symbol="o", size=2.2 * t.marker_size, brush=None,
                                  pen=pg.mkPen(t.highlight, width=3.5))
        ring.setZValue(70)
        lab = pg.TextItem(f"point {i}", color=t.foreground, anchor=(0.5, 1.6), fill=color(t.background, 220))
        lab.setFont(t.font(t.font_pt, bold=True))
        lab.setPos(float(S[i, 0]), float(S[i, 1]))
        lab.setZValue(71)
        for item in (ring, lab):
            self.plot.addItem(item)
            self._highlight_items.append(item)
