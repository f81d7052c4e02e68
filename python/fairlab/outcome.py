"""What running one experiment gives (its summary, verdicts, runs and plot)
and the provenance of its runs: below both the report, which presents it,
and the backends' study runners (ns-2's), which build it, so neither
imports the other."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from .studies.base import Experiment, Summary

if TYPE_CHECKING:
    import pandas as pd

    from .result import Result
    from .runner import Task


def scenario_digest(scenario: dict[str, Any]) -> str:
    """A content hash of a lowered scenario (every default filled in)."""
    text = json.dumps(scenario, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(text.encode()).hexdigest()[:16]


@dataclass
class Outcome:
    """One experiment run: its summary, its verdicts, its runs' provenance,
    its plot (PNG bytes) and its wall time."""

    experiment: Experiment
    quick: bool
    summary: Summary
    verdicts: pd.DataFrame
    runs: pd.DataFrame
    wall_s: float
    png: bytes | None
    #: The same experiment on the kernel (the namespace backend), when run.
    kernel: Outcome | None = None
    #: The simulator on the kernel's runs, where the experiment scales them
    #: for the kernel (``Experiment.kernel_tasks``): what ``kernel`` is set
    #: beside, the same scenarios on both backends.
    kernel_sim: Outcome | None = None
    #: Why it did not run on the kernel (a refusal by field path), if asked.
    kernel_note: str = ""
    #: The same experiment on real ns-2 (run now, or stored), when shown.
    ns2: Outcome | None = None
    #: Which runs ns-2 could not run, or why there is no ns-2 column.
    ns2_note: str = ""
    #: Where the ns-2 column comes from: ns-2's version, date, script digests.
    ns2_provenance: dict[str, Any] = field(default_factory=dict)


def runs_table(tasks: Sequence[Task], results: Sequence[Result]) -> pd.DataFrame:
    """One row per run: its labels, seed, and the digests of its scenario and
    result (the provenance a report prints)."""
    import pandas as pd

    rows = []
    for i, (t, r) in enumerate(zip(tasks, results, strict=True)):
        row: dict[str, Any] = {"run": i}
        for k, v in t.labels.items():
            row[k] = v if isinstance(v, int | float | str) else str(v)
        row["seed"] = int(r.summary["seed"]) % 2**64
        row["scenario_digest"] = scenario_digest(r.scenario)
        row["result_digest"] = str(r.summary["digest"])
        row["simulated_s"] = float(r.summary["sim_end_s"])
        rows.append(row)
    return pd.DataFrame(rows)
