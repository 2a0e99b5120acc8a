"""The scene model: the points a person places plus the run settings; every edit goes through here.

Point edits and setting changes are commands with one undo/redo history; `points_changed` fires after every point
edit (and its undo/redo), `settings_changed` after a change of kernel, φ-map, algorithm, parameters or iteration
limit (and its undo/redo).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from percviz.core.data import PointSet
from percviz.core.errors import DataError
from percviz.core.events import Event


@dataclass(frozen=True)
class Settings:
    """What to run on the points: kernel and φ-map specs, algorithm name, its parameters, iteration limit."""

    kernel: str = "affine"
    features: str = "linear"
    algorithm: str = "snkp"
    params: dict[str, Any] = field(default_factory=dict)
    max_iter: int = 1000


#: How the Undo entry names a change of each setting.
_SETTING_WORDS = {"algorithm": "algorithm", "kernel": "kernel", "features": "φ-map", "params": "parameters",
                  "max_iter": "iteration limit"}


def _settings_label(old: Settings, new: Settings) -> str:
    """'change kernel', 'change algorithm', …: the undo step's name (with the algorithm, only the algorithm)."""
    changed = [k for k in _SETTING_WORDS if getattr(old, k) != getattr(new, k)]
    return "change " + _SETTING_WORDS["algorithm" if "algorithm" in changed else changed[0]]


