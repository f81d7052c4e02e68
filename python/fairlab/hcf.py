"""The HCF study's experiments (Shpiner and Keslassy, "Hashed Credits Fair"),
source document 003: long-flow starvation under FIFO and HCF switches.

Each experiment builds scenario dicts, runs them on the process pool and
summarizes them with the paper's metrics:

* unfairness: the variance of the per-flow number of packets delivered over
  the final measuring window T (10 s in the paper);
* starvation percentage: the share of flows that delivered no packet in T;
* longest starvation: per flow, the longest time without an ACK while data
  was outstanding, over the whole run;
* Jain's index over T, bottleneck utilization over the run (TCP and UDP).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from .sweep import Job, run_jobs

#: What the paper reports for the baseline (Section V-B).
PUBLISHED_BASELINE = {
    "fifo": {"variance": 5.55e4, "starved_pct": 32.0, "utilization": 1.0},
    "hcf": {"variance": 6.74e3, "starved_pct": 1.5, "utilization": 1.0},
}
#: What the paper says of each other experiment (it gives no numbers for them).
PUBLISHED_CLAIMS = {
    "buffer": "Fig. 6: with a few packets HCF is far less unfair and starved than FIFO; "
    "FIFO needs some 1000 packets to do as well; at large B the two are similar",
    "credits": "Fig. 7: more initial credits behave more like FIFO; c0 = 1 does best",
    "bins": "Fig. 8: fewer bins mean more collisions and more unfairness "
    "(one bin is close to FIFO); a few dozen bins suffice",
    "period": "Fig. 9: the dynamic period beats every fixed period",
    "bloom": "Section IV-A: Bloom counters with kappa >= 2 hash functions bring no gain "
    "at K = 20 with about 400 flows",
    "short": "Fig. 10: short flows finish sooner under HCF, and HCF has lower odds "
    "of long transfer latencies",
    "incast": "Fig. 2(a), 3(a): HCF is above FIFO over most N (clearly below 25 and "
    "above 100 servers) and its longest starvation is shorter in most cases",
    "hosts": "(not in the paper: how the published FIFO and HCF results depend on the "
    "TCP host's timer clock and RTT sampling)",
    "disciplines": "Section II (no simulation): per-flow schedulers need per-flow queues; "
    "SFQ divides a shallow buffer among many aggregates and drops bursts; RED has too "
    "few packets to estimate from",
}
MSS = 1460
#: The TCP timer clock of the HCF experiments: 10 ms jiffies (see HOST_TCP).
TICK_HZ = 100
#: The TCP host of the HCF experiments: a Linux 2.4-era stack. NewReno, min
#: RTO 200 ms, a 10 ms jiffy clock (HZ = 100) shared by the senders, so
#: retransmission timers armed in the same tick fire together, and RFC 7323
#: timestamps (tcp_timestamps = 1), so the first ACK after a timeout ends its
#: backoff. With this host the FIFO baseline starves about the published
#: share of flows and HCF about none; `hosts()` shows the other hosts, on
#: which one or the other published result does not appear (docs/hcf.md).
HOST_TCP: dict[str, Any] = {
    "profile": "rfc",
    "cc": "newreno",
    "resolution": "jiffy",
    "hz": TICK_HZ,
    "rtt_timestamps": True,
}
#: Host models of the `hosts` experiment: (label, [tcp] overrides of HOST_TCP).
HOST_MODELS: list[tuple[str, dict[str, Any]]] = [
    ("10ms jiffies + timestamps (default)", {}),
    ("10ms jiffies, Karn", {"rtt_timestamps": False}),
    ("1ms jiffies + timestamps", {"hz": 1000}),
    ("1ms jiffies, Karn", {"hz": 1000, "rtt_timestamps": False}),
    ("ns-2: 10ms granularity, Karn", {"resolution": "10ms", "rtt_timestamps": False}),
    ("10ms granularity + timestamps", {"resolution": "10ms"}),
]


def host_tcp(overrides: dict[str, Any] | None = None) -> dict[str, Any]:
    """HOST_TCP with `overrides`; a granularity drops the jiffy rate."""
    tcp = dict(HOST_TCP)
    tcp.update(overrides or {})
    if tcp.get("resolution") != "jiffy":
        tcp.pop("hz", None)
    return tcp


def long_flows_scenario(
    discipline: str,
    *,
    flows: int = 400,
    duration: str = "180s",
    window: str = "10s",
    buffer_pkts: int = 20,
    bins: int = 20,
    c0: int = 1,
    period: str = "dynamic",
    hashes: int = 1,
    udp_share: float = 0.05,
    bottleneck: str = "100Mbps",
    short_flows: list[tuple[int, int]] | None = None,
    short_spread: str = "0s",
    seed: int = 1,
    tcp: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """`flows` long NewReno flows through one 100 Mb/s bottleneck.

    RTT 100 us (5 us on each 10 Gb/s access link, 40 us on the bottleneck,
    each way), B = `buffer_pkts` packets of 1500 B at the bottleneck, Poisson
    UDP at `udp_share` of the bottleneck. `short_flows` adds, per (packets,
    count), a `short` workload of `count` TCP flows of `packets` full
    segments on an extra host pair, opening uniformly over the first
    `short_spread`. `tcp` overrides fields of HOST_TCP.
    """
    short_flows = short_flows or []
    n = flows + 1 + len(short_flows)
    rate_bps = int(bottleneck.removesuffix("Mbps")) * 10**6
    workloads: list[dict[str, Any]] = [
        # Starts spread over the first 2 s (a permutation of 5 ms slots), so
        # that 400 handshakes do not all meet a 20-packet buffer at once.
        {
            "kind": "bulk",
            "src": f"l{i}",
            "dst": f"r{i}",
            "start": f"{(i * 7919) % flows * 2000 // flows}ms",
        }
        for i in range(flows)
    ]
    workloads.append(
        {
            "kind": "udp",
            "src": f"l{flows}",
            "dst": f"r{flows}",
            "rate": f"{int(rate_bps * udp_share)}bps",
            "arrivals": "poisson",
        }
    )
    for j, (pkts, count) in enumerate(short_flows):
        h = flows + 1 + j
        workloads.append(
            {
                "kind": "short",
                "src": f"l{h}",
                "dst": f"r{h}",
                "packets": pkts,
                "count": count,
                "spread": short_spread,
            }
        )
    queue: dict[str, Any] = {"discipline": discipline, "limit": f"{buffer_pkts}pkt"}
    if discipline == "hcf":
        queue["hcf"] = {"bins": bins, "c0": c0, "period": period, "hashes": hashes}
    return {
        "name": f"hcf-{discipline}-{flows}",
        "seed": seed,
        "duration": duration,
        "topology": {
            "kind": "dumbbell",
            "left": n,
            "right": n,
            "rate": "10Gbps",
            "delay": "5us",
            "bottleneck_rate": bottleneck,
            "bottleneck_delay": "40us",
        },
        # Access ports are far faster than the bottleneck: only swL -> swR queues.
        "queue": queue,
        # The Linux 2.4-era host of HOST_TCP (why: its docstring, docs/hcf.md).
        "tcp": host_tcp(tcp),
        "workload": workloads,
        "metrics": {"throughput_bin": window},
    }


def long_flow_metrics(
    flows: pd.DataFrame,
    series: pd.DataFrame,
    ports: pd.DataFrame,
    duration_s: float,
    window_s: float,
    n_long: int,
    udp_bytes_per_s: float = 0.0,
) -> dict[str, float]:
    """The paper's metrics over the final window of one run."""
    long_ids = flows["flow_id"].iloc[:n_long]
    last_bin = round(duration_s / window_s) - 1
    t0 = last_bin * window_s
    w = series[(series["t_s"] >= t0 - 1e-9) & series["flow_id"].isin(long_ids)]
    per_flow = w.groupby("flow_id")["bytes"].sum().reindex(long_ids, fill_value=0)
    pkts = per_flow.to_numpy() / MSS
    bn = ports[(ports["node"] == "swL") & (ports["peer"] == "swR")].iloc[0]
    # Utilization over the whole run (the bottleneck's bytes on the wire).
    util = bn["deq_bytes"] * 8 / (duration_s * 100e6)
    jain = pkts.sum() ** 2 / (len(pkts) * (pkts**2).sum()) if pkts.sum() > 0 else 0.0
    silence = flows["longest_silence_s"].iloc[:n_long]
    return {
        "variance": float(np.var(pkts)),
        "starved_pct": float((pkts == 0).mean() * 100),
        "jain": float(jain),
        "utilization": float(util),
        "mean_pkts": float(pkts.mean()),
        "longest_starvation_median_s": float(silence.median()),
        "longest_starvation_max_s": float(silence.max()),
        "reordered_pkts": int(bn["reordered_pkts"]),
        # What starves a flow: losing the lone segment its timeout resends.
        "timeout_rtx_drop_pct": float(
            100 * bn["timeout_rtx_drops"] / max(bn["timeout_rtx_pkts"], 1)
        ),
    }


