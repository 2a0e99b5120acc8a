"""Open hostile and edge-case files through the window's File ▸ Open path; report what the user sees.

For each file: the message shown (must be one clear line), whether the scene the user had is intact, whether
the window still runs (a step after), exceptions, and the time taken. Usage:
QT_QPA_PLATFORM=offscreen python bench/audit_gui_presets.py
"""

from __future__ import annotations

import json
import os
import sys
import tempfile
import time
import traceback

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")


def hostile_files(d: str) -> dict[str, str]:
    base = json.load(open(os.path.join(os.path.dirname(__file__), "..", "percviz", "presets", "xor-rbf.json")))
    out = {}

    def put(name, text, mode="w"):
        p = os.path.join(d, name)
        with open(p, mode) as fh:
            fh.write(text)
        out[name] = p

    def variant(name, **changes):
        body = dict(base)
        for k, v in changes.items():
            if v is KeyError:
                body.pop(k, None)
            else:
                body[k] = v
        put(name, json.dumps(body))

    put("huge-number.json", json.dumps(base).replace("1.6", "1e308", 1))
    put("huge-1e400.json", json.dumps(base).replace("1.6", "1e400", 1))
    put("digits-400.json", json.dumps(base).replace("1.6", "1" + "0" * 400, 1))
    put("nan-literal.json", json.dumps(base).replace("1.6", "NaN", 1))
    put("inf-literal.json", json.dumps(base).replace("1.6", "Infinity", 1))
    variant("nan-string.json", points=[["nan", 1]] + base["points"][1:])
    variant("inf-string.json", points=[["inf", 1]] + base["points"][1:])
    variant("points-string.json", points="many")
    variant("points-dict.json", points={"a": 1})
    variant("classes-float.json", classes=[0.5] * len(base["classes"]))
    variant("classes-short.json", classes=base["classes"][:3])
    variant("classes-bool.json", classes=[True] * len(base["classes"]))
    variant("kernel-number.json", kernel=3)
    variant("kernel-bad.json", kernel="rbf:gamma=-1")
    variant("kernel-gamma-inf.json", kernel="rbf:gamma=inf")
    variant("algorithm-unknown.json", algorithm="magic")
    variant("algorithm-list.json", algorithm=["nkp"])
    variant("params-list.json", params=[1, 2])
    variant("params-nan.json", params={"eps": "nan"})
    variant("params-unknown.json", params={"zzz": 1})
    variant("max-iter-neg.json", max_iter=-5)
    variant("max-iter-float.json", max_iter=2.5)
    variant("max-iter-huge.json", max_iter=10**30)
    variant("view-string.json", view="big")
    variant("view-range-nan.json", view={"range": ["nan", 1, 0, 1]})
    variant("view-range-inverted.json", view={"range": [1, -1, 1, -1]})
    variant("view-range-zero.json", view={"range": [0, 0, 0, 0]})
    variant("view-range-huge.json", view={"range": [-1e308, 1e308, -1e308, 1e308]})
    variant("view-levels-huge.json", view={"levels": [1e308, -1e308]})
    variant("no-points.json", points=KeyError, classes=KeyError)
    variant("no-format.json", format=KeyError)
    variant("no-version.json", version=KeyError)
    variant("version-99.json", version=99)
    variant("title-huge.json", title="T" * 200000)
    variant("title-number.json", title=5)
    variant("race-bad.json", race=[{"algorithm": "magic"}])
    variant("empty-points.json", points=[], classes=[])
    variant("point-3d.json", points=[[1, 2, 3]] + base["points"][1:])
    variant("coord-1e7.json", points=[[1e7, 1]] + base["points"][1:])
    put("deep-nesting.json", "[" * 100000 + "]" * 100000)
    put("deep-nesting-obj.json", '{"a":' * 50000 + "1" + "}" * 50000)
    put("not-json.json", "this is not json")
    put("empty.json", "")
    put("bom.json", "\ufeff" + json.dumps(base))
    put("non-utf8.json", b"\xff\xfe\x00garbage\x80\x81", mode="wb")
    put("latin1-title.json", json.dumps(base).replace("XOR", "XOR \\u00e9").encode("latin-1"), mode="wb")
    put("array.json", "[1, 2, 3]")
    put("null.json", "null")
    put("bad.csv", "x,y,label\n1,2,3,4\nfoo,bar,baz\n")
    put("csv-nan.csv", "x,y,label\n1,nan,1\n2,1,-1\n")
    n = 10**6
    import numpy as np

    rng = np.random.default_rng(0)
    X = rng.normal(size=(n, 2)).round(4)
    body = dict(base, points=X.tolist(), classes=(X[:, 0] > 0).astype(int).tolist(), algorithm="perceptron",
                kernel="linear")
    put("million.json", json.dumps(body))
    os.mkdir(os.path.join(d, "a-directory.json"))
    out["a-directory.json"] = os.path.join(d, "a-directory.json")
    fifo = os.path.join(d, "fifo.json")
    os.mkfifo(fifo)
    out["fifo.json"] = fifo
    loop = os.path.join(d, "loop.json")
    os.symlink(loop, loop)
    out["loop.json"] = loop
    out["missing.json"] = os.path.join(d, "missing.json")
    out["dev-zero"] = "/dev/zero"
    return out


