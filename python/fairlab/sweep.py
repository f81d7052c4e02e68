"""Independent runs of a sweep, on a local process pool.

Results come back in submission order, so a sweep's table does not depend on
which worker finished first; every run is itself deterministic.
"""

from __future__ import annotations

import os
import signal
import sys
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import pandas as pd


@dataclass
class Job:
    """One run: its sweep coordinates, its scenario and its seed."""

    params: dict[str, Any]
    scenario: dict[str, Any]
    seed: int | None = None
    keep: Sequence[str] = field(default_factory=tuple)


def _run(job: Job) -> dict[str, Any]:
    from . import simulate

    res = simulate(job.scenario, seed=job.seed)
    row = dict(job.params)
    row.update(res.summary)
    for name in job.keep:
        row[name] = res.tables[name]
    return row


def _ignore_sigint() -> None:
    # Ctrl-C reaches every process of the terminal's group: the parent
    # handles it for the whole sweep (see _stop), not each worker on its own.
    signal.signal(signal.SIGINT, signal.SIG_IGN)


def _stop(pool: Any) -> None:
    """Drops the queued runs and ends the running ones at once."""
    if hasattr(pool, "terminate_workers"):  # Python 3.14
        pool.terminate_workers()
        return
    # Before shutdown, which forgets the worker processes.
    procs = list((getattr(pool, "_processes", None) or {}).values())
    pool.shutdown(wait=False, cancel_futures=True)
    for proc in procs:
        proc.terminate()


def run_jobs(
    jobs: Sequence[Job], workers: int | None = None, progress: bool | None = None
) -> pd.DataFrame:
    """Runs ``jobs`` (in parallel unless ``workers == 1``); one row per run.

    Each row holds the job's parameters followed by the run's summary.
    """
    from concurrent.futures import ProcessPoolExecutor

    import pandas as pd
    from tqdm import tqdm

    if workers is None:
        workers = os.cpu_count() or 1
    if progress is None:
        progress = sys.stderr.isatty()
    bar = tqdm(total=len(jobs), disable=not progress or len(jobs) < 2, unit="run", file=sys.stderr)
    rows: list[dict[str, Any]] = []
    try:
        if workers <= 1 or len(jobs) < 2:
            for j in jobs:
                rows.append(_run(j))
                bar.update()
        else:
            with ProcessPoolExecutor(
                max_workers=min(workers, len(jobs)), initializer=_ignore_sigint
            ) as pool:
                try:
                    for row in pool.map(_run, jobs):
                        rows.append(row)
                        bar.update()
                except KeyboardInterrupt:
                    _stop(pool)
                    raise
    finally:
        bar.close()
    return pd.DataFrame(rows)
