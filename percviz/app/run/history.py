"""The snapshots of a run, oldest first, in bounded memory.

Every snapshot is kept until the history holds `capacity` of them; then the older half is thinned to every other
snapshot, so recent iterations stay at full resolution and old ones grow sparser (iteration 0 is always kept). The
capacity adapts to the size of one snapshot so that the history stays within about `budget_bytes`, but never below
`min_capacity` (32) snapshots: at 100,000 points one kernel snapshot holds 2.4–4 MB (α, p and the decision's
coefficients), so a 100k run keeps 48–60 snapshots (~190 MB), the oldest thinned. Qt-free.
"""

from __future__ import annotations

from typing import Any


def snapshot_bytes(snap: Any) -> int:
    """Approximate memory held by one snapshot's arrays."""
    total = 512
    for obj in (snap, getattr(snap, "decision", None)):
        for name in ("alpha", "p", "weights", "centers", "coef"):
            a = getattr(obj, name, None)
            total += int(getattr(a, "nbytes", 0) or 0)
    return total


class SnapshotHistory:
    """The snapshots of a run, oldest first, with bounded memory (see the module docstring)."""

    def __init__(self, capacity: int = 4000, budget_bytes: int = 192 * 2**20, min_capacity: int = 32):
        self.max_capacity = capacity
        self.budget_bytes = budget_bytes
        self.min_capacity = min_capacity
        self.capacity = capacity
        self._items: list[Any] = []
        self.thinned = False  # True once some snapshots were dropped

    def clear(self) -> None:
        self._items = []
        self.capacity = self.max_capacity
        self.thinned = False

    def extend(self, snaps: list[Any]) -> None:
        if not snaps:
            return
        if not self._items:
            per = snapshot_bytes(snaps[0])
            self.capacity = max(self.min_capacity, min(self.max_capacity, self.budget_bytes // per))
        self._items.extend(snaps)
        while len(self._items) > self.capacity:
            half = self.capacity // 2
            self._items = self._items[:half:2] + self._items[half:]
            self.thinned = True

    def __len__(self) -> int:
        return len(self._items)

    def __getitem__(self, i):
        return self._items[i]

    def __iter__(self):
        return iter(self._items)

    @property
    def items(self) -> list[Any]:
        return list(self._items)
