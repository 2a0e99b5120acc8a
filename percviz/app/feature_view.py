"""The feature-space panel: the points y_i φ̃(x_i), their convex hull and its point nearest the origin.

This is the picture behind §5 of the paper: the data are separable exactly when the origin is outside
the hull (Gordan), the hull's least norm is then ρ_K, and every p in the simplex gives the hull point
Σ p_i y_i φ̃(x_i) whose norm is ‖p‖_G. Points are embedded from the eigendecomposition of G; three
dimensions are drawn by an orthographic projection the mouse can rotate (no OpenGL needed).
"""

from __future__ import annotations

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import Qt

from percviz.app.geometry_panel import (
    HOVER_PX,
    NOTHING_YET,
    GeometryPanel,
    arrow_angle,
    color,
    cosmetic_pen,
    filled_paths_item,
    path_item,
    polygon_item,
)
from percviz.core.errors import PercvizError
from percviz.core.geometry import MinNormPoint, feature_picture
from percviz.core.gram import optimal_margin

#: Points are labelled by index when there are at most this many.
MAX_LABELS = 30
MAX_TRAIL = 3000


def _axis_rotation(axis: int, degrees: float) -> np.ndarray:
    """Rotation about coordinate axis 0 or 1 (screen x or y) by the given angle."""
    a = np.radians(degrees)
    c, s_ = np.cos(a), np.sin(a)
    if axis == 0:
        return np.array([[1, 0, 0], [0, c, -s_], [0, s_, c]])
    return np.array([[c, 0, s_], [0, 1, 0], [-s_, 0, c]])


def initial_rotation(coords: np.ndarray, nearest: np.ndarray | None) -> np.ndarray:
    """Rows (screen x, screen y, towards the viewer) showing the hull broadside.

    When the hull misses the origin, its nearest point's direction is laid along screen x, so the gap
    between 0 and the hull (ρ_K) is seen at its true length; the view looks along the direction in
    which the points spread least. A small tilt keeps the picture three-dimensional.
    """
    P = np.asarray(coords, dtype=float)
    if nearest is not None and np.linalg.norm(nearest) > 1e-12:
        u = nearest / np.linalg.norm(nearest)
        Q = P - np.outer(P @ u, u)
        w, V = np.linalg.eigh(Q.T @ Q)
        cand = [V[:, k] - (V[:, k] @ u) * u for k in range(3)]
        cand = [c for c in cand if np.linalg.norm(c) > 1e-9]
        view = cand[0] / np.linalg.norm(cand[0])  # least spread first (eigh sorts ascending)
        ex = u
    else:
        w, V = np.linalg.eigh(P.T @ P)
        view, ex = V[:, 0], V[:, 2]
    ey = np.cross(view, ex)
    R = np.vstack([ex, ey, view])
    return _axis_rotation(0, -20.0) @ _axis_rotation(1, 25.0) @ R


def _in_simplex(v) -> bool:
    v = np.asarray(v, dtype=float)
    return bool(v.size and v.min() >= -1e-12 and abs(v.sum() - 1.0) < 1e-9)


class _RotatingViewBox(pg.ViewBox):
    """A ViewBox where a left drag rotates the 3-D picture instead of panning."""

    def __init__(self, panel):
        super().__init__()
        self.panel = panel

    def mouseDragEvent(self, ev, axis=None):
        if self.panel.is_3d and ev.button() == Qt.LeftButton:
            ev.accept()
            d = ev.pos() - ev.lastPos()
            self.panel.rotate(0.5 * d.x(), 0.5 * d.y())
        else:
            super().mouseDragEvent(ev, axis)


