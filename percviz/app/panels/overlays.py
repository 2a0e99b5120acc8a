"""Widgets drawn over others: the run caption on the canvas and the keyboard-help sheet over the window."""

from __future__ import annotations

import html

import numpy as np
from PySide6.QtCore import QEvent, QObject, QPointF, QRect, QSize, Qt, QTimer
from PySide6.QtGui import QColor, QFontMetrics, QPainter, QTextDocument
from PySide6.QtWidgets import QLabel, QSizePolicy, QWidget

from percviz.app.theme import Theme, theme_for
from percviz.core.run_caption import _fmt, algorithm_label, caption_lines, run_caption  # noqa: F401 (shared with the handout)


class LineLabel(QLabel):
    """One line: the longest of its texts that fits (else the last, ending in "…"); it never widens its row."""

    def __init__(self, parent=None):
        super().__init__(parent)
        self.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        self.texts: list[str] = []

    def apply_theme(self, theme: Theme) -> None:
        """The caption line's type (bold, 0.8 of the text size) and colour; called on every theme or scale change."""
        self.setFont(theme.font(0.8 * theme.font_pt, bold=True))
        pal = self.palette()
        pal.setColor(self.foregroundRole(), QColor(theme.foreground))
        self.setPalette(pal)
        self.update()

    @property
    def shown_text(self) -> str:
        fm, room = QFontMetrics(self.font()), self.contentsRect().width()
        for text in self.texts:
            if fm.horizontalAdvance(text) <= room:
                return text
        return fm.elidedText(self.texts[-1], Qt.ElideRight, room) if self.texts else ""

    def paintEvent(self, event) -> None:
        p = QPainter(self)
        p.setFont(self.font())
        p.setPen(self.palette().color(self.foregroundRole()))
        p.drawText(self.contentsRect(), int(Qt.AlignLeft | Qt.AlignVCenter), self.shown_text)
        p.end()


class ReadoutLabel(QLabel):
    """A right-aligned readout as wide as `template` in its current font: it grows with the presentation scale
    rather than cut its value (the status bar's 'x = 0.512   y = 1.245' at 3×)."""

    def __init__(self, template: str, parent=None):
        super().__init__("", parent)
        self.template = template
        self.setAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)

    def minimumSizeHint(self) -> QSize:
        hint = super().minimumSizeHint()
        m = self.contentsMargins()
        return QSize(QFontMetrics(self.font()).horizontalAdvance(self.template) + m.left() + m.right() + 4, hint.height())

    def sizeHint(self) -> QSize:
        return self.minimumSizeHint().expandedTo(super().sizeHint())


class _Follow(QObject):
    """Keeps an overlay placed over its parent when the parent is resized."""

    def __init__(self, overlay: QWidget, refresh):
        super().__init__(overlay)
        self.overlay, self.refresh = overlay, refresh
        self._pending = False
        overlay.parentWidget().installEventFilter(self)

    def eventFilter(self, obj, event):
        if event.type() == QEvent.Show:
            self.place()
        elif event.type() in (QEvent.Resize, QEvent.LayoutRequest) and not self._pending:
            # a relayout (F5, a dock opened) resizes the parent several times in one turn: placed once, after them
            self._pending = True
            QTimer.singleShot(0, self, self.place)
        return False

    def place(self) -> None:
        self._pending = False
        self.refresh()


