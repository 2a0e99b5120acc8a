"""The feature-space panel: the points y_i φ̃(x_i), their convex hull and its point nearest the origin.

This is the picture behind §5 of the paper: the data are separable exactly when the origin is outside
the hull (Gordan), the hull's least norm is then ρ_K, and every p in the simplex gives the hull point
Σ p_i y_i φ̃(x_i) whose norm is ‖p‖_G. Points are embedded from the eigendecomposition of G; three
dimensions are drawn by an orthographic projection the mouse can rotate (no OpenGL needed).
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QCoreApplication, QElapsedTimer, QPointF, QRectF, Qt, QTimer
from PySide6.QtGui import QPolygonF
from PySide6.QtWidgets import QGraphicsItem

from percviz.app.run.background import Task
from percviz.app.panels.geometry_panel import (
    HOVER_PX,
    GeometryPanel,
    arrow_angle,
    color,
    cosmetic_pen,
    filled_paths_item,
    path_item,
    polygon_item,
    segments_item,
)
from percviz.app.run.panel_pacer import PANEL_INTERVAL
from percviz.core import gram as core_gram
from percviz.core.errors import PercvizError
from percviz.core.glossary import MARGINS
from percviz.core.geometry import Cancelled, MinNormPoint, feature_picture, min_norm_point
from percviz.core.grid import one_blas_thread

#: At most this many points carry their index: those with the largest weight (α or p, else the witness p of ρ_K).
MAX_LABELS = 8
MAX_TRAIL = 3000
#: Up to this many points the embedding and hull are computed at once on the UI thread (an eigh of a
#: 200×200 matrix takes a few ms); beyond, on the panel's background thread.
SYNC_MAX_N = 200
#: The current direction is fitted on at most this many points (the decision function costs O(n) each).
FIT_MAX = 96
#: A background picture waits at most this long (ms) for its least-norm point, so that both are drawn at once.
MIN_NORM_GRACE_MS = 200
#: Above this many points the picture is not drawn (its n×n eigh would take minutes; issue 13).
EMBED_MAX_N = 3000
def signed_unit_gram(problem, features_mode: bool) -> tuple[np.ndarray, np.ndarray | None]:
    """G of the paper for kernel algorithms; for φ-map procedures the same built from ŷ_i = y_i φ(x_i)/‖φ(x_i)‖."""
    if problem.n > EMBED_MAX_N:  # the embedding is an eigh of this n×n matrix: O(n³), minutes at 10,000 points
        raise PercvizError(
            f"The feature-space picture embeds the points by an eigen-decomposition of the n×n Gram matrix; "
            f"at {problem.n:,} points (more than {EMBED_MAX_N:,}) it is not drawn. The other views still run."
        )
    if not features_mode:
        return np.asarray(problem.G, dtype=float), None
    Y = np.asarray(problem.Y, dtype=float)
    norms = np.linalg.norm(Y, axis=1)
    if np.any(norms <= 1e-12):
        i = int(np.flatnonzero(norms <= 1e-12)[0])
        raise PercvizError(f"Point {i} has φ(x) = 0, so y φ(x)/‖φ(x)‖ does not exist; move or delete it.")
    Yhat = Y / norms[:, None]
    return Yhat @ Yhat.T, Yhat


def _as_min_norm(margin, G) -> MinNormPoint:
    """The core's ρ_K as the picture's witness: separable, not separable (confirmed), or None (undecided)."""
    p = np.asarray(margin.p, dtype=float)
    separable = True if margin.separable else (False if margin.decided else None)
    note = "" if separable is not None else "ρ_K is below what double precision resolves on G here"
    return MinNormPoint(p, float(np.sqrt(max(p @ G @ p, 0.0))), separable, note)


def features_witness(problem, G) -> MinNormPoint:
    """Wolfe's least-norm point of the unit rows ŷ_i, its verdict checked on the points (Gordan either way):
    'separable' needs x·ŷ_i > 0 for every i; '0 in the hull' needs the exact LP on the scale-free rows
    (core.certify) to confirm it, since an absolute threshold on ‖x‖ cannot tell a thin margin from none."""
    from percviz.core.certify import refute_nonseparable

    mnp = min_norm_point(G)
    if mnp.separable and (G @ mnp.p).min() > 0:  # (Ĝp)_i = x·ŷ_i: x itself separates
        return mnp
    why = refute_nonseparable(problem.Y, problem)
    if not why:  # the exact LP confirms that no a has every a·y_i > 0
        return replace(mnp, separable=False)
    seen = "0 seems to lie in the hull at double precision" if not mnp.separable else "its least-norm point does not separate"
    return replace(mnp, separable=None, note=f"{seen}, but {why}")


def cached_witness(problem, G) -> MinNormPoint | None:
    """The hull's least-norm point when the core has already memoized ρ_K on this problem; never computes it."""
    margin = core_gram.peek(problem, "rho_K")
    return None if margin is None else _as_min_norm(margin, G)


