"""Generated-case audit of the CLI's claims (issue 10): every separator, proof and ε-certificate checked independently.

Each case runs `percviz solve … --json` (or `percviz margin … --json`) in a forked child with a timeout, then checks:
no traceback or "internal error", one line on refusal, finite JSON, and the claim itself, recomputed here without the
project's code — exactly (fractions) for explicit polynomial maps, in 60-digit decimals for kernel expansions, and by an
independent scipy HiGHS LP (rows and columns rescaled, the LP's vector then verified exactly) for separability.

    python bench/audit_claims.py --cases 3000 --timeout 60 --out /tmp/audit.jsonl
"""

from __future__ import annotations

import argparse
import contextlib
import io
import itertools
import json
import math
import os
import random
import resource
import select
import signal
import sys
import tempfile
import time
from decimal import Decimal, getcontext, localcontext
from fractions import Fraction

os.environ.setdefault("OMP_NUM_THREADS", "1")  # before numpy loads BLAS: threaded BLAS on a loaded machine
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")  # turns each 20,000-long dot into milliseconds

import numpy as np  # noqa: E402
from scipy.optimize import linprog  # noqa: E402

from percviz.core.exact_linalg import null_space, rref  # noqa: E402
getcontext().prec = 60

SCALES = (1e-300, 1e-150, 1e-30, 1e-12, 1e-6, 1e-3, 1.0, 1e3, 1e5, 1e12, 1e300)
KERNELS = ("linear", "affine", "poly:degree=2,c=1", "poly:degree=3,c=0", "rbf:gamma=0.5", "rbf:gamma=1e6",
           "laplacian:gamma=0.5")
FEATURES = ("linear", "linear1d", "quadratic", "poly:degree=3", "rff:dim=20")
MULTI_FEATURES = ("linear", "quadratic")
PAPER_KERNEL = {"nkp", "snkp", "nvn", "snkpvn", "isnkpvn", "kernel-perceptron"}


# ---------------------------------------------------------------- data sets (unit scale; the case scales them)
def datasets(rng: np.random.Generator) -> dict[str, tuple[np.ndarray, np.ndarray]]:
    """name → (X, labels) with labels ±1 (two classes) or 0..2 (three)."""
    out = {}
    X = rng.normal(size=(14, 2)) * 2 + rng.normal(size=2)
    w = rng.normal(size=3)
    y = np.where(w[0] + X @ w[1:] > 0, 1, -1)
    y[:2] = (1, -1)
    out["separable"] = (X, y)
    A = rng.normal(size=(10, 2))
    B = rng.normal(size=(10, 2)) + 0.3
    out["overlap"] = (np.vstack([A, B]), np.r_[np.ones(10), -np.ones(10)])
    out["xor"] = (np.array([[1, 1], [-1, -1], [1, -1], [-1, 1], [2, 2.1], [-2, 1.9]]), np.array([1, 1, -1, -1, 1, -1]))
    Xd = rng.normal(size=(9, 2))
    yd = np.where(Xd[:, 0] > 0, 1, -1)
    out["dup-both-labels"] = (np.vstack([Xd, Xd[:1]]), np.r_[yd, -yd[0]])
    out["one-class"] = (rng.normal(size=(6, 2)), np.ones(6))
    t = rng.uniform(-2, 2, size=10)
    out["collinear-sep"] = (np.c_[t, 0.5 * t + 1], np.where(t > 0.1, 1, -1))
    out["collinear-alt"] = (np.c_[t, 2 * t], np.where(np.argsort(np.argsort(t)) % 2 == 0, 1, -1))
    out["identical"] = (np.ones((5, 2)), np.array([1, 1, 1, -1, -1]))
    out["thin"] = (np.array([[0, 1e-9], [0, -1e-9], [1, 1e-9], [1, -1e-9], [-1, 1e-9]]) + [0, 1],
                   np.array([1, -1, 1, -1, 1]))
    C = np.vstack([rng.normal(size=(6, 2)) + c for c in ([0, 3], [3, -1], [-3, -1])])
    out["three-class"] = (C, np.repeat([0, 1, 2], 6))
    for d in (1, 3, 5):  # points in R^d (issue 28): separable by a random hyperplane, and overlapping clouds
        Xs = rng.normal(size=(12, d))
        ws = rng.normal(size=d + 1)
        ys = np.where(ws[0] + Xs @ ws[1:] > 0, 1, -1)
        ys[:2] = (1, -1)
        out[f"d{d}-separable"] = (Xs, ys)
        out[f"d{d}-overlap"] = (np.vstack([rng.normal(size=(6, d)), rng.normal(size=(6, d)) + 0.3]),
                                np.r_[np.ones(6), -np.ones(6)])
    Xw = rng.normal(size=(6, 40))  # wide: d ≫ n
    out["wide"] = (Xw, np.where(Xw[:, 0] > 0, 1, -1) * np.array([1, 1, 1, 1, 1, 1]))
    out["wide"][1][:2] = (1, -1)
    return out


def write_csv(path: str, X: np.ndarray, labels: np.ndarray) -> None:
    with open(path, "w") as fh:
        fh.write(",".join(f"x{k + 1}" for k in range(X.shape[1])) + ",label\n")
        for row, lab in zip(X, labels):
            fh.write(",".join(repr(float(v)) for v in row) + f",{int(lab)}\n")


# ---------------------------------------------------------------- independent features and kernels
def monomials(d: int, degree: int, with_lower: bool = True) -> list[tuple[int, ...]]:
    out = []
    for k in range(0 if with_lower else degree, degree + 1):
        for idx in itertools.combinations_with_replacement(range(d), k):
            out.append(tuple(idx.count(v) for v in range(d)))
    return out


def feature_exponents(spec: str, d: int = 2) -> list[tuple[int, ...]] | None:
    """The monomials of an explicit polynomial φ-map on R^d, None for maps that are not polynomial (rff)."""
    if spec == "linear":
        return monomials(d, 1)
    if spec == "linear1d":
        return [(0,) * d, (1,) + (0,) * (d - 1)]
    if spec == "quadratic":
        return monomials(d, 2)
    if spec.startswith("poly:degree="):
        return monomials(d, int(spec.split("=")[1]))
    return None


