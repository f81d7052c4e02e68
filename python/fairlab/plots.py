"""Plots of sweep tables (matplotlib, Agg backend: no display needed)."""

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


def plot_hcf_baseline(df: pd.DataFrame, path: str | Path) -> Path:
    """Per-flow packets in the final window (histogram) and the distribution
    of each flow's longest starvation, FIFO against HCF (the paper's Fig. 4-5)."""
    fig, (a1, a2) = plt.subplots(1, 2, figsize=(10, 4))
    for _, r in df.iterrows():
        s = r["per_flow_series"]
        last = s[s["t_s"] >= s["t_s"].max() - 1e-9]
        n = r["n_flows"]
        pkts = (
            last[last["flow_id"] < n]
            .groupby("flow_id")["bytes"]
            .sum()
            .reindex(range(n), fill_value=0)
            / 1460
        )
        a1.hist(pkts, bins=30, alpha=0.6, label=r["discipline"])
        ls = sorted(r["longest_silence"])
        a2.plot(ls, [i / len(ls) for i in range(1, len(ls) + 1)], label=r["discipline"])
    a1.set_xlabel("packets delivered per flow in the final window")
    a1.set_ylabel("flows")
    a1.legend()
    a2.set_xlabel("longest starvation of a flow (s)")
    a2.set_ylabel("CDF of flows")
    a2.legend()
    for a in (a1, a2):
        a.grid(True, alpha=0.3)
    return _save(fig, path)


def plot_hcf_sweep(df: pd.DataFrame, path: str | Path, parameter: str) -> Path:
    """Unfairness (variance) and starvation against one parameter, per
    discipline; a FIFO reference run at the baseline ("baseline" value) is a
    dashed line."""
    fig, (a1, a2) = plt.subplots(1, 2, figsize=(10, 4))
    ref = df[df["value"].astype(str) == "baseline"]
    df = df[df["value"].astype(str) != "baseline"]
    numeric = pd.to_numeric(df["value"], errors="coerce").notna().all()
    for disc, g in df.groupby("discipline", sort=False):
        x = g["value"].astype(float) if numeric else g["value"].astype(str)
        a1.plot(x, g["variance"], marker="o", label=disc)
        a2.plot(x, g["starved_pct"], marker="o", label=disc)
    for _, r in ref.iterrows():
        a1.axhline(r["variance"], ls="--", color="gray", label=f"{r['discipline']} (baseline)")
        a2.axhline(r["starved_pct"], ls="--", color="gray", label=f"{r['discipline']} (baseline)")
    if (
        numeric
        and df["value"].astype(float).max() / max(df["value"].astype(float).min(), 1e-9) > 50
    ):
        a1.set_xscale("log")
        a2.set_xscale("log")
    a1.set_yscale("log")
    a1.set_ylabel("unfairness: variance of packets per flow")
    a2.set_ylabel("starved flows (%)")
    for a in (a1, a2):
        a.set_xlabel(parameter)
        a.grid(True, alpha=0.3)
        a.legend()
    return _save(fig, path)


def plot_hcf_short(df: pd.DataFrame, path: str | Path) -> Path:
    """CDF of short-flow completion times per size, FIFO against HCF (Fig. 10)."""
    sizes = sorted(df["packets"].unique())
    fig, axes = plt.subplots(1, len(sizes), figsize=(4 * len(sizes), 3.6), squeeze=False)
    for ax, size in zip(axes[0], sizes, strict=True):
        for disc, g in df[df["packets"] == size].groupby("discipline", sort=False):
            t = g["fct_s"].dropna().sort_values().to_numpy()
            ax.step(t, [(i + 1) / len(g) for i in range(len(t))], where="post", label=disc)
        ax.set_xscale("log")
        ax.set_xlabel("transfer latency (s)")
        ax.set_ylabel("CDF of flows")
        ax.set_title(f"{size}-packet flows", fontsize=10)
        ax.grid(True, alpha=0.3)
        ax.legend()
    return _save(fig, path)


def plot_hcf_incast(df: pd.DataFrame, path: str | Path) -> Path:
    """Block goodput and the longest starvation against servers (Fig. 2a, 3a)."""
    fig, (a1, a2) = plt.subplots(1, 2, figsize=(10, 4))
    for disc, g in df.groupby("discipline", sort=False):
        a1.plot(g["servers"], g["goodput_mbps"], marker="o", label=disc)
        a2.plot(g["servers"], g["max_starvation_s"], marker="o", label=disc)
    a1.set_ylabel("block goodput (Mb/s)")
    a2.set_ylabel("longest starvation (s)")
    for a in (a1, a2):
        a.set_xscale("log")
        a.set_xlabel("servers")
        a.grid(True, alpha=0.3)
        a.legend()
    return _save(fig, path)


def plot_hcf_hosts(df: pd.DataFrame, path: str | Path) -> Path:
    """Starved flows and unfairness of FIFO and HCF on each TCP host model."""
    hosts = list(dict.fromkeys(df["host"]))
    fig, (a1, a2) = plt.subplots(1, 2, figsize=(11, 4.2))
    width = 0.38
    for k, (disc, g) in enumerate(df.groupby("discipline", sort=False)):
        g = g.set_index("host").reindex(hosts)
        xs = [i + (k - 0.5) * width for i in range(len(hosts))]
        a1.bar(xs, g["starved_pct"], width, label=disc)
        a2.bar(xs, g["variance"], width, label=disc)
    a1.set_ylabel("starved flows (%)")
    a2.set_ylabel("unfairness: variance of packets per flow")
    a2.set_yscale("log")
    for a in (a1, a2):
        a.set_xticks(range(len(hosts)))
        a.set_xticklabels(hosts, rotation=30, ha="right", fontsize=7)
        a.grid(True, axis="y", alpha=0.3)
        a.legend()
    return _save(fig, path)


def plot_hcf_disciplines(df: pd.DataFrame, path: str | Path) -> Path:
    """Starved flows and unfairness at the baseline, one bar per discipline."""
    fig, (a1, a2) = plt.subplots(1, 2, figsize=(9, 3.6))
    names = list(df["discipline"])
    a1.bar(names, df["starved_pct"], color="tab:blue")
    a2.bar(names, df["variance"], color="tab:orange")
    a1.set_ylabel("starved flows (%)")
    a2.set_ylabel("unfairness: variance of packets per flow")
    a2.set_yscale("log")
    for a in (a1, a2):
        a.grid(True, axis="y", alpha=0.3)
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
