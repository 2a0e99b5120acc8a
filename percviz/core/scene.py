"""The scene model: the points a person places plus the run settings; every edit goes through here.

Point edits are commands with undo/redo; `points_changed` fires after every edit (and undo/redo),
`settings_changed` after a change of kernel, φ-map, algorithm, parameters or iteration limit.
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


class SceneModel:
    """Points (n×2) with class indices, undo/redo of point edits, settings, a modified flag."""

    def __init__(self, points: PointSet | None = None, settings: Settings | None = None):
        self.points_changed = Event()  # emit(kind: str) with kind in add/remove/move/clear/replace/undo/redo
        self.settings_changed = Event()  # emit(settings: Settings)
        self.modified_changed = Event()  # emit(modified: bool)
        self._X = np.zeros((0, 2))
        self._c = np.zeros(0, dtype=np.int64)
        if points is not None:
            self._X, self._c = np.array(points.X), np.array(points.classes)
        self._settings = settings or Settings()
        self._undo: list[tuple[str, tuple, tuple]] = []  # (label, state before, state after)
        self._redo: list[tuple[str, tuple, tuple]] = []
        self._drag: tuple | None = None
        self._modified = False

    # -- reading --------------------------------------------------------------
    @property
    def points(self) -> PointSet:
        return PointSet(self._X, self._c)

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
        self._X = np.vstack([self._X, [[float(x), float(y)]]])
        self._c = np.append(self._c, int(cls))
        self._record("add point", before, "add")
        return self.n - 1

    def remove_point(self, i: int) -> None:
        self._check_index(i)
        before = self._state()
        self._X = np.delete(self._X, i, axis=0)
        self._c = np.delete(self._c, i)
        self._record("delete point", before, "remove")

    def move_point(self, i: int, x: float, y: float) -> None:
        """Move point i; during a drag (begin_drag/end_drag) the moves make one undo step."""
        self._check_index(i)
        self._check_xy(x, y)
        if self._drag is None:
            before = self._state()
            self._X = self._X.copy()
            self._X[i] = (x, y)
            self._record("move point", before, "move")
        else:
            self._X = self._X.copy()
            self._X[i] = (x, y)
            self.points_changed.emit("move")

    def begin_drag(self) -> None:
        self._drag = self._state()

    def end_drag(self) -> None:
        """Close a drag: one undo step from its start to here (none if nothing moved)."""
        if self._drag is None:
            return
        before, self._drag = self._drag, None
        if not np.array_equal(before[0], self._X):
            self._push("move point", before)

    def set_class(self, i: int, cls: int) -> None:
        self._check_index(i)
        before = self._state()
        self._c = self._c.copy()
        self._c[i] = int(cls)
        self._record("change class", before, "classes")

    def clear(self) -> None:
        if self.n == 0:
            return
        before = self._state()
        self._X, self._c = np.zeros((0, 2)), np.zeros(0, dtype=np.int64)
        self._record("clear", before, "clear")

    def set_points(self, points: PointSet, undoable: bool = True) -> None:
        """Replace all points (loading a file or a generated set)."""
        before = self._state()
        self._X, self._c = np.array(points.X), np.array(points.classes)
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
        self._restore(before)
        self.points_changed.emit("undo")
        self._set_modified(True)
        return True

    def redo(self) -> bool:
        if not self._redo:
            return False
        label, before, after = self._redo.pop()
        self._undo.append((label, before, after))
        self._restore(after)
        self.points_changed.emit("redo")
        self._set_modified(True)
        return True

    # -- settings -----------------------------------------------------------------------
    def set_settings(self, **changes: Any) -> None:
        """Change kernel/features/algorithm/params/max_iter; emits settings_changed if anything changed."""
        current = self._settings.__dict__.copy()
        unknown = set(changes) - set(current)
        if unknown:
            raise TypeError(f"unknown settings {sorted(unknown)}")
        current.update(changes)
        new = Settings(**current)
        if new != self._settings:
            self._settings = new
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
    def _state(self) -> tuple:
        return (self._X.copy(), self._c.copy())

    def _restore(self, state: tuple) -> None:
        self._X, self._c = state[0].copy(), state[1].copy()

    def _push(self, label: str, before: tuple) -> None:
        self._undo.append((label, before, self._state()))
        self._redo.clear()
        self._set_modified(True)

    def _record(self, label: str, before: tuple, kind: str) -> None:
        self._push(label, before)
        self.points_changed.emit(kind)

    def _check_index(self, i: int) -> None:
        if not 0 <= int(i) < self.n:
            raise DataError(f"There is no point {i}; the scene has {self.n} points.")

    @staticmethod
    def _check_xy(x: float, y: float) -> None:
        if not (np.isfinite(x) and np.isfinite(y)):
            raise DataError(f"Cannot place a point at ({x}, {y}): coordinates must be finite.")
