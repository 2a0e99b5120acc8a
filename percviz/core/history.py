"""A run's metric history kept within a fixed number of rows at any length of run (thinned evenly)."""

from __future__ import annotations

from typing import Iterable, Mapping

#: Rows kept at most (the first, then every `every`-th iteration, then the last): about 40 MB of Python floats
#: for a solver with ten metrics, whatever --max-iter is (a per-update list grew past 9 GB in 600 s).
HISTORY_ROWS = 20_000


class MetricHistory:
    """Columns {iteration, metric…}; past `rows` rows the stride doubles and the rows off it are dropped.

    The first row (iteration 0) and the last one recorded are always kept, so a thinned history still starts at
    the start and ends at the final state; `every` says how far apart the kept rows are.
    """

    def __init__(self, keys: Iterable[str] = (), rows: int | None = None):
        rows = HISTORY_ROWS if rows is None else rows
        if rows < 4:
            raise ValueError("a history keeps at least 4 rows")
        self.rows = int(rows)
        self.every = 1
        self.columns: dict[str, list] = {"iteration": []}
        for k in keys:
            self.columns.setdefault(k, [])
        self._tail: tuple[int, dict] | None = None  # the newest row when it is off the stride

    def record(self, iteration: int, metrics: Mapping[str, float]) -> None:
        """Add the row of `iteration` (kept if on the stride; the newest row is kept until the next one)."""
        self._tail = None
        if iteration % self.every == 0 or not self.columns["iteration"]:
            self._append(iteration, metrics)
            if len(self.columns["iteration"]) > self.rows:
                self._thin()
        else:
            self._tail = (iteration, dict(metrics))

    def as_dict(self) -> dict[str, list]:
        """The columns, the newest row included (lists of equal length; None where a metric was absent)."""
        out = {k: list(v) for k, v in self.columns.items()}
        if self._tail is not None:
            it, metrics = self._tail
            for k in metrics:
                if k not in out:
                    out[k] = [None] * len(out["iteration"])
            out["iteration"].append(it)
            for k in out:
                if k != "iteration":
                    out[k].append(metrics.get(k))
        return out

    def __len__(self) -> int:
        return len(self.columns["iteration"]) + (self._tail is not None)

    def _append(self, iteration: int, metrics: Mapping[str, float]) -> None:
        cols = self.columns
        for k in metrics:
            if k not in cols:  # a metric the solver did not declare up front: back-fill with nulls
                cols[k] = [None] * len(cols["iteration"])
        cols["iteration"].append(iteration)
        for k, col in cols.items():
            if k != "iteration":
                col.append(metrics.get(k))

    def _thin(self) -> None:
        self.every *= 2
        its = self.columns["iteration"]
        keep = [i for i, it in enumerate(its) if i == 0 or it % self.every == 0]
        for k, col in self.columns.items():
            self.columns[k] = [col[i] for i in keep]