def ordered_exponents(spec: str, d: int = 2) -> list[tuple[int, ...]]:
    """φ's columns in the documented order 1, x1, x2, x1², x1x2, x2², x1³, … (degree, then falling powers of
    x1, x2, …: the exponent tuples in descending lexicographic order within a degree)."""
    exps = feature_exponents(spec, d)
    return sorted(exps, key=lambda e: (sum(e), tuple(-v for v in e)))


def _mono(x, e):
    """x^e for a point x (Fractions or Decimals) and an exponent tuple e (0 ** 0 = 1)."""
    out = 1
    for v, k in zip(x, e):
        if k:
            out = out * v ** k
    return out


def exact_values(W, X: np.ndarray, exps) -> list[list[Fraction]]:
    """f_k(x_i) = Σ_m W[k, m] x^e_m exactly, for each output k."""
    Xf = [[Fraction(float(v)) for v in row] for row in X]
    out = []
    for Wk in np.atleast_2d(W):
        wk = [Fraction(float(v)) for v in Wk]
        out.append([sum(wm * _mono(x, e) for wm, e in zip(wk, exps)) for x in Xf])
    return out


def kernel_decimal(spec: str):
    """K(x, z) in 60-digit decimals."""
    name, _, rest = spec.partition(":")
    kw = dict(kv.split("=") for kv in rest.split(",") if kv)
    dot = lambda x, z: sum((a * b for a, b in zip(x, z)), Decimal(0))  # noqa: E731
    if name == "linear":
        return dot
    if name == "affine":
        return lambda x, z: 1 + dot(x, z)
    if name == "poly":
        deg, c = int(kw.get("degree", 2)), Decimal(kw.get("c", "1"))
        return lambda x, z: (dot(x, z) + c) ** deg
    g = Decimal(kw.get("gamma", "0.5"))
    if name == "rbf":
        return lambda x, z: (-(g * sum(((a - b) ** 2 for a, b in zip(x, z)), Decimal(0)))).exp()
    if name == "laplacian":
        return lambda x, z: (-(g * sum((abs(a - b) for a, b in zip(x, z)), Decimal(0)))).exp()
    raise ValueError(spec)


def normalized_gram(spec: str, X: np.ndarray, y: np.ndarray, raw: bool = False) -> list[list[Decimal]]:
    """G_ij = y_i y_j K(x_i, x_j)/√(K_ii K_jj) in decimals (the paper's normalized Gram matrix); raw: without √K."""
    K = kernel_decimal(spec)
    Xd = [[Decimal(float(v)) for v in row] for row in X]
    diag = [Decimal(1) if raw else K(x, x).sqrt() for x in Xd]
    n = len(Xd)
    G = [[Decimal(0)] * n for _ in range(n)]
    for i in range(n):
        for j in range(i, n):
            v = K(Xd[i], Xd[j]) / (diag[i] * diag[j]) * int(y[i] * y[j])
            G[i][j] = G[j][i] = v
    return G


def poly_kernel_exponents(spec: str, d: int = 2) -> list[tuple[int, ...]] | None:
    """A kernel's explicit feature monomials (up to positive weights, which do not change separability)."""
    name, _, rest = spec.partition(":")
    kw = dict(kv.split("=") for kv in rest.split(",") if kv)
    if name == "linear":
        return monomials(d, 1, with_lower=False)
    if name == "affine":
        return monomials(d, 1)
    if name == "poly":
        deg, c = int(kw.get("degree", 2)), float(kw.get("c", 1))
        return monomials(d, deg, with_lower=c > 0)
    return None


# ---------------------------------------------------------------- f rebuilt from the JSON's "decision" record
def _pi() -> Decimal:
    """π to the context's precision (Machin: π = 16 atan(1/5) − 4 atan(1/239))."""
    def atan_inv(k: int) -> Decimal:
        x, total, term, n, sign = Decimal(1) / k, Decimal(0), Decimal(1) / k, 1, 1
        tiny = Decimal(10) ** -(getcontext().prec + 2)  # below half an ulp of total: adding it changes nothing
        while term > tiny:
            total += sign * term / n
            term *= x * x
            n, sign = n + 2, -sign
        return total
    return 16 * atan_inv(5) - 4 * atan_inv(239)


PI = _pi()


def dcos(t: Decimal) -> Decimal:
    """cos t in decimals: reduce mod 2π, then the Taylor series."""
    t = t - 2 * PI * (t / (2 * PI)).to_integral_value()
    total, term, k = Decimal(1), Decimal(1), 0
    while True:
        k += 2
        term = -term * t * t / (k * (k - 1))
        if abs(term) < Decimal(10) ** -(getcontext().prec + 2):
            return total
        total += term


def rff_rows(rec: dict, X: np.ndarray) -> list[list[Decimal]]:
    """φ(x_i) = (1, √(2/D) cos(ω_j·x_i + c_j)) in decimals, from the JSON's draws (ω, c) and the exact √(2/D)."""
    om = [[Decimal(float(v)) for v in row] for row in rec["omega"]]
    ph = [Decimal(float(v)) for v in rec["phase"]]
    sc = (Decimal(2) / len(ph)).sqrt()
    out = []
    for x in X:
        xd = [Decimal(float(v)) for v in x]
        out.append([Decimal(1)] + [sc * dcos(sum(o * xv for o, xv in zip(oj, xd)) + cj) for oj, cj in zip(om, ph)])
    return out


def kernel_grad_u_decimal(spec: str):
    """∂K(u, x)/∂u in decimals (the input-space SVM's derivative terms)."""
    name, _, rest = spec.partition(":")
    kw = dict(kv.split("=") for kv in rest.split(",") if kv)
    K = kernel_decimal(spec)
    if name in ("linear", "affine"):
        return lambda u, x: list(x)
    if name == "poly":
        deg, c = int(kw.get("degree", 2)), Decimal(kw.get("c", "1"))
        return lambda u, x: [deg * (sum((a * b for a, b in zip(u, x)), Decimal(0)) + c) ** (deg - 1) * xv for xv in x]
    g = Decimal(kw.get("gamma", "0.5"))
    if name == "rbf":
        return lambda u, x: [-2 * g * K(u, x) * (uv - xv) for uv, xv in zip(u, x)]
    if name == "laplacian":  # a subgradient; exact except where u_k = x_k
        return lambda u, x: [-g * K(u, x) * ((uv > xv) - (uv < xv)) for uv, xv in zip(u, x)]
    raise ValueError(spec)