def main() -> int:
    tmp = tempfile.mkdtemp(prefix="audit_presets_")
    os.environ["PERCVIZ_CONFIG_DIR"] = os.path.join(tmp, "config")
    os.environ["PERCVIZ_DATA_DIR"] = os.path.join(tmp, "data")
    from PySide6.QtTest import QTest
    from PySide6.QtWidgets import QApplication, QMessageBox

    from percviz.app import dialogs
    from percviz.app.main_window import MainWindow
    dialogs.answer_with(dialogs.Answers())  # a script: nobody to ask (unsaved changes discarded)
    from percviz.core.presets import SHIPPED_DIR

    app = QApplication.instance() or QApplication([])
    errors = []
    sys.excepthook = lambda *e: errors.append("".join(traceback.format_exception(*e))[-800:])
    w = MainWindow()
    w.resize(1280, 800)
    w.show()
    QTest.qWait(100)
    files = hostile_files(tmp)
    findings = 0
    for name, path in files.items():
        assert w.classroom.files.open_path(SHIPPED_DIR / "thin-margin.json", confirm=False)
        w.session.wait_idle(20)
        w.scene.add_point(0.123, 0.456, 0)  # something the user made
        w.session.wait_idle(20)
        before = w.scene.points.X.copy()
        n_err = len(errors)
        t0 = time.monotonic()
        ok = w.classroom.files.open_path(path, confirm=False)
        deadline = time.monotonic() + 60
        while w.classroom.files.opening is not None and time.monotonic() < deadline:
            QTest.qWait(50)
        w.session.wait_idle(30)
        dt = time.monotonic() - t0
        boxes = [b for b in w.findChildren(QMessageBox) if b.isVisible()]
        msgs = [b.text() + (" | " + b.informativeText() if b.informativeText() else "") for b in boxes]
        for b in boxes:
            b.close()
            b.deleteLater()
        QTest.qWait(10)
        changed = w.scene.points.n != len(before) or not (w.scene.points.X == before).all()
        # still usable: one step runs
        w.session.step()
        w.session.wait_idle(20)
        usable = w.session.current is not None or w.session.error
        problems = []
        if len(errors) > n_err:
            problems.append("exception: " + errors[-1].strip().splitlines()[-1])
        if dt > 20:
            problems.append(f"slow {dt:.0f}s")
        if msgs and (len(msgs) > 1 or any(len(m.splitlines()) > 3 for m in msgs)):
            problems.append("message not one line")
        if (not ok or msgs) and changed:
            problems.append("user's scene lost on a refused file")
        if not ok and not msgs:
            problems.append("refused without a message")
        if not usable:
            problems.append("window not usable")
        findings += bool(problems)
        shown = (msgs[0] if msgs else w.statusBar().currentMessage()).replace("\n", " ⏎ ")[:230]
        print(f"{'FINDING' if problems else 'ok':7s} {name:26s} opened={ok!s:5s} {dt:5.1f}s  {shown}  {problems}",
              flush=True)
    w.session.shutdown()
    w.close()
    print(f"{len(files)} files, {findings} with problems")
    return 1 if findings else 0


if __name__ == "__main__":
    sys.exit(main())
