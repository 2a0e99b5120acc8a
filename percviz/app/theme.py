"""Colours, marker shapes and sizes shared by every panel; presentation mode is a theme with scale ≥ 2.

A `Theme` is plain data (colours as "#rrggbb" strings, pyqtgraph symbol names); the sizes a panel
needs (font points, marker size, line width) are derived from `scale`, so one `apply_theme(theme)`
call restyles a panel for the desk (scale 1) or for a projector (scale 2 or more).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path

from percviz.core.errors import ParameterError

#: A black tick drawn on the checked box's highlight colour (a style sheet that borders the box drops the style's own tick).
CHECK_MARK = Path(__file__).resolve().parent.parent / "assets" / "check-mark.svg"

#: Presentation mode scales everything by at least this factor.
PRESENTATION_SCALE = 2.0


@dataclass(frozen=True)
class Theme:
    """A colour scheme plus a size scale; sizes are properties derived from `scale`."""

    name: str
    label: str
    dark: bool
    background: str
    foreground: str
    grid: str
    #: Colours of classes 0..5; class 0 is "+", class 1 is "−".
    class_colors: tuple[str, ...]
    #: Colour stops of the decision-function map, from f < 0 ("−" side) through f = 0 to f > 0 ("+" side).
    diverging: tuple[str, ...]
    boundary: str
    margin: str
    highlight: str
    #: Panel/widget background behind the plots (window palette).
    panel: str
    #: pyqtgraph symbols of classes 0..5: "+" and "_" (a bar, "−") so + and − differ by shape too, in every theme.
    class_symbols: tuple[str, ...] = ("+", "_", "o", "s", "t", "d")
    #: Symbols of classes 1..6 in a multi-class scene: none of them + or −, which say "two classes".
    multiclass_symbols: tuple[str, ...] = ("o", "s", "t", "d", "star", "h")
    scale: float = 1.0
    base_font_pt: float = 10.0
    base_marker: float = 11.0
    base_line: float = 2.0
    #: Opacity (0..255) of the decision-function image under the points.
    map_alpha: int = 150

    # -- sizes derived from the scale ----------------------------------------------------
    @property
    def font_pt(self) -> float:
        """Point size of ordinary text (axis labels, legends, the window font)."""
        return self.base_font_pt * self.scale

    @property
    def title_pt(self) -> float:
        """Point size of panel titles."""
        return 1.2 * self.base_font_pt * self.scale

    @property
    def overlay_pt(self) -> float:
        """Point size of the run overlay on the canvas (iteration, algorithm, margin)."""
        return 1.5 * self.base_font_pt * self.scale

    @property
    def marker_size(self) -> float:
        """Diameter of a data point's marker in pixels."""
        return self.base_marker * self.scale

    @property
    def line_width(self) -> float:
        """Width of the decision boundary and curves in pixels."""
        return self.base_line * self.scale

    @property
    def thin_line_width(self) -> float:
        """Width of margin lines, contours and grid accents."""
        return max(1.0, 0.5 * self.base_line * self.scale)

    @property
    def presentation(self) -> bool:
        return self.scale >= PRESENTATION_SCALE

    # -- lookups ---------------------------------------------------------------------------
    def class_color(self, cls: int) -> str:
        return self.class_colors[int(cls) % len(self.class_colors)]

    def class_symbol(self, cls: int, multiclass: bool = False) -> str:
        symbols = self.multiclass_symbols if multiclass else self.class_symbols
        return symbols[int(cls) % len(symbols)]

    def with_scale(self, scale: float) -> "Theme":
        if not scale > 0:
            raise ParameterError(f"A theme scale must be positive; got {scale}.")
        return replace(self, scale=float(scale))

    # -- Qt/pyqtgraph objects (imported lazily, so the data above stays importable anywhere) --------
    def pen(self, color: str | None = None, width: float | None = None, style=None):
        import pyqtgraph as pg

        kw = {"color": color or self.foreground, "width": self.line_width if width is None else width}
        if style is not None:
            kw["style"] = style
        return pg.mkPen(**kw)

    def font(self, points: float | None = None, bold: bool = False):
        from PySide6.QtGui import QFont

        f = QFont()
        f.setPointSizeF(self.font_pt if points is None else points)
        f.setBold(bold)
        return f

    def style_axes(self, axes) -> None:
        """pyqtgraph axes in the theme: axis line, tick labels and axis name in the foreground colour and font."""
        import pyqtgraph as pg

        font = self.font()
        for ax in axes:
            ax.setPen(pg.mkPen(self.foreground, width=1))
            ax.setTextPen(pg.mkPen(self.foreground))
            ax.setTickFont(font)
            ax.label.setFont(font)

    @property
    def disabled_text(self) -> str:
        """Text colour of disabled widgets: 45 % of the way from the panel colour to the foreground."""
        fg, bg = qcolor(self.foreground), qcolor(self.panel)
        mix = [round(0.45 * a + 0.55 * b) for a, b in zip(fg.getRgb()[:3], bg.getRgb()[:3])]
        return "#{:02x}{:02x}{:02x}".format(*mix)

    def status_style(self, role: str) -> tuple[str, str, str]:
        """(text, background, border) of the status box for an outcome role (percviz.core.glossary.Outcome.role)."""
        table = _STATUS_DARK if self.dark else _STATUS_LIGHT
        return table.get(role) or (self.foreground, self.background, self.grid)

    def field_style_sheet(self, kind: str) -> str:
        """A style sheet for one field ('edit' or 'check'): borders the Fusion style draws black on a black window,
        and in presentation check boxes scaled with the text (Fusion's stay 13 px beside 20 pt labels).

        Set on each field, never on the window: a window style sheet stops the presentation font reaching
        the menus and labels."""
        if not self.dark and not (kind == "check" and self.presentation):
            return ""
        w = max(1, round(self.scale))
        font = f"font-size: {self.font_pt:.1f}pt;"
        if kind == "check":
            box = round(13 * self.scale)
            return (f"QCheckBox {{ {font} color: {self.foreground}; }} QCheckBox::indicator {{ width: {box}px; height: {box}px; "
                    f"border: {w}px solid {self.foreground}; background: {self.background}; }} "
                    f"QCheckBox::indicator:checked {{ background: {self.highlight}; image: url(\"{CHECK_MARK.as_posix()}\"); }}")
        return (f"* {{ border: {w}px solid {self.grid}; background: {self.background}; color: {self.foreground}; "
                f"padding: 1px 3px; {font} }}")

    def style_fields(self, root) -> None:
        """Every check box and text field under the widget `root` gets its field_style_sheet (a field marked bad
        keeps its red until it is fixed: the sheet waits in its `base_style` property)."""
        from PySide6.QtWidgets import QAbstractSpinBox, QCheckBox, QLineEdit, QWidget

        for field in root.findChildren(QWidget):
            if isinstance(field, QCheckBox):
                kind = "check"
            elif isinstance(field, (QLineEdit, QAbstractSpinBox)) and not isinstance(field.parentWidget(), QAbstractSpinBox):
                kind = "edit"
            else:
                continue
            sheet = self.field_style_sheet(kind)
            field.setProperty("base_style", sheet)
            if not field.property("marked_bad"):
                field.setStyleSheet(sheet)

    def palette(self):
        """A QPalette for the window and its widgets; disabled widgets get greyed text (all groups otherwise)."""
        from PySide6.QtGui import QPalette

        p = QPalette()
        bg, fg, panel = qcolor(self.panel), qcolor(self.foreground), qcolor(self.background)
        for role, col in (
            (QPalette.Window, bg),
            (QPalette.WindowText, fg),
            (QPalette.Base, panel),
            (QPalette.AlternateBase, bg),
            (QPalette.Text, fg),
            (QPalette.Button, bg),
            (QPalette.ButtonText, fg),
            (QPalette.ToolTipBase, panel),
            (QPalette.ToolTipText, fg),
            (QPalette.PlaceholderText, qcolor(self.grid)),
            (QPalette.Highlight, qcolor(self.highlight)),
            (QPalette.HighlightedText, qcolor("#000000")),
        ):
            p.setColor(role, col)  # sets every colour group, the disabled one included
        grey = qcolor(self.disabled_text)
        for role in (QPalette.WindowText, QPalette.Text, QPalette.ButtonText, QPalette.HighlightedText):
            p.setColor(QPalette.Disabled, role, grey)
        p.setColor(QPalette.Disabled, QPalette.Highlight, qcolor(self.grid))
        return p