class SceneModel:
    """Points (n×2) with class indices, settings, undo/redo of both, a modified flag."""

    def __init__(self, points: PointSet | None = None, settings: Settings | None = None):
        self.points_changed = Event()  # emit(kind: str) with kind in add/remove/move/clear/replace/undo/redo
        self.settings_changed = Event()  # emit(settings: Settings)
        self.modified_changed = Event()  # emit(modified: bool)
        self._points = PointSet(np.zeros((0, 2)), np.zeros(0, dtype=np.int64)) if points is None else points
        #: What the scene is about (saved with it; shown in the window title and the explanation panel).
        self.title = "Untitled scene"
        self.explanation = ""
        self._settings = settings or Settings()
        # (label, before, after): the points of a point edit, the settings of a setting change
        self._undo: list[tuple[str, PointSet | Settings, PointSet | Settings]] = []
        self._redo: list[tuple[str, PointSet | Settings, PointSet | Settings]] = []
        self._drag: PointSet | None = None
        self._modified = False

    # -- reading --------------------------------------------------------------
    @property
    def points(self) -> PointSet:
        """The points now: one immutable PointSet, replaced (never changed) by each edit."""
        return self._points

    @property
    def _X(self) -> np.ndarray:
        return self._points.X

    @property
    def _c(self) -> np.ndarray:
        return self._points.classes

    def _set(self, X, c) -> None:
        self._points = PointSet(X, c)

    @property
    def n(self) -> int:
        return int(self._X.shape[0])

    @property
    def settings(self) -> Settings:
        return self._settings

    @property
    def modified(self) -> bool:
        return self._modified

    def nearest(self, x: float, y: float, max_dist: float | None = None) -> int | None:
        """Index of the point nearest (x, y), or None if there is none within max_dist."""
        if self.n == 0:
            return None
        d = np.hypot(self._X[:, 0] - x, self._X[:, 1] - y)
        i = int(np.argmin(d))
        return i if max_dist is None or d[i] <= max_dist else None

    # -- point edits (undoable) ---------------------------------------------------
    def add_point(self, x: float, y: float, cls: int = 0) -> int:
        """Append a point of class cls; returns its index."""
        self._check_xy(x, y)
        if int(cls) < 0:
            raise DataError("Class indices start at 0.")
        before = self._state()
        self._set(np.vstack([self._X, [[float(x), float(y)]]]), np.append(self._c, int(cls)))
        self._record("add point", before, "add")
        return self.n - 1

    def remove_point(self, i: int) -> None:
        self._check_index(i)
        before = self._state()
        self._set(np.delete(self._X, i, axis=0), np.delete(self._c, i))
        self._record("delete point", before, "remove")

    def move_point(self, i: int, x: float, y: float) -> None:
        """Move point i; during a drag (begin_drag/end_drag) the moves make one undo step."""
        self._check_index(i)
        self._check_xy(x, y)
        X = self._X.copy()
        X[i] = (x, y)
        if self._drag is None:
            before = self._state()
            self._set(X, self._c)
            self._record("move point", before, "move")
        else:
            self._set(X, self._c)
            self.points_changed.emit("move")

    def begin_drag(self) -> None:
        self._drag = self._state()

    @property
    def dragging(self) -> bool:
        """Whether a drag (begin_drag … end_drag) is in progress."""
        return self._drag is not None

    def end_drag(self) -> None:
        """Close a drag: one undo step from its start to here (none if nothing moved)."""
        if self._drag is None:
            return
        before, self._drag = self._drag, None
        if not np.array_equal(before.X, self._X):
            self._push("move point", before)

    def set_class(self, i: int, cls: int) -> None:
        self._check_index(i)
        before = self._state()
        c = self._c.copy()
        c[i] = int(cls)
        self._set(self._X, c)
        self._record("change class", before, "classes")

    def clear(self) -> None:
        if self.n == 0:
            return
        before = self._state()
        self._set(np.zeros((0, 2)), np.zeros(0, dtype=np.int64))
        self._record("clear", before, "clear")

    def set_points(self, points: PointSet, undoable: bool = True) -> None:
        """Replace all points (loading a file or a generated set)."""
        before = self._state()
        self._points = points if isinstance(points, PointSet) else PointSet(points.X, points.classes)
        if undoable:
            self._record("replace points", before, "replace")
        else:
            self._undo.clear()
            self._redo.clear()
            self.points_changed.emit("replace")

    # -- undo/redo --------------------------------------------------------------------
    @property
    def can_undo(self) -> bool:
        return bool(self._undo)

    @property
    def can_redo(self) -> bool:
        return bool(self._redo)

    def undo_text(self) -> str:
        return self._undo[-1][0] if self._undo else ""

    def redo_text(self) -> str:
        return self._redo[-1][0] if self._redo else ""

    def undo(self) -> bool:
        if not self._undo:
            return False
        label, before, after = self._undo.pop()
        self._redo.append((label, before, after))
        self._restore(before, "undo")
        return True

    def redo(self) -> bool:
        if not self._redo:
            return False
        label, before, after = self._redo.pop()
        self._undo.append((label, before, after))
        self._restore(after, "redo")
        return True

    # -- settings -----------------------------------------------------------------------
    def set_settings(self, undoable: bool = True, **changes: Any) -> None:
        """Change kernel/features/algorithm/params/max_iter: one undo step (not undoable: a loaded scene's own
        settings); emits settings_changed if anything changed."""
        current = self._settings.__dict__.copy()
        unknown = set(changes) - set(current)
        if unknown:
            raise TypeError(f"unknown settings {sorted(unknown)}")
        current.update(changes)
        new = Settings(**current)
        if new != self._settings:
            before, self._settings = self._settings, new
            if undoable:
                self._push(_settings_label(before, new), before)
            self.settings_changed.emit(new)
            self._set_modified(True)

    # -- saved state ----------------------------------------------------------------------
    def mark_saved(self) -> None:
        self._set_modified(False)

    def mark_modified(self) -> None:
        """Flag the scene as unsaved (an edit outside the points and settings: title, a restored autosave)."""
        self._set_modified(True)

    def _set_modified(self, value: bool) -> None:
        if value != self._modified:
            self._modified = value
            self.modified_changed.emit(value)

    # -- internals -----------------------------------------------------------------------------
    def _state(self) -> PointSet:
        return self._points  # immutable: the undo stack shares it

    def _restore(self, state: PointSet | Settings, kind: str) -> None:
        """Back (or forward) to a recorded state: the points or the settings it holds, with their event."""
        if isinstance(state, Settings):
            self._settings = state
            self.settings_changed.emit(state)
        else:
            self._points = state
            self.points_changed.emit(kind)
        self._set_modified(True)

    def _push(self, label: str, before: PointSet | Settings) -> None:
        self._undo.append((label, before, self._settings if isinstance(before, Settings) else self._state()))
        self._redo.clear()
        self._set_modified(True)

    def _record(self, label: str, before: PointSet, kind: str) -> None:
        self._push(label, before)
        self.points_changed.emit(kind)

    def _check_index(self, i: int) -> None:
        if not 0 <= int(i) < self.n:
            raise DataError(f"There is no point {i}; the scene has {self.n} points.")

    @staticmethod
    def _check_xy(x: float, y: float) -> None:
        if not (np.isfinite(x) and np.isfinite(y)):
            raise DataError(f"Cannot place a point at ({x}, {y}): coordinates must be finite.")
