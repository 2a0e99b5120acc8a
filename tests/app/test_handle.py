"""percviz.show and its WindowHandle: the window driven from a script or a notebook."""

import subprocess
import sys
import tomllib
import types
from pathlib import Path

import numpy as np
import pytest
from PySide6.QtCore import QEventLoop, QTimer
from PySide6.QtGui import QImage

import percviz
from percviz.app import handle as H
from percviz.core.data import PointSet
from percviz.core.errors import DataError, ParameterError
from percviz.core.presets import load_preset
from percviz.core.problem import Problem
from percviz.core.solvers import Status, get_solver

ROOT = Path(__file__).resolve().parents[2]


def xor_data(n=40, seed=0):
    X = np.random.default_rng(seed).uniform(-2, 2, (n, 2))
    return X, np.where(X[:, 0] * X[:, 1] > 0, "a", "b")


@pytest.fixture
def opened(qapp):
    handles = []

    def open_(*args, **kw):
        h = percviz.show(*args, block=False, **kw)
        handles.append(h)
        return h

    yield open_
    for h in handles:
        h.close()


def test_step_run_and_snapshot_match_the_core(opened):
    X, y = xor_data()
    h = opened(X, y, algorithm="snkp", kernel="rbf:gamma=1")
    assert h.window.isVisible() and h.snapshot.iteration == 0
    assert h.step().iteration == 1
    assert h.step(3).iteration == 4 and h.snapshot.iteration == 4
    last = h.run()
    # the same run in the core alone: 'b' (the larger label) is '+'
    ref = get_solver("snkp")(Problem(PointSet.from_signed(X, np.where(y == "b", 1, -1)), "rbf:gamma=1")).run()
    assert (last.iteration, last.status) == (ref.iteration, ref.status) and last.status is Status.SEPARATOR
    np.testing.assert_allclose(last.alpha, ref.alpha)
    assert h.window.session.current is h.snapshot
    assert h.reset().iteration == 0
    assert "iteration 0" in repr(h)


def test_save_preset_and_pictures(opened, tmp_path):
    X, y = xor_data()
    h = opened(X, y, algorithm="perceptron", features="quadratic", title="XOR, quadratic")
    h.run(5)
    saved = load_preset(h.save_preset(tmp_path / "scene.json"))
    assert saved.algorithm == "perceptron" and saved.features == "quadratic" and saved.title == "XOR, quadratic"
    np.testing.assert_allclose(saved.points.X, X)
    assert list(saved.points.classes) == list(np.where(y == "b", 0, 1))
    whole = QImage(str(h.screenshot(tmp_path / "w.png")))
    canvas = QImage(str(h.screenshot(tmp_path / "c.png", panel="canvas")))
    assert not whole.isNull() and not canvas.isNull()
    assert canvas.width() < whole.width()
    with pytest.raises(ValueError, match="PNG"):
        h.screenshot(tmp_path / "w.jpg")


def test_preset_by_name_and_bad_input_before_qt_starts(opened):
    h = opened(preset="xor-rbf")
    assert h.preset.algorithm == load_preset(ROOT / "percviz/presets/xor-rbf.json").algorithm
    with pytest.raises(DataError, match="d = 3"):
        percviz.show(np.zeros((4, 3)), [0, 1, 0, 1], block=False)
    with pytest.raises(ParameterError, match="eps"):
        percviz.show(*xor_data(), algorithm="nvn", params={"eps": -1}, block=False)
    with pytest.raises(DataError, match="both X and y"):
        percviz.show(np.zeros((4, 2)), block=False)


def test_closed_handle_keeps_its_last_snapshot(opened):
    h = opened(*xor_data(), algorithm="snkp", kernel="rbf:gamma=1")
    h.step(2)
    h.close()
    assert not h.is_open and h.snapshot.iteration == 2
    with pytest.raises(RuntimeError, match="closed"):
        h.step()


def test_blocking_show_returns_when_the_window_closes(qapp):
    def close_it():
        for w in qapp.topLevelWidgets():
            if type(w).__name__ == "MainWindow" and w.isVisible():
                w.scene.mark_saved()
                w.close()

    QTimer.singleShot(300, close_it)
    h = percviz.show(*xor_data(), algorithm="snkp", kernel="rbf:gamma=1", block=True)
    assert not h.is_open and h.snapshot is not None and h.snapshot.iteration >= 0


def test_an_integrated_event_loop_means_non_blocking(qapp, monkeypatch):
    assert not H.event_loop_integrated()  # plain pytest: nothing runs Qt's loop for us
    shell = types.SimpleNamespace(active_eventloop="qt")  # what IPython's %gui qt sets
    monkeypatch.setitem(sys.modules, "IPython", types.SimpleNamespace(get_ipython=lambda: shell))
    assert H.event_loop_integrated()
    h = percviz.show(*xor_data(), block=None)  # returns at once, the window live
    try:
        assert h.is_open and h.window.isVisible()
    finally:
        h.close()
    monkeypatch.delitem(sys.modules, "IPython")
    seen = []
    loop = QEventLoop()
    QTimer.singleShot(0, lambda: (seen.append(H.event_loop_integrated()), loop.quit()))
    loop.exec()
    assert seen == [True]  # called from inside a running Qt event loop


def test_import_percviz_stays_qt_free_and_python_m_percviz_works():
    code = "import sys, percviz, percviz.core, percviz.cli; print([m for m in sys.modules if 'PySide6' in m])"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0 and out.stdout.strip() == "[]", out.stderr
    out = subprocess.run([sys.executable, "-m", "percviz", "list"], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0 and "snkp" in out.stdout
    out = subprocess.run([sys.executable, "-m", "percviz", "solve", "nope.csv"], capture_output=True, text=True,
                         timeout=120)
    assert out.returncode == 2 and "no such file" in out.stderr


def test_gui_script_is_declared():
    meta = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    assert meta["gui-scripts"]["percviz-gui"] == meta["scripts"]["percviz"] == "percviz.cli:main"


def test_build_window_refuses_d_dimensional_scenes(qapp):
    from percviz.app.launch import build_window
    from percviz.core.presets import Preset

    with pytest.raises(DataError, match="shows 2-D scenes.*d = 5"):
        build_window(Preset(PointSet(np.eye(5), [0, 1, 0, 1, 0])), qapp)