def _run_long(jobs: list[Job], workers: int | None, keep_flows: bool = False) -> pd.DataFrame:
    for j in jobs:
        j.keep = ("flows", "flow_series", "ports")
    df = run_jobs(jobs, workers=workers)
    rows = []
    for _, r in df.iterrows():
        p = r.to_dict()
        m = long_flow_metrics(
            r["flows"], r["flow_series"], r["ports"], p["duration_s"], p["window_s"], p["n_flows"]
        )
        out = {k: v for k, v in p.items() if k not in ("flows", "flow_series", "ports")}
        out.update(m)
        if keep_flows:
            out["longest_silence"] = r["flows"]["longest_silence_s"].iloc[: p["n_flows"]].to_numpy()
            last = r["flow_series"]
            out["per_flow_series"] = last
        rows.append(out)
    return pd.DataFrame(rows)


def _secs(s: str) -> float:
    from .units import parse_time_ps

    return parse_time_ps(s) / 1e12


def _params(experiment: str, disc: str, flows: int, duration: str, window: str, **kw: Any):
    p = {
        "experiment": experiment,
        "discipline": "fifo" if disc == "droptail" else disc,
        "n_flows": flows,
        "duration_s": _secs(duration),
        "window_s": _secs(window),
    }
    p.update(kw)
    return p


