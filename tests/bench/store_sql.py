"""SQL over a large results store (issue 24, item 2): a grouped query over
every run's flows table.

    python tests/bench/store_sql.py [--runs 10000] [--store DIR] [--repeat 5] [--reindex]

Builds the store once, with the runner and the store's own writer, from real
simulations: a tiny incast (2 rounds of 16 KiB) at 4 server counts and 5
switch buffers, each with its own seeds (1, 2, ...), so that every run is a
distinct simulation with its own results (10,000 runs: 4 x 5 x 500 seeds).
A store already in DIR with that many runs is reused. Then prints, as
medians of the repeats, the wall time of

  open    fairlab.open_store(DIR): list the runs, check each (run.json, the
          sizes of its files, summary.json), make the views
  query   a grouped query over all runs' flows tables (goodput and timeouts
          by buffer and servers) on a store opened once
  first   (--reindex) the first open, which writes the store's index
  cold    open and query in a fresh process (what `fairlab results DIR
          --sql` costs, interpreter start and imports included)
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

import fairlab
from fairlab.runner import Task, run_tasks

SERVERS = (1, 2, 4, 8)
BUFFERS = ("16KiB", "32KiB", "64KiB", "128KiB", "256KiB")

QUERY = """
SELECT buffer, servers, count(DISTINCT key) AS runs, count(*) AS flows,
       avg(goodput_bps) / 1e6 AS goodput_mbps, sum(timeouts) AS timeouts
FROM flows GROUP BY buffer, servers ORDER BY servers, buffer
"""


def tasks(runs: int) -> list[Task]:
    """``runs`` tasks: every (servers, buffer) point with seeds 1, 2, ..."""
    points = [(n, b) for n in SERVERS for b in BUFFERS]
    out = []
    for i in range(runs):
        n, b = points[i % len(points)]
        seed = i // len(points) + 1
        sc = fairlab.scenarios.incast(n, rounds=2, sru="16KiB", buffer=b)
        out.append(Task(sc, seed=seed, labels={"servers": n, "buffer": b, "seed": seed}))
    return out


def build(root: Path, runs: int, jobs: int | None) -> float:
    """Runs and stores the tasks not yet stored; returns the wall time."""
    t0 = time.perf_counter()
    todo = tasks(runs)
    for start in range(0, len(todo), 1000):  # a batch at a time: bounded memory
        run_tasks(todo[start : start + 1000], jobs=jobs, store=root, progress=True)
    return time.perf_counter() - t0


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=10_000)
    ap.add_argument("--store", type=Path, default=Path("/tmp/fairlab-store-10k"))
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--jobs", type=int, default=None)
    ap.add_argument("--reindex", action="store_true", help="remove the index and time its writing")
    args = ap.parse_args()
    have = len(fairlab.open_store(args.store).run_keys()) if args.store.exists() else 0
    if have != args.runs:
        wall = build(args.store, args.runs, args.jobs)
        print(f"built {args.runs} runs into {args.store} in {wall:.1f} s")
    if args.reindex:
        shutil.rmtree(args.store / "index", ignore_errors=True)
        t0, c0 = time.perf_counter(), time.process_time()
        fairlab.open_store(args.store).dataset()
        wall, cpu = time.perf_counter() - t0, time.process_time() - c0
        print(f"first open, index written: {wall:.1f} s (CPU {cpu:.1f} s)")
    opens, queries, colds, cpu_opens, cpu_queries = [], [], [], [], []
    answer = None
    for _ in range(args.repeat):
        t0, c0 = time.perf_counter(), time.process_time()
        st = fairlab.open_store(args.store)
        con = st.con
        t1, c1 = time.perf_counter(), time.process_time()
        answer = st.sql(QUERY)
        t2, c2 = time.perf_counter(), time.process_time()
        opens.append(t1 - t0)
        queries.append(t2 - t1)
        cpu_opens.append(c1 - c0)
        cpu_queries.append(c2 - c1)
        del con, st
        t0 = time.perf_counter()
        subprocess.run(
            [sys.executable, "-m", "fairlab", "results", str(args.store), "--sql", QUERY],
            check=True,
            stdout=subprocess.DEVNULL,
        )
        colds.append(time.perf_counter() - t0)
    print(answer.to_string(index=False))
    print(f"{args.runs} runs, medians of {args.repeat}:")
    print(f"  open  {statistics.median(opens):.3f} s (CPU {statistics.median(cpu_opens):.3f} s)")
    print(
        f"  query {statistics.median(queries):.3f} s (CPU {statistics.median(cpu_queries):.3f} s)"
    )
    print(f"  cold  {statistics.median(colds):.3f} s (fairlab results --sql, new process)")


if __name__ == "__main__":
    main()
