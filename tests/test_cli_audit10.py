"""Issue 10's reproducers through the user's path (the CLI, JSON read strictly), and what the second audit found:
proofs of non-separability that G's or φ's rounding made at tiny scales (bench/audit_claims.py)."""

import json
from fractions import Fraction

import numpy as np
import pytest

from percviz import cli
from percviz.core.data import PointSet
from percviz.core.presets import write_csv

T = np.array([-2.0, -1.3, -0.5, 0.2, 0.7, 1.5, 1.9])
LINE = PointSet.from_signed(np.c_[T, 0.5 * T + 1], np.where(T > 0.1, 1, -1))  # distinct, affinely separable
XOR = PointSet.from_signed([[1, 1], [-1, -1], [1, -1], [-1, 1]], [1, 1, -1, -1])


def strict_json(text):
    def bad(token):
        raise AssertionError(f"non-finite {token} in the JSON")
    return json.loads(text, parse_constant=bad)


def run_json(capsys, *argv):
    code = cli.main([str(a) for a in argv] + ["--json"])
    out, err = capsys.readouterr()
    assert code == 0 and err == "", err
    return strict_json(out)


def one_line(capsys, *argv, status=2):
    code = cli.main([str(a) for a in argv])
    out, err = capsys.readouterr()
    assert code == status and out == "" and err.count("\n") == 1, err
    assert "internal error" not in err and "Traceback" not in err and "Warning" not in err
    return err


def csv(tmp_path, points, scale, name="d.csv"):
    return write_csv(PointSet(points.X * scale, points.classes), tmp_path / name)


def exactly_separated(points, scale, a, monomials):
    """y_i Σ_k a_k m_k(x_i) > 0 for every point, in exact rational arithmetic (x_i as stored in the file)."""
    for x, y in zip(points.X * scale, points.y):
        fx = [Fraction(float(v)) for v in x]
        f = sum(Fraction(ak) * (fx[0] ** e[0]) * (fx[1] ** e[1]) for ak, e in zip(a, monomials))
        if y * f <= 0:
            return False
    return True


@pytest.mark.parametrize("scale", [1e-12, 1e-300])
@pytest.mark.parametrize("kernel", ["rbf:gamma=0.5", "laplacian:gamma=0.5", "affine", "poly:degree=2,c=1"])
def test_margin_never_proves_non_separability_of_separable_points_at_tiny_scales(capsys, tmp_path, kernel, scale):
    # Audit 2: 'not separable' (interval [-1, 0]) for these points at 1e-12…1e-300: G rounds to ±1 everywhere.
    # They are separable: distinct (RBF, Laplacian: strictly positive definite) and split by x1 = 0.1 (affine, poly).
    assert exactly_separated(LINE, scale, [-0.1 * scale, 1.0], [(0, 0), (1, 0)])  # f = x1 − 0.1·scale
    assert len(np.unique(LINE.X * scale, axis=0)) == LINE.n
    res = run_json(capsys, "margin", csv(tmp_path, LINE, scale), "--kernel", kernel)
    assert res["verdict"] in ("separable", "undecided"), res["rho_interval"]
    lo, hi = res["rho_interval"]
    assert lo <= hi and hi > 0  # an undecided interval must leave room for the true ρ_K > 0


@pytest.mark.parametrize("scale", [1e-12, 1e-300])
def test_true_proofs_survive_tiny_scales(capsys, tmp_path, scale):
    res = run_json(capsys, "margin", csv(tmp_path, XOR, scale), "--kernel", "affine")
    assert res["verdict"] == "not separable"  # XOR: no line, at any scale
    both = PointSet.from_signed(np.r_[LINE.X, LINE.X[:1]], np.r_[LINE.y, -LINE.y[0]])
    res = run_json(capsys, "margin", csv(tmp_path, both, scale, "b.csv"), "--kernel", "rbf:gamma=0.5")
    assert res["verdict"] == "not separable"  # one point with both labels: a proof at any scale


@pytest.mark.parametrize("algorithm, features, points, a, monomials", [
    # Audit 2: 'min J_p′ = 4 > 0: a proof that no separating vector exists' for XOR at 1e-300 (x1·x2 underflows).
    ("lp-perceptron", "quadratic", XOR, [1.0], [(1, 1)]),
    ("lp-feasibility", "quadratic", XOR, [1.0], [(1, 1)]),
    ("ho-kashyap", "quadratic", XOR, [1.0], [(1, 1)]),
    # 'min τ = 1 > 0' for a separable set with the cubic map at 1e-300.
    ("lp-feasibility", "poly:degree=3", LINE, [-0.1, 1.0], [(0, 0), (1, 0)]),
])  # fmt: skip
def test_no_proof_when_the_monomials_underflow(capsys, tmp_path, algorithm, features, points, a, monomials):
    scale = 1e-300
    coef = [Fraction(ak) / Fraction(scale) ** sum(e) for ak, e in zip(a, monomials)]  # e.g. 1e600 for x1·x2
    assert exactly_separated(points, scale, coef, monomials)  # a separator of the file's points, exactly
    res = run_json(capsys, "solve", csv(tmp_path, points, scale), "-a", algorithm, "-f", features, "--max-iter", 3000)
    assert res["status"] != "nonseparable", res["message"]


