"""Bad input in the real window: a clear message (what is wrong, what to do), nothing the user made is lost."""

from __future__ import annotations

import numpy as np
import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication, QLineEdit

from percviz.app.main_window import MainWindow
from percviz.app.run.session import INVALID
from percviz.core.data import PointSet
from percviz.core.scene import SceneModel, Settings


#: Two small separable clouds; point 3 is the one the tests move.
X = np.array([[1.0, 1.2], [1.5, 0.4], [0.8, 2.0], [2.0, 1.0], [-1.0, -1.1], [-1.6, -0.3], [-0.7, -2.0]])
C = np.array([0, 0, 0, 0, 1, 1, 1])


def _window(qtbot, kernel="linear", algorithm="kernel-perceptron", X=X, C=C):
    w = MainWindow(SceneModel(PointSet(X, C), Settings(algorithm=algorithm, kernel=kernel, max_iter=500)),
                   install_classroom=False)
    qtbot.addWidget(w)
    w.show()
    qtbot.waitExposed(w)
    w.session.wait_idle()
    return w


def _status(w) -> str:
    return w.controls.status.text()


def _finite_image(w) -> None:
    """Whatever the canvas shows is finite (no NaN decision image)."""
    canvas = w.panels["canvas"]
    for item in canvas.plot.getPlotItem().items:
        img = getattr(item, "image", None)
        if isinstance(img, np.ndarray) and img.size and np.issubdtype(img.dtype, np.floating):
            assert np.isfinite(img).all()


def test_a_point_at_the_origin_with_the_homogeneous_kernel_is_named_and_fixable(qtbot):
    w = _window(qtbot)
    assert w.session.state != INVALID
    w.scene.move_point(3, 0.0, 0.0)
    w.session.wait_idle()
    assert w.session.state == INVALID and w.session.problem is None
    text = _status(w)
    assert "Point 3" in text and "(0, 0)" in text  # which point
    assert "Move or delete that point" in text and "affine" in text  # what to do
    assert w.statusBar().currentMessage() == w.session.error
    assert not w.controls.step_button.isEnabled()
    np.testing.assert_array_equal(w.scene.points.X[3], [0.0, 0.0])  # nothing of the user's is dropped
    assert w.scene.n == len(X)
    w.step_action.trigger()  # Space on an invalid scene: the message again, no crash
    assert w.session.state == INVALID
    w.scene.move_point(3, 2.0, 1.0)
    w.session.wait_idle()
    assert w.session.state != INVALID and w.session.problem is not None
    assert w.controls.step_button.isEnabled() and "Point 3" not in _status(w)
    w.session.step()
    qtbot.waitUntil(lambda: w.session.current is not None and w.session.current.iteration == 1, timeout=3000)
    w.close()


def test_one_class_only_says_which_class_to_add(qtbot):
    w = _window(qtbot, kernel="affine", algorithm="perceptron")
    w.scene.set_class(4, 0), w.scene.set_class(5, 0), w.scene.set_class(6, 0)
    w.session.wait_idle()
    assert w.session.state == INVALID
    text = _status(w)
    assert "−" in text and ("right" in text.lower() or "add" in text.lower() or "place" in text.lower()), text
    assert w.scene.n == len(X) and (w.scene.points.classes == 0).all()
    w.scene.undo()
    w.session.wait_idle()
    assert w.session.state != INVALID
    w.close()


@pytest.mark.filterwarnings("ignore:overflow encountered:RuntimeWarning")  # the overflow under test
def test_a_degree_12_polynomial_on_far_points_overflows_with_a_message_not_a_crash(qtbot):
    far = X * 1e30
    w = _window(qtbot, kernel="poly:degree=12,c=1", algorithm="kernel-perceptron", X=far)
    w.session.step()
    w.session.wait_idle()
    text = _status(w)
    assert w.session.state == INVALID, text
    assert "overflow" in text.lower() and ("scale" in text.lower() or "degree" in text.lower()), text
    assert "Internal error" not in text
    _finite_image(w)
    np.testing.assert_array_equal(w.scene.points.X, far)
    w.close()


def test_a_parameter_out_of_range_is_marked_inline_and_nothing_runs(qtbot):
    w = _window(qtbot, kernel="rbf", algorithm="kernel-perceptron")
    form = w.controls.kernel_form
    editor = form.editor("gamma")
    assert isinstance(editor, QLineEdit)
    before = w.scene.settings
    editor.setFocus()
    editor.selectAll()
    qtbot.keyClicks(editor, "-3")
    qtbot.keyClick(editor, Qt.Key.Key_Return)
    QApplication.processEvents()
    label = next(lbl for lbl in form.findChildren(type(w.controls.status)) if lbl.accessibleName() == "error:gamma")
    assert label.isVisible() and "gamma" in label.text().lower() and label.text() == form.error_text("gamma")
    assert "c62828" in label.styleSheet()  # red, next to the field
    assert w.scene.settings == before  # the bad value never reaches the run
    assert not w.controls.step_button.isEnabled() and "Fix the highlighted value" in _status(w)
    n = len(w.session.history)
    w.step_action.trigger()  # the Space key does not run past the form either
    w.run_action.trigger()
    w.session.wait_idle()
    assert len(w.session.history) == n and w.session.state not in ("playing", "running")
    editor.selectAll()
    qtbot.keyClicks(editor, "2")
    qtbot.keyClick(editor, Qt.Key.Key_Return)
    QApplication.processEvents()
    assert form.is_valid() and w.controls.step_button.isEnabled()
    assert "gamma=2" in str(w.scene.settings.kernel).replace(" ", "")
    w.close()
