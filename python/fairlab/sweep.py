"""A sweep as a table: jobs (coordinates, scenario, seed) in, one row per run
out, run by ``fairlab.runner`` (a local process pool or a Dask cluster).

Rows come back in submission order, so a sweep's table does not depend on
which worker finished first; every run is itself deterministic.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
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


def run_jobs(
    jobs: Sequence[Job],
    workers: int | None = None,
    progress: bool | None = None,
    *,
    cluster: str | None = None,
    store: str | Path | None = None,
) -> pd.DataFrame:
    """Runs ``jobs`` with ``fairlab.runner.run_tasks``; one row per run.

    Each row holds the job's parameters followed by the run's summary, and
    the tables a job asks to ``keep``. ``workers``: local worker processes
    (default: all cores); ``cluster``, ``store``: see ``run_tasks``.
    """
    import pandas as pd

    from .runner import Task, run_tasks

    tasks = [Task(j.scenario, j.seed, j.params) for j in jobs]
    results = run_tasks(tasks, jobs=workers, cluster=cluster, store=store, progress=progress)
    rows: list[dict[str, Any]] = []
    for job, res in zip(jobs, results, strict=True):
        row = dict(job.params)
        row.update(res.summary)
        for name in job.keep:
            row[name] = res.tables[name]
        rows.append(row)
    return pd.DataFrame(rows)