#: The audit's 14-point set (labels of points 0 and 1 forced): not linearly separable, separable by a cubic.
AUDIT14 = PointSet.from_signed(np.array([
    [-1.2229615536363831, -0.8200073297590071], [-0.5798951701414324, 1.1639936635186574],
    [0.48655388561689933, 0.883008053753572], [2.6698004861033566, 2.3459150496814094],
    [1.9340826283918513, -0.2714952454349612], [-0.5261492191528215, -0.9995862639483097],
    [0.29600562890615956, 0.5272817631560052], [-0.960832010254033, -1.638933115184173],
    [1.5951257833032297, -3.07332810938765], [0.6296083281483305, 1.4816932852842752],
    [-0.9869958683082559, -1.5958663105424011], [-0.5375367203790004, 1.9260911284027826],
    [0.7240526316716647, -3.1091525149535504], [0.13701712487151674, 2.6578355503258684]]),
    [1, -1, -1, -1, -1, 1, -1, 1, -1, -1, 1, 1, -1, -1])


def test_the_audits_cubic_case_at_1e_300(capsys, tmp_path):
    # main: 'min τ = 1 > 0: a proof that no separating vector exists' (x², x³ of 1e-300 underflow to 0).
    from lp_oracle import lp_separable

    X = AUDIT14.X
    cubic = np.column_stack([X[:, 0] ** i * X[:, 1] ** j for i in range(4) for j in range(4 - i)])
    assert lp_separable(AUDIT14.y[:, None] * cubic)  # at unit scale; scaling x multiplies columns by s^k > 0
    assert not lp_separable(AUDIT14.y[:, None] * np.c_[np.ones(AUDIT14.n), X])  # the linear proof is real
    res = run_json(capsys, "solve", csv(tmp_path, AUDIT14, 1e-300), "-a", "lp-feasibility", "-f", "poly:degree=3")
    assert res["status"] != "nonseparable", res["message"]
    res = run_json(capsys, "solve", csv(tmp_path, AUDIT14, 1e-300), "-a", "lp-feasibility", "-f", "linear")
    assert res["status"] == "nonseparable", res["message"]


def test_no_proof_when_a_non_monomial_map_merges_distinct_points(capsys, tmp_path):
    res = run_json(capsys, "solve", csv(tmp_path, LINE, 1e-300), "-a", "lp-feasibility", "-f", "rff:dim=20")
    assert res["status"] != "nonseparable" and "same row" in res["message"]


@pytest.mark.parametrize("kernel", ["rbf:gamma=0.5", "affine", "poly:degree=2,c=1"])
def test_hard_margin_svm_does_not_call_tiny_separable_points_non_separable(capsys, tmp_path, kernel):
    err = one_line(capsys, "solve", csv(tmp_path, LINE, 1e-12), "-a", "svm", "-k", kernel, "-p", "margin=hard", status=1)
    assert "Not separable" not in err and "Scale the points" in err


def test_hard_margin_svm_still_refuses_a_truly_non_separable_set(capsys, tmp_path):
    err = one_line(capsys, "solve", csv(tmp_path, XOR, 1e-12), "-a", "svm", "-k", "affine", "-p", "margin=hard", status=1)
    assert "Not separable by the affine kernel" in err


# -- the issue's own reproducers, on the CLI ----------------------------------------------------------------
def test_rls_degree_12_on_the_notes_80_samples_diverges(capsys):
    res = run_json(capsys, "solve", "notes-80-separable", "-a", "rls", "-f", "poly:degree=12")
    assert res["status"] == "diverged", res["message"]  # before: |w| 1.4e83, 29 errors, 'converged'
    assert res["weights"] is None or all(abs(w) < 1e100 for w in res["weights"])


def test_batch_relaxation_on_two_opposite_points_at_one_place(capsys, tmp_path):
    path = tmp_path / "two.csv"
    path.write_text("x,y,label\n0.5,0.5,1\n0.5,0.5,-1\n")
    res = run_json(capsys, "solve", path, "-a", "batch-relaxation")
    assert res["status"] == "nonseparable" and "b = 0" not in res["message"]


@pytest.mark.parametrize("algorithm, param", [
    ("variable-increment", "eta=inf"), ("rls", "r0=inf"), ("batch-perceptron", "eta=1.9e153"),
    ("relaxation", "b=6e153"), ("variable-increment", "eta=1e400"), ("lms", "eta=nan"),
])  # fmt: skip
def test_huge_parameters_are_refused_in_one_line(capsys, algorithm, param):
    err = one_line(capsys, "solve", "notes-80-separable", "-a", algorithm, "-p", param)
    assert f"--param {param.split('=')[0]}" in err