def compute_witness(problem, G, features_mode: bool) -> MinNormPoint | None:
    """The hull's least-norm point: Wolfe's algorithm for a φ-map (rank ≤ d̂), else the core's ρ_K (memoized);
    None when ρ_K would take minutes (the core's margin_affordable rule: over BOUND_MAX_N points or rank)."""
    if features_mode:
        return features_witness(problem, G)
    if not core_gram.margin_affordable(problem):
        return None
    return _as_min_norm(core_gram.optimal_margin(problem), G)


def picture_stages(problem, features_mode: bool, G: np.ndarray | None, cancelled):
    """The feature-space picture off the UI thread (a percviz.app.run.background.Task): yields ("picture", (G, Ŷ,
    picture)) unless G is given, then ("min_norm", MinNormPoint or None); ("error", text) when it fails."""
    # one BLAS thread: a threaded BLAS spinning on two busy cores made a 300×300 eigh take seconds
    with one_blas_thread():
        try:
            if G is None:
                G, Yhat = signed_unit_gram(problem, features_mode)
                # the view waits up to MIN_NORM_GRACE_MS for the least-norm point that follows, to draw both at once
                yield "picture", (G, Yhat, feature_picture(G, min_norm=False, cancelled=cancelled))
            yield "min_norm", compute_witness(problem, G, features_mode)
        except Cancelled:
            return
        except PercvizError as exc:
            yield "error", str(exc)


