"""Audit the claims the WINDOW shows (status box, caption, weight and feature views) against independent checks.

Each case is a preset written to disk and opened through File ▸ Open (FileActions.open_path), then Run to end is
clicked; every text the window shows is read back and each claim is checked on the points independently
(bench/audit_claims.py's exact LPs, fractions and 60-digit kernels). Also: nothing non-finite in any plot item,
no exception. Usage: QT_QPA_PLATFORM=offscreen python bench/audit_gui.py [--cases N] [--seed S] [--out F.jsonl]
"""

from __future__ import annotations

import argparse
import json
import os
import random
import sys
import tempfile
import time
import traceback

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
sys.path.insert(0, os.path.dirname(__file__))

import numpy as np  # noqa: E402

import audit_claims as ac  # noqa: E402

SCALES = (1e-12, 1e-6, 1e-3, 1.0, 1e3, 1e6)
KERNELS = ("linear", "affine", "poly:degree=2,c=1", "poly:degree=3,c=0", "rbf:gamma=0.5", "laplacian:gamma=0.5")
FEATURES = ("linear", "quadratic", "poly:degree=3", "rff:dim=20")
PANELS = ["canvas", "curves", "weight", "feature"]


def datasets(rng):
    sets = ac.datasets(rng)
    sets["n1"] = (np.array([[0.5, 0.25]]), np.array([1]))
    sets["n2"] = (np.array([[0.5, 0.25], [-0.25, 0.5]]), np.array([1, -1]))
    sets["n2-same"] = (np.array([[0.5, 0.25], [0.5, 0.25]]), np.array([1, -1]))
    return sets


def preset_body(X, labels, rep, spec, alg, params, max_iter):
    classes = ac.class_indices(labels.astype(float)) if len(set(labels.tolist())) > 1 else np.where(labels == 1, 0, 1)
    return {
        "format": "percviz-preset", "version": 1, "title": "audit", "explanation": "",
        "points": [[float(a), float(b)] for a, b in X], "classes": [int(c) for c in classes],
        "kernel": spec if rep == "kernel" else "rbf:gamma=1",
        "features": spec if rep != "kernel" else "linear",
        "algorithm": alg, "params": params, "max_iter": max_iter,
        "view": {"panels": PANELS},
    }


def window_texts(w) -> list[str]:
    """Every text the window shows: labels, plot titles, text items, the status bar."""
    import pyqtgraph as pg
    from PySide6.QtWidgets import QLabel

    skip = {id(w.controls.description)}  # the algorithm's description says what it would prove: no claim
    out = [lab.text() for lab in w.findChildren(QLabel) if lab.isVisibleTo(w) and lab.text() and id(lab) not in skip]
    out.append(w.statusBar().currentMessage())
    for name, panel in w.panels.items():
        if not panel.isVisibleTo(w):
            continue
        for plot in panel.findChildren(pg.PlotWidget) + panel.findChildren(pg.GraphicsLayoutWidget):
            for item in plot.scene().items():
                if isinstance(item, pg.TextItem) and item.isVisible():
                    out.append(f"[{name}] " + item.textItem.toPlainText())
                elif isinstance(item, pg.LabelItem) and item.isVisible() and item.text:
                    out.append(f"[{name}] " + item.text)
    return out


def non_finite_items(w) -> list[str]:
    """Plot items whose data hold NaN or inf (nothing non-finite may reach a view)."""
    import pyqtgraph as pg

    bad = []
    for name, panel in w.panels.items():
        for plot in panel.findChildren(pg.PlotWidget):
            for item in plot.getPlotItem().items:
                arrs = []
                if isinstance(item, (pg.PlotDataItem, pg.PlotCurveItem, pg.ScatterPlotItem)):
                    d = item.getData()
                    arrs = [a for a in d if a is not None]
                elif isinstance(item, pg.ImageItem) and item.image is not None:
                    arrs = [item.image]
                # NaN between the segments of a curve drawn with connect="finite" is pyqtgraph's break, not data
                breaks = isinstance(item, pg.PlotCurveItem) and item.opts.get("connect") == "finite"
                for a in arrs:
                    a = np.asarray(a)
                    if a.dtype.kind == "f" and a.size and not (np.isfinite(a) | (breaks & np.isnan(a))).all():
                        bad.append(f"{name}:{type(item).__name__}")
    return bad


