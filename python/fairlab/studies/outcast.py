"""The outcast study, source document 002: a reproduction report (Chopra and
Helsley, Stanford CS244, on Mininet) of *The TCP Outcast Problem: Exposing
Unfairness in Data Center Networks* (Prakash, Dixit, Hu, Kompella, NSDI 2012).

When flows from two input ports of a tail-drop switch leave by one output
port, the port with fewer flows loses: runs of consecutive drops ("port
blackout") hit its packets, whole windows are lost, and its flows sit in
timeouts, although they have the shorter RTT. Every setting below comes from
the report's Methods section: 1 Gb/s links (the paper's; the report ran 100
Mb/s because Mininet could not emulate 1 Gb/s), 16 KB tail-drop buffers per
switch port, min RTO 2 ms on the hosts, TCP BIC, iperf long flows, and
shortest-path routing with ties broken by the low-order bits of the
destination address in the k = 4 fat tree.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import pandas as pd

from ..runner import Task
from ..sweep import jain_index
from ..units import parse_rate_bps
from .base import Experiment, Published, Study, Summary

if TYPE_CHECKING:
    from matplotlib.figure import Figure

    from ..result import Result

SOURCE = (
    "Chopra and Helsley, reproduction report of Prakash et al., The TCP Outcast Problem "
    "(NSDI 2012), source document 002"
)
PAPER = "Prakash et al., NSDI 2012, as the reproduction report (source document 002) states it"
REPORT = "the reproduction report (source document 002)"

SEEDS = [1, 2, 3, 4, 5]
QUICK_SEEDS = [1, 2]
#: The report's runs last 20 s ("consistent reproduction ... with a duration
#: of 20 second or more"); the study plots 0.5 s bins.
DURATION_S = 20.0
QUICK_DURATION_S = 2.0
BIN_S = 0.5
BIN = f"{int(BIN_S * 1000)}ms"
#: Host send jitter: each packet reaches the NIC after U(0, one packet's
#: transmission time at the link rate). Floyd and Jacobson ("On Traffic Phase
#: Effects in Packet-Switched Gateways", 1992) show that a deterministic
#: drop-tail network locks into phase: with only 1 µs here, one of the 12
#: flows behind s1 takes 500-950 Mb/s of the 1 Gb/s and the others starve in
#: backoff, which no testbed shows; up to one transmission time of random
#: delay, their remedy, is below a real host's scheduling noise.
PACKET_BITS = 1500 * 8


def _plan(quick: bool) -> tuple[list[int], float]:
    """The seeds and the duration (s) of every run of an experiment."""
    return (QUICK_SEEDS, QUICK_DURATION_S) if quick else (SEEDS, DURATION_S)


def _jitter(rate: str) -> str:
    return f"{PACKET_BITS * 1_000_000 // parse_rate_bps(rate)}us"


GROUPS = [2, 6, 12]


def _tcp() -> dict[str, Any]:
    """The hosts: TCP BIC, min RTO 2 ms ("to reduce the effects of TCP
    Incast"), all else Linux defaults; timers of 1 µs so that 2 ms is 2 ms
    (a 1 ms jiffy clock would round it up to a tick boundary)."""
    return {"profile": "linux", "cc": "bic", "min_rto": "2ms", "resolution": "1us"}


def _bulk(src: str, dst: str) -> dict[str, Any]:
    return {"kind": "bulk", "src": src, "dst": dst}


def two_switch_scenario(
    senders: int,
    *,
    rate: str = "1Gbps",
    buffer: str = "16KiB",
    duration_s: float = DURATION_S,
    remedy: str = "droptail",
    seed: int = 1,
) -> dict[str, Any]:
    """The report's "contrived" topology: the receiver `recv` and the lone
    sender `a0` on switch s0; `senders` senders b0.. behind s1, whose uplink
    enters s0; every flow leaves s0 by its port toward recv. ``remedy`` (see
    :data:`REMEDIES`) replaces drop-tail at that common port only, or paces
    the senders."""
    sc: dict[str, Any] = {
        "name": f"outcast two-switch 1 vs {senders}",
        "duration": f"{duration_s}s",
        "seed": seed,
        "topology": {
            "kind": "outcast",
            "senders": senders,
            "rate": rate,
            "delay": "10us",
            "buffer": buffer,
        },
        "host": {"send_jitter": _jitter(rate)},
        "switch": {"forwarding_jitter": _jitter(rate)},
        "tcp": _tcp(),
        "metrics": {"throughput_bin": BIN},
        "workload": [_bulk("a0", "recv")] + [_bulk(f"b{i}", "recv") for i in range(senders)],
    }
    apply_remedy(sc, remedy, "s0", "recv")
    return sc


#: The remedies at the common port, and pacing at the hosts. "red": the
#: study's RED (min 5, max 15 packets, weight 0.002) with a buffer of 30
#: packets; "red-16KiB": the same RED in the 16 KiB (10 full-sized packets)
#: of the study's switches, where the average queue can never reach max_th
#: and nearly every drop is a tail drop.
REMEDIES = ["droptail", "red", "red-16KiB", "sfq", "sfq-64KiB", "drr", "hcf", "pacing"]
#: SFQ's buffer in "sfq-64KiB": 43 full-sized packets, about three per flow
#: of the 1-vs-12 case, where the study's 16 KiB holds less than one.
SFQ_LIMIT = "64KiB"
#: RED's buffer: twice max_th, the rule of thumb of Floyd's RED notes and of
#: tc-red(8) ("limit" well above "max"); the study's 16 KiB is below max_th.
RED_LIMIT = "30pkt"


def apply_remedy(
    sc: dict[str, Any], remedy: str, node: str, peer: str, *, everywhere: bool = False
) -> None:
    """Puts ``remedy`` (one of :data:`REMEDIES`) into scenario ``sc``: a
    discipline at the port of ``node`` toward ``peer`` (the common port), or
    with ``everywhere`` at every switch port, or TCP pacing at every host."""
    if remedy not in REMEDIES:
        raise ValueError(f"unknown remedy {remedy!r}; expected one of {REMEDIES}")
    if remedy == "droptail":
        return
    if remedy == "pacing":
        # Linux fq-style pacing at every sender (fairlab's defaults: 200 %
        # of cwnd/SRTT in slow start, 120 % in congestion avoidance).
        sc["tcp"] = {**sc["tcp"], "pacing": True}
        return
    discipline = remedy.split("-")[0]
    limit = {"red": RED_LIMIT, "sfq-64KiB": SFQ_LIMIT}.get(remedy)
    if everywhere:
        queue: dict[str, Any] = {"discipline": discipline}
        if discipline == "red":
            queue["red"] = {"min_th": 5, "max_th": 15, "w_q": 0.002}
        if limit is not None:
            sc["topology"] = {**sc["topology"], "buffer": limit}
        sc["queue"] = queue
        return
    port: dict[str, Any] = {"node": node, "peer": peer, "discipline": discipline}
    if limit is not None:
        port["limit"] = limit
    if discipline == "red":
        # The remedy as the study evaluates it: min 5, max 15 packets,
        # weight 0.002.
        sc["queue"] = {"red": {"min_th": 5, "max_th": 15, "w_q": 0.002}}
    sc["port"] = [port]


def _group_shares(res: Result, lone: Sequence[int], duration_s: float) -> dict[str, float]:
    """Mean throughput (Mb/s) of the lone flows and of the others over the
    first 20 %, 40 % and the whole run, as the study's bar charts show it."""
    fs = res.flow_series
    out: dict[str, float] = {}
    lone_set = set(lone)
    for frac, tag in ((0.2, "20"), (0.4, "40"), (1.0, "all")):
        end = duration_s * frac
        w = fs[fs["t_s"] <= end + 1e-9]
        per_flow = w.groupby("flow_id")["bytes"].sum() * 8 / end / 1e6
        out[f"lone_{tag}_mbps"] = float(per_flow[per_flow.index.isin(lone_set)].mean())
        out[f"others_{tag}_mbps"] = float(per_flow[~per_flow.index.isin(lone_set)].mean())
    return out


def _drop_runs(res: Result, node: str = "s0", peer: str = "recv") -> dict[str, float]:
    """At the common port (``node`` toward ``peer``): each input's share of
    its arrivals dropped, and its own runs of consecutive drops (drops of
    that input with none of its packets admitted between; the port_inputs
    table): mean length and longest. In the two-switch topology the lone
    input is a0, the crowded s1. Also the share of single drops among all
    inputs' own runs (``single_drop_pct``), the measure of the study's RED
    statement."""
    pi = res.tables["port_inputs"]
    pi = pi[(pi["node"] == node) & (pi["peer"] == peer)].set_index("input")
    out: dict[str, float] = {}
    for tag, inp in (("lone", "a0"), ("crowded", "s1")):
        r = pi.loc[inp] if inp in pi.index else None
        arrivals = float(r["arrival_pkts"]) if r is not None else 0.0
        drops = float(r["drop_pkts"]) if r is not None else 0.0
        runs = float(r["input_runs"]) if r is not None else 0.0
        out[f"{tag}_drop_pct"] = 100.0 * drops / arrivals if arrivals else 0.0
        out[f"{tag}_mean_run"] = drops / runs if runs else 0.0
        out[f"{tag}_longest_run"] = float(r["longest_input_run"]) if r is not None else 0.0
    out["single_drop_pct"] = single_drop_pct(res, node, peer)
    return out


def single_drop_pct(res: Result, node: str, peer: str) -> float:
    """Of the runs of consecutive drops that each input of the port of
    ``node`` toward ``peer`` suffers (its own runs, from the drop_runs
    table), the percentage that are single drops; NaN without drops."""
    dr = res.tables["drop_runs"]
    dr = dr[(dr["node"] == node) & (dr["peer"] == peer) & (dr["input"] != "*")]
    total = float(dr["input_runs"].sum())
    single = float(dr.loc[dr["run_length"] == 1, "input_runs"].sum())
    return 100.0 * single / total if total else float("nan")


def summarize_two_switch(tasks: Sequence[Task], results: Sequence[Result]) -> Summary:
    rows = []
    for t, r in zip(tasks, results, strict=True):
        f = r.flows
        g = f["goodput_bps"].to_numpy() / 1e6
        fair = g.sum() / len(g)
        duration = float(r.summary["sim_end_s"])
        row = {
            **t.labels,
            "lone_mbps": g[0],
            "others_mbps": g[1:].mean(),
            "fair_mbps": fair,
            "lone_share": g[0] / fair,
            "ratio": g[1:].mean() / g[0] if g[0] > 0 else float("inf"),
            "jain": jain_index(g),
            "lone_timeouts": int(f["timeouts"].iloc[0]),
            "others_timeouts": float(f["timeouts"].iloc[1:].mean()),
            "drops": int(r.summary["drops"]),
        }
        row.update(_group_shares(r, [0], duration))
        row.update(_drop_runs(r))
        rows.append(row)
    samples = pd.DataFrame(rows)
    keys = [k for k in ("rate", "shaper", "remedy", "senders") if k in samples.columns]
    table = (
        samples.groupby(keys, sort=False)
        .agg(
            lone_mbps=("lone_mbps", "mean"),
            others_mbps=("others_mbps", "mean"),
            fair_mbps=("fair_mbps", "mean"),
            lone_share=("lone_share", "mean"),
            lone_share_min=("lone_share", "min"),
            lone_share_max=("lone_share", "max"),
            below_half=("lone_share", lambda s: int((s < 0.5).sum())),
            jain=("jain", "mean"),
            lone_timeouts=("lone_timeouts", "mean"),
            others_timeouts=("others_timeouts", "mean"),
            lone_20_mbps=("lone_20_mbps", "mean"),
            others_20_mbps=("others_20_mbps", "mean"),
            lone_40_mbps=("lone_40_mbps", "mean"),
            others_40_mbps=("others_40_mbps", "mean"),
            lone_drop_pct=("lone_drop_pct", "mean"),
            crowded_drop_pct=("crowded_drop_pct", "mean"),
            lone_mean_run=("lone_mean_run", "mean"),
            crowded_mean_run=("crowded_mean_run", "mean"),
            lone_longest_run=("lone_longest_run", "max"),
            crowded_longest_run=("crowded_longest_run", "max"),
            single_drop_pct=("single_drop_pct", "mean"),
            seeds=("seed", "count"),
        )
        .reset_index()
    )
    # The throughput over time of the first seed's runs, for the plot.
    series = {}
    for t, r in zip(tasks, results, strict=True):
        if t.labels["seed"] == tasks[0].labels["seed"]:
            key = t.labels.get("shaper") or t.labels.get("remedy")
            series[(t.labels.get("rate"), key, t.labels["senders"])] = r.flow_series
    return Summary(table, extra=series)


def _two_switch_tasks(rate: str, quick: bool) -> list[Task]:
    out = []
    seeds, duration = _plan(quick)
    for n in [12] if quick else GROUPS:
        for seed in seeds:
            sc = two_switch_scenario(n, rate=rate, duration_s=duration, seed=seed)
            out.append(Task(sc, seed, {"rate": rate, "senders": n, "seed": seed}))
    return out


def _most_seeds_below_half(t: pd.DataFrame):
    rows = t[t["senders"] == 12]
    if rows.empty:
        return None, "the 1-vs-12 case was not run"
    r = rows.iloc[0]
    n = int(r["seeds"])
    need = max(1, (4 * n + 4) // 5)  # 4 of 5 seeds
    shows = "; ".join(
        f"1 vs {int(x['senders'])}: lone flow {x['lone_mbps']:.1f} Mb/s against a fair "
        f"{x['fair_mbps']:.1f} ({x['lone_share']:.2f} of it), below half in "
        f"{int(x['below_half'])} of {int(x['seeds'])} seeds"
        for _, x in t.iterrows()
    )
    return bool(r["below_half"] >= need), shows


def _lone_loses_every_group(t: pd.DataFrame):
    ok = bool((t["lone_mbps"] < t["others_mbps"]).all())
    shows = "; ".join(
        f"1 vs {int(x['senders'])}: {x['lone_mbps']:.1f} against {x['others_mbps']:.1f} Mb/s "
        f"per flow (first 20 %: {x['lone_20_mbps']:.1f} / {x['others_20_mbps']:.1f})"
        for _, x in t.iterrows()
    )
    return ok, shows


def _blackout(t: pd.DataFrame):
    rows = t[t["senders"] == 12]
    if rows.empty:
        return None, "the 1-vs-12 case was not run"
    r = rows.iloc[0]
    ok = bool(r["lone_mean_run"] > r["crowded_mean_run"] and r["lone_longest_run"] >= 2)
    shows = "; ".join(
        f"1 vs {int(x['senders'])}: port A loses {x['lone_drop_pct']:.1f} % of its packets "
        f"in own runs of {x['lone_mean_run']:.2f} on average "
        f"(longest {x['lone_longest_run']:.0f}), "
        f"port B {x['crowded_drop_pct']:.2f} % in runs of {x['crowded_mean_run']:.2f} "
        f"(longest {x['crowded_longest_run']:.0f})"
        for _, x in t.iterrows()
    )
    return ok, shows


TWO_SWITCH_PUBLISHED = [
    Published(
        "the lone flow on port A gets less than the flows on port B",
        f"{PAPER}: Figure 3 of the paper (Figure 2 of the report), 1 flow on port A against "
        "2, 6 and 12 on port B",
        claim="flow #1, alone on its input port, does not get a fair share of the bandwidth: "
        "at every group size its throughput is below the mean of the others",
        check=_lone_loses_every_group,
    ),
    Published(
        "1 vs 12: under half its fair share in at least 4 of 5 seeds",
        "issue 10's statement of what the reproduction must show (the paper's Figure 3 at 1 vs 12)",
        claim="with drop-tail, the lone flow gets under half its fair share in at least 4 of "
        "5 seeds",
        check=_most_seeds_below_half,
    ),
    Published(
        "port blackout: the lone port's drops come in longer runs",
        f"{PAPER} (Section 3.2, the paper's Figure 9); issue 10's statement of what the "
        "reproduction must show",
        claim="at the common port, port A's packets are dropped in runs of two or more (its "
        "own runs: drops of its packets with none admitted between), longer on average than "
        "port B's",
        check=_blackout,
    ),
]


def plot_two_switch(summary: Summary, published: Sequence[Published]) -> Figure:
    from ..plots import figure

    t = summary.table
    series = summary.extra or {}
    n = len(t)
    rows = -(-(n + 1) // 4)
    fig, axes = figure(n + 1, 4.2 * min(n + 1, 4), 3.8 * rows, rows=rows)
    for ax, (_, row) in zip(axes, t.iterrows(), strict=False):
        key = (row.get("rate"), row.get("shaper") or row.get("remedy"), row["senders"])
        fs = series.get(key)
        if fs is None:
            continue
        # A flow silent for a whole bin has no row in flow_series: plot it
        # as a zero, or a starved flow's line would jump over its silence.
        wide = fs.pivot_table(
            index="t_s", columns="flow_id", values="throughput_bps", aggfunc="sum"
        )
        grid = [i * BIN_S for i in range(int(round(max(wide.index) / BIN_S)) + 1)]
        wide = wide.reindex(grid).fillna(0.0)
        for fid in wide.columns:
            lone = fid == 0
            ax.plot(
                wide.index,
                wide[fid] / 1e6,
                lw=1.6 if lone else 0.6,
                color="C3" if lone else "C0",
                alpha=1.0 if lone else 0.5,
                label="flow 1 (port A)" if lone else None,
            )
        what = f"{row['shaper']}, " if "shaper" in t.columns else ""
        ax.set_title(f"{what}1 vs {int(row['senders'])}: per-flow throughput", fontsize=9)
        ax.set_xlabel("time (s)")
        ax.set_ylabel("Mb/s (0.5 s bins)")
        ax.grid(True, alpha=0.3)
        ax.legend(fontsize=7)
    ax = axes[-1]
    x = range(len(t))
    w = 0.13
    for j, (tag, label) in enumerate((("20", "first 20 %"), ("40", "first 40 %"), ("", "all"))):
        lone = t[f"lone_{tag}_mbps"] if tag else t["lone_mbps"]
        others = t[f"others_{tag}_mbps"] if tag else t["others_mbps"]
        ax.bar([i + (2 * j - 3) * w for i in x], lone, w, color="C3", alpha=0.4 + 0.3 * j)
        ax.bar(
            [i + (2 * j - 2) * w for i in x],
            others,
            w,
            color="C0",
            alpha=0.4 + 0.3 * j,
            label=label,
        )
    names = [
        (f"{r['shaper']}\n" if "shaper" in t.columns else "") + f"1 vs {int(r['senders'])}"
        for _, r in t.iterrows()
    ]
    ax.set_xticks(list(x), names, fontsize=7)
    ax.set_ylabel("mean throughput per flow (Mb/s)")
    ax.set_title("flow 1 (red) against port B's mean (blue): 20 %, 40 %, all", fontsize=9)
    ax.grid(True, axis="y", alpha=0.3)
    ax.legend(fontsize=7)
    return fig


def remedy_tasks(quick: bool) -> list[Task]:
    out = []
    seeds, duration = _plan(quick)
    for remedy in REMEDIES:
        for seed in seeds:
            sc = two_switch_scenario(12, duration_s=duration, remedy=remedy, seed=seed)
            out.append(Task(sc, seed, {"remedy": remedy, "senders": 12, "seed": seed}))
    return out


def _fair_disciplines(t: pd.DataFrame):
    fair = t[t["remedy"].isin(["sfq", "drr", "hcf"])]
    if fair.empty:
        return None, "SFQ, DRR and HCF were not run"
    ok = bool((fair["jain"] >= 0.9).all())
    shows = "; ".join(
        f"{x['remedy']}: Jain {x['jain']:.3f}, flow 1 at {x['lone_share']:.2f} of its fair share"
        for _, x in t.iterrows()
    )
    return ok, shows


REMEDY_PUBLISHED = [
    Published(
        "SFQ (and DRR, HCF) give near-equal throughput",
        f"{PAPER} (SFQ); issue 10 asks the same of DRR and HCF",
        claim="at the common port, SFQ, DRR and HCF each give a Jain index of at least 0.9 over "
        "the 13 flows of the 1-vs-12 case",
        check=_fair_disciplines,
    ),
]


def plot_remedies(summary: Summary, published: Sequence[Published]) -> Figure:
    from ..plots import figure

    t = summary.table
    fig, (a1, a2) = figure(2, 10, 3.8)
    x = range(len(t))
    a1.bar(x, t["jain"], color="C2")
    a1.axhline(0.9, ls="--", color="gray", lw=1)
    a1.set_xticks(list(x), list(t["remedy"]), rotation=30, fontsize=7)
    a1.set_ylim(0, 1.05)
    a1.set_ylabel("Jain's index over the 13 flows")
    a1.set_title("1 vs 12 at the common port (mean over seeds)", fontsize=9)
    a2.bar(x, t["lone_share"], color="C3")
    a2.errorbar(
        list(x),
        t["lone_share"],
        yerr=[t["lone_share"] - t["lone_share_min"], t["lone_share_max"] - t["lone_share"]],
        fmt="none",
        color="black",
        capsize=3,
    )
    a2.axhline(1.0, ls="--", color="gray", lw=1)
    a2.set_xticks(list(x), list(t["remedy"]), rotation=30, fontsize=7)
    a2.set_ylabel("flow 1's share of its fair share")
    a2.set_title("the lone flow (bars: range over seeds)", fontsize=9)
    for a in (a1, a2):
        a.grid(True, axis="y", alpha=0.3)
    return fig


# --------------------------------------------------------------------------
# The k = 4 fat tree (the paper's testbed, the report's Figure 4).

FAT_TREE_K = 4
#: The receiver of every fat-tree experiment and its edge switch: the common
#: port is edge0_0's port toward h0_0_0.
RECEIVER = "h0_0_0"
COMMON_PORT = ("edge0_0", RECEIVER)


def fat_tree_scenario(
    senders: Sequence[str],
    receiver: str = RECEIVER,
    *,
    duration_s: float = DURATION_S,
    paths: str = "shortest",
    remedy: str = "droptail",
    seed: int = 1,
) -> dict[str, Any]:
    """Long BIC flows from ``senders`` to ``receiver`` on the k = 4 fat
    tree: 1 Gb/s links of 10 µs, 16 KiB per switch port, shortest paths with
    ties broken by the destination's low-order bits at every switch alike
    (``destination_id``: the reproduction's riplpox StaticShortestPathRouting,
    so every flow to one host comes down one path), as the study routed;
    ``paths = "equal_length"`` is its remedy; ``remedy`` (see
    :data:`REMEDIES`) goes on every switch port, or paces the hosts."""
    routing: dict[str, Any] = {"selection": "destination_id"}
    if paths != "shortest":
        routing["paths"] = paths
    sc: dict[str, Any] = {
        "name": f"outcast fat tree, {len(senders)} to {receiver}",
        "duration": f"{duration_s}s",
        "seed": seed,
        "topology": {
            "kind": "fat_tree",
            "k": FAT_TREE_K,
            "rate": "1Gbps",
            "delay": "10us",
            "buffer": "16KiB",
        },
        "routing": routing,
        "host": {"send_jitter": _jitter("1Gbps")},
        "switch": {"forwarding_jitter": _jitter("1Gbps")},
        "tcp": _tcp(),
        "metrics": {"throughput_bin": BIN},
        "workload": [_bulk(h, receiver) for h in senders],
    }
    pod, edge, _ = receiver[1:].split("_")
    # A switch runs its discipline on every port: with the study's routing
    # the flows to one receiver meet at two drop-tail ports in turn (the
    # aggregation switch's port down to the receiver's edge switch, then
    # the edge switch's port to the receiver).
    apply_remedy(sc, remedy, f"edge{pod}_{edge}", receiver, everywhere=True)
    return sc


def sender_class(src: str, receiver: str = RECEIVER) -> int:
    """A sender's distance from ``receiver`` in hops on shortest paths: 2
    (same edge switch), 4 (same pod), 6 (another pod). Equal-length routing
    sends every flow over 6 hops; the tables still group flows by this
    class, so that the same senders are compared under both routings."""
    s_pod, s_edge, _ = src[1:].split("_")
    r_pod, r_edge, _ = receiver[1:].split("_")
    if s_pod != r_pod:
        return 6
    return 2 if s_edge == r_edge else 4


def _fat_tree_cases() -> list[tuple[str, list[str]]]:
    """(label, senders): the receiver h0_0_0; the 2-hop flow from h0_0_1;
    6-hop flows from the other pods; and all 15 other hosts (1 two-hop, 2
    four-hop from the receiver's pod, 12 six-hop)."""
    from ..scenarios import fat_tree_hosts

    hosts = fat_tree_hosts(FAT_TREE_K)
    far = [h for h in hosts if not h.startswith("h0_")]
    cases = [(f"1 vs {n}", ["h0_0_1", *far[:n]]) for n in GROUPS]
    cases.append(("15 to 1", hosts[1:]))
    return cases


def fat_tree_tasks(quick: bool) -> list[Task]:
    """Each case under the study's routing and under equal-length routing."""
    out = []
    seeds, duration = _plan(quick)
    for paths in ("shortest", "equal_length"):
        for label, senders in _fat_tree_cases():
            if quick and label != "15 to 1":
                continue
            for seed in seeds:
                sc = fat_tree_scenario(senders, duration_s=duration, paths=paths, seed=seed)
                out.append(Task(sc, seed, {"paths": paths, "case": label, "seed": seed}))
    return out


def _fat_tree_row(r: Result) -> dict[str, float]:
    f = r.flows.merge(r.tables["paths"][["flow_id", "hops"]], on="flow_id")
    f["class"] = f["src"].map(sender_class)
    by = f.groupby("class")["goodput_bps"].mean() / 1e6
    row: dict[str, float] = {}
    for hops in (2, 4, 6):
        row[f"hop{hops}_mbps"] = float(by.get(hops, float("nan")))
    row["ratio_6_to_2"] = row["hop6_mbps"] / row["hop2_mbps"]
    row["ratio_6_to_4"] = row["hop6_mbps"] / row["hop4_mbps"]
    row["jain"] = jain_index(f["goodput_bps"].to_numpy())
    row["hop2_timeouts"] = float(f[f["class"] == 2]["timeouts"].mean())
    row["hop6_timeouts"] = float(f[f["class"] == 6]["timeouts"].mean())
    row["hop2_path_hops"] = float(f[f["class"] == 2]["hops"].mean())
    row["single_drop_pct"] = single_drop_pct(r, *COMMON_PORT)
    return row


def summarize_fat_tree(tasks: Sequence[Task], results: Sequence[Result]) -> Summary:
    rows = [{**t.labels, **_fat_tree_row(r)} for t, r in zip(tasks, results, strict=True)]
    samples = pd.DataFrame(rows)
    keys = [k for k in ("paths", "remedy", "case") if k in samples.columns]
    table = (
        samples.groupby(keys, sort=False)
        .agg(
            hop2_mbps=("hop2_mbps", "mean"),
            hop4_mbps=("hop4_mbps", "mean"),
            hop6_mbps=("hop6_mbps", "mean"),
            ratio_6_to_2=("ratio_6_to_2", "mean"),
            ratio_6_to_2_median=("ratio_6_to_2", "median"),
            ratio_6_to_2_min=("ratio_6_to_2", "min"),
            ratio_6_to_2_max=("ratio_6_to_2", "max"),
            ratio_6_to_4=("ratio_6_to_4", "mean"),
            jain=("jain", "mean"),
            hop2_timeouts=("hop2_timeouts", "mean"),
            hop6_timeouts=("hop6_timeouts", "mean"),
            hop2_path_hops=("hop2_path_hops", "mean"),
            single_drop_pct=("single_drop_pct", "mean"),
            seeds=("seed", "count"),
        )
        .reset_index()
    )
    return Summary(table, samples=samples)


def _inverse_rtt_bias(t: pd.DataFrame):
    if "paths" in t.columns:
        t = t[t["paths"] == "shortest"]
    rows = t.groupby("case", sort=False)[["hop2_mbps", "hop6_mbps"]].mean()
    ok = bool((rows["hop2_mbps"] < rows["hop6_mbps"]).all())
    shows = "; ".join(
        f"{c}: 2-hop {r['hop2_mbps']:.1f}, 6-hop {r['hop6_mbps']:.1f} Mb/s per flow"
        for c, r in rows.iterrows()
    )
    return ok, shows


def _equal_length_narrows(t: pd.DataFrame):
    """Per case, the median over seeds of the 6-hop to 2-hop ratio (the
    median: one locked-in seed moves a mean of ratios by orders of
    magnitude), closer to 1 (in log terms) under equal-length routing."""
    import math

    med = t.groupby(["paths", "case"], sort=False)["ratio_6_to_2"].median()
    cases = [c for p, c in med.index if p == "shortest" and ("equal_length", c) in med.index]
    if not cases:
        return None, "equal-length routing was not run"
    parts, ok = [], True
    for c in cases:
        a, b = med[("shortest", c)], med[("equal_length", c)]
        better = abs(math.log(b)) < abs(math.log(a))
        ok = ok and better
        parts.append(f"{c}: {a:.2f} with shortest paths, {b:.2f} with equal-length")
    return ok, "median over seeds of the 6-hop/2-hop ratio; " + "; ".join(parts)


FAT_TREE_PUBLISHED = [
    Published(
        "the 2-hop flow gets less than the 6-hop flows (inverse RTT bias)",
        f"{PAPER}; the report's Figure 4 (1 two-hop against 2, 6 and 12 six-hop flows)",
        claim="with the study's routing, in every case the 2-hop flow, with a third of the "
        "6-hop flows' RTT, gets less throughput than they do",
        check=_inverse_rtt_bias,
    ),
    Published(
        "15 flows to one receiver: 6-hop flows get 7-8x the 2-hop flow",
        f"{PAPER}: roughly 7-8 times less for the lone 2-hop flow",
        {"paths": "shortest", "case": "15 to 1"},
        "ratio_6_to_2",
        7.5,
        unit="x",
        uncertainty=0.5,
    ),
    Published(
        "15 flows to one receiver: 6-hop flows get about 2x the 4-hop flows",
        f"{PAPER}: the 2nd and 3rd flows, on the receiver's pod, about 2 times less",
        {"paths": "shortest", "case": "15 to 1"},
        "ratio_6_to_4",
        2.0,
        unit="x",
        uncertainty=0.5,
    ),
    Published(
        "equal-length routing reduces the gap",
        f"{PAPER} (its remedy: routes of equal length spread flows evenly over a switch's "
        "input ports); issue 10's statement of what the reproduction must show",
        claim="in each case the 6-hop to 2-hop throughput ratio is closer to 1 with "
        "equal-length routing than with the study's shortest paths",
        check=_equal_length_narrows,
    ),
]


def fat_tree_remedy_tasks(quick: bool) -> list[Task]:
    """15 flows to one receiver with each remedy at the receiver's edge
    port (or pacing at the hosts)."""
    from ..scenarios import fat_tree_hosts

    senders = fat_tree_hosts(FAT_TREE_K)[1:]
    out = []
    seeds, duration = _plan(quick)
    for remedy in ("droptail", "red", "red-16KiB", "sfq", "sfq-64KiB", "pacing"):
        for seed in seeds:
            sc = fat_tree_scenario(senders, duration_s=duration, remedy=remedy, seed=seed)
            out.append(Task(sc, seed, {"remedy": remedy, "case": "15 to 1", "seed": seed}))
    return out


def _by_remedy(t: pd.DataFrame) -> pd.DataFrame:
    """Means over seeds per remedy (``t`` may hold one row per run)."""
    cols = ["hop2_mbps", "hop4_mbps", "hop6_mbps", "jain"]
    return t.groupby("remedy", sort=False)[cols].mean()


def _red_rtt_bias_returns(t: pd.DataFrame):
    m = _by_remedy(t)
    if "red" not in m.index:
        return None, "RED was not run"
    shows = "; ".join(
        f"{name}: 2-hop {x['hop2_mbps']:.1f}, 4-hop {x['hop4_mbps']:.1f}, 6-hop "
        f"{x['hop6_mbps']:.1f} Mb/s per flow"
        for name, x in m.iterrows()
    )
    return bool(m.loc["red", "hop2_mbps"] > m.loc["red", "hop6_mbps"]), shows


def _sfq_near_equal(t: pd.DataFrame):
    m = _by_remedy(t)
    if "sfq" not in m.index:
        return None, "SFQ was not run"
    shows = "; ".join(
        f"{name}: Jain {r['jain']:.3f} over the 15 flows; 2-hop {r['hop2_mbps']:.1f}, 6-hop "
        f"{r['hop6_mbps']:.1f} Mb/s"
        for name, r in m.iterrows()
        if name.startswith("sfq")
    )
    return bool(m.loc["sfq", "jain"] >= 0.9), "in the study's 16 KiB: " + shows


FAT_TREE_REMEDY_PUBLISHED = [
    Published(
        "RED: more than 90 % of drop events are single drops",
        f"{PAPER} (Section 5, RED at min 5, max 15 packets, weight 0.002)",
        {"remedy": "red"},
        "single_drop_pct",
        90.0,
        bound=">=",
        unit="%",
        claim="at the receiver's edge port, of the runs of consecutive drops each input port "
        "suffers, more than 90 % are single drops",
    ),
    Published(
        "RED: the RTT bias returns (the 2-hop flow gets more)",
        f"{PAPER} (Section 5)",
        claim="under RED the 2-hop flow, with the shortest RTT, gets more than the 6-hop flows",
        check=_red_rtt_bias_returns,
    ),
    Published(
        "SFQ gives near-equal throughput",
        f"{PAPER} (Section 5)",
        claim="with SFQ at the receiver's edge port, Jain's index over the 15 flows is at "
        "least 0.9",
        check=_sfq_near_equal,
    ),
    Published(
        "pacing narrows the gap to about 2x",
        f"{PAPER}: with TCP pacing the 2-hop flow gets about 2 times less, against 7-8 without",
        {"remedy": "pacing"},
        "ratio_6_to_2",
        2.0,
        unit="x",
        uncertainty=0.5,
    ),
]


SCALE_UP = [2, 5, 10]


def scale_up_tasks(quick: bool) -> list[Task]:
    """n flows from h0_0_1 (2 hops) against 12 n flows from the 12 hosts of
    the other pods (6 hops, n each), to h0_0_0: the fixed 1:12 ratio."""
    from ..scenarios import fat_tree_hosts

    far = [h for h in fat_tree_hosts(FAT_TREE_K) if not h.startswith("h0_")]
    out = []
    seeds, duration = _plan(quick)
    for n in [2] if quick else SCALE_UP:
        senders = ["h0_0_1"] * n + [h for h in far for _ in range(n)]
        for seed in seeds:
            sc = fat_tree_scenario(senders, duration_s=duration, seed=seed)
            out.append(Task(sc, seed, {"case": f"{n} vs {12 * n}", "seed": seed}))
    return out


SCALE_UP_PUBLISHED = [
    Published(
        "the outcast scales up at a fixed 1:12 ratio",
        f"{PAPER}; the report's Figures 5 and 6 (2 vs 24, 5 vs 60, 10 vs 120 flows)",
        claim="with more 2-hop flows at a fixed ratio of 1 to 12, each 2-hop flow still gets "
        "less than each 6-hop flow",
        check=_inverse_rtt_bias,
    )
]


def plot_fat_tree(summary: Summary, published: Sequence[Published]) -> Figure:
    from ..plots import figure

    t = summary.table
    fig, (ax,) = figure(1, max(8, 1.1 * len(t)), 3.8)
    x = range(len(t))
    w = 0.27
    for j, (hops, color) in enumerate(((2, "C3"), (4, "C1"), (6, "C0"))):
        ax.bar(
            [i + (j - 1) * w for i in x],
            t[f"hop{hops}_mbps"].fillna(0),
            w,
            color=color,
            label=f"senders {hops} hops away (mean per flow)",
        )
    labels = []
    for _, r in t.iterrows():
        parts = [str(r[k]) for k in ("case", "paths", "remedy") if k in t.columns]
        labels.append("\n".join(parts))
    ax.set_xticks(list(x), labels, fontsize=7)
    ax.set_ylabel("throughput per flow (Mb/s)")
    ax.set_title("k = 4 fat tree, all flows to h0_0_0 (mean over seeds)", fontsize=9)
    ax.grid(True, axis="y", alpha=0.3)
    ax.legend(fontsize=7)
    return fig


# --------------------------------------------------------------------------
# Port blackout: the drop-run histograms and the drop trace of the common
# port (the report's joined tcpdump trace and its drop-sequence histogram).

#: The trace keeps the common port's first arrivals: about 2.3 s at 100 Mb/s
#: and 0.23 s at 1 Gb/s, enough to show runs and small enough to store.
TRACE_ROWS = 20_000
RUN_BUCKETS = [(1, 1, "1"), (2, 2, "2"), (3, 3, "3"), (4, 7, "4-7"), (8, 10**9, "8+")]


def blackout_tasks(quick: bool) -> list[Task]:
    out = []
    _, duration = _plan(quick)
    for rate in ("100Mbps", "1Gbps"):
        for n in [12] if quick else [6, 12]:
            sc = two_switch_scenario(n, rate=rate, duration_s=duration, seed=1)
            sc["metrics"] = {
                **sc["metrics"],
                "drop_trace": "s0:recv",
                "drop_trace_max_rows": TRACE_ROWS,
            }
            out.append(Task(sc, 1, {"rate": rate, "senders": n, "seed": 1}))
    return out


def _longest_a0_burst_run(trace: pd.DataFrame, max_gap_s: float) -> tuple[float, float, int]:
    """Start and end time of port A's longest run of consecutive drops of
    its own packets in the trace that arrived as one burst (no gap above
    ``max_gap_s`` between them: a run that spans retransmission timeouts is
    a different picture), and its length."""
    a = trace[trace["input"] == "a0"]
    best, cur, first, last = (0.0, 0.0, 0), 0, 0.0, -1.0
    for t, admitted in zip(a["t_s"].to_numpy(), a["admitted"].to_numpy(), strict=True):
        if admitted or (cur and t - last > max_gap_s):
            cur = 0
        if admitted:
            continue
        if cur == 0:
            first = t
        cur += 1
        last = t
        if cur > best[2]:
            best = (first, t, cur)
    return best


def summarize_blackout(tasks: Sequence[Task], results: Sequence[Result]) -> Summary:
    rows = []
    excerpts = {}
    for t, r in zip(tasks, results, strict=True):
        dr = r.tables["drop_runs"]
        dr = dr[(dr["node"] == "s0") & (dr["peer"] == "recv")]
        pi = r.tables["port_inputs"]
        pi = pi[(pi["node"] == "s0") & (pi["peer"] == "recv")].set_index("input")
        port_runs = dr[dr["input"] == "*"]
        port_single = float(port_runs.loc[port_runs["run_length"] == 1, "runs"].sum()) / max(
            1.0, float(port_runs["runs"].sum())
        )
        for port, inp in (("A (lone)", "a0"), ("B (crowded)", "s1")):
            d = dr[dr["input"] == inp]
            row = {
                **t.labels,
                "port": port,
                "arrivals": int(pi.loc[inp, "arrival_pkts"]) if inp in pi.index else 0,
                "drops": int(pi.loc[inp, "drop_pkts"]) if inp in pi.index else 0,
            }
            row["drop_pct"] = 100.0 * row["drops"] / row["arrivals"] if row["arrivals"] else 0.0
            total = int(d["input_runs"].sum())
            for lo, hi, name in RUN_BUCKETS:
                sel = d[(d["run_length"] >= lo) & (d["run_length"] <= hi)]
                row[f"runs_{name}"] = int(sel["input_runs"].sum())
            row["mean_run"] = row["drops"] / total if total else 0.0
            row["longest_run"] = int(pi.loc[inp, "longest_input_run"]) if inp in pi.index else 0
            row["port_single_pct"] = 100.0 * port_single
            rows.append(row)
        trace = r.drop_trace
        packet_s = PACKET_BITS / parse_rate_bps(t.labels["rate"])
        t0, t1, n = _longest_a0_burst_run(trace, 10 * packet_s)
        if n:
            pad = max(t1 - t0, 1e-4) * 0.25
            w = trace[(trace["t_s"] >= t0 - pad) & (trace["t_s"] <= t1 + pad)]
            excerpts[(t.labels["rate"], t.labels["senders"])] = (w.head(400), n)
    return Summary(pd.DataFrame(rows), extra=excerpts)


def _runs_longer_on_lone_port(t: pd.DataFrame):
    parts, ok = [], True
    for (rate, n), g in t.groupby(["rate", "senders"], sort=False):
        a = g[g["port"] == "A (lone)"].iloc[0]
        b = g[g["port"] == "B (crowded)"].iloc[0]
        multi = a["drops"] - a["runs_1"] if a["drops"] else 0
        if int(n) == 12:
            ok = ok and a["mean_run"] > b["mean_run"] and a["longest_run"] >= 2
        parts.append(
            f"{rate} 1 vs {n}: port A {a['drop_pct']:.1f} % dropped, own runs "
            f"{a['mean_run']:.2f} long on average (longest {a['longest_run']}; "
            f"{multi} drops in runs of 2 or more); port B {b['drop_pct']:.2f} %, runs "
            f"{b['mean_run']:.2f} (longest {b['longest_run']})"
        )
    return ok, "; ".join(parts)


BLACKOUT_PUBLISHED = [
    Published(
        "port blackout: runs of consecutive drops hit the lone port",
        f"{PAPER} (Section 3.2, Figure 9 of the paper, Figure 1 of the report); issue 10's "
        "statement of what the reproduction must show",
        claim="in the 1-vs-12 case port A's packets are dropped in runs of two or more, "
        "longer on average than port B's",
        check=_runs_longer_on_lone_port,
    ),
    Published(
        "the report: most drops are single",
        f"{REPORT}: 'our aggregate drop counts show that most of the time the flows experience "
        "drops in singles only'",
        claim="counted at the port (a run ends at any admission), most runs are single drops",
        check=lambda t: (
            bool((t["port_single_pct"] > 50).all()),
            "; ".join(
                f"{r} 1 vs {n}: {g['port_single_pct'].iloc[0]:.1f} % of the port's runs are "
                "single drops"
                for (r, n), g in t.groupby(["rate", "senders"], sort=False)
            ),
        ),
    ),
]


def plot_blackout(summary: Summary, published: Sequence[Published]) -> Figure:
    from ..plots import figure

    t = summary.table
    ex = summary.extra or {}
    groups = list(t.groupby(["rate", "senders"], sort=False))
    fig, axes = figure(2 * len(groups), 4.2 * len(groups), 6.8, rows=2)
    for j, ((rate, n), g) in enumerate(groups):
        ax = axes[j]
        names = [b[2] for b in RUN_BUCKETS]
        for k, (port, color) in enumerate((("A (lone)", "C3"), ("B (crowded)", "C0"))):
            row = g[g["port"] == port].iloc[0]
            counts = [row[f"runs_{nm}"] for nm in names]
            ax.bar(
                [i + (k - 0.5) * 0.4 for i in range(len(names))],
                counts,
                0.4,
                color=color,
                label=f"port {port}",
            )
        ax.set_yscale("symlog")
        ax.set_xticks(range(len(names)), names)
        ax.set_xlabel("length of an input's own run of drops (packets)")
        ax.set_ylabel("runs")
        ax.set_title(f"{rate}, 1 vs {n}: runs of consecutive drops", fontsize=9)
        ax.legend(fontsize=7)
        ax.grid(True, axis="y", alpha=0.3)
        ax = axes[len(groups) + j]
        e = ex.get((rate, n))
        if e is None:
            ax.set_axis_off()
            continue
        w, longest = e
        for inp, y in (("a0", 1), ("s1", 0)):
            rows = w[w["input"] == inp]
            ok = rows[rows["admitted"] == 1]
            dropped = rows[rows["admitted"] == 0]
            ax.plot(ok["t_s"] * 1e3, [y] * len(ok), "o", ms=3, color="C2")
            ax.plot(dropped["t_s"] * 1e3, [y] * len(dropped), "x", ms=5, color="C3")
        ax.set_yticks([0, 1], ["B (s1)", "A (a0)"])
        ax.set_ylim(-0.5, 1.5)
        ax.set_xlabel("time (ms)")
        ax.set_title(
            f"{rate}, 1 vs {n}: trace at s0→recv, a run of {longest} (o in, x dropped)",
            fontsize=8,
        )
        ax.grid(True, alpha=0.3)
    return fig


# --------------------------------------------------------------------------
# Mininet's link emulation: the report's sensitivity to TBF and HTB.

#: The report's three settings of the switch ports (run_simple_topo.sh and
#: tcp_outcast.py of bhelsley/stanford-cs244-tcp-outcast): tc's tbf at 100
#: Mbit with burst 0.02mbit (100 Mbit / HZ 5000; tc reads a size in mbit as
#: units of 2^20 bits, so 2,621 bytes) and a limit of 128kb or 16kb (tc's kb:
#: KiB); or Mininet's htb (rate 100 Mbit, burst 15k) over a netem queue of 11
#: packets.
MININET_SETTINGS = {
    "tbf-128KiB": ({"kind": "tbf", "rate": "100Mbps", "burst": "2621B"}, "128KiB"),
    "tbf-16KiB": ({"kind": "tbf", "rate": "100Mbps", "burst": "2621B"}, "16KiB"),
    "htb-11pkt": ({"kind": "htb", "rate": "100Mbps", "burst": "15KiB"}, "11pkt"),
}


def mininet_scenario(
    senders: int, setting: str, *, duration_s: float = DURATION_S, seed: int = 1
) -> dict[str, Any]:
    """The two-switch topology as the report's Mininet built it: veth links
    (10 Gb/s here, 1 µs: Mininet's delay was 0 ms), every switch port shaped
    per ``setting`` (see :data:`MININET_SETTINGS`), every host's interface
    Mininet's htb at 100 Mbit over a 200-packet netem queue (TCLink's
    max_queue_size=200)."""
    shaper, buffer = MININET_SETTINGS[setting]
    sc = two_switch_scenario(
        senders, rate="10Gbps", buffer=buffer, duration_s=duration_s, seed=seed
    )
    sc["topology"]["delay"] = "1us"
    sc["queue"] = {"shaper": shaper}
    # One packet time at the shaped rate, as in the other experiments.
    sc["host"] = {
        "send_jitter": _jitter("100Mbps"),
        "nic_queue": "200pkt",
        "shaper": {"kind": "htb", "rate": "100Mbps", "burst": "15KiB"},
    }
    sc["switch"] = {"forwarding_jitter": _jitter("100Mbps")}
    return sc


def mininet_tasks(quick: bool) -> list[Task]:
    out = []
    seeds, duration = _plan(quick)
    for setting in MININET_SETTINGS:
        for n in [12] if quick else GROUPS:
            for seed in seeds:
                sc = mininet_scenario(n, setting, duration_s=duration, seed=seed)
                out.append(Task(sc, seed, {"shaper": setting, "senders": n, "seed": seed}))
    return out


def _mininet_check(setting: str, want: str):
    """A check of the report's statement about ``setting``: ``want`` is
    "outcast" (the lone flow below the others), "majority" (the lone flow
    takes more than half the link) or "none" (the lone flow under a tenth of
    its fair share)."""

    def check(t: pd.DataFrame):
        g = t[t["shaper"] == setting]
        if g.empty:
            return None, f"{setting} was not run"
        m = g.groupby("senders", sort=False)[["lone_mbps", "others_mbps", "lone_share"]].mean()
        link = 100.0
        if want == "outcast":
            ok = bool((m["lone_mbps"] < m["others_mbps"]).all())
        elif want == "majority":
            ok = bool((m["lone_mbps"] > link / 2).all())
        else:
            ok = bool((m["lone_share"] < 0.1).all())
        shows = "; ".join(
            f"1 vs {int(n)}: lone flow {r['lone_mbps']:.1f} Mb/s against {r['others_mbps']:.1f} "
            f"per other flow ({r['lone_share']:.2f} of its fair share)"
            for n, r in m.iterrows()
        )
        return ok, shows

    return check


MININET_PUBLISHED = [
    Published(
        "TBF with a 128 KB buffer: the outcast, as in the paper",
        f"{REPORT}, Figure 3 and Lessons Learned ('TBF queuing with a 128KB buffer gives nice "
        "clean results that closely mirror those in the paper')",
        claim="the lone flow gets less than each flow on port B",
        check=_mininet_check("tbf-128KiB", "outcast"),
    ),
    Published(
        "TBF with 16 KB: the effect disappears, the outcast takes the majority",
        f"{REPORT}, Lessons Learned ('Reducing the buffer size to 16KB ... causes the effect "
        "to disappear completely, with the outcast host getting a majority share')",
        claim="the lone flow gets more than half of the 100 Mb/s",
        check=_mininet_check("tbf-16KiB", "majority"),
    ),
    Published(
        "HTB with an 11-packet queue: extreme outcasting",
        f"{REPORT}, Lessons Learned ('switch to HTB (using an 11 packet ~16KB buffer) we get "
        "overly severe outcasting effects with the Outcast getting virtually no throughput')",
        claim="the lone flow gets under a tenth of its fair share",
        check=_mininet_check("htb-11pkt", "none"),
    ),
]


_TWO_SWITCH_SETUP = (
    'The report\'s two-switch topology (kind = "outcast"): the receiver recv and one '
    "sender a0 on switch s0, {what} senders b0.. behind switch s1 whose uplink enters s0; "
    "every flow is a long iperf-like TCP BIC flow (Linux's tcp_bic.c) to recv and leaves s0 "
    "by its port toward recv (the report's s0-eth1), a 16 KiB tail-drop buffer on every "
    "switch port, {rate} links with 10 µs of delay, Linux hosts with min RTO 2 ms on 1 µs "
    "timers; hosts and switches add up to one packet time of jitter to each packet (12 µs "
    "at 1 Gb/s, 120 µs at 100 Mb/s; order kept: the testbeds' software forwarding, against "
    "the phase lock-in of a deterministic simulator), 20 s, seeds 1-5; throughput in 0.5 s "
    "bins and each group's mean over the first 20 %, 40 % and the whole run."
)

EXPERIMENTS = [
    Experiment(
        name="two-switch",
        reproduces="NSDI'12 Fig. 3 (report Fig. 2/3): 1 flow on port A against 2, 6 and 12 on "
        "port B, 1 Gb/s",
        setup=_TWO_SWITCH_SETUP.format(what="2, 6 or 12", rate="1 Gb/s"),
        tasks=lambda quick: _two_switch_tasks("1Gbps", quick),
        summarize=summarize_two_switch,
        published=TWO_SWITCH_PUBLISHED,
        quick="1 vs 12 only, seeds 1 and 2, 2 s",
        plot=plot_two_switch,
        notes="The paper's picture on every seed: the lone flow gets 0.43, 0.18 and 0.14 of its "
        "fair share against 2, 6 and 12 flows on port B (below half on 5 of 5 seeds each), "
        "from the first 20 % of the run on. Port A loses 3-18 % of its packets, port B under "
        "1 %. Two model choices made it so, both found by following runs where it failed. (1)"
        " With switches that forward with a fixed delay, one of the 13 flows, or port A, "
        "captured the port for the whole run on some seeds (940 Mb/s to the lone flow against"
        " 2 flows on all five seeds; 890 Mb/s to one of the 12 on seed 1): ports of equal "
        "rate keep their phase, and at a full queue the input whose packets land just after "
        "each departure takes every freed slot. Up to one packet time of forwarding jitter at"
        ' the switches (a software switch\'s variation; docs/scenario.md, "Switches") ends it;'
        " host jitter alone does not, because the switches re-serialize. (2) BIC as Linux "
        'runs it (cc = "bic"): the paper\'s BIC (cc = "bic_paper"), whose max probing grows 1,'
        " 2, 4 ... segments per RTT, let a flow fill the standing queues faster.",
    ),
    Experiment(
        name="two-switch-100m",
        reproduces="The report's Fig. 3: the same at 100 Mb/s (Mininet's rate)",
        setup=_TWO_SWITCH_SETUP.format(what="2, 6 or 12", rate="100 Mb/s"),
        tasks=lambda quick: _two_switch_tasks("100Mbps", quick),
        summarize=summarize_two_switch,
        published=TWO_SWITCH_PUBLISHED[:1],
        quick="1 vs 12 only, seeds 1 and 2, 2 s",
        plot=plot_two_switch,
        notes="At 100 Mb/s the lone flow gets 0.09 and 0.08 of its fair share against 6 and 12 "
        "flows (every seed) and 0.85 against 2: with 2 flows on port B, s1's uplink is not "
        "full and port B does not arrive as a line-rate stream. The report's Mininet runs "
        "used a 128 KB token-bucket buffer here (see the mininet experiment).",
    ),
    Experiment(
        name="mininet",
        reproduces="The report's Lessons Learned: the outcast with Mininet's TBF (128 KB and "
        "16 KB) and HTB (11 packets) switch queues, 100 Mb/s",
        setup="The two-switch topology as the report's Mininet built it "
        "(run_simple_topo.sh, tcp_outcast.py): veth links, modelled as 10 Gb/s with 1 µs of "
        "delay (Mininet's was 0 ms); every switch port shaped to 100 Mb/s by tc's tbf with "
        "burst 0.02mbit (100 Mbit / HZ 5000, which tc reads as 2,621 bytes) and a 128 KiB "
        "or 16 KiB byte limit, or by "
        "Mininet's htb (rate 100 Mbit, burst 15k, tc's default cburst of one MTU) over an "
        "11-packet queue; every host's interface Mininet's htb at 100 Mbit over 200 "
        "packets; hosts and switches jitter each packet by up to 120 µs (one packet at "
        "100 Mb/s); TCP as in the other experiments; 1 vs 2, 6 and 12, 20 s, seeds 1-5 "
        "(the report: one run of 10 s each).",
        tasks=mininet_tasks,
        summarize=summarize_two_switch,
        published=MININET_PUBLISHED,
        quick="1 vs 12 only, seeds 1 and 2, 2 s",
        plot=plot_two_switch,
        notes="fairlab reproduces one of the report's three observations. TBF with 128 KiB shows "
        "the outcast (the lone flow at 0.76, 0.09 and 0.06 of its fair share against 2, 6 and"
        " 12 flows), as the report's Figure 3. TBF with 16 KiB does not flip it: the lone "
        "flow gets 0.25, 0.03 and 0.05 of its fair share, where the report saw it take the "
        "majority of the link. HTB over 11 packets is the most severe at 6 and 12 flows (0.02"
        " and 0.04, 'virtually no throughput'), but not at 2 (0.29). Not explained; the "
        "strongest candidate is what fairlab does not model: the Mininet VM's veth interfaces"
        " hand TCP's GSO/TSO super-packets (up to 64 KB) to the qdiscs, tbf splits only those"
        " above its max size and its byte limit counts each whole, so a 16 KiB limit holds a "
        "fraction of one, while fairlab's senders emit MSS-sized packets; the HZ the report "
        "guessed (5000, for the burst) is a second unknown. With the 128 KiB buffer the queue"
        " holds 85 packets, the bursts no longer matter, and model and report agree. A "
        "second candidate: the report made one 10 s run per setting. With 1 µs of host "
        "jitter and none at the switches, TBF 16 KiB gave the lone flow 97 Mb/s on one seed "
        "of five (it took the port in the first half second and s1's packets were then "
        "dropped in runs of 33): the reversal is a possible outcome of the same capture, "
        "and one run can land on it.",
    ),
    Experiment(
        name="blackout",
        reproduces="NSDI'12 Fig. 9 (report Fig. 1, its joined trace and drop-sequence "
        "histogram): runs of consecutive drops at the common port",
        setup=_TWO_SWITCH_SETUP.format(what="6 or 12", rate="100 Mb/s and 1 Gb/s").replace(
            "seeds 1-5", "seed 1"
        )
        + " Each input port's own runs of consecutive drops at s0's port toward recv (drops "
        "of its packets with none of its packets admitted between) over the whole run, and "
        f"the drop trace of that port ([metrics] drop_trace, its first {TRACE_ROWS:,} "
        "arrivals: time, input port, flow, admitted or dropped), like the report's joined "
        "tcpdump trace.",
        tasks=blackout_tasks,
        summarize=summarize_blackout,
        published=BLACKOUT_PUBLISHED,
        quick="1 vs 12 only, 2 s",
        plot=plot_blackout,
        notes="The report's Figure 1 pattern is in every run: a run of port A's packets dropped "
        "while each packet of port B in between gets in (the lower panels: the longest burst-"
        "run of port A in the first 20,000 arrivals). Over the whole run port A's own runs "
        "average 1.2-1.4 packets (longest 5-6) against port B's 1.13, and port A loses 25-60 "
        "times the share of packets port B loses. Counted at the port, where any admission "
        "ends a run, 88-89 % of runs are single drops, as the report found in its aggregate "
        'counts ("most of the time the flows experience drops in singles only"): the blackout'
        " shows in each input's own runs, not in the port's. Before the switches had "
        "forwarding jitter the same runs were longer (port A's own runs up to 31 at 1 Gb/s): "
        "the phase lock-in made the blackout deterministic.",
    ),
    Experiment(
        name="remedies",
        reproduces="NSDI'12 Section 5 remedies at the switch and the host: RED, SFQ (and "
        "DRR, HCF) at the common port, TCP pacing",
        setup=_TWO_SWITCH_SETUP.format(what="12", rate="1 Gb/s")
        + " The port of s0 toward recv runs drop-tail; RED (min 5, max 15 packets, weight "
        "0.002, max_p 0.1, gentle) with a 30-packet buffer ('red': max_th must fit in the "
        "buffer) and in the study's 16 KiB ('red-16KiB', 10 packets: the average never "
        "reaches max_th); SFQ and DRR (1024 buckets sharing the 16 KiB); HCF (its defaults: "
        "K = 20, c0 = 1, dynamic period, HP and LP halves of the buffer); or drop-tail with "
        "TCP pacing at every host ('pacing': Linux fq-style, 200 % of cwnd/SRTT in slow "
        "start, 120 % in congestion avoidance).",
        tasks=remedy_tasks,
        summarize=summarize_two_switch,
        published=REMEDY_PUBLISHED,
        quick="seeds 1 and 2, 2 s",
        plot=plot_remedies,
        notes="Jain's index passes 0.9 with every discipline, since 12 of the 13 flows share evenly"
        " in every case; the lone flow tells them apart. HCF gives it its fair share (1.1), "
        "RED more than that (1.4: the RTT bias returns, as the paper says), but only with a "
        "buffer that holds max_th: in the study's 16 KiB (10 packets, red-16KiB) the average "
        "never reaches max_th = 15 and most drops are tail drops (0.66). SFQ and DRR give it "
        "a quarter (0.27, 0.26): 16 KiB is less than one packet per flow, every flow lives on"
        " timeouts (the lone flow about twice as many as the others), and its window, sent at"
        " line rate from a host on s0, arrives as one burst into a bucket that holds one "
        "packet. With 64 KiB (sfq-64KiB) SFQ gives it 1.0 of its fair share. Pacing alone "
        "(0.28) spreads that burst but does not lift it.",
    ),
]

EXPERIMENTS.append(
    Experiment(
        name="fat-tree",
        reproduces="NSDI'12 (report Fig. 4): a k = 4 fat tree, one 2-hop flow against 2, 6 "
        "and 12 six-hop flows, and 15 flows to one receiver",
        setup="The k = 4 fat tree of the paper's testbed (16 hosts, 20 switches, kind = "
        '"fat_tree"): 1 Gb/s links of 10 µs, 16 KiB tail-drop buffers per switch port, '
        "shortest paths with ties broken by the destination's low-order bits, the same "
        "choice at every switch of a tier (the study's rule, as the reproduction's riplpox "
        'StaticShortestPathRouting implements it: [routing] selection = "destination_id"; '
        "every flow to h0_0_0 comes down core0_0 and agg0_0, and its pod neighbours climb "
        "to agg0_0 too). Long TCP BIC flows to h0_0_0: from "
        "h0_0_1 (2 hops) and from 2, 6 or 12 hosts of the other pods (6 hops); and from all "
        "15 other hosts (1 two-hop, 2 four-hop from the receiver's pod, 12 six-hop). Linux "
        "hosts with min RTO 2 ms on 1 µs timers, send jitter of up to one packet time, 20 s, "
        "seeds 1-5; hops and RTTs from the paths table. Every case runs twice: with the "
        "study's shortest paths and with equal-length routing ([routing] paths = "
        '"equal_length": every flow climbs to a core, so all 15 enter edge0_0 from its two '
        "aggregation ports). Flows are grouped by how far their sender is from h0_0_0 on "
        "shortest paths (2, 4 or 6 hops) under both routings.",
        tasks=fat_tree_tasks,
        summarize=summarize_fat_tree,
        published=FAT_TREE_PUBLISHED,
        quick="15 to 1 only, both routings, seeds 1 and 2, 2 s",
        plot=plot_fat_tree,
        notes="With the study's routing every flow to h0_0_0 comes down core0_0 and agg0_0, so the "
        "flows meet at agg0_0 toward edge0_0 (2 four-hop flows from edge0_1 against 12 six-"
        "hop flows) and then at edge0_0 toward h0_0_0 (the 2-hop flow against the 14). 15 to "
        "1: the 2-hop flow gets 2.9 Mb/s against 78 per six-hop flow (28x, stable over seeds:"
        " 24-33x) and the 4-hop flows 13 (5.9x): the ordering published, the gaps 3-4 times "
        "as wide as the paper's 7-8x and 2x. Outside, and not explained: the paper does not "
        "say more about its testbed's routing than the report does; with Al-Fares' "
        "address_bits, which spreads the six-hop flows over both aggregation switches, the "
        "gap was 2.9x. 1 vs 6 and 1 vs 12: the 2-hop flow gets 0.36 and 0.25 of a six-hop "
        "flow; 1 vs 2: it wins (447 against 261 Mb/s), because two six-hop flows do not fill "
        "agg0_0's port toward edge0_0, so they do not arrive as a line-rate stream (the "
        "report saw the 2-hop flow hog the link at first with 2 six-hop flows too). Equal-"
        "length routing brings 15 to 1 to 1.1x and 1 vs 12 to 1.2x; with 1 vs 2 it makes the "
        "2-hop flow lose (it now shares agg0_1's port with nothing, but climbs through the "
        "core).",
    )
)

EXPERIMENTS.append(
    Experiment(
        name="fat-tree-remedies",
        reproduces="NSDI'12 Section 5 in the fat tree: RED (the RTT bias returns, single "
        "drops), SFQ, and TCP pacing, with 15 flows to one receiver",
        setup="The fat tree of the fat-tree experiment, all 15 other hosts sending to "
        "h0_0_0 with the study's routing; every switch port runs drop-tail, RED (min 5, max "
        "15 packets, weight 0.002) with 30-packet buffers or in the study's 16 KiB, or SFQ "
        "(with the study's routing the flows meet at two ports in turn: agg0_0 toward "
        "edge0_0, where the 2 four-hop flows join the 12 six-hop flows, and edge0_0 toward "
        "h0_0_0, where the 2-hop flow joins them); or every host paces (Linux fq-style, "
        "200 % / 120 % of cwnd/SRTT). The share of single drops counts, at that port, the runs of "
        "consecutive drops each input port suffers. 20 s, seeds 1-5.",
        tasks=fat_tree_remedy_tasks,
        summarize=summarize_fat_tree,
        published=FAT_TREE_REMEDY_PUBLISHED,
        quick="seeds 1 and 2, 2 s",
        plot=plot_fat_tree,
        notes="RED (min 5, max 15 packets, weight 0.002) on every switch port with a 30-packet "
        "buffer: 96.8 % of drop runs at the receiver's port are single drops and the 2-hop "
        "flow gets the most (106 against 58 per six-hop flow), as published. In the study's "
        "16 KiB, RED cannot reach max_th and the gap only narrows (1.5x). SFQ in 16 KiB does "
        "not help (2-hop 2.2 Mb/s, Jain 0.85): 15 flows share 10 packets; with 64 KiB per "
        "port (sfq-64KiB): Jain 0.998, every class within 3 % of the others. Pacing "
        "narrows the 28x gap to 4.4x (published: to about 2x).",
    )
)

EXPERIMENTS.append(
    Experiment(
        name="scale-up",
        reproduces="NSDI'12 Fig. 5 (report Fig. 6): the fat tree at a fixed 1:12 ratio, 2 vs "
        "24, 5 vs 60, 10 vs 120 flows",
        setup="The fat tree of the fat-tree experiment; n flows from h0_0_1 (2 hops) and n "
        "flows from each of the 12 hosts of the other pods (6 hops) to h0_0_0, n = 2, 5, 10; "
        "20 s, seeds 1-5.",
        tasks=scale_up_tasks,
        summarize=summarize_fat_tree,
        published=SCALE_UP_PUBLISHED,
        quick="2 vs 24 only, seeds 1 and 2, 2 s",
        plot=plot_fat_tree,
        notes="Holds on every seed at the fixed 1:12 ratio: each 2-hop flow gets 4.6, 0.7 and 0.4 "
        "Mb/s against 40, 16 and 8 per six-hop flow at 2 vs 24, 5 vs 60 and 10 vs 120 "
        "(9-23x). The report had trouble beyond 10 vs 120 on Mininet; the paper reports the "
        "same trend.",
    )
)

STUDY = Study(
    name="outcast",
    title="TCP outcast: the input port with fewer flows loses",
    source=SOURCE,
    doc="docs/outcast.md",
    experiments=EXPERIMENTS,
)
