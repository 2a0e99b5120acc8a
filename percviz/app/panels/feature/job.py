"""The feature-space picture's computation (embedding, hull, least-norm point), off the UI thread beyond SYNC_MAX_N."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
from PySide6.QtCore import QCoreApplication, QElapsedTimer

from percviz.app.panels.feature.rotation import initial_rotation
from percviz.app.panels.feature.style import EMBED_MAX_N, FIT_MAX
from percviz.app.run.background import Task
from percviz.core import gram as core_gram
from percviz.core.errors import PercvizError
from percviz.core.geometry import Cancelled, MinNormPoint, feature_picture, min_norm_point
from percviz.core.grid import one_blas_thread


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
    if _separates(mnp, G):
        return mnp
    why = refute_nonseparable(problem.Y, problem)
    if not why:  # the exact LP confirms that no a has every a·y_i > 0
        return replace(mnp, separable=False)
    seen = "0 seems to lie in the hull at double precision" if not mnp.separable else "its least-norm point does not separate"
    return replace(mnp, separable=None, note=f"{seen}, but {why}")


def _separates(mnp: MinNormPoint, G) -> bool:
    return bool(mnp.separable and (G @ mnp.p).min() > 0)  # (Ĝp)_i = x·ŷ_i: x itself separates


def separating_witness(G) -> MinNormPoint | None:
    """Wolfe's least-norm point of the unit rows when it separates them (checked), else None: the exact LP that
    decides the other case (features_witness) is a job's, never the UI thread's (0.2–0.4 s at rff:dim=5000)."""
    mnp = min_norm_point(G)
    return mnp if _separates(mnp, G) else None


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


class FeatureJobs:
    """Starts, cancels and installs the panel's background picture job."""

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
