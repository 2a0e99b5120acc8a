"""'Race the current scene…': choose 2–4 algorithms, each with its kernel or φ-map (the scene's own by default)."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QFont, QStandardItem, QStandardItemModel
from PySide6.QtWidgets import (
    QCheckBox, QComboBox, QDialog, QDialogButtonBox, QGridLayout, QLabel, QVBoxLayout,
)

from percviz.app.experiments.names import features_words, kernel_words
from percviz.core.experiments.race import MAX_LANES, MIN_LANES, RACE_SPARE, Lane
from percviz.core.features import FEATURE_MAPS
from percviz.core.kernels import KERNELS
from percviz.core.solvers import by_family, get_solver

#: The fourth row's algorithm when the default race has three lanes.
SPARE = RACE_SPARE


def _algorithm_model(parent) -> QStandardItemModel:
    """The registry by family (the paper's first), family names as bold headers that cannot be chosen."""
    model = QStandardItemModel(parent)
    bold = QFont()
    bold.setBold(True)
    families = by_family()
    for family in sorted(families, key=lambda f: (0 if "Ramdas" in f else 1, list(families).index(f))):
        head = QStandardItem(family)
        head.setFlags(Qt.ItemFlag.NoItemFlags)
        head.setFont(bold)
        model.appendRow(head)
        for cls in families[family]:
            item = QStandardItem("    " + cls.display_name)
            item.setData(cls.name, Qt.ItemDataRole.UserRole)
            item.setToolTip(cls.description or cls.display_name)
            model.appendRow(item)
    return model


class LaneRow:
    """One row of the dialog: in the race or not, the algorithm, and what it runs on (kernel or φ-map)."""

    def __init__(self, dialog, index: int, lane: Lane, on: bool, scene_kernel: str, scene_features: str):
        self.scene_kernel, self.scene_features = scene_kernel, scene_features
        self.use = QCheckBox(f"Lane {index + 1}")
        self.use.setAccessibleName(f"lane-{index}-on")
        self.use.setChecked(on)
        self.algorithm = QComboBox()
        self.algorithm.setAccessibleName(f"lane-{index}-algorithm")
        self.algorithm.setModel(_algorithm_model(self.algorithm))
        self.runs_on = QComboBox()
        self.runs_on.setAccessibleName(f"lane-{index}-runs-on")
        self.algorithm.currentIndexChanged.connect(lambda _i: self._fill_runs_on())
        self.select(lane)
        self.use.toggled.connect(lambda _on: dialog.check())

    def select(self, lane: Lane) -> None:
        i = self.algorithm.findData(lane.algorithm, Qt.ItemDataRole.UserRole)
        self.algorithm.setCurrentIndex(i)
        self._fill_runs_on()
        spec = lane.kernel if self.kernel_based else lane.features
        j = self.runs_on.findData(spec)
        if j < 0:
            self.runs_on.insertItem(0, self._words(spec), spec)
            j = 0
        self.runs_on.setCurrentIndex(j)

    @property
    def name(self) -> str:
        return self.algorithm.currentData(Qt.ItemDataRole.UserRole)

    @property
    def kernel_based(self) -> bool:
        return get_solver(self.name).representation == "kernel"

    def _words(self, spec: str) -> str:
        return kernel_words(spec) if self.kernel_based else features_words(spec).replace("\u00a0", " ")

    def _fill_runs_on(self) -> None:
        """The scene's own kernel (or φ-map) first, then every registered one at its defaults."""
        self.runs_on.clear()
        own = self.scene_kernel if self.kernel_based else self.scene_features
        registry = KERNELS if self.kernel_based else FEATURE_MAPS
        self.runs_on.addItem(f"{self._words(own)} (the scene's)".replace("\u00a0", " "), own)
        for name in registry:
            if name != own:
                self.runs_on.addItem(self._words(name).replace("\u00a0", " "), name)

    def lane(self) -> Lane:
        spec = self.runs_on.currentData()
        if self.kernel_based:
            return Lane(self.name, kernel=spec, features=self.scene_features)
        return Lane(self.name, kernel=self.scene_kernel, features=spec)


class RaceSetupDialog(QDialog):
    """Rows of lanes; OK (enabled with 2–4 lanes ticked) gives `lanes()`."""

    def __init__(self, lanes, kernel: str, features: str, parent=None):
        super().__init__(parent)
        self.setWindowTitle("Race the current scene")
        self.setObjectName("race_setup")
        lanes = list(lanes)
        given = len(lanes)
        while len(lanes) < MAX_LANES:
            lanes.append(Lane(SPARE, kernel, features))
        grid = QGridLayout()
        grid.addWidget(QLabel("algorithm"), 0, 1)
        grid.addWidget(QLabel("kernel or φ-map"), 0, 2)
        self.rows = []
        for i, lane in enumerate(lanes[:MAX_LANES]):
            row = LaneRow(self, i, lane, i < given, kernel, features)
            for c, w in enumerate((row.use, row.algorithm, row.runs_on)):
                grid.addWidget(w, i + 1, c)
            self.rows.append(row)
        self.note = QLabel()
        self.note.setAccessibleName("status")
        self.buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel)
        self.buttons.button(QDialogButtonBox.StandardButton.Ok).setText("Race")
        self.buttons.accepted.connect(self.accept)
        self.buttons.rejected.connect(self.reject)
        lay = QVBoxLayout(self)
        lay.addWidget(QLabel("Choose 2 to 4 algorithms; each runs with its own kernel or φ-map."))
        lay.addLayout(grid)
        lay.addWidget(self.note)
        lay.addWidget(self.buttons)
        self.check()

    def check(self) -> bool:
        n = sum(r.use.isChecked() for r in self.rows)
        ok = MIN_LANES <= n <= MAX_LANES
        self.buttons.button(QDialogButtonBox.StandardButton.Ok).setEnabled(ok)
        self.note.setText("" if ok else f"Tick {MIN_LANES} to {MAX_LANES} lanes ({n} ticked).")
        return ok

    def lanes(self) -> tuple[Lane, ...]:
        return tuple(r.lane() for r in self.rows if r.use.isChecked())
