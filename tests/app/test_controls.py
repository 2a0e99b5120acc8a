"""The side panel: choosers filled from the registries, forms generated from ParamSpecs, inline validation."""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QCheckBox, QComboBox, QLineEdit, QSpinBox

from percviz.app.panels.controls import SPEEDS, ControlsPanel, status_text
from percviz.app.launch import fallback_points
from percviz.app.panels.param_form import ParamForm
from percviz.app.run.session import RunSession
from percviz.core.features import FEATURE_MAPS
from percviz.core.kernels import KERNELS
from percviz.core.params import ParamSet, ParamSpec
from percviz.core.scene import SceneModel, Settings
from percviz.core.solvers import by_family, get_solver


@pytest.fixture
def panel(qtbot):
    scene = SceneModel(fallback_points(), Settings(algorithm="perceptron"))
    session = RunSession(scene)
    p = ControlsPanel(scene, session)
    qtbot.addWidget(p)
    p.show()
    session.wait_idle()
    yield p
    session.shutdown()


def _pick(combo: QComboBox, data) -> None:
    combo.setCurrentIndex(combo.findData(data, Qt.ItemDataRole.UserRole))


def test_algorithm_chooser_lists_every_solver_grouped_by_family(panel):
    combo = panel.algorithm
    model = combo.model()
    groups, current = {}, None
    for i in range(combo.count()):
        name = combo.itemData(i, Qt.ItemDataRole.UserRole)
        if name is None:  # a family header: not selectable
            current = combo.itemText(i)
            assert not (model.item(i).flags() & Qt.ItemFlag.ItemIsSelectable)
            groups[current] = []
        else:
            groups[current].append(name)
    assert groups == {f: [c.name for c in cs] for f, cs in by_family().items()}
    assert "Ramdas" in combo.itemText(0)  # the paper's algorithms come first


def test_kernel_chooser_and_generated_kernel_form(panel):
    assert [panel.kernel.itemData(i) for i in range(panel.kernel.count())] == list(KERNELS)
    assert [panel.features.itemData(i) for i in range(panel.features.count())] == list(FEATURE_MAPS)
    panel.select_algorithm("nkp")
    assert panel.scene.settings.algorithm == "nkp"
    assert panel.kernel.isVisible() and not panel.features.isVisible()
    _pick(panel.kernel, "rbf")
    assert panel.scene.settings.kernel == "rbf:gamma=0.5"
    gamma = panel.kernel_form.editor("gamma")
    assert isinstance(gamma, QLineEdit) and "Width" in gamma.toolTip() and "(0, 1e+06]" in gamma.toolTip()

    gamma.setFocus()
    gamma.selectAll()
    QTest.keyClicks(gamma, "-1")
    assert "gamma" in panel.kernel_form.error_text("gamma") and "-1" in panel.kernel_form.error_text("gamma")
    assert "d62728" in gamma.styleSheet()  # red
    assert not panel.step_button.isEnabled() and not panel.play_button.isEnabled()
    QTest.keyClick(gamma, Qt.Key.Key_Return)
    assert panel.scene.settings.kernel == "rbf:gamma=0.5"  # invalid values are never applied
    assert "Fix the highlighted value" in panel.status.text()

    gamma.selectAll()
    QTest.keyClicks(gamma, "2")
    QTest.keyClick(gamma, Qt.Key.Key_Return)
    assert panel.kernel_form.is_valid() and gamma.styleSheet() == ""
    assert panel.scene.settings.kernel == "rbf:gamma=2"
    assert panel.step_button.isEnabled()


def test_feature_algorithms_show_the_phi_map_form(panel):
    panel.select_algorithm("perceptron")
    assert get_solver("perceptron").representation == "features"
    assert panel.features.isVisible() and not panel.kernel.isVisible()
    assert panel.kernel_box.title() == "Feature map φ"


