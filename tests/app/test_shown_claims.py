"""What the window claims after a run (status box, weight and feature views) holds on the points, at any scale.

Each scene is written as a preset, opened through File ▸ Open (FileActions.open_path) and run with the Run button,
as a person would; the claims shown are then checked independently (an exact HiGHS LP on y_i φ(x_i) in exact
rescaled form, or by hand: two distinct points with opposite labels are always separable). Found by
bench/audit_gui.py on main: the feature view said "0 lies in the hull: no separator exists (Gordan)" and the weight
view "the cone is empty — no linear separator" for separable points at 1e-12 or 1e-3; the SVM said "w = 0 … no
boundary" for a separating SMO solution at 1e3.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np
import pytest
from PySide6.QtCore import Qt

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from lp_oracle import lp_separable  # noqa: E402


TWO = np.array([[1.0, 0.5], [-0.5, 1.0]])  # two distinct points, opposite labels: separable by any φ with a bias


@pytest.fixture
def opened(dialog_answers, qtbot, tmp_path, monkeypatch):
    """open(points, classes, algorithm, kernel=…, features=…) → the real window with the scene opened and run."""
    from percviz.app.main_window import MainWindow

    monkeypatch.setenv("PERCVIZ_CONFIG_DIR", str(tmp_path / "config"))
    monkeypatch.setenv("PERCVIZ_DATA_DIR", str(tmp_path / "data"))
    dialog_answers.set(unsaved="discard")
    windows = []

    def open_scene(points, classes, algorithm, kernel="rbf:gamma=1", features="linear", panels=("canvas", "curves")):
        w = MainWindow()
        qtbot.addWidget(w)
        w.resize(1400, 900)
        w.show()
        qtbot.waitExposed(w)
        windows.append(w)
        path = tmp_path / f"scene{len(windows)}.json"
        path.write_text(json.dumps({
            "format": "percviz-preset", "version": 1, "title": "audit", "explanation": "",
            "points": np.asarray(points, float).tolist(), "classes": list(classes), "kernel": kernel,
            "features": features, "algorithm": algorithm, "params": {}, "max_iter": 2000,
            "view": {"panels": list(panels)},
        }))
        assert w.classroom.files.open_path(path, confirm=False)
        w.session.wait_idle(30)
        qtbot.mouseClick(w.controls.run_button, Qt.MouseButton.LeftButton)
        w.session.wait_idle(60)
        w.session.rho(wait=True)  # the feature view's least-norm point comes with ρ_K
        w.session.wait_idle(30)
        return w

    yield open_scene
    for w in windows:
        w.session.shutdown()
        w.close()


def _panel_text(panel) -> str:
    return " ".join(lab.text() for lab in (panel.title, panel.readout, panel.caption))


@pytest.mark.parametrize("algorithm, features", [("rls", "quadratic"), ("mse", "poly:degree=3")])
def test_the_feature_view_proves_nothing_about_separable_points_at_1e_12(opened, algorithm, features):
    w = opened(TWO * 1e-12, [0, 1], algorithm, features=features, panels=("canvas", "feature"))
    Y = np.array([[1, *TWO[0]], [-1, *(-TWO[1])]])
    assert lp_separable(Y)  # even the linear part separates them
    text = _panel_text(w.panels["feature"])
    assert "no separator exists" not in text, text
    assert "ρ_K not resolved" in text, text  # says why instead


def test_the_feature_view_of_an_undecided_kernel_margin_proves_nothing(opened):
    # four distinct collinear points with alternating labels at 1e-3: RBF-separable (distinct points), but ρ_K
    # is below what G resolves there (core.gram says 'undecided')
    X = np.array([[1, 2], [2, 4], [3, 6], [4, 8.0]]) * 1e-3 / 8
    w = opened(X, [0, 1, 0, 1], "snkpvn", kernel="rbf:gamma=0.5", panels=("canvas", "feature"))
    text = _panel_text(w.panels["feature"])
    assert "no separator exists" not in text and "lies in the hull" not in text, text
    assert "ρ_K not resolved" in text, text


def test_the_weight_view_does_not_call_the_cone_of_two_tiny_points_empty(opened):
    w = opened(TWO * 1e-12, [0, 1], "lp-feasibility", features="linear", panels=("canvas", "weight"))
    assert w.session.current.status.value == "separator"
    text = _panel_text(w.panels["weight"])
    assert "empty" not in text and "no linear separator" not in text, text
    assert "too thin to draw" in text, text


def test_the_weight_view_still_shows_an_empty_cone(opened):
    # XOR: no line separates it (the exact LP agrees), so the cone is empty and the view says so
    X = np.array([[1, 1], [-1, -1], [1, -1], [-1, 1.0]])
    w = opened(X, [0, 0, 1, 1], "batch-perceptron", features="linear", panels=("canvas", "weight"))
    y = np.array([1, 1, -1, -1])
    assert not lp_separable(y[:, None] * np.c_[np.ones(4), X])
    assert "the cone is empty" in _panel_text(w.panels["weight"])


def test_an_svm_that_separates_at_1e3_is_not_called_w_zero(opened):
    # a cubic kernel at 1e3 makes ‖w‖ ≈ 1e-9 although f spans −1…1 on the points: ‖w‖ alone is not scale-free
    w = opened(TWO * 1e3, [0, 1], "smo", kernel="poly:degree=3,c=0")
    snap = w.session.current
    f = snap.decision(TWO * 1e3)
    assert f[0] > 0.5 and f[1] < -0.5  # a real boundary between them
    status = w.controls.status.text()
    assert "w = 0" not in status and "no boundary" not in status, status


def test_a_cancelled_w_norm_is_not_called_w_zero(opened):
    # the thin set at 1e2 with a cubic kernel: SMO's ‖w‖² = eᵀα − αᵀ(yF) cancels to 0 (K ≈ 1e12) while f spans
    # about −1…1 on the points; main showed "w = 0 … no boundary" there
    X = (np.array([[0, 1e-9], [0, -1e-9], [1, 1e-9], [1, -1e-9], [-1, 1e-9]]) + [0, 1]) * 100
    w = opened(X, [0, 1, 0, 1, 0], "smo", kernel="poly:degree=3")
    f = w.session.current.decision(X)
    assert f.max() - f.min() > 1.0  # f is not constant: w ≠ 0, whatever ‖w‖ rounds to
    status = w.controls.status.text()
    assert "w = 0" not in status and "no boundary" not in status, status


def test_the_feature_view_does_not_give_overlapping_clouds_a_positive_margin(opened):
    # 240 points of two overlapping clouds (linear φ): Wolfe's least-norm point stops at ‖x‖ = 4e-9, above its
    # absolute threshold, and main read that as "★ nearest hull point: ρ_K = 4.047e-09" on a non-separable set
    rng = np.random.default_rng(3)
    X = np.vstack([rng.normal((-1, 0.5), 0.7, (120, 2)), rng.normal((1, -0.5), 0.7, (120, 2))])
    classes = [0] * 120 + [1] * 120
    w = opened(X, classes, "batch-relaxation", features="linear", panels=("canvas", "feature"))
    y = np.where(np.array(classes) == 0, 1, -1)
    assert not lp_separable(y[:, None] * np.c_[np.ones(240), X])
    for _ in range(100):  # the picture of n > 200 points comes from the panel's background job
        if not w.panels["feature"].computing:
            break
        w.session.wait_idle(5)
    text = _panel_text(w.panels["feature"])
    assert "nearest hull point" not in text and "ρ_K =" not in text, text
    assert "0 lies in the hull" in text, text


def test_the_weight_view_gives_xor_at_1e_6_no_best_vector(opened):
    # main: "★ a*: the largest geometric margin, γ(a*) = 3.073e-07" on XOR (no line separates it) at 1e-6
    X = np.array([[1, 1], [-1, -1], [1, -1], [-1, 1], [2, 2.1], [-2, 1.9]]) * 1e-6 / 2.1
    w = opened(X, [0, 0, 1, 1, 0, 1], "perceptron", kernel="linear", panels=("canvas", "weight"))
    text = _panel_text(w.panels["weight"])
    assert "a*" not in text and "largest geometric margin" not in text, text
    assert "the cone is empty" in text, text


def test_the_weight_view_of_collinear_points_at_1e6_draws_without_an_exception(opened):
    # main: RuntimeError "the margin-vector QP failed (InsufficientProgress)" out of the weight view's set_problem
    t = np.array([-2.0, -1.2, -0.4, 0.3, 0.9, 1.7]) / 2.0 * 1e6
    X = np.c_[t, 0.5 * t + 1e6 / 2]
    w = opened(X / np.abs(X).max() * 1e6, [1, 1, 1, 0, 0, 0], "relaxation", features="linear",
               panels=("canvas", "weight"))
    text = _panel_text(w.panels["weight"])
    assert "the cone is empty" not in text, text  # they are separable (t > 0 against t < 0)
