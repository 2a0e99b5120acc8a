"""What the controls say: speed steps, the status line's words and numbers, group boxes."""

from __future__ import annotations

from typing import Any

from PySide6.QtWidgets import (
    QGroupBox,
    QVBoxLayout,
)

from percviz.core.glossary import degenerate_note, margin_text, outcome

#: Positions of the speed slider, in updates per second (0 = as fast as possible).
SPEEDS = (1, 2, 3, 5, 10, 20, 30, 50, 100, 200, 500, 1000, 0)


#: A run at least this long is discarded by Reset only when asked twice (the first press says what it would lose).
LONG_RUN = 1000




def speed_text(ups: float) -> str:
    return "as fast as possible" if ups <= 0 else f"{ups:g} update{'s' if ups != 1 else ''}/s"


def format_number(v: float | None) -> str:
    if v is None:
        return "–"
    if v == 0 or 1e-3 <= abs(v) < 1e5:
        return f"{v:.4g}"
    return f"{v:.3e}"


def status_text(snap: Any, solver_cls: Any = None) -> str:
    """One line: iteration, status, which margin and its value, training errors (and the solver's message)."""
    m = dict(snap.metrics)
    parts = [f"Iteration {snap.iteration}", outcome(snap.status, m).words]
    margin = margin_text(solver_cls, m, format_number, snap.status)
    if margin:
        parts.append(margin)
    if "train_errors" in m:
        k = int(m["train_errors"])
        parts.append(f"{k} training error{'s' if k != 1 else ''}")
    text = " · ".join(parts)
    note = degenerate_note(solver_cls, m, snap.iteration)
    lines = [text] + [t for t in (note, snap.message) if t]
    return "\n".join(lines)


def _group(title: str) -> tuple[QGroupBox, QVBoxLayout]:
    box = QGroupBox(title)
    lay = QVBoxLayout(box)
    lay.setContentsMargins(8, 6, 8, 8)
    lay.setSpacing(6)
    return box, lay
