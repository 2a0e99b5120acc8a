"""Experiments ▸ Race the current scene…: choose 2–4 algorithms, each with its kernel or φ-map (the scene's own first)."""

from __future__ import annotations

from PySide6.QtWidgets import QCheckBox, QComboBox, QDialog, QDialogButtonBox, QGridLayout, QLabel, QVBoxLayout

from percviz.app.experiments.race_names import algorithm_name, features_name, kernel_name
from percviz.core.errors import PercvizError
from percviz.core.experiments.race import MAX_LANES, MIN_LANES, Lane
from percviz.core.features import FEATURE_MAPS
from percviz.core.kernels import KERNELS
from percviz.core.solvers import by_family, get_solver


def race_algorithms() -> list:
    """The registered two-class algorithms (kernel or φ-map), the paper's first, as the algorithm list orders them."""
    families = by_family()
    order = sorted(families, key=lambda f: (0 if "Ramdas" in f else 1, list(families).index(f)))
    return [c for f in order for c in families[f] if c.representation in ("kernel", "features")]


class RaceSetupDialog(QDialog):
    """Up to four rows (a tick, an algorithm, its kernel or φ-map); OK only with 2–4 ticked."""

    def __init__(self, parent, kernel: str, features: str, lanes=()):
        super().__init__(parent)
        self.setWindowTitle("Race: choose the algorithms")
        self.setObjectName("race_setup")
        self.scene_kernel, self.scene_features = kernel, features
        self.algorithms = race_algorithms()
        grid = QGridLayout()
        grid.addWidget(QLabel("<b>Algorithm</b>"), 0, 1)
        grid.addWidget(QLabel("<b>Kernel or φ-map</b>"), 0, 2)
        self.rows: list[tuple[QCheckBox, QComboBox, QComboBox]] = []
        self.problem = QLabel()
        self.problem.setObjectName("race_setup_problem")
        self.buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel)
        self.buttons.button(QDialogButtonBox.StandardButton.Ok).setText("Race")
        self.buttons.accepted.connect(self.accept)
        self.buttons.rejected.connect(self.reject)
        lanes = list(lanes)
        for i in range(MAX_LANES):
            use = QCheckBox(f"Lane {i + 1}")
            use.setAccessibleName(f"race lane {i + 1}")
            algo = QComboBox()
            algo.setAccessibleName(f"race algorithm {i + 1}")
            for cls in self.algorithms:
                algo.addItem(f"{algorithm_name(cls.name)} — {cls.display_name}"
                             if algorithm_name(cls.name) != cls.display_name else cls.display_name, cls.name)
            spec = QComboBox()
            spec.setAccessibleName(f"race kernel {i + 1}")
            self.rows.append((use, algo, spec))
            algo.currentIndexChanged.connect(lambda _i, r=i: self._fill_specs(r))
            use.toggled.connect(lambda _on: self._check())
            lane = lanes[i] if i < len(lanes) else None
            if lane is not None:
                algo.setCurrentIndex(max(0, algo.findData(lane.algorithm)))
            self._fill_specs(i, lane)
            use.setChecked(lane is not None)
            for c, w in enumerate((use, algo, spec)):
                grid.addWidget(w, i + 1, c)
        lay = QVBoxLayout(self)
        lay.addLayout(grid)
        lay.addWidget(self.problem)
        lay.addWidget(self.buttons)
        self._check()

    def _fill_specs(self, row: int, lane=None) -> None:
        """The kernels (or φ-maps) of the row's algorithm: the scene's own first (its parameters kept), then the rest."""
        _use, algo, spec = self.rows[row]
        rep = get_solver(algo.currentData()).representation
        kernel_side = rep == "kernel"
        own = self.scene_kernel if kernel_side else self.scene_features
        registry = KERNELS if kernel_side else FEATURE_MAPS
        name_of = kernel_name if kernel_side else features_name
        spec.blockSignals(True)
        spec.clear()
        spec.addItem(f"{name_of(own)} (the scene's)", own)
        for name in registry:
            if name != own.split(":")[0] or ":" in own:
                spec.addItem(name_of(name), name)
        wanted = (lane.kernel if kernel_side else lane.features) if lane is not None else own
        index = spec.findData(wanted)
        if index < 0:
            spec.addItem(name_of(wanted), wanted)
            index = spec.count() - 1
        spec.setCurrentIndex(index)
        spec.blockSignals(False)

    def _check(self) -> None:
        n = sum(use.isChecked() for use, _a, _s in self.rows)
        ok = MIN_LANES <= n <= MAX_LANES
        self.problem.setText("" if ok else f"Tick {MIN_LANES} to {MAX_LANES} lanes (now {n}).")
        self.buttons.button(QDialogButtonBox.StandardButton.Ok).setEnabled(ok)

    def lanes(self) -> tuple[Lane, ...]:
        """The ticked rows as lanes (the other representation keeps the scene's own setting)."""
        out = []
        for use, algo, spec in self.rows:
            if not use.isChecked():
                continue
            name = algo.currentData()
            try:
                kernel_side = get_solver(name).representation == "kernel"
            except PercvizError:
                continue
            chosen = spec.currentData()
            out.append(Lane(name, chosen if kernel_side else self.scene_kernel,
                            self.scene_features if kernel_side else chosen))
        return tuple(out)

    def choose(self, row: int, algorithm: str, spec: str | None = None, use: bool = True) -> None:
        """Set one row as a person would (tests, scripts)."""
        tick, algo, specs = self.rows[row]
        algo.setCurrentIndex(algo.findData(algorithm))
        if spec is not None:
            index = specs.findData(spec)
            if index < 0:
                raise PercvizError(f"No kernel or φ-map '{spec}' for {algorithm}.")
            specs.setCurrentIndex(index)
        tick.setChecked(use)


__all__ = ["RaceSetupDialog", "race_algorithms"]