def decision_values(rec: dict, X: np.ndarray) -> list[list[Decimal]] | None:
    """f_k(x_i) for every output k and training point i in 60 digits from the record alone; None if not rebuildable."""
    form = rec.get("form")
    Xd = [[Decimal(float(v)) for v in row] for row in X]
    if form == "zero":
        return [[Decimal(0)] * len(X) for _ in range(rec.get("outputs", 1))]
    if form == "features":
        W = np.atleast_2d(np.array(rec["weights"], dtype=float))
        if "rff" in rec:
            rows = rff_rows(rec["rff"], X)
        else:
            exps = feature_exponents(rec["features"], X.shape[1])
            if exps is None:
                return None
            exps = ordered_exponents(rec["features"], X.shape[1])
            rows = [[Decimal(_mono(x, e)) for e in exps] for x in Xd]
        return [[sum(Decimal(float(w)) * r for w, r in zip(Wk, row)) for row in rows] for Wk in W]
    if form == "kernel-expansion":
        K = kernel_decimal(rec["kernel"])
        s = Decimal(float(rec.get("input_scale", 1.0)))  # f(x) = Σ coef_i K(s c_i, s x) + bias
        C = Xd if rec["centers"] == "points" else [[Decimal(float(v)) for v in row] for row in rec["centers"]]
        C = [[s * v for v in c] for c in C]
        coef = [Decimal(float(v)) for v in rec["coef"]]
        b = Decimal(float(rec["bias"]))
        live = [(c, a) for c, a in zip(C, coef) if a != 0]
        return [[sum(a * K(c, [s * v for v in x]) for c, a in live) + b for x in Xd]]
    if form == "derivative-expansion":
        K, dK = kernel_decimal(rec["kernel"]), kernel_grad_u_decimal(rec["kernel"])
        B = [[Decimal(float(v)) for v in row] for row in rec["bases"]]
        a = [Decimal(float(v)) for v in rec["a"]]
        bb = [[Decimal(float(v)) for v in row] for row in rec["b"]]
        bias = Decimal(float(rec["bias"]))
        live = [j for j in range(len(B)) if a[j] != 0 or any(bb[j])]
        return [[sum(a[j] * K(B[j], x) + sum(bv * g for bv, g in zip(bb[j], dK(B[j], x))) for j in live) + bias
                 for x in Xd]]
    return None


# ---------------------------------------------------------------- independent separability (LP, verified exactly)
def lp_separable(M_rows: list[list[Fraction]]) -> str:
    """'yes' (a vector with M a > 0 verified exactly), 'no' (LP optimum ≤ 1e-9 after rescaling), or 'unclear'."""
    M = np.array([[float(v) for v in r] for r in M_rows])
    if M.size == 0:
        return "unclear"
    # exact rescaling by powers of two (rows, then columns) so that every entry is at most 1 in size
    rmax = np.abs(M).max(axis=1)
    rs = np.where(rmax > 0, 2.0 ** -np.frexp(np.where(rmax > 0, rmax, 1))[1], 1.0)
    Ms = M * rs[:, None]
    cmax = np.abs(Ms).max(axis=0)
    cs = np.where(cmax > 0, 2.0 ** -np.frexp(np.where(cmax > 0, cmax, 1))[1], 1.0)
    Ms = Ms * cs[None, :]
    n, m = Ms.shape
    # max t  s.t.  Ms a ≥ t,  −1 ≤ a ≤ 1,  t ≤ 1
    c = np.r_[np.zeros(m), -1.0]
    A = np.c_[-Ms, np.ones(n)]
    res = linprog(c, A_ub=A, b_ub=np.zeros(n), bounds=[(-1, 1)] * m + [(None, 1)], method="highs")
    if res.status != 0:
        return "unclear"
    t = -res.fun
    a = res.x[:m] * cs
    af = [Fraction(float(v)) for v in a]
    if all(sum(mv * av for mv, av in zip(row, af)) > 0 for row in M_rows):
        return "yes"  # M a > 0 in exact arithmetic proves it, however thin the margin
    if t <= 1e-9 and gordan_witness(M_rows, Ms, rs):
        return "no"  # only with p ≥ 0, p ≠ 0, Mᵀp = 0 exactly: an LP's t ≈ 0 alone was wrong at margins ~1e-22
    return "unclear"


def gordan_witness(M_rows: list[list[Fraction]], Ms: np.ndarray, rs: np.ndarray) -> bool:
    """Whether an exact p ≥ 0, p ≠ 0 with Σ p_i M_i = 0 exists near HiGHS's (Gordan: then no a has M a > 0).

    The LP's support S fixes the unknowns; p is taken exactly in the null space of M_Sᵀ with its free
    coordinates equal to the LP's (the basis is the identity there) and must come out nonnegative. Ms is M with
    rows scaled by rs (and columns by positive factors): its p_i is p_i / rs_i of M's."""
    n, m = Ms.shape
    res = linprog(np.zeros(n), A_eq=np.r_[Ms.T, np.ones((1, n))], b_eq=np.r_[np.zeros(m), 1.0],
                  bounds=[(0, None)] * n, method="highs")
    if res.status != 0:
        return False
    S = [i for i in range(n) if res.x[i] > 1e-12]
    if not S:
        return False
    A = [[M_rows[i][j] for i in S] for j in range(m)]
    pivots = rref([list(a) for a in A], len(S))
    frees = [c for c in range(len(S)) if c not in pivots]  # null_space gives one vector per free column, in order
    basis = null_space(A, len(S))
    if not basis:
        return False
    p = [Fraction(0)] * len(S)
    for free, u in zip(frees, basis):
        c = Fraction(float(res.x[S[free]])) * Fraction(float(rs[S[free]]))
        p = [pk + c * uk for pk, uk in zip(p, u)]
    return all(v >= 0 for v in p) and any(v > 0 for v in p)


