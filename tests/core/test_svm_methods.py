"""The one SVM (issue 26): `svm` by SMO (default) or the interior point, `smo` an alias; SMO's loops and batching."""

import numpy as np
import pytest
from sklearn.svm import SVC
from test_smo import clouds, dual_objective

from percviz.core.data import PointSet
from percviz.core.presets import preset_from_dict
from percviz.core.problem import Problem
from percviz.core.solvers import by_family, get_solver
from percviz.core.solvers import _smo_loop
from percviz.core.solvers._smo_loop import compiled_pairs
from percviz.core.solvers.svm import SVMByInteriorPoint, SVMBySMO

SVM = get_solver("svm")
KINDS = [(sep, kernel, C) for sep in (4.0, 2.0) for kernel in ("rbf:gamma=0.5", "linear") for C in (1.0, 100.0)]


def test_svm_is_smo_by_default_and_the_interior_point_on_request():
    problem = Problem(clouds(0, n=30))
    assert type(SVM(problem)) is SVMBySMO and SVM(problem).method == "smo"
    ipm = SVM(problem, method="interior-point")
    assert type(ipm) is SVMByInteriorPoint and ipm.method == "interior-point" and ipm.name == "svm"
    old = get_solver("smo")(problem, C=2.0)  # the old name: svm with method=smo
    assert type(old) is SVMBySMO and old.name == "svm" and old.values["method"] == "smo"
    assert get_solver("smo").alias_of == "svm"
    listed = [cls.name for classes in by_family().values() for cls in classes]
    assert "svm" in listed and "smo" not in listed  # the lists show one SVM


def test_an_old_preset_naming_smo_opens_the_svm_by_smo_and_records_the_method():
    doc = {"format": "percviz-preset", "version": 1, "points": [[0, 0], [1, 1], [3, 3], [4, 3]],
           "classes": [0, 0, 1, 1], "algorithm": "smo", "params": {"C": 5.0}}
    preset = preset_from_dict(doc, "test")
    assert preset.algorithm == "svm" and preset.params == {"C": 5.0, "method": "smo"}
    again = preset_from_dict(preset.to_dict(), "test")
    assert again.algorithm == "svm" and again.params["method"] == "smo"
    ipm = preset_from_dict({**doc, "algorithm": "svm", "params": {"method": "interior-point"}}, "test")
    assert ipm.to_dict()["params"]["method"] == "interior-point"


def _svc(problem, C):
    K = problem.kernel(problem.X, problem.X)
    svc = SVC(kernel="precomputed", C=C, tol=1e-10).fit(K, problem.y)
    a = np.zeros(problem.n)
    a[svc.support_] = np.abs(svc.dual_coef_[0])
    return svc, a


@pytest.mark.parametrize("sep,kernel,C", KINDS)
def test_smo_agrees_with_svc_and_the_interior_point_on_every_cell_kind(sep, kernel, C):
    for seed in (3, 4):
        problem = Problem(clouds(seed, n=50, sep=sep), kernel=kernel)
        smo = SVM(problem, C=C, tol=1e-9).run()
        svc, a_svc = _svc(problem, C)
        ipm = SVM(problem, C=C, method="interior-point", show_iterations=False).run()
        obj = dual_objective(problem, smo.alpha)
        assert obj == pytest.approx(dual_objective(problem, a_svc), rel=1e-6)
        assert obj == pytest.approx(ipm.metrics["objective"], rel=1e-6)
        assert set(np.flatnonzero(smo.alpha > 0)) == set(svc.support_)
        Z = np.random.default_rng(seed).uniform(-4, 4, size=(30, 2))
        ref = svc.decision_function(problem.kernel(Z, problem.X))
        scale = max(1.0, np.abs(ref).max())
        assert np.abs(smo.decision(Z) - ref).max() < 1e-4 * scale
        assert np.abs(smo.decision(Z) - ipm.decision(Z)).max() < 1e-4 * scale


