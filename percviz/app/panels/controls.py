"""The side panel: class selector, algorithm and kernel (or φ-map) with generated forms, run controls, status."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QEvent, QObject, Qt, Signal
from PySide6.QtGui import QBrush, QColor, QFont, QStandardItem, QStandardItemModel
from PySide6.QtWidgets import (
    QButtonGroup,
    QCheckBox,
    QComboBox,
    QFormLayout,
    QGridLayout,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QSizePolicy,
    QSlider,
    QSpinBox,
    QStyle,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from percviz.app.panels.name_combo import WholeNameCombo
from percviz.app.panels.param_form import ParamForm
from percviz.app.theme import theme_for
from percviz.app.run.session import FINISHED, IDLE, INVALID, PLAYING, RUNNING, RunSession
from percviz.core.errors import PercvizError
from percviz.core.features import FEATURE_MAPS, parse_features
from percviz.core.glossary import degenerate_note, margin_text, outcome
from percviz.core.kernels import KERNELS, parse_kernel
from percviz.core.scene import SceneModel
from percviz.core.solvers import by_family, get_solver
from percviz.core.solvers.base import MAX_ITER_SPEC
from percviz.core.spec import format_spec

#: Positions of the speed slider, in updates per second (0 = as fast as possible).
SPEEDS = (1, 2, 3, 5, 10, 20, 30, 50, 100, 200, 500, 1000, 0)
#: A run at least this long is discarded by Reset only when asked twice (the first press says what it would lose).
LONG_RUN = 1000
#: Seconds in which the second Reset must follow the first.
RESET_CONFIRM_S = 4.0
#: Class symbols offered by the class selector: + and − for two classes, 3..6 for multi-class.
CLASS_LABELS = ("+", "−", "3", "4", "5", "6")


def speed_text(ups: float) -> str:
    return "as fast as possible" if ups <= 0 else f"{ups:g} update{'s' if ups != 1 else ''}/s"


def format_number(v: float | None) -> str:
    if v is None:
        return "–"
    if v == 0 or 1e-3 <= abs(v) < 1e5:
        return f"{v:.4g}"
    return f"{v:.3e}"


def status_text(snap: Any, solver_cls: Any = None) -> str:
    """One line: iteration, status, which margin and its value, training errors (and the solver's message)."""
    m = dict(snap.metrics)
    parts = [f"Iteration {snap.iteration}", outcome(snap.status, m).words]
    margin = margin_text(solver_cls, m, format_number, snap.status)
    if margin:
        parts.append(margin)
    if "train_errors" in m:
        k = int(m["train_errors"])
        parts.append(f"{k} training error{'s' if k != 1 else ''}")
    text = " · ".join(parts)
    note = degenerate_note(solver_cls, m, snap.iteration)
    lines = [text] + [t for t in (note, snap.message) if t]
    return "\n".join(lines)


def _group(title: str) -> tuple[QGroupBox, QVBoxLayout]:
    box = QGroupBox(title)
    lay = QVBoxLayout(box)
    lay.setContentsMargins(8, 6, 8, 8)
    lay.setSpacing(6)
    return box, lay


class _SelectableUnderMouse(QObject):
    """A label's text can be selected with the mouse while the mouse is over it (or text stays selected).

    A selectable QLabel lays its text out in a document that repaints it twice more after each setText; the
    status changes on every move of a Live drag, so it is plain text whenever the mouse is elsewhere."""

    def eventFilter(self, label, event):
        kind = event.type()
        if kind == QEvent.Type.Enter:
            label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        elif kind == QEvent.Type.Leave and not label.hasSelectedText():
            label.setTextInteractionFlags(Qt.TextInteractionFlag.NoTextInteraction)
        return False


class ClassSelector(QWidget):
    """Which class a left click places: + and − always, classes 3..6 for multi-class algorithms."""

    classChanged = Signal(int)

    def __init__(self, parent=None):
        super().__init__(parent)
        lay = QHBoxLayout(self)
        lay.setContentsMargins(0, 0, 0, 0)
        lay.setSpacing(4)
        self.group = QButtonGroup(self)
        self.group.setExclusive(True)
        self.buttons: list[QToolButton] = []
        for cls, text in enumerate(CLASS_LABELS):
            b = QToolButton()
            b.setText(text)
            b.setCheckable(True)
            b.setMinimumSize(34, 28)
            f = QFont()
            f.setBold(True)  # only boldness is set: the size follows the window (presentation mode)
            b.setFont(f)
            b.setAccessibleName(f"class:{cls}")
            b.setToolTip(
                {0: "Left click places a + point (y = +1; class 1 in multi-class scenes)",
                 1: "Left click places a − point (y = −1; class 2 in multi-class scenes); right click always places −"}.get(
                    cls, f"Left click places a point of class {cls + 1} (multi-class algorithms)"
                )
            )
            self.group.addButton(b, cls)
            self.buttons.append(b)
            lay.addWidget(b)
        lay.addStretch(1)
        self.colors: list[str] = []
        self.buttons[0].setChecked(True)
        self.group.idClicked.connect(self.classChanged.emit)
        self.group.idToggled.connect(lambda _i, _on: self.refresh_look())

    def set_colors(self, colors: list[str]) -> None:
        """Class colours (theme order): the symbol in its colour, the chosen class on a tint of it."""
        self.colors = list(colors)
        self.refresh_look()

    def refresh_look(self) -> None:
        from PySide6.QtGui import QColor, QPalette

        for cls, b in enumerate(self.buttons):
            pal = QPalette(b.parentWidget().palette() if b.parentWidget() else b.palette())
            if cls < len(self.colors):
                col = QColor(self.colors[cls])
                for group in (QPalette.ColorGroup.Active, QPalette.ColorGroup.Inactive):
                    pal.setColor(group, QPalette.ColorRole.ButtonText, col)
                    if b.isChecked():
                        base = pal.color(group, QPalette.ColorRole.Button)
                        tint = QColor(*(round(0.7 * x + 0.3 * y) for x, y in zip(base.getRgb()[:3], col.getRgb()[:3])))
                        pal.setColor(group, QPalette.ColorRole.Button, tint)
            b.setPalette(pal)

    @property
    def current_class(self) -> int:
        return max(0, self.group.checkedId())

    def set_current_class(self, cls: int) -> None:
        cls = max(0, min(int(cls), len(self.buttons) - 1))
        if not self.buttons[cls].isEnabled():
            cls = 0
        if cls != self.current_class:
            self.buttons[cls].setChecked(True)
            self.classChanged.emit(cls)

    def set_multiclass(self, on: bool) -> None:
        """Multi-class algorithms name the classes 1…6 (and offer 3…6); two-class ones + and −."""
        for cls, b in enumerate(self.buttons[:2]):
            b.setText(str(cls + 1) if on else CLASS_LABELS[cls])
        for b in self.buttons[2:]:
            b.setEnabled(on)
            b.setVisible(on)
        if not on and self.current_class > 1:
            self.set_current_class(0)


class ControlsPanel(QWidget):
    """Everything to set up and drive a run; edits the scene's settings and commands the session."""

    #: The class a left click on the canvas places.
    classChanged = Signal(int)
    #: A first Reset of a long run: the sentence that says what a second one would discard.
    resetArmed = Signal(str)
    resetArmedChanged = Signal(bool)  # True while a second Reset would discard a long run

    def __init__(self, scene: SceneModel, session: RunSession, parent=None):
        super().__init__(parent)
        self.scene, self.session = scene, session
        self._algo_params: dict[str, dict] = {}
        self._max_iters: dict[str, int] = {}  # Max iterations as set (by hand or by a scene) for each algorithm
        self._kernel_params: dict[str, dict] = {}
        self._feature_params: dict[str, dict] = {}
        self._syncing = False
        self._status_error = False
        self._form_error = False
        self._reset_armed: float | None = None
        self._theme = theme_for()
        self.status_role = "neutral"
        self.setMinimumWidth(300)
        root = QVBoxLayout(self)
        root.setContentsMargins(6, 6, 6, 6)
        root.setSpacing(8)
        root.addWidget(self._build_points())
        root.addWidget(self._build_algorithm())
        root.addWidget(self._build_kernel())
        root.addWidget(self._build_run())
        root.addStretch(1)
        scene.settings_changed.connect(lambda _s: self.sync_from_scene())
        session.runStateChanged.connect(self._on_state)
        session.historyChanged.connect(self._on_history)
        session.snapshotShown.connect(self._on_snapshot)
        session.errorRaised.connect(self._on_error)
        session.problemChanged.connect(self._on_problem)
        self.sync_from_scene()
        self._on_state(session.state)
        if session.error:
            self._on_error(session.error)

    # -- construction ----------------------------------------------------------------------------------
    def _build_points(self) -> QWidget:
        box, lay = _group("Points")
        self.class_selector = ClassSelector()
        self.class_selector.classChanged.connect(self.classChanged.emit)
        row = QHBoxLayout()
        row.addWidget(QLabel("Place:"))
        row.addWidget(self.class_selector, 1)
        lay.addLayout(row)
        box.setToolTip("Left click places the selected class, right click (or shift+click) places −; "
                       "drag a point to move it; Delete or ctrl+click removes one.")
        return box

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

    def _build_run(self) -> QWidget:
        box, lay = _group("Run")
        st = self.style()
        self.step_button = self._button("Step", "step", st.standardIcon(QStyle.StandardPixmap.SP_MediaSkipForward), "One update of the algorithm (Space)")
        self.play_button = self._button("Play", "play", st.standardIcon(QStyle.StandardPixmap.SP_MediaPlay), "Animate at the chosen speed; click again to pause (P)")
        self.run_button = self._button("Run to end", "run", st.standardIcon(QStyle.StandardPixmap.SP_MediaSeekForward), "Run as fast as possible until the algorithm halts or reaches the iteration limit (Ctrl+Enter)")
        self.reset_button = self._button("Reset", "reset", st.standardIcon(QStyle.StandardPixmap.SP_BrowserReload), "Back to iteration 0 (R)")
        self.step_button.clicked.connect(self.session.step)
        self.play_button.clicked.connect(self.session.toggle_play)
        self.run_button.clicked.connect(self.session.run_to_end)
        self.reset_button.clicked.connect(self.request_reset)
        grid = QGridLayout()
        grid.setSpacing(4)
        grid.addWidget(self.step_button, 0, 0)
        grid.addWidget(self.play_button, 0, 1)
        grid.addWidget(self.run_button, 1, 0)
        grid.addWidget(self.reset_button, 1, 1)
        lay.addLayout(grid)
        self.live_box = QCheckBox("Live")
        self.live_box.setAccessibleName("live")
        self.live_box.setObjectName("live")
        self.live_box.setToolTip("Live: every edit reruns the algorithm to its end (L)")
        lay.addWidget(self.live_box)

        form = QFormLayout()
        form.setContentsMargins(0, 4, 0, 0)
        self.max_iter = QSpinBox()
        self.max_iter.setAccessibleName("max_iter")
        self.max_iter.setObjectName("max_iter")
        self.max_iter.setRange(int(MAX_ITER_SPEC.low), int(MAX_ITER_SPEC.high))
        self.max_iter.setKeyboardTracking(False)
        self.max_iter.setAccelerated(True)
        self.max_iter.setGroupSeparatorShown(True)
        self.max_iter.setToolTip("Stop after this many updates (the run then ends with 'iteration limit').")
        self.max_iter.valueChanged.connect(self._on_max_iter)
        form.addRow("Max iterations", self.max_iter)

        self.speed = QSlider(Qt.Orientation.Horizontal)
        self.speed.setAccessibleName("speed")
        self.speed.setObjectName("speed")
        self.speed.setRange(0, len(SPEEDS) - 1)
        self.speed.setPageStep(1)
        self.speed.setToolTip("Updates per second while playing, from 1 to as fast as possible")
        self.speed_label = QLabel()
        self.speed_label.setMinimumWidth(70)
        self.speed.valueChanged.connect(self._on_speed)
        self.speed.setValue(SPEEDS.index(20) if 20 in SPEEDS else 0)
        self._on_speed(self.speed.value())
        srow = QHBoxLayout()
        srow.addWidget(self.speed, 1)
        srow.addWidget(self.speed_label)
        form.addRow("Speed", srow)
        lay.addLayout(form)

        self.history = QSlider(Qt.Orientation.Horizontal)
        self.history.setAccessibleName("history")
        self.history.setObjectName("history")
        self.history.setRange(0, 0)
        self.history.setToolTip("Scrub through the snapshots computed so far (← / →)")
        self.history.valueChanged.connect(self._on_history_slider)
        self.history_label = QLabel("no snapshot yet")
        self.history_label.setStyleSheet("color: palette(mid); font-size: 11px;")
        hrow = QVBoxLayout()
        hrow.setSpacing(0)
        hl = QHBoxLayout()
        hl.addWidget(QLabel("History"))
        hl.addWidget(self.history, 1)
        hrow.addLayout(hl)
        hrow.addWidget(self.history_label, 0, Qt.AlignmentFlag.AlignRight)
        lay.addLayout(hrow)

        self.status = QLabel()
        self.status.setAccessibleName("status")
        self.status.setObjectName("status")
        self.status.setWordWrap(True)
        self._selectable = _SelectableUnderMouse(self.status)
        self.status.installEventFilter(self._selectable)
        self.status.setMinimumHeight(44)
        self.status.setSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Minimum)
        self._set_status("", error=False)
        lay.addWidget(self.status)
        return box

    def _button(self, text: str, name: str, icon, tip: str) -> QPushButton:
        b = QPushButton(icon, text)
        b.setAccessibleName(name)
        b.setObjectName(name)
        b.setToolTip(tip)
        b.setMinimumHeight(30)
        return b

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

    def apply_theme(self, theme) -> None:
        """Colour the class buttons like the canvas markers (palettes, so fonts still follow the window)."""
        self.class_selector.set_colors([theme.class_color(c) for c in range(len(self.class_selector.buttons))])
        self._theme = theme
        self._style_headings(theme)
        self.fit_popup()
        snap = self.session.current
        if not self._status_error and snap is not None:
            self._set_status(status_text(snap, self.session.solver_cls), error=False, snap=snap)

    def _style_headings(self, theme) -> None:
        """The algorithm list's family headings: bold at the theme's text size, in its text colour (not the faint
        grey of a disabled item, not the desk's size in presentation)."""
        model = self.algorithm.model()
        font = QFont(self.algorithm.view().font())  # the items' size (the window's font), so fit_popup measures it
        font.setBold(True)
        brush = QBrush(QColor(theme.foreground))
        for row in range(model.rowCount()):
            index = model.index(row, 0)
            if model.data(index, Qt.ItemDataRole.UserRole) is None:
                model.setData(index, font, Qt.ItemDataRole.FontRole)
                model.setData(index, brush, Qt.ItemDataRole.ForegroundRole)

    def fit_popup(self) -> None:
        """The algorithm list is as wide as its longest heading or name (never 'Von Neumann & prima…ual')."""
        self.algorithm.fit_popup()

    # -- reading -----------------------------------------------------------------------------------------
    @property
    def current_class(self) -> int:
        return self.class_selector.current_class

    def select_algorithm(self, name: str) -> None:
        """Choose an algorithm as if picked in the combo box (an old name such as 'smo': the algorithm it opens,
        with its values)."""
        try:
            cls = get_solver(name)
        except PercvizError:
            cls = None
        target = getattr(cls, "alias_of", None) or name
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
            listed = getattr(cls, "alias_of", None) or s.algorithm  # an old name ('smo') shows its algorithm
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

    def request_reset(self) -> bool:
        """Reset (R, Home, the button); a long run is discarded only by a second press within a few seconds."""
        import time

        latest = self.session.latest
        long_run = latest is not None and latest.iteration >= LONG_RUN
        armed = self._reset_armed is not None and time.monotonic() - self._reset_armed < RESET_CONFIRM_S
        if long_run and not armed:
            self._reset_armed = time.monotonic()
            self.reset_button.setText("Again to discard")
            self.resetArmedChanged.emit(True)
            self.resetArmed.emit(f"Reset would discard {latest.iteration:,} iterations: press R (or Reset) again to do it.")
            from PySide6.QtCore import QTimer

            QTimer.singleShot(int(RESET_CONFIRM_S * 1000), self._disarm_reset)
            return False
        self._disarm_reset()
        self.session.reset()
        return True

    def _disarm_reset(self) -> None:
        if self._reset_armed is not None:
            self.resetArmedChanged.emit(False)
        self._reset_armed = None
        self.reset_button.setText("Reset")

    def revert_edits(self) -> None:
        """Escape in a field: every field shows the scene's settings again (typed text that was not committed goes)."""
        for form in (self.algo_form, self.kernel_form, self.feature_form):
            form.revert()
        self.sync_from_scene()

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

    def _on_max_iter(self, value: int) -> None:
        self._apply(max_iter=int(value))

    def _on_speed(self, pos: int) -> None:
        ups = SPEEDS[max(0, min(pos, len(SPEEDS) - 1))]
        self.speed_label.setText(speed_text(ups))
        self.session.set_speed(ups)

    def _on_history_slider(self, pos: int) -> None:
        if pos != self.session.index:
            self.session.show_index(pos)

    # -- session → widgets -------------------------------------------------------------------------------
    def _update_enabled(self) -> None:
        ok = self.forms_valid()
        runnable = ok and self.session.state != INVALID and not self.session.finished
        for b in (self.step_button, self.play_button, self.run_button):
            b.setEnabled(runnable)
        self.reset_button.setEnabled(self.session.state != INVALID or ok)
        if not ok:
            bad = next(iter({**self.algo_form.errors(), **self.kernel_form.errors(), **self.feature_form.errors()}.values()), "")
            self._set_status(f"Fix the highlighted value before running. {bad}", error=True)
            self._form_error = True
        elif self._form_error:
            # the field is valid again: its message goes, the run's own status comes back
            self._form_error = False
            snap = self.session.current
            if self.session.error:
                self._set_status(self.session.error, error=True)
            elif snap is not None:
                self._set_status(status_text(snap, self.session.solver_cls), error=False, snap=snap)
            else:
                self._set_status("", error=False)

    def _restarting_for_drag(self) -> bool:
        """A Live drag's rerun is starting: its end (finished, still running, or an error) follows at once, so the
        controls skip the in-between state ("Starting…", iteration 0, Step enabled) and repaint once per move."""
        s = self.session
        return bool(s.sparse) and s.problem is not None and not s.finished and not len(s.history_store)

    def _on_state(self, state: str) -> None:
        if state == IDLE and self._restarting_for_drag():
            return
        playing = state in (PLAYING, RUNNING)
        icon = QStyle.StandardPixmap.SP_MediaPause if state == PLAYING else QStyle.StandardPixmap.SP_MediaPlay
        if icon != getattr(self, "_play_icon", None):  # setIcon repaints the button even when it is the same
            self._play_icon = icon
            self.play_button.setIcon(self.style().standardIcon(icon))
        self.play_button.setText("Pause" if playing else "Play")
        self.run_button.setText("Running…" if state == RUNNING else "Run to end")
        self._update_enabled()
        if state == FINISHED and self.session.latest is not None:
            self._on_snapshot(self.session.current)

    def _on_problem(self, problem, solver_cls) -> None:
        if self._restarting_for_drag():
            return
        if problem is not None:
            self._set_status("Starting…", error=False)
        self._update_enabled()

    def _on_history(self, count: int) -> None:
        if count == 0 and self._restarting_for_drag():
            return
        self.history.blockSignals(True)
        self.history.setRange(0, max(0, count - 1))
        self.history.setValue(max(0, self.session.index))
        self.history.blockSignals(False)
        self._update_history_label()

    def _update_history_label(self) -> None:
        store = self.session.history_store
        if not len(store):
            self.history_label.setText("no snapshot yet")
            return
        i = max(0, self.session.index)
        shown, last = store[i].iteration, store[-1].iteration
        text = f"showing iteration {shown} of {last}"
        if store.thinned:
            text += f" ({len(store)} kept)"
        self.history_label.setText(text)

    def _on_snapshot(self, snap) -> None:
        if snap is None:
            return
        self.history.blockSignals(True)
        self.history.setValue(max(0, self.session.index))
        self.history.blockSignals(False)
        self._update_history_label()
        if self.forms_valid():
            self._set_status(status_text(snap, self.session.solver_cls), error=False, snap=snap)
        self._update_enabled()

    def _on_error(self, text: str) -> None:
        self._set_status(text, error=True)

    def _set_status(self, text: str, error: bool, snap: Any = None) -> None:
        """The status box: its words, and a colour by outcome (separator, certificate, proof, limit, …)."""
        self._status_error = error
        if error:
            role = "error"
        elif snap is not None and snap.status.done:
            role = outcome(snap.status, dict(snap.metrics)).role
            if degenerate_note(self.session.solver_cls, dict(snap.metrics)):
                role = "warning"
        else:
            role = "neutral"
        self.status_role = role
        fg, bg, border = self._theme.status_style(role)
        style = f"color: {fg}; background: {bg}; border: 1px solid {border};"
        sheet = f"QLabel {{ {style} border-radius: 4px; padding: 5px; }}"
        if sheet != self.status.styleSheet():  # re-polishing costs ~1 ms: not at every frame of a run
            self.status.setStyleSheet(sheet)
        text = text or "Place + and − points, then Step or Play."
        if text != self.status.text():  # QLabel repaints (with its group) on every setText, even the same one
            self.status.setText(text)
