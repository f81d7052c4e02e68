"""Beyond the seed: Radon against NewReno, CUBIC and DCTCP on the
foundation's incast (the incast study's Linux setting), and whether the
window responses' random dispatch offset avoids the collapse.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import replace
from typing import TYPE_CHECKING, Any

import pandas as pd

from ..runner import Task
from ..scenarios import incast as incast_scenario
from . import radon_seed as seed
from .base import Experiment, Published, Summary
from .radon_runs import NO_VIOLATIONS, run_table
from .radon_seed import ISSUE
from .radon_testbed import RESPONSE, UDP_IP_BYTES, radon_stream, radon_table, wire_utilization

if TYPE_CHECKING:
    from matplotlib.figure import Figure

    from ..result import Result

INCAST_SERVERS = [1, 2, 4, 8, 16, 32, 64]

QUICK_INCAST_SERVERS = [4, 16]

INCAST_SEEDS = [1, 2]

INCAST_ROUNDS = 20

QUICK_INCAST_ROUNDS = 5

SRU_BYTES = 256 * 1024

INCAST_BUFFER = "64KiB"

#: Radon's datagrams in the incast: full 1,500-byte IP packets, the
#: foundation's MTU (its TCP sends 1,460-byte segments).
INCAST_PACKET_BYTES = 1500

#: Each server reserves this share of a 1/N part of the client's port on the
#: wire, so that N reservations never sum above 1 by rounding.
INCAST_SHARE = 0.99

#: The incast runs' cap: a server whose wait reached wait_max (one 10 ms
#: period) would need 36 s for its 3,562 datagrams; the cap lets it finish.
INCAST_DURATION_CAP_S = 60

TCP_SERIES = [("NewReno", "newreno"), ("CUBIC", "cubic"), ("DCTCP", "dctcp")]

#: (label, adaptive, response).
RADON_SERIES = [
    ("Radon non-adaptive", False, RESPONSE),
    ("Radon rate (Percent-Budget)", True, "percent_budget"),
    ("Radon window (Less-Laxity-More)", True, "less_laxity_more"),
    ("Radon window (Percent-Budget)", True, "percent_budget_window"),
]

QUICK_RADON_SERIES = RADON_SERIES[:3]


def incast_radon_scenario(
    servers: int,
    *,
    adaptive: bool,
    response: str,
    rounds: int = INCAST_ROUNDS,
    buffer: str = INCAST_BUFFER,
    seed_: int = 1,
) -> dict[str, Any]:
    """The foundation's incast (fairlab.scenarios.incast: `client` and
    s1..sN on one switch, 1 Gb/s, RTT 100 µs, a drop-tail ``buffer``) with
    each server sending the bytes its TCP flow would (``rounds`` SRUs of
    256 KiB) as one Radon stream of 1,500-byte datagrams to the client, all
    starting together, each reserving INCAST_SHARE of a 1/N share of the
    client's port on the wire; admission on."""
    base = incast_scenario(servers, buffer=buffer, seed=seed_)
    payload = INCAST_PACKET_BYTES - UDP_IP_BYTES
    packets = math.ceil(rounds * SRU_BYTES / payload)
    share = INCAST_SHARE / servers / wire_utilization(1.0, INCAST_PACKET_BYTES)
    streams = [
        radon_stream(
            f"s{i}",
            dst="client",
            rate_bps=math.floor(share),
            packets=packets,
            packet_bytes=INCAST_PACKET_BYTES,
        )
        for i in range(1, servers + 1)
    ]
    return {
        "name": f"radon incast-{servers}",
        "seed": seed_,
        "duration": f"{INCAST_DURATION_CAP_S}s",
        "topology": base["topology"],
        "queue": base["queue"],
        "radon": radon_table(adaptive=adaptive, admission=True, response=response),
        "workload": streams,
    }


