"""Preset files (one JSON scene format) and CSV points: validated loading, atomic saving, shipped scenes.

A preset is plain data: loading parses JSON with the standard library and checks every field; nothing
in a file is ever executed or imported. Broken files raise `PresetError(path, field, problem)`.
"""

from __future__ import annotations

import dataclasses
import json
import math
import os
import stat
import tempfile
import time
import types
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Mapping

import numpy as np

from percviz.core.data import PointSet
from percviz.core.errors import PercvizError, PresetError
from percviz.core.features import parse_features
from percviz.core.kernels import parse_kernel
from percviz.core.problem import Problem
from percviz.core.solvers import get_solver
from percviz.core.solvers.base import MAX_ITER_SPEC, METRICS

FORMAT = "percviz-preset"
VERSION = 1
#: Refuse files, scenes and coordinates beyond these sizes (a preset is a classroom scene, not a data lake).
MAX_FILE_BYTES = 50_000_000
MAX_POINTS = 100_000
MAX_COORD = 1e6
MAX_TITLE = 200
MAX_EXPLANATION = 4000

PANELS = ("canvas", "curves", "weight", "feature")
#: Colour maps the app knows for the decision-function shading (others load with a warning).
COLORMAPS = ("diverging", "diverging-cb", "viridis", "cividis", "gray")
SHIPPED_DIR = Path(__file__).resolve().parent.parent / "presets"
#: Order in which the shipped scenes are listed (files not named here follow alphabetically).
SHIPPED_ORDER = (
    "default",
    "notes-1d-four-samples",
    "notes-80-separable",
    "notes-ring-quadratic",
    "xor-linear-certificate",
    "xor-rbf",
    "overlapping-gaussians",
    "normalization-example",
    "thin-margin",
    "concentric-circles-rbf",
    "three-class-linear-machine",
    "winnow-sparse-stream",
    "input-space-margin",
    "race-thin-margin",
)


def _frozen_tuple(values) -> tuple:
    return tuple(values) if values is not None else ()


@dataclass(frozen=True)
class ViewSettings:
    """How a scene is shown: visible panels, plot range, colour map, level curves and overlays."""

    panels: tuple[str, ...] = ("canvas", "curves")
    #: (xmin, xmax, ymin, ymax) of the canvas, or None to fit the points.
    range: tuple[float, float, float, float] | None = None
    colormap: str = "diverging"
    #: Levels of the decision function f drawn as curves (0 is the decision boundary).
    levels: tuple[float, ...] = (0.0,)
    shading: bool = True  # shade the plane by the decision function
    halos: bool = True  # draw α_i (or p_i) as halos around the points
    curves: tuple[str, ...] = ()  # metric keys plotted in the curves panel (empty: the solver's own)
    log_y: bool = False  # logarithmic y axis in the curves panel
    live: bool | None = None  # Live mode (rerun to the end on every edit); None: keep the user's choice

    def __post_init__(self):
        object.__setattr__(self, "panels", _frozen_tuple(self.panels))
        object.__setattr__(self, "levels", tuple(float(v) for v in self.levels))
        object.__setattr__(self, "curves", _frozen_tuple(self.curves))
        if self.range is not None:
            object.__setattr__(self, "range", tuple(float(v) for v in self.range))

    def to_dict(self) -> dict[str, Any]:
        d = dataclasses.asdict(self)
        d["panels"], d["levels"], d["curves"] = list(self.panels), list(self.levels), list(self.curves)
        d["range"] = None if self.range is None else list(self.range)
        if d["live"] is None:
            del d["live"]  # unsaid: the user's own choice applies
        return d


