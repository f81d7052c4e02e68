"""One runner for sweeps and studies: many independent runs, on a local
process pool or a Dask distributed cluster, streamed into a results store.

>>> from fairlab.runner import Task, run_tasks
>>> tasks = [Task(fairlab.scenarios.incast(n, rounds=2), seed=1, labels={"servers": n})
...          for n in (1, 2, 4)]
>>> results = run_tasks(tasks, store="runs")          # doctest: +SKIP

Results come back in the order of the tasks, whichever worker finished
first; every run is deterministic, so a task gives the same files on any
backend. A worker runs the simulation and encodes the run's files (Parquet
tables, summary and scenario JSON); the caller's process stores them as they
arrive (``fairlab.store``), so workers on other machines need no shared disk.
Before anything runs, every scenario is validated (the first bad one raises
``ScenarioError``) and keyed; with a store, runs already stored whole are
read back instead of run again, and a task whose run is stored corrupt is run
again.
"""

from __future__ import annotations

import json
import os
import queue
import signal
import sys
import threading
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from . import ScenarioError, _as_json, _core
from .result import Result
from .store import Store, manifest, run_key


@dataclass(frozen=True)
class Task:
    """One run: a scenario (what ``fairlab.simulate`` accepts), a seed (None:
    the scenario's own) and the caller's coordinates, stored with the run."""

    scenario: dict
    seed: int | None = None
    labels: Mapping[str, Any] = field(default_factory=dict)


class TasksFailed(RuntimeError):
    """Some tasks failed (after retries): every other one ran, and was stored.

    ``results`` holds a Result per task, None where it failed; ``failures``
    maps a task's index to its error, one line.
    """

    def __init__(self, results: list[Result | None], failures: dict[int, str]) -> None:
        self.results = results
        self.failures = failures
        first = min(failures)
        more = f" (and {len(failures) - 1} more)" if len(failures) > 1 else ""
        super().__init__(
            f"{len(failures)} of {len(results)} runs failed; task {first}: {failures[first]}{more}"
        )


#: Times the local pool is restarted after a worker process died (OOM killer,
#: kill -9) with the runs it had not returned; then each run left is run in a
#: process of its own, and one whose process dies again is reported as failed.
POOL_RESTARTS = 2
# How often a pool with nothing finished checks that its workers live.
POOL_POLL_S = 1.0
#: How long the store writer waits for more finished runs to store with one:
#: a process killed at any moment loses at most the runs of this last interval
#: (never a half-written run).
BATCH_WAIT = 0.1


def _execute(scenario_json: str, seed: int | None, store: bool = True) -> dict[str, bytes]:
    """Runs one scenario (normalized JSON) on a worker and returns its files:
    Parquet tables when they are to be stored (encoded here, in parallel, not
    by the process that stores them), else Arrow IPC (a twentieth of
    Parquet's encoding cost) for the caller to read."""
    raw = _core.simulate_json(scenario_json, seed, False)
    res = Result.from_core(raw)
    return res.files() if store else res.transfer_files()


def _ignore_sigint() -> None:
    # Ctrl-C reaches every process of the terminal's group: the parent
    # handles it for the whole sweep (see _stop), not each worker on its own.
    signal.signal(signal.SIGINT, signal.SIG_IGN)


def _lost_a_worker(pool: Any) -> bool:
    """Whether a process of `pool` has ended, or none is left (False where
    the pool does not show its processes)."""
    if not hasattr(pool, "_processes"):
        return False
    procs = list((pool._processes or {}).values())
    return not procs or any(p.exitcode is not None for p in procs)


def _stop(pool: Any) -> None:
    """Drops the queued runs and ends the running ones at once."""
    if hasattr(pool, "terminate_workers"):  # Python 3.14
        pool.terminate_workers()
        return
    # Before shutdown, which forgets the worker processes.
    procs = list((getattr(pool, "_processes", None) or {}).values())
    manager = getattr(pool, "_executor_manager_thread", None)
    pool.shutdown(wait=False, cancel_futures=True)
    for proc in procs:
        proc.terminate()
    # The pool's manager thread sees its workers gone and closes its wake-up
    # pipe. Waiting for it here keeps that close from racing CPython's own
    # exit hook, which writes to the same pipe: an interrupted sweep once
    # ended with a "Bad file descriptor" traceback after "fairlab:
    # interrupted" (Python 3.11's `_python_exit` checks the pipe is open and
    # writes, unlocked, while the manager thread closes it).
    if manager is not None and manager.is_alive():
        manager.join(timeout=2)


@dataclass
class _Unit:
    """One distinct run (tasks with the same key share it)."""

    key: str
    scenario_json: str
    seed: int | None
    effective_seed: int
    indices: list[int]