def incast_tasks(quick: bool) -> list[Task]:
    """TCP (the incast study's Linux setting: 200 ms min RTO on 1 ms
    jiffies, 1 µs send jitter, SRU 256 KiB) and Radon, per server count."""
    from .incast import JITTER, grid

    servers = QUICK_INCAST_SERVERS if quick else INCAST_SERVERS
    seeds = [1] if quick else INCAST_SEEDS
    rounds = QUICK_INCAST_ROUNDS if quick else INCAST_ROUNDS
    out = []
    for label, cc in TCP_SERIES:
        common = dict(hz=1000, rounds=rounds, delayed_ack=False, profile="rfc", jitter=JITTER)
        for t in grid(servers, [("200ms", "jiffy")], seeds, tcp=cc, sru="256KiB", **common):
            labels = {"series": label, "servers": t.labels["servers"], "seed": t.labels["seed"]}
            out.append(replace(t, labels=labels))
    for label, adaptive, response in QUICK_RADON_SERIES if quick else RADON_SERIES:
        for n in servers:
            for s in seeds:
                sc = incast_radon_scenario(
                    n, adaptive=adaptive, response=response, rounds=rounds, seed_=s
                )
                labels = {
                    "series": label,
                    "servers": n,
                    "seed": s,
                    "packet_bytes": INCAST_PACKET_BYTES,
                }
                out.append(Task(sc, s, labels))
    return out


def incast_row(task: Task, r: Result) -> dict[str, Any]:
    """Goodput (payload Mb/s) and loss of one incast run: TCP's from the
    summary; Radon's as every stream's received payload over the span from
    the first start to the last stop."""
    row: dict[str, Any] = {k: v for k, v in task.labels.items() if k != "packet_bytes"}
    if "packet_bytes" not in task.labels:
        row["goodput_mbps"] = float(r.summary["incast_goodput_bps"]) / 1e6
        row["pct_lost"] = math.nan
        row["refused"] = 0
        row["bound_violations"] = 0
        return row
    st = run_table(r, "streams")
    payload = int(task.labels["packet_bytes"]) - UDP_IP_BYTES
    span = float(st["stop_s"].max()) - float(st["start_s"].min())
    recv = float(st["num_recv"].sum())
    sent = float(st["num_sent"].sum())
    row["goodput_mbps"] = recv * payload * 8 / span / 1e6 if span > 0 else math.nan
    row["pct_lost"] = 100.0 * (sent - recv) / sent if sent else math.nan
    row["refused"] = int((~st["admitted"].astype(bool)).sum())
    row["bound_violations"] = int(r.summary.get("bound_violations", 0))
    return row


def summarize_incast(tasks: Sequence[Task], results: Sequence[Result]) -> Summary:
    samples = pd.DataFrame([incast_row(t, r) for t, r in zip(tasks, results, strict=True)])
    g = samples.groupby(["series", "servers"], sort=False)
    table = g.agg(
        goodput_mbps=("goodput_mbps", "mean"),
        goodput_min=("goodput_mbps", "min"),
        goodput_max=("goodput_mbps", "max"),
        pct_lost=("pct_lost", "mean"),
        refused=("refused", "max"),
        bound_violations=("bound_violations", "sum"),
        seeds=("seed", "count"),
    ).reset_index()
    return Summary(table, samples=samples)


#: The incast study's thresholds (issue 2's reading of source 001):
#: collapse is at most 300 Mb/s, avoiding it at least 600 Mb/s.
COLLAPSED_MBPS = 300.0

HOLDS_MBPS = 600.0


def _collapse(series: str, *, collapses: bool):
    """NewReno's collapse (``collapses``: at most COLLAPSED_MBPS from 16
    servers on), or ``series`` holding HOLDS_MBPS wherever NewReno fell."""

    def check(t: pd.DataFrame) -> tuple[bool | None, str]:
        g = t[t["series"] == series].groupby("servers")["goodput_mbps"].mean()
        if g.empty:
            return None, f"{series} was not run"
        shows = f"{series} goodput (Mb/s): " + ", ".join(f"N = {n}: {v:.0f}" for n, v in g.items())
        if collapses:
            big = g[g.index >= 16]
            if big.empty:
                return None, "no run with 16 servers or more"
            return bool((big <= COLLAPSED_MBPS).all()), shows
        newreno = t[t["series"] == "NewReno"].groupby("servers")["goodput_mbps"].mean()
        fell = [n for n, v in newreno.items() if v <= COLLAPSED_MBPS]
        if not fell:
            return None, f"NewReno did not collapse at any N run; {shows}"
        held = all(float(g.get(n, 0.0)) >= HOLDS_MBPS for n in fell)
        where = ", ".join(map(str, fell))
        return held, f"NewReno ≤ {COLLAPSED_MBPS:g} Mb/s at N = {where}; {shows}"

    return check