class FeatureView(GeometryPanel):
    """The Gordan picture of a kernel algorithm's normalized signed features (or of an explicit φ-map)."""

    @classmethod
    def supports(cls, solver_cls) -> tuple[bool, str]:
        if solver_cls is None:
            return False, "Choose an algorithm to see its feature space."
        rep = getattr(solver_cls, "representation", "kernel")
        if rep in ("kernel", "features"):
            return True, ""
        name = solver_cls.display_name or solver_cls.name
        return False, (
            f"{name} is a multi-class machine; the feature-space picture (hull of yᵢφ̃(xᵢ), Gordan's theorem) "
            "is about two classes. Choose a two-class algorithm to see it."
        )

    def __init__(self, scene, parent=None):
        self.picture = None
        super().__init__(scene, parent)
        self.plot.hideAxis("left")
        self.plot.hideAxis("bottom")
        self.setAccessibleName("feature")
        self.R = np.eye(3)
        self._dynamic: list = []
        self._highlight_items: list = []
        self._static_readout: list = []
        self.show_message("Place + and − points and choose an algorithm to see the feature space.")

    def _make_view_box(self):
        return _RotatingViewBox(self)

    @property
    def is_3d(self) -> bool:
        return self.picture is not None and self.picture.embedding.dim == 3

    # -- the panel contract ----------------------------------------------------------------------
    def set_problem(self, problem, solver_cls) -> None:
        self.problem, self.solver_cls, self.snapshot = problem, solver_cls, None
        self.history, self.picture = [], None
        ok, why = self.supports(solver_cls)
        if not ok:
            self.show_message(why, "Feature space")
            return
        if problem is None or problem.n == 0:
            self.show_message(NOTHING_YET, "Feature space")
            return
        try:
            self.features_mode = solver_cls.representation == "features"
            self.G = self._gram(problem)
            self.picture = feature_picture(self.G, witness=self._witness(problem))
            if self.picture.embedding.dim == 3:
                mn = self.picture.min_point if self.picture.min_norm.separable else None
                self.R = initial_rotation(self.picture.embedding.coords, mn)
        except PercvizError as err:
            self.picture = None
            self.show_message(str(err), "Feature space")
            return
        self.classes = np.asarray(problem.points.classes)
        self.redraw()

    def set_history(self, snapshots) -> None:
        super().set_history(snapshots)
        if self.picture is not None and self.snapshot is not None:
            self._draw_dynamic()

    def set_snapshot(self, snapshot) -> None:
        self.snapshot = snapshot
        if self.picture is not None:
            self._draw_dynamic()

    def rotate(self, d_horizontal: float, d_vertical: float) -> None:
        """Turn the 3-D picture about the screen's vertical and horizontal axes (degrees)."""
        self.R = _axis_rotation(0, d_vertical) @ _axis_rotation(1, d_horizontal) @ self.R
        self.redraw(keep_range=True)

    # -- data ----------------------------------------------------------------------------------------
    def _gram(self, problem) -> np.ndarray:
        """G of the paper for kernel algorithms; for φ-map procedures the same built from y_i φ(x_i)/‖φ(x_i)‖."""
        if not self.features_mode:
            return np.asarray(problem.G, dtype=float)
        Y = np.asarray(problem.Y, dtype=float)
        norms = np.linalg.norm(Y, axis=1)
        if np.any(norms <= 1e-12):
            i = int(np.flatnonzero(norms <= 1e-12)[0])
            raise PercvizError(f"Point {i} has φ(x) = 0, so y φ(x)/‖φ(x)‖ does not exist; move or delete it.")
        self.Yhat = Y / norms[:, None]
        return self.Yhat @ self.Yhat.T

    def _witness(self, problem) -> MinNormPoint | None:
        """The hull's least-norm point from the core's ρ_K (memoized on the problem) for kernel algorithms."""
        if self.features_mode:
            return None  # the φ-map's Gram matrix has rank ≤ d̂: Wolfe's algorithm is instant there
        m = optimal_margin(problem)
        p = np.asarray(m.p, dtype=float)
        norm = float(np.sqrt(max(p @ self.G @ p, 0.0)))
        return MinNormPoint(p, norm, bool(m.separable))

    def _screen(self, P) -> np.ndarray:
        """Embedded coordinates → (screen x, screen y, depth)."""
        P = np.atleast_2d(np.asarray(P, dtype=float))
        if P.shape[1] == 2:
            return np.column_stack([P, np.zeros(len(P))])
        return P @ self.R.T

    def _direction(self, snapshot) -> tuple[np.ndarray | None, str]:
        """The current separating direction in embedded coordinates, and its name."""
        emb = self.picture.embedding
        if self.features_mode:
            w = getattr(snapshot, "weights", None)
            if w is None or np.ndim(w) != 1 or not np.any(w):
                return None, ""
            scores = self.Yhat @ np.asarray(w, dtype=float)  # ŷ_i·a = coords_i·d
            d = np.linalg.lstsq(emb.coords, scores, rcond=None)[0]
            return (d if np.any(d) else None), f"a({snapshot.iteration})"
        # Read the direction off the decision function itself, whatever its coefficients mean:
        # y_i (f(x_i) − b)/√K(x_i, x_i) = ⟨f, y_i φ̃(x_i)⟩ = coords_i · d (exactly when the embedding is).
        decision = getattr(snapshot, "decision", None)
        if decision is None or getattr(decision, "n_outputs", 1) != 1:
            return None, ""
        try:
            f = np.asarray(decision(self.problem.X), dtype=float) - float(getattr(decision, "bias", 0.0) or 0.0)
        except Exception:  # a decision function this picture cannot read: draw no arrow
            return None, ""
        scores = self.problem.y * f / np.sqrt(self.problem.self_kernel)
        if not np.all(np.isfinite(scores)) or not np.any(scores):
            return None, ""
        d = np.linalg.lstsq(emb.coords, scores, rcond=None)[0]
        name = "α" if getattr(snapshot, "alpha", None) is not None else "f"
        return (d if np.linalg.norm(d) > 1e-12 else None), f"{name}({snapshot.iteration})"

    # -- drawing ------------------------------------------------------------------------------------
    def redraw(self, keep_range: bool = False) -> None:
        if self.picture is None:
            return
        self.show_plot()
        rng = self.plot.getViewBox().viewRange() if keep_range else None
        self.plot.clear()
        self._dynamic, self._highlight_items = [], []
        self._draw_static()
        if rng is not None:
            self.plot.setRange(xRange=rng[0], yRange=rng[1], padding=0)
        self._draw_dynamic()
        self._draw_highlight()

    def _draw_static(self) -> None:
        t, pic = self.theme, self.picture
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
            facing = {}
            polys: dict[bool, list] = {True: [], False: []}
            for f, tri in enumerate(hull.faces):
                P = emb.coords[tri]
                nrm = np.cross(P[1] - P[0], P[2] - P[0])
                if nrm @ (P.mean(axis=0) - centre) < 0:
                    nrm = -nrm
                facing[f] = float(nrm @ view) > 0
                polys[facing[f]].append(S[tri, :2])
            self.plot.addItem(filled_paths_item(polys[False], color(hull_col, 30), z=-30))
            self.plot.addItem(filled_paths_item(polys[True], color(hull_col, 45), z=-29))
            edge_faces: dict[tuple[int, int], list[int]] = {}
            for f, tri in enumerate(hull.faces):
                for a, b in ((tri[0], tri[1]), (tri[1], tri[2]), (tri[0], tri[2])):
                    edge_faces.setdefault((min(a, b), max(a, b)), []).append(f)
            front, back = [], []
            for a, b in hull.edges:
                seg = S[[a, b], :2]
                (front if any(facing[f] for f in edge_faces.get((a, b), [])) else back).append(seg)
            self.plot.addItem(path_item(back, cosmetic_pen(hull_col, t.thin_line_width, 200, Qt.DashLine), z=-20))
            self.plot.addItem(path_item(front, cosmetic_pen(hull_col, 0.75 * t.line_width, 220), z=-19))
        elif hull.dim == 2:
            poly = S[hull.faces[0], :2]
            self.plot.addItem(polygon_item(poly, color(hull_col, 45), cosmetic_pen(hull_col, t.line_width), z=-25))
        elif hull.dim == 1:
            a, b = hull.edges[0]
            self.plot.addItem(path_item([S[[a, b], :2]], cosmetic_pen(hull_col, t.line_width), z=-25))
        # the origin and the hull's point nearest to it
        mnp = pic.min_norm
        star_col = "#1e7b34" if not t.dark else "#7be495"
        if mnp.separable:
            m = self._screen(pic.min_point)[0]
            self.plot.addItem(path_item([np.array([[0, 0], m[:2]])], cosmetic_pen(star_col, t.line_width, 255, Qt.DashLine),
                                        z=5))
            self.plot.addItem(pg.ScatterPlotItem([m[0]], [m[1]], symbol="star", size=2.1 * t.marker_size,
                                                 brush=color(star_col), pen=pg.mkPen(t.background, width=1)))
            self.text_item("ρ_K", m[:2], (1.15, -0.2), 0.95, star_col, fill=True)
            where = "" if pic.embedding.exact else " (in the full space)"
            self._static_readout = [(f"★ nearest hull point: ρ_K = {mnp.norm:.4g}{where}", star_col)]
        else:
            self.plot.addItem(pg.ScatterPlotItem([0], [0], symbol="o", size=2.4 * t.marker_size, brush=None,
                                                 pen=pg.mkPen(star_col, width=2.5)))
            self.text_item("0 ∈ hull", (0, 0), (0.5, -1.0), 0.95, star_col, fill=True)
            self._static_readout = [("0 lies in the hull: no separator exists (Gordan)", star_col)]
        self.plot.addItem(pg.ScatterPlotItem([0], [0], symbol="o", size=0.8 * t.marker_size, brush=t.foreground,
                                             pen=None))
        self.text_item("0", (0, 0), (1.4, 1.2), 0.9, t.foreground)
        # the points, drawn last so they sit on top; nearer points over farther ones
        order = np.argsort(S[:, 2])  # one item, drawn back to front
        cols = [color(t.class_color(int(self.classes[k]))) for k in order]
        self.plot.addItem(pg.ScatterPlotItem(
            S[order, 0], S[order, 1], symbol=[t.class_symbol(int(self.classes[k])) for k in order],
            size=t.marker_size, brush=cols, pen=[pg.mkPen(c, width=2.5) for c in cols],
        ))
        if len(S) <= MAX_LABELS:
            for i, s in enumerate(S):
                self.text_item(str(i), s[:2], (-0.3, 0.9), 0.8, t.class_color(int(self.classes[i])))
        self._set_texts()

    def _set_texts(self) -> None:
        pic = self.picture
        what = "yᵢ φ(xᵢ)/‖φ(xᵢ)‖ of the φ-map" if self.features_mode else "yᵢ φ̃(xᵢ)"
        self.set_title(f"Feature space of {what} — {pic.embedding.title()}")
        parts = [
            "Points on the unit sphere, grey: their convex hull.",
            "★ its point nearest the origin (norm ρ_K)."
            if pic.min_norm.separable
            else "The origin lies in the hull, so no separator exists (Gordan's theorem, §5).",
        ]
        if not self.features_mode:
            parts.append("◆ Σ pᵢ yᵢφ̃(xᵢ) for the current p: its distance to 0 is ‖p‖_G.")
        parts.append("Arrow: the current separating direction, with its hyperplane.")
        if self.is_3d:
            parts.append("Drag to rotate.")
        self.caption.setText(" ".join(parts))

    def _add(self, item):
        self.plot.addItem(item)
        self._dynamic.append(item)
        return item

    def _draw_dynamic(self) -> None:
        for item in self._dynamic:
            self.plot.removeItem(item)
        self._dynamic = []
        snap = self.snapshot
        if self.picture is None:
            return
        if snap is None:
            self.set_readout(self._static_readout)
            return
        t = self.theme
        emb = self.picture.embedding
        readout = list(self._static_readout)
        col = "#6a3d9a" if not t.dark else "#c9a7ff"
        dir_col = "#b35806" if not t.dark else "#fdb863"
        p, pname = getattr(snap, "p", None), "p"
        alpha = getattr(snap, "alpha", None)
        if p is None and alpha is not None and len(alpha) == len(self.G) and _in_simplex(alpha):
            p, pname = alpha, "α"  # NKP: α_k itself lies in the simplex, so Σ α_i y_i φ̃(x_i) is a hull point
        if p is not None and len(p) == len(self.G) and not self.features_mode:
            attr = "p" if pname == "p" else "alpha"
            trail = [getattr(s, attr) for s in self.history
                     if getattr(s, attr, None) is not None and s.iteration <= snap.iteration]
            if len(trail) > MAX_TRAIL:
                trail = trail[:: len(trail) // MAX_TRAIL + 1] + [trail[-1]]
            if len(trail) > 1:
                T = self._screen(emb.combine(np.array(trail)))
                self._add(pg.PlotDataItem(T[:, 0], T[:, 1], pen=pg.mkPen(col, width=t.thin_line_width)))
            q = self._screen(emb.combine(p))[0]
            pg_norm = float(np.sqrt(max(np.asarray(p) @ self.G @ np.asarray(p), 0.0)))
            self._add(path_item([np.array([[0, 0], q[:2]])], cosmetic_pen(col, t.thin_line_width, 200, Qt.DotLine), z=6))
            self._add(pg.ScatterPlotItem([q[0]], [q[1]], symbol="d", size=1.5 * t.marker_size, brush=col,
                                         pen=pg.mkPen(t.background, width=1.5))).setZValue(60)
            readout.append((f"◆ ‖{pname}({snap.iteration})‖_G = {pg_norm:.4g}", col))
            lab = pg.TextItem(f"{pname}({snap.iteration})", color=col, anchor=(-0.15, 1.0),
                              fill=color(t.background, 200))
            lab.setFont(t.font(t.font_pt, bold=True))
            lab.setPos(float(q[0]), float(q[1]))
            lab.setZValue(61)
            self._add(lab)
        d, name = self._direction(snap)
        if d is not None:
            u = d / np.linalg.norm(d)
            tip = self._screen(1.25 * u)[0]
            self._add(path_item([np.array([[0, 0], tip[:2]])], cosmetic_pen(dir_col, 1.3 * t.line_width), z=8))
            if np.linalg.norm(tip[:2]) > 1e-9:
                arrow = pg.ArrowItem(angle=arrow_angle(tip[:2]), headLen=1.6 * t.marker_size, tipAngle=35,
                                     pen=pg.mkPen(dir_col), brush=color(dir_col))
                arrow.setPos(float(tip[0]), float(tip[1]))
                arrow.setZValue(9)
                self._add(arrow)
            if not getattr(getattr(snap, "decision", None), "bias", 0.0):  # with a bias b the plane misses 0
                self._add(self._hyperplane(u, dir_col))
            lab = pg.TextItem(name, color=dir_col, anchor=(0.5, 1.1), fill=color(t.background, 200))
            margin = f", normalized margin {self._margin_of(d):.4g}" if emb.exact else ""
            readout.append((f"→ {name} direction{margin}", dir_col))
            lab.setFont(t.font(t.font_pt, bold=True))
            lab.setPos(float(tip[0]), float(tip[1]))
            lab.setZValue(61)
            self._add(lab)
        self.set_readout(readout)

    def _margin_of(self, d: np.ndarray) -> float:
        """min_i z_i·d/‖d‖ in the embedding: the normalized margin (exact when the embedding is)."""
        return float(np.min(self.picture.embedding.coords @ d) / np.linalg.norm(d))

    def _hyperplane(self, u: np.ndarray, col: str):
        """The plane (3-D: a disk) or line (2-D) through 0 orthogonal to u, where the sign of the score flips."""
        t = self.theme
        if len(u) == 2 or not self.is_3d:
            v = np.array([-u[1], u[0]]) if len(u) == 2 else None
            if v is None:
                return path_item([], cosmetic_pen(col, 1))
            seg = np.array([-1.3 * v, 1.3 * v])
            return path_item([self._screen(seg)[:, :2]], cosmetic_pen(col, t.thin_line_width, 220, Qt.DashLine), z=7)
        # an orthonormal pair spanning u⊥
        a = np.eye(3)[int(np.argmin(np.abs(u)))]
        e1 = a - (a @ u) * u
        e1 /= np.linalg.norm(e1)
        e2 = np.cross(u, e1)
        th = np.linspace(0, 2 * np.pi, 121)
        disk = 1.15 * (np.cos(th)[:, None] * e1 + np.sin(th)[:, None] * e2)
        D = self._screen(disk)[:, :2]
        return polygon_item(D, color(col, 14), cosmetic_pen(col, t.thin_line_width, 110, Qt.DotLine), z=-35)

    # hover and highlight -----------------------------------------------------------------------------
    def _hover_index(self, point, pixel):
        S = getattr(self, "_points_screen", None)
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
        S = getattr(self, "_points_screen", None)
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