@pytest.mark.skipif(compiled_pairs() is None, reason="numba is not installed")
@pytest.mark.parametrize("kernel,C", [pytest.param("rbf:gamma=0.5", 100.0, marks=pytest.mark.slow), ("linear", 30.0),
                                      pytest.param("poly:degree=2", 3.0, marks=pytest.mark.slow)])
def test_the_pure_numpy_loop_takes_the_same_pairs_as_the_compiled_one(kernel, C):
    problem = Problem(clouds(7, n=90), kernel=kernel)  # overlapping: shrinking (every 90 pairs) and unshrinking
    runs = []
    for use_numpy in (False, True):
        s = SVM(problem, C=C, tol=1e-6)
        s._use_numpy = use_numpy
        pairs = [snap.triggers for snap in s.snapshots()]
        runs.append((pairs, s.last.alpha.copy(), s._F.copy()))
    assert runs[0][0] == runs[1][0] and len(runs[0][0]) > 90
    assert np.array_equal(runs[0][1], runs[1][1]) and np.array_equal(runs[0][2], runs[1][2])


@pytest.mark.slow
@pytest.mark.skipif(compiled_pairs() is None, reason="numba is not installed")
def test_the_two_loops_agree_when_the_cache_evicts_columns():
    problem = Problem(clouds(11, n=420), kernel="rbf:gamma=0.5")
    runs = []
    for use_numpy in (False, True):
        s = SVM(problem, C=10.0, tol=1e-5, cache_mb=1.0)  # 1 MB holds 312 of the 420 columns
        assert len(s._cols.X) == 420 and s._cols.capacity < 420
        s._use_numpy = use_numpy
        last = s.run()
        runs.append((last.iteration, last.alpha.copy(), s._st.ints[0]))
    assert runs[0][0] == runs[1][0] and np.array_equal(runs[0][1], runs[1][1]) and runs[0][2] == runs[1][2]


