"""The scene's undo history holds setting changes beside point edits, in the order they were made."""

import numpy as np

from percviz.core.data import PointSet
from percviz.core.scene import SceneModel, Settings


def _scene():
    return SceneModel(PointSet(np.array([[0.0, 0.0], [1.0, 1.0]]), np.array([0, 1])), Settings())


def test_a_setting_change_is_one_step_named_for_what_changed():
    sc = _scene()
    seen = []
    sc.settings_changed.connect(lambda s: seen.append(s.kernel))
    sc.set_settings(kernel="rbf:gamma=2")
    assert sc.undo_text() == "change kernel"
    sc.set_settings(algorithm="nkp", max_iter=50)
    assert sc.undo_text() == "change algorithm"
    sc.set_settings(features="quadratic")
    assert sc.undo_text() == "change φ-map"
    assert sc.undo() and sc.settings.features == "linear"
    assert sc.undo() and sc.settings.algorithm == "snkp" and sc.settings.max_iter == 1000
    assert sc.undo() and sc.settings == Settings() and not sc.can_undo
    assert seen == ["rbf:gamma=2", "rbf:gamma=2", "rbf:gamma=2", "rbf:gamma=2", "rbf:gamma=2", "affine"]
    assert sc.redo() and sc.settings.kernel == "rbf:gamma=2"


def test_points_and_settings_undo_in_order_each_with_its_own_event():
    sc = _scene()
    events = []
    sc.points_changed.connect(lambda kind: events.append(kind))
    sc.settings_changed.connect(lambda s: events.append("settings"))
    sc.add_point(2.0, 2.0, 1)
    sc.set_settings(params={"rate": 0.5})
    sc.set_settings(params={"rate": 0.5})  # no change: no step
    events.clear()
    assert sc.undo() and sc.settings.params == {} and sc.n == 3
    assert sc.undo() and sc.n == 2
    assert events == ["settings", "undo"]
    sc.set_settings(undoable=False, kernel="linear")  # a loaded scene's own settings: not a step
    assert not sc.can_undo and sc.undo_text() == ""
    sc.set_settings(undoable=False, kernel="linear")
    assert sc.settings.kernel == "linear"


def test_undoing_a_point_edit_leaves_settings_set_since_alone():
    sc = _scene()
    sc.add_point(2.0, 2.0, 1)
    sc.set_settings(undoable=False, kernel="linear")  # not a step of its own
    assert sc.undo() and sc.n == 2 and sc.settings.kernel == "linear"
    assert sc.redo() and sc.n == 3 and sc.settings.kernel == "linear"