class _Writer:
    """Stores finished runs on a thread of its own, in batches (one group of
    fsyncs per batch), while the workers go on."""

    def __init__(self, store: Store) -> None:
        self.store = store
        self.queue: queue.Queue[Any] = queue.Queue()
        self.error: BaseException | None = None
        self.thread = threading.Thread(target=self._loop, name="fairlab-store", daemon=True)
        self.thread.start()

    def put(self, key: str, files: Mapping[str, bytes], run_json: bytes) -> None:
        if self.error is not None:
            raise self.error
        self.queue.put((key, files, run_json))

    def _loop(self) -> None:
        while True:
            item = self.queue.get()
            batch = []
            # Group commit: what arrives within BATCH_WAIT of the first run is
            # stored with it, one round of fsyncs for all (about half the CPU
            # per run of storing each alone).
            deadline = time.monotonic() + BATCH_WAIT
            while item is not None:
                batch.append(item)
                if len(batch) >= 64:
                    break
                try:
                    item = self.queue.get(timeout=max(deadline - time.monotonic(), 0))
                except queue.Empty:
                    break
            if batch:
                try:
                    self.store.put_many(batch)
                except BaseException as e:  # noqa: BLE001  (raised in the caller)
                    self.error = e
                    return
            if item is None:
                return

    def close(self) -> None:
        """Stores what is queued and stops; raises what storing raised."""
        self.queue.put(None)
        self.thread.join()
        if self.error is not None:
            raise self.error


def _plan(tasks: Sequence[Task]) -> tuple[list[_Unit], dict[str, Any]]:
    """Validates every task and groups them by run key (no simulation)."""
    version = _core.__version__
    units: dict[str, _Unit] = {}
    for i, t in enumerate(tasks):
        if t.seed is not None and not (isinstance(t.seed, int) and 0 <= t.seed < 2**64):
            raise ScenarioError(
                f"seed: {t.seed!r} is not allowed; expected an integer in [0, 2^64)"
            )
        try:
            normalized = _core.validate_json(_as_json(t.scenario))
        except ScenarioError as e:
            raise ScenarioError(f"task {i}: {e}" if len(tasks) > 1 else str(e)) from None
        eff = t.seed if t.seed is not None else int(json.loads(normalized).get("seed", 1))
        key = run_key(normalized, eff, version)
        u = units.get(key)
        if u is None:
            units[key] = _Unit(key, normalized, t.seed, eff, [i])
        else:
            u.indices.append(i)
    return list(units.values()), {"version": version}


def run_tasks(
    tasks: Sequence[Task],
    *,
    jobs: int | None = None,
    cluster: str | None = None,
    store: str | Path | None = None,
    progress: bool | None = None,
) -> list[Result]:
    """Runs ``tasks``; returns their results in task order.

    ``jobs``: worker processes of the local pool (default: all cores; 1 runs
    in this process). ``cluster``: the address of a running Dask scheduler
    (``tcp://HOST:8786``) to run on instead. ``store``: a results-store
    directory; stored runs are not run again, new ones are stored as they
    finish. ``progress``: a bar on stderr with done/total, failures and an
    ETA (default: when stderr is a terminal).

    A run that fails (after Dask's retries, or a worker process that died
    twice) does not stop the others: when all are done, ``TasksFailed`` is
    raised with every result and every failure. Ctrl-C stops the workers and
    raises KeyboardInterrupt; runs stored by then stay stored.
    """
    units, meta = _plan(tasks)
    version = meta["version"]
    st = Store(store) if store is not None else None
    results: list[Result | None] = [None] * len(tasks)
    todo: list[_Unit] = []
    for u in units:
        if st is not None and st.check(u.key) is None:
            res = st.get(u.key)
            for i in u.indices:
                st.add_labels(u.key, tasks[i].labels)
                results[i] = res
        else:
            todo.append(u)
    failures: dict[int, str] = {}
    if todo:
        _execute_units(todo, tasks, results, failures, st, version, jobs, cluster, progress)
    if failures:
        raise TasksFailed(results, failures)
    return results  # type: ignore[return-value]


def _execute_units(
    todo: list[_Unit],
    tasks: Sequence[Task],
    results: list[Result | None],
    failures: dict[int, str],
    st: Store | None,
    version: str,
    jobs: int | None,
    cluster: str | None,
    progress: bool | None,
) -> None:
    # tqdm.auto: Jupyter's widget bar in a notebook (with ipywidgets), text elsewhere.
    from tqdm.auto import tqdm

    if progress is None:
        progress = sys.stderr.isatty() or _in_notebook()
    bar = tqdm(
        total=len(todo),
        disable=not progress or len(todo) < 2,
        unit="run",
        file=sys.stderr,
        dynamic_ncols=True,
    )
    writer = _Writer(st) if st is not None else None
    nfailed = 0

    def done(u: _Unit, files: dict[str, bytes] | None, error: str | None) -> None:
        nonlocal nfailed
        if files is None:
            nfailed += 1
            for i in u.indices:
                failures[i] = error or "failed"
            bar.set_postfix(failed=nfailed, refresh=False)
        else:
            res = Result.from_files(files)
            for i in u.indices:
                results[i] = res
            if writer is not None:
                labels = [dict(tasks[i].labels) for i in u.indices]
                dedup = [x for n, x in enumerate(labels) if x not in labels[:n]]
                run_json = manifest(
                    files, key=u.key, seed=u.effective_seed, version=version, labels=dedup
                )
                writer.put(u.key, files, run_json)
        bar.update()

    try:
        if cluster is not None:
            _on_dask(cluster, todo, done, st is not None)
        else:
            workers = jobs if jobs is not None else (os.cpu_count() or 1)
            if workers <= 1 or len(todo) < 2:  # in this process
                for u in todo:
                    try:
                        files = _execute(u.scenario_json, u.seed, st is not None)
                    except Exception as e:  # noqa: BLE001  (reported per run)
                        done(u, None, _one_line(e))
                        continue
                    done(u, files, None)
            else:
                _on_pool(min(workers, len(todo)), todo, done, st is not None)
    finally:
        bar.close()
        if writer is not None:
            writer.close()


