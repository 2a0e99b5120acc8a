"""Preset files and CSV points: round trips, field-level errors for broken files, atomic saves."""

import dataclasses
import json
import os
import re

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from percviz.core import presets as pr
from percviz.core.data import PointSet
from percviz.core.errors import PresetError
from percviz.core.presets import (
    Preset,
    ViewSettings,
    default_preset,
    load_preset,
    load_scene,
    preset_to_json,
    read_csv,
    save_preset,
    shipped_presets,
    write_csv,
)
from percviz.core.solvers import SOLVERS, load_all


def _ranged_param():
    """(algorithm, parameter name, an out-of-range value) from whatever solvers are registered."""
    load_all()
    for name, cls in sorted(SOLVERS.items()):
        for s in cls.params.specs:
            if s.type is float and s.low is not None:
                return name, s.name, s.low - 1.0
    pytest.skip("no registered solver has a bounded float parameter")


def _scene() -> Preset:
    X = np.array([[0.1, 0.2], [1.0, 3.5], [-2.25, 1e-3], [3.0, -1.0]])
    return Preset(
        PointSet(X, [0, 0, 1, 1]),
        title="Four points",
        explanation="Look at the boundary.\nIt moves.",
        kernel="rbf:gamma=2",
        features="linear",
        algorithm="perceptron",
        max_iter=50,
        view=ViewSettings(panels=("canvas", "weight"), range=(-3, 4, -2, 5), colormap="viridis",
                          levels=(0.0,), shading=False, halos=True, curves=("margin",), log_y=True),
    )


def _doc() -> dict:
    return _scene().to_dict()


def _write(tmp_path, text, name="scene.json"):
    p = tmp_path / name
    p.write_text(text, encoding="utf-8")
    return p


def test_round_trip_keeps_every_field(tmp_path):
    scene = _scene()
    path = save_preset(scene, tmp_path / "s.json")
    back = load_preset(path)
    assert back == scene
    assert back.points.X.tobytes() == scene.points.X.tobytes()  # floats survive bit for bit
    assert back.view.range == (-3.0, 4.0, -2.0, 5.0) and back.view.log_y is True
    assert back.warnings == ()
    assert json.loads(path.read_text())["format"] == "percviz-preset"


def test_kernel_spec_is_canonical_and_params_typed(tmp_path):
    algo, pname, _ = _ranged_param()
    spec = next(s for s in SOLVERS[algo].params.specs if s.name == pname)
    doc = _doc() | {"kernel": "gaussian:gamma=2", "algorithm": algo, "params": {pname: int(spec.low) + 1}}
    p = load_preset(_write(tmp_path, json.dumps(doc)))
    assert p.kernel == "rbf:gamma=2"
    assert isinstance(p.params[pname], float)


def test_empty_scene_loads(tmp_path):
    doc = _doc() | {"points": [], "classes": []}
    assert load_preset(_write(tmp_path, json.dumps(doc))).points.n == 0


def test_missing_optional_fields_take_defaults(tmp_path):
    doc = {"format": "percviz-preset", "version": 1, "points": [[0, 0], [1, 1]], "classes": [0, 1]}
    p = load_preset(_write(tmp_path, json.dumps(doc)))
    got = (p.title, p.kernel, p.features, p.algorithm, p.max_iter)
    assert got == ("Untitled scene", "affine", "linear", "snkp", None)
    assert p.view == ViewSettings()


