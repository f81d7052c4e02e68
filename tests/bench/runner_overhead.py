"""The runner's own cost per run (scheduling, encoding, storing), against
runs of about 50 ms.

    python tests/bench/runner_overhead.py [--runs 40] [--repeat 3]

Prints, as medians of the repeats, the wall time per run of:
  direct        fairlab.simulate in a loop (no runner)
  runner        run_tasks(jobs=1): in this process, no store
  runner+store  run_tasks(jobs=1, store=...): each run encoded and stored (fsync)
  pool          a bare ProcessPoolExecutor over 2 processes, returning digests only
  pool+store    run_tasks(jobs=2, store=...)
and the overhead of each runner line over its reference (direct, pool), in
wall time and in CPU time of this process, its threads and its children (less
sensitive to other load on the machine).
"""

from __future__ import annotations

import argparse
import resource
import statistics
import tempfile
import time
from concurrent.futures import ProcessPoolExecutor

import fairlab
from fairlab.runner import Task, run_tasks

# About 50 ms of simulation (CPU) on the CI machine: 16 servers, 60 rounds of 256 KiB.
SCENARIO = fairlab.scenarios.incast(16, rounds=60, min_rto="200us", resolution="1us")


def _digest(seed: int) -> str:
    return fairlab.simulate(SCENARIO, seed=seed).digest


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=40)
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    seeds = list(range(1, args.runs + 1))
    tasks = [Task(SCENARIO, s) for s in seeds]
    times: dict[str, list[float]] = {}

    cpu: dict[str, list[float]] = {}

    def cpu_now() -> float:
        kids = resource.getrusage(resource.RUSAGE_CHILDREN)
        return time.process_time() + kids.ru_utime + kids.ru_stime

    def timed(name, fn):
        t0, c0 = time.perf_counter(), cpu_now()
        fn()
        times.setdefault(name, []).append((time.perf_counter() - t0) / args.runs)
        cpu.setdefault(name, []).append((cpu_now() - c0) / args.runs)

    fairlab.simulate(SCENARIO)  # warm up
    for _ in range(args.repeat):
        timed("direct", lambda: [fairlab.simulate(SCENARIO, seed=s) for s in seeds])
        timed("runner", lambda: run_tasks(tasks, jobs=1, progress=False))
        with tempfile.TemporaryDirectory(dir=".") as d:
            timed("runner+store", lambda d=d: run_tasks(tasks, jobs=1, store=d, progress=False))

        def pool():
            with ProcessPoolExecutor(2) as ex:
                list(ex.map(_digest, seeds))

        timed("pool", pool)
        with tempfile.TemporaryDirectory(dir=".") as d:
            timed("pool+store", lambda d=d: run_tasks(tasks, jobs=2, store=d, progress=False))
    ref = {"runner": "direct", "runner+store": "direct", "pool+store": "pool"}
    print(
        f"{args.runs} runs of about {statistics.median(times['direct']) * 1e3:.0f} ms, "
        f"median of {args.repeat}; wall and CPU (all processes) per run"
    )
    for what, table in (("wall", times), ("CPU", cpu)):
        med = {k: statistics.median(v) for k, v in table.items()}
        for name, t in med.items():
            extra = ""
            if name in ref:
                over = t - med[ref[name]]
                pct = over / med[ref[name]] * 100
                extra = f"  overhead {over * 1e3:+.2f} ms per run ({pct:+.1f} %)"
            print(f"{what:>4} {name:>13}: {t * 1e3:7.2f} ms per run{extra}")


if __name__ == "__main__":
    main()
