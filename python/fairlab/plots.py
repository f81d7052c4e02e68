"""Plotting: the helpers every plot uses (a figure of side-by-side axes, a
figure as PNG bytes for the report), and the plots of the incast sweep, of a
sweep and of a flow's trace (matplotlib, Agg backend: no display needed).
A study's own plots live in its module (fairlab.studies) and use the helpers
here; the report (fairlab.report) only embeds what they draw."""

from __future__ import annotations

import io
from pathlib import Path
from typing import TYPE_CHECKING, Any

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import pandas as pd  # noqa: E402

if TYPE_CHECKING:
    from matplotlib.figure import Figure


def figure(
    ncols: int, width: float, height: float = 4.0, rows: int = 1
) -> tuple[Figure, list[Any]]:
    """A figure of ``ncols`` axes (matplotlib's Agg backend), side by side,
    or in ``rows`` rows filled row by row."""
    per_row = -(-ncols // rows)
    fig, axes = plt.subplots(rows, per_row, figsize=(width, height), squeeze=False)
    return fig, [a for row in axes for a in row][:ncols]


def png_bytes(fig: Figure) -> bytes:
    """Lays out ``fig``, renders it as PNG and closes it."""
    fig.tight_layout()
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=110)
    plt.close(fig)
    return buf.getvalue()


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
    ``goodput_mbps``, ``min_rto``, ``resolution`` and optionally ``buffer``;
    with ``goodput_std`` and ``seeds`` (more than one seed) each point gets an
    error bar of one standard deviation over the seeds.
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
        err = None
        if "goodput_std" in g and (g["seeds"] > 1).any():
            err = g["goodput_std"].fillna(0)
        ax.errorbar(
            g["servers"], g["goodput_mbps"], yerr=err, marker="o", ms=4, capsize=3, label=label
        )
    ax.set_xlabel("number of servers (concurrent senders)")
    ax.set_ylabel("goodput (Mb/s)")
    ax.set_ylim(0, 1000)
    ax.set_xlim(left=0)
    ax.grid(True, alpha=0.3)
    ax.legend(loc="upper right", fontsize=8, framealpha=0.9)
    seeds = int(df["seeds"].max()) if "seeds" in df else 1
    spread = f"mean ± std over {seeds} seeds" if seeds > 1 else "one seed"
    ax.set_title(f"{title} ({spread})" if title else spread, fontsize=10)
    return _save(fig, path)


def plot_trace(tr: pd.DataFrame, path: str | Path, mss: int, title: str | None = None) -> Path:
    """cwnd and ssthresh (in segments of the flow's own ``mss``, bytes) and
    SRTT/RTO of one flow's trace."""
    fig, (a1, a2) = plt.subplots(2, 1, figsize=(8, 6), sharex=True)
    t_ms = tr["t_s"] * 1e3
    a1.step(t_ms, tr["cwnd_bytes"] / mss, where="post", label="cwnd")
    ss = tr["ssthresh_bytes"].where(tr["ssthresh_bytes"] >= 0) / mss
    a1.step(t_ms, ss, where="post", label="ssthresh", ls="--")
    a1.set_ylabel(f"segments of {mss} B")
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


def plot_sweep(
    summary: pd.DataFrame,
    metric: str,
    param: str,
    params: list[str],
    path: str | Path,
    title: str | None = None,
) -> Path:
    """One sweep metric against one parameter: the mean over seeds with error
    bars of one standard deviation, one line per value of the other parameters.

    ``summary`` is ``sweep.sweep_table``'s second table (``<metric>_mean``,
    ``<metric>_std``, ``seeds`` and a column per parameter).
    """
    from .sweep import axis_values, metric_label, metric_unit

    scale, unit = metric_unit(metric)
    values = list(dict.fromkeys(summary[param]))
    axis = axis_values(values)
    if axis is None:
        pos = {v: float(i) for i, v in enumerate(values)}
        xunit = ""
    else:
        pos = dict(zip(values, axis[0], strict=True))
        xunit = axis[1]
    others = [p for p in params if p != param]
    fig, ax = plt.subplots(figsize=(7, 4.5))
    groups = summary.groupby(others, sort=False) if others else [((), summary)]
    for key, g in groups:
        key = key if isinstance(key, tuple) else (key,)
        x = [pos[v] for v in g[param]]
        y = g[f"{metric}_mean"] * scale
        err = g[f"{metric}_std"] * scale if (g["seeds"] > 1).any() else None
        label = ", ".join(f"{p} = {v}" for p, v in zip(others, key, strict=True)) or None
        ax.errorbar(x, y, yerr=err, marker="o", ms=4, capsize=3, label=label)
    if axis is None:
        ax.set_xticks(list(pos.values()), [str(v) for v in values])
    ax.set_xlabel(f"{param} ({xunit})" if xunit else param)
    ax.set_ylabel(f"{metric_label(metric)} ({unit})")
    ax.grid(True, alpha=0.3)
    if others:
        ax.legend(fontsize=8, framealpha=0.9)
    seeds = int(summary["seeds"].max())
    what = f"mean ± std over {seeds} seeds" if seeds > 1 else "one seed"
    head = f"{title}: " if title else ""
    ax.set_title(f"{head}{metric_label(metric)} against {param} ({what})", fontsize=10)
    return _save(fig, path)