def _why_incast(t: pd.DataFrame) -> str:
    """Per series and N: the goodput, and for Radon the datagrams lost and
    the streams refused."""
    parts = []
    for (s, n), g in t.groupby(["series", "servers"], sort=False):
        text = f"{s}, N = {n}: {g['goodput_mbps'].mean():.0f} Mb/s"
        if str(s).startswith("Radon"):
            text += f", {g['pct_lost'].mean():.2f} % lost, {g['refused'].max():.0f} refused"
        parts.append(text)
    return "; ".join(parts)


def _incast_published() -> list[Published]:
    from .incast import ISSUE2

    seed_claim = (
        f"the seed's claim, Sections 4.4 and 5.6 ('it explicitly deals with incast by "
        f"offsetting the dispatch time of the next window'; never tested there) ({seed.SOURCE})"
    )
    out = [
        Published(
            "NewReno collapses from 16 servers (200 ms min RTO)",
            ISSUE2 + " (the incast study's bound)",
            claim=f"NewReno's goodput is at most {COLLAPSED_MBPS:g} Mb/s at every N ≥ 16 run",
            check=_collapse("NewReno", collapses=True),
            why=_why_incast,
        )
    ]
    for label, _a, _r in RADON_SERIES:
        out.append(
            Published(
                f"{label} avoids collapse where NewReno collapses",
                seed_claim
                if "window" in label
                else ISSUE + " (issue 21, item 9: 'does the dispatch offset avoid collapse?')",
                claim=f"{label} keeps at least {HOLDS_MBPS:g} Mb/s of goodput at every N where "
                f"NewReno falls to {COLLAPSED_MBPS:g} Mb/s or less",
                check=_collapse(label, collapses=False),
                why=_why_incast,
            )
        )
    out.append(NO_VIOLATIONS)
    return out


def plot_incast(summary: Summary, published: Sequence[Published]) -> Figure:
    from ..plots import figure

    t = summary.table
    fig, (ax,) = figure(1, 11, 4.8)
    for s, g in t.groupby("series", sort=False):
        g = g.sort_values("servers")
        ax.plot(g["servers"], g["goodput_mbps"], marker="o", ms=4, label=s)
    ax.axhline(HOLDS_MBPS, ls=":", color="grey", lw=1)
    ax.axhline(COLLAPSED_MBPS, ls="--", color="grey", lw=1)
    ax.set_xscale("log", base=2)
    ax.set_ylim(0, 1000)
    ax.set_xlabel("servers")
    ax.set_ylabel("goodput (payload Mb/s)")
    ax.set_title(
        f"Incast, {INCAST_BUFFER} port, 1 Gb/s, RTT 100 µs: Radon against TCP", fontsize=10
    )
    ax.grid(True, alpha=0.3)
    ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1), fontsize=7)
    return fig


INCAST = Experiment(
    name="incast",
    reproduces="Beyond the seed: Radon against NewReno, CUBIC and DCTCP on the foundation's incast",
    setup=(
        "The incast study's Linux setting (a client reads 256 KiB from each of N servers "
        f"through a {INCAST_BUFFER} drop-tail port, 1 Gb/s, RTT 100 µs, 200 ms min RTO on 1 "
        f"ms jiffies, 1 µs send jitter, {INCAST_ROUNDS} rounds) for NewReno, CUBIC and DCTCP "
        "(ECN at a quarter of the buffer); Radon sends the same bytes from each server as one "
        "stream of 1,500-byte datagrams, all starting together, each reserving "
        f"{INCAST_SHARE:g} of a 1/N share of the port on the wire, admission on: "
        "non-adaptive, rate-based Percent-Budget, and the window responses with the random "
        f"dispatch offset. N = {', '.join(map(str, INCAST_SERVERS))}, seeds "
        f"{', '.join(map(str, INCAST_SEEDS))}."
    ),
    tasks=incast_tasks,
    summarize=summarize_incast,
    published=_incast_published(),
    quick=f"N = {', '.join(map(str, QUICK_INCAST_SERVERS))}, seed 1, "
    f"{QUICK_INCAST_ROUNDS} rounds, no window Percent-Budget series",
    plot=plot_incast,
)
