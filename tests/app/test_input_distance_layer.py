"""View ▸ Input distances on the real window: one segment per point, each ending on the drawn curve f = 0."""

from __future__ import annotations

import numpy as np
import pytest
from PySide6.QtWidgets import QApplication

from percviz.app.main_window import MainWindow
from percviz.core.datasets import ring
from percviz.core.presets import Preset, ViewSettings
from percviz.core.scene import SceneModel



def _distance_to_polyline(P: np.ndarray, L: np.ndarray) -> np.ndarray:
    """Distance from each row of P to the polyline L (NaN rows separate pieces)."""
    ok = np.isfinite(L).all(axis=1)
    a, b = L[:-1], L[1:]
    keep = ok[:-1] & ok[1:]
    a, b = a[keep], b[keep]
    ab = b - a
    t = np.clip(np.einsum("mk,nk->mn", P, ab) - (a * ab).sum(1), 0, None) / np.maximum((ab * ab).sum(1), 1e-300)
    t = np.minimum(t, 1.0)
    Q = a[None] + t[..., None] * ab[None]
    return np.linalg.norm(Q - P[:, None], axis=2).min(axis=1)


@pytest.fixture
def window(qtbot):
    w = MainWindow(SceneModel(), install_classroom=False)
    qtbot.addWidget(w)
    w.resize(1200, 800)
    w.show()
    qtbot.waitExposed(w)
    yield w
    w.close()


@pytest.mark.parametrize("algorithm", ["svm", "input-space-svm"])
def test_toggle_draws_one_segment_per_point_ending_on_the_curve(window, qtbot, tmp_path, algorithm):
    pts = ring()
    params = {"margin": "hard"}
    preset = Preset(pts, title="ring", kernel="rbf:gamma=0.5", algorithm=algorithm, params=params,
                    view=ViewSettings(panels=("canvas",), range=(-2.6, 2.6, -2.6, 2.6)))
    window.load_preset(preset)
    window.session.run_to_end()
    assert window.session.wait_idle(60)
    QApplication.processEvents()
    layer = window.input_layer
    canvas = window.panels["canvas"]
    action = window.input_distances_action
    assert action.text().replace("&", "").lower() == "input distances" and not action.isChecked()
    assert len(layer.segment_data()[0]) == 0
    action.trigger()  # View ▸ Input distances
    qtbot.waitUntil(lambda: layer.result is not None and len(layer.segment_data()[0]) == pts.n, timeout=60000)
    canvas.redraw_now()
    starts, ends = layer.segment_data()
    np.testing.assert_allclose(starts, pts.X)
    x, y = canvas.boundary_curve.getData()
    drawn = np.column_stack([x, y])
    cell = max(canvas.viewbox.viewPixelSize()) * 4  # the drawn curve is marching squares on the canvas grid
    assert _distance_to_polyline(ends, drawn).max() < cell
    caption = layer.caption.text()
    assert caption.startswith("input-space distance d_x = ")  # which margin, in the glossary's words
    assert any(term in caption for term in ("SVM margin γ(w) = ", "normalized margin m(α) = ", "geometric margin γ(a) = "))
    assert layer.caption.isVisible()
    window.grab().save(str(tmp_path / f"input-distances-{algorithm}.png"))
    action.trigger()
    assert not layer.segments.isVisible() and not layer.caption.isVisible()
