"""`percviz solve`/`margin` on tables in R^d: CSV with any number of feature columns, .npy and .npz files."""

import json

import numpy as np

from percviz import cli
from percviz.core import datasets as ds
from percviz.core.tables import read_table


def run(capsys, *argv):
    code = cli.main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def solve_json(capsys, *argv):
    code, out, err = run(capsys, "solve", *argv, "--json")
    assert code == 0, err
    return json.loads(out)


def write_csv(path, X, labels, header=None, label_first=False):
    rows = [np.concatenate([[l], x]) if label_first else np.concatenate([x, [l]]) for x, l in zip(X, labels)]
    lines = ([",".join(header)] if header else []) + [",".join(repr(float(v)) for v in r) for r in rows]
    path.write_text("\n".join(lines) + "\n")
    return path


def test_winnow_experiment_of_the_notes_runs_through_the_cli(tmp_path, capsys):
    """Notes §5.5.3: mistakes in one pass over 3000 sparse samples, perceptron vs balanced Winnow."""
    expected = {20: (32, 22), 200: (161, 47), 2000: (662, 59)}
    for (Yb, z), d in zip(ds.winnow_streams(), (20, 200, 2000)):
        X = Yb[:, 1:]  # the file holds the raw features; the augmented map adds the 1 back
        if d == 2000:  # 6 million numbers: as a NumPy file (last column the label)
            path = tmp_path / "winnow.npy"
            np.save(path, np.column_stack([X, z]))
        else:
            path = write_csv(tmp_path / f"winnow{d}.csv", X, z, [f"f{i}" for i in range(d)] + ["z"])
        got = []
        for algo in ("fixed-increment", "winnow"):
            res = solve_json(capsys, str(path), "-a", algo, "--param", "max_passes=1")
            assert res["n"] == 3000 and len(res["weights"]) == d + 1
            got.append(res["iterations"])
        assert tuple(got) == expected[d]


def test_label_column_by_name_and_index(tmp_path, capsys):
    rng = np.random.default_rng(0)
    X = rng.normal(size=(20, 4))
    y = np.where(X[:, 0] + X[:, 3] > 0, 1, -1)
    first = write_csv(tmp_path / "first.csv", X, y, ["label", "a", "b", "c", "d"], label_first=True)
    by_name = solve_json(capsys, str(first), "-a", "snkp", "--label-column", "label")
    by_index = solve_json(capsys, str(first), "-a", "snkp", "--label-column", "0")
    assert by_name["status"] == by_index["status"] == "separator"
    assert by_name["alpha"] == by_index["alpha"]
    P = read_table(first, "label")
    assert P.dim == 4 and np.array_equal(P.X, X) and np.array_equal(P.y, y)
    code, _, err = run(capsys, "solve", str(first), "-a", "snkp", "--label-column", "e")
    assert code == 1 and "'e' is neither a column name nor an index" in err and err.count("\n") == 1
    code, _, err = run(capsys, "solve", str(first), "-a", "snkp", "--label-column", "7")
    assert code == 1 and "out of range" in err


def test_npz_and_margin_in_5d(tmp_path, capsys):
    rng = np.random.default_rng(1)
    X = rng.normal(size=(30, 5))
    y = np.where(X @ [1, -1, 0.5, 0, 2] > 0.3, 1, -1)
    np.savez(tmp_path / "d5.npz", X=X, y=y)
    code, out, err = run(capsys, "margin", str(tmp_path / "d5.npz"), "--json")
    assert code == 0, err
    m = json.loads(out)
    assert m["separable"] and m["n"] == 30 and m["rho"] > 0
    res = solve_json(capsys, str(tmp_path / "d5.npz"), "-a", "snkp", "--max-iter", "100000")
    assert res["status"] == "separator" and res["train_errors"] == 0
    assert 0 < res["margin"] <= m["rho"] * (1 + 1e-9)  # no separator beats the optimal margin
    np.savez(tmp_path / "bad.npz", A=X)
    code, _, err = run(capsys, "solve", str(tmp_path / "bad.npz"), "-a", "snkp")
    assert code == 1 and "np.savez(path, X=X, y=y)" in err


def test_bad_tables_say_what_is_wrong(tmp_path, capsys):
    (tmp_path / "ragged.csv").write_text("1,2,3,4,1\n1,2,3,-1\n")
    code, _, err = run(capsys, "solve", str(tmp_path / "ragged.csv"), "-a", "snkp")
    assert code == 1 and "line 2" in err and "4 columns; expected 5" in err
    np.save(tmp_path / "flat.npy", np.arange(5.0))
    code, _, err = run(capsys, "solve", str(tmp_path / "flat.npy"), "-a", "snkp")
    assert code == 1 and "n×(d+1)" in err
    (tmp_path / "text.csv").write_text("a,b,c,label\n1,2,x,1\n")
    code, _, err = run(capsys, "solve", str(tmp_path / "text.csv"), "-a", "snkp")
    assert code == 1 and "c is not a number: 'x'" in err


def test_three_column_csv_reads_as_before(tmp_path):
    """x,y,label files keep their header rules (columns by name) when no --label-column is given."""
    path = tmp_path / "p.csv"
    path.write_text("label,y,x\n1,2,3\n-1,0,1\n")
    from percviz.core.presets import load_scene

    assert np.array_equal(load_scene(path).points.X, [[3, 2], [1, 0]])
    assert np.array_equal(read_table(path, "label").X, [[2, 3], [0, 1]])  # as a table: the file's order


def test_the_window_refuses_d_dimensional_data_in_one_line(tmp_path, capsys):
    np.save(tmp_path / "d3.npy", np.column_stack([np.eye(3), [1, -1, 1]]))
    code, _, err = run(capsys, str(tmp_path / "d3.npy"))
    assert code == 1 and err.count("\n") == 1
    assert "shows 2-D scenes" in err and "d = 3" in err and "percviz solve" in err


def test_export_refuses_d_dimensional_data_in_one_line(tmp_path, capsys):
    np.save(tmp_path / "d4.npy", np.column_stack([np.eye(4), [1, -1, 1, -1]]))
    code, _, err = run(capsys, "export", str(tmp_path / "d4.npy"), "--out", str(tmp_path / "run.gif"), "-a", "snkp")
    assert code == 1 and err.count("\n") == 1 and "d = 4" in err