@dataclass(frozen=True)
class Preset:
    """A scene: points and classes (0 = '+', 1 = '−', …), what to run on them, how to show them."""

    points: PointSet
    title: str = "Untitled scene"
    explanation: str = ""
    kernel: str = "affine"
    features: str = "linear"
    algorithm: str = "snkp"
    params: Mapping[str, Any] = field(default_factory=dict)
    max_iter: int | None = None
    view: ViewSettings = field(default_factory=ViewSettings)
    #: A race (docs/experiments.md): 2–4 lanes {"algorithm", "kernel", "features", "params"}; () for none.
    race: tuple = ()
    #: Non-fatal remarks made while loading (unknown fields, …); not part of the scene itself.
    warnings: tuple[str, ...] = field(default=(), compare=False)

    def __post_init__(self):
        object.__setattr__(self, "params", types.MappingProxyType(dict(self.params)))
        object.__setattr__(self, "warnings", tuple(self.warnings))

    __hash__ = None  # type: ignore[assignment]

    def replace(self, **changes: Any) -> "Preset":
        """A copy with some fields changed (not re-validated: use with_overrides for user input)."""
        return dataclasses.replace(self, **changes)

    def with_overrides(
        self,
        *,
        algorithm: str | None = None,
        kernel: str | None = None,
        features: str | None = None,
        params: Mapping[str, Any] | None = None,
        max_iter: int | None = None,
        source: str = "command line",
    ) -> "Preset":
        """Apply user choices over this preset, validated like a file.

        Changing the algorithm drops the preset's parameters (they belong to its own algorithm);
        `params` are then merged over what is left.
        """
        if self.points.dim != 2:  # a table in R^d (the CLI): validate the choices on a plane, keep the points
            plane = dataclasses.replace(self, points=PointSet(np.zeros((0, 2)), []))
            chosen = plane.with_overrides(algorithm=algorithm, kernel=kernel, features=features, params=params,
                                          max_iter=max_iter, source=source)
            return dataclasses.replace(chosen, points=self.points)
        raw: dict[str, Any] = self.to_dict()
        if algorithm is not None and algorithm != self.algorithm:
            raw["algorithm"], raw["params"] = algorithm, {}
        if kernel is not None:
            raw["kernel"] = kernel
        if features is not None:
            raw["features"] = features
        if params:
            raw["params"] = {**raw["params"], **params}
        if max_iter is not None:
            raw["max_iter"] = max_iter
        return preset_from_dict(raw, source, typed_params_from_text=True)

    def problem(self) -> Problem:
        """The Problem (points, kernel, φ-map) this scene runs on."""
        return Problem(self.points, self.kernel, self.features)

    def make_solver(self):
        """A ready solver for this scene (raises DataError/ParameterError if it cannot run)."""
        cls = get_solver(self.algorithm)
        return cls(self.problem(), max_iter=self.max_iter, **dict(self.params))

    def to_dict(self) -> dict[str, Any]:
        """The JSON document of this preset."""
        return {
            "format": FORMAT,
            "version": VERSION,
            "title": self.title,
            "explanation": self.explanation,
            "points": [[float(x), float(y)] for x, y in self.points.X],
            "classes": [int(c) for c in self.points.classes],
            "kernel": self.kernel,
            "features": self.features,
            "algorithm": self.algorithm,
            "params": dict(self.params),
            "max_iter": self.max_iter,
            "view": self.view.to_dict(),
            **({"race": [dict(lane) for lane in self.race]} if self.race else {}),
        }


# ---------------------------------------------------------------------------------------------------
# Validation of a parsed document
# ---------------------------------------------------------------------------------------------------

_TOP_FIELDS = (
    "format", "version", "title", "explanation", "points", "classes",
    "kernel", "features", "algorithm", "params", "max_iter", "view", "race",
)


