"""The Preset a script asks for: `percviz.show(X, y, …)`'s and `percviz.record(X, y, …)`'s arguments, validated."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from percviz.core.data import PointSet
from percviz.core.errors import DataError, ParameterError, PresetError


def points_from_arrays(X, y) -> PointSet:
    """Points of the plane from X (n×2) and labels y: with two labels the larger is '+' (as `classes_[1]` in
    percviz.estimators: 1 of 0/1, +1 of ±1); with more, classes 0, 1, … in sorted order."""
    X = np.asarray(X, dtype=float)
    y = np.asarray(y)
    if y.ndim != 1 or X.ndim != 2 or y.shape[0] != X.shape[0]:
        raise DataError(f"show() needs X of shape n×2 and y of length n; got X {X.shape} and y {y.shape}.")
    labels, idx = np.unique(y, return_inverse=True)
    points = PointSet.from_signed(X, np.where(idx == 1, 1, -1)) if len(labels) == 2 else PointSet(X, idx)
    points.require_plane("percviz.show")
    return points


def scene_for(X=None, y=None, *, algorithm=None, kernel=None, features=None, params=None, max_iter=None,
              preset=None, title=None):
    """The validated Preset to show: preset (a Preset, a file or a shipped name) and/or the arrays X, y."""
    from percviz.core.presets import Preset, load_scene, shipped_presets

    if isinstance(preset, Preset):
        base = preset
    elif preset is not None:
        shipped = {s.name: s.path for s in shipped_presets()}
        path = shipped.get(str(preset), Path(preset))
        base = load_scene(path)
    else:
        base = Preset(PointSet(np.zeros((0, 2)), []), title="From Python")
    if X is not None or y is not None:
        if X is None or y is None:
            raise DataError("show() needs both X and y (or neither, with a preset).")
        base = base.replace(points=points_from_arrays(X, y))
    base.points.require_plane("percviz.show")
    if title is not None:
        base = base.replace(title=str(title))
    try:
        return base.with_overrides(algorithm=algorithm, kernel=kernel, features=features, params=dict(params or {}),
                                   max_iter=max_iter, source=_SOURCE)
    except PresetError as e:
        if e.path != _SOURCE:
            raise
        raise ParameterError(f"show(): {e.problem}") from None


_SOURCE = "show()"
