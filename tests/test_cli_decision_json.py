"""`solve --json` carries the decision function as numbers: each test rebuilds f(x_i) from the JSON with numpy alone
(its own kernels, its own cosines) and checks the claim, and what the solver's theory says about f (KKT, Gα)."""

import json

import numpy as np
import pytest

from percviz import cli

RNG = np.random.default_rng(7)
X = RNG.normal(size=(40, 2)) + [0.8, 0.3]  # off the origin: the SVM's bias matters
_S = X[:, 0] - 0.4 * X[:, 1] - 0.7
X = X[np.abs(_S) > 0.3][:16]  # a gap around the line x1 − 0.4 x2 = 0.7: separable by every kernel here
Y = np.where(X[:, 0] - 0.4 * X[:, 1] > 0.7, 1, -1)
XOR = np.array([[1.0, 1.0], [-1.0, -1.0], [1.0, -1.0], [-1.0, 1.0]])
XOR_Y = np.array([1, 1, -1, -1])


def strict_json(text):
    def bad(token):
        raise AssertionError(f"non-finite {token} in the JSON")
    return json.loads(text, parse_constant=bad)


def solve(capsys, tmp_path, X, y, *args):
    path = tmp_path / "d.csv"
    path.write_text("x1,x2,label\n" + "".join(f"{float(a)!r},{float(b)!r},{int(c)}\n" for (a, b), c in zip(X, y)))
    code = cli.main(["solve", str(path), *args, "--json"])
    out, err = capsys.readouterr()
    assert code == 0 and err == "", err
    return strict_json(out)


def my_kernel(spec, A, B):
    """The kernels as documented, written here with numpy (not percviz's code)."""
    name, _, rest = spec.partition(":")
    kw = dict(kv.split("=") for kv in rest.split(",") if kv)
    if name == "linear":
        return A @ B.T
    if name == "affine":
        return 1.0 + A @ B.T
    if name == "poly":
        return (A @ B.T + float(kw.get("c", 1))) ** int(kw.get("degree", 2))
    d2 = ((A[:, None, :] - B[None, :, :]) ** 2).sum(-1)
    return np.exp(-float(kw["gamma"]) * d2)


def f_of(rec, X):
    """f(x_i) from the JSON's decision record alone."""
    assert rec["form"] == "kernel-expansion"
    C = X if rec["centers"] == "points" else np.array(rec["centers"])
    s = rec["input_scale"]  # f(x) = Σ coef_i K(s c_i, s x) + bias
    return my_kernel(rec["kernel"], s * C, s * X).T @ np.array(rec["coef"]) + rec["bias"]


@pytest.mark.parametrize("algorithm,tol", [("svm:interior-point", 1e-5), ("svm", 2e-3), ("smo", 2e-3)])
@pytest.mark.parametrize("kernel", ["rbf:gamma=0.5", "affine", "poly:degree=2,c=1"])
def test_the_svm_and_smo_bias_is_in_the_json_and_meets_the_kkt_conditions(capsys, tmp_path, algorithm, kernel, tol):
    name, _, method = algorithm.partition(":")  # svm's default method is SMO (tol 1e-3); the interior point is exact
    extra = ["--param", f"method={method}"] if method else []
    d = solve(capsys, tmp_path, X, Y, "-a", name, "--kernel", kernel, "--param", "C=10", *extra)
    rec = d["decision"]
    assert d["status"] == "separator" and rec["bias"] == d["bias"] and rec["bias"] != 0
    coef = np.array(rec["coef"])
    alpha = coef * Y  # coef_i = α_i y_i
    yf = Y * f_of(rec, X)
    assert yf.min() > 0  # the claim, on f rebuilt here
    assert alpha.min() >= -1e-9 and alpha.max() <= 10 + 1e-6 and abs(coef.sum()) < 1e-6  # box and Σ α_i y_i = 0
    free = (alpha > 1e-4 * 10) & (alpha < 10 * (1 - 1e-4))
    assert free.any()
    assert np.abs(yf[free] - 1).max() < 10 * tol  # on the margin: y f = 1, which pins down b
    assert yf[alpha < 1e-8].min() > 1 - 10 * tol  # outside it: y f ≥ 1
    assert sorted(rec["support"]) == list(np.flatnonzero(coef))
    w = np.sqrt(coef @ my_kernel(kernel, X, X) @ coef)
    assert d["margin"] == pytest.approx(yf.min() / w, rel=1e-6)  # the JSON's margin, min y f/‖w‖, recomputed


