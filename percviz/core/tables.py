"""Labelled points in R^d from data tables: CSV with any number of feature columns, NumPy .npy and .npz files."""

from __future__ import annotations

import math
import os
import zipfile
from pathlib import Path

import numpy as np

from percviz.core.data import PointSet
from percviz.core.errors import PercvizError, PresetError
from percviz.core.presets import check_file, read_text

#: File suffixes read as NumPy arrays.
NUMPY_SUFFIXES = (".npy", ".npz")
#: Refuse tables beyond this many rows or numbers (a table is read into memory at once).
MAX_ROWS = 1_000_000
MAX_CELLS = 50_000_000


def read_table(path: "str | os.PathLike", label_column: "str | int | None" = None) -> PointSet:
    """Points and labels from a CSV (label column by name or index, default the last), .npy or .npz file.

    .npy holds one n×(d+1) array whose last column (or `label_column`) is the label; .npz holds arrays X (n×d)
    and y (n). Labels are ±1, 1/0 or classes 0..c−1, as everywhere in percviz.
    """
    path = Path(path)
    suffix = path.suffix.lower()
    if suffix == ".npz":
        if label_column is not None:
            raise PresetError(path, "label column", "does not apply to .npz files: they hold X and y arrays.")
        X, labels = _read_npz(path)
    elif suffix == ".npy":
        X, labels = _split_columns(path, _load_npy(path), None, label_column)
    else:
        X, labels = _read_csv(path, label_column)
    try:
        return PointSet.from_labels(X, labels)
    except PercvizError as e:
        raise PresetError(path, "label", str(e)) from None


def csv_column_count(path: "str | os.PathLike") -> int | None:
    """The number of columns of a CSV's first data or header row (None when it has none)."""
    for fields in _csv_rows(Path(path), limit=1):
        return len(fields[1])
    return None


def _load_npy(path: Path) -> np.ndarray:
    check_file(path)
    try:
        a = np.load(path, allow_pickle=False)
    except (ValueError, EOFError, zipfile.BadZipFile) as e:
        raise PresetError(path, None, f"is not a NumPy .npy array ({_why(e)}); save the points with "
                                      "np.save(path, np.column_stack([X, y])).") from None
    except OSError as e:
        raise PresetError(path, None, f"cannot be read ({e.strerror or e}).") from None
    if not isinstance(a, np.ndarray) or a.ndim != 2 or a.shape[1] < 2:
        shape = getattr(a, "shape", None)
        raise PresetError(path, None, f"must hold one n×(d+1) array (features, then the label); got shape {shape}.")
    return _numeric(path, a, "the array")


def _read_npz(path: Path) -> tuple[np.ndarray, np.ndarray]:
    check_file(path)
    try:
        with np.load(path, allow_pickle=False) as z:
            missing = [k for k in ("X", "y") if k not in z.files]
            if missing:
                raise PresetError(
                    path, None, f"has no array {' or '.join(missing)}; save it with np.savez(path, X=X, y=y) "
                    f"(it holds {', '.join(z.files) or 'nothing'})."
                )
            X, y = z["X"], z["y"]
    except (ValueError, EOFError, zipfile.BadZipFile) as e:
        raise PresetError(path, None, f"is not a NumPy .npz archive ({_why(e)}); save the points with "
                                      "np.savez(path, X=X, y=y).") from None
    except OSError as e:
        raise PresetError(path, None, f"cannot be read ({e.strerror or e}).") from None
    X = _numeric(path, np.asarray(X), "X")
    y = _numeric(path, np.asarray(y), "y")
    if X.ndim == 1:
        X = X.reshape(-1, 1)
    if X.ndim != 2 or y.ndim != 1 or y.shape[0] != X.shape[0]:
        raise PresetError(path, None, f"needs X of shape n×d and y of length n; got X {X.shape} and y {y.shape}.")
    return X, y


def _why(e: Exception) -> str:
    """What np.load's refusal means, in words (its own text talks of pickles and zip internals)."""
    text = str(e)
    if isinstance(e, zipfile.BadZipFile) or "zip" in text.lower():
        return "its zip structure is damaged or it is not a zip file"
    if "pickle" in text.lower():
        return "it is not in NumPy's format, or it holds Python objects rather than numbers"
    if isinstance(e, EOFError) or "empty" in text.lower():
        return "it is empty or truncated"
    return text.rstrip(".")


