"""Generators: shapes checked against scikit-learn's SVMs; the dialog replaces the points in one undo step."""

from __future__ import annotations

import numpy as np
import pytest
from helpers import canvas_pos
from PySide6.QtTest import QTest
from PySide6.QtCore import Qt

from percviz.core.errors import ParameterError
from percviz.core.generators import GENERATORS, generate
from percviz.core.presets import SHIPPED_DIR

svm = pytest.importorskip("sklearn.svm")
NOTES_80 = SHIPPED_DIR / "notes-80-separable.json"


@pytest.mark.parametrize("margin", [0.2, 0.8])
def test_separable_set_has_at_least_the_chosen_margin(margin):
    pts = generate("separable", n=200, noise=0.3, seed=3, margin=margin)
    y = np.where(pts.classes == 0, 1, -1)
    clf = svm.SVC(kernel="linear", C=1e8).fit(pts.X, y)  # hard margin: 1/‖w‖ is the largest margin
    assert (clf.predict(pts.X) == y).all()
    best = 1.0 / np.linalg.norm(clf.coef_)
    assert best >= margin - 1e-6
    assert best <= margin + 0.2  # and not much more: the closest points sit near the margin


@pytest.mark.parametrize("name", ["moons", "circles", "xor", "spirals"])
def test_curved_shapes_are_not_linearly_separable_but_an_rbf_svm_separates_them(name):
    pts = generate(name, n=200, noise=0.0, seed=1)
    y = pts.classes
    lin = svm.SVC(kernel="linear", C=100).fit(pts.X, y)
    assert lin.score(pts.X, y) < 0.97
    rbf = svm.SVC(kernel="rbf", gamma=3.0 if name == "spirals" else 1.0, C=1e4).fit(pts.X, y)
    assert rbf.score(pts.X, y) == 1.0


def test_blobs_seed_and_bad_values():
    a = generate("blobs", n=90, noise=0.0, seed=5, classes=3)
    assert a.n == 90 and sorted(set(a.classes)) == [0, 1, 2]
    assert np.array_equal(a.X, generate("blobs", n=90, noise=0.0, seed=5, classes=3).X)
    assert not np.array_equal(a.X, generate("blobs", n=90, noise=0.0, seed=6, classes=3).X)
    for bad in (dict(name="nope"), dict(name="moons", n=1), dict(name="moons", noise=-1.0),
                dict(name="moons", margin=1.0), dict(name="blobs", classes=9)):
        with pytest.raises(ParameterError):
            generate(**bad)
    assert len(GENERATORS) == 6


def test_the_dialog_replaces_the_points_in_one_undo_step(hall_window):
    w = hall_window(NOTES_80)
    before = w.scene.points.X.copy()
    w.classroom.actions["generate"].trigger()
    dlg = w.classroom.generators_dialog
    dlg.kind.setCurrentIndex(dlg.kind.findData("moons"))
    assert not dlg.margin.isVisible() and not dlg.classes.isVisible()
    dlg.n.setValue(60)
    QTest.mouseClick(dlg.replace, Qt.MouseButton.LeftButton)
    assert w.scene.n == 60 and not dlg.isVisible()
    w.session.wait_idle()
    assert w.session.problem is not None and w.session.problem.n == 60
    w.undo_action.trigger()
    np.testing.assert_array_equal(w.scene.points.X, before)


def test_the_brush_paints_a_stroke_of_the_chosen_class_as_one_undo_step(hall_window):
    w = hall_window(NOTES_80)
    c = w.panels["canvas"]
    c.viewbox.setRange(xRange=(-4, 4), yRange=(-4, 4), padding=0)
    n0 = w.scene.n
    w.controls.class_selector.set_current_class(1)
    QTest.keyClick(c.plot, Qt.Key.Key_B)
    assert w.classroom.brush.on

    vp = c.plot.viewport()
    QTest.mousePress(vp, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier, canvas_pos(c, -3, 0))
    for k in range(1, 21):
        QTest.mouseMove(vp, canvas_pos(c, -3 + 0.2 * k, 0))
    QTest.mouseRelease(vp, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier, canvas_pos(c, 1, 0))
    added = w.scene.n - n0
    assert added >= 20  # about density points per brush width along 4 units
    new = w.scene.points.X[n0:]
    assert (w.scene.points.classes[n0:] == 1).all()
    assert -4.5 < new[:, 0].min() and new[:, 0].max() < 2.5 and np.abs(new[:, 1]).max() < 2.0
    w.undo_action.trigger()
    assert w.scene.n == n0