def feature_rows(X: np.ndarray, y: np.ndarray, exps) -> list[list[Fraction]]:
    """Rows y_i φ(x_i) exactly, after scaling X by a power of two (positive column factors: same separability)."""
    s = float(np.abs(X).max()) or 1.0
    k = math.frexp(s)[1]
    Xf = [[Fraction(float(v)) * Fraction(2) ** -k for v in row] for row in X]
    return [[int(yi) * _mono(x, e) for e in exps] for x, yi in zip(Xf, y)]


def truly_separable(X: np.ndarray, y: np.ndarray, kind: str, spec: str) -> str:
    """'yes' / 'no' / 'unclear' for two-class separability in the space of the kernel or φ-map."""
    d = X.shape[1]
    exps = feature_exponents(spec, d) if kind == "features" else poly_kernel_exponents(spec, d)
    if exps is not None:
        return lp_separable(feature_rows(X, y, exps))
    if spec.startswith(("rbf", "laplacian")):  # strictly positive definite: separable iff no point has both labels
        seen = {}
        for row, yi in zip(map(tuple, X), y):
            if seen.setdefault(row, yi) != yi:
                return "no"
        return "yes"
    return "unclear"


def class_indices(labels: np.ndarray) -> np.ndarray:
    """File labels → classes as documented: {+1, −1} or {1, 0} are two-class with 1 → class 0 ('+'), else as is."""
    vals = set(np.unique(labels).tolist())
    if vals <= {1.0, -1.0} or vals <= {1.0, 0.0}:
        return np.where(labels == 1, 0, 1)
    return labels.astype(int)


def multiclass_separable(X, labels, spec) -> str:
    """Kesler's construction: rows (φ_i in block y_i, −φ_i in block k) for every k ≠ y_i."""
    exps = feature_exponents(spec, X.shape[1])
    if exps is None:
        return "unclear"
    labels = class_indices(labels)
    c = max(int(labels.max()) + 1, 2)
    base = feature_rows(X, np.ones(len(X)), exps)
    D = len(exps)
    rows = []
    for phi, lab in zip(base, labels.astype(int)):
        for k in range(c):
            if k != lab:
                r = [Fraction(0)] * (c * D)
                r[lab * D:(lab + 1) * D] = phi
                r[k * D:(k + 1) * D] = [-v for v in phi]
                rows.append(r)
    return lp_separable(rows)


# ---------------------------------------------------------------- running one case in a forked child
def run_child(argv: list[str], timeout: float) -> dict:
    from percviz import cli

    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(r)
        out, err = io.StringIO(), io.StringIO()
        rc = 0
        try:
            with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
                try:
                    rc = cli.main(argv) or 0
                except SystemExit as e:
                    rc = e.code if isinstance(e.code, int) else (0 if e.code is None else 1)
        except BaseException as e:  # noqa: BLE001 - anything escaping main is a finding
            err.write(f"ESCAPED {type(e).__name__}: {e}\n")
            rc = 99
        data = json.dumps({"rc": rc, "out": out.getvalue(), "err": err.getvalue()}).encode()
        with os.fdopen(w, "wb") as fh:
            fh.write(data)
        os._exit(0)
    os.close(w)
    chunks, t0, timed_out = [], time.time(), False
    while True:
        left = timeout - (time.time() - t0)
        if left <= 0:
            timed_out = True
            os.kill(pid, signal.SIGKILL)
            break
        ready, _, _ = select.select([r], [], [], left)
        if ready:
            b = os.read(r, 1 << 20)
            if not b:
                break
            chunks.append(b)
    os.close(r)
    _, status, usage = os.wait4(pid, 0)
    res = {"rc": None, "out": "", "err": ""}
    if not timed_out and chunks:
        try:
            res = json.loads(b"".join(chunks))
        except ValueError:
            res["err"] = "BROKEN CHILD OUTPUT"
    res["seconds"] = time.time() - t0
    res["timeout"] = timed_out
    res["rss_mb"] = usage.ru_maxrss / 1024
    res["signal"] = os.WTERMSIG(status) if os.WIFSIGNALED(status) else 0
    return res


def _strict_json(text: str):
    def bad(token):
        raise ValueError(f"non-finite {token} in JSON")
    return json.loads(text, parse_constant=bad)


# ---------------------------------------------------------------- checks
def _crash(res: dict) -> tuple[str, str] | None:
    """The finding when the child timed out, died on a signal or printed a traceback; None when it ended cleanly."""
    if res["timeout"]:
        return "FINDING:timeout", f"{res['seconds']:.0f} s"
    text = res["out"] + res["err"]
    if "Traceback" in text or "internal error" in text or "ESCAPED" in text or res["signal"]:
        return "FINDING:traceback", (res["err"] or res["out"])[-400:]
    if res["rc"] not in (0, 1, 2):  # the README's table: 1 data or a budget, 2 the command line (70 a bug)
        return "FINDING:exit-status", f"status {res['rc']}: {res['err'][-300:]}"
    return None


