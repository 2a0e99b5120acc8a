"""Edit ▸ Generate points…: blobs, moons, circles, XOR, spirals or a separable set, in one undoable step."""

from __future__ import annotations

import numpy as np
from PySide6.QtWidgets import (
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QDoubleSpinBox,
    QFormLayout,
    QLabel,
    QSpinBox,
)

from percviz.core.data import PointSet
from percviz.core.errors import PercvizError
from percviz.core.generators import GENERATORS, generate


def apply_generated(window, name: str, n: int = 100, noise: float = 0.1, seed: int = 0, add: bool = False,
                    **extra) -> bool:
    """Put generated points in the scene (replacing them, or added to them): one undo step."""
    try:
        pts = generate(name, n, noise, seed, **extra)
    except PercvizError as e:
        window.show_error("Cannot generate the points", str(e))
        return False
    if add and window.scene.n:
        old = window.scene.points
        pts = PointSet(np.vstack([old.X, pts.X]), np.concatenate([old.classes, pts.classes]))
    window.scene.set_points(pts)
    if not add:  # new points, a new scene: no earlier title, explanation or file name
        window.start_untitled()
    window.show_message(f"Generated {n} points ({GENERATORS[name].label}); Ctrl+Z restores the previous ones.")
    return True


class GeneratorsDialog(QDialog):
    """The generator, n, noise, seed and its own parameter (margin or classes); Replace or Add."""

    def __init__(self, window):
        super().__init__(window)
        self.setObjectName("generators_dialog")
        self.setWindowTitle("Generate points")
        self.window_ = window
        form = QFormLayout(self)
        self.kind = QComboBox()
        self.kind.setObjectName("generator")
        for name, g in GENERATORS.items():
            self.kind.addItem(g.label, name)
        self.n = QSpinBox()
        self.n.setObjectName("generator_n")
        self.n.setRange(2, 5000)
        self.n.setValue(100)
        self.noise = QDoubleSpinBox()
        self.noise.setObjectName("generator_noise")
        self.noise.setRange(0.0, 3.0)
        self.noise.setSingleStep(0.05)
        self.noise.setValue(0.1)
        self.seed = QSpinBox()
        self.seed.setObjectName("generator_seed")
        self.seed.setRange(0, 2**31 - 1)
        self.margin = QDoubleSpinBox()
        self.margin.setObjectName("generator_margin")
        self.margin.setRange(0.0, 3.0)
        self.margin.setSingleStep(0.05)
        self.margin.setValue(0.5)
        self.classes = QSpinBox()
        self.classes.setObjectName("generator_classes")
        self.classes.setRange(2, 6)
        form.addRow("Shape", self.kind)
        form.addRow("Points n", self.n)
        form.addRow("Noise σ", self.noise)
        form.addRow("Seed", self.seed)
        self.margin_label, self.classes_label = QLabel("Margin (distance to the line)"), QLabel("Classes")
        form.addRow(self.margin_label, self.margin)
        form.addRow(self.classes_label, self.classes)
        buttons = QDialogButtonBox()
        self.replace = buttons.addButton("Replace the points", QDialogButtonBox.ButtonRole.AcceptRole)
        self.add = buttons.addButton("Add to the points", QDialogButtonBox.ButtonRole.AcceptRole)
        buttons.addButton(QDialogButtonBox.StandardButton.Cancel)
        self.replace.clicked.connect(lambda: self._done(False))
        self.add.clicked.connect(lambda: self._done(True))
        buttons.rejected.connect(self.reject)
        form.addRow(buttons)
        self.kind.currentIndexChanged.connect(self._show_extra)
        self._show_extra()

    def _show_extra(self) -> None:
        extra = GENERATORS[self.kind.currentData()].extra
        for widget, label, key in ((self.margin, self.margin_label, "margin"), (self.classes, self.classes_label, "classes")):
            widget.setVisible(key in extra)
            label.setVisible(key in extra)

    def choice(self) -> dict:
        name = self.kind.currentData()
        extra = {}
        if "margin" in GENERATORS[name].extra:
            extra["margin"] = self.margin.value()
        if "classes" in GENERATORS[name].extra:
            extra["classes"] = self.classes.value()
        return {"name": name, "n": self.n.value(), "noise": self.noise.value(), "seed": self.seed.value(), **extra}

    def _done(self, add: bool) -> None:
        if apply_generated(self.window_, add=add, **self.choice()):
            self.accept()


__all__ = ["GeneratorsDialog", "apply_generated"]
