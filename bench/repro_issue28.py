"""Run issue 28's CLI reproducers as a user would (subprocess, time limit, peak RSS) and print one row each."""

from __future__ import annotations

import argparse
import json
import os
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np


def build(d: Path) -> None:
    """The data sets the issue describes."""
    rng = np.random.default_rng(0)
    X = rng.normal(size=(6, 20000))
    np.save(d / "wide.npy", np.column_stack([X, [1, -1, 1, -1, 1, -1]]))
    X5 = rng.normal(size=(40, 5))
    np.save(d / "d5.npy", np.column_stack([X5, np.where(X5[:, 0] > 0, 1, -1)]))
    X1 = rng.normal(size=(40, 1))
    np.save(d / "d1.npy", np.column_stack([X1, np.where(X1[:, 0] > 0, 1, -1)]))
    (d / "bad.npz").write_bytes(b"PK\x03\x04 this is no zip archive")
    (d / "xor4.csv").write_text("x,y,label\n0,0,1\n1,1,1\n0,1,-1\n1,0,-1\n")
    Xw = rng.normal(size=(8, 200))
    np.save(d / "wide8.npy", np.column_stack([Xw, np.where(Xw[:, 0] > 0, 1, -1)]))
    X12 = rng.normal(size=(12, 2))
    with open(d / "p12.csv", "w") as f:
        f.write("x,y,label\n" + "".join(f"{a},{b},{1 if a + b > 0 else -1}\n" for a, b in X12))
    # 30 points separable by a conic, one duplicated under the other label
    Xs = rng.uniform(-1, 1, size=(30, 2))
    ys = np.where(Xs[:, 0] ** 2 + Xs[:, 1] ** 2 < 0.5, 1, -1)
    Xs, ys = np.vstack([Xs, Xs[:1]]), np.append(ys, -ys[0])
    for s in (1e-12, 1e-6, 1e6):
        with open(d / f"dup_{s:g}.csv", "w") as f:
            f.write("x,y,label\n" + "".join(f"{float(a)!r},{float(b)!r},{int(c)}\n" for (a, b), c in zip(Xs * s, ys)))
    with open(d / "collinear.csv", "w") as f:
        f.write("x,y,label\n" + "".join(f"{i},{2 * i},{1 if i % 2 else -1}\n" for i in range(10)))
    for name, target in (("loop_a.csv", "loop_b.csv"), ("loop_b.csv", "loop_a.csv")):
        if not (d / name).is_symlink():
            os.symlink(d / target, d / name)
    (d / "xy.csv").write_text("x,y\n0,1\n1,2\n2,3\n3,4\n4,5\n")


CASES = [
    ("wide input-space SVM", "solve {d}/wide.npy -a input-space-svm --json"),
    ("R^5 quadratic", "solve {d}/d5.npy -a perceptron -f quadratic --json"),
    ("R^5 poly12", "solve {d}/d5.npy -a perceptron -f poly:degree=12 --json"),
    ("R^1 input-space SVM", "solve {d}/d1.npy -a input-space-svm --json"),
    ("sweep seed -1", "sweep --seed -1 --json"),
    ("sweep n nan", "sweep --over n --n nan --json"),
    ("sweep n inf", "sweep --over n --n inf --json"),
    ("cover n nan", "cover --n nan --json"),
    ("cover n 1e20", "cover --n 99999999999999999999 --json"),
    ("cover seed -1", "cover --seed -1 --json"),
    ("cover n 1e9", "cover --n 1e9 --json"),
    ("cover trials 1e9", "cover --trials 1000000000 --json"),
    ("cover rff5000", "cover --features rff:dim=5000 --json"),
    ("npz solve", "solve {d}/bad.npz -a perceptron --json"),
    ("npz margin", "margin {d}/bad.npz --json"),
    ("npz margin input", "margin {d}/bad.npz --input --json"),
    ("npz export", "export {d}/bad.npz --out {d}/o.gif"),
    ("npz screenshot", "{d}/bad.npz --screenshot {d}/o.png"),
    ("dup 1e-12", "margin {d}/dup_1e-12.csv -k poly:degree=2 --json"),
    ("dup 1e-6", "margin {d}/dup_1e-06.csv -k poly:degree=2 --json"),
    ("dup 1e6", "margin {d}/dup_1e+06.csv -k poly:degree=2 --json"),
    ("sweep levels 1e-12", "sweep -a snkp --levels 1e-12 --json"),
    ("sweep margin 1e-300", "sweep --over n --n 10,100 --margin 1e-300 --json"),
    ("collinear", "margin {d}/collinear.csv --json"),
    ("cover rff50", "cover --features rff:dim=50 --json"),
    ("cover poly12", "cover --features poly:degree=12 --json"),
    ("xor perceptron 1e8", "solve {d}/xor4.csv -a perceptron --max-iter 100000000 --json"),
    ("xor nkp 1e8", "solve {d}/xor4.csv -a nkp --max-iter 100000000 --json"),
    ("gd rff5000", "solve {d}/p12.csv -a gradient-descent --features rff:dim=5000 --json"),
    ("symlink loop", "solve {d}/loop_a.csv -a perceptron"),
    ("empty DATA", "solve '' -a perceptron"),
    ("/proc/self/mem", "solve /proc/self/mem -a perceptron"),
    ("x,y CSV", "solve {d}/xy.csv -a perceptron"),
    ("normalized-perceptron poly3 wide", "solve {d}/wide8.npy -a normalized-perceptron -f poly:degree=3 --json"),
]


def summary(out: str) -> str:
    """The claims of a JSON answer that the table needs."""
    try:
        doc = json.loads(out.strip().splitlines()[-1])
    except (ValueError, IndexError):
        return out.strip()[:120]
    keys = ("status", "verdict", "rho_K", "exact", "interval", "rho_interval", "margin", "iterations", "note")
    part = {k: doc[k] for k in keys if k in doc}
    if "runs" in doc:
        part["runs"] = [{k: r.get(k) for k in ("algorithm", "level", "n", "rho_K", "rho_exact", "partial")}
                        for r in doc["runs"][:4]]
    if "rows" in doc:
        part["rows"] = len(doc["rows"])
    return json.dumps(part)[:400]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--timeout", type=float, default=120)
    ap.add_argument("--only", default="")
    a = ap.parse_args()
    d = Path(tempfile.mkdtemp(prefix="repro28-"))
    build(d)
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen")
    import shlex
    for name, cmd in CASES:
        if a.only and a.only not in name:
            continue
        argv = ["/usr/bin/time", "-f", "RSS %M", sys.executable, "-m", "percviz", *shlex.split(cmd.format(d=d))]
        t0 = time.time()
        p = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env,
                             start_new_session=True)
        try:
            out, err = p.communicate(timeout=a.timeout)
            code = p.returncode
        except subprocess.TimeoutExpired:
            os.killpg(p.pid, signal.SIGKILL)  # the command and /usr/bin/time: nothing left running
            out, err = p.communicate()
            code = "timeout"
        dt = time.time() - t0
        lines = [ln for ln in err.splitlines() if ln.strip()]
        rss = next((ln for ln in lines if ln.startswith("RSS ")), "RSS ?")
        msg = [ln for ln in lines if not ln.startswith(("RSS ", "Command exited", "Command terminated"))]
        print(json.dumps({"case": name, "status": code, "s": round(dt, 1), "rss_mb": round(int(rss[4:]) / 1024)
                          if rss[4:].isdigit() else None, "stderr": msg[-3:], "n_stderr": len(msg),
                          "out": summary(out)}), flush=True)


if __name__ == "__main__":
    main()
