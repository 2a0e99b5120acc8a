"""Widgets drawn over others: the run caption on the canvas and the keyboard-help sheet over the window."""

from __future__ import annotations

import html

from PySide6.QtCore import QEvent, QObject, Qt
from PySide6.QtGui import QColor, QPainter
from PySide6.QtWidgets import QLabel, QWidget

from percviz.app.theme import Theme, theme_for


def _fmt(value: float) -> str:
    return f"{value:.4g}" if abs(value) >= 1e-3 or value == 0 else f"{value:.2e}"


def run_caption(snapshot, solver_cls) -> str:
    """'SNKP · iteration 37' / 'margin 0.0123 · separator found' for the canvas overlay."""
    name = getattr(solver_cls, "name", "") or ""
    title = name.upper() if name else ""
    lines = []
    if snapshot is None:
        return title
    first = f"{title} · iteration {snapshot.iteration}" if title else f"iteration {snapshot.iteration}"
    lines.append(first)
    second = []
    margin = snapshot.metrics.get("margin")
    if margin is not None:
        second.append(f"margin {_fmt(margin)}")
    if snapshot.status.done:
        second.append(snapshot.status.text)
    if second:
        lines.append(" · ".join(second))
    return "\n".join(lines)


class _Follow(QObject):
    """Keeps an overlay placed over its parent when the parent is resized."""

    def __init__(self, overlay: QWidget):
        super().__init__(overlay)
        self.overlay = overlay
        overlay.parentWidget().installEventFilter(self)

    def eventFilter(self, obj, event):
        if event.type() in (QEvent.Resize, QEvent.Show, QEvent.LayoutRequest):
            self.overlay.place()
        return False


class RunOverlay(QLabel):
    """The iteration, algorithm and current margin in large type over the canvas' top-left corner."""

    MARGIN = 8

    def __init__(self, parent: QWidget, theme: Theme | None = None):
        super().__init__(parent)
        self.setObjectName("run_overlay")
        self.setAttribute(Qt.WA_TransparentForMouseEvents)
        self.setTextFormat(Qt.PlainText)
        self._solver_cls = None
        self._enabled = True
        self.apply_theme(theme or theme_for())
        _Follow(self)
        self.hide()

    def apply_theme(self, theme: Theme) -> None:
        self.theme = theme
        self.setFont(theme.font(theme.overlay_pt, bold=True))
        bg = QColor(theme.background)
        bg.setAlpha(200)
        self.setStyleSheet(
            f"QLabel#run_overlay {{ color: {theme.foreground}; background: rgba({bg.red()},{bg.green()},"
            f"{bg.blue()},{bg.alpha()}); border-radius: {int(4 * theme.scale)}px; "
            f"padding: {int(3 * theme.scale)}px {int(6 * theme.scale)}px; }}"
        )
        self.place()

    def set_solver(self, solver_cls) -> None:
        self._solver_cls = solver_cls
        if solver_cls is None:
            self.setText("")
            self.hide()

    def show_snapshot(self, snapshot) -> None:
        text = run_caption(snapshot, self._solver_cls)
        self.setText(text)
        self.setVisible(bool(text) and self._enabled)
        self.place()

    def set_enabled_overlay(self, on: bool) -> None:
        self._enabled = on
        self.setVisible(on and bool(self.text()))

    def place(self) -> None:
        self.adjustSize()
        self.move(self.MARGIN + self._left_inset(), self.MARGIN)
        self.raise_()

    def _left_inset(self) -> int:
        """Skip the plot's left axis if the parent says where its plot area starts."""
        inset = getattr(self.parentWidget(), "overlay_inset", None)
        return int(inset()) if callable(inset) else 0


#: (keys, what) rows of the help sheet.
SHORTCUT_ROWS = (
    ("Space", "one update (step)"),
    ("P", "play / pause"),
    ("R", "reset the run to iteration 0"),
    ("← / →", "scrub back / forward through the history"),
    ("F", "fit the view to the points"),
    ("Ctrl+Z / Ctrl+Shift+Z", "undo / redo a point edit"),
    ("Ctrl+O / Ctrl+S", "open / save a scene"),
    ("F5", "presentation mode (large type, markers, lines)"),
    ("F11", "full screen"),
    ("F1 or ?", "show / hide this help"),
)


class HelpOverlay(QWidget):
    """A translucent sheet over the whole window listing the keyboard shortcuts; any key or click closes it."""

    def __init__(self, window: QWidget, rows=SHORTCUT_ROWS, theme: Theme | None = None):
        super().__init__(window)
        self.setObjectName("help_overlay")
        self.rows = tuple(rows)
        self.label = QLabel(self)
        self.label.setObjectName("help_text")
        self.label.setTextFormat(Qt.RichText)
        self.label.setAlignment(Qt.AlignCenter)
        self.setFocusPolicy(Qt.StrongFocus)
        self.apply_theme(theme or theme_for())
        _Follow(self)
        self.hide()

    def set_rows(self, rows) -> None:
        self.rows = tuple(rows)
        self._fill()

    def apply_theme(self, theme: Theme) -> None:
        self.theme = theme
        self.label.setFont(theme.font(theme.title_pt))
        self.label.setStyleSheet(
            f"QLabel#help_text {{ color: {theme.foreground}; background: {theme.background}; "
            f"border: {max(1, int(2 * theme.scale))}px solid {theme.foreground}; "
            f"border-radius: {int(8 * theme.scale)}px; padding: {int(16 * theme.scale)}px; }}"
        )
        self._fill()

    def _fill(self) -> None:
        pad = int(6 * self.theme.scale)
        cells = "".join(
            f"<tr><td align='right' style='padding:{pad // 2}px {pad}px'><b>{html.escape(k)}</b></td>"
            f"<td style='padding:{pad // 2}px {pad}px'>{html.escape(v)}</td></tr>"
            for k, v in self.rows
        )
        self.label.setText(f"<h2>Keyboard</h2><table>{cells}</table><p><i>Press any key to close.</i></p>")
        self.place()

    def toggle(self) -> None:
        self.close_sheet() if self.isVisible() else self.open_sheet()

    def open_sheet(self) -> None:
        self.place()
        self.show()
        self.raise_()
        self.setFocus()

    def close_sheet(self) -> None:
        self.hide()

    def place(self) -> None:
        parent = self.parentWidget()
        if parent is None:
            return
        self.setGeometry(parent.rect())
        self.label.adjustSize()
        hint = self.label.sizeHint()
        w, h = min(hint.width(), self.width()), min(hint.height(), self.height())
        self.label.setGeometry((self.width() - w) // 2, (self.height() - h) // 2, w, h)

    def paintEvent(self, event) -> None:
        p = QPainter(self)
        shade = QColor(0, 0, 0, 150)
        p.fillRect(self.rect(), shade)
        p.end()

    def keyPressEvent(self, event) -> None:
        self.close_sheet()
        event.accept()

    def mousePressEvent(self, event) -> None:
        self.close_sheet()
        event.accept()