class _Checker:
    """Field-by-field checks that raise PresetError naming the file and the field."""

    def __init__(self, path: str):
        self.path = path
        self.warnings: list[str] = []

    def fail(self, fld: str | None, problem: str):
        raise PresetError(self.path, fld, problem)

    def number(self, value: Any, fld: str, limit: float = MAX_COORD) -> float:
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            self.fail(fld, f"must be a number, not {_kind(value)}.")
        try:
            v = float(value)
        except OverflowError:  # an integer beyond 1.8e308
            self.fail(fld, f"{_short(value)} is too large (the limit is ±{limit:g}); scale the data down.")
        if not math.isfinite(v):
            self.fail(fld, f"must be a finite number, not {value!r}.")
        if abs(v) > limit:
            self.fail(fld, f"{value!r} is too large (the limit is ±{limit:g}); scale the data down.")
        return v

    def string(self, value: Any, fld: str, max_len: int) -> str:
        if not isinstance(value, str):
            self.fail(fld, f"must be text, not {_kind(value)}.")
        if len(value) > max_len:
            self.fail(fld, f"is {len(value)} characters long; the limit is {max_len}.")
        return value

    def boolean(self, value: Any, fld: str) -> bool:
        if not isinstance(value, bool):
            self.fail(fld, f"must be true or false, not {_kind(value)}.")
        return value

    def array(self, value: Any, fld: str, max_len: int = MAX_POINTS) -> list:
        if not isinstance(value, list):
            self.fail(fld, f"must be a list, not {_kind(value)}.")
        if len(value) > max_len:
            self.fail(fld, f"has {len(value)} entries; the limit is {max_len}.")
        return value


def _kind(value: Any) -> str:
    names = {dict: "an object", list: "a list", str: "text", bool: "true/false", type(None): "null"}
    for t, name in names.items():
        if isinstance(value, t):
            return f"{name} ({_short(value)})" if t in (str, bool) else name
    return f"the number {value!r}" if isinstance(value, (int, float)) else type(value).__name__


def _short(value: Any) -> str:
    text = json.dumps(value)
    return text if len(text) <= 40 else text[:37] + "…"


def _check_points(ck: _Checker, doc: dict) -> PointSet:
    if "points" not in doc:
        ck.fail("points", "is missing; a preset needs a list of [x, y] pairs (it may be empty).")
    if "classes" not in doc:
        ck.fail("classes", "is missing; give one class per point (0 = '+', 1 = '−', 2, … for more classes).")
    raw_pts = ck.array(doc["points"], "points")
    X = np.empty((len(raw_pts), 2))
    for i, p in enumerate(raw_pts):
        if not isinstance(p, list) or len(p) != 2:
            ck.fail(f"points[{i}]", f"must be a pair [x, y], not {_short(p)}.")
        X[i, 0] = ck.number(p[0], f"points[{i}][0]")
        X[i, 1] = ck.number(p[1], f"points[{i}][1]")
    raw_cls = ck.array(doc["classes"], "classes")
    if len(raw_cls) != len(raw_pts):
        ck.fail("classes", f"has {len(raw_cls)} entries but there are {len(raw_pts)} points; give one class per point.")
    classes = np.zeros(len(raw_cls), dtype=np.int64)
    for i, c in enumerate(raw_cls):
        if isinstance(c, bool) or not isinstance(c, int) or not 0 <= c < 64:
            ck.fail(f"classes[{i}]", f"must be a class index 0, 1, … 63 (0 = '+', 1 = '−'), not {_short(c)}.")
        classes[i] = c
    return PointSet(X, classes)


def _check_spec(ck: _Checker, doc: dict, key: str, default: str, parse: Callable) -> str:
    value = doc.get(key, default)
    ck.string(value, key, 200)
    try:
        return parse(value).spec
    except PercvizError as e:
        ck.fail(key, str(e))
    raise AssertionError  # unreachable