def check_solve(case: dict, res: dict, X: np.ndarray, labels: np.ndarray) -> tuple[str, str]:
    """(outcome, detail): outcome is ok / refused / FINDING:<kind>."""
    if crashed := _crash(res):
        return crashed
    if res["rc"] != 0:
        lines = [ln for ln in res["err"].splitlines() if ln.strip()]
        if len(lines) != 1 or res["out"].strip():
            return "FINDING:refusal-not-one-line", res["err"][-400:]
        return "refused", lines[0][:160]
    if res["err"].strip():
        return "FINDING:stderr-on-success", res["err"][-300:]
    try:
        d = _strict_json(res["out"])
    except ValueError as e:
        return "FINDING:bad-json", str(e)[:200]
    st, rep = d["status"], d["representation"]
    kind = "features" if rep in ("features", "multiclass") else "kernel"
    spec = case["spec"]
    if d.get("margin") is not None:  # a margin is a claim that f separates the points
        rec = d.get("decision")
        vals = decision_values(rec, X) if rec is not None and rec.get("outputs", 1) == 1 else None
        if d.get("train_errors", 0) > 0 or (vals is not None and
                                            any(int(yi) * v <= 0 for yi, v in zip(labels, vals[0]))):
            return "FINDING:margin-of-a-non-separator", f"margin {d['margin']:.4g}, {d.get('train_errors')} errors"
    if st == "separator":
        return check_separator(case, d, X, labels, kind, spec)
    if st == "nonseparable":
        truth = multiclass_separable(X, labels, spec) if rep == "multiclass" else truly_separable(X, labels, kind, spec)
        rff = (d.get("decision") or {}).get("rff")
        if truth == "unclear" and rff is not None:  # rows y_i φ(x_i) from the JSON's draws, in 60 digits
            truth = lp_separable([[Fraction(int(yi) * v) for v in row]
                                  for row, yi in zip(rff_rows(rff, X), labels.astype(int))])
            return {"yes": "FINDING:false-proof", "no": "proof-ok-rff"}.get(truth, "proof-unverified"), d["message"][:120]
        if truth == "yes":
            return "FINDING:false-proof", d["message"][:200]
        return ("proof-ok" if truth == "no" else "proof-unverified"), d["message"][:120]
    if st == "certificate":
        return check_certificate(d, X, labels, spec)
    return f"status:{st}", ""


def check_separator(case, d, X, labels, kind, spec):
    rep = d["representation"]
    if rep == "multiclass":
        exps = feature_exponents(spec, X.shape[1])
        if exps is None:
            return "separator-unverified", ""
        vals = exact_values(np.array(d["weights"]), X, ordered_exponents(spec, X.shape[1]))
        for i, lab in enumerate(class_indices(labels)):
            if any(vals[k][i] >= vals[lab][i] for k in range(len(vals)) if k != lab):
                return "FINDING:false-separator", f"point {i} not strictly on its class's side"
        return "separator-exact", ""
    y = labels.astype(int)
    rec = d.get("decision")
    if rec is not None and rec.get("outputs", 1) == 1 and (vals := decision_values(rec, X)) is not None:
        # f rebuilt from the JSON's numbers alone (weights and rff draws, or coef, centres and the SVM/SMO bias)
        bad = [i for i in range(len(y)) if y[i] * vals[0][i] <= 0]
        if bad:
            return "FINDING:false-separator", (f"y·f ≤ 0 (60 digits, f from the JSON's {rec['form']}) at points "
                                               f"{bad[:5]}: {[float(vals[0][i]) for i in bad[:3]]}")
        return ("separator-exact" if rec["form"] == "features" and "rff" not in rec else
                f"separator-decimal-{'rff' if 'rff' in rec else rec['form']}"), ""
    if rep == "features" and feature_exponents(spec, X.shape[1]) is not None:
        f = exact_values(np.array(d["weights"]), X, ordered_exponents(spec, X.shape[1]))[0]
        bad = [i for i in range(len(y)) if y[i] * f[i] <= 0]
        if bad:
            return "FINDING:false-separator", f"exact y·f ≤ 0 at points {bad[:5]} (of {len(y)})"
        return "separator-exact", ""
    if rep == "kernel" and d["algorithm"] in PAPER_KERNEL and d.get("alpha") is not None:
        # kernel-perceptron: f = Σ α_i y_i K(x_i, ·) on the raw kernel; the paper's: coef α_i y_i/√K_ii
        G = normalized_gram(spec, X, y, raw=d["algorithm"] == "kernel-perceptron")
        a = [Decimal(float(v)) for v in d["alpha"]]
        Ga = [sum(g * av for g, av in zip(row, a)) for row in G]
        bad = [i for i, v in enumerate(Ga) if v <= 0]
        if bad:
            return "FINDING:false-separator", f"(Gα)_i ≤ 0 (60 digits) at {bad[:5]}: {[float(Ga[i]) for i in bad[:3]]}"
        return "separator-decimal", ""
    truth = truly_separable(X, y, kind, spec)
    if truth == "no":
        return "FINDING:false-separator", "independent LP: not separable"
    return ("separator-lp" if truth == "yes" else "separator-unverified"), ""


def check_certificate(d, X, labels, spec):
    p = np.array(d["p"], dtype=float)
    eps = d["params"].get("eps", d["params"].get("delta"))
    if p.min() < 0 or abs(p.sum() - 1) > 1e-9:
        return "FINDING:bad-certificate", f"p not in the simplex (min {p.min():g}, sum {p.sum():.12g})"
    G = normalized_gram(spec, X, labels.astype(int))
    pd = [Decimal(float(v)) for v in p]
    q = sum(pi * sum(g * pj for g, pj in zip(row, pd)) for pi, row in zip(pd, G))
    norm = float(max(q, Decimal(0)).sqrt())
    if eps is None or norm > eps * (1 + 1e-9) + 1e-15:
        return "FINDING:bad-certificate", f"‖p‖_G = {norm:.3g} (60 digits) > ε = {eps}"
    return "certificate-ok", f"{norm:.2g}"


def check_margin(case, res, X, labels):
    if crashed := _crash(res):
        return crashed
    if res["rc"] != 0:
        lines = [ln for ln in res["err"].splitlines() if ln.strip()]
        if len(lines) != 1:
            return "FINDING:refusal-not-one-line", res["err"][-400:]
        return "refused", lines[0][:160]
    try:
        d = _strict_json(res["out"])
    except ValueError as e:
        return "FINDING:bad-json", str(e)[:200]
    y = labels.astype(int)
    if (honest := check_interval(case, d, X, y)) is not None:
        return honest
    truth = truly_separable(X, y, "kernel", case["spec"])
    v = d.get("verdict")
    if v == "separable":
        if d.get("alpha") is not None:  # Gα > 0 in 60 digits proves it, whatever an LP's 1e-9 tolerance says
            G = normalized_gram(case["spec"], X, y)
            a = [Decimal(float(t)) for t in d["alpha"]]
            if min(sum(g * av for g, av in zip(row, a)) for row in G) <= 0:
                return "FINDING:separable-alpha-fails", "min (Gα) ≤ 0 in 60 digits"
            return "margin-separable-decimal", ""
        if truth == "no":
            return "FINDING:false-separable", f"ρ = {d.get('rho')}"
        return "margin-separable-ok", ""
    if v in ("not separable", "nonseparable", "not-separable"):
        if truth == "yes":
            return "FINDING:false-nonseparable", str(d.get("rho_interval"))
        return "margin-nonsep-ok", ""
    return f"margin:{v}", ""


