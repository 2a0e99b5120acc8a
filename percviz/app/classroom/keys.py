"""Keys that always work: Enter/Escape leave a field for the canvas, the run keys drive the run everywhere else."""

from __future__ import annotations

from PySide6.QtCore import QEvent, QObject, Qt, QTimer
from PySide6.QtGui import QKeySequence
from PySide6.QtWidgets import (
    QAbstractButton,
    QAbstractScrollArea,
    QAbstractSlider,
    QAbstractSpinBox,
    QApplication,
    QComboBox,
    QLineEdit,
    QPlainTextEdit,
    QTextEdit,
    QWidget,
)

#: The keys that drive a run (outside a text field they never go to a widget).
RUN_KEYS = frozenset(
    (Qt.Key.Key_Space, Qt.Key.Key_P, Qt.Key.Key_R, Qt.Key.Key_Left, Qt.Key.Key_Right, Qt.Key.Key_Home,
     Qt.Key.Key_End, Qt.Key.Key_L)
)
_ENTER = (Qt.Key.Key_Return, Qt.Key.Key_Enter)


def is_text_field(w: QWidget | None) -> bool:
    """Whether keys typed now go into text (a line edit, spin box or editable text area)."""
    while w is not None:
        if isinstance(w, QLineEdit):
            return not w.isReadOnly()
        if isinstance(w, QAbstractSpinBox):
            return not w.isReadOnly()
        if isinstance(w, (QPlainTextEdit, QTextEdit)):
            return not w.isReadOnly()
        if isinstance(w, QComboBox) and w.isEditable():
            return True
        w = w.parentWidget() if isinstance(w.parentWidget(), (QAbstractSpinBox, QComboBox)) else None
    return False


def _is_run_key(ev) -> bool:
    mods = ev.modifiers() & ~Qt.KeyboardModifier.KeypadModifier
    if ev.key() in _ENTER:
        return mods == Qt.KeyboardModifier.ControlModifier
    return ev.key() in RUN_KEYS and mods in (Qt.KeyboardModifier.NoModifier, Qt.KeyboardModifier.ShiftModifier)


class FocusKeeper(QObject):
    """Application event filter for one main window: field keys and run keys as a lecturer expects."""

    def __init__(self, window: QWidget, controls: QWidget, canvas_plot: QWidget):
        """window: the main window whose widgets it serves; controls: the side panel (its fields commit or revert);
        canvas_plot: where the keyboard goes back to."""
        super().__init__(window)
        self.window, self.controls, self.canvas_plot = window, controls, canvas_plot
        for w in controls.findChildren(QWidget):
            # clicking a button, slider, combo or check box leaves the keyboard with the canvas
            if isinstance(w, (QAbstractButton, QAbstractSlider)) or (isinstance(w, QComboBox) and not w.isEditable()):
                w.setFocusPolicy(Qt.FocusPolicy.TabFocus)
        holder = controls.parentWidget()
        while holder is not None and holder is not window:
            if isinstance(holder, QAbstractScrollArea):
                holder.setFocusPolicy(Qt.FocusPolicy.NoFocus)  # a click beside a button must not take the keys
            holder = holder.parentWidget()
        # only widgets that take the keyboard get the filter (an application-wide Python filter would see every
        # paint and timer event of the process)
        QApplication.instance().focusChanged.connect(self._on_focus)
        self._on_focus(None, QApplication.focusWidget())

    def _on_focus(self, _old, new) -> None:
        if isinstance(new, QWidget) and self._ours(new) and not new.property("percviz_keys"):
            new.setProperty("percviz_keys", True)
            new.installEventFilter(self)

    def focus_canvas(self) -> None:
        """Give the keyboard to the canvas's plot (where Space, P, R, ← → act)."""
        self.canvas_plot.setFocus(Qt.FocusReason.OtherFocusReason)

    def _ours(self, w) -> bool:
        try:
            return isinstance(w, QWidget) and w.window() is self.window
        except RuntimeError:  # the window is being destroyed
            return False

    def _in_controls(self, w: QWidget) -> bool:
        return w is self.controls or self.controls.isAncestorOf(w)

    def eventFilter(self, obj: QObject, ev: QEvent) -> bool:
        t = ev.type()
        if t not in (QEvent.Type.KeyPress, QEvent.Type.ShortcutOverride) or not self._ours(obj):
            return False
        focus = QApplication.focusWidget()
        if obj is not focus:
            return False
        if is_text_field(focus):
            if t == QEvent.Type.KeyPress and self._in_controls(focus) and not ev.modifiers() & ~Qt.KeyboardModifier.KeypadModifier:
                if ev.key() == Qt.Key.Key_Escape:
                    self.controls.revert_edits()
                    self.focus_canvas()
                    return True
                if ev.key() in _ENTER:
                    # let the field commit first, then hand the keyboard back if what it holds is valid
                    QTimer.singleShot(0, self._after_enter)
            return False
        if t == QEvent.Type.ShortcutOverride and _is_run_key(ev):
            ev.ignore()  # not overridden: the window's shortcut for this key fires
            return True
        if (t == QEvent.Type.KeyPress and isinstance(focus, QComboBox) and not ev.modifiers() & ~Qt.KeyboardModifier.KeypadModifier
                and ev.key() in (*_ENTER, Qt.Key.Key_Escape)):
            self.focus_canvas()  # a closed choice box has nothing to commit or revert: Enter/Escape just leave it
            return True
        return False

    def _after_enter(self) -> None:
        if self.controls.forms_valid():
            self.focus_canvas()

    def detach(self) -> None:
        app = QApplication.instance()
        if app is not None:
            try:
                app.focusChanged.disconnect(self._on_focus)
            except (RuntimeError, TypeError):
                pass


def key_text(seq: QKeySequence) -> str:
    """A shortcut as shown in help: 'Ctrl+Return' → 'Ctrl+Enter', arrows as symbols."""
    text = seq.toString(QKeySequence.SequenceFormat.NativeText)
    for a, b in (("Return", "Enter"), ("Left", "←"), ("Right", "→"), ("Up", "↑"), ("Down", "↓")):
        text = text.replace(a, b)
    return text


__all__ = ["FocusKeeper", "RUN_KEYS", "is_text_field", "key_text"]