def _check_algorithm(ck: _Checker, doc: dict, typed_from_text: bool) -> tuple[str, dict[str, Any]]:
    name = ck.string(doc.get("algorithm", "snkp"), "algorithm", 100)
    try:
        cls = get_solver(name)
    except PercvizError as e:
        ck.fail("algorithm", str(e))
    raw = doc.get("params", {})
    if not isinstance(raw, dict):
        ck.fail("params", f"must be an object of name: value pairs, not {_kind(raw)}.")
    if cls.alias_of is not None:  # an old name ('smo'): the algorithm it stands for, with its fixed values
        name, raw = cls.alias_of, {**cls.alias_values, **raw}
        cls = get_solver(name)
    specs = {s.name: s for s in cls.params.specs}
    params: dict[str, Any] = {}
    for key, value in raw.items():
        fld = f"params.{key}"
        if key not in specs:
            allowed = ", ".join(specs) or "none"
            ck.fail(fld, f"'{key}' is not a parameter of {cls.display_name} ('{name}'); its parameters: {allowed}.")
        if isinstance(value, str) and not typed_from_text and specs[key].type != "choice":
            ck.fail(fld, f"must be {specs[key].range_text()}, not text ({_short(value)}).")
        if not isinstance(value, (bool, int, float, str)):
            ck.fail(fld, f"must be {specs[key].range_text()}, not {_kind(value)}.")
        try:
            params[key] = specs[key].coerce(value, f"{cls.display_name}")
        except PercvizError as e:
            ck.fail(fld, str(e))
    return name, params


def _check_max_iter(ck: _Checker, doc: dict, typed_from_text: bool) -> int | None:
    value = doc.get("max_iter")
    if value is None:
        return None
    if isinstance(value, str) and typed_from_text:
        try:
            return MAX_ITER_SPEC.coerce(value)
        except PercvizError as e:
            ck.fail("max_iter", str(e))
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        ck.fail("max_iter", f"must be a whole number of iterations or null, not {_kind(value)}.")
    try:
        return MAX_ITER_SPEC.coerce(value)
    except PercvizError as e:
        ck.fail("max_iter", str(e))
    raise AssertionError  # unreachable


def _check_view(ck: _Checker, raw: Any) -> ViewSettings:
    if raw is None:
        return ViewSettings()
    if not isinstance(raw, dict):
        ck.fail("view", f"must be an object, not {_kind(raw)}.")
    out: dict[str, Any] = {}
    for key, value in raw.items():
        fld = f"view.{key}"
        if key == "panels":
            panels = ck.array(value, fld, 8)
            for i, p in enumerate(panels):
                if p not in PANELS:
                    ck.fail(f"{fld}[{i}]", f"must be one of {', '.join(PANELS)}, not {_short(p)}.")
            out["panels"] = tuple(dict.fromkeys(panels))
        elif key == "range":
            if value is not None:
                r = ck.array(value, fld, 4)
                if len(r) != 4:
                    ck.fail(fld, "must be [xmin, xmax, ymin, ymax] or null.")
                r = [ck.number(v, f"{fld}[{i}]") for i, v in enumerate(r)]
                if not (r[0] < r[1] and r[2] < r[3]):
                    ck.fail(fld, f"must have xmin < xmax and ymin < ymax; got {r}.")
                out["range"] = tuple(r)
            else:
                out["range"] = None
        elif key == "colormap":
            out["colormap"] = ck.string(value, fld, 40)
            if out["colormap"] not in COLORMAPS:
                ck.warnings.append(
                    f"{fld}: unknown colour map '{out['colormap']}' (known: {', '.join(COLORMAPS)}); "
                    "the default is used."
                )
                del out["colormap"]
        elif key == "levels":
            lv = ck.array(value, fld, 41)
            out["levels"] = tuple(ck.number(v, f"{fld}[{i}]") for i, v in enumerate(lv))
        elif key in ("shading", "halos", "log_y"):
            out[key] = ck.boolean(value, fld)
        elif key == "live":
            out[key] = None if value is None else ck.boolean(value, fld)
        elif key == "curves":
            keys = ck.array(value, fld, len(METRICS))
            for i, k in enumerate(keys):
                ck.string(k, f"{fld}[{i}]", 40)
            unknown = [k for k in keys if k not in METRICS]
            if unknown:
                ck.warnings.append(f"{fld}: unknown metrics {', '.join(unknown)} are not plotted.")
            out["curves"] = tuple(k for k in keys if k in METRICS)
        else:
            ck.warnings.append(f"Unknown field '{fld}' was ignored.")
    return ViewSettings(**out)


