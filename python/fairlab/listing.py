"""A store's listing: one row per run and label set (key, scenario name,
labels, fairlab version, summary), as ``Store.table`` and the dataset's
``runs`` view give it. Below both the store, which reads the runs, and the
dataset's index, which keeps them."""

from __future__ import annotations

import contextlib
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import pandas as pd


@dataclass
class RunEntry:
    """One run as the listing shows it: its rows (one per label set: key,
    name, labels, version, summary), its label names, its table names."""

    rows: list[dict[str, Any]]
    labels: list[str]
    tables: list[str]
    #: Each table file's SHA-256 as run.json records it: runs with the same
    #: content (a table without rows) are read once.
    hashes: dict[str, str] = field(default_factory=dict)


def listing_frame(rows: list[dict[str, Any]], label_names: list[str]) -> pd.DataFrame:
    """The listing's rows as ``Store.table`` gives them: key, name, labels,
    version first, sorted by name and labels; ``attrs["labels"]`` names the
    label columns."""
    import pandas as pd

    df = pd.DataFrame(rows)
    if len(df):
        first = list(dict.fromkeys(["key", "name", *label_names, "fairlab_version"]))
        df = df[first + [c for c in df.columns if c not in first]]
        with contextlib.suppress(TypeError):  # labels of mixed types: key order
            df = df.sort_values(["name", *label_names], kind="stable", ignore_index=True)
    df.attrs["labels"] = list(label_names)
    return df