def baseline(
    flows: int = 400,
    duration: str = "180s",
    window: str = "10s",
    workers: int | None = None,
    seed: int = 1,
    tcp: dict[str, Any] | None = None,
) -> pd.DataFrame:
    """Section V-B: FIFO against HCF (B = 20, K = 20, c0 = 1, dynamic period)."""
    jobs = []
    for disc in ("droptail", "hcf"):
        sc = long_flows_scenario(
            disc, flows=flows, duration=duration, window=window, seed=seed, tcp=tcp
        )
        jobs.append(Job(_params("baseline", disc, flows, duration, window), sc, seed))
    return _run_long(jobs, workers, keep_flows=True)


def sweep(
    parameter: str,
    values: list[Any],
    flows: int = 400,
    duration: str = "180s",
    window: str = "10s",
    workers: int | None = None,
    seed: int = 1,
    with_fifo: bool = True,
) -> pd.DataFrame:
    """Section V-B3 / V-C: vary one parameter of the baseline.

    FIFO runs at every value of the buffer size; for HCF's own parameters it
    runs once, at the baseline, as the reference (value "baseline").
    """
    jobs = []
    if with_fifo and parameter != "buffer_pkts":
        sc = long_flows_scenario(
            "droptail", flows=flows, duration=duration, window=window, seed=seed
        )
        p = _params(parameter, "droptail", flows, duration, window, value="baseline")
        jobs.append(Job(p, sc, seed))
    for v in values:
        discs = ("droptail", "hcf") if (with_fifo and parameter == "buffer_pkts") else ("hcf",)
        for disc in discs:
            sc = long_flows_scenario(
                disc, flows=flows, duration=duration, window=window, seed=seed, **{parameter: v}
            )
            jobs.append(Job(_params(parameter, disc, flows, duration, window, value=v), sc, seed))
    df = _run_long(jobs, workers)
    return df[["experiment", "value", *[c for c in df.columns if c not in ("experiment", "value")]]]


#: The switch disciplines of the `disciplines` experiment, each with its
#: defaults (docs/hcf.md): RED with min_th 5, max_th 15 packets of the 20.
DISCIPLINES = ["droptail", "red", "sfq", "drr", "hcf"]


