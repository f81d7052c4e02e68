"""The runner and the results store: same results as fairlab.simulate, in task
order, on every backend; a store that skips what it has, reruns what is
corrupt, and survives kill -9 with every run exactly once."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import fairlab
import fairlab.cli
import pandas as pd
import pytest
from fairlab import runner, scenarios
from fairlab.result import TABLES
from fairlab.runner import Task, TasksFailed, run_tasks
from fairlab.store import MANIFEST, Store, check_run

TINY = [
    Task(scenarios.incast(n, rounds=2), seed=s, labels={"n": n}) for n in (1, 2) for s in (1, 2)
]


def assert_same_run(a: fairlab.Result, b: fairlab.Result) -> None:
    assert a.digest == b.digest
    assert a.scenario == b.scenario
    assert list(a.tables) == list(b.tables)
    for name in a.tables:
        pd.testing.assert_frame_equal(a.tables[name], b.tables[name], check_exact=True)
    assert a.summary.keys() == b.summary.keys()


def store_files(root: Path) -> dict[str, bytes]:
    """Every file of every stored run, by its path under runs/."""
    runs = root / "runs"
    return {
        str(p.relative_to(runs)): p.read_bytes()
        for p in sorted(runs.glob("*/*"))
        if not p.parent.name.startswith(".")
    }


def test_results_in_task_order_equal_simulate_on_the_pool():
    got = run_tasks(TINY, jobs=2, progress=False)
    for t, r in zip(TINY, got, strict=True):
        assert_same_run(r, fairlab.simulate(t.scenario, seed=t.seed))


def test_stored_runs_load_back_and_a_rerun_runs_nothing(tmp_path, monkeypatch):
    first = run_tasks(TINY, jobs=1, store=tmp_path / "s")
    st = Store(tmp_path / "s")
    assert len(st.run_keys()) == 4
    for key in st.run_keys():
        assert check_run(st.path(key)) is None
        back = fairlab.load(st.path(key))  # the same layout as Result.to_parquet
        assert back.digest in {r.digest for r in first}

    def boom(*a):
        raise AssertionError("a stored run was run again")

    monkeypatch.setattr(runner, "_execute", boom)
    again = run_tasks(TINY, jobs=1, store=tmp_path / "s")
    for a, b in zip(first, again, strict=True):
        assert_same_run(a, b)
    table = st.table()
    assert sorted(table["n"]) == [1, 1, 2, 2] and table["key"].is_unique


def test_corrupt_runs_are_detected_and_run_again(tmp_path, monkeypatch):
    run_tasks(TINY, jobs=1, store=tmp_path / "s")
    before = store_files(tmp_path / "s")
    st = Store(tmp_path / "s")
    k1, k2, k3 = st.run_keys()[:3]
    flows = st.path(k1) / "flows.parquet"
    flows.write_bytes(flows.read_bytes()[:-20])  # truncated Parquet
    (st.path(k2) / "summary.json").write_text("{not json")
    (st.path(k3) / MANIFEST).write_text('{"files": ')  # a bad manifest
    assert all(st.check(k) is not None for k in (k1, k2, k3))
    ran = []
    real = runner._execute

    def counting(text, seed, store=True):
        ran.append(seed)
        return real(text, seed, store)

    monkeypatch.setattr(runner, "_execute", counting)
    results = run_tasks(TINY, jobs=1, store=tmp_path / "s")
    assert len(ran) == 3
    assert store_files(tmp_path / "s") == before
    for t, r in zip(TINY, results, strict=True):
        assert_same_run(r, fairlab.simulate(t.scenario, seed=t.seed))


def test_the_same_run_twice_runs_once_and_keeps_both_label_sets(tmp_path, monkeypatch):
    sc = scenarios.incast(2, rounds=1)
    tasks = [Task(sc, 3, {"study": "a"}), Task(sc, 3, {"study": "b"})]
    a, b = run_tasks(tasks, jobs=2, store=tmp_path / "s")
    assert a is b
    run_tasks([Task(sc, 3, {"study": "c"})], jobs=1, store=tmp_path / "s")
    assert sorted(Store(tmp_path / "s").table()["study"]) == ["a", "b", "c"]


def test_a_bad_scenario_fails_before_anything_runs(tmp_path, monkeypatch):
    bad = scenarios.incast(2, rounds=1)
    bad["topology"]["rate"] = "fast"
    monkeypatch.setattr(runner, "_execute", lambda *a: pytest.fail("ran"))
    with pytest.raises(fairlab.ScenarioError, match=r"^task 1: topology.rate: \"fast\""):
        run_tasks([TINY[0], Task(bad)], store=tmp_path / "s")
    assert Store(tmp_path / "s").run_keys() == []


def _crash_on_seed_2(text, seed, store=True):
    if seed == 2:
        os._exit(9)  # a worker process that dies, as under the OOM killer
    return runner.__dict__["_real_execute"](text, seed, store)


def test_a_worker_that_dies_fails_its_run_only(tmp_path, monkeypatch):
    monkeypatch.setitem(runner.__dict__, "_real_execute", runner._execute)
    monkeypatch.setattr(runner, "_execute", _crash_on_seed_2)
    with pytest.raises(TasksFailed) as e:
        run_tasks(TINY, jobs=2, store=tmp_path / "s", progress=False)
    assert sorted(e.value.failures) == [1, 3]  # the seed-2 tasks, after the pool restarts
    assert "worker process running it died" in e.value.failures[1]
    assert [r is None for r in e.value.results] == [False, True, False, True]
    assert len(Store(tmp_path / "s").run_keys()) == 2


def _children(pid: int) -> list[int]:
    out = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        with contextlib.suppress(OSError, IndexError, ValueError):
            if int(stat.read_text().rsplit(")", 1)[1].split()[1]) == pid:
                out.append(int(stat.parent.name))
    return out


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="finds workers in /proc")
def test_a_worker_killed_mid_sweep_is_survived(tmp_path):
    tasks = [
        Task(scenarios.incast(4, rounds=40, min_rto="200us", resolution="1us"), seed=s)
        for s in range(1, 9)
    ]
    killed = []

    def kill_a_worker():
        end = time.monotonic() + 20
        while time.monotonic() < end and not killed:
            for pid in _children(os.getpid()):
                with contextlib.suppress(ProcessLookupError):
                    os.kill(pid, signal.SIGKILL)
                    killed.append(pid)
                    break
            time.sleep(0.005)

    th = threading.Thread(target=kill_a_worker)
    th.start()
    results = run_tasks(tasks, jobs=2, store=tmp_path / "s", progress=False)
    th.join()
    assert killed
    for t, r in zip(tasks, results, strict=True):
        assert r.digest == fairlab.simulate(t.scenario, seed=t.seed).digest
    assert len(Store(tmp_path / "s").run_keys()) == len(tasks)


SWEEP = """
name = "kill-test"
[topology]
kind = "star"
hosts = 5
rate = "1Gbps"
delay = "25us"
[host]
send_jitter = "1us"
[tcp]
min_rto = "200us"
resolution = "1us"
[[workload]]
kind = "incast"
client = "h0"
servers = "all"
sru = "64KiB"
rounds = 40
"""
SWEEP_ARGS = [
    "--param",
    "workload.0.rounds=200,300,400",
    "--param",
    "queue.limit=32KiB,64KiB",
    "--seeds",
    "4",
    "--jobs",
    "2",
]


@pytest.mark.skipif(sys.platform == "win32", reason="kill -9")
def test_kill_9_mid_sweep_loses_nothing_finished_and_reruns_to_the_same_store(tmp_path):
    (tmp_path / "s.toml").write_text(SWEEP)
    total = 3 * 2 * 4
    # The reference: the same sweep, uninterrupted.
    assert fairlab.cli.main(["sweep", str(tmp_path / "s.toml"), *SWEEP_ARGS, "--store",
                             str(tmp_path / "ref")]) == 0  # fmt: skip
    ref = store_files(tmp_path / "ref")
    assert len({k.split("/")[0] for k in ref}) == total
    cmd = [sys.executable, "-m", "fairlab", "sweep", "s.toml", *SWEEP_ARGS, "--store", "st"]
    runs = tmp_path / "st" / "runs"
    counts = []
    for at_least in (1, total // 3, 2 * total // 3):
        p = subprocess.Popen(
            cmd,
            cwd=tmp_path,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,
        )
        try:
            while True:
                done = [d for d in runs.glob("*") if not d.name.startswith(".")] if (
                    runs.is_dir()) else []  # fmt: skip
                if len(done) >= at_least or p.poll() is not None:
                    break
                time.sleep(0.002)
        finally:
            os.killpg(p.pid, signal.SIGKILL)  # the sweep and its workers, at once
            p.wait()
        # Whatever is visible as a run is whole.
        visible = [d for d in runs.glob("*") if not d.name.startswith(".")]
        assert all(check_run(d) is None for d in visible)
        counts.append(len(visible))
    assert counts[0] < total, "the sweep ended before it was killed"
    done = subprocess.run(cmd, cwd=tmp_path, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert f"holds {counts[-1]} of them" in done.stderr
    assert store_files(tmp_path / "st") == ref  # every run exactly once, bit-identical
    assert not list(runs.glob(".tmp-*"))  # the killed writers' leftovers are cleaned up
    listing = Store(tmp_path / "st").table()
    assert len(listing) == total and listing["key"].is_unique


def test_to_parquet_writes_the_store_layout(tmp_path):
    res = fairlab.simulate(scenarios.incast(2, rounds=1), seed=7)
    out = res.to_parquet(tmp_path / "run", labels={"why": "test"})
    assert check_run(out) is None
    back = fairlab.load(out)
    assert_same_run(back, res)
    assert back.files() == res.files()
    # A temporary file left by a killed writer is not read as a table.
    (out / ".tmp-1234-flows.parquet").write_bytes(b"partial")
    assert list(fairlab.load(out).tables) == list(res.tables)


def test_dask_local_cluster_stores_what_the_pool_stores(tmp_path):
    distributed = pytest.importorskip("distributed")
    (tmp_path / "s.toml").write_text(SWEEP.replace("rounds = 40", "rounds = 5"))
    args = ["sweep", str(tmp_path / "s.toml"), "--param", "workload.0.rounds=3,5"]
    args += ["--param", "queue.limit=32KiB,64KiB", "--seeds", "3"]
    assert fairlab.cli.main([*args, "--jobs", "2", "--store", str(tmp_path / "pool")]) == 0
    with (
        distributed.LocalCluster(
            n_workers=2, threads_per_worker=1, processes=False, dashboard_address=None
        ) as cluster,
    ):
        addr = cluster.scheduler_address
        assert fairlab.cli.main([*args, "--cluster", addr, "--store", str(tmp_path / "dask")]) == 0
        pool = store_files(tmp_path / "pool")
        assert len(pool) == 2 * 2 * 3 * (len(TABLES) + 3)  # files per run: the tables and 3 others
        assert store_files(tmp_path / "dask") == pool

        # A run that raises on a worker is reported on its own; the others are stored.
        def fails_on_seed_2(text, seed, store=True):
            if seed == 2:
                raise RuntimeError("no luck")
            return runner.__dict__["_real_execute"](text, seed, store)

        runner.__dict__["_real_execute"] = runner._execute
        runner._execute = fails_on_seed_2
        try:
            with pytest.raises(TasksFailed) as e:
                run_tasks(TINY, cluster=addr, store=tmp_path / "d2")
        finally:
            runner._execute = runner.__dict__.pop("_real_execute")
        assert sorted(e.value.failures) == [1, 3]
        assert e.value.failures[1] == "RuntimeError: no luck"
        assert len(Store(tmp_path / "d2").run_keys()) == 2


def test_a_failing_run_in_process_is_reported_alone_with_progress(tmp_path, monkeypatch, capsys):
    real = runner._execute

    def fails_on_seed_2(text, seed, store=True):
        if seed == 2:
            raise RuntimeError("internal simulator error (test)")
        return real(text, seed, store)

    monkeypatch.setattr(runner, "_execute", fails_on_seed_2)
    with pytest.raises(TasksFailed, match=r"^2 of 4 runs failed; task 1: RuntimeError") as e:
        run_tasks(TINY, jobs=1, store=tmp_path / "s", progress=True)
    assert [r is None for r in e.value.results] == [False, True, False, True]
    assert len(Store(tmp_path / "s").run_keys()) == 2
    bar = capsys.readouterr().err.split("\r")[-1]
    assert "4/4" in bar and "failed=2" in bar and "run/s" in bar