class PictureJob(Task):
    """The Task computing one feature-space picture (`picture_stages`); `progress` carries (kind, payload)."""

    def __init__(self, problem, features_mode: bool, G: np.ndarray | None = None, parent=None):
        super().__init__(parent, name="percviz-feature-picture")
        self.args = (problem, features_mode, G)

    def start(self) -> "PictureJob":  # type: ignore[override]
        return super().start(picture_stages, *self.args, self.cancelled)


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

    view, redraw_interval, dock_title = "feature", PANEL_INTERVAL, "Feature space"
    defer_during_drag = True  # set_problem builds the Gram picture: once per drag pause, not per move

    _witness_skipped = False  # ρ_K was not computed (too costly): the readout says so instead of "computing…"

    @classmethod
    def supports(cls, solver_cls) -> tuple[bool, str]:
        if solver_cls is None:
            return False, "Choose an algorithm to see its feature space."
        if "feature" in solver_cls.views:  # the solver's declaration is the one source
            return True, ""
        name = solver_cls.display_name or solver_cls.name
        if solver_cls.representation != "multiclass":
            return False, f"{name} has no feature-space picture."
        return False, (
            f"{name} is a multi-class machine; the feature-space picture (hull of yᵢφ̃(xᵢ), Gordan's theorem) "
            "is about two classes. Choose a two-class algorithm to see it."
        )

    def __init__(self, scene, parent=None):
        self.picture = None
        super().__init__(scene, parent)
        self.readout.setToolTip("<br>".join(MARGINS[k].tooltip for k in ("rho", "normalized")))
        self.plot.hideAxis("left")
        self.plot.hideAxis("bottom")
        self.setAccessibleName("feature")
        self.R = np.eye(3)
        self._job: PictureJob | None = None
        self._inbox: list = []  # the current job's results not drawn yet
        self._drawing = 0  # counts redraws: a queued label turn belongs to one
        self._labels_later = False
        self._grace = QTimer(self)
        self._grace.setSingleShot(True)
        self._grace.setInterval(MIN_NORM_GRACE_MS)
        self._grace.timeout.connect(self._queue_inbox)
        self.features_mode = False
        self._trail_cache: dict = {}
        self._trail_attr = ""
        self._user_rotated = False
        self._point_labels: list = []
        self.plot.getViewBox().sigResized.connect(self._declutter)
        self.plot.getViewBox().sigRangeChanged.connect(self._declutter)  # (labels keep their pixel size)
        app = QCoreApplication.instance()
        if app is not None:
            app.aboutToQuit.connect(self.shutdown)
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
        self._stop_job()
        self.problem, self.solver_cls, self.snapshot = problem, solver_cls, None
        self.history, self.picture, self.G, self.Yhat = [], None, None, None
        self._trail_cache: dict = {}
        self._user_rotated = False
        self._witness_skipped = False
        if self._refuses(problem, solver_cls, "Feature space"):
            return
        self.features_mode = solver_cls.representation == "features"
        self.classes = np.asarray(problem.points.classes)
        if problem.n > SYNC_MAX_N:
            # O(n³) work (or the margin QP) never runs on the UI thread: the picture comes from a job
            self._start_job(PictureJob(problem, self.features_mode))
            text = f"Computing the feature-space picture of {problem.n} points…"
            if self.showing_message or not hasattr(self, "_dynamic_items"):
                self.show_message(text, "Feature space")
            else:  # while a point is dragged: the last picture stays, faded, until the new one is ready
                for item in self._dynamic_items + self._highlight_items:
                    item.hide()
                self._points_screen = None
                self.plot.getViewBox().setOpacity(0.35)
                self.set_title(text)
                self.set_readout([])
            return
        try:
            with one_blas_thread():
                G, Yhat = signed_unit_gram(problem, self.features_mode)
                self._install(G, Yhat, feature_picture(G, min_norm=False))
                mnp = cached_witness(problem, G) if not self.features_mode else features_witness(problem, G)
        except PercvizError as err:
            self.show_message(str(err), "Feature space")
            return
        if mnp is not None:
            self._install_min_norm(mnp)
        else:
            self._start_job(PictureJob(problem, self.features_mode, G))
        self.redraw(split=True)

    def set_reference(self, rho) -> None:
        """ρ_K has been computed (the session's signal): take the hull's least-norm point from the memo at once."""
        if rho is None or self.picture is None or self.picture.min_norm is not None or self.features_mode:
            return
        mnp = cached_witness(self.problem, self.G)
        if mnp is not None:
            self._stop_job()
            self._install_min_norm(mnp)
            self.redraw()

    @property
    def computing(self) -> bool:
        """A background job is still working on the current picture."""
        return self._job is not None

    def wait_ready(self, timeout_ms: int = 30000, *, check: bool = True) -> bool:
        """Process events until the current picture is complete (tests, screenshots); True then.

        On time-out: TimeoutError saying the feature-space picture is still computed, or False when check=False.
        """
        clock = QElapsedTimer()
        clock.start()
        while self._job is not None and clock.elapsed() < timeout_ms:
            self._job.wait(10)
            QCoreApplication.processEvents()
        if check and self._job is not None:
            raise TimeoutError(f"the feature view still computes its picture after {timeout_ms} ms")
        return self._job is None

    def shutdown(self, wait_ms: int = 2000) -> bool:
        """Cancel the background job and wait for its thread (True when no thread of this panel runs)."""
        job = self._job
        self._stop_job()
        return job is None or job.wait(wait_ms)

    def closeEvent(self, event) -> None:
        self.shutdown()
        super().closeEvent(event)

    # -- the background job ---------------------------------------------------------------------------
    def _start_job(self, job: PictureJob) -> None:
        self._job = job
        self._inbox: list = []
        job.progress.connect(lambda message, j=job: self._on_job_message(j, message))
        job.failed.connect(lambda text, j=job: self._on_job_message(j, ("error", text)))
        job.start()

    def _stop_job(self) -> None:
        job, self._job = self._job, None
        self._inbox = []
        self._grace.stop()
        if job is not None:
            job.cancel()

    def _on_job_message(self, job, message) -> None:
        """Collect the job's results; drawn together in one turn of their own (one redraw, ~40 ms): the picture
        waits up to MIN_NORM_GRACE_MS for the hull's least-norm point, which mostly follows within milliseconds."""
        if job is not self._job:
            return
        self._inbox.append(message)
        if message[0] == "picture":
            self._grace.start()
        else:
            self._grace.stop()
            self._queue_inbox()

    def _queue_inbox(self) -> None:
        job = self._job
        if job is not None and self._inbox:
            self.in_turn_of_its_own("job", lambda: self._take_inbox(job))

    def _take_inbox(self, job) -> None:
        if job is not self._job:
            return
        messages, self._inbox = self._inbox, []
        if not messages:
            return
        for kind, payload in messages:
            self._on_job_result(job, kind, payload, draw=False)
        if self.picture is not None:
            self.redraw(split=any(kind == "picture" for kind, _ in messages))

    def _on_job_result(self, job, kind, payload, draw: bool = True) -> None:
        if job is not self._job:
            return  # superseded by a newer problem
        if kind == "picture":
            self._install(*payload)
            if draw:
                self.redraw()
        elif kind == "min_norm":
            self._job = None
            self._witness_skipped = payload is None
            if self.picture is not None:
                if payload is not None:
                    self._install_min_norm(payload)
                if draw:
                    self.redraw()
        else:
            self._job = None
            self.picture = None
            self.show_message(str(payload), "Feature space")

    def _install(self, G, Yhat, picture) -> None:
        self.G, self.Yhat, self.picture = G, Yhat, picture
        n = len(G)
        self._fit_rows = np.arange(n) if n <= FIT_MAX else np.linspace(0, n - 1, FIT_MAX).astype(int)
        self._trail_cache = {}
        if picture.embedding.dim == 3:
            self.R = initial_rotation(picture.embedding.coords, None)

    def _install_min_norm(self, mnp: MinNormPoint) -> None:
        self.picture = self.picture.with_min_norm(mnp)
        if self.picture.embedding.dim == 3 and not self._user_rotated:
            self.R = initial_rotation(self.picture.embedding.coords, self.picture.min_point if mnp.separable is True
                                      else None)

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
        self._user_rotated = True
        self.redraw(keep_range=True)

    # -- data ----------------------------------------------------------------------------------------
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
        rows = self._fit_rows  # a fixed subsample for large n: 3 unknowns, the decision costs O(n) per row
        try:
            f = np.asarray(decision(self.problem.X[rows]), dtype=float) - float(getattr(decision, "bias", 0.0) or 0.0)
        except Exception:  # a decision function this picture cannot read: draw no arrow
            return None, ""
        scores = self.problem.y[rows] * f / np.sqrt(self.problem.self_kernel[rows])
        if not np.all(np.isfinite(scores)) or not np.any(scores):
            return None, ""
        d = np.linalg.lstsq(emb.coords[rows], scores, rcond=None)[0]
        name = "α" if getattr(snapshot, "alpha", None) is not None else "f"
        return (d if np.linalg.norm(d) > 1e-12 else None), f"{name}({snapshot.iteration})"

    # -- drawing ------------------------------------------------------------------------------------
    def redraw(self, keep_range: bool = False, split: bool = False) -> None:
        """The whole picture; split (a new problem's first picture): the points' number labels (~1 ms each, a
        third of the cost) in the next event-loop turn of the panel's own (Panel.in_turn_of_its_own)."""
        if self.picture is None:
            return
        self._drawing += 1
        self._labels_later = split
        self.plot.getViewBox().setOpacity(1.0)
        self.show_plot()
        rng = self.plot.getViewBox().viewRange() if keep_range else None
        self.plot.clear()
        self._dynamic, self._highlight_items = [], []
        self._draw_static()
        # the static layer (hull, points, circle) is painted once into a pixmap per zoom, not every frame
        for item in self.plot.getViewBox().addedItems:
            if not isinstance(item, pg.TextItem):
                item.setCacheMode(QGraphicsItem.DeviceCoordinateCache)
        if rng is not None:
            self.plot.setRange(xRange=rng[0], yRange=rng[1], padding=0)
        self._make_dynamic_items()
        self._draw_dynamic()
        self._draw_highlight()
        if split:
            drawing = self._drawing
            self.in_turn_of_its_own("labels", lambda: self._make_point_labels(drawing))

    def _make_point_labels(self, drawing: int | None = None) -> None:
        """The number labels of the heaviest points (placed by _fit_point_labels); drawing: of that redraw only."""
        S = getattr(self, "_points_screen", None)
        if (drawing is not None and drawing != self._drawing) or self.picture is None or S is None:
            return  # drawn again meanwhile, with its own labels
        self._point_labels = [self.text_item("", (0, 0), (-0.3, 0.9), 0.8, self.theme.foreground, fill=True)
                              for _ in range(min(MAX_LABELS, len(S)))]
        if drawing is not None:
            self._declutter()  # the marks' labels first, then the numbers in the room they leave

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

    def _label_weights(self) -> np.ndarray | None:
        """The weight each point carries now: the snapshot's p or α, else the witness p of ρ_K (None: no weights)."""
        S = getattr(self, "_points_screen", None)
        n = 0 if S is None else len(S)
        if n == 0 or len(getattr(self, "classes", ())) != n:
            return None  # a new problem whose picture is not drawn yet
        for w in (getattr(self.snapshot, "p", None), getattr(self.snapshot, "alpha", None),
                  getattr(getattr(self.picture, "min_norm", None), "p", None)):
            if w is not None and np.shape(w) == (n,):
                w = np.abs(np.asarray(w, dtype=float))
                if np.isfinite(w).all() and w.max() > 0:
                    return w
        return None

    #: Where a label may sit around its point (TextItem anchors), its own first: right-above, left-above, …
    ANCHORS = ((-0.15, 1.0), (1.15, 1.0), (-0.15, 0.0), (1.15, 0.0), (0.5, 1.35), (0.5, -0.35))

    @staticmethod
    def _label_rect(vb, item, anchor, pos=None) -> QRectF:
        """The label's box in scene pixels were it anchored at `anchor` (at `pos`, else where it is)."""
        br = item.textItem.boundingRect()
        at = vb.mapViewToScene(item.pos() if pos is None else QPointF(*pos))
        return QRectF(at.x() - anchor[0] * br.width(), at.y() - anchor[1] * br.height(), br.width(), br.height())

    def _declutter(self, *_args) -> None:
        """The named marks' labels ("0 ∈ hull" or "ρ_K", p(k), the direction α(k), "0") in turn, each moved
        around its mark until it covers no label placed before it (else hidden: the readout names them all), then
        the point numbers in the room left."""
        vb = self.plot.getViewBox()
        inside = vb.sceneBoundingRect()
        taken: list[QRectF] = []
        marks = list(getattr(self, "_static_labels", []))[:-1]  # "0 ∈ hull" / "ρ_K" first; the bare "0" last
        marks += [lab for lab in (getattr(self, "_p_label", None), getattr(self, "_dir_label", None))
                  if lab is not None and any(lab is x for x in self._dynamic)]
        marks += list(getattr(self, "_static_labels", []))[-1:]
        for item in marks:
            try:
                own = (item.anchor.x(), item.anchor.y())
            except RuntimeError:  # the item was cleared with its plot
                continue
            home = getattr(item, "home_anchor", None) or own
            item.home_anchor = home
            # where it may go: by its mark; the direction's label also back along its arrow (the tip may be
            # beyond the plot's edge)
            x, y = getattr(item, "home_pos", None) or (item.pos().x(), item.pos().y())
            spots = [(x, y)] + ([(f * x, f * y) for f in (0.85, 0.7, 0.55)] if item is getattr(self, "_dir_label", None)
                                else [])
            free = []  # (spot, anchor, box) of the places that cover no earlier label; inside the plot preferred
            for spot in spots:
                for anchor in (home,) + tuple(a for a in self.ANCHORS if a != home):
                    rect = self._label_rect(vb, item, anchor, spot)
                    if not any(rect.intersects(r) for r in taken):
                        free.append((spot, anchor, rect))
            if free:
                spot, anchor, rect = next((f for f in free if inside.contains(f[2])), free[0])
                item.setPos(*spot)
                item.setAnchor(anchor)
                item.setVisible(True)
                taken.append(rect)
            else:
                item.setVisible(False)
        self._fit_point_labels(taken=taken)

    def _fit_point_labels(self, *_args, taken: list | None = None) -> None:
        """Number the points that carry the most weight, never one label over another (nor in a narrow dock)."""
        labels = getattr(self, "_point_labels", [])
        if not labels:
            return
        vb = self.plot.getViewBox()
        w = self._label_weights() if vb.width() >= 230 * self.theme.scale else None
        chosen: list[int] = []
        if w is not None:  # the heaviest few (a few spares for labels that would overlap)
            top = np.argpartition(-w, min(len(w), 4 * len(labels)) - 1)[: 4 * len(labels)]
            chosen = [int(i) for i in top[np.argsort(-w[top], kind="stable")] if w[i] > 1e-9 * w.max()]
        S = self._points_screen
        taken = list(taken or [])
        slot = 0
        for i in chosen:
            if slot == len(labels):
                break
            item = labels[slot]
            item.setText(str(i), color=self.theme.class_color(int(self.classes[i])))
            item.setPos(float(S[i, 0]), float(S[i, 1]))
            br = item.textItem.boundingRect()
            at = vb.mapViewToScene(QPointF(float(S[i, 0]), float(S[i, 1])))
            rect = QRectF(at.x() - item.anchor.x() * br.width(), at.y() - item.anchor.y() * br.height(),
                          br.width(), br.height())
            if any(rect.intersects(r) for r in taken):
                continue  # a heavier point's label is there already
            taken.append(rect)
            item.show()
            slot += 1
        for item in labels[slot:]:
            item.hide()

    def _set_texts(self) -> None:
        pic = self.picture
        what = "yᵢ φ(xᵢ)/‖φ(xᵢ)‖ of the φ-map" if self.features_mode else "yᵢ φ̃(xᵢ)"
        self.set_title(f"Feature space of {what} — {pic.embedding.title()}")
        parts = [
            "Points on the unit sphere, grey: their convex hull.",
            "★ its point nearest the origin (norm ρ_K)."
            if pic.min_norm is None or pic.min_norm.separable is not False
            else "The origin lies in the hull, so no separator exists (Gordan's theorem, §5).",
        ]
        if not self.features_mode:
            parts.append("◆ Σ pᵢ yᵢφ̃(xᵢ) for the current p: its distance to 0 is ‖p‖_G.")
        parts.append("Arrow: the current separating direction, with its hyperplane.")
        if self.is_3d:
            parts.append("Drag to rotate.")
        self.caption.setText(" ".join(parts))

    def _make_dynamic_items(self) -> None:
        """The items the snapshots move: made once per redraw, then only fed new data."""
        t = self.theme
        col = "#6a3d9a" if not t.dark else "#c9a7ff"
        dir_col = "#b35806" if not t.dark else "#fdb863"
        self._trail = pg.PlotCurveItem(pen=pg.mkPen(col, width=t.thin_line_width))
        self._p_ray = pg.PlotCurveItem(pen=cosmetic_pen(col, t.thin_line_width, 200, Qt.DotLine))
        self._p_mark = pg.ScatterPlotItem(symbol="d", size=1.5 * t.marker_size, brush=col,
                                          pen=pg.mkPen(t.background, width=1.5))
        self._p_label = pg.TextItem("", color=col, anchor=(-0.15, 1.0), fill=color(t.background, 200))
        self._dir_line = pg.PlotCurveItem(pen=cosmetic_pen(dir_col, 1.3 * t.line_width))
        self._dir_arrow = pg.ArrowItem(angle=0, headLen=1.6 * t.marker_size, tipAngle=35, pen=pg.mkPen(dir_col),
                                       brush=color(dir_col))
        self._dir_label = pg.TextItem("", color=dir_col, anchor=(0.5, 1.1), fill=color(t.background, 200))
        self._plane_line = pg.PlotCurveItem(pen=cosmetic_pen(dir_col, t.thin_line_width, 220, Qt.DashLine))
        self._plane_disk = polygon_item(np.zeros((3, 2)), color(dir_col, 14),
                                        cosmetic_pen(dir_col, t.thin_line_width, 110, Qt.DotLine))
        for lab in (self._p_label, self._dir_label):
            lab.setFont(t.font(t.font_pt, bold=True))
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
               if s_.iteration not in cache and (w := getattr(s_, attr, None)) is not None and len(w) == n]
        if new:
            pts = emb.combine(np.array([w for _, w in new]))
            cache.update({it: q for (it, _), q in zip(new, pts)})
        its = sorted(it for it in cache if it <= upto)
        if len(its) > MAX_TRAIL:
            its = its[:: len(its) // MAX_TRAIL + 1] + [its[-1]]
        return np.array([cache[it] for it in its]).reshape(len(its), emb.dim)

    def _draw_dynamic(self) -> None:
        snap = self.snapshot
        if self.picture is None or not hasattr(self, "_dynamic_items"):
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
        p, pname = getattr(snap, "p", None), "p"
        alpha = getattr(snap, "alpha", None)
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
            if not getattr(getattr(snap, "decision", None), "bias", 0.0):  # with a bias b the plane misses 0
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
        reported = getattr(snap, "metrics", {}).get("p_g_norm") if snap is not None else None
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