def preset_from_dict(
    doc: Any, path: "str | os.PathLike" = "<preset>", *, typed_params_from_text: bool = False
) -> Preset:
    """Validate a parsed JSON document and build the Preset; raises PresetError naming the field."""
    ck = _Checker(str(path))
    if not isinstance(doc, dict):
        ck.fail(None, f"is not a percviz preset: the top level must be a JSON object, not {_kind(doc)}.")
    if doc.get("format") != FORMAT:
        got = "missing" if "format" not in doc else f"{_short(doc['format'])}"
        ck.fail("format", f"must be \"{FORMAT}\" (got {got}); this is not a percviz preset file.")
    version = doc.get("version")
    if isinstance(version, bool) or not isinstance(version, int) or version < 1:
        ck.fail("version", f"must be a whole number ≥ 1 (this percviz writes {VERSION}); got {_short(version)}.")
    if version > VERSION:
        ck.fail(
            "version",
            f"the file has format version {_short(version)}, written by a newer percviz; this percviz reads "
            f"version {VERSION} and older. Update percviz to open it.",
        )
    for key in doc:
        if key not in _TOP_FIELDS:
            ck.warnings.append(f"Unknown field '{key}' was ignored.")
    title = ck.string(doc.get("title", "Untitled scene"), "title", MAX_TITLE)
    explanation = ck.string(doc.get("explanation", ""), "explanation", MAX_EXPLANATION)
    points = _check_points(ck, doc)
    kernel = _check_spec(ck, doc, "kernel", "affine", parse_kernel)
    features = _check_spec(ck, doc, "features", "linear", parse_features)
    algorithm, params = _check_algorithm(ck, doc, typed_params_from_text)
    max_iter = _check_max_iter(ck, doc, typed_params_from_text)
    view = _check_view(ck, doc.get("view"))
    _scene_remarks(ck, points, algorithm)
    race = _check_race(ck, doc.get("race"))
    return Preset(points, title, explanation, kernel, features, algorithm, params, max_iter, view, race,
                  tuple(ck.warnings))


def _check_race(ck: _Checker, value: Any) -> tuple:
    """The optional race: 2–4 lanes, each an algorithm with its kernel, φ-map and parameters."""
    if value is None:
        return ()
    if not isinstance(value, list) or not 2 <= len(value) <= 4:
        ck.fail("race", f"must be a list of 2 to 4 lanes, not {_short(value)}.")
    lanes = []
    for i, lane in enumerate(value):
        fld = f"race[{i}]"
        if not isinstance(lane, dict):
            ck.fail(fld, f"must be an object with an 'algorithm', not {_kind(lane)}.")
        try:
            name, params = _check_algorithm(ck, {"algorithm": lane.get("algorithm"), **lane}, False)
            kernel = _check_spec(ck, lane, "kernel", "affine", parse_kernel)
            features = _check_spec(ck, lane, "features", "linear", parse_features)
        except PresetError as e:
            raise PresetError(e.path, f"{fld}.{e.field}", e.problem) from None
        lanes.append({"algorithm": name, "kernel": kernel, "features": features, "params": params})
    return tuple(lanes)


def _scene_remarks(ck: _Checker, points: PointSet, algorithm: str) -> None:
    """Warn (not fail) when the scene cannot run yet: a teacher may save a half-built scene."""
    cls = get_solver(algorithm)
    if points.n and points.classes.max() > 1 and cls.representation != "multiclass":
        ck.warnings.append(
            f"The points use {points.n_classes} classes but {cls.display_name} needs two (+ and −); "
            "choose a multi-class algorithm to run this scene."
        )


# ---------------------------------------------------------------------------------------------------
# Files
# ---------------------------------------------------------------------------------------------------