def test_param_form_widgets_follow_spec_types(qtbot):
    specs = ParamSet((
        ParamSpec("k", int, 3, 1, 10, help="an integer"),
        ParamSpec("eta", float, 0.5, 0, 2, low_open=True, help="a step"),
        ParamSpec("rule", "choice", "a", choices=("a", "b"), help="a rule"),
        ParamSpec("flag", bool, False, help="a switch"),
    ))
    form = ParamForm(specs, {"k": 4}, "Test")
    qtbot.addWidget(form)
    seen = []
    form.valuesChanged.connect(seen.append)
    k, eta, rule, flag = (form.editor(n) for n in ("k", "eta", "rule", "flag"))
    assert isinstance(k, QSpinBox) and (k.minimum(), k.maximum(), k.value()) == (1, 10, 4)
    assert isinstance(eta, QLineEdit) and eta.text() == "0.5"
    assert isinstance(rule, QComboBox) and [rule.itemText(i) for i in range(rule.count())] == ["a", "b"]
    assert isinstance(flag, QCheckBox) and not flag.isChecked()
    assert "a step" in eta.toolTip() and "Default: 0.5" in eta.toolTip()
    k.setValue(7)
    rule.setCurrentText("b")
    flag.setChecked(True)
    eta.setText("0")
    eta.editingFinished.emit()
    assert "must be a number in (0, 2]" in form.error_text("eta") and not form.is_valid()
    eta.setText("1.5")
    eta.editingFinished.emit()
    assert seen[-1] == {"k": 7, "eta": 1.5, "rule": "b", "flag": True}
    assert form.is_valid()


def test_algorithm_params_go_to_the_scene_and_are_remembered(panel):
    panel.select_algorithm("snkp")
    specs = get_solver("snkp").params.specs
    if not specs:
        pytest.skip("snkp has no parameters")
    spec = specs[0]
    editor = panel.algo_form.editor(spec.name)
    if isinstance(editor, QCheckBox):
        editor.setChecked(not spec.default)
        expected = not spec.default
    elif isinstance(editor, QSpinBox):
        editor.setValue(editor.value() + 1)
        expected = editor.value()
    else:
        pytest.skip("first parameter is not a check box or spin box")
    assert panel.scene.settings.params[spec.name] == expected
    panel.select_algorithm("perceptron")
    panel.select_algorithm("snkp")
    assert panel.scene.settings.params[spec.name] == expected


def test_class_selector_offers_more_classes_for_multiclass(panel):
    sel = panel.class_selector
    assert not sel.buttons[2].isVisible()
    multi = next(c for cs in by_family().values() for c in cs if c.representation == "multiclass")
    panel.select_algorithm(multi.name)
    assert all(b.isVisible() for b in sel.buttons)
    seen = []
    panel.classChanged.connect(seen.append)
    QTest.mouseClick(sel.buttons[3], Qt.MouseButton.LeftButton)
    assert seen == [3] and panel.current_class == 3
    panel.select_algorithm("perceptron")
    assert panel.current_class == 0 and not sel.buttons[3].isVisible()


def test_speed_max_iter_and_status(panel):
    panel.speed.setValue(0)
    assert panel.session.speed == SPEEDS[0] == 1 and panel.speed_label.text() == "1 update/s"
    panel.speed.setValue(panel.speed.maximum())
    assert panel.session.speed == 0 and panel.speed_label.text() == "as fast as possible"
    panel.max_iter.setValue(17)
    assert panel.scene.settings.max_iter == 17
    panel.session.wait_idle()
    snap = panel.session.current
    assert panel.status.text() == status_text(snap)
    assert panel.status.text().startswith("Iteration 0")


def test_scene_settings_loaded_elsewhere_show_in_the_panel(panel):
    panel.scene.set_settings(algorithm="nkp", kernel="poly:degree=3,c=1", params={}, max_iter=250)
    assert panel.algorithm.currentData(Qt.ItemDataRole.UserRole) == "nkp"
    assert panel.kernel.currentData() == "poly"
    assert panel.kernel_form.editor("degree").value() == 3
    assert panel.max_iter.value() == 250


def test_unsolvable_scene_shows_a_message_in_red(panel):
    from percviz.core.data import PointSet

    panel.scene.set_points(PointSet([[0, 0], [1, 1]], [0, 0]))
    assert "no − point" in panel.status.text()
    assert "b71c1c" in panel.status.styleSheet()
    assert not panel.step_button.isEnabled()
