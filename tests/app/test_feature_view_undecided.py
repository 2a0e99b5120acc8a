"""verify10: the feature view's "0 lies in the hull: no separator exists" is a claim, made only when the core (the
CLI's code path) decides it; an undecided ρ_K is shown as undecided. The set is separable (x2 = 1 splits it)."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest

from percviz.app.main_window import MainWindow
from percviz.core.data import PointSet
from percviz.core.scene import SceneModel, Settings

THIN = np.array([[0.0, 1 + 1e-9], [0.0, 1 - 1e-9], [1.0, 1 + 1e-9], [1.0, 1 - 1e-9], [-1.0, 1 + 1e-9]])
CLASSES = np.array([0, 1, 0, 1, 0])  # 0 = '+': above x2 = 1


@pytest.mark.parametrize("algorithm", ["snkp", "perceptron"])  # kernel mode (G), φ-map mode (unit rows)
def test_a_thin_separable_set_is_never_shown_as_0_in_the_hull(qtbot, algorithm):
    assert all((1 if c == 0 else -1) * (Fraction(float(x2)) - 1) > 0 for (_, x2), c in zip(THIN, CLASSES))
    w = MainWindow(SceneModel(PointSet(THIN, CLASSES), Settings(algorithm=algorithm, kernel="affine")),
                   install_classroom=False)
    qtbot.addWidget(w)
    w.resize(1400, 900)
    w.show()
    qtbot.waitExposed(w)
    assert w.session.wait_idle(30)
    feature = w.panels["feature"]
    qtbot.waitUntil(lambda: not feature.computing and "ρ_K" in feature.readout.text()
                    or "hull" in feature.readout.text(), timeout=20000)
    text = feature.readout.text() + " " + feature.caption.text()
    assert "no separator exists" not in text and "0 lies in the hull" not in text, text
    assert "undecided" in text or "nearest hull point" in text, text
    w.close()