def _on_pool(workers: int, todo: list[_Unit], done: Any, store: bool) -> None:
    """Runs units on a local process pool.

    A worker process that dies (OOM killer, kill -9) breaks the pool, and
    every run it had not returned with it: those are run again in a new pool.
    After POOL_RESTARTS breaks, the runs left are run one process each, so
    that a run that kills its worker fails alone.
    """
    pending = list(todo)
    for _ in range(POOL_RESTARTS + 1):
        pending = _pool_round(workers, pending, done, store)
        if not pending:
            return
    for u in pending:
        if _pool_round(1, [u], done, store):
            done(u, None, "the worker process running it died (run alone in a new process)")


def _pool_round(workers: int, units: list[_Unit], done: Any, store: bool) -> list[_Unit]:
    """Runs ``units`` in one pool; returns those lost when the pool broke."""
    from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait
    from concurrent.futures.process import BrokenProcessPool

    broken: list[_Unit] = []
    pool = ProcessPoolExecutor(max_workers=min(workers, len(units)), initializer=_ignore_sigint)
    try:
        futs = {}
        try:
            for u in units:
                futs[pool.submit(_execute, u.scenario_json, u.seed, store)] = u
        except BrokenProcessPool:
            # A worker died while runs were still being handed out: the
            # pool takes no more, and what was not submitted goes to the next.
            broken.extend(units[len(futs) :])
        waiting = set(futs)
        while waiting:
            finished, waiting = wait(waiting, timeout=POOL_POLL_S, return_when=FIRST_COMPLETED)
            if not finished and _lost_a_worker(pool):
                # CPython's pool can miss a worker killed while it was being
                # started or handed work, and then its futures wait for ever
                # (seen in CI: test_a_worker_killed_mid_sweep_is_survived
                # hung with no worker left). What is left goes to the next pool.
                broken.extend(futs[f] for f in waiting)
                _stop(pool)
                return broken
            for f in finished:
                u = futs[f]
                try:
                    files = f.result()
                except BrokenProcessPool:
                    broken.append(u)
                    continue
                except Exception as e:  # noqa: BLE001  (reported per run)
                    done(u, None, _one_line(e))
                    continue
                done(u, files, None)
    except BaseException:
        _stop(pool)
        raise
    pool.shutdown(wait=True, cancel_futures=True)
    return broken


def _on_dask(address: str, todo: list[_Unit], done: Any, store: bool) -> None:
    """Runs units on a Dask distributed cluster; results are taken as they finish.

    A worker lost while running a run makes the scheduler run it elsewhere
    (its ``allowed-failures``, 3 by default); after that the run fails with
    KilledWorker and is reported on its own.
    """
    try:
        from distributed import Client, as_completed
    except ImportError:
        raise ScenarioError(
            "--cluster needs Dask distributed: pip install 'fairlab[cluster]'"
        ) from None
    try:
        client = Client(address, timeout="10s", set_as_default=False)
    except OSError as e:
        raise OSError(f"cannot reach the Dask scheduler at {address}: {e}") from None
    futs = []
    try:
        futs = [
            client.submit(
                _execute, u.scenario_json, u.seed, store, key=f"fairlab-{u.key}-{int(store)}"
            )
            for u in todo
        ]
        by_key = {f.key: u for f, u in zip(futs, todo, strict=True)}
        for f in as_completed(futs, loop=client.loop):
            u = by_key[f.key]
            if f.status == "finished":
                try:
                    files = f.result()
                except Exception as e:  # noqa: BLE001  (lost between status and result)
                    done(u, None, _one_line(e))
                    continue
                done(u, files, None)
            else:
                done(u, None, _one_line(f.exception()))
            f.release()
    except KeyboardInterrupt:
        client.cancel(futs, force=True)
        raise
    finally:
        client.close()


def _in_notebook() -> bool:
    """Whether this process is a Jupyter kernel (a bar is drawn there by
    default, as on a terminal)."""
    shell = sys.modules.get("IPython")
    get = getattr(shell, "get_ipython", None)
    try:
        return get is not None and type(get()).__name__ == "ZMQInteractiveShell"
    except Exception:  # noqa: BLE001  (IPython half torn down)
        return False


def _one_line(e: BaseException | None) -> str:
    if e is None:
        return "failed"
    text = " ".join(str(e).split()) or type(e).__name__
    return f"{type(e).__name__}: {text}"