class RunOverlay(QLabel):
    """The algorithm, iteration and current margin in large type over the top-left corner of the plot.

    `anchor()` (optional) returns the plot area in the parent's coordinates; `crowding(rect)` (optional) the
    number of data points under a rectangle of the parent: the caption then takes the corner of the plot
    covering the fewest points (top left on ties), so it never hides the data it describes. When presenting and
    every corner holds a point it sheds the algorithm's name (the presentation bar shows it), then shrinks to
    one line, and last leaves the plot for `elsewhere(text)` (the canvas's title row): the outcome and which
    margin are always said.
    """

    MARGIN = 8

    #: Fit levels: 0 whole, 1 without the algorithm, 2 one line, 3 off the plot (in `elsewhere`).
    OFF_PLOT = 3

    def __init__(self, parent: QWidget, theme: Theme | None = None, anchor=None, crowding=None, elsewhere=None,
                 boundary=None):
        super().__init__(parent)
        self._crowding = crowding
        self._boundary = boundary  # rect -> whether the finished run's boundary f = 0 crosses it (optional)
        self._elsewhere = elsewhere
        self.corner = "top-left"
        self.setObjectName("run_overlay")
        self.setAttribute(Qt.WA_TransparentForMouseEvents)
        self.setTextFormat(Qt.RichText)
        self._anchor = anchor
        self._solver_cls = None
        self._snapshot = None
        self._enabled = True
        self.line_label: LineLabel | None = None  # the caption's place in the title row (attach_run_overlay)
        self._fit = 0  # the fit level reached (see OFF_PLOT)
        self._sized_for: tuple | None = None  # (text, font, margins) the label was last sized for
        self._elsewhere_texts: list[str] | None = None  # what `elsewhere` was last given
        self.apply_theme(theme or theme_for())
        _Follow(self, self.refresh)
        self.hide()

    def apply_theme(self, theme: Theme) -> None:
        self.theme = theme
        if self.line_label is not None:  # restyled even while its text is unchanged
            self.line_label.apply_theme(theme)
        self.setFont(theme.font(self.point_size, bold=True))
        pad = int(round(3 * theme.scale))
        self.setContentsMargins(2 * pad, pad, 2 * pad, pad)
        pal = self.palette()
        pal.setColor(self.foregroundRole(), QColor(theme.foreground))
        self.setPalette(pal)
        self.refresh()

    @property
    def point_size(self) -> float:
        """The iteration's type size: the theme's overlay size when presenting, a little smaller at the desk."""
        return self.theme.overlay_pt * (1.0 if self.theme.presentation else 0.8)

    def paintEvent(self, event) -> None:
        p = QPainter(self)
        p.setRenderHint(QPainter.Antialiasing)
        bg = QColor(self.theme.background)
        bg.setAlpha(170)
        p.setPen(Qt.NoPen)
        p.setBrush(bg)
        r = 4 * self.theme.scale
        p.drawRoundedRect(self.rect(), r, r)
        p.end()
        super().paintEvent(event)

    @property
    def solver_cls(self):
        """The solver class the caption speaks of."""
        return self._solver_cls

    @property
    def snapshot(self):
        """The snapshot the caption shows (None: none yet)."""
        return self._snapshot

    def set_solver(self, solver_cls) -> None:
        self._solver_cls = solver_cls
        self._snapshot = None
        self.refresh()

    def show_snapshot(self, snapshot) -> None:
        self._snapshot = snapshot
        self.refresh()

    def set_enabled_overlay(self, on: bool) -> None:
        self._enabled = bool(on)
        self.refresh()


    @property
    def plain_text(self) -> str:
        """What the caption shows, one line per line (its fit may have shortened or left out a part)."""
        doc = QTextDocument()
        doc.setHtml(self.text())
        return doc.toPlainText().replace("\u2029", "\n").replace("\u2028", "\n")

    def refresh(self, *_args) -> None:
        self._refresh(0)

    @property
    def line_text(self) -> str:
        """The caption as one line: 'iteration 37 · normalized margin m(α) = 0.0123 · separator found'."""
        _algo, iteration, details = run_caption(self._snapshot, self._solver_cls)
        return "  ·  ".join(t for t in (iteration, details) if t)

    def _refresh(self, fit: int) -> None:
        """fit 0: the whole caption; 1: without the algorithm; 2: one line; 3: off the plot (each tried, when
        presenting, while it covers a point)."""
        self._fit = fit
        algo, iteration, details = run_caption(self._snapshot, self._solver_cls)
        if fit:
            algo = ""
        small = f"{0.65 * self.point_size:.1f}pt"
        room = self._area().width() - 2 * self.MARGIN - self.contentsMargins().left() - self.contentsMargins().right()
        # no wider than the iteration line or 40 % of the plot: a narrow caption leaves a corner free for the data
        room = min(room, max(0.4 * room, QFontMetrics(self.font()).horizontalAdvance(iteration or "iteration 0000")))
        if algo and room > 40:  # a long algorithm name is shortened rather than cut off by the plot's edge;
            metrics = QFontMetrics(self.theme.font(0.65 * self.point_size, bold=True))
            short = metrics.elidedText(algo, Qt.ElideRight, int(room))
            algo = "" if short != algo and self.theme.presentation else short  # presenting: the bar names it whole
        lines = []
        if algo:
            lines.append(f"<span style='font-size:{small}'>{html.escape(algo)}</span>")
        if fit >= 2:  # one short line: a strip along an edge may miss the points that every box corner holds
            line = "  ·  ".join(t for t in (iteration, details) if t)
            lines = [f"<span style='font-size:{small}'>{html.escape(line)}</span>"] if line else []
        else:
            if iteration:
                lines.append(html.escape(iteration))
            for part in details.split("  ·  ") if details else ():  # one per line: a narrow caption fits a corner
                lines.append(f"<span style='font-size:{small}'>{html.escape(part)}</span>")
        self.setText("<br>".join(lines))
        self.setVisible(self._enabled and bool(lines) and fit < self.OFF_PLOT)
        self.place()

    def _may_shrink(self) -> bool:
        """Presentation type is large enough to hide the data: there the caption shrinks, else hides, rather than
        cover a point (at the desk it only moves to the emptiest corner)."""
        return self.theme.presentation and self._fit < self.OFF_PLOT and self.isVisible()

    def _area(self) -> QRect:
        """The plot area in the parent's coordinates (the whole parent without an anchor)."""
        parent = self.parentWidget()
        if self._anchor is not None:
            try:
                return self._anchor()
            except (RuntimeError, AttributeError):
                pass
        return parent.rect() if parent is not None else QRect()

    def place(self) -> None:
        m = self.contentsMargins()
        size_key = (self.text(), self.font().key(), m.left(), m.top(), m.right(), m.bottom())
        if size_key != self._sized_for:  # a rich-text size costs ~2 ms at presentation type
            self.adjustSize()
            self._sized_for = size_key
        area = self._area()
        m, w, h = self.MARGIN, self.width(), self.height()
        corners = {
            "top-left": (area.left() + m, area.top() + m),
            "top-right": (area.right() - m - w, area.top() + m),
            "bottom-left": (area.left() + m, area.bottom() - m - h),
            "bottom-right": (area.right() - m - w, area.bottom() - m - h),
        }
        if self._crowding is not None and area.width() > w + 2 * m and area.height() > h + 2 * m:
            try:
                counts = {c: self._crowding(QRect(x, y, w, h)) for c, (x, y) in corners.items()}
            except (RuntimeError, AttributeError):  # the plot is being destroyed
                counts = {}
            if counts:
                least = min(counts.values())
                tied = [c for c in corners if counts[c] == least]  # dict order: top left wins ties
                crossed = set()
                if self._boundary is not None:  # of those, one the finished run's boundary line misses
                    try:
                        crossed = {c for c in tied if self._boundary(QRect(*corners[c], w, h))}
                    except (RuntimeError, AttributeError, ArithmeticError, ValueError):
                        crossed = set()
                clear = [c for c in tied if c not in crossed] or tied
                if self.corner not in clear:
                    self.corner = clear[0]
                if self._may_shrink() and (least > 0 or self.corner in crossed):
                    # never over a data point, nor (presenting) over the boundary: smaller, else in the title row
                    self._refresh(self._fit + 1)
                    return
        else:
            self.corner = "top-left"
            if self._crowding is not None and self._may_shrink():
                self._refresh(self._fit + 1)  # larger than the plot's corners: smaller, else hidden
                return
        self.move(*corners[self.corner])
        self.raise_()
        self._settle_elsewhere()

    def _settle_elsewhere(self) -> None:
        """Once the fit is decided: the caption in `elsewhere` when it is off the plot, else nothing there."""
        if self._elsewhere is None:
            return
        off = self._fit >= self.OFF_PLOT and self._enabled
        texts = caption_lines(self._snapshot, self._solver_cls) if off else []
        if texts != self._elsewhere_texts:
            self._elsewhere_texts = texts
            self._elsewhere(texts)


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
        _Follow(self, self.place)
        self.hide()

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