def check_interval(case, d, X, y):
    """ρ_K's interval against the returned witnesses, in 60 digits: α's margin min (Gα)_i/‖α‖_G ≤ ρ_K ≤ hi and
    lo ≤ ρ_K ≤ ‖p‖_G; `exact` only with a narrow interval; a null ρ_K only with a reason (issue 28)."""
    lo, hi = d["rho_interval"]
    if not lo <= hi:
        return "FINDING:interval-reversed", f"{lo} > {hi}"
    if d.get("exact") and (d.get("rho") is None or hi - lo > 1e-6 * abs(d["rho"]) + 1e-300):
        return "FINDING:exact-but-wide", str(d["rho_interval"])
    if d.get("rho") is None and not d.get("rho_note"):
        return "FINDING:null-rho-without-reason", ""
    if len(X) > 120:
        return None
    with localcontext() as ctx:
        ctx.prec = witness_digits(case["spec"], X)
        return _check_witnesses(case, d, X, y, lo, hi)


def witness_digits(spec: str, X: np.ndarray) -> int:
    """Digits that resolve y_i y_j K(x_i, x_j) of a kernel with a constant term on points of size s < 1: c + (x·z)^k
    keeps (x·z)^k's digits only with 60 + 2k·|log10 s| of them (60 alone read ‖p‖_G = 0 at 1e-30)."""
    name, _, rest = spec.partition(":")
    kw = dict(kv.split("=") for kv in rest.split(",") if kv)
    s = float(np.abs(X).max(initial=0.0))
    if name not in ("affine", "poly") or float(kw.get("c", 1)) == 0 or not 0 < s < 1:
        return 60
    return 60 + min(int(2 * int(kw.get("degree", 1)) * -math.log10(s)) + 1, 2000)


def _check_witnesses(case, d, X, y, lo, hi):
    """check_interval's witness half, in the context's digits."""
    G = normalized_gram(case["spec"], X, y)
    tiny = Decimal(10) ** -40
    if d.get("p") is not None:
        pd = [Decimal(float(v)) for v in d["p"]]
        q = sum(pi * sum(g * pj for g, pj in zip(row, pd)) for pi, row in zip(pd, G) if pi)
        if q >= 0 and Decimal(lo) > q.sqrt() * (1 + Decimal("1e-9")) + tiny:
            return "FINDING:interval-above-witness", f"lo {lo:.6g} > ‖p‖_G {float(q.sqrt()):.6g}"
    if d.get("alpha") is not None:
        a = [Decimal(float(v)) for v in d["alpha"]]
        Ga = [sum(g * av for g, av in zip(row, a)) for row in G]
        q = sum(av * gv for av, gv in zip(a, Ga))
        if q > 0 and min(Ga) / q.sqrt() > Decimal(hi) * (1 + Decimal("1e-9")) + tiny:
            return "FINDING:interval-below-witness", f"hi {hi:.6g} < α's margin {float(min(Ga) / q.sqrt()):.6g}"
    return None


def check_sweep(case, res):
    """Each recorded ρ_K of the fixed family (ρ_K = t by construction) is t, or null with its reason and an
    interval that holds t; the bound follows the recorded ρ_K."""
    if crashed := _crash(res):
        return crashed
    if res["rc"] != 0:
        lines = [ln for ln in res["err"].splitlines() if ln.strip()]
        return ("FINDING:refusal-not-one-line", res["err"][-400:]) if len(lines) != 1 else ("refused", lines[0][:160])
    d = _strict_json(res["out"])
    t = case["level"]
    for r in d["runs"]:
        lo, hi = r["rho_interval"]
        if not (lo <= t * (1 + 1e-9) and hi >= t * (1 - 1e-9)):
            return "FINDING:sweep-interval-misses-rho", f"t = {t:g}: [{lo:.6g}, {hi:.6g}]"
        if r["rho"] is None:
            if not r.get("rho_note"):
                return "FINDING:sweep-null-rho-without-reason", ""
            if r["bound"] is not None:
                return "FINDING:sweep-bound-without-rho", ""
        elif abs(r["rho"] - t) > 1e-9 * t:
            return "FINDING:sweep-wrong-rho", f"{r['rho']!r} for t = {t:g}"
    return "sweep-ok", ""


def cover_formula(n: int, d_hat: int) -> float:
    """Cover's fraction of separable labelings of n points in general position in R^d̂ (through the origin)."""
    return min(1.0, 2 * sum(math.comb(n - 1, k) for k in range(d_hat)) / 2.0**n)


def check_cover(case, res):
    """Cover's rows against the theorem, computed here: every labeling of n ≤ d̂ points in general position is
    separable (fraction exactly 1), and for n > d̂ the simulated fraction is within 5 standard errors of
    C(n, d̂)/2ⁿ; the formula the command prints is that one; counts add up."""
    if crashed := _crash(res):
        return crashed
    if res["rc"] != 0:
        lines = [ln for ln in res["err"].splitlines() if ln.strip()]
        return ("FINDING:refusal-not-one-line", res["err"][-400:]) if len(lines) != 1 else ("refused", lines[0][:160])
    d = _strict_json(res["out"])
    d_hat = int(d["d_hat"])
    for r in d["rows"]:
        n, frac, trials, undecided = int(r["n"]), r["fraction"], int(r["trials"]), int(r.get("undecided", 0))
        expect = cover_formula(n, d_hat)
        if abs(r["formula"] - expect) > 1e-12 * max(expect, 1e-300):
            return "FINDING:cover-formula", f"n = {n}, d̂ = {d_hat}: {r['formula']!r}, expected {expect!r}"
        decided = trials - undecided
        if frac is None:
            if decided > 0:
                return "FINDING:cover-null-fraction", f"n = {n}: {decided} decided labelings"
            continue
        if not 0.0 <= frac <= 1.0 or decided <= 0:
            return "FINDING:cover-fraction-range", f"n = {n}: {frac!r} over {decided}"
        if n <= d_hat and frac != 1.0:
            return "FINDING:cover-small-n-not-all-separable", f"n = {n} ≤ d̂ = {d_hat}: {frac!r}"
        if abs(frac - expect) > 5 * math.sqrt(max(expect * (1 - expect), 1e-4) / decided) + 1e-12:
            return "FINDING:cover-off-the-theorem", f"n = {n}, d̂ = {d_hat}: {frac:.4f} vs {expect:.4f} ({decided} trials)"
    return "cover-ok", ""