def check_file(path: Path) -> None:
    """Refuse, before any read, what is not a regular file or is over the size limit (PresetError)."""
    st = path.stat()
    if stat.S_ISDIR(st.st_mode):
        raise PresetError(path, None, "is a folder, not a file; choose a preset (.json) or a CSV file inside it.")
    if not stat.S_ISREG(st.st_mode):  # a FIFO would block, /dev/zero would never end
        raise PresetError(path, None, "is not a regular file (a pipe or device); save the points to a file first.")
    size = st.st_size
    if size > MAX_FILE_BYTES:
        raise PresetError(path, None, f"is {size / 1e6:.0f} MB; the limit is {MAX_FILE_BYTES / 1e6:.0f} MB.")


def read_text(path: Path) -> str:
    """The file's text (UTF-8), read within the size limit; PresetError naming the file for what cannot be read."""
    check_file(path)
    try:
        with open(path, "rb") as fh:
            data = fh.read(MAX_FILE_BYTES + 1)  # bounded even if the file grows while it is read
    except (FileNotFoundError, PermissionError, IsADirectoryError):
        raise
    except OSError as e:  # /proc/self/mem: a "regular" file whose read fails with EIO
        raise PresetError(path, None, f"cannot be read ({e.strerror or e}); is it a real file?") from None
    if len(data) > MAX_FILE_BYTES:
        raise PresetError(path, None, f"is larger than the limit of {MAX_FILE_BYTES / 1e6:.0f} MB.")
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as e:
        raise PresetError(path, None, f"is not UTF-8 text (byte {e.start}); is it the right file?") from None


def load_preset(path: "str | os.PathLike") -> Preset:
    """Read and validate a preset file; OSError if it cannot be read, PresetError if it is broken."""
    path = Path(path)
    text = read_text(path)
    if not text.strip():
        raise PresetError(path, None, "is empty; a preset is a JSON object with \"format\": \"percviz-preset\".")
    try:
        # NaN/Infinity literals parse to floats here so that the field check names where they are.
        doc = json.loads(text)
    except json.JSONDecodeError as e:
        hint = "; the file looks truncated (it ends before its brackets close)" if _unclosed(text) else ""
        where = f"{e.msg}: line {e.lineno}, column {e.colno}"
        raise PresetError(path, None, f"is not valid JSON ({where}){hint}.") from None
    except RecursionError:
        raise PresetError(path, None, "is not a percviz preset: it is nested too deeply.") from None
    except ValueError:  # Python refuses integers of more than 4,300 digits
        raise PresetError(path, None, "contains a number with thousands of digits; no coordinate or parameter "
                                      "can be that large.") from None
    return preset_from_dict(doc, path)


def _unclosed(text: str) -> bool:
    """True when the text ends inside a string or with open brackets: a cut-off file."""
    depth, in_str, esc = 0, False, False
    for ch in text:
        if in_str:
            esc, in_str = (False, True) if esc else (ch == "\\", ch != '"')
        elif ch == '"':
            in_str = True
        elif ch in "[{":
            depth += 1
        elif ch in "]}":
            depth -= 1
    return in_str or depth > 0


#: The temporary file of a save is `.NAME.<pid>-<random>.percviz.tmp` beside NAME: a kill between the write and
#: the rename leaves it (10 of 40 kills while saving did), and the next save in that folder or the next start of
#: the window removes it once its writer is gone (or, where that cannot be told, once it is STALE_TEMP_S old).
TEMP_SUFFIX = ".percviz.tmp"
STALE_TEMP_S = 3600.0


def remove_stale_temps(folder: "str | os.PathLike") -> int:
    """Delete the temporary files that killed saves left in `folder`; returns how many were removed."""
    removed = 0
    try:
        candidates = list(Path(folder).glob(f".*{TEMP_SUFFIX}"))
    except OSError:
        return 0
    for tmp in candidates:
        if _temp_writer_gone(tmp):
            try:
                tmp.unlink()
                removed += 1
            except OSError:
                pass
    return removed