@pytest.mark.parametrize("algorithm", ["svm", "smo"])
def test_a_soft_margin_with_training_errors_claims_no_margin(capsys, tmp_path, algorithm):
    # main: SMO's JSON margin was 1/‖w‖ = 14.4 here although f misclassifies points (SVM said null)
    yy = Y.copy()
    yy[:3] = -yy[:3]
    d = solve(capsys, tmp_path, X, yy, "-a", algorithm, "--kernel", "affine", "--param", "C=0.05")
    f = f_of(d["decision"], X)
    errors = int((yy * f <= 0).sum())
    assert errors > 0 and d["train_errors"] == errors and d["status"] != "separator"
    assert d["margin"] is None
    c = np.array(d["decision"]["coef"])
    w = np.sqrt(c @ my_kernel("affine", X, X) @ c)
    assert d["metrics"]["margin"] == pytest.approx((yy * f).min() / w, rel=1e-6)  # negative, as METRICS defines it


def test_rff_draws_rebuild_phi_and_the_separator(capsys, tmp_path):
    d = solve(capsys, tmp_path, XOR, XOR_Y, "-a", "perceptron", "--features", "rff:dim=400,gamma=0.5,seed=3")
    rec = d["decision"]
    assert d["status"] == "separator" and rec["form"] == "features" and rec["columns"][0] == "1"
    om, ph = np.array(rec["rff"]["omega"]), np.array(rec["rff"]["phase"])
    assert om.shape == (400, 2) and ph.shape == (400,) and rec["rff"]["scale"] == np.sqrt(2 / 400)
    phi = np.c_[np.ones(4), np.sqrt(2 / 400) * np.cos(XOR @ om.T + ph)]
    f = phi @ np.array(rec["weights"])
    assert (XOR_Y * f).min() > 1e-9 * np.abs(f).max()
    assert d["train_errors"] == 0 and np.allclose(np.array(d["weights"]), rec["weights"])
    # the draws are random Fourier features of this γ: φ(x)·φ(z) − 1 ≈ exp(−γ‖x − z‖²) (Rahimi & Recht), error ~ 1/√D
    Z = RNG.normal(size=(12, 2)) * 0.8
    pz = np.sqrt(2 / 400) * np.cos(Z @ om.T + ph)
    err = np.abs(pz @ pz.T - my_kernel("rbf:gamma=0.5", Z, Z))
    assert err.mean() < 0.06
    assert np.abs(pz @ pz.T - my_kernel("rbf:gamma=2", Z, Z)).mean() > 2 * err.mean()  # and not those of another γ


def test_an_rff_proof_is_checkable_from_the_draws(capsys, tmp_path):
    # one random feature cannot split XOR's two classes: the rows y_i φ(x_i) = y_i (1, s cos(ω·x_i + c)) are 2-D
    d = solve(capsys, tmp_path, XOR, XOR_Y, "-a", "lp-feasibility", "--features", "rff:dim=1,gamma=0.5,seed=1")
    rec = d["decision"]
    om, ph = np.array(rec["rff"]["omega"]), np.array(rec["rff"]["phase"])
    rows = XOR_Y[:, None] * np.c_[np.ones(4), rec["rff"]["scale"] * np.cos(XOR @ om.T + ph)]
    # separable in 2-D iff some a has rows·a > 0; check all directions on a fine circle and at the critical ones
    t = np.r_[np.linspace(0, 2 * np.pi, 20001), np.arctan2(-rows[:, 0], rows[:, 1]) + np.pi / 2]
    sep = ((rows @ np.array([np.cos(t), np.sin(t)])) > 0).all(axis=0).any()
    assert d["status"] == ("separator" if sep else "nonseparable"), d["message"]


@pytest.mark.parametrize("algorithm", ["nvn", "snkp", "kernel-perceptron"])
def test_the_kernel_expansion_of_the_paper_algorithms_matches_g_alpha(capsys, tmp_path, algorithm):
    kernel = "rbf:gamma=0.5"
    d = solve(capsys, tmp_path, X, Y, "-a", algorithm, "--kernel", kernel, "--max-iter", "20000")
    assert d["status"] == "separator"
    f = f_of(d["decision"], X)
    assert (Y * f).min() > 0
    if algorithm != "kernel-perceptron":  # paper: y_j f(x_j)/√K_jj = (Gα)_j with G normalized (§3)
        K = my_kernel(kernel, X, X)
        G = np.outer(Y, Y) * K / np.sqrt(np.outer(np.diag(K), np.diag(K)))
        assert np.allclose(Y * f / np.sqrt(np.diag(K)), G @ np.array(d["alpha"]), atol=1e-12)


def test_a_multiclass_machine_is_rebuilt_from_its_weight_rows(capsys, tmp_path):
    C = np.vstack([RNG.normal(size=(5, 2)) * 0.3 + c for c in ([0, 3], [3, -1], [-3, -1])])
    d = solve(capsys, tmp_path, C, np.repeat([0, 1, 2], 5), "-a", "linear-machine")
    rec = d["decision"]
    assert d["status"] == "separator" and rec["outputs"] == 3 and rec["columns"] == ["1", "x1", "x2"]
    scores = np.c_[np.ones(15), C] @ np.array(rec["weights"]).T
    assert (np.argmax(scores, axis=1) == np.repeat([0, 1, 2], 5)).all()
