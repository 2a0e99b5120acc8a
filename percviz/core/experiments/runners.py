"""Where the independent runs of a sweep or a Cover simulation execute: here, in a local process pool, or on Dask.

Every runner takes a top-level function and {key: arguments} and yields (key, result) as runs finish, or
(None, None) every `poll` seconds while it waits. A run's result depends on its arguments alone (its seeds
travel with it), so the three give identical results run for run. Closing the iterator drops the runs not
finished: the local pool's processes are ended, a Dask cluster started here is closed.
"""

from __future__ import annotations

import multiprocessing
import uuid
from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool
from typing import Callable, Iterator

from percviz.core.errors import PercvizError

BACKENDS = ("processes", "dask")


class BackendError(PercvizError):
    """The chosen backend cannot run here (Dask missing, scheduler unreachable)."""


def _serial(fn: Callable, tasks: dict) -> Iterator[tuple]:
    for key, args in tasks.items():
        yield key, fn(*args)


def _end_pool(ex: ProcessPoolExecutor) -> None:
    """Shut the pool down without waiting for the runs in flight: their processes are ended."""
    stop = getattr(ex, "terminate_workers", None)  # Python ≥ 3.14
    if stop is not None:
        stop()
        return
    # Python < 3.14 has no public call; shutdown() forgets the processes (sets _processes to None), so take
    # them first: the n = 10⁶ run of a time-budgeted sweep went on for minutes after the command returned.
    procs = list((getattr(ex, "_processes", None) or {}).values())
    ex.shutdown(wait=False, cancel_futures=True)
    for proc in procs:
        if proc.is_alive():
            proc.terminate()
    for proc in procs:
        proc.join(timeout=5)


def _pool(fn: Callable, tasks: dict, workers: int, poll: float | None) -> Iterator[tuple]:
    ex = ProcessPoolExecutor(max_workers=workers, mp_context=multiprocessing.get_context("spawn"))
    left = dict(tasks)
    try:
        pending = {ex.submit(fn, *args): key for key, args in tasks.items()}
        waiting = set(pending)
        while waiting:
            finished, waiting = wait(waiting, timeout=poll, return_when=FIRST_COMPLETED)
            if not finished:
                yield None, None
            for fut in finished:
                result = fut.result()
                del left[pending[fut]]
                yield pending[fut], result
    except BrokenProcessPool:
        # a worker process died (e.g. a script without the __main__ guard): finish here, one run at a time
        yield from _serial(fn, left)
    finally:
        _end_pool(ex)


def dask_client(scheduler: str | None, workers: int):
    """(client, cluster or None): a Client of the scheduler at `scheduler`, or of a LocalCluster started here."""
    try:
        from distributed import Client, LocalCluster
    except ImportError:
        raise BackendError("The Dask backend needs dask and distributed: pip install 'percviz[dask]'.") from None
    if scheduler:
        try:
            return Client(scheduler, timeout="10s"), None
        except (OSError, TimeoutError, ValueError) as e:
            raise BackendError(f"Cannot reach the Dask scheduler at {scheduler} ({type(e).__name__}: {e}). "
                               "Give its address as tcp://HOST:PORT and check that 'dask scheduler' runs "
                               "there.") from None
    cluster = LocalCluster(n_workers=workers, threads_per_worker=1, processes=True, dashboard_address=None,
                           host="127.0.0.1")
    return Client(cluster), cluster


def _dask(fn: Callable, tasks: dict, workers: int, poll: float | None, scheduler: str | None,
          client=None) -> Iterator[tuple]:
    from distributed import wait as dask_wait

    own = client is None
    cluster = None
    if own:
        client, cluster = dask_client(scheduler, workers)
    tag = uuid.uuid4().hex[:8]
    pending = {}
    try:
        for key, args in tasks.items():
            pending[client.submit(fn, *args, key=f"percviz-{tag}-{len(pending)}", pure=False)] = key
        waiting = set(pending)
        while waiting:
            try:
                finished, waiting = dask_wait(waiting, timeout=poll, return_when="FIRST_COMPLETED")
            except TimeoutError:
                yield None, None
                continue
            for fut in finished:
                yield pending[fut], fut.result()
    finally:
        client.cancel(list(pending))
        if own:
            client.close()
            if cluster is not None:
                cluster.close()


def run_all(fn: Callable, tasks: dict, *, workers: int = 1, poll: float | None = None,
            backend: str = "processes", scheduler: str | None = None, client=None) -> Iterator[tuple]:
    """Yield (key, fn(*tasks[key])) as the runs finish, in the order they finish (see the module's docstring).

    backend "processes": one spawn-context process per worker (here, in order, with one worker or one run);
    "dask" (or a `scheduler` address, or a distributed `client`): each run a task of the cluster.
    """
    if backend not in BACKENDS:
        raise BackendError(f"Unknown backend '{backend}'. Known backends: {', '.join(BACKENDS)}.")
    if backend == "dask" or scheduler or client is not None:
        return _dask(fn, tasks, workers, poll, scheduler, client)
    if len(tasks) <= 1 or workers <= 1:
        return _serial(fn, tasks)
    return _pool(fn, tasks, min(workers, len(tasks)), poll)