@pytest.mark.parametrize("kernel", ["rbf:gamma=0.5", "linear"])
def test_one_pair_steps_show_the_pairs_that_the_batched_path_takes(kernel):
    problem = Problem(clouds(8, n=80), kernel=kernel)
    C = 30.0 if kernel == "linear" else 100.0
    stepped = SVM(problem, C=C, tol=1e-4)
    snaps = list(stepped.snapshots())
    assert all(len(s.triggers) == 2 for s in snaps[1:])  # one pair (i, j) per step
    total = snaps[-1].iteration
    for k in (1, 7, 170, total // 2, total - 1):
        batch = SVM(problem, C=C, tol=1e-4)
        at = batch.advance(k)  # k pairs in one call of the loop (between two snapshots)
        assert at.iteration == k and at.triggers == snaps[k].triggers
        assert np.array_equal(at.alpha, snaps[k].alpha)
        assert at.metrics["objective"] == snaps[k].metrics["objective"]
    whole = SVM(problem, C=C, tol=1e-4).run()
    assert whole.iteration == total and np.array_equal(whole.alpha, snaps[-1].alpha)
    assert whole.status is snaps[-1].status


def test_a_batch_stops_at_max_iter_like_the_steps():
    problem = Problem(clouds(9, n=80), kernel="linear")
    a = SVM(problem, C=100.0, tol=1e-6, max_iter=37).run()
    b = SVM(problem, C=100.0, tol=1e-6, max_iter=37)
    for _ in b.snapshots():
        pass
    assert a.iteration == b.last.iteration == 37 and a.status is b.last.status
    assert np.array_equal(a.alpha, b.last.alpha)


def test_the_shrunk_points_gradient_is_rebuilt_before_a_snapshot_reads_it():
    problem = Problem(clouds(10, n=300), kernel="rbf:gamma=0.5")
    s = SVM(problem, C=100.0, tol=1e-6)
    snap = s.advance(1500)  # past the shrinking at 300, 600, … pairs
    assert s._act is not None and len(s._act) < problem.n
    K = problem.kernel(problem.X, problem.X)
    F = problem.y - K @ (snap.alpha * problem.y)
    assert np.abs(s._F - F).max() < 1e-9
    at_c = snap.alpha == 100.0  # the loop's running sum over the coefficients at C (LIBSVM's G_bar)
    assert at_c.sum() > 10 and np.abs(s._st.Fbar - K[:, at_c] @ (100.0 * problem.y[at_c])).max() < 1e-9
    assert snap.metrics["objective"] == pytest.approx(dual_objective(problem, snap.alpha), rel=1e-10)


def test_points_far_apart_with_the_linear_kernel_separate_and_are_certified():
    X = np.array([[0.0, 0.0], [0.5, 0.2], [3.0, 3.0], [3.5, 2.8]])
    final = SVM(Problem(PointSet.from_signed(X, [1, 1, -1, -1]), kernel="linear"), margin="hard").run()
    assert final.status.value == "separator" and final.decision(X[:2]).min() > 0 > final.decision(X[2:]).max()


@pytest.mark.skipif(compiled_pairs() is None, reason="numba is not installed")
@pytest.mark.parametrize("kernel", ["rbf:gamma=0.5", "linear", "affine"])
def test_the_loop_fills_kernel_columns_as_the_kernel_computes_them(kernel):
    problem = Problem(clouds(12, n=60, sep=2.0), kernel=kernel)
    s = SVM(problem, C=10.0)
    s.start()
    st = s._st
    assert st.kind != _smo_loop.FILL_NONE
    K = problem.kernel(problem.X, problem.X)
    cols = []
    for fill in (_smo_loop._fill, _smo_loop.fill_numpy):
        for t in (0, 17, 59):
            args = (st.cache, st.slot, st.owner, st.stamp, st.ints, st.X, st.sq, st.diag, st.kind, st.gamma)
            slot = int(fill(*args, t, st.scratch))
            assert st.slot[t] == slot and st.owner[slot] == t
            assert np.abs(st.cache[slot] - K[:, t]).max() <= 1e-14 * max(1.0, np.abs(K).max())
            cols.append(st.cache[slot].copy())
    assert all(np.array_equal(a, b) for a, b in zip(cols[:3], cols[3:]))  # the same bits from both
    assert SVM(Problem(clouds(12, n=20), kernel="poly:degree=2"), C=1.0)._cols.loop_kernel()[0] == _smo_loop.FILL_NONE


@pytest.mark.skipif(compiled_pairs() is None, reason="numba is not installed")
def test_the_loops_exp_is_numpys_to_an_ulp_and_the_same_bits_compiled_and_in_numpy():
    x = -np.random.default_rng(5).uniform(0, 760, 200_000)
    x[:5] = [0.0, -1e-300, -0.5 * np.log(2), -707.9, -708.1]
    out = np.empty_like(x)
    _smo_loop._exp(x, out, np.empty_like(x))
    assert np.array_equal(out, _smo_loop.exp_numpy(x))
    ref = np.exp(x)
    normal = x > -708.0
    assert (np.abs(out - ref)[normal] <= 2.3e-16 * ref[normal]).all() and out[0] == 1.0
    assert (out[~normal] == 0.0).all() and ref[~normal].max() < 3.3e-308


@pytest.mark.skipif(compiled_pairs() is None, reason="numba is not installed")
def test_an_rbf_column_of_far_points_is_zero_there_compiled_and_in_numpy():
    X = np.array([[0.0, 0.0], [0.5, 0.0], [40.0, 0.0], [-60.0, 3.0]])  # γ‖x − z‖² > 708 from the first point
    s = SVM(Problem(PointSet.from_signed(X, [1, -1, 1, -1]), kernel="rbf:gamma=0.5"), C=1.0)
    s.start()
    st = s._st
    cols = []
    for fill in (_smo_loop._fill, _smo_loop.fill_numpy):
        slot = int(fill(st.cache, st.slot, st.owner, st.stamp, st.ints, st.X, st.sq, st.diag, st.kind, st.gamma, 0,
                        st.scratch))
        cols.append(st.cache[slot].copy())
    assert np.array_equal(cols[0], cols[1]) and cols[0][2] == cols[0][3] == 0.0 and cols[0][1] > 0.8
