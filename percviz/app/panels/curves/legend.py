"""The curves' legend: one wrapping line above the plots naming every curve in its colour."""

from __future__ import annotations

import html
import math

from PySide6.QtCore import Qt

from percviz.app.panels.curves.ranges import GROUPS, SHORT_LABELS, group_of
from percviz.core.glossary import MARGINS, margin_term
from percviz.core.solvers.base import METRICS

_MARKS = {Qt.PenStyle.SolidLine: "━", Qt.PenStyle.DashLine: "┅", Qt.PenStyle.DashDotLine: "-·-"}


def _nb(text: str) -> str:
    """HTML-escaped text whose spaces never break a line (the legend wraps between entries only)."""
    return html.escape(text).replace(" ", "&nbsp;")


class CurvesLegend:
    """Writes and fits the legend line."""

    def _head_height(self) -> int:
        return max(self.title.sizeHint().height(), *(b.sizeHint().height() for b in self.log_boxes.values()), 0)

    def _legend_height(self) -> int:
        return max(0, self.legend.heightForWidth(max(1, self.width()))) if self.legend.text() else 0

    def _fit_legend(self, again: bool = False) -> None:
        """The legend only where the panel can hold it and its plots at their floor in half the column (at 3× in
        1280×800 its 4 lines left the plots a 10 px strip); then the title row's tooltip names the curves."""
        parent = self.parentWidget()
        budget = 0.5 * parent.height() if parent is not None and parent.height() > 0 else math.inf
        fits = self._head_height() + self._legend_height() + self.plot_floor() <= budget
        if fits != self._legend_fits or again:
            self._legend_fits = fits
            self.legend.setVisible(fits)
            self.title.setToolTip(self.legend.toolTip() if not fits else "Metrics of the run against the iteration k")
            self.updateGeometry()

    def _update_legend(self) -> None:
        """One wrapping line naming every curve in its colour (dashed: the bound; dotted: ρ_K), plot by plot."""
        keys = self._keys
        groups = []
        rho_named = False
        for g, title in GROUPS:
            if g not in self.plots:
                continue
            entries = []
            for k in self.curves:
                if group_of(k, keys) != g:
                    continue
                mark = _MARKS[self._styles[k]]
                label = self._label(k)
                if k == "bound" and self.off_scale.get(g) is not None:
                    label += " (far above the plot)"
                entries.append(f"<span style='color:{self.colors[k]}'>{mark}&nbsp;{_nb(label)}</span>")
            ref = self.references.get(g)
            if ref is not None and ref.isVisible() and self.rho is not None:
                entries.append(_nb("┈ ρ_K" if rho_named else f"┈ ρ_K = {self.rho:.3g}"))
                rho_named = True
            groups.append(f"<b>{_nb(title.split(',')[0])}:</b>&nbsp;" + "&nbsp;&nbsp; ".join(entries))
        self.legend.setText("&nbsp;&nbsp;&nbsp;&nbsp; ".join(groups))
        tips = [f"<b>{html.escape(self._label(k))}</b>: {html.escape(self._help(k))}" for k in self.curves]
        if self.rho is not None:
            tips.append(f"<b>┈ ρ_K</b>: {html.escape(MARGINS['rho'].tooltip)}")
        self.legend.setToolTip("<br>".join(tips))
        self._fit_legend(again=True)  # its lines count in the panel's least height

    def _label(self, key: str) -> str:
        """A curve's name in the legend; the margin says which margin it is (core.glossary)."""
        if key == "margin":
            return margin_term(self.solver_cls).short
        return SHORT_LABELS.get(key, METRICS[key].label)

    def _help(self, key: str) -> str:
        return margin_term(self.solver_cls).tooltip if key == "margin" else METRICS[key].help
