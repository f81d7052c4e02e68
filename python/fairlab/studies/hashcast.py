"""The hash-cast study, source document 000: slides on NFSv4.1 over
multi-queue NICs ("Hash-Cast: A Dark Corner of Stochastic Fairness").

An NFS server with a multi-queue 1 GbE NIC serves five clients reading big
files with 64 KB I/O; Linux hashes each TCP flow onto one of the NIC's
transmit queues and the NIC serves its queues in turn, so a flow alone in
its queue gets a queue's share while flows sharing a queue split one:
winners and losers, at a ratio of 2 (often) or 3 (seldom), the same clients
winning throughout a run and different ones in the next run.

In progress (issue 11). This module has the probability of hash-cast
(model against simulation) and the winner/loser pattern over seeds with
long bulk flows from the server; the NFS read workload, the host stack of
the 2.6.32 and 3.12 kernels, Vegas and the remedies come next.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import pandas as pd

from .. import hashcast
from ..runner import Task
from .base import Experiment, Published, Study, Summary

if TYPE_CHECKING:
    from matplotlib.figure import Figure

    from ..result import Result

SOURCE = "Hash-Cast: A Dark Corner of Stochastic Fairness (slides), source document 000"

#: The ratios an RT measured over a run is classified to: those an
#: assignment of a few flows to queues served in turn can give.
RATIOS = [1.0, 4 / 3, 1.5, 2.0, 2.5, 3.0, 4.0, 5.0]


def classify(rt: float) -> float:
    """The model ratio nearest to a measured RT, in log terms: a flow alone
    in its queue against two sharing one measures 1.9 to 2.1 over a run."""
    return min(RATIOS, key=lambda r: abs(math.log(rt / r)))


def server_scenario(
    clients: int,
    queues: int,
    *,
    duration_s: float,
    seed: int,
    cc: str = "cubic",
    nic_queue: str = "1000pkt",
) -> dict[str, Any]:
    """One server with a ``queues``-queue 1 GbE NIC sending a long flow to
    each of ``clients`` clients through one switch (25 µs links), Linux
    hosts with a receive window large enough that the NIC, not the window,
    limits each flow (the study's clients autotuned theirs; its CUBIC
    windows reached 1,900 packets)."""
    hosts = ["server"] + [f"c{i}" for i in range(clients)]
    return {
        "name": f"hash-cast, {clients} clients, {queues} queues",
        "duration": f"{duration_s}s",
        "seed": seed,
        "topology": {"kind": "star", "hosts": hosts, "rate": "1Gbps", "delay": "25us"},
        # The switch is not the bottleneck: the server's NIC is.
        "queue": {"limit": "512KiB"},
        "host": {"nic_queues": queues, "nic_queue": nic_queue},
        "tcp": {"profile": "linux", "cc": cc, "receive_window": "16MiB"},
        "metrics": {"throughput_bin": "500ms"},
        "workload": [{"kind": "bulk", "src": "server", "dst": h} for h in hosts[1:]],
    }


# --------------------------------------------------------------------------
# The probability of hash-cast: the model, exactly and by Monte Carlo, and
# the simulator over hash seeds.

MODEL_FLOWS = [5, 10, 20, 30, 40, 50]
MODEL_QUEUES = [4, 6, 8, 16]
SIM_FLOWS = [5, 10, 20]
SIM_QUEUES = [8]
SIM_SEEDS = 30
QUICK_SIM_SEEDS = 6
SIM_DURATION_S = 2.0
QUICK_SIM_DURATION_S = 0.5


def probability_tasks(quick: bool) -> list[Task]:
    out = []
    seeds = range(1, (QUICK_SIM_SEEDS if quick else SIM_SEEDS) + 1)
    duration = QUICK_SIM_DURATION_S if quick else SIM_DURATION_S
    for q in SIM_QUEUES:
        for n in [5] if quick else SIM_FLOWS:
            for seed in seeds:
                sc = server_scenario(n, q, duration_s=duration, seed=seed)
                out.append(Task(sc, seed, {"flows": n, "queues": q, "seed": seed}))
    return out


def _rt(res: Result) -> float:
    g = res.flows["goodput_bps"].to_numpy()
    return float(g.max() / g.min()) if g.min() > 0 else float("inf")


def summarize_probability(tasks: Sequence[Task], results: Sequence[Result]) -> Summary:
    sim = pd.DataFrame([{**t.labels, "rt": _rt(r)} for t, r in zip(tasks, results, strict=True)])
    sim["rt_class"] = sim["rt"].map(classify)
    rows = []
    for q in MODEL_QUEUES:
        for n in MODEL_FLOWS:
            row: dict[str, Any] = {"queues": q, "flows": n}
            for r in (2, 3):
                row[f"exact_ge{r}"] = float(hashcast.exact(n, q, r))
            mc = hashcast.monte_carlo(n, q, 2, trials=20_000, seed=q * 100 + n)
            row["mc_ge2"], row["mc_ge2_se"] = mc.p, mc.stderr
            s = sim[(sim["queues"] == q) & (sim["flows"] == n)]
            if len(s):
                p = float((s["rt_class"] >= 2).mean())
                row["sim_ge2"] = p
                row["sim_ge2_se"] = math.sqrt(max(p * (1 - p), 1e-12) / len(s))
                row["sim_seeds"] = len(s)
            rows.append(row)
    return Summary(pd.DataFrame(rows))


def _model_agrees(t: pd.DataFrame):
    rows = t.dropna(subset=["sim_ge2"]) if "sim_ge2" in t.columns else t.iloc[0:0]
    if rows.empty:
        return None, "no simulated point"
    parts, ok = [], True
    for _, r in rows.iterrows():
        se = math.hypot(r["sim_ge2_se"], 1 / (2 * r["sim_seeds"]))
        near = abs(r["sim_ge2"] - r["exact_ge2"]) <= 2 * se
        ok = ok and near
        parts.append(
            f"{int(r['flows'])} flows on {int(r['queues'])} queues: simulated "
            f"{r['sim_ge2']:.2f} ± {r['sim_ge2_se']:.2f} over {int(r['sim_seeds'])} seeds, "
            f"exact {r['exact_ge2']:.3f}"
        )
    return ok, "; ".join(parts)


def _high_probability(t: pd.DataFrame):
    rows = t[(t["flows"] >= 10) & (t["queues"] >= 6)]
    ok = bool((rows["exact_ge2"] >= 0.5).all())
    lo = rows.loc[rows["exact_ge2"].idxmin()]
    q4 = t[(t["flows"] >= 10) & (t["queues"] == 4)]
    return ok, (
        f"P(RT >= 2) with 10-50 flows on 6-16 queues is at least {lo['exact_ge2']:.2f} "
        f"({int(lo['flows'])} flows on {int(lo['queues'])} queues); on 4 queues it falls from "
        f"{q4['exact_ge2'].max():.2f} to {q4['exact_ge2'].min():.2f} as flows grow (more flows "
        "per queue even the queues out)"
    )


PROBABILITY_PUBLISHED = [
    Published(
        "hash-cast occurs with high probability with 10 to 50 flows",
        f"{SOURCE}, slide 4 ('Probability of Hash-Cast Occurring')",
        claim="for 10 to 50 active flows, the probability that the highest per-flow throughput "
        "is at least twice the lowest (RT >= 2) is above one half",
        check=_high_probability,
    ),
    Published(
        "the simulator's frequency of RT >= 2 agrees with the model",
        "issue 11's statement of what the reproduction must show",
        claim="over hash seeds, the simulated frequency of RT >= 2 (each run's RT classified "
        "to the nearest ratio an assignment can give) is within two standard errors of the "
        "exact probability where the model's assumptions hold (backlogged flows, equal "
        "service per queue)",
        check=_model_agrees,
    ),
]


def plot_probability(summary: Summary, published: Sequence[Published]) -> Figure:
    from ..report import figure

    t = summary.table
    fig, (ax,) = figure(1, 7.5, 4.2)
    for j, q in enumerate(MODEL_QUEUES):
        s = t[t["queues"] == q]
        ax.plot(s["flows"], s["exact_ge2"], "-", color=f"C{j}", label=f"{q} queues: exact")
        ax.errorbar(s["flows"], s["mc_ge2"], yerr=2 * s["mc_ge2_se"], fmt="none", color=f"C{j}")
        if "sim_ge2" in s.columns:
            sim = s.dropna(subset=["sim_ge2"])
            if len(sim):
                ax.errorbar(
                    sim["flows"],
                    sim["sim_ge2"],
                    yerr=2 * sim["sim_ge2_se"],
                    fmt="s",
                    color=f"C{j}",
                    label=f"{q} queues: simulated",
                )
    ax.set_xlabel("active flows")
    ax.set_ylabel("P(RT >= 2)")
    ax.set_ylim(0, 1.05)
    ax.set_title("hash-cast: exact (lines), Monte Carlo (bars), simulator (squares)", fontsize=9)
    ax.grid(True, alpha=0.3)
    ax.legend(fontsize=7)
    return fig


# --------------------------------------------------------------------------
# Winners and losers: five clients, one server, over seeds.

WL_SEEDS = 30
WL_DURATION_S = 10.0


def winners_tasks(quick: bool) -> list[Task]:
    out = []
    seeds = range(1, (QUICK_SIM_SEEDS if quick else WL_SEEDS) + 1)
    duration = QUICK_SIM_DURATION_S if quick else WL_DURATION_S
    for q in (6, 8):
        for seed in seeds:
            sc = server_scenario(5, q, duration_s=duration, seed=seed)
            out.append(Task(sc, seed, {"queues": q, "seed": seed}))
    return out


def winner_loser_ratio(rates: Sequence[float]) -> float:
    """The winner/loser ratio of a run: the clients split into two clusters
    at the widest gap between consecutive rates (in log terms), and the
    ratio of the clusters' mean rates; 1.0 when all are within 25 % of each
    other (no pattern)."""
    r = sorted(float(x) for x in rates)
    if r[0] <= 0:
        return float("inf")
    if r[-1] / r[0] < 1.25:
        return 1.0
    gaps = [r[i + 1] / r[i] for i in range(len(r) - 1)]
    cut = max(range(len(gaps)), key=gaps.__getitem__) + 1
    losers, winners = r[:cut], r[cut:]
    return (sum(winners) / len(winners)) / (sum(losers) / len(losers))


def _winners_stay(res: Result) -> float:
    """The share of throughput bins in which every winner (a client above
    the run's median rate) is above every loser: 1.0 when the same clients
    win throughout."""
    fs = res.flow_series
    w = fs.pivot_table(index="t_s", columns="flow_id", values="bytes", fill_value=0)
    w = w.iloc[1:]  # the first bin holds slow start
    if w.empty:
        return float("nan")
    total = w.sum()
    win = total[total > total.median() * 1.25].index
    lose = total[total <= total.median() * 1.25].index
    if len(win) == 0 or len(lose) == 0:
        return float("nan")
    return float((w[win].min(axis=1) > w[lose].max(axis=1)).mean())


def summarize_winners(tasks: Sequence[Task], results: Sequence[Result]) -> Summary:
    rows = []
    for t, r in zip(tasks, results, strict=True):
        rt = _rt(r)
        wl = winner_loser_ratio(r.flows["goodput_bps"].to_numpy())
        rows.append(
            {
                **t.labels,
                "rt": rt,
                "rt_class": classify(rt),
                "wl": wl,
                "wl_class": classify(wl),
                "stable": _winners_stay(r),
            }
        )
    samples = pd.DataFrame(rows)
    counts = samples.groupby(["queues", "wl_class"]).size().rename("runs").reset_index()
    counts["share"] = counts["runs"] / counts.groupby("queues")["runs"].transform("sum")
    for q in (6, 8):
        model = {float(k): float(v) for k, v in hashcast.distribution(5, q).items()}
        for r in (1.0, 2.0, 3.0):
            counts.loc[(counts["queues"] == q) & (counts["wl_class"] == r), "exact"] = model.get(
                r, 0.0
            )
    return Summary(counts, samples=samples)


def _two_often_three_seldom(t: pd.DataFrame):
    parts, ok = [], True
    for q, g in t.groupby("queues"):
        share = g.groupby("wl_class")["seed"].count() / len(g)
        two, three = share.get(2.0, 0.0), share.get(3.0, 0.0)
        ok = ok and two == share.max() and 0 < three < two
        parts.append(
            f"{q} queues: ratio 2 in {two:.0%} of runs, 3 in {three:.0%}, "
            + ", ".join(f"{k:g}: {v:.0%}" for k, v in share.items() if k not in (2.0, 3.0))
        )
    return ok, "; ".join(parts)


def _stable_within_run(t: pd.DataFrame):
    s = t.dropna(subset=["stable"])
    s = s[s["wl_class"] >= 2]
    if s.empty:
        return None, "no run with winners and losers"
    return bool(s["stable"].mean() >= 0.9), (
        "in runs with a winner/loser ratio of 2 or more, the same clients are ahead in "
        f"{s['stable'].mean():.0%} of the 0.5 s bins (lowest run {s['stable'].min():.0%})"
    )


WINNERS_PUBLISHED = [
    Published(
        "winner/loser ratio: 2 often, 3 seldom",
        f"{SOURCE}, slide 2 (winner-loser pattern)",
        claim="with 5 clients and a 6- or 8-queue NIC, a winner/loser ratio of 2 (the mean of "
        "the faster cluster of clients over that of the slower) is the most frequent outcome "
        "over seeds and 3 occurs, less often",
        check=_two_often_three_seldom,
    ),
    Published(
        "winners stay winners within a run",
        f"{SOURCE}, slide 2 ('WL consistency: yes within one run, no across runs')",
        claim="in a run with winners and losers, the same clients are ahead in (nearly) every "
        "0.5 s bin",
        check=_stable_within_run,
    ),
]


def plot_winners(summary: Summary, published: Sequence[Published]) -> Figure:
    from ..report import figure

    t = summary.table
    fig, axes = figure(2, 10, 3.8)
    for ax, q in zip(axes, (6, 8), strict=True):
        g = t[t["queues"] == q]
        x = range(len(g))
        ax.bar([i - 0.2 for i in x], g["share"], 0.4, color="C0", label="simulated")
        ax.bar([i + 0.2 for i in x], g["exact"].fillna(0), 0.4, color="C1", label="model")
        ax.set_xticks(list(x), [f"{r:g}" for r in g["wl_class"]])
        ax.set_xlabel("winner/loser ratio (nearest ratio of queue occupancies)")
        ax.set_ylabel("share of runs")
        ax.set_title(f"5 clients, {q}-queue NIC", fontsize=9)
        ax.grid(True, axis="y", alpha=0.3)
        ax.legend(fontsize=7)
    return fig


# --------------------------------------------------------------------------
# TCP's congestion control and the host's queue: CUBIC against Vegas, and
# bufferbloat (the transmit queues' length).

VARIANT_SEEDS = 10
VARIANT_DURATION_S = 10.0
VARIANTS = {
    "cubic, 1000 packets": ("cubic", "1000pkt"),
    "vegas, 1000 packets": ("vegas", "1000pkt"),
    "cubic, 100 packets": ("cubic", "100pkt"),
    "cubic, 10 packets": ("cubic", "10pkt"),
}


def variant_tasks(quick: bool) -> list[Task]:
    out = []
    seeds = range(1, (QUICK_SIM_SEEDS if quick else VARIANT_SEEDS) + 1)
    duration = QUICK_SIM_DURATION_S if quick else VARIANT_DURATION_S
    for name, (cc, limit) in VARIANTS.items():
        for seed in seeds:
            sc = server_scenario(5, 8, duration_s=duration, seed=seed, cc=cc, nic_queue=limit)
            out.append(Task(sc, seed, {"variant": name, "seed": seed}))
    return out


def summarize_variants(tasks: Sequence[Task], results: Sequence[Result]) -> Summary:
    rows = []
    for t, r in zip(tasks, results, strict=True):
        f = r.flows
        nq = r.tables["nic_queues"]
        nq = nq[(nq["node"] == "server") & (nq["enq_pkts"] > 0)]
        wl = winner_loser_ratio(f["goodput_bps"].to_numpy())
        rows.append(
            {
                **t.labels,
                "wl": wl,
                "wl_class": classify(wl),
                "rt": _rt(r),
                "cwnd_pkts": float((f["final_cwnd_bytes"] / f["mss_bytes"]).mean()),
                "nic_max_pkts": float(nq["max_pkts"].max()) if len(nq) else 0.0,
                "local_drops": int(f["local_drops"].sum()),
                "goodput_mbps": float(f["goodput_bps"].sum() / 1e6),
            }
        )
    samples = pd.DataFrame(rows)
    table = (
        samples.groupby("variant", sort=False)
        .agg(
            pattern_runs=("wl_class", lambda x: int((x >= 2).sum())),
            runs=("seed", "count"),
            wl_mean=("wl", "mean"),
            rt_mean=("rt", "mean"),
            cwnd_pkts=("cwnd_pkts", "mean"),
            nic_max_pkts=("nic_max_pkts", "mean"),
            local_drops=("local_drops", "mean"),
            goodput_mbps=("goodput_mbps", "mean"),
        )
        .reset_index()
    )
    return Summary(table, samples=samples)


def _variant_row(t: pd.DataFrame, name: str) -> pd.Series | None:
    g = t[t["variant"] == name]
    if g.empty:
        return None
    return pd.Series(
        {
            "pattern": float((g["wl_class"] >= 2).mean()),
            "cwnd": float(g["cwnd_pkts"].mean()),
            "wl": float(g["wl"].mean()),
        }
    )


def _vegas_shows_no_pattern(t: pd.DataFrame):
    v, c = _variant_row(t, "vegas, 1000 packets"), _variant_row(t, "cubic, 1000 packets")
    if v is None or c is None:
        return None, "CUBIC and Vegas were not both run"
    return bool(v["pattern"] < 0.5 <= c["pattern"]), (
        f"winner/loser ratio of 2 or more in {c['pattern']:.0%} of CUBIC runs and "
        f"{v['pattern']:.0%} of Vegas runs; final cwnd {c['cwnd']:.0f} against {v['cwnd']:.0f} "
        "packets"
    )


def _small_vegas_window(t: pd.DataFrame):
    v, c = _variant_row(t, "vegas, 1000 packets"), _variant_row(t, "cubic, 1000 packets")
    if v is None or c is None:
        return None, "CUBIC and Vegas were not both run"
    return bool(v["cwnd"] < 100 <= c["cwnd"]), (
        f"CUBIC's final cwnd {c['cwnd']:.0f} packets, Vegas' {v['cwnd']:.0f}"
    )


def _bloat_worse(t: pd.DataFrame):
    rows = [(n, _variant_row(t, n)) for n in VARIANTS if n.startswith("cubic")]
    rows = [(n, r) for n, r in rows if r is not None]
    if len(rows) < 2:
        return None, "the queue lengths were not run"
    wl = [r["wl"] for _, r in rows]
    ok = all(a >= b for a, b in zip(wl, wl[1:], strict=False))
    return ok, "; ".join(f"{n}: mean winner/loser ratio {r['wl']:.2f}" for n, r in rows)


VARIANT_PUBLISHED = [
    Published(
        "TCP Vegas does not show the winner/loser pattern",
        f"{SOURCE}, slide 5",
        claim="with Vegas the clients share evenly, where CUBIC falls into winners and losers",
        check=_vegas_shows_no_pattern,
    ),
    Published(
        "Vegas' window stays small, CUBIC's grows with the host queue",
        f"{SOURCE}, slide 5 (cwnd in packets: Vegas 26, CUBIC 1900)",
        claim="Vegas' congestion window stays at tens of packets, CUBIC's reaches hundreds to "
        "thousands",
        check=_small_vegas_window,
    ),
    Published(
        "bufferbloat makes hash-cast worse",
        f"{SOURCE}, slide 5 ('Hash-Cast is exacerbated by Bufferbloat')",
        claim="the longer the transmit queues, the larger the winner/loser ratio",
        check=_bloat_worse,
    ),
]


def plot_variants(summary: Summary, published: Sequence[Published]) -> Figure:
    from ..report import figure

    t = summary.table
    fig, (a1, a2) = figure(2, 10, 3.8)
    x = range(len(t))
    a1.bar(x, t["wl_mean"], color="C0")
    a1.axhline(2, ls="--", color="gray", lw=1)
    a1.set_xticks(list(x), list(t["variant"]), rotation=20, fontsize=7)
    a1.set_ylabel("mean winner/loser ratio")
    a2.bar(x, t["cwnd_pkts"], color="C1")
    a2.set_yscale("log")
    a2.set_xticks(list(x), list(t["variant"]), rotation=20, fontsize=7)
    a2.set_ylabel("final cwnd (packets, mean)")
    for a in (a1, a2):
        a.grid(True, axis="y", alpha=0.3)
    return fig


_SETUP = (
    "One server with a multi-queue 1 GbE NIC (flows hashed onto its transmit queues under a "
    "per-run salt, queues served round robin one packet per turn, 1000 packets each) sends "
    "a long TCP flow to each client through one switch (25 µs links, 512 KiB switch "
    "ports: the NIC is the bottleneck); Linux hosts, CUBIC, receive windows of 16 MiB."
)

EXPERIMENTS = [
    Experiment(
        name="probability",
        reproduces="Slide 4: the probability of hash-cast for 10 to 50 flows, model against "
        "the simulator",
        setup="The model: n flows hashed uniformly and independently onto q queues, every "
        "non-empty queue an equal share, RT = largest over smallest non-empty occupancy; "
        "P(RT >= 2) exactly (counting occupancy patterns) and by Monte Carlo (20,000 "
        "draws, bars of two standard errors). The simulator: "
        + _SETUP
        + f" {', '.join(map(str, SIM_FLOWS))} flows on 8 queues, {SIM_SEEDS} seeds of "
        f"{SIM_DURATION_S:g} s; each run's RT classified to the nearest ratio an assignment "
        "can give.",
        tasks=probability_tasks,
        summarize=summarize_probability,
        published=PROBABILITY_PUBLISHED,
        quick=f"5 flows only, {QUICK_SIM_SEEDS} seeds of {QUICK_SIM_DURATION_S:g} s",
        plot=plot_probability,
    ),
    Experiment(
        name="winners",
        reproduces="Slide 2: the winner/loser pattern of five NFS clients, over seeds",
        setup=_SETUP
        + f" 5 clients, a 6- and an 8-queue NIC, {WL_SEEDS} seeds of {WL_DURATION_S:g} s. "
        "The winner/loser ratio: the clients split at the widest gap between their rates, "
        "the mean of the faster cluster over that of the slower, classified to the nearest "
        "ratio of queue occupancies (the model column: the probability of that RT under "
        "equal service per queue); RT = fastest over slowest. A run is stable in a 0.5 s "
        "bin when every client above 1.25 times the median is ahead of every other.",
        tasks=winners_tasks,
        summarize=summarize_winners,
        published=WINNERS_PUBLISHED,
        quick=f"{QUICK_SIM_SEEDS} seeds of {QUICK_SIM_DURATION_S:g} s",
        plot=plot_winners,
    ),
]

EXPERIMENTS.append(
    Experiment(
        name="vegas-bufferbloat",
        reproduces="Slide 5: CUBIC against Vegas, and bufferbloat",
        setup=_SETUP
        + f" 5 clients, an 8-queue NIC, {VARIANT_SEEDS} seeds of {VARIANT_DURATION_S:g} s: "
        "CUBIC and Vegas with 1000-packet transmit queues (Linux's txqueuelen), and CUBIC "
        "with 100 and 10 packets.",
        tasks=variant_tasks,
        summarize=summarize_variants,
        published=VARIANT_PUBLISHED,
        quick=f"{QUICK_SIM_SEEDS} seeds of {QUICK_SIM_DURATION_S:g} s",
        plot=plot_variants,
        notes="Two of the three statements do not hold on today's NIC model, and why is known. "
        "Vegas keeps 6 packets of window against CUBIC's 674 (the source: 26 against 1,900), "
        "yet shows the pattern as often as CUBIC (7 of 10 runs): its flows keep a few packets"
        " each in their transmit queues (23 at most), enough that every non-empty queue stays"
        " backlogged on 25 µs links, and a NIC that serves its queues round robin one packet "
        "per turn then gives each queue its share whatever the windows. What would let a "
        "Vegas queue run dry in the source's testbed is what this model leaves out so far: "
        "descriptor rings that a driver refills in batches, transmit completions, TSO bursts "
        "and longer host RTTs (issue 11's host stack, in progress). Shorter transmit queues "
        "do not shrink the ratio monotonically (2.21 at 1000 packets, 1.70 at 100, 1.94 at "
        "10): at 10 packets the local drops (18,000 per run) make the flows sharing a queue "
        "split it unevenly, which the cluster ratio sees.",
    )
)

STUDY = Study(
    name="hashcast",
    title="Hash-cast: flows hashed onto a multi-queue NIC's queues win or lose",
    source=SOURCE,
    doc="docs/hashcast.md",
    experiments=EXPERIMENTS,
)
