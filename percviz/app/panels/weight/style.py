"""Sizes and colours of the weight-space picture: how many lines, labels and iterates it draws."""

from __future__ import annotations

#: At most this many constraint lines carry a label (all of them up to this many points; beyond, the
#: cone's walls and the lines nearest to the cone).
MAX_LABELS = 30


#: Beyond this many constraints, lines that are not walls of the cone are faded.
FADE_ABOVE = 30


#: At most this many iterates are drawn on the path (older ones are thinned evenly).
MAX_PATH = 1500


#: The last this many iterates are drawn bold with dots; a longer path before them is a faint trace.
TAIL = 12


#: At most this many iterates on the far hemisphere are marked on the edge of the view.
MAX_FAR_MARKS = 240


def _cone_colors(dark: bool) -> tuple[str, str, str]:
    """(fill, edge, margin fill) of the solution region."""
    return ("#3fae5a", "#1e7b34", "#1e7b34") if not dark else ("#4cc46a", "#7be495", "#2f9e4f")


def _iterate_color(dark: bool) -> str:
    return "#6a3d9a" if not dark else "#c9a7ff"