def check_special(case, res):
    """Hostile files must be refused in one line; big scenes refused in one line or solved within budget."""
    if crashed := _crash(res):
        return crashed
    lines = [ln for ln in res["err"].splitlines() if ln.strip()]
    if res["rc"] != 0:
        if len(lines) != 1:
            return "FINDING:refusal-not-one-line", res["err"][-400:]
        if case.get("big") and res["rss_mb"] > 4.5 * 1024:
            return "FINDING:refused-after-allocating", f"{res['rss_mb']:.0f} MB"
        return "refused", lines[0][:160]
    if case.get("expect") == "refused":
        return "FINDING:hostile-accepted", res["out"][:200]
    if case.get("big") and res["rss_mb"] > 4.5 * 1024:
        return "FINDING:over-budget", f"{res['rss_mb']:.0f} MB"
    return "special-ok", f"{res['seconds']:.1f} s, {res['rss_mb']:.0f} MB"


# ---------------------------------------------------------------- case generation
def param_variants(cls) -> list[dict]:
    out = [{}]
    for s in cls.params.specs:
        if s.type is float:
            for v in (s.low, s.high, 1e100, 1e101, "inf", "nan"):
                if v is not None:
                    out.append({s.name: v})
        elif s.type is int:
            out.extend({s.name: v} for v in (s.low, s.high) if v is not None)
        elif s.type == "choice":
            out.extend({s.name: c} for c in s.choices if c != s.default)
    return out


def generate(n_cases: int, seed: int, tmp: str) -> list[dict]:
    from percviz.core.solvers import load_all

    rng = np.random.default_rng(seed)
    pick = random.Random(seed)
    sets = datasets(rng)
    solvers = load_all()
    cases = []
    for name, cls in solvers.items():
        specs = {"features": FEATURES, "multiclass": MULTI_FEATURES, "kernel": KERNELS}[cls.representation]
        params = param_variants(cls)
        for ds, (X, lab) in sets.items():
            if cls.representation != "multiclass" and ds == "three-class":
                continue
            for spec in specs:
                for scale in SCALES:
                    cases.append({"cmd": "solve", "alg": name, "rep": cls.representation, "ds": ds, "spec": spec,
                                  "scale": scale, "params": pick.choice(params) if pick.random() < 0.3 else {}})
    for ds in sets:
        if ds == "three-class":
            continue
        for spec in KERNELS:
            for scale in SCALES:
                cases.append({"cmd": "margin", "ds": ds, "spec": spec, "scale": scale})
    sweeps = [{"cmd": "sweep", "level": t, "ns": ns, "path": "", "ds": "fixed", "spec": "affine", "scale": 1.0}
              for t in (0.3, 1e-3, 1e-12, 1e-100, 1e-300) for ns in ("10", "10,100", "3,40")]  # issue 28
    covers = [{"cmd": "cover", "features": f, "ns": ns, "trials": 40, "seed": sd, "path": "", "ds": "cover",
               "spec": f, "scale": 1.0}  # issue 28: Cover's counting against the theorem
              for f, ns in (("linear", "1,2,3,4,6,8"), ("quadratic", "3,6,9,12"), ("poly:degree=3", "5,10,15,20"),
                            ("rff:dim=10", "6,11,16,22"), ("linear1d", "1,2,3,4")) for sd in (0, 7)]
    pick.shuffle(cases)
    cases = special_cases(tmp, rng) + sweeps + covers + cases[:n_cases]
    for i, c in enumerate(cases):
        c["id"] = i
        if "path" in c:
            continue
        X, lab = sets[c["ds"]]
        c["path"] = os.path.join(tmp, f"{c['ds']}_{c['scale']:g}.csv")
        if not os.path.exists(c["path"]):
            write_csv(c["path"], X * c["scale"], lab)
    return cases, sets


HOSTILE_CSV = {"inf": "inf", "-inf": "-inf", "nan": "nan", "1e400": "1e400", "digits400": "1" + "0" * 400,
               "label65": None, "label1e300": None}
HOSTILE_PRESET = {"Infinity": "Infinity", "NaN": "NaN", "digits400": "1" + "0" * 400, "digits4301": "1" + "0" * 4301}


