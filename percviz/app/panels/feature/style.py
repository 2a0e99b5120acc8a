"""Limits of the feature-space picture: how many labels and trail points, what is computed where."""

from __future__ import annotations

#: At most this many points carry their index: those with the largest weight (α or p, else the witness p of ρ_K).
MAX_LABELS = 8


MAX_TRAIL = 3000


#: Up to this many points the embedding and hull are computed at once on the UI thread (an eigh of a
#: 200×200 matrix takes a few ms); beyond, on the panel's background thread.
SYNC_MAX_N = 200


#: The current direction is fitted on at most this many points (the decision function costs O(n) each).
FIT_MAX = 96


#: Above this many points the picture is not drawn (its n×n eigh would take minutes; issue 13).
EMBED_MAX_N = 3000
