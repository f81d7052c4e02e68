"""Plots of sweep tables (matplotlib, Agg backend: no display needed)."""

from __future__ import annotations

from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import pandas as pd  # noqa: E402


def plot_incast(df: pd.DataFrame, path: str | Path, title: str | None = None) -> Path:
    """Goodput against the number of senders, one line per RTO setting (and buffer).

    ``df`` has one row per (servers, setting) with columns ``servers``,
    ``goodput_mbps``, ``min_rto``, ``resolution`` and optionally ``buffer``.
    """
    fig, ax = plt.subplots(figsize=(7, 4.5))
    keys = ["min_rto", "resolution"]
    if "buffer" in df and df["buffer"].nunique() > 1:
        keys.append("buffer")
    for key, g in df.groupby(keys, sort=False):
        g = g.sort_values("servers")
        label = f"min RTO {key[0]} ({key[1]} timers)"
        if len(keys) == 3:
            label += f", buffer {key[2]}"
        ax.plot(g["servers"], g["goodput_mbps"], marker="o", ms=4, label=label)
    ax.set_xlabel("number of servers (concurrent senders)")
    ax.set_ylabel("goodput (Mb/s)")
    ax.set_ylim(0, 1000)
    ax.set_xlim(left=0)
    ax.grid(True, alpha=0.3)
    ax.legend(loc="upper right", fontsize=8, framealpha=0.9)
    if title:
        ax.set_title(title, fontsize=10)
    fig.tight_layout()
    out = Path(path)
    fig.savefig(out, dpi=120)
    plt.close(fig)
    return out