def _temp_writer_gone(tmp: Path) -> bool:
    """True when the save that wrote `tmp` cannot still be running (its process is gone, or it is old)."""
    try:
        age = time.time() - tmp.stat().st_mtime
    except OSError:
        return False
    if age > STALE_TEMP_S:
        return True
    pid_part = tmp.name[: -len(TEMP_SUFFIX)].rsplit(".", 1)[-1].split("-", 1)[0]
    if not pid_part.isdigit() or os.name != "posix":
        return False  # not ours to judge yet: only its age will tell
    pid = int(pid_part)
    if pid == os.getpid():
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    except OSError:  # it exists, owned by someone else
        return False
    return False


def atomic_write_text(path: "str | os.PathLike", text: str) -> Path:
    """Write text to a temporary file beside `path`, then rename it over `path`.

    The previous file survives any failure (full disk, permissions, a crash mid-write).
    """
    path = Path(path)
    remove_stale_temps(path.parent)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.{os.getpid()}-", suffix=TEMP_SUFFIX)
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="\n") as fh:
            fh.write(text)
            fh.flush()
            os.fsync(fh.fileno())
        try:
            os.chmod(tmp, path.stat().st_mode & 0o7777 if path.exists() else 0o644)
        except OSError:
            pass
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise
    return path


def _dumps(value: Any, indent: str) -> str:
    """JSON with objects indented and lists of plain values kept on one line."""
    if isinstance(value, dict) and value:
        inner = indent + "  "
        items = [f"{inner}{json.dumps(k)}: {_dumps(v, inner)}" for k, v in value.items()]
        return "{\n" + ",\n".join(items) + "\n" + indent + "}"
    if isinstance(value, list) and any(isinstance(v, (list, dict)) for v in value):
        inner = indent + "  "
        return "[\n" + ",\n".join(inner + _dumps(v, inner) for v in value) + "\n" + indent + "]"
    return json.dumps(value, ensure_ascii=False, allow_nan=False, separators=(", ", ": "))


def preset_to_json(preset: Preset) -> str:
    """The file text of a preset: indented JSON, one point per line."""
    return _dumps(preset.to_dict(), "") + "\n"


def save_preset(preset: Preset, path: "str | os.PathLike") -> Path:
    """Save atomically (temp file + rename): if anything fails, the previous file is kept.

    The text is validated as `load_preset` would before the disk is touched, so a saved file always loads.
    """
    text = preset_to_json(preset)
    preset_from_dict(json.loads(text), path)
    return atomic_write_text(path, text)


# ---------------------------------------------------------------------------------------------------
# CSV
# ---------------------------------------------------------------------------------------------------

_LABEL_NAMES = ("label", "class", "labels", "classes", "target", "z")


def read_csv(path: "str | os.PathLike") -> PointSet:
    """Points from a CSV `x,y,label` (header optional; labels ±1, 1/0, or classes 0..c−1; # comments)."""
    path = Path(path)
    text = read_text(path)
    rows: list[tuple[int, list[str]]] = []
    for lineno, line in enumerate(text.splitlines(), 1):
        s = line.strip()
        if s and not s.startswith("#"):
            sep = "," if "," in s else (";" if ";" in s else None)
            rows.append((lineno, [f.strip().strip('"').strip("'") for f in s.split(sep)]))
    if not rows:
        raise PresetError(path, None, "has no data rows; write one point per line as x,y,label.")
    order = (0, 1, 2)
    first_no, first = rows[0]
    if not _all_numbers(first):
        order = _header_order(path, first_no, first)
        rows = rows[1:]
        if not rows:
            raise PresetError(path, None, "has a header but no data rows; write one point per line as x,y,label.")
    if len(rows) > MAX_POINTS:
        raise PresetError(path, None, f"has {len(rows)} rows; the limit is {MAX_POINTS} points.")
    X = np.empty((len(rows), 2))
    labels = np.empty(len(rows))
    names = ("x", "y", "label")
    for r, (lineno, fields) in enumerate(rows):
        if len(fields) != 3:
            raise PresetError(path, f"line {lineno}", f"has {len(fields)} columns; expected 3 (x,y,label).")
        vals = []
        for col, name in zip(order, names):
            try:
                v = float(fields[col])
            except ValueError:
                raise PresetError(path, f"line {lineno}", f"{name} is not a number: {fields[col]!r}.") from None
            if not math.isfinite(v):
                raise PresetError(path, f"line {lineno}", f"{name} must be a finite number, not {fields[col]!r}.")
            if name != "label" and abs(v) > MAX_COORD:
                raise PresetError(path, f"line {lineno}", f"{name} = {v:g} is too large (limit ±{MAX_COORD:g}).")
            vals.append(v)
        X[r], labels[r] = vals[:2], vals[2]
    try:
        return PointSet.from_labels(X, labels)
    except PercvizError as e:
        raise PresetError(path, "label", str(e)) from None


