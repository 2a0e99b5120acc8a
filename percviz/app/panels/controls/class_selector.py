"""The class selector: + and − (or classes 3..6) as a row of toggle buttons."""

from __future__ import annotations

from PySide6.QtCore import QEvent, QObject, Qt, Signal
from PySide6.QtGui import QFont
from PySide6.QtWidgets import (
    QButtonGroup,
    QHBoxLayout,
    QToolButton,
    QWidget,
)

#: Class symbols offered by the class selector: + and − for two classes, 3..6 for multi-class.
CLASS_LABELS = ("+", "−", "3", "4", "5", "6")


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