def judge(case, texts, snap, solver_cls, params, X, labels):
    """(outcome, detail) for one run's shown claims."""
    joined = "\n".join(texts)
    rep = solver_cls.representation
    kind = "features" if rep in ("features", "multiclass") else "kernel"
    spec = case["spec"]
    y2 = labels.astype(int)
    truth = None

    def tr():
        nonlocal truth
        if truth is None:
            truth = (ac.multiclass_separable(X, labels, spec) if rep == "multiclass"
                     else ac.truly_separable(X, y2, kind, spec))
        return truth

    found = []
    d = {"status": snap.status.value, "representation": rep, "algorithm": solver_cls.name, "params": params,
         "weights": None if snap.weights is None else np.asarray(snap.weights).tolist(),
         "alpha": None if snap.alpha is None else np.asarray(snap.alpha).tolist(),
         "p": None if snap.p is None else np.asarray(snap.p).tolist(), "message": snap.message}
    if "separator found" in joined:
        if snap.status.value != "separator":
            found.append(("FINDING:separator-text-without-status", snap.status.value))
        else:
            o, det = ac.check_separator(case, d, X, labels if rep == "multiclass" else y2, kind, spec)
            if o.startswith("FINDING"):
                found.append((o, det))
    if "every point on its side" in joined:
        if tr() == "no":
            found.append(("FINDING:false-every-point-on-its-side", "independent LP: not separable"))
        else:
            f = np.asarray(ac_decision(snap, X))
            if f.ndim == 1 and not (y2 * f > 0).all():
                found.append(("FINDING:false-every-point-on-its-side", f"min y·f = {float((y2 * f).min()):.3g}"))
    if "proof of non-separability" in joined and tr() == "yes":
        found.append(("FINDING:false-proof", snap.message[:160]))
    if "certificate of non-separability" in joined and snap.status.value == "certificate":
        o, det = ac.check_certificate(d, X, y2, spec)
        if o.startswith("FINDING"):
            found.append((o, det))
    for phrase in ("no separator exists", "cone is empty"):
        if phrase in joined and tr() == "yes":
            line = next(t for t in texts if phrase in t)
            found.append((f"FINDING:false-{phrase.replace(' ', '-')}", line[:160]))
    # positive geometric claims: a least-norm point or a best vector a* exists only for separable points
    for phrase in ("nearest hull point", "a*: the largest"):
        if phrase in joined and tr() == "no":
            line = next(t for t in texts if phrase in t)
            found.append((f"FINDING:false-{phrase.split(':')[0].replace(' ', '-').replace('*', '')}", line[:160]))
    if "w = 0" in joined:
        f = np.asarray(ac_decision(snap, X))
        spread = float(f.max() - f.min()) if f.size else 0.0
        if spread > 1e-3:  # the SVM's f is scaled by its margin lines f = ±1: a spread of 0.001 is no constant
            found.append(("FINDING:false-w-zero", f"f spans {f.min():.4g}…{f.max():.4g} on the points"))
    return found


