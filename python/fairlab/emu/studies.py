"""A study's experiments on the kernel: their tables beside the simulator's.
Which of them the kernel can run, and running them, is the Kernel backend's
(fairlab.backends)."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import pandas as pd


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
