"""verify10: `percviz margin`'s confirming LP keeps to the margin's time budget; the linear kernel's claims do not depend
on the points' scale. Through cli.main with strict JSON; truths decided here with numpy alone."""

import json

import numpy as np
import pytest

from percviz import cli


def strict_json(text):
    def bad(token):
        raise AssertionError(f"non-finite {token} in the JSON")
    return json.loads(text, parse_constant=bad)


def write(path, X, y):
    path.write_text("x1,x2,label\n" + "".join(f"{float(a)!r},{float(b)!r},{int(c)}\n" for (a, b), c in zip(X, y)))
    return path


def run(capsys, *argv):
    code = cli.main([str(a) for a in argv] + ["--json"])
    out, err = capsys.readouterr()
    assert code == 0 and err == "", err
    return strict_json(out)


def both_labels_set(n, seed=3):
    """n random points with random labels, plus a copy of the first point with the other label: not separable by
    any kernel (Σ p_i y_i φ(x_i) = 0 for p = ½(e_0 + e_n))."""
    rng = np.random.default_rng(seed)
    X = rng.uniform(-1, 1, size=(n, 2))
    y = np.where(rng.random(n) < 0.5, 1, -1)
    return np.vstack([X, X[:1]]), np.r_[y, -y[0]]


def test_the_confirming_lp_keeps_to_the_margin_budget(capsys, tmp_path):
    # Gordan's witness ½(e_0 + e_n) is found at once; confirming it on the points is an exact LP on 3,001 rows of
    # 91 degree-12 monomials, which takes seconds. main ran it without a limit whatever --budget said.
    X, y = both_labels_set(3000)
    path = write(tmp_path / "p12.csv", X, y)
    d = run(capsys, "margin", path, "--kernel", "poly:degree=12,c=1", "--budget", "0.05")
    assert d["verdict"] == "undecided" and d["complete"] is False and d["separable"] is False
    lo, hi = d["rho_interval"]
    assert lo <= 0 <= hi  # the truth (ρ_K ≤ 0 here) lies in the interval
    p = np.array(d["p"])
    assert p.min() >= 0 and abs(p.sum() - 1) < 1e-9
    # given the time, the same file is decided, and truly: the witness pairs the point that carries both labels
    d = run(capsys, "margin", path, "--kernel", "poly:degree=12,c=1", "--budget", "120")
    assert d["verdict"] == "not separable" and d["complete"] is True
    p = np.array(d["p"])
    # Gordan: Σ p_i y_i ψ(x_i) = 0 for ψ the 91 monomials x1^a x2^b (a + b ≤ 12) that span the kernel's features
    E = np.array([(a, k - a) for k in range(13) for a in range(k + 1)])
    psi = np.prod(X[:, None, :] ** E[None, :, :], axis=2)
    assert np.abs((p * y) @ psi).max() < 1e-12