def ac_decision(snap, X):
    from percviz.core.solvers.base import decision_on_points

    return decision_on_points(snap.decision, X)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--cases", type=int, default=600)
    ap.add_argument("--seed", type=int, default=10)
    ap.add_argument("--max-iter", type=int, default=2000)
    ap.add_argument("--out", default="/tmp/audit_gui.jsonl")
    ap.add_argument("--only", default="", help="comma-separated algorithms")
    args = ap.parse_args(argv)

    tmp = tempfile.mkdtemp(prefix="audit_gui_")
    os.environ["PERCVIZ_CONFIG_DIR"] = os.path.join(tmp, "config")
    os.environ["PERCVIZ_DATA_DIR"] = os.path.join(tmp, "data")
    from PySide6.QtCore import Qt
    from PySide6.QtTest import QTest
    from PySide6.QtWidgets import QApplication

    from percviz.app import dialogs
    from percviz.app.main_window import MainWindow
    dialogs.answer_with(dialogs.Answers())  # a script: nobody to ask (unsaved changes discarded)
    from percviz.core.solvers import load_all

    app = QApplication.instance() or QApplication([])
    errors = []
    sys.excepthook = lambda *e: errors.append("".join(traceback.format_exception(*e))[-600:])
    w = MainWindow()
    w.resize(1400, 900)
    w.show()
    QTest.qWait(200)

    rng = np.random.default_rng(args.seed)
    pick = random.Random(args.seed)
    sets = datasets(rng)
    solvers = load_all()
    only = set(filter(None, args.only.split(",")))
    cases = []
    for name, cls in solvers.items():
        if only and name not in only:
            continue
        specs = {"features": FEATURES, "multiclass": ("linear", "quadratic"), "kernel": KERNELS}[cls.representation]
        for ds in sets:
            if (cls.representation == "multiclass") != (ds == "three-class") and ds != "separable":
                continue
            for spec in specs:
                for scale in SCALES:
                    cases.append({"alg": name, "ds": ds, "spec": spec, "scale": scale})
    pick.shuffle(cases)
    cases = cases[: args.cases]
    counts: dict[str, int] = {}
    t0 = time.time()
    with open(args.out, "w") as out:
        for i, c in enumerate(cases):
            cls = solvers[c["alg"]]
            X0, lab = sets[c["ds"]]
            X = X0 / max(float(np.abs(X0).max()), 1e-300) * c["scale"]
            if cls.representation == "multiclass" and c["ds"] == "separable":
                lab = np.where(lab == 1, 0, 1)
            path = os.path.join(tmp, f"case{i}.json")
            with open(path, "w") as fh:
                json.dump(preset_body(X, lab, cls.representation, c["spec"], c["alg"], {}, args.max_iter), fh)
            n_err = len(errors)
            res = {"case": c, "found": []}
            try:
                opened = w.classroom.files.open_path(path, confirm=False)
                w.session.wait_idle(30)
                status0 = w.controls.status.text()
                if opened and w.session.solver_cls is not None and w.session.current is not None:
                    QTest.mouseClick(w.controls.run_button, Qt.MouseButton.LeftButton)
                    w.session.wait_idle(60, check=False)  # an audit records what it sees, stuck or not
                    QTest.qWait(30)
                    w.session.wait_idle(30, check=False)
                fv = w.panels.get("feature")
                for _ in range(60):
                    if fv is None or not fv.computing:
                        break
                    w.session.wait_idle(2, check=False)  # polled: the loop checks the feature view
                snap = w.session.current
                texts = window_texts(w)
                res["status"] = w.controls.status.text()[:300]
                if not opened or snap is None:
                    res["outcome"] = "refused"
                    res["detail"] = (status0 or w.statusBar().currentMessage())[:200]
                else:
                    params = {s.name: s.default for s in cls.params.specs} | dict(w.scene.settings.params)
                    labels = lab if cls.representation == "multiclass" else np.where(lab == 1, 1, -1)
                    res["found"] = judge(c, texts, snap, w.session.solver_cls, params, X, labels)
                    res["outcome"] = snap.status.value
                bad = non_finite_items(w)
                if bad:
                    res["found"].append(("FINDING:non-finite-item", ",".join(sorted(set(bad)))))
            except Exception:  # noqa: BLE001
                res["found"].append(("FINDING:harness-exception", traceback.format_exc()[-500:]))
            if len(errors) > n_err:
                res["found"].append(("FINDING:exception", errors[-1]))
            key = res["found"][0][0] if res["found"] else res.get("outcome", "?")
            counts[key] = counts.get(key, 0) + 1
            out.write(json.dumps(res, default=str) + "\n")
            out.flush()
            if res["found"]:
                print(i, c, res["found"], flush=True)
            if i % 50 == 0:
                print(f"{i}/{len(cases)} {time.time() - t0:.0f}s {counts}", flush=True)
    print(f"done {len(cases)} cases in {time.time() - t0:.0f}s: {counts}")
    w.session.shutdown()
    w.close()
    return 1 if any(k.startswith("FINDING") for k in counts) else 0


if __name__ == "__main__":
    sys.exit(main())