def test_isnkpvn_rbf_1e6_reproducer(capsys, tmp_path):
    # Ten + at (1, 1), one − at (1643721.38, −2806080.42): beyond the coordinate limit, refused in one line …
    path = tmp_path / "far.csv"
    path.write_text("x,y,label\n" + "1,1,1\n" * 10 + "1643721.38,-2806080.42,-1\n")
    assert "too large" in one_line(capsys, "solve", path, "-a", "isnkpvn", "-k", "rbf:gamma=1e6", "--max-iter", 0, status=1)
    # … and scaled into range, a separator claim must hold: y·f > 0 at every point, f recomputed here
    from percviz.core.problem import Problem
    from percviz.core.solvers import Status, get_solver

    X = np.array([[1.0, 1.0]] * 10 + [[1643721.38, -2806080.42]]) / 3
    y = np.r_[np.ones(10), -1.0]
    snap = get_solver("isnkpvn")(Problem(PointSet.from_signed(X, y), kernel="rbf:gamma=1e6"), max_iter=0).run()
    if snap.status is Status.SEPARATOR:
        K = np.exp(-1e6 * ((X[:, None, :] - X[None, :, :]) ** 2).sum(axis=2))  # unit diagonal: no normalization
        assert (y * (K @ (snap.alpha * y)) > 0).all()


@pytest.mark.parametrize("algorithm, eps", [("nvn", 1e-2), ("isnkpvn", 5e-2)])
def test_a_thin_separable_set_gets_an_epsilon_certificate_not_a_proof(capsys, algorithm, eps):
    # ρ_K ≈ 0.0049 > 0 but below ε: the answer must be the paper's ε-certificate (no separator with margin above
    # ε), never "no separator exists". (The former test's set let NVN find a separator, so it asserted nothing.)
    from lp_oracle import lp_separable

    from percviz.core.presets import SHIPPED_DIR, load_preset

    thin = load_preset(SHIPPED_DIR / "thin-margin.json").points
    Z = np.c_[np.ones(thin.n), thin.X]  # the affine kernel's features (1, x)
    assert lp_separable(thin.y[:, None] * Z)
    res = run_json(capsys, "solve", "thin-margin", "-a", algorithm, "-k", "affine", "-p", f"eps={eps}")
    assert res["status"] == "certificate", res["message"]
    assert "ε-certificate" in res["message"] and "no separator exists" not in res["message"]
    p = np.array(res["p"])
    Zn = thin.y[:, None] * Z / np.linalg.norm(Z, axis=1)[:, None]
    assert p.min() >= 0 and abs(p.sum() - 1) < 1e-12
    assert np.linalg.norm(Zn.T @ p) <= eps * (1 + 1e-12)  # ‖p‖_G ≤ ε, recomputed here


def test_an_rbf_certificate_holds_with_distances_from_differences(capsys, tmp_path):
    # Audit 2: ISNKPVN claimed 'ε-certificate: ‖p‖_G < ε = 0.001' here, but ‖p‖_G = 0.00137: close points far from
    # the origin, where ‖x‖² + ‖z‖² − 2x·z rounds ‖x − z‖² = 4e-12 to about ±1e-10 (γ = 1e6: K off by 1e-4).
    from decimal import Decimal, getcontext

    base = np.array([[0, 1e-9], [0, -1e-9], [1, 1e-9], [1, -1e-9], [-1, 1e-9]]) + [0, 1]
    pts = PointSet.from_signed(base * 1000, [1, -1, 1, -1, 1])
    res = run_json(capsys, "solve", csv(tmp_path, pts, 1.0), "-a", "isnkpvn", "-k", "rbf:gamma=1e6",
                   "--max-iter", 3000)
    getcontext().prec = 50
    X = [[Decimal(float(v)) for v in row] for row in pts.X]
    p = [Decimal(float(v)) * int(s) for v, s in zip(res["p"], pts.y)]
    q = sum(p[i] * p[j] * (-Decimal("1e6") * sum((a - b) ** 2 for a, b in zip(X[i], X[j]))).exp()
            for i in range(pts.n) for j in range(pts.n))
    if res["status"] == "certificate":
        assert float(q.sqrt()) <= res["params"]["eps"], res["message"]
    else:
        assert "coordinate differences" in res["message"] or res["status"] == "separator"


def test_the_input_margin_of_a_huge_weight_vector_prints_no_warning(capsys, tmp_path):
    # Audit 2: points at 1e-300 give |w| ≈ 1e300; ‖w‖ and w·w overflowed with RuntimeWarnings on stderr.
    res = run_json(capsys, "solve", csv(tmp_path, LINE, 1e-300), "-a", "lp-feasibility", "-p", "margin_vector=fisher")
    assert res["status"] == "separator" and 0 < res["input_margin"] < 1e-299
