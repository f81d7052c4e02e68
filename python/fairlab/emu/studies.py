"""A study's experiments on the kernel: which of them the namespace backend
can run on this machine, their runs, and their tables beside the
simulator's."""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from .. import ScenarioError

if TYPE_CHECKING:
    import pandas as pd

    from ..result import Result
    from ..runner import Task


def refusal(tasks: Sequence[Task]) -> str | None:
    """Why the kernel cannot run these tasks (the first refusal, one line),
    or None. Lowers every distinct scenario for this machine's kernel."""
    from .run import lower, machine_facts
    from .safety import State, check_machine, guarded, new_prefix

    check_machine()
    prefix = new_prefix()
    with guarded(State(prefix=prefix, namespaces=[f"{prefix}-probe"])):
        facts = machine_facts(prefix)
    seen = set()
    for t in tasks:
        text = json.dumps(t.scenario, sort_keys=True)
        if text in seen:
            continue
        seen.add(text)
        try:
            lower(text, facts)
        except ScenarioError as e:
            return str(e)
    return None


def runner(warn: Callable[[str], None] | None = None) -> Callable[..., list[Result]]:
    """A `run_tasks` replacement for `report.run_experiment`: every task on
    the kernel, one after another (runs side by side would share the CPUs
    and measure each other); no results store."""
    from .run import emulate

    def run(tasks: Sequence[Task], **_: Any) -> list[Result]:
        return [emulate(t.scenario, seed=t.seed, warn=warn) for t in tasks]

    return run


def side_by_side(sim: pd.DataFrame, kernel: pd.DataFrame) -> pd.DataFrame:
    """The simulator's and the kernel's tables of one experiment in one.
    Where both have the same rows (the same values in their non-float
    columns: setting, servers, ...), one row each with every float column
    twice, simulator then kernel; otherwise (a table whose rows are what
    was measured, such as counts per ratio) both tables one above the
    other, a ``backend`` column first."""
    import pandas as pd

    keys = [
        c for c in sim.columns if c in kernel.columns and not pd.api.types.is_float_dtype(sim[c])
    ]
    values = [c for c in sim.columns if c in kernel.columns and c not in keys]

    def rows(df: pd.DataFrame) -> list[tuple]:
        return sorted(map(tuple, df[keys].astype(str).itertuples(index=False)))

    if not keys or not values or rows(sim) != rows(kernel):
        both = pd.concat(
            [sim.assign(backend="simulator"), kernel.assign(backend="kernel")], ignore_index=True
        )
        return both[["backend", *[c for c in both.columns if c != "backend"]]]
    merged = sim[keys + values].merge(
        kernel[keys + values], on=keys, how="outer", suffixes=(" sim", " kernel"), sort=False
    )
    cols = list(keys)
    for v in values:
        cols += [f"{v} sim", f"{v} kernel"]
    return merged[cols]
