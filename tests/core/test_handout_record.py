"""The handout's recorded run: the solver's own snapshots, thinned as promised, drawn numbers that agree with the data."""

import base64
import json
import re
import subprocess
import sys

import numpy as np
import pytest

from percviz.core.data import PointSet
from percviz.core.errors import ParameterError
from percviz.core import handout
from percviz.core.handout import LINE_BREAK, LINE_UNITS, record_run, thin_indices
from percviz.core.presets import SHIPPED_DIR, Preset
from percviz.handout import embed_json, handout_html, record


def test_thinning_keeps_first_last_and_every_status_change():
    statuses = ["running"] * 10 + ["max_iter"]
    assert thin_indices(statuses, 20) == list(range(11))  # fits: all
    assert thin_indices(statuses, 4) == [0, 3, 7, 10]  # 0, the last (its status changed), two evenly between
    s = ["a"] * 3 + ["b"] * 3 + ["a"] * 4  # changes at 3 and 6
    kept = thin_indices(s, 5)
    assert {0, 3, 6, 9} <= set(kept) and len(kept) == 5
    assert thin_indices(["a", "b", "a", "b", "a"], 2) == [0, 1, 2, 3, 4]  # changes are kept beyond the budget
    with pytest.raises(ParameterError):
        thin_indices(s, 1)


def _ring(n=100, seed=0, flip=0.0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 2))
    y = np.where((X ** 2).sum(axis=1) > 1.2, 1, -1)
    y[rng.random(n) < flip] *= -1
    return X, y


def _preset(X, y, algorithm="snkp", kernel="rbf:gamma=2", **kw):
    return Preset(PointSet.from_signed(X, y), title="ring").with_overrides(algorithm=algorithm, kernel=kernel, **kw)


def test_the_recorded_snapshots_are_the_solvers_own():
    X, y = _ring(flip=0.08)
    preset = _preset(X, y)
    solver = preset.make_solver()
    reference = {}
    for snap in solver.snapshots():  # the solver itself, stepped here
        reference[snap.iteration] = (snap.status.value, snap.metrics.get("margin"))
        if snap.status.done or snap.iteration >= 400:
            break
    pay = record_run(preset, steps=400, budget=50)
    frames = pay["frames"]
    assert len(frames) <= 50 + 2 and frames[0]["iteration"] == 0 and frames[-1]["iteration"] == max(reference)
    assert pay["thinned"] and pay["iterations_run"] == max(reference)
    for f in frames:
        status, margin = reference[f["iteration"]]
        assert f["status"] == status
        assert f["caption"][0].startswith(f"iteration {f['iteration']}  ·  normalized margin m(α) = ")
    iters = [f["iteration"] for f in frames]
    gaps = np.diff(iters)
    assert gaps.max() <= 2 * gaps.min() + 2  # evenly spaced
    curves = pay["curves"]
    margin = next(s for s in curves["series"] if s["key"] == "margin")
    assert margin["label"] == "normalized margin m(α)"
    assert curves["iterations"] == list(range(max(reference) + 1))
    for it, v in zip(curves["iterations"], margin["values"]):
        ref = reference[it][1]
        assert (v is None) == (ref is None) and (ref is None or abs(v - ref) <= 1e-5 * max(1.0, abs(ref)))


def _bytes(s):
    return np.frombuffer(base64.b64decode(s), dtype=np.uint8)


def _lines(s):
    a = np.frombuffer(base64.b64decode(s), dtype="<i2").reshape(-1, 2)
    return a[a[:, 0] != LINE_BREAK] / LINE_UNITS


def test_a_separating_run_draws_each_point_on_its_colour_and_the_boundary_between():
    X, y = _ring(seed=3)
    pay = record_run(_preset(X, y))
    last = pay["frames"][-1]
    assert last["status"] == "separator" and last["outcome"] == "separator found"
    nx, ny = pay["grid"]
    img = _bytes(last["image"]).reshape(ny, nx)
    x0, x1, y0, y1 = pay["view"]
    col = np.clip(((X[:, 0] - x0) / (x1 - x0) * nx).astype(int), 0, nx - 1)
    row = np.clip(((X[:, 1] - y0) / (y1 - y0) * ny).astype(int), 0, ny - 1)
    B = _lines(last["boundary"]) * [x1 - x0, y1 - y0] + [x0, y0]
    assert len(B) > 20
    # the boundary is a curve f = 0: every point farther than two cells from it lies on its own colour
    far = np.min(np.hypot(X[:, None, 0] - B[None, :, 0], X[:, None, 1] - B[None, :, 1]), axis=1) > 2.5 * (x1 - x0) / nx
    assert far.sum() > 50
    side = img[row, col].astype(int) - 128
    assert np.all(np.sign(side[far]) == np.where(y[far] > 0, 1, -1))
    assert last["margins"]  # a separator: its margin lines are drawn
    assert len(last["halos"]) % 2 == 0 and max(last["halos"][1::2]) == pay["halo_steps"]