#: Status box colours by outcome role: separator green, certificate teal, proof purple, converged blue,
#: iteration limit amber (a warning), diverged and errors red.
_STATUS_LIGHT = {
    "neutral": ("#202020", "#ffffff", "#c8c8c8"),
    "success": ("#1b5e20", "#edf7ee", "#66bb6a"),
    "certificate": ("#004d40", "#e0f2f1", "#26a69a"),
    "proof": ("#4a148c", "#f3e5f5", "#ab47bc"),
    "info": ("#0d47a1", "#e3f2fd", "#64b5f6"),
    "warning": ("#6d4c00", "#fff4d6", "#f0a500"),
    "error": ("#b71c1c", "#fdecea", "#ef9a9a"),
}
_STATUS_DARK = {
    "neutral": ("#e6e6e6", "#1e1e1e", "#4a4a4a"),
    "success": ("#b9f6ca", "#10301a", "#43a047"),
    "certificate": ("#a7ffeb", "#0b2f2b", "#26a69a"),
    "proof": ("#ea80fc", "#2a1233", "#ab47bc"),
    "info": ("#90caf9", "#0d2238", "#42a5f5"),
    "warning": ("#ffe082", "#3a2c00", "#ffb300"),
    "error": ("#ff8a80", "#3b1010", "#e57373"),
}