def _bad_cases():
    good = json.dumps(_doc(), indent=2)
    cases = {
        "truncated": (good[: len(good) // 2], None, "truncated"),
        "not json": ("this is not json", None, "not valid JSON"),
        "empty": ("", None, "empty"),
        "top-level list": ("[1, 2]", None, "JSON object"),
        "wrong format": (json.dumps(_doc() | {"format": "other"}), "format", "percviz-preset"),
        "no format": (json.dumps({k: v for k, v in _doc().items() if k != "format"}), "format", "missing"),
        "newer version": (json.dumps(_doc() | {"version": 2}), "version", "newer percviz"),
        "version text": (json.dumps(_doc() | {"version": "1"}), "version", "whole number"),
        "points not a list": (json.dumps(_doc() | {"points": {"x": 1}}), "points", "must be a list"),
        "point not a pair": (json.dumps(_doc() | {"points": [[0, 0], [1], [2, 2], [3, 3]]}), "points[1]", "pair"),
        "coordinate text": (json.dumps(_doc() | {"points": [[0, 0], ["1", 2], [2, 2], [3, 3]]}), "points[1][0]",
                            "must be a number"),
        "coordinate NaN": (json.dumps(_doc() | {"points": [[0, 0], [1, 2], [2, float("nan")], [3, 3]]}),
                           "points[2][1]", "finite"),
        "coordinate inf": (json.dumps(_doc() | {"points": [[float("inf"), 0], [1, 2], [2, 2], [3, 3]]}),
                           "points[0][0]", "finite"),
        "coordinate huge": (json.dumps(_doc() | {"points": [[0, 0], [1, 2], [2, 2], [3, 1e300]]}),
                            "points[3][1]", "too large"),
        "classes missing": (json.dumps({k: v for k, v in _doc().items() if k != "classes"}), "classes", "missing"),
        "classes length": (json.dumps(_doc() | {"classes": [0, 1]}), "classes", "one class per point"),
        "class fraction": (json.dumps(_doc() | {"classes": [0, 1.5, 1, 1]}), "classes[1]", "class index"),
        "class negative": (json.dumps(_doc() | {"classes": [0, -1, 1, 1]}), "classes[1]", "class index"),
        "title number": (json.dumps(_doc() | {"title": 12}), "title", "must be text"),
        "unknown algorithm": (json.dumps(_doc() | {"algorithm": "quantum"}), "algorithm", "Unknown algorithm"),
        "code as algorithm": (json.dumps(_doc() | {"algorithm": "__import__('os').system('touch PWNED')"}),
                              "algorithm", "Unknown algorithm"),
        "unknown kernel": (json.dumps(_doc() | {"kernel": "sigmoid"}), "kernel", "Unknown kernel"),
        "bad kernel parameter": (json.dumps(_doc() | {"kernel": "rbf:gamma=-1"}), "kernel", "gamma"),
        "unknown feature map": (json.dumps(_doc() | {"features": "cubic-spline"}), "features", "Unknown feature"),
        "kernel not text": (json.dumps(_doc() | {"kernel": ["rbf"]}), "kernel", "must be text"),
        "params not object": (json.dumps(_doc() | {"params": [1]}), "params", "object"),
        "unknown parameter": (json.dumps(_doc() | {"params": {"zeta": 1}}), "params.zeta", "not a parameter"),
        "max_iter negative": (json.dumps(_doc() | {"max_iter": -5}), "max_iter", "max_iter"),
        "max_iter text": (json.dumps(_doc() | {"max_iter": "many"}), "max_iter", "whole number"),
        "max_iter fraction": (json.dumps(_doc() | {"max_iter": 2.5}), "max_iter", "integer"),
        "view not object": (json.dumps(_doc() | {"view": "big"}), "view", "object"),
        "unknown panel": (json.dumps(_doc() | {"view": {"panels": ["canvas", "radar"]}}), "view.panels[1]", "one of"),
        "empty range": (json.dumps(_doc() | {"view": {"range": [1, 0, 0, 1]}}), "view.range", "xmin < xmax"),
        "level NaN": (json.dumps(_doc() | {"view": {"levels": [0, float("nan")]}}), "view.levels[1]", "finite"),
        "shading text": (json.dumps(_doc() | {"view": {"shading": "yes"}}), "view.shading", "true or false"),
    }
    return cases


@pytest.mark.parametrize("case", sorted(_bad_cases()))
def test_broken_file_names_file_and_field(tmp_path, case):
    text, fld, words = _bad_cases()[case]
    path = _write(tmp_path, text)
    with pytest.raises(PresetError) as info:
        load_preset(path)
    err = info.value
    assert err.field == fld
    msg = str(err)
    assert str(path) in msg and words in msg
    if fld:
        assert f"field '{fld}'" in msg
    assert "\n" not in msg
    assert not (tmp_path / "PWNED").exists()


def test_parameter_out_of_range_names_the_parameter(tmp_path):
    algo, pname, bad = _ranged_param()
    doc = _doc() | {"algorithm": algo, "params": {pname: bad}}
    with pytest.raises(PresetError) as info:
        load_preset(_write(tmp_path, json.dumps(doc)))
    assert info.value.field == f"params.{pname}"
    assert repr(bad) in str(info.value) or str(bad) in str(info.value)


def test_parameter_as_text_in_a_file_is_refused(tmp_path):
    algo, pname, _ = _ranged_param()
    doc = _doc() | {"algorithm": algo, "params": {pname: "1"}}
    with pytest.raises(PresetError, match="not text") as info:
        load_preset(_write(tmp_path, json.dumps(doc)))
    assert info.value.field == f"params.{pname}"


def test_not_utf8_and_folder_and_missing(tmp_path):
    p = tmp_path / "bin.json"
    p.write_bytes(b"\xff\xfe\x00{garbage")
    with pytest.raises(PresetError, match="not UTF-8"):
        load_preset(p)
    with pytest.raises(FileNotFoundError):
        load_preset(tmp_path / "missing.json")


def test_unknown_fields_load_with_warnings(tmp_path):
    doc = _doc() | {"author": "me", "view": _doc()["view"] | {"grid": True, "colormap": "rainbow"}}
    p = load_preset(_write(tmp_path, json.dumps(doc)))
    assert p == _scene().replace(view=dataclasses.replace(_scene().view, colormap="diverging"))
    text = " | ".join(p.warnings)
    assert "'author'" in text and "'view.grid'" in text and "rainbow" in text
    assert len(p.warnings) == 3


def test_multiclass_points_with_a_two_class_algorithm_warn(tmp_path):
    doc = _doc() | {"classes": [0, 1, 2, 2]}
    p = load_preset(_write(tmp_path, json.dumps(doc)))
    assert p.points.n_classes == 3
    assert any("3 classes" in w for w in p.warnings)


def test_save_is_atomic_when_serialization_fails(tmp_path):
    path = save_preset(_scene(), tmp_path / "s.json")
    before = path.read_bytes()
    broken = _scene().replace(params={"x": float("nan")})
    with pytest.raises(ValueError):
        save_preset(broken, path)
    assert path.read_bytes() == before
    assert sorted(os.listdir(tmp_path)) == ["s.json"]


def test_save_refuses_what_could_not_be_loaded_back(tmp_path):
    path = save_preset(_scene(), tmp_path / "s.json")
    before = path.read_bytes()
    far = _scene().replace(points=PointSet([[0.0, 0.0], [2e6, 1.0]], [0, 1]))
    with pytest.raises(PresetError) as info:
        save_preset(far, path)
    assert info.value.field == "points[1][0]" and str(path) in str(info.value)
    with pytest.raises(PresetError, match="Unknown algorithm"):
        save_preset(_scene().replace(algorithm="nope"), path)
    assert path.read_bytes() == before and sorted(os.listdir(tmp_path)) == ["s.json"]


def test_save_is_atomic_when_rename_fails(tmp_path, monkeypatch):
    path = save_preset(_scene(), tmp_path / "s.json")
    before = path.read_bytes()

    def boom(src, dst):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(pr.os, "replace", boom)
    with pytest.raises(OSError):
        save_preset(_scene().replace(title="new"), path)
    assert path.read_bytes() == before
    assert sorted(os.listdir(tmp_path)) == ["s.json"]


def test_save_into_missing_folder_raises_oserror(tmp_path):
    with pytest.raises(OSError):
        save_preset(_scene(), tmp_path / "nope" / "s.json")


def test_with_overrides_validates_and_drops_foreign_params():
    algo, pname, bad = _ranged_param()
    scene = _scene().replace(algorithm=algo, params={pname: 1.0})
    assert scene.with_overrides(algorithm="perceptron").params == {}
    assert scene.with_overrides(kernel="poly:degree=3").kernel == "poly:degree=3,c=1"
    typed = scene.with_overrides(params={pname: "2"})
    assert typed.params[pname] == 2.0
    with pytest.raises(PresetError) as info:
        scene.with_overrides(params={pname: str(bad)}, source="flags")
    assert info.value.path == "flags" and info.value.field == f"params.{pname}"


# --- CSV ---------------------------------------------------------------------------------------------

@pytest.mark.parametrize(
    "text, classes",
    [
        ("x,y,label\n0,0,1\n1,2,-1\n3,1,1\n", [0, 1, 0]),  # header, ±1
        ("0,0,1\n1,2,-1\n3,1,1\n", [0, 1, 0]),  # no header
        ("0,0,1\n1,2,0\n3,1,1\n", [0, 1, 0]),  # 1/0: 1 is '+'
        ("# a comment\n\n0,0,0\n1,2,1\n3,1,2\n", [0, 1, 2]),  # classes 0..2
        ("label,x,y\n1,0,0\n-1,1,2\n1,3,1\n", [0, 1, 0]),  # header in another order
        ("x;y;label\n0;0;1\n1;2;-1\n3;1;1\n", [0, 1, 0]),  # semicolons
        ("x,y,label\r\n0,0,+1\r\n1,2,-1\r\n3,1,1.0\r\n", [0, 1, 0]),  # CRLF, +1, 1.0
    ],
)
def test_read_csv_variants(tmp_path, text, classes):
    ps = read_csv(_write(tmp_path, text, "d.csv"))
    assert ps.classes.tolist() == classes
    assert ps.X.tolist() == [[0.0, 0.0], [1.0, 2.0], [3.0, 1.0]]


@pytest.mark.parametrize(
    "text, fld, words",
    [
        ("x,y,label\n0,0,1\n1,2\n", "line 3", "has 2 columns"),
        ("x,y,label\n0,0,1\n1,nan,-1\n", "line 3", "finite"),
        ("0,0,1\n1,abc,-1\n", "line 2", "not a number"),
        ("0,0,1\n1,1e300,-1\n", "line 2", "too large"),
        ("x,y,label\n", None, "no data rows"),
        ("", None, "no data rows"),
        ("0,0,1\n1,1,0.5\n", "label", "whole numbers"),
        ("0,0,-1\n1,1,2\n", "label", "mix negative"),
    ],
)
def test_read_csv_errors(tmp_path, text, fld, words):
    path = _write(tmp_path, text, "d.csv")
    with pytest.raises(PresetError) as info:
        read_csv(path)
    assert info.value.field == fld and words in str(info.value) and str(path) in str(info.value)


def test_csv_round_trip_two_and_three_classes(tmp_path):
    rng = np.random.default_rng(3)
    for c in (2, 3):
        ps = PointSet(rng.normal(size=(25, 2)) * 7, rng.integers(0, c, 25))
        back = read_csv(write_csv(ps, tmp_path / f"p{c}.csv"))
        assert back == ps
    assert (tmp_path / "p2.csv").read_text().splitlines()[0] == "x,y,label"


def test_load_scene_dispatches_on_content(tmp_path):
    assert load_scene(_write(tmp_path, "0,0,1\n1,1,-1\n", "d.csv")).title == "d"
    assert load_scene(_write(tmp_path, preset_to_json(_scene()), "scene.dat")) == _scene()
    assert load_scene(_write(tmp_path, "0,0,1\n1,1,-1\n", "pts.dat")).points.n == 2


# --- shipped scenes ----------------------------------------------------------------------------------

SHIPPED = shipped_presets()


def test_shipped_listing_and_default():
    names = [s.name for s in SHIPPED]
    assert names[0] == "default"
    assert set(pr.SHIPPED_ORDER) <= set(names), set(pr.SHIPPED_ORDER) - set(names)
    d = default_preset()
    assert d.algorithm == "snkp" and d.kernel == "affine" and d.points.n >= 8


@pytest.mark.parametrize("shipped", SHIPPED, ids=[s.name for s in SHIPPED])
def test_shipped_preset_round_trips_and_runs(tmp_path, shipped):
    p = shipped.load()
    assert p.warnings == ()
    assert p.title and 2 <= p.explanation.count(". ") + 1 <= 6
    assert shipped.path.read_text(encoding="utf-8") == preset_to_json(p)  # files are canonical
    again = load_preset(save_preset(p, tmp_path / "copy.json"))
    assert again == p
    solver = p.replace(max_iter=min(p.max_iter or 10**9, 300)).make_solver()
    snap = solver.run()
    assert snap.status.done and snap.iteration <= 300


def test_shipped_files_are_what_the_generator_builds():
    from percviz.core import shipped

    assert set(shipped.BUILDERS) == set(pr.SHIPPED_ORDER)
    assert shipped.main(["--check"]) == 0


@pytest.mark.parametrize("shipped", SHIPPED, ids=[s.name for s in SHIPPED])
def test_shipped_view_shows_every_point(shipped):
    p = shipped.load()
    if p.view.range is not None:
        x0, x1, y0, y1 = p.view.range
        X = p.points.X
        assert (X[:, 0] >= x0).all() and (X[:, 0] <= x1).all() and (X[:, 1] >= y0).all() and (X[:, 1] <= y1).all()
    assert set(p.view.panels) <= set(pr.PANELS) and "canvas" in p.view.panels


def _load(name):
    return load_preset(pr.SHIPPED_DIR / f"{name}.json")


def test_thin_margin_counts_are_true():
    """The explanation's numbers, recounted: many perceptron updates, few SNKP ones (notes: 7283 at gap 0.03)."""
    p = _load("thin-margin")
    counts = {}
    for algo in ("fixed-increment", "perceptron", "snkp"):
        snap = p.replace(algorithm=algo, params={}, max_iter=20000).make_solver().run()
        assert snap.status.value == "separator"
        counts[algo] = snap.iteration
    assert counts["fixed-increment"] == 7283
    for k in counts.values():
        assert re.search(rf"\b{k}\b", p.explanation), k
    assert counts["snkp"] * 10 < counts["perceptron"]


def test_nonseparable_scenes_end_in_proofs():
    xor = _load("xor-linear-certificate").make_solver().run()
    assert xor.status.value == "certificate"
    gauss = _load("overlapping-gaussians")
    assert gauss.make_solver().run().status.value == "certificate"
    hk = gauss.replace(algorithm="ho-kashyap", params={}).make_solver().run()
    assert hk.status.value == "nonseparable"
    assert f"after {hk.iteration} updates (the notes' step 94)" in gauss.explanation
    assert _load("xor-rbf").make_solver().run().status.value == "separator"


def test_normalization_example_is_the_papers():
    p = _load("normalization-example")
    X, y = p.points.X, p.points.y
    U = X / np.linalg.norm(X, axis=1, keepdims=True)
    assert np.allclose(U[y > 0], [0.6, 0.8], atol=1e-6) and np.allclose(U[y < 0], [0.8, 0.6], atol=1e-6)
    r = np.linalg.norm(X, axis=1)
    assert r.max() / r.min() == pytest.approx(25.0, rel=1e-5)  # radii between 1/r and r, r = 5
    classic = p.make_solver().run().iteration
    nkp = p.replace(algorithm="nkp").make_solver().run().iteration
    assert f"needs {classic} updates and NKP, which normalizes, {nkp}" in p.explanation and classic > 5 * nkp


_coord = st.floats(-1e6, 1e6, allow_nan=False, allow_infinity=False)


@settings(max_examples=40, deadline=None)
@given(
    pts=st.lists(st.tuples(_coord, _coord, st.integers(0, 4)), max_size=30),
    title=st.text(max_size=40),
    levels=st.lists(st.floats(-10, 10, allow_nan=False), max_size=5),
    panels=st.lists(st.sampled_from(pr.PANELS), unique=True, max_size=4),
    max_iter=st.one_of(st.none(), st.integers(0, 10**8)),
)
def test_any_scene_round_trips_exactly(tmp_path_factory, pts, title, levels, panels, max_iter):
    X = np.array([p[:2] for p in pts], float).reshape(-1, 2)
    scene = Preset(PointSet(X, [p[2] for p in pts]), title=title, max_iter=max_iter, algorithm="perceptron",
                   view=ViewSettings(panels=tuple(panels), levels=tuple(levels)))
    path = tmp_path_factory.mktemp("rt") / "s.json"
    back = load_preset(save_preset(scene, path))
    assert back == scene and back.points.X.tobytes() == scene.points.X.tobytes()