def _all_numbers(fields: list[str]) -> bool:
    try:
        [float(f) for f in fields]
    except ValueError:
        return False
    return True


def _header_order(path: Path, lineno: int, header: list[str]) -> tuple[int, int, int]:
    """Column order from a header: by name when it reads x, y and a label column, else positional."""
    if len(header) != 3:
        raise PresetError(path, f"line {lineno}", f"the header has {len(header)} columns; expected x,y,label.")
    low = [h.lower() for h in header]
    if "x" in low and "y" in low:
        rest = [i for i, h in enumerate(low) if h not in ("x", "y")]
        if len(rest) == 1 and low[rest[0]] in _LABEL_NAMES:
            return low.index("x"), low.index("y"), rest[0]
    return 0, 1, 2


def write_csv(points: PointSet, path: "str | os.PathLike") -> Path:
    """Write `x,y,label` with a header; labels ±1 for two classes, class indices otherwise (atomic)."""
    labels = points.signed_labels()
    lines = ["x,y,label"] + [f"{float(x)!r},{float(y)!r},{int(c)}" for (x, y), c in zip(points.X, labels)]
    text = "\n".join(lines) + "\n"
    return atomic_write_text(path, text)


def load_scene(path: "str | os.PathLike") -> Preset:
    """A preset file, or a CSV of points wrapped in a default preset titled after the file."""
    path = Path(path)
    if path.suffix.lower() == ".json":
        return load_preset(path)
    if path.suffix.lower() in (".csv", ".txt", ".tsv"):
        return Preset(read_csv(path), title=path.stem)
    head = read_text(path).lstrip()[:1]
    return load_preset(path) if head == "{" else Preset(read_csv(path), title=path.stem)


# ---------------------------------------------------------------------------------------------------
# Shipped scenes
# ---------------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class ShippedPreset:
    """One scene shipped with percviz: its short name and file."""

    name: str
    path: Path

    def load(self) -> Preset:
        return load_preset(self.path)


def shipped_presets() -> list[ShippedPreset]:
    """The shipped scenes, in teaching order (default first)."""
    files = {p.stem: p for p in SHIPPED_DIR.glob("*.json")}
    rank = {name: i for i, name in enumerate(SHIPPED_ORDER)}
    names = sorted(files, key=lambda s: (rank.get(s, len(rank)), s))
    return [ShippedPreset(s, files[s]) for s in names]


def default_preset() -> Preset:
    """The scene opened at start."""
    return load_preset(SHIPPED_DIR / "default.json")


__all__ = [
    "COLORMAPS",
    "FORMAT",
    "PANELS",
    "Preset",
    "PresetError",
    "ShippedPreset",
    "VERSION",
    "ViewSettings",
    "atomic_write_text",
    "default_preset",
    "load_preset",
    "load_scene",
    "preset_from_dict",
    "preset_to_json",
    "read_csv",
    "save_preset",
    "shipped_presets",
    "write_csv",
]
