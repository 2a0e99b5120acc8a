"""What every panel of the window shares: the rule that nothing non-finite (or too large to draw) reaches a view."""

from __future__ import annotations

import numpy as np

#: Coordinates beyond this magnitude are not drawn: Qt's and pyqtgraph's range arithmetic overflows long before 1e308.
DRAW_LIMIT = 1e100


def drawable(values) -> bool:
    """True when every value is finite and within ±DRAW_LIMIT (a diverged iterate is reported, never drawn)."""
    a = np.asarray(values, dtype=float)
    return bool(a.size == 0 or (np.isfinite(a).all() and np.abs(a).max() <= DRAW_LIMIT))


#: A decision function whose coefficients exceed this is not drawn: the float32 image would overflow.
DECISION_LIMIT = 1e30


def decision_drawable(decision) -> bool:
    """True when a snapshot's decision function has finite coefficients small enough for a float32 image."""
    parts = [getattr(decision, name) for name in ("weights", "coef", "bias") if hasattr(decision, name)]
    return all(np.isfinite(np.asarray(p, dtype=float)).all() and np.abs(np.asarray(p, dtype=float)).max(initial=0.0)
               <= DECISION_LIMIT for p in parts)