def _numeric(path: Path, a: np.ndarray, what: str) -> np.ndarray:
    if a.dtype.kind not in "biuf":
        raise PresetError(path, what, f"must hold numbers, not {a.dtype} values.")
    if a.size > MAX_CELLS:
        raise PresetError(path, what, f"has {a.size:,} numbers; the limit is {MAX_CELLS:,}.")
    a = a.astype(float)
    if not np.isfinite(a).all():
        i = int(np.flatnonzero(~np.isfinite(a).reshape(a.shape[0], -1).all(axis=1))[0])
        raise PresetError(path, f"{what} row {i}", "has a value that is not a finite number; remove or fix it.")
    return a


def _csv_rows(path: Path, limit: int | None = None):
    """(line number, fields) of the non-empty, non-comment lines (',' or ';' or whitespace separated)."""
    count = 0
    for lineno, line in enumerate(read_text(path).splitlines(), 1):
        s = line.strip()
        if s and not s.startswith("#"):
            sep = "," if "," in s else (";" if ";" in s else None)
            yield lineno, [f.strip().strip('"').strip("'") for f in s.split(sep)]
            count += 1
            if limit is not None and count >= limit:
                return


def _is_number(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True


def _read_csv(path: Path, label_column) -> tuple[np.ndarray, np.ndarray]:
    rows = list(_csv_rows(path))
    if not rows:
        raise PresetError(path, None, "has no data rows; write one point per line: its coordinates, then its label.")
    header = None
    if not all(_is_number(f) for f in rows[0][1]):
        header, rows = rows[0][1], rows[1:]
        if not rows:
            raise PresetError(path, None, "has a header but no data rows.")
    if len(rows) > MAX_ROWS:
        raise PresetError(path, None, f"has {len(rows):,} rows; the limit is {MAX_ROWS:,}.")
    width = len(header) if header is not None else len(rows[0][1])
    if width < 2:
        raise PresetError(path, None, "needs at least two columns: one or more features, then a label.")
    A = np.empty((len(rows), width))
    for r, (lineno, fields) in enumerate(rows):
        if len(fields) != width:
            raise PresetError(path, f"line {lineno}", f"has {len(fields)} columns; expected {width} like the "
                              + ("header." if header is not None else "first row."))
        for c, text in enumerate(fields):
            try:
                v = float(text)
            except ValueError:
                name = header[c] if header is not None else f"column {c + 1}"
                raise PresetError(path, f"line {lineno}", f"{name} is not a number: {text!r}.") from None
            if not math.isfinite(v):
                raise PresetError(path, f"line {lineno}", f"column {c + 1} must be a finite number, not {text!r}.")
            A[r, c] = v
    return _split_columns(path, A, header, label_column)


def _split_columns(path: Path, A: np.ndarray, header, label_column) -> tuple[np.ndarray, np.ndarray]:
    """(features, labels): the label column by header name or index (negative counts from the end)."""
    width = A.shape[1]
    j = width - 1
    if label_column is not None:
        text = str(label_column).strip()
        names = [h.lower() for h in header] if header is not None else []
        if text.lower() in names:
            j = names.index(text.lower())
        elif text.lstrip("-").isdigit():
            j = int(text)
            if not -width <= j < width:
                raise PresetError(path, "label column", f"{j} is out of range: the file has {width} columns "
                                  f"(indices 0..{width - 1}, or −1 for the last).")
            j %= width
        else:
            known = f"; its columns are {', '.join(header)}" if header is not None else " and has no header"
            raise PresetError(path, "label column", f"'{text}' is neither a column name nor an index{known}.")
    if label_column is None and width == 2:  # "x,y": points without labels (wider tables name their label)
        _refuse_coordinate_as_label(path, A[:, j], header[j] if header is not None else None)
    keep = [c for c in range(width) if c != j]
    return A[:, keep], A[:, j]


#: Header names of a two-column file's second column that are coordinates, never labels ("x,y" has no labels).
COORDINATE_NAMES = frozenset({"y", "x2", "x_2", "x1", "x_1"})


def _refuse_coordinate_as_label(path: Path, labels: np.ndarray, name: str | None) -> None:
    """PresetError when the default label column (the last) is evidently a coordinate."""
    what = f"its last column '{name}'" if name else "its last column"
    fix = ("add a label column (+1/−1, 1/0 or classes 0, 1, 2, …) after the coordinates, or name the label "
           "column with --label-column NAME|INDEX")
    if name is not None and name.strip().lower() in COORDINATE_NAMES:
        raise PresetError(path, "label", f"{what} is a coordinate, not a label; {fix}.")
    n = labels.size
    if n >= 4 and np.unique(labels).size == n and np.any(labels != np.round(labels)) | (np.unique(labels).size > 8):
        raise PresetError(path, "label", f"{what}, taken as the label, has a different value on every row: it "
                                         f"looks like a coordinate; {fix}.")