def test_an_svm_keeps_its_margin_lines_at_f_plus_minus_one_and_a_linear_one_draws_the_exact_line():
    rng = np.random.default_rng(4)
    y = np.where(np.arange(60) % 2 == 0, 1, -1)
    X = rng.normal(scale=0.6, size=(60, 2)) + np.where(y > 0, 1.5, -1.5)[:, None] * [1, 0.5]
    pay = record_run(_preset(X, y, algorithm="svm", kernel="linear", params={"C": 1.0}))
    last = pay["frames"][-1]
    assert pay["margin"]["symbol"] == "γ(w)"
    B = _lines(last["boundary"])
    assert len(B) == 2  # a straight line: its two ends
    from sklearn.svm import SVC

    svc = SVC(kernel="linear", C=1.0, tol=1e-8).fit(X, y)
    x0, x1, y0, y1 = pay["view"]
    P = B * [x1 - x0, y1 - y0] + [x0, y0]
    assert np.allclose(svc.decision_function(P), 0.0, atol=0.02 * np.abs(svc.decision_function(X)).max())
    M = _lines(last["margins"]) * [x1 - x0, y1 - y0] + [x0, y0]
    assert len(M) == 4 and np.allclose(np.sort(svc.decision_function(M)), [-1, -1, 1, 1], atol=0.05)


def test_a_2000_snapshot_run_is_thinned_to_the_budget_and_an_unending_run_says_what_to_do(monkeypatch):
    X, y = _ring(flip=0.3, seed=5)
    preset = _preset(X, y, kernel="linear", algorithm="perceptron")
    pay = record_run(preset, steps=1999, budget=120)
    assert 100 <= len(pay["frames"]) <= 125 and pay["frames"][-1]["iteration"] == 1999
    monkeypatch.setattr(handout, "MAX_ITERATIONS", 50)
    with pytest.raises(ParameterError, match="not ended after 50 updates; record fewer"):
        record_run(preset.replace(max_iter=10**6), budget=10)


def test_the_payload_cannot_end_its_script_element():
    text = embed_json({"title": "</script><!-- <script>alert(1)</script> & ]]>"})
    assert "<" not in text and ">" not in text and "&" not in text
    assert json.loads(text)["title"] == "</script><!-- <script>alert(1)</script> & ]]>"


def test_the_page_fetches_nothing_and_keeps_the_title_as_data():
    X, y = _ring(seed=6)
    run = record(X, y, kernel="rbf:gamma=2", title="<img src=x onerror=alert(1)>", steps=5)
    page = run.to_html()
    assert not re.search(r"""(src|href|action)\s*=\s*["']?\s*(https?:)?//""", page, re.I)
    assert "http://" not in page and "https://" not in page
    assert "<img" not in page  # the title is in the JSON, escaped
    assert "default-src 'none'" in page and "innerHTML" not in page
    assert page.count("</script>") == 2
    frame = run._repr_html_()
    assert frame.startswith("<iframe") and 'sandbox="allow-scripts"' in frame and "<script" not in frame


@pytest.mark.slow
def test_shipped_scenes_record_without_qt(tmp_path):
    code = f"""
import sys
from percviz.core.presets import load_scene
from percviz.handout import write_handout
for name in ("xor-rbf", "three-class-linear-machine", "xor-linear-certificate", "input-space-margin"):
    write_handout(load_scene({str(SHIPPED_DIR)!r} + "/" + name + ".json"), {str(tmp_path)!r} + "/" + name + ".html")
bad = sorted(m for m in sys.modules if m.split('.')[0] in ('PySide6', 'shiboken6', 'pyqtgraph'))
assert not bad, bad
print("clean")
"""
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert out.returncode == 0 and out.stdout.strip() == "clean", out.stderr
    assert (tmp_path / "xor-linear-certificate.html").stat().st_size > 10_000


@pytest.mark.slow
def test_size_of_a_200_snapshot_rbf_run_at_n_100():
    X, y = _ring(flip=0.5, seed=7)
    pay = record_run(_preset(X, y), steps=199)
    assert len(pay["frames"]) == 200
    size = len(handout_html(pay).encode())
    assert size <= 3_000_000, size


def test_a_diverged_run_is_recorded_without_a_picture_or_a_claim():
    from percviz.core import datasets as ds

    preset = Preset(ds.separable(), title="lms").with_overrides(
        algorithm="lms", kernel="affine", features="linear", params={"eta": 1e90, "schedule": "constant"})
    pay = record_run(preset)
    last = pay["frames"][-1]
    assert last["status"] == "diverged" and last["outcome"] == "diverged" and "iverged" in last["message"]
    assert not last["drawn"] and last["boundary"] == "" and last["margins"] == ""
    assert not any("margin" in line for line in last["caption"])  # a diverged run claims no margin
    json.dumps(pay, allow_nan=False)  # nothing non-finite
