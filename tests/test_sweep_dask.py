"""Sweeps and Cover on a Dask cluster (distributed.LocalCluster on 127.0.0.1, two worker processes) give, run
for run, what the local process pool gives: every run's seeds travel with the run, not with the worker."""

import json

import pytest

from percviz.cli import main
from percviz.core import cover
from percviz.core.experiments import SweepSpec, run_sweep
from percviz.core.experiments.runners import run_all

distributed = pytest.importorskip("distributed", reason="the Dask backend needs pip install 'percviz[dask]'")

SPEC = SweepSpec(("snkp", "nkp", "perceptron"), "fixed", levels=(0.05,), ns=(10, 100, 1000, 3000))


@pytest.fixture(scope="module")
def cluster():
    with distributed.LocalCluster(n_workers=2, processes=True, threads_per_worker=1, dashboard_address=None,
                                  host="127.0.0.1") as c:
        yield c


@pytest.mark.slow
def test_sweep_on_a_local_cluster_equals_the_process_pool(cluster):
    local = run_sweep(SPEC, workers=2)
    with distributed.Client(cluster) as client:
        remote = run_sweep(SPEC, client=client)
        assert len(client.scheduler_info()["workers"]) == 2
    assert remote.runs == local.runs  # RunRecord equality: every field but the seconds
    assert [r.rho for r in remote.runs] == [r.rho for r in local.runs]
    assert len(local.runs) == 12 and all(r.status == "separator" for r in local.runs)


@pytest.mark.slow
def test_cli_sweep_and_cover_with_a_scheduler_address(cluster, capsys):
    argv = ["sweep", "-a", "snkp,nkp", "--levels", "0.5,0.2,0.1", "--json"]
    assert main([*argv, "--workers", "2"]) == 0
    local = json.loads(capsys.readouterr().out)
    assert main([*argv, "--scheduler", cluster.scheduler_address]) == 0
    remote = json.loads(capsys.readouterr().out)
    drop = lambda runs: [{k: v for k, v in r.items() if k != "seconds"} for r in runs]  # noqa: E731
    assert drop(remote["runs"]) == drop(local["runs"]) and remote["slopes"] == local["slopes"]
    argv = ["cover", "--features", "quadratic", "--n", "6,12,14", "--trials", "120", "--json"]
    assert main([*argv, "--workers", "2"]) == 0
    local = json.loads(capsys.readouterr().out)
    assert main([*argv, "--scheduler", cluster.scheduler_address]) == 0
    assert json.loads(capsys.readouterr().out) == local
    serial = cover.simulate_features((6, 12, 14), "quadratic", 120, 0)  # the in-order path of the library
    assert [r["fraction"] for r in local["rows"]] == [r.fraction for r in serial]
    assert local["rows"][0]["fraction"] == 1.0  # 6 points in general position: every labeling (d̂ = 6)


@pytest.mark.slow
def test_cover_runs_are_the_same_wherever_they_run(cluster):
    runs = cover.cover_runs((8, 9), 120)
    tasks = {key: ("linear", n, key[1], count, 4) for key, (n, count) in runs.items()}
    here = dict(run_all(cover.cover_run, tasks))
    assert all(drawn == runs[key][1] and undecided == 0 for key, (_, drawn, undecided) in here.items())
    with distributed.Client(cluster) as client:
        there = dict(run_all(cover.cover_run, tasks, client=client))
    assert here == there and len(here) == 6 and sum(c for _, c, _ in here.values()) == 240


def test_an_unknown_backend_is_refused():
    with pytest.raises(ValueError, match="Known backends: processes, dask"):
        run_all(cover.cover_run, {}, backend="mpi")