def disciplines(
    flows: int = 400,
    duration: str = "180s",
    window: str = "10s",
    workers: int | None = None,
    seed: int = 1,
) -> pd.DataFrame:
    """The baseline through each queue discipline of DISCIPLINES (Section II
    of the paper argues SFQ and RED do not suit buffers of a few packets)."""
    jobs = []
    for disc in DISCIPLINES:
        sc = long_flows_scenario(disc, flows=flows, duration=duration, window=window, seed=seed)
        jobs.append(Job(_params("disciplines", disc, flows, duration, window), sc, seed))
    return _run_long(jobs, workers)


def hosts(
    flows: int = 400,
    duration: str = "180s",
    window: str = "10s",
    workers: int | None = None,
    seed: int = 1,
) -> pd.DataFrame:
    """The baseline, FIFO and HCF, on each TCP host model of HOST_MODELS."""
    jobs = []
    for label, over in HOST_MODELS:
        for disc in ("droptail", "hcf"):
            sc = long_flows_scenario(
                disc, flows=flows, duration=duration, window=window, seed=seed, tcp=over
            )
            p = _params("hosts", disc, flows, duration, window, host=label)
            jobs.append(Job(p, sc, seed))
    return _run_long(jobs, workers)


def short_over_long(
    flows: int = 100,
    duration: str = "300s",
    sizes: tuple[int, ...] = (10, 30, 60),
    per_size: int = 100,
    workers: int | None = None,
    seed: int = 1,
) -> pd.DataFrame:
    """Section V-D: short TCP flows of 10, 30 and 60 packets over 100 long
    flows with B = 10 packets; starts uniform over the first half of the run.

    One row per short flow: discipline, size in packets, completion time
    (NaN if it did not finish).
    """
    half = f"{_secs(duration) / 2:g}s"
    jobs = []
    for disc in ("droptail", "hcf"):
        sc = long_flows_scenario(
            disc,
            flows=flows,
            duration=duration,
            window=duration,
            buffer_pkts=10,
            short_flows=[(s, per_size) for s in sizes],
            short_spread=half,
            seed=seed,
        )
        sc["metrics"] = {}
        jobs.append(
            Job({"discipline": "fifo" if disc == "droptail" else "hcf"}, sc, seed, ("flows",))
        )
    df = run_jobs(jobs, workers=workers)
    # Short workloads follow the long flows and the UDP workload, one per size.
    size_of = {flows + 1 + j: size for j, size in enumerate(sizes)}
    rows = []
    for _, r in df.iterrows():
        f = r["flows"]
        f = f[f["kind"] == "short"]
        for _, fr in f.iterrows():
            rows.append(
                {
                    "discipline": r["discipline"],
                    "packets": size_of[int(fr["workload"])],
                    "fct_s": fr["end_s"] - fr["start_s"],
                }
            )
    return pd.DataFrame(rows)


def incast(
    servers: list[int],
    rounds: int = 20,
    workers: int | None = None,
    seed: int = 1,
) -> pd.DataFrame:
    """Section V-A: 1 Gb/s, RTT 100 us, a 1 MB block split over N Reno flows
    of 1 KB packets, 16 + 16 packet queues (32 KB: the paper's "32 MB" is a
    typo), K = 16 bins, c0 = 1, dynamic period; FIFO with the same 32 packets.
    The TCP host is HOST_TCP's, with a 20-packet window.
    """
    from .scenarios import incast as incast_scenario

    jobs = []
    for disc in ("droptail", "hcf"):
        for n in servers:
            sc = incast_scenario(n, block="1MB", buffer="32pkt", rounds=rounds, seed=seed)
            # The host of the long-flow experiments, with Reno, 1 KB packets
            # and ns-2's default window of 20 packets (window_ = 20): with it
            # FIFO keeps 2 servers at line rate (with 64 KiB it collapses
            # already at 2, docs/hcf.md).
            sc["tcp"] = host_tcp({"cc": "reno", "mss": "960B", "receive_window": f"{20 * 960}B"})
            sc["queue"]["discipline"] = disc
            if disc == "hcf":
                sc["queue"]["hcf"] = {"bins": 16, "c0": 1, "period": "dynamic"}
            params = {"discipline": "fifo" if disc == "droptail" else "hcf", "servers": n}
            jobs.append(Job(params, sc, seed, ("flows",)))
    df = run_jobs(jobs, workers=workers)
    df["goodput_mbps"] = df["incast_goodput_bps"] / 1e6
    df["max_starvation_s"] = [f["longest_silence_s"].max() for f in df["flows"]]
    return df.drop(columns=["flows"])