def attach_run_overlay(canvas, theme: Theme | None = None) -> RunOverlay:
    """Put the run caption over the canvas's plot area (replacing the canvas's own smaller caption)."""
    plot, viewbox, scene = canvas.plot, canvas.viewbox, canvas.scene_model

    def anchor():
        return plot.mapFromScene(viewbox.sceneBoundingRect()).boundingRect()

    by_x = {}  # the scene's points sorted by x, for the points array they were sorted from (a new one per edit)

    def crowding(rect: QRect) -> int:
        """Points of the scene drawn inside rect (widget pixels), markers' radius included.

        Only the points whose x falls in the rect's columns (one pixel wider) are tested: the placement asks
        for four corners several times per layout pass, and testing all 100,000 points each time cost ~1.5 ms.
        """
        if scene.n == 0:
            return 0
        o = plot.mapFromScene(viewbox.mapViewToScene(QPointF(0.0, 0.0)))
        e = plot.mapFromScene(viewbox.mapViewToScene(QPointF(1.0, 1.0)))
        X = scene.points.X
        if by_x.get("X") is not X:
            order = np.argsort(X[:, 0], kind="stable")
            by_x.update(X=X, x=X[order, 0], y=X[order, 1], counts={})
        xs, ys, counts = by_x["x"], by_x["y"], by_x["counts"]
        r = 0.7 * canvas.theme.marker_size
        key = (o.x(), o.y(), e.x(), e.y(), r, rect.left(), rect.top(), rect.right(), rect.bottom())
        if key in counts:  # one layout pass places the caption many times over the same plot
            return counts[key]
        if len(counts) > 256:
            counts.clear()
        sx = e.x() - o.x()
        if sx != 0 and np.isfinite(sx):
            lo, hi = sorted(((rect.left() - r - o.x()) / sx, (rect.right() + r - o.x()) / sx))
            pad = 1.0 / abs(sx)  # one pixel in data units: the exact test below decides
            i0, i1 = np.searchsorted(xs, lo - pad, "left"), np.searchsorted(xs, hi + pad, "right")
            xs, ys = xs[i0:i1], ys[i0:i1]
        px = o.x() + sx * xs
        py = o.y() + (e.y() - o.y()) * ys
        inside = (px > rect.left() - r) & (px < rect.right() + r) & (py > rect.top() - r) & (py < rect.bottom() + r)
        counts[key] = int(inside.sum())
        return counts[key]

    note = LineLabel(canvas)  # the caption in the title row (for the title), when no corner of the plot is free
    note.setObjectName("run_caption_line")
    note.setAccessibleName("run caption")
    note.hide()
    header = canvas.header
    header.insertWidget(1, note, 10)  # most of the row: the stretch after the title keeps a little

    def elsewhere(texts: list[str]) -> None:
        if texts:
            note.apply_theme(overlay.theme)
            note.setContentsMargins(0, 0, 4, 0)
            note.setToolTip(texts[0])
            note.texts = texts
            note.setText(texts[0])
            note.update()
        note.setVisible(bool(texts))
        canvas.title.setVisible(not texts)  # the run's outcome says more than the view's name: it takes its place

    def boundary(rect: QRect) -> bool:
        """Whether f = 0 of the finished run shown crosses rect (sampled on a 9×5 grid; never while dragging, so
        the caption does not hop between corners during a run or a drag)."""
        overlay = made.get("overlay")  # (None while the overlay is being built)
        snap = None if overlay is None else overlay.snapshot
        if snap is None or not snap.status.done or scene.dragging or snap.decision is None:
            return False
        o = plot.mapFromScene(viewbox.mapViewToScene(QPointF(0.0, 0.0)))
        e = plot.mapFromScene(viewbox.mapViewToScene(QPointF(1.0, 1.0)))
        if e.x() == o.x() or e.y() == o.y():
            return False
        gx, gy = np.meshgrid(np.linspace(rect.left(), rect.right(), 9), np.linspace(rect.top(), rect.bottom(), 5))
        Z = np.column_stack([((gx - o.x()) / (e.x() - o.x())).ravel(), ((gy - o.y()) / (e.y() - o.y())).ravel()])
        with np.errstate(all="ignore"):
            F = np.asarray(snap.decision(Z), dtype=float)
        if F.ndim == 2:  # a multi-class machine: a region boundary is where the winning class changes
            return F.shape[0] == len(Z) and len(np.unique(np.argmax(F, axis=1))) > 1
        F = F[np.isfinite(F)]
        return bool(F.size and F.min() < 0 < F.max())

    made: dict = {}
    overlay = made["overlay"] = RunOverlay(plot, theme, anchor, crowding, elsewhere, boundary)
    overlay.line_label = note
    canvas.caption_layer.take_over(overlay)  # the canvas's own smaller caption: transparent; restyled with the layers
    viewbox.sigResized.connect(overlay.refresh)
    viewbox.sigRangeChanged.connect(lambda *_: overlay.place())

    def on_points(_kind) -> None:
        try:
            if overlay.isVisible() and not scene.dragging:  # a drag's caption moves with the rerun's snapshot
                overlay.place()
        except RuntimeError:  # the overlay's widget is gone (window closed)
            scene.points_changed.disconnect(on_points)

    scene.points_changed.connect(on_points)
    return overlay
