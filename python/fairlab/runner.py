"""Runs independent simulations: one Task per run, Results in input order.

This is the local implementation of the runner's interface (a process pool,
through :func:`fairlab.sweep.run_jobs`); the studies use nothing else of it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .result import Result


@dataclass(frozen=True)
class Task:
    """One run: a scenario, an optional seed overriding the scenario's, and
    labels that say what the run is to whoever summarizes it."""

    scenario: dict[str, Any]
    seed: int | None = None
    labels: Mapping[str, Any] = field(default_factory=dict)


def run_tasks(
    tasks: Sequence[Task],
    *,
    jobs: int | None = None,
    cluster: str | None = None,
    store: Any = None,
    progress: Any = None,
) -> list[Result]:
    """Runs ``tasks`` on ``jobs`` local worker processes (default: all cores)
    and returns their Results in the order of ``tasks``."""
    from .cli import UsageError
    from .result import TABLES, Result
    from .sweep import Job, run_jobs

    if cluster is not None:
        raise UsageError(f"--cluster {cluster}: this build runs on the local process pool only")
    if store is not None:
        raise UsageError("a results store is not supported by this build's runner")
    job_list = [Job({}, dict(t.scenario), t.seed, TABLES) for t in tasks]
    df = run_jobs(job_list, workers=jobs, progress=None if progress is None else bool(progress))
    results = []
    for task, (_, row) in zip(tasks, df.iterrows(), strict=True):
        summary = {k: v for k, v in row.items() if k not in TABLES}
        tables = {k: row[k] for k in TABLES}
        results.append(Result(summary=summary, tables=tables, scenario=_lowered(task)))
    return results


def _lowered(task: Task) -> dict[str, Any]:
    """The scenario with every default filled in, as a run reports it."""
    from . import validate

    return validate(task.scenario)
