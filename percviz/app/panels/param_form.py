"""A form generated from typed `ParamSpec`s: spin boxes, validated number fields, combos, check boxes."""

from __future__ import annotations

import math
from typing import Any

from PySide6.QtCore import Signal
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QFormLayout,
    QLabel,
    QLineEdit,
    QSpinBox,
    QWidget,
)

from percviz.core.errors import ParameterError
from percviz.core.param_labels import human_label
from percviz.core.params import ParamSet, ParamSpec

_INT_LIMIT = 2**31 - 1
_BAD_STYLE = "border: 1.5px solid #d62728; background: #fdecea;"


def _fmt(value: Any) -> str:
    return f"{value:g}" if isinstance(value, float) else str(value)


def spec_tooltip(spec: ParamSpec, key: str = "") -> str:
    """Label, help text, allowed range, default and script name of one parameter, for its tooltip."""
    parts = [f"{human_label(spec, key)}: {spec.help}" if spec.help else human_label(spec, key)]
    parts.append(f"Allowed: {spec.range_text()}. Default: {_fmt(spec.default)}. In presets and the CLI: {spec.name}.")
    return "\n".join(parts)


class ParamForm(QWidget):
    """Edit the values of a ParamSet; invalid entries turn red with a message and are not applied."""

    #: All values (typed) after a committed edit, emitted only when every field is valid.
    valuesChanged = Signal(dict)
    #: Whether every field currently holds a valid value.
    validityChanged = Signal(bool)
    #: Some field's message changed (it now describes the field's current text, or is gone).
    errorsChanged = Signal()

    def __init__(self, params: ParamSet | None = None, values: dict | None = None, owner: str = "", parent=None):
        super().__init__(parent)
        self._layout = QFormLayout(self)
        self._layout.setContentsMargins(0, 0, 0, 0)
        self._layout.setFieldGrowthPolicy(QFormLayout.FieldGrowthPolicy.AllNonFixedFieldsGrow)
        self._layout.setRowWrapPolicy(QFormLayout.RowWrapPolicy.DontWrapRows)
        self._params = ParamSet()
        self._owner = owner
        self._editors: dict[str, QWidget] = {}
        self._errors: dict[str, QLabel] = {}
        self._bad: dict[str, str] = {}
        self._values: dict[str, Any] = {}
        self.set_params(params or ParamSet(), values, owner)

    # -- building -----------------------------------------------------------------------------------
    def set_params(self, params: ParamSet, values: dict | None = None, owner: str = "", key: str = "") -> None:
        """Rebuild the form for another ParamSet (values default to the specs' defaults); key names the owner."""
        while self._layout.rowCount():
            self._layout.removeRow(0)
        self._params, self._owner = params, owner
        self._editors, self._errors, self._bad = {}, {}, {}
        try:
            self._values = params.validate(values or {}, owner)
        except ParameterError:
            self._values = params.defaults()
        for spec in params.specs:
            editor = self._make_editor(spec)
            editor.setToolTip(spec_tooltip(spec, key))
            editor.setAccessibleName(f"param:{spec.name}")
            editor.setObjectName(f"param_{spec.name}")
            label = QLabel(human_label(spec, key))
            label.setWordWrap(True)
            label.setToolTip(spec_tooltip(spec, key))
            label.setBuddy(editor)
            error = QLabel()
            error.setWordWrap(True)
            error.setStyleSheet("color: #c62828; font-size: 11px;")
            error.setAccessibleName(f"error:{spec.name}")
            error.hide()
            self._editors[spec.name], self._errors[spec.name] = editor, error
            self._layout.addRow(label, editor)
            self._layout.addRow(error)
        self.setVisible(bool(params.specs))

    def _make_editor(self, spec: ParamSpec) -> QWidget:
        value = self._values[spec.name]
        if spec.type == "choice":
            w = QComboBox()
            w.addItems(list(spec.choices))
            w.setCurrentText(str(value))
            w.currentTextChanged.connect(lambda text, s=spec: self._commit(s, text))
            return w
        if spec.type is bool:
            w = QCheckBox()
            w.setChecked(bool(value))
            w.toggled.connect(lambda on, s=spec: self._commit(s, on))
            return w
        if spec.type is int:
            w = QSpinBox()
            lo = -_INT_LIMIT if spec.low is None else math.ceil(spec.low) + (1 if spec.low_open else 0)
            hi = _INT_LIMIT if spec.high is None else math.floor(spec.high) - (1 if spec.high_open else 0)
            w.setRange(int(max(lo, -_INT_LIMIT)), int(min(hi, _INT_LIMIT)))
            w.setValue(int(value))
            w.setKeyboardTracking(False)
            w.setAccelerated(True)
            w.valueChanged.connect(lambda v, s=spec: self._commit(s, v))
            return w
        w = QLineEdit(_fmt(value))
        w.setPlaceholderText(spec.range_text())
        w.textEdited.connect(lambda text, s=spec: self._check_text(s, text))
        w.editingFinished.connect(lambda s=spec, e=w: self._commit(s, e.text()))
        return w

    # -- values ------------------------------------------------------------------------------------------
    @property
    def params(self) -> ParamSet:
        return self._params

    def editor(self, name: str) -> QWidget:
        return self._editors[name]

    def error_text(self, name: str) -> str:
        return self._bad.get(name, "")

    def is_valid(self) -> bool:
        return not self._bad

    def errors(self) -> dict[str, str]:
        return dict(self._bad)

    def values(self) -> dict[str, Any]:
        """The last valid value of every field."""
        return dict(self._values)

    def set_values(self, values: dict) -> None:
        """Show these values without emitting valuesChanged (e.g. after loading a scene)."""
        try:
            typed = self._params.validate(values, self._owner)
        except ParameterError:
            return
        self._values = typed
        for spec in self._params.specs:
            w, v = self._editors[spec.name], typed[spec.name]
            w.blockSignals(True)
            if isinstance(w, QComboBox):
                w.setCurrentText(str(v))
            elif isinstance(w, QCheckBox):
                w.setChecked(bool(v))
            elif isinstance(w, QSpinBox):
                w.setValue(int(v))
            else:
                w.setText(_fmt(v))
            w.blockSignals(False)
            self._mark(spec.name, "")

    # -- validation -----------------------------------------------------------------------------------------
    def _check_text(self, spec: ParamSpec, text: str) -> bool:
        try:
            spec.coerce(text, self._owner)
        except ParameterError as exc:
            self._mark(spec.name, str(exc))
            return False
        self._mark(spec.name, "")
        return True

    def _commit(self, spec: ParamSpec, raw: Any) -> None:
        try:
            value = spec.coerce(raw, self._owner)
        except ParameterError as exc:
            self._mark(spec.name, str(exc))
            return
        self._mark(spec.name, "")
        if value == self._values.get(spec.name) and type(value) is type(self._values.get(spec.name)):
            return
        self._values[spec.name] = value
        if self.is_valid():
            self.valuesChanged.emit(dict(self._values))

    def revert(self) -> None:
        """Put every field back to its last valid value (Escape) and drop the messages."""
        self.set_values(dict(self._values))

    def _mark(self, name: str, message: str) -> None:
        was_valid = self.is_valid()
        changed = self._bad.get(name, "") != message
        editor, label = self._editors[name], self._errors[name]
        if message:
            self._bad[name] = message
            editor.setProperty("marked_bad", True)
            editor.setStyleSheet(_BAD_STYLE)
            label.setText(message)
            label.show()
        else:
            self._bad.pop(name, None)
            editor.setProperty("marked_bad", False)
            editor.setStyleSheet(editor.property("base_style") or "")  # the theme's borders, if any
            label.hide()
        if was_valid != self.is_valid():
            self.validityChanged.emit(self.is_valid())
        if changed:
            self.errorsChanged.emit()
