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


SEPARABLE = (np.array([[0.35, 0.82], [1.2, -0.4], [0.9, 0.3], [-0.2, -1.1], [-1.0, 0.5], [-0.7, -0.2], [0.1, 1.4],
                       [-0.3, 0.9]]), np.array([1, 1, 1, -1, -1, -1, 1, 1]))  # split by 2 x1 + x2 > 0.05 (origin-free)
XOR4 = (np.array([[1.0, 1.0], [-1.0, -1.0], [1.0, -1.0], [-1.0, 1.0]]), np.array([1, 1, -1, -1]))
PAPER_AND_PERCEPTRON = ("snkp", "nvn", "isnkpvn", "kernel-perceptron")


def rebuilt_f(rec, X):
    """f(x_i) from the JSON's kernel expansion, with this file's numpy kernels: f(x) = Σ coef K(s c, s x) + bias."""
    s = rec["input_scale"]
    C = s * (X if rec["centers"] == "points" else np.array(rec["centers"]))
    name, _, rest = rec["kernel"].partition(":")
    kw = dict(kv.split("=") for kv in rest.split(",") if kv)
    K = (s * X) @ C.T
    if name == "poly":
        K = (K + float(kw["c"])) ** int(kw["degree"])
    return K @ np.array(rec["coef"]) + rec["bias"]


@pytest.mark.parametrize("kernel", ["linear", "poly:degree=3,c=0"])
@pytest.mark.parametrize("data", ["separable", "xor"])
def test_homogeneous_kernels_give_the_verdicts_of_scale_1_at_any_small_scale(capsys, tmp_path, kernel, data):
    # main: "K(x, x) = 8e-25 cannot be normalized" at 1e-12 (an absolute threshold), although no point is at the origin
    X, y = SEPARABLE if data == "separable" else XOR4
    ref = {}
    for scale in (1.0, 1e-12, 1e-300):
        path = write(tmp_path / f"s{scale:g}.csv", X * scale, y)
        for alg in PAPER_AND_PERCEPTRON:
            d = run(capsys, "solve", path, "-a", alg, "--kernel", kernel, "--max-iter", "3000")
            ref.setdefault(alg, d["status"])
            assert d["status"] == ref[alg], (alg, scale)
            if d["status"] == "separator":  # the claim, on f rebuilt here from the JSON at this scale
                assert (y * rebuilt_f(d["decision"], X * scale)).min() > 0, (alg, scale)
            if d["status"] == "certificate":
                assert d["certificate_g_norm"] <= d["params"].get("eps", d["params"].get("delta"))
        m = run(capsys, "margin", path, "--kernel", kernel)
        ref.setdefault("margin", (m["verdict"], m["rho"]))
        assert m["verdict"] == ref["margin"][0] and m["rho"] == pytest.approx(ref["margin"][1], rel=1e-9, abs=1e-12)
    # the truth, decided here: the separable set is split by 2 x1 + x2 (a linear, hence also cubic, separator in
    # these feature spaces: (2 x1 + x2)^3 is a cubic monomial combination); XOR has no linear or odd-cubic separator
    # (f(−x) = −f(x) for a homogeneous odd kernel, and x, −x carry the same label)
    if data == "separable":
        assert (y * (2 * X[:, 0] + X[:, 1])).min() > 0 and ref["margin"][0] == "separable"
    else:
        assert ref["margin"][0] == "not separable" and all(ref[a] != "separator" for a in PAPER_AND_PERCEPTRON)


def test_a_point_at_the_origin_is_still_refused_in_one_line(capsys, tmp_path):
    X, y = SEPARABLE
    path = write(tmp_path / "o.csv", np.vstack([X * 1e-12, [0.0, 0.0]]), np.r_[y, 1])
    code = cli.main(["solve", str(path), "-a", "nvn", "--kernel", "linear"])
    out, err = capsys.readouterr()
    assert code == 1 and out == "" and err.count("\n") == 1 and "Point 8 at (0, 0)" in err and "origin" not in err


THIN = (np.array([[0.0, 1 + 1e-11], [0.0, 1 - 1e-11], [1.0, 1 + 1e-11], [1.0, 1 - 1e-11], [-1.0, 1 + 1e-11]]),
        np.array([1, -1, 1, -1, 1]))


@pytest.mark.parametrize("algorithm", ["lp-feasibility", "lp-perceptron", "ho-kashyap-identity"])
def test_no_proof_when_the_margin_is_below_the_lp_tolerance(capsys, tmp_path, algorithm):
    # main: "proof of non-separability" from lp-feasibility and lp-perceptron: HiGHS's infeasibility is decided
    # within its 1e-7 tolerances; the set is split by x2 = 1 (margins ±1e-11, exact on the stored floats)
    from fractions import Fraction

    X, y = THIN
    assert all(int(yi) * (Fraction(float(x2)) - 1) > 0 for (_, x2), yi in zip(X, y))
    d = run(capsys, "solve", write(tmp_path / "t.csv", X, y), "-a", algorithm, "--features", "linear")
    assert d["status"] != "nonseparable", d["message"]


def test_margin_does_not_call_a_thin_separable_set_not_separable(capsys, tmp_path):
    X, y = THIN
    d = run(capsys, "margin", write(tmp_path / "t.csv", X, y), "--kernel", "affine")
    assert d["verdict"] != "not separable"
    lo, hi = d["rho_interval"]
    assert hi > 0  # ρ_K > 0 here (x2 = 1 separates), so the interval must admit it


def test_a_true_proof_still_stands(capsys, tmp_path):
    # XOR plus a point carrying both labels: Gordan's witness is exact (½ on XOR's pairs), so the proof is shown
    X, y = XOR4
    d = run(capsys, "solve", write(tmp_path / "x.csv", X, y), "-a", "lp-feasibility", "--features", "linear")
    assert d["status"] == "nonseparable"
    d = run(capsys, "margin", write(tmp_path / "x.csv", X, y), "--kernel", "affine")
    assert d["verdict"] == "not separable"
