"""What F1 shows: every key of every menu item (read from the menus themselves) and every mouse action."""

from __future__ import annotations

import html
import math

from PySide6.QtGui import QAction
from PySide6.QtWidgets import QMenu

from percviz.app.classroom.keys import key_text
from percviz.app.panels.overlays import HelpOverlay
from percviz.core.glossary import MARGINS, OUTCOMES

#: Mouse actions on the canvas, each with the menu item that does the same without a mouse.
MOUSE_ROWS = (
    ("Left click", "place a point of the chosen class (Edit ▸ Place class)"),
    ("Right click / Shift+click", "place a − point (Edit ▸ Place class ▸ Class −, then click)"),
    ("Drag a point", "move it (one undo step; with Live on the boundary follows)"),
    ("Ctrl+click", "remove the nearest point (Edit ▸ Delete point under the cursor)"),
    ("Drag elsewhere / wheel", "pan / zoom (View ▸ Fit to data)"),
    ("Drag with the brush on", "paint points of the chosen class (Edit ▸ Brush, B)"),
    ("Hover a point", "its number, class, weight α or p and slack; ringed in every view"),
    ("Double-click a view's title", "maximise it, again to restore (View ▸ Maximise view)"),
    ("Drag the history slider", "scrub the run (Run ▸ History back, ← and →)"),
)

#: Keys that act on the field being typed in (not menu items: they belong to the field).
FIELD_ROWS = (
    ("Enter / Escape in a field", "keep / undo what was typed, and give the keys back to the canvas"),
)


def _walk(menu: QMenu, path: str):
    for a in menu.actions():
        if a.isSeparator() or not a.isVisible():
            continue
        text = a.text().replace("&", "")
        if a.menu() is not None:
            yield from _walk(a.menu(), f"{path} ▸ {text}")
        else:
            yield a, f"{path} ▸ {text}"


def menu_actions(window) -> list[tuple[QAction, str]]:
    """Every item of the window's menu bar with its menu path ('Run ▸ Step')."""
    out = []
    for top in window.menuBar().actions():
        if top.menu() is not None:
            out.extend(_walk(top.menu(), top.text().replace("&", "")))
    return out


def key_rows(window) -> list[tuple[str, str]]:
    """(keys, menu path) for every menu item that has a key, in menu order (a submenu of one-key items: one row)."""
    rows: list[tuple[str, str]] = []
    merged: dict[str, int] = {}
    for action, path in menu_actions(window):
        keys = [key_text(s) for s in action.shortcuts() if not s.isEmpty()]
        if not keys:
            continue
        parent, _, item = path.rpartition(" ▸ ")
        if parent.count(" ▸ ") >= 1 and len(keys) == 1 and len(keys[0]) == 1:
            if parent in merged:  # e.g. Edit ▸ Place class: keys 1…6 on one line
                k, _p = rows[merged[parent]]
                rows[merged[parent]] = (f"{k.split(' … ')[0]} … {keys[0]}", parent)
                continue
            merged[parent] = len(rows)
            rows.append((keys[0], parent))
            continue
        rows.append((" / ".join(dict.fromkeys(keys)), path))
    return rows


def help_rows(window) -> list[tuple[str, str]]:
    """The rows of the F1 sheet: keys from the menus, then the mouse."""
    return key_rows(window) + list(FIELD_ROWS) + list(MOUSE_ROWS)




#: The count of margins in words, as the glossary's first sentence says it.
_NUMBER_WORDS = {2: "Two", 3: "Three", 4: "Four", 5: "Five", 6: "Six", 7: "Seven", 8: "Eight", 9: "Nine", 10: "Ten"}


def glossary_html() -> str:
    """The help page 'What the numbers mean': every margin with its formula, every outcome with its meaning."""
    rows = "".join(
        f"<tr><td><b>{html.escape(t.name)}</b></td><td>{html.escape(t.symbol)} = {html.escape(t.formula)}</td>"
        f"<td>{html.escape(t.meaning)}</td></tr>" for t in MARGINS.values()
    )
    outs = "".join(
        f"<tr><td><b>{html.escape(o.words)}</b></td><td>{html.escape(o.meaning)}</td></tr>" for o in OUTCOMES.values()
    )
    count = _NUMBER_WORDS.get(len(MARGINS), str(len(MARGINS)))
    return (f"<h2>Margins</h2><p>{count} different numbers are called a margin; percviz always says which one it shows.</p>"
            f"<table cellpadding='4'>{rows}</table><h2>How a run ends</h2><table cellpadding='4'>{outs}</table>")


def glossary_dialog(window):
    """Help ▸ What the numbers mean: the glossary in a dialog (not yet shown)."""
    from PySide6.QtWidgets import QDialog, QTextBrowser, QVBoxLayout

    dlg = QDialog(window)
    dlg.setObjectName("glossary_dialog")
    dlg.setWindowTitle("What the numbers mean")
    lay = QVBoxLayout(dlg)
    text = QTextBrowser()
    text.setObjectName("glossary_text")
    text.setHtml(glossary_html())
    lay.addWidget(text)
    dlg.resize(int(window.width() * 0.7), int(window.height() * 0.7))
    return dlg


class HelpSheet(HelpOverlay):
    """The F1 sheet, laid out in as many columns and at the largest type that fit the window."""

    theme = None  # until HelpOverlay's first apply_theme

    def set_rows(self, rows) -> None:
        """The (keys, action) rows to list: every menu key and mouse action (help_rows)."""
        self.rows = tuple(rows)
        self._fill()

    def _fill(self) -> None:
        theme = self.theme
        if theme is None:
            return
        parent = self.parentWidget()
        room_w = (parent.width() if parent is not None else 1280) - 24
        room_h = (parent.height() if parent is not None else 800) - 24
        pt = theme.title_pt
        for _ in range(12):
            for cols in (1, 2, 3):
                self.label.setFont(theme.font(pt))
                self.label.setText(self._html(cols, theme.scale))
                self.label.adjustSize()
                hint = self.label.sizeHint()
                if hint.height() <= room_h and hint.width() <= room_w:
                    self.place()
                    return
                if hint.width() > room_w:
                    break  # more columns only widen it
            pt = max(6.0, pt * 0.88)
        self.place()

    def _html(self, cols: int, scale: float) -> str:
        pad = int(5 * scale)
        per = math.ceil(len(self.rows) / cols) if self.rows else 0
        columns = []
        for c in range(cols):
            cells = "".join(
                f"<tr><td align='right' style='padding:{pad // 2}px {pad}px'><b>{html.escape(k)}</b></td>"
                f"<td style='padding:{pad // 2}px {pad}px'>{html.escape(v)}</td></tr>"
                for k, v in self.rows[c * per:(c + 1) * per]
            )
            columns.append(f"<td valign='top'><table>{cells}</table></td>")
        return (f"<h2>Keys and mouse</h2><table><tr>{''.join(columns)}</tr></table>"
                "<p><i>Every key, and every mouse action that changes something, is also in a menu. Press any key to close.</i></p>")


__all__ = ["HelpSheet", "glossary_html", "glossary_dialog", "FIELD_ROWS", "MOUSE_ROWS", "help_rows", "key_rows", "menu_actions"]