def special_cases(tmp: str, rng: np.random.Generator) -> list[dict]:
    """Hostile files (inf/nan/huge in CSV and presets), the issue's hang (n = 200 RBF overlap) and memory refusals."""
    import percviz

    out = []
    base = "x1,x2,label\n0,0,1\n1,1,-1\n2,0,1\n"
    for name, tok in HOSTILE_CSV.items():
        path = os.path.join(tmp, f"hostile_{name}.csv")
        if tok is None:
            lab = "65" if name == "label65" else "1e300"
            text = base + f"3,3,{lab}\n"
        else:
            text = base + f"3,{tok},-1\n"
        open(path, "w").write(text)
        for alg, rep, spec in (("snkp", "kernel", "rbf:gamma=0.5"), ("perceptron", "features", "linear"),
                               ("svm", "kernel", "affine"), ("lp-feasibility", "features", "linear")):
            out.append({"cmd": "solve", "alg": alg, "rep": rep, "ds": f"hostile-{name}", "spec": spec, "scale": 1.0,
                        "params": {}, "path": path, "expect": "refused"})
        out.append({"cmd": "margin", "ds": f"hostile-{name}", "spec": "rbf:gamma=0.5", "scale": 1.0, "path": path,
                    "expect": "refused"})
    for name, tok in HOSTILE_PRESET.items():
        for field in ("points", "max_iter", "param"):
            path = os.path.join(tmp, f"preset_{name}_{field}.json")
            body = json.load(open(os.path.join(os.path.dirname(percviz.__file__), "presets", "xor-rbf.json")))
            body["algorithm"] = "nvn"
            body["max_iter"] = "@M" if field == "max_iter" else 100
            body["params"] = {"eps": "@E" if field == "param" else 1e-3}
            if field == "points":
                body["points"][0][1] = "@X"
            text = json.dumps(body).replace('"@M"', tok).replace('"@E"', tok).replace('"@X"', tok)
            open(path, "w").write(text)
            out.append({"cmd": "solve", "alg": "nvn", "rep": "kernel",
                        "ds": f"preset-{name}-{field}", "spec": "rbf:gamma=0.5", "scale": 1.0, "params": {},
                        "path": path, "expect": "refused", "preset": True})
    A = rng.normal(size=(100, 2))
    B = rng.normal(size=(100, 2)) + 0.5
    hang = os.path.join(tmp, "overlap200.csv")
    write_csv(hang, np.vstack([A, B]), np.r_[np.ones(100), -np.ones(100)])
    out.append({"cmd": "margin", "ds": "overlap200", "spec": "rbf:gamma=0.5", "scale": 1.0, "path": hang})
    out.append({"cmd": "solve", "alg": "snkp", "rep": "kernel", "ds": "overlap200", "spec": "rbf:gamma=0.5",
                "scale": 1.0, "params": {}, "path": hang})
    big = os.path.join(tmp, "big100k.csv")
    Xb = rng.normal(size=(100_000, 2))
    write_csv(big, Xb, np.where(Xb[:, 0] > 0, 1, -1))
    for alg, rep, spec in (("snkp", "kernel", "rbf:gamma=0.5"), ("svm", "kernel", "rbf:gamma=0.5"),
                           ("nvn", "kernel", "affine"), ("lp-perceptron", "features", "quadratic")):
        out.append({"cmd": "solve", "alg": alg, "rep": rep, "ds": "big100k", "spec": spec, "scale": 1.0,
                    "params": {}, "path": big, "big": True})
    out.append({"cmd": "margin", "ds": "big100k", "spec": "rbf:gamma=0.5", "scale": 1.0, "path": big, "big": True})
    return out


def argv_of(c: dict, max_iter: int) -> list[str]:
    if c["cmd"] == "cover":
        return ["cover", "--features", c["features"], "--n", c["ns"], "--trials", str(c["trials"]), "--seed",
                str(c["seed"]), "--json", "--time-budget", "120"]
    if c["cmd"] == "sweep":
        return ["sweep", "-a", "snkp", "--family", "fixed", "--over", "n", "--n", c["ns"], "--margin", repr(c["level"]),
                "--json", "--max-iter", "50", "--workers", "1"]
    if c["cmd"] == "margin":
        return ["margin", c["path"], "--kernel", c["spec"], "--json", "--budget", "5"]
    if c.get("preset"):
        return ["solve", c["path"], "--json"]
    flag = "--kernel" if c["rep"] == "kernel" else "--features"
    if c["ds"] == "overlap200":
        return ["solve", c["path"], "-a", c["alg"], flag, c["spec"], "--json"]
    argv = ["solve", c["path"], "-a", c["alg"], flag, c["spec"], "--json", "--max-iter", str(max_iter)]
    for k, v in c["params"].items():
        argv += ["--param", f"{k}={v}"]
    return argv


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--cases", type=int, default=3000)
    ap.add_argument("--seed", type=int, default=10)
    ap.add_argument("--timeout", type=float, default=60)
    ap.add_argument("--max-iter", type=int, default=3000)
    ap.add_argument("--out", default="/tmp/audit_claims.jsonl")
    ap.add_argument("--recheck", help="a previous --out file: run again only its FINDING cases (same --cases/--seed)")
    ap.add_argument("--no-big", action="store_true", help="skip the 100,000-point and n = 200 special cases")
    a = ap.parse_args(argv)
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    tmp = tempfile.mkdtemp(prefix="audit_claims_")
    cases, _ = generate(a.cases, a.seed, tmp)
    if a.no_big:
        cases = [c for c in cases if not c.get("big") and c["ds"] != "overlap200"]
    if a.recheck:
        ids = {json.loads(ln)["id"] for ln in open(a.recheck) if '"FINDING' in ln or '"checker-error' in ln}
        cases = [c for c in cases if c["id"] in ids]
    import percviz
    print(f"percviz from {os.path.dirname(percviz.__file__)}; {len(cases)} cases", flush=True)
    counts: dict[str, int] = {}
    t0 = time.time()
    with open(a.out, "w") as log:
        for c in cases:
            res = run_child(argv_of(c, a.max_iter), a.timeout)
            try:
                if c["cmd"] in ("sweep", "cover"):
                    X = lab = None
                elif "expect" in c or c.get("big"):
                    X = lab = None
                else:
                    T = np.loadtxt(c["path"], delimiter=",", skiprows=1, ndmin=2)
                    X, lab = T[:, :-1], T[:, -1]
                outcome, detail = check_sweep(c, res) if c["cmd"] == "sweep" else check_cover(c, res) if (
                    c["cmd"] == "cover") else check_special(c, res) if X is None else (
                    check_margin(c, res, X, lab) if c["cmd"] == "margin" else check_solve(c, res, X, lab))
            except Exception as e:  # noqa: BLE001 - a checker failure is reported, not fatal
                outcome, detail = "checker-error", f"{type(e).__name__}: {e}"[:200]
            counts[outcome] = counts.get(outcome, 0) + 1
            log.write(json.dumps({**{k: v for k, v in c.items() if k != "path"}, "outcome": outcome, "detail": detail,
                                  "seconds": round(res["seconds"], 3), "rss_mb": round(res["rss_mb"])}) + "\n")
            log.flush()
            if outcome.startswith("FINDING"):
                print(f"[{c['id']}] {outcome} {' '.join(argv_of(c, a.max_iter))}\n    {detail}", flush=True)
    print(f"{len(cases)} cases in {time.time() - t0:.0f} s")
    for k in sorted(counts):
        print(f"  {k:28s} {counts[k]}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