def qcolor(spec: str):
    from PySide6.QtGui import QColor

    return QColor(spec)


# Okabe & Ito (2008), "Color Universal Design": distinguishable under the common colour-vision deficiencies.
_OKABE_ITO = ("#E69F00", "#0072B2", "#009E73", "#CC79A7", "#D55E00", "#56B4E9")

THEMES: dict[str, Theme] = {
    t.name: t
    for t in (
        Theme(
            name="light",
            label="Light",
            dark=False,
            background="#ffffff",
            foreground="#202020",
            grid="#c8c8c8",
            class_colors=("#d62728", "#1f77b4", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b"),
            diverging=("#5e9bd1", "#c6dbef", "#ffffff", "#f7c6c0", "#e0605a"),
            boundary="#000000",
            margin="#606060",
            highlight="#ffbf00",
            panel="#f2f2f2",
        ),
        Theme(
            name="dark",
            label="Dark",
            dark=True,
            background="#1e1e1e",
            foreground="#e6e6e6",
            grid="#4a4a4a",
            class_colors=("#ff6b6b", "#4dabf7", "#69db7c", "#b197fc", "#ffa94d", "#e599f7"),
            diverging=("#1c4f80", "#223246", "#1e1e1e", "#4a2626", "#8c2f2f"),
            boundary="#ffffff",
            margin="#b0b0b0",
            highlight="#ffd43b",
            panel="#2b2b2b",
        ),
        Theme(
            name="hc-light",
            label="High contrast (light)",
            dark=False,
            background="#ffffff",
            foreground="#000000",
            grid="#909090",
            class_colors=("#c00000", "#0000c0", "#006400", "#7000a0", "#a05000", "#000000"),
            diverging=("#8fb4ff", "#dce8ff", "#ffffff", "#ffdcdc", "#ff9090"),
            boundary="#000000",
            margin="#000000",
            highlight="#ff8c00",
            panel="#ffffff",
            base_line=3.0,
            base_marker=13.0,
        ),
        Theme(
            name="hc-dark",
            label="High contrast (dark)",
            dark=True,
            background="#000000",
            foreground="#ffffff",
            grid="#808080",
            class_colors=("#ff5050", "#50b4ff", "#50ff50", "#ff50ff", "#ffff00", "#ffffff"),
            diverging=("#003a80", "#001a33", "#000000", "#330000", "#800000"),
            boundary="#ffffff",
            margin="#ffffff",
            highlight="#ffff00",
            panel="#000000",
            base_line=3.0,
            base_marker=13.0,
        ),
        Theme(
            name="colorblind",
            label="Colour-blind safe (Okabe–Ito)",
            dark=False,
            background="#ffffff",
            foreground="#202020",
            grid="#c8c8c8",
            class_colors=_OKABE_ITO,
            # blue (f < 0, class "−") through white to orange (f > 0, class "+")
            diverging=("#3a8cc4", "#c3dcec", "#ffffff", "#f7dca6", "#ebb13f"),
            boundary="#000000",
            margin="#555555",
            highlight="#CC79A7",
            panel="#f2f2f2",
        ),
    )
}

DEFAULT_THEME = "light"


def theme_for(name: str = DEFAULT_THEME, scale: float = 1.0) -> Theme:
    """The built-in theme `name` at `scale` (1 for the desk, ≥ 2 for presentation)."""
    try:
        base = THEMES[name]
    except KeyError:
        raise ParameterError(f"Unknown theme '{name}'. Known themes: {', '.join(THEMES)}.") from None
    return base.with_scale(scale)
