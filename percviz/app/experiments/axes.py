"""An axis whose tick labels never run into each other: a label that would touch one already placed is dropped
(the decades are placed first, then the labels between them as room allows; the ticks themselves stay)."""

from __future__ import annotations

import pyqtgraph as pg

#: Empty room kept between two tick labels, in pixels.
LABEL_GAP = 6.0


def _decade(text: str) -> bool:
    """'10²', '10⁻¹', '1', '100': a power of ten (placed before the labels between decades)."""
    t = text.strip()
    return t in ("1", "10", "100", "1000", "0.1", "0.01") or (t.startswith("10") and "·" not in t and
                                                             all(c in "⁰¹²³⁴⁵⁶⁷⁸⁹⁻" for c in t[2:]))


def spaced(text_specs, gap: float = LABEL_GAP) -> list:
    """The (rect, flags, text) specs to draw, none touching another: powers of ten placed first, then the others
    in pyqtgraph's order (its major level first) as room allows."""
    kept = []
    for spec in sorted(text_specs, key=lambda sp: 0 if _decade(str(sp[2])) else 1):
        r = spec[0].adjusted(-gap / 2, 0, gap / 2, 0)
        if not any(r.intersects(k[0]) for k in kept):
            kept.append(spec)
    return kept


class SpacedAxis(pg.AxisItem):
    """pg.AxisItem whose drawn tick labels are those of `spaced`."""

    def generateDrawSpecs(self, p):  # noqa: N802 (pyqtgraph's name)
        specs = super().generateDrawSpecs(p)
        if specs is None:
            return None
        axis, ticks, texts = specs
        return axis, ticks, spaced(texts)
