"""The algorithm and kernel (or φ-map) choosers with their generated parameter forms."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtGui import QFont, QStandardItem, QStandardItemModel
from PySide6.QtWidgets import (
    QComboBox,
    QLabel,
    QWidget,
)

from percviz.app.panels.controls.status import _group
from percviz.app.panels.name_combo import WholeNameCombo
from percviz.app.panels.param_form import ParamForm
from percviz.core.errors import PercvizError
from percviz.core.features import FEATURE_MAPS, parse_features
from percviz.core.kernels import KERNELS, parse_kernel
from percviz.core.solvers import by_family, get_solver
from percviz.core.spec import format_spec


class Choosers:
    """Builds the choosers and keeps them and the scene's settings in step."""

    def _build_algorithm(self) -> QWidget:
        box, lay = _group("Algorithm")
        self.algorithm = WholeNameCombo()  # a long name shortened at a word, never cut mid-word
        self.algorithm.setAccessibleName("algorithm")
        self.algorithm.setObjectName("algorithm")
        self.algorithm.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
        self.algorithm.setMinimumContentsLength(18)
        self._fill_algorithms()
        self.algorithm.currentIndexChanged.connect(self._on_algorithm_chosen)
        self.fit_popup()
        lay.addWidget(self.algorithm)
        self.description = QLabel()
        self.description.setWordWrap(True)
        self.description.setStyleSheet("color: palette(mid); font-size: 11px;")
        lay.addWidget(self.description)
        self.algo_form = ParamForm()
        self.algo_form.valuesChanged.connect(self._on_algo_params)
        self.algo_form.validityChanged.connect(lambda _v: self._update_enabled())
        self.algo_form.errorsChanged.connect(self._update_enabled)
        lay.addWidget(self.algo_form)
        return box

    def _build_kernel(self) -> QWidget:
        self.kernel_box, lay = _group("Kernel")
        self.kernel, self.kernel_form = self._spec_chooser(lay, "kernel", KERNELS, self._kernel_params, "kernel")
        self.features, self.feature_form = self._spec_chooser(
            lay, "features", FEATURE_MAPS, self._feature_params, "feature map"
        )
        return self.kernel_box

    def _spec_chooser(self, lay, key: str, registry: dict, memory: dict, kind: str) -> tuple[QComboBox, ParamForm]:
        """A box named `key` listing the registered kernels (or feature maps), and the chosen one's parameter form.

        Choosing or editing applies the spec as the scene's `key` setting; `memory` keeps each name's last values."""
        combo = QComboBox()
        combo.setAccessibleName(key)
        combo.setObjectName(key)
        for name, cls in registry.items():
            combo.addItem(cls.display_name or name, name)
            combo.setItemData(combo.count() - 1, (cls.__doc__ or "").strip(), Qt.ItemDataRole.ToolTipRole)
        form = ParamForm()
        combo.currentIndexChanged.connect(lambda i: self._on_spec_chosen(combo, form, registry, memory, kind, key, i))
        lay.addWidget(combo)
        form.valuesChanged.connect(lambda values: self._on_spec_params(combo, memory, key, values))
        form.validityChanged.connect(lambda _v: self._update_enabled())
        form.errorsChanged.connect(self._update_enabled)
        lay.addWidget(form)
        return combo, form

    def _fill_algorithms(self) -> None:
        model = QStandardItemModel(self.algorithm)
        bold = QFont()
        bold.setBold(True)
        families = by_family()
        # The paper's algorithms first (the tool's subject), then the classical procedures as registered.
        order = sorted(families, key=lambda f: (0 if "Ramdas" in f else 1, list(families).index(f)))
        for family in order:
            classes = families[family]
            head = QStandardItem(family)
            head.setFlags(Qt.ItemFlag.NoItemFlags)
            head.setFont(bold)
            head.setData(None, Qt.ItemDataRole.UserRole)
            model.appendRow(head)
            for cls in classes:
                item = QStandardItem("    " + cls.display_name)
                item.setData(cls.name, Qt.ItemDataRole.UserRole)
                item.setToolTip(cls.description or cls.display_name)
                model.appendRow(item)
        self.algorithm.setModel(model)

    def fit_popup(self) -> None:
        """The algorithm list is as wide as its longest heading or name (never 'Von Neumann & prima…ual')."""
        self.algorithm.fit_popup()

    def select_algorithm(self, name: str) -> None:
        """Choose an algorithm as if picked in the combo box (an old name such as 'smo': the algorithm it opens,
        with its values)."""
        try:
            cls = get_solver(name)
        except PercvizError:
            cls = None
        target = (cls.alias_of if cls is not None else None) or name
        for i in range(self.algorithm.count()):
            if self.algorithm.itemData(i, Qt.ItemDataRole.UserRole) == target:
                self.algorithm.setCurrentIndex(i)
                if target != name and cls.alias_values:
                    values = {**self.algo_form.values(), **cls.alias_values}
                    self.algo_form.set_values(values)
                    self._on_algo_params(values)
                return
        raise PercvizError(f"Unknown algorithm '{name}'.")

    def forms_valid(self) -> bool:
        forms = [self.algo_form]
        forms.append(self.kernel_form if self._representation() == "kernel" else self.feature_form)
        return all(f.is_valid() for f in forms)

    def _representation(self) -> str:
        try:
            return get_solver(self.scene.settings.algorithm).representation
        except PercvizError:
            return "kernel"

    # -- scene → widgets ---------------------------------------------------------------------------------
    def sync_from_scene(self) -> None:
        """Show the scene's settings (after a load or an edit elsewhere) without re-applying them."""
        if self._syncing:
            return
        self._syncing = True
        try:
            s = self.scene.settings
            try:
                cls = get_solver(s.algorithm)
            except PercvizError:
                cls = None
            listed = (cls.alias_of if cls is not None else None) or s.algorithm  # an old name ('smo') shows its algorithm
            for i in range(self.algorithm.count()):
                if self.algorithm.itemData(i, Qt.ItemDataRole.UserRole) == listed:
                    self.algorithm.blockSignals(True)
                    self.algorithm.setCurrentIndex(i)
                    self.algorithm.blockSignals(False)
            if cls is not None:
                self.description.setText(cls.description)
                self.description.setVisible(bool(cls.description))
                self.algorithm.setToolTip(cls.description or cls.display_name)
                if self.algo_form.params is not cls.params:
                    self.algo_form.set_params(cls.params, dict(s.params), cls.display_name, cls.name)
                else:
                    self.algo_form.set_values(dict(s.params))
                self._algo_params[cls.name] = dict(s.params)
                self._max_iters[cls.name] = int(s.max_iter)
                rep = cls.representation
                self.class_selector.set_multiclass(rep == "multiclass")
            else:
                rep = "kernel"
            kernel_side = rep == "kernel"
            self.kernel_box.setTitle("Kernel" if kernel_side else "Feature map φ")
            for w in (self.kernel, self.kernel_form):
                w.setVisible(kernel_side and (w is self.kernel or bool(w.params.specs)))
            for w in (self.features, self.feature_form):
                w.setVisible(not kernel_side and (w is self.features or bool(w.params.specs)))
            self._sync_spec(self.kernel, self.kernel_form, s.kernel, parse_kernel, self._kernel_params, "kernel")
            self._sync_spec(self.features, self.feature_form, s.features, parse_features, self._feature_params, "feature map")
            self.kernel_form.setVisible(kernel_side and bool(self.kernel_form.params.specs))
            self.feature_form.setVisible(not kernel_side and bool(self.feature_form.params.specs))
            self.max_iter.blockSignals(True)
            self.max_iter.setValue(int(s.max_iter))
            self.max_iter.blockSignals(False)
        finally:
            self._syncing = False
        self._update_enabled()

    def _sync_spec(self, combo: QComboBox, form: ParamForm, spec: str, parse, memory: dict, what: str) -> None:
        try:
            obj = parse(spec)
        except PercvizError:
            return
        idx = combo.findData(obj.name)
        if idx >= 0:
            combo.blockSignals(True)
            combo.setCurrentIndex(idx)
            combo.blockSignals(False)
        if form.params is not type(obj).params:
            form.set_params(type(obj).params, dict(obj.values), f"the {obj.name} {what}", obj.name)
        else:
            form.set_values(dict(obj.values))
        memory[obj.name] = dict(obj.values)

    # -- widgets → scene ---------------------------------------------------------------------------------
    def _apply(self, **changes: Any) -> None:
        if self._syncing:
            return
        try:
            self.scene.set_settings(**changes)
        except PercvizError as exc:
            self._on_error(str(exc))

    def _on_algorithm_chosen(self, index: int) -> None:
        name = self.algorithm.itemData(index, Qt.ItemDataRole.UserRole)
        if not name or self._syncing:
            return
        cls = get_solver(name)
        params = self._algo_params.get(name, {})
        self.algo_form.set_params(cls.params, params, cls.display_name, name)
        # its own limit: the one set for it, else its default (SMO never stops at the input-space SVM's 51)
        max_iter = self._max_iters.get(name, int(cls.default_max_iter))
        self._apply(algorithm=name, params=self.algo_form.values(), max_iter=max_iter)

    def _on_algo_params(self, values: dict) -> None:
        self._algo_params[self.scene.settings.algorithm] = dict(values)
        if self.forms_valid():
            self._apply(params=dict(values))

    def _on_spec_chosen(self, combo, form, registry: dict, memory: dict, kind: str, key: str, index: int) -> None:
        name = combo.itemData(index)
        if not name or self._syncing:
            return
        cls = registry[name]
        form.set_params(cls.params, memory.get(name, {}), f"the {name} {kind}", name)
        form.setVisible(bool(cls.params.specs))
        self._apply(**{key: format_spec(name, form.values())})

    def _on_spec_params(self, combo, memory: dict, key: str, values: dict) -> None:
        name = combo.currentData()
        memory[name] = dict(values)
        if self.forms_valid():
            self._apply(**{key: format_spec(name, values)})
