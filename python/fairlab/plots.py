"""Plots of the incast sweep and of a flow's trace (matplotlib, Agg backend: no
display needed). A study's plots live in its module (fairlab.studies)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import pandas as pd  # noqa: E402


def _save(fig: Any, path: str | Path) -> Path:
    """Lays out, writes and closes `fig`; returns the path written."""
    fig.tight_layout()
    out = Path(path)
    fig.savefig(out, dpi=120)
    plt.close(fig)
    return out


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
    return _save(fig, path)


def plot_trace(tr: pd.DataFrame, path: str | Path, title: str | None = None) -> Path:
    """cwnd and ssthresh (segments of 1460 B) and SRTT/RTO of one flow's trace."""
    fig, (a1, a2) = plt.subplots(2, 1, figsize=(8, 6), sharex=True)
    t_ms = tr["t_s"] * 1e3
    a1.step(t_ms, tr["cwnd_bytes"] / 1460, where="post", label="cwnd")
    ss = tr["ssthresh_bytes"].where(tr["ssthresh_bytes"] >= 0) / 1460
    a1.step(t_ms, ss, where="post", label="ssthresh", ls="--")
    a1.set_ylabel("segments")
    a1.legend(fontsize=8)
    a1.grid(True, alpha=0.3)
    a2.step(t_ms, tr["srtt_s"] * 1e3, where="post", label="SRTT")
    a2.step(t_ms, tr["rto_s"] * 1e3, where="post", label="RTO")
    a2.set_yscale("log")
    a2.set_ylabel("ms")
    a2.set_xlabel("time (ms)")
    a2.legend(fontsize=8)
    a2.grid(True, alpha=0.3)
    if title:
        a1.set_title(title, fontsize=10)
    return _save(fig, path)
