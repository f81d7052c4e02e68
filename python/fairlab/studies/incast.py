"""The incast study, source document 001: *Solving TCP Incast in Cluster
Storage Systems* (Vasudevan, Shah, Phanishayee, Krevat, Andersen, Ganger,
Gibson; CMU), and the papers behind it.

Today it holds the source's Linux case (Figure 1: 48 Linux 2.6.28 nodes on
one switch), as `fairlab incast` runs it. The source text has Figure 1's
caption but not its data; its numbers are the bounds issue 2 set from the
published measurements, its claims the sentences of the text. The FAST'08
and SIGCOMM'09 simulations (issue 9, item 6) join as further experiments.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING, Any

import pandas as pd

from ..runner import Task
from ..scenarios import incast as incast_scenario
from ..units import parse_buffer
from .base import Experiment, Published, Study, Summary, Tolerance

if TYPE_CHECKING:
    from matplotlib.figure import Figure

    from ..result import Result

SOURCE = (
    "Vasudevan et al., Solving TCP Incast in Cluster Storage Systems (CMU; source document "
    "001), Figure 1: 48 Linux 2.6.28 nodes on one switch"
)
#: The min RTO settings of Figure 1, as `fairlab incast` names them:
#: (min RTO, timer resolution, legend).
SETTINGS = [
    ("200ms", "jiffy", "200 ms min RTO, 1 ms jiffies (stock Linux)"),
    ("5ms", "jiffy", "5 ms min RTO, 1 ms jiffies (the jiffy floor)"),
    ("200us", "1us", "200 µs min RTO, 1 µs timers (hrtimers)"),
]
SERVERS = [1, 2, 3, 4, 6, 8, 12, 16, 20, 24, 32, 40, 47, 56, 64]
QUICK_SERVERS = [1, 2, 4, 16, 47, 64]
SEEDS = [1, 2, 3, 4, 5]
QUICK_SEEDS = [1, 2]
#: Host send jitter: without it every seed gives the same run.
JITTER = "1us"

#: Where the numbers come from: the text states 47 senders and the 5 ms
#: floor; the goodput bounds are issue 2's reading of the published
#: measurements (Figure 1 is not in the source text available here).
TEXT = "stated in the text (001, abstract and Figure 1's caption)"
ISSUE2 = (
    "expectation of issue 2, from the published measurements (Figure 1's data is not in "
    "the source text)"
)


def _setting(rto: str, res: str) -> str:
    return f"{rto}@{res}"


def dctcp_threshold(buffer: str) -> str:
    """DCTCP's marking threshold K when none is given: a quarter of the
    buffer (10 to 11 packets of a 64 KiB port; the DCTCP paper's rule
    K > C x RTT / 7 asks for only 1.2 packets at 1 Gb/s and 100 us)."""
    count, unit = parse_buffer(buffer)
    return f"{count // 4}pkt" if unit == "packets" else f"{count // 4}B"


def grid(
    servers: Sequence[int],
    settings: Sequence[tuple[str, str]],
    seeds: Sequence[int],
    *,
    buffers: Sequence[str] = ("64KiB",),
    tcp: str | None = None,
    ecn_threshold: str | None = None,
    **scenario: Any,
) -> list[Task]:
    """The incast sweep `fairlab incast` runs: one task per (buffer, (min
    RTO, resolution), servers, seed), in that order, labelled with each;
    ``scenario`` goes to :func:`fairlab.scenarios.incast`. DCTCP without an
    ``ecn_threshold`` marks at :func:`dctcp_threshold` of the buffer."""
    out = []
    for buf in buffers:
        k = ecn_threshold
        if k is None and tcp == "dctcp":
            k = dctcp_threshold(buf)
        for rto, res in settings:
            for n in servers:
                for seed in seeds:
                    sc = incast_scenario(
                        n,
                        buffer=buf,
                        min_rto=rto,
                        resolution=res,
                        tcp=tcp,
                        ecn_threshold=k,
                        **scenario,
                    )
                    labels = {
                        "servers": n,
                        "min_rto": rto,
                        "resolution": res,
                        "buffer": buf,
                        "seed": seed,
                    }
                    out.append(Task(sc, seed, labels))
    return out


def tasks(
    servers: Sequence[int],
    seeds: Sequence[int],
    *,
    rounds: int = 20,
    sizing: dict[str, str] | None = None,
) -> list[Task]:
    """`fairlab incast --jitter 1us --seeds ...`: the same scenarios, one
    task per (setting, servers, seed)."""
    sizing = sizing or {"sru": "256KiB"}
    settings = [(rto, res) for rto, res, _ in SETTINGS]
    common = dict(hz=1000, rounds=rounds, delayed_ack=False, profile="rfc", jitter=JITTER)
    return [
        replace(t, labels={"setting": _setting(t.labels["min_rto"], t.labels["resolution"]),
                           "servers": t.labels["servers"], "seed": t.labels["seed"]})
        for t in grid(servers, settings, seeds, **common, **sizing)
    ]  # fmt: skip


def summarize(tasks: Sequence[Task], results: Sequence[Result]) -> Summary:
    """Goodput per setting and server count: mean, spread and range over
    the seeds; one sample row per run for the verdicts."""
    rows = []
    for t, r in zip(tasks, results, strict=True):
        s = r.summary
        rows.append(
            {
                **t.labels,
                "goodput_mbps": s["incast_goodput_bps"] / 1e6,
                "timeouts": s["total_timeouts"],
                "rounds": s["rounds_completed"],
            }
        )
    samples = pd.DataFrame(rows)
    g = samples.groupby(["setting", "servers"], sort=False)
    table = g.agg(
        goodput_mbps=("goodput_mbps", "mean"),
        goodput_sd=("goodput_mbps", "std"),
        goodput_min=("goodput_mbps", "min"),
        goodput_max=("goodput_mbps", "max"),
        timeouts_per_run=("timeouts", "mean"),
        seeds=("seed", "count"),
    ).reset_index()
    return Summary(table, samples=samples)


def _bound_rows(setting: str, servers: Sequence[int], bound: str, value: float, src: str):
    return [
        Published(
            f"{setting}, N = {n}",
            src,
            {"setting": setting, "servers": n},
            "goodput_mbps",
            value,
            bound=bound,
            unit="Mb/s",
        )
        for n in servers
    ]


def _goodput(t: pd.DataFrame) -> pd.DataFrame:
    """Mean goodput, servers x setting."""
    return t.pivot_table(index="servers", columns="setting", values="goodput_mbps")


def _five_between(t: pd.DataFrame):
    g = _goodput(t)
    g = g[g.index >= 16]
    if g.empty:
        return None, "no server count of 16 or more was run"
    lo, mid, hi = (_setting(r, s) for r, s, _ in SETTINGS)
    ok = (g[lo] < g[mid]) & (g[mid] < g[hi])
    shows = "; ".join(
        f"N = {n}: {r[lo]:.0f} < {r[mid]:.0f} < {r[hi]:.0f}" + ("" if ok[n] else " (not between)")
        for n, r in g.iterrows()
    )
    return bool(ok.all()), f"200 ms / 5 ms / 200 µs Mb/s: {shows}"


def _five_falls(t: pd.DataFrame):
    g = _goodput(t)
    five = g[_setting("5ms", "jiffy")]
    micro = g[_setting("200us", "1us")]
    top = five.max()
    last = five.index.max()
    ok = five[last] < 0.9 * top and five[last] < micro[last]
    return bool(ok), (
        f"5 ms: best {top:.0f} Mb/s, {five[last]:.0f} at {last} servers (200 µs: {micro[last]:.0f})"
    )


def _micro_holds(t: pd.DataFrame):
    g = _goodput(t)
    micro = g[_setting("200us", "1us")]
    upto = micro[micro.index <= 47]
    return bool((upto >= 600).all()), (
        f"200 µs: lowest {upto.min():.0f} Mb/s up to 47 servers (at {upto.idxmin()}), "
        f"{micro[micro.index.max()]:.0f} at {micro.index.max()}"
    )


def _claims(what: str) -> list[Published]:
    return [
        Published(
            f"µs timers avoid collapse up to 47 senders ({what})",
            TEXT,
            claim="fine-grained RTOs avoid incast for up to 47 concurrent senders (checked: "
            "200 µs keeps at least 600 Mb/s up to 47 servers, issue 2's threshold)",
            check=_micro_holds,
        ),
        Published(
            f"the 5 ms jiffy floor loses goodput as senders grow ({what})",
            TEXT,
            claim="a jiffy-bounded 5 ms min RTO gives suboptimal throughput as servers "
            "increase (checked: 5 ms at the largest N is 10 % below its best and below "
            "200 µs)",
            check=_five_falls,
        ),
        Published(
            f"5 ms lands between 200 ms and 200 µs ({what})",
            ISSUE2,
            claim="from 16 servers on, 5 ms goodput lies between 200 ms and 200 µs at every N",
            check=_five_between,
        ),
    ]


LINUX_PUBLISHED = [
    *_bound_rows("200ms@jiffy", [1, 2, 3, 4], ">=", 850, ISSUE2),
    *_bound_rows("200ms@jiffy", [n for n in SERVERS if n >= 16], "<=", 300, ISSUE2),
    *_bound_rows(
        "200us@1us", [n for n in SERVERS if n <= 47], ">=", 600, ISSUE2 + "; 47 senders: " + TEXT
    ),
    *_claims("SRU 256 KiB"),
]

BLOCK_PUBLISHED = _claims("1 MiB block")


def plot(summary: Summary, published: Sequence[Published]) -> Figure:
    """Goodput against servers, one curve per min RTO setting, with the
    range over seeds as a band and the published bounds as markers."""
    from ..plots import figure

    t = summary.table
    fig, (ax,) = figure(1, 11, 5)
    colors = {}
    for rto, res, legend in SETTINGS:
        g = t[t["setting"] == _setting(rto, res)].sort_values("servers")
        if g.empty:
            continue
        nseeds = int(g["seeds"].max())
        (line,) = ax.plot(g["servers"], g["goodput_mbps"], marker="o", ms=4, label=legend)
        colors[_setting(rto, res)] = line.get_color()
        if nseeds > 1:
            ax.fill_between(
                g["servers"], g["goodput_min"], g["goodput_max"], color=line.get_color(), alpha=0.18
            )
    marks = {">=": "^", "<=": "v"}
    seen = set()
    for p in published:
        if p.value is None:
            continue
        setting = p.row["setting"]
        key = (setting, p.bound, p.value)
        label = None
        if key not in seen:
            seen.add(key)
            word = "≥" if p.bound == ">=" else "≤"
            label = f"published bound {word} {p.value:g} ({setting})"
        ax.scatter(
            [p.row["servers"]],
            [p.value],
            marker=marks[p.bound],
            s=40,
            facecolors="none",
            edgecolors=colors.get(setting, "black"),
            label=label,
        )
    nseeds = int(t["seeds"].max()) if len(t) else 0
    ax.set_title(
        "TCP incast, 64 KiB port buffer, 1 Gb/s, RTT 100 µs: goodput against senders"
        + (f" (mean, band: range over {nseeds} seeds)" if nseeds > 1 else ""),
        fontsize=10,
    )
    ax.set_xlabel("servers (concurrent senders)")
    ax.set_ylabel("goodput (Mb/s)")
    ax.set_ylim(0, 1000)
    ax.set_xlim(left=0)
    ax.grid(True, alpha=0.3)
    ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1), fontsize=8, framealpha=0.9)
    return fig


def _setup(sizing: str, servers: Sequence[int] = SERVERS, seeds: Sequence[int] = SEEDS) -> str:
    return (
        f"A client reads {sizing} from each of N servers through one switch port with a "
        "64 KiB drop-tail buffer (1 Gb/s links, RTT 100 µs, MSS 1460 B, NewReno, no delayed "
        "ACK, 64 KiB receive window), 20 barrier-synchronized rounds, for three min RTO "
        "settings: 200 ms and 5 ms on a 1 ms jiffy clock, 200 µs on 1 µs timers. N = "
        + ", ".join(map(str, servers))
        + f"; seeds {', '.join(map(str, seeds))} with 1 µs of host send jitter (the same runs "
        "as `fairlab incast --jitter 1us --seeds 1,2,3,4,5`)."
    )


_QUICK = (
    f"N = {', '.join(map(str, QUICK_SERVERS))}, seeds {', '.join(map(str, QUICK_SEEDS))}, 5 rounds"
)


def _tasks(sizing: dict[str, str]):
    def make(quick: bool) -> list[Task]:
        if quick:
            return tasks(QUICK_SERVERS, QUICK_SEEDS, rounds=5, sizing=sizing)
        return tasks(SERVERS, SEEDS, sizing=sizing)

    return make


EXPERIMENTS = [
    Experiment(
        name="linux",
        reproduces="Figure 1 of 001: incast collapse and the fine-grained RTO, Linux 2.6.28",
        setup=_setup("a 256 KiB share (SRU)"),
        tasks=_tasks({"sru": "256KiB"}),
        summarize=summarize,
        published=LINUX_PUBLISHED,
        quick=_QUICK,
        plot=plot,
        notes="With a 200 ms RTO, 2 servers lose about 10 % without a single timeout: both "
        "flows slow-start together in the first round, overshoot the port by about 35 "
        "packets and NewReno repairs one loss per round trip. 4 servers sit at the cliff: a "
        "tail loss (the last segment of a reply dropped, no duplicate ACK to follow) costs one "
        "200 ms timeout in some seeds. With a 256 KiB SRU a round moves N x 256 KiB, so 5 ms "
        "stalls are a small share of it and 5 ms stays within a few percent of 200 µs "
        "(docs/incast.md).",
    ),
    Experiment(
        name="linux-block",
        reproduces="Figure 1 of 001 with a fixed block: the 5 ms floor between the two",
        setup=_setup("its share of a 1 MiB block"),
        tasks=_tasks({"block": "1MiB"}),
        summarize=summarize,
        published=BLOCK_PUBLISHED,
        quick=_QUICK,
        plot=plot,
        notes="With a fixed block the rounds stay short as N grows, so each 5 ms stall shows "
        "(docs/incast.md).",
    ),
]

STUDY = Study(
    name="incast",
    title="TCP incast and the fine-grained RTO",
    source=SOURCE,
    doc="docs/incast.md",
    experiments=EXPERIMENTS,
)


def settings() -> list[dict[str, Any]]:
    """The min RTO settings, as rows (for notebooks)."""
    return [{"min_rto": r, "resolution": s, "label": label} for r, s, label in SETTINGS]


# ---------------------------------------------------------------------------
# The ns-2 simulations of FAST'08 and SIGCOMM'09 (issue 9, item 6).
#
# Phanishayee et al., "Measurement and Analysis of TCP Throughput Collapse in
# Cluster-based Storage Systems", FAST 2008 (FAST'08), and Vasudevan et al.,
# "Safe and Effective Fine-grained TCP Retransmissions for Datacenter
# Communication", SIGCOMM 2009 (SIGCOMM'09). Their numbers are issue 9's
# readings of the figures; how the runs were set up comes from the authors'
# published simulation scripts (github.com/amarp/incast,
# simulation/scripts/gen_ns_file.rb and run_all.rb, ns-2.30): buffers in
# packets ("64 KB" is `queue-limit 64`), SRUs of 256000 bytes, blocks of
# 1024000, every server agent with `bugFix_ false`, and the min RTO runs
# with `minrto_ = maxrto_` (a fixed RTO, never backed off).
# ---------------------------------------------------------------------------

FAST08 = "Phanishayee et al., FAST'08"
SIGCOMM09 = "Vasudevan et al., SIGCOMM'09"
SCRIPTS = "the authors' ns-2 scripts, github.com/amarp/incast simulation/scripts/gen_ns_file.rb"
#: ±5 % of a 1 Gb/s figure's full scale.
TOL_1G = Tolerance(abs=50, unit="Mb/s")
TOL_10G = Tolerance(abs=500, unit="Mb/s")
NS2_SEEDS = [1, 2, 3, 4, 5]
NS2_QUICK_SEEDS = [1]


def _ns2(
    n: int,
    *,
    buffer_pkts: int = 64,
    sru: int | None = 256000,
    block: int | None = None,
    cc: str = "newreno",
    sack: bool = False,
    min_rto: str = "200ms",
    max_rto: str | None = None,
    rounds: int = 40,
    rate: str = "1Gbps",
    rtt: str = "100us",
    extra: dict[str, Any] | None = None,
    warmup: bool = True,
    jitter: str | None = None,
    delayed_ack: bool | None = None,
) -> dict[str, Any]:
    """One incast run on the `ns2` host, as the FAST'08 scripts set it up:
    ns-2's defaults plus `bugFix_ false` (recover_check off).

    How the authors' ns-2 application ran (github.com/amarp/incast,
    simulation/src/ns-2.30.patch, webcache/incastc.cc and
    IncastTcpAppServerStub.cc), each rule kept here:
    * before the first request it exchanges a 100-byte message with each
      server in turn (process_init), so every sender starts with an RTT
      sample, not ns-2's 3 s initial RTO (``warmup``);
    * it shuffles the servers before every round's requests
      (send_requests; ``request_order = "random"``, from the run's seed);
    * requests travel on one-way agents, which send whole packets
      (TcpAgent::sendmsg: ceil(bytes / packetSize_)): the 100-byte request
      is one 1000-byte segment, 1040 bytes on the wire (``request``);
    * no host adds send jitter: ``jitter`` is a sensitivity series only.

    ``buffer_pkts`` is the scripts' `queue-limit`: ns-2's DropTail drops an
    arrival when `length() + 1 >= qlim_` (queue/drop-tail.cc), so a limit
    of n holds n - 1 waiting packets, the scenario's (and the simulator's)
    measure of a buffer."""
    tcp = {"recover_check": False, **(extra or {})}
    sizing = {"block": f"{block}B"} if block else {"sru": f"{sru}B"}
    return incast_scenario(
        n,
        buffer=f"{buffer_pkts - 1}pkt",
        min_rto=min_rto,
        max_rto=max_rto,
        rate=rate,
        rtt=rtt,
        rounds=rounds,
        profile="ns2",
        tcp=cc,
        sack=sack or None,
        jitter=jitter,
        tcp_extra=tcp,
        warmup=warmup,
        request=NS2_REQUEST,
        request_order="random",
        delayed_ack=delayed_ack,
        **sizing,
    )


#: The request as ns-2's one-way agent sends it: one whole packetSize_.
NS2_REQUEST = "1000B"
#: ns-2's TCP/IP header on each packet (tcpip_base_hdr_size_): the FAST'08
#: scripts summed the sinks' bytes_, which count it.
NS2_HEADER = 40


def _mss(scenario: dict[str, Any]) -> int:
    """The segment size of an `ns2`-host scenario (packetSize_, 1000 unless set)."""
    from ..units import parse_size

    mss = scenario.get("tcp", {}).get("mss")
    return parse_size(mss) if mss else 1000


def ns2_summarize(tasks: Sequence[Task], results: Sequence[Result]) -> Summary:
    """Goodput, timeouts by cause and the share of rounds a timeout stalled,
    per series and server count (mean over seeds)."""
    rows = []
    for t, r in zip(tasks, results, strict=True):
        s = r.summary
        rd = r.rounds
        mss = _mss(t.scenario)
        payload = s["incast_goodput_bps"] / 1e6
        rows.append(
            {
                **t.labels,
                # The published metric: the sinks' bytes_, headers included
                # (every segment of an SRU or block is full but the last).
                "goodput_mbps": payload * (mss + NS2_HEADER) / mss,
                "payload_mbps": payload,
                # The servers' data senders' timeouts (the flows table), as
                # ns-2's nrexmit_ counts them and FAST'08's Table 3 classifies
                # them; the summary's total also has the client's requests.
                "timeouts": int(r.flows["timeouts"].clip(lower=0).sum()),
                "timeouts_per_round": int(r.flows["timeouts"].clip(lower=0).sum())
                / max(1, s["rounds_completed"]),
                # ns-2 does not classify its timeouts (-1): NaN, not a count.
                "to_lost_retransmission": _count(s["timeouts_retransmission"]),
                "to_block_tail": _count(s["timeouts_tail"]),
                "to_whole_window": _count(s["timeouts_window"]),
                "rounds": s["rounds_completed"],
                "stalled_rounds_pct": 100.0 * float((rd["timeouts"] > 0).mean()) if len(rd) else 0,
            }
        )
    return Summary(ns2_table(pd.DataFrame(rows)), samples=pd.DataFrame(rows))


def _count(x: float) -> float:
    return float("nan") if x < 0 else float(x)


def ns2_table(samples: pd.DataFrame) -> pd.DataFrame:
    """The per-run rows of ns2_summarize, averaged per series and servers."""
    keys = [k for k in samples.columns if k in ("series", "servers")]
    g = samples.groupby(keys, sort=False)
    table = g.agg(
        goodput_mbps=("goodput_mbps", "mean"),
        goodput_min=("goodput_mbps", "min"),
        goodput_max=("goodput_mbps", "max"),
        payload_mbps=("payload_mbps", "mean"),
        timeouts=("timeouts", "mean"),
        timeouts_per_round=("timeouts_per_round", "mean"),
        to_lost_retransmission=("to_lost_retransmission", "mean"),
        to_block_tail=("to_block_tail", "mean"),
        to_whole_window=("to_whole_window", "mean"),
        stalled_rounds_pct=("stalled_rounds_pct", "mean"),
        rounds=("rounds", "mean"),
        seeds=("seed", "count"),
    ).reset_index()
    return table


def _readings(
    series: str,
    servers: Sequence[int],
    values: Sequence[float],
    source: str,
    tol: Tolerance = TOL_1G,
) -> list[Published]:
    return [
        Published(
            f"{series}, N = {n}",
            source,
            {"series": series, "servers": n},
            "goodput_mbps",
            float(v),
            unit="Mb/s",
            tolerance=tol,
        )
        for n, v in zip(servers, values, strict=True)
    ]


def ns2_plot(title: str, ymax: float = 1000) -> Callable[[Summary, Sequence[Published]], Figure]:
    def draw(summary: Summary, published: Sequence[Published]) -> Figure:
        from ..plots import figure

        t = summary.table
        fig, (ax,) = figure(1, 11, 5)
        colors = {}
        for s in t["series"].drop_duplicates():
            g = t[t["series"] == s].sort_values("servers")
            (line,) = ax.plot(
                g["servers"], g["goodput_mbps"], marker="o", ms=4, label=f"fairlab: {s}"
            )
            colors[s] = line.get_color()
            if int(g["seeds"].max()) > 1:
                ax.fill_between(
                    g["servers"],
                    g["goodput_min"],
                    g["goodput_max"],
                    color=line.get_color(),
                    alpha=0.15,
                )
        seen = set()
        for p in published:
            if p.value is None:
                continue
            s = p.row["series"]
            mark = {"=": "x", ">=": "^", "<=": "v"}[p.bound]
            ax.scatter(
                [p.row["servers"]],
                [p.value],
                marker=mark,
                s=45,
                color=colors.get(s, "black"),
                label=None if s in seen else f"published: {s}",
            )
            seen.add(s)
        nseeds = int(t["seeds"].max()) if len(t) else 0
        ax.set_title(
            title + (f" (mean; band: range over {nseeds} seeds)" if nseeds > 1 else ""), fontsize=10
        )
        ax.set_xscale("log", base=2)
        ax.set_xlabel("servers (log scale)")
        ax.set_ylabel("goodput (Mb/s)")
        ax.set_ylim(0, ymax)
        ax.grid(True, alpha=0.3)
        ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1), fontsize=7, framealpha=0.9)
        return fig

    return draw


def _grid(
    series: Sequence[tuple[str, dict[str, Any]]],
    servers: Sequence[int],
    quick_series: Sequence[str] | None,
    quick_servers: Sequence[int],
    quick_rounds: int = 8,
    rounds: int = 40,
) -> Callable[[bool], list[Task]]:
    """Tasks over series x servers x seeds; each series is (label, _ns2
    keyword arguments). Up to CLIFF_SERVERS servers a full run has
    CLIFF_ROUNDS rounds (see there)."""

    def make(quick: bool) -> list[Task]:
        out = []
        for label, kw in series:
            if quick and quick_series is not None and label not in quick_series:
                continue
            for n in quick_servers if quick else servers:
                k = quick_rounds if quick else _rounds(n, kw, rounds)
                for seed in NS2_QUICK_SEEDS if quick else NS2_SEEDS:
                    sc = _ns2(n, rounds=k, **kw)
                    out.append(Task(sc, seed, {"series": label, "servers": n, "seed": seed}))
        return out

    return make


#: Near the cliff a run's goodput hangs on rare 200 ms timeouts: at 4 to 8
#: servers a round takes 2 to 20 ms and a timeout stalls one round in 3 to
#: 150, so 40 rounds hold none or one and five seeds do not resolve the
#: rate (measured on both backends: at 4 servers 40 rounds x 5 seeds read
#: 767 and 983 Mb/s on fairlab and ns-2, 400 rounds x 3 seeds 840 and 840).
#: The papers measured 20 s per point, thousands of such rounds; up to
#: CLIFF_SERVERS servers the runs have CLIFF_ROUNDS rounds, beyond it a
#: round takes 0.1 to 1 s and 40 suffice...
CLIFF_SERVERS = 8
CLIFF_ROUNDS = 400
#: ... where a timeout is rare and dear: an RTO of at least 5 ms. With a
#: 200 us or 1 ms RTO timeouts are many and cheap, and 40 rounds resolve them.
CLIFF_MIN_RTO = "5ms"


def _rounds(n: int, kw: dict[str, Any], rounds: int) -> int:
    from ..units import parse_time_ps

    dear = parse_time_ps(kw.get("min_rto", "200ms")) >= parse_time_ps(CLIFF_MIN_RTO)
    return CLIFF_ROUNDS if n <= CLIFF_SERVERS and dear else rounds


def _ns2_setup(what: str) -> str:
    return (
        f"{what} fairlab's `ns2` host (ns-2's one-way Agent/TCP with an ACK per packet: "
        "1000-byte segments, 20-packet advertised window, initial window 2, 10 ms tick, "
        "limited transmit, Karn's rule, ns-2's window reduction, fast recovery, restart after "
        "idle and RTO arithmetic, no handshake), with `recover_check = false` as the "
        "published scripts set `bugFix_ false`, and the authors' application as its code "
        "runs: a warm-up exchange with each server in turn before the first request (not "
        "counted), each round's requests in a new random order, each request one whole "
        "1000-byte segment (ns-2's one-way agents send whole packets); drop-tail buffers "
        "as the scripts' queue-limit gives them (a limit of n holds n - 1 waiting packets in "
        "ns-2's DropTail: the scenario's buffer is n - 1 packets); 1 Gb/s links, RTT 100 µs; "
        "no host send jitter (neither the authors nor ns-2 add any); seeds "
        + ", ".join(map(str, NS2_SEEDS))
        + "; goodput over 40 barrier-synchronized rounds (400 up to 8 servers with an RTO "
        "of 5 ms or more, where a round lasts milliseconds and a timeout is rare and costs "
        "many rounds), counting 40 bytes of header per "
        "1000-byte segment as the authors' scripts did (the sinks' bytes_; payload_mbps "
        "without them)."
    )


_NS2_QUICK = "fewer servers and series, seed 1, 8 rounds"
#: A sensitivity series: the same runs with 1 µs of host send jitter, which
#: the study used to add by default (neither the authors nor ns-2 have it).
JITTER_SERIES = "NewReno, 32 KB, 1 µs send jitter (sensitivity)"

FIG4_SERVERS = [1, 2, 3, 4, 5, 6, 7, 8, 10, 16, 24, 32]
FIG4 = [945, 970, 975, 645, 290, 175, 140, 95, 95, 110, 130, 155]
FIG6_SERVERS = [1, 2, 4, 8, 16, 32, 64, 128]
FIG6 = {
    32: (FIG6_SERVERS, [945, 970, 645, 100, 125, 135, 170, 130]),
    64: (FIG6_SERVERS, [945, 970, 985, 525, 165, 175, 270, 275]),
    128: (FIG6_SERVERS, [945, 970, 985, 990, 170, 240, 300, 480]),
    256: ([16, 32, 64, 128], [995, 305, 370, 495]),
    512: ([16, 32, 64, 128], [995, 995, 495, 580]),
    1024: ([16, 32, 64, 128], [995, 995, 645, 785]),
}
SIX = [4, 8, 16, 32, 64, 128]
FIG9 = [985, 455, 40, 30, 20, 10]
FIG10 = {
    "Reno": [980, 80, 80, 105, 130, 135],
    "NewReno": [985, 470, 150, 185, 270, 290],
    "SACK": [985, 230, 110, 135, 160, 185],
}
FIG10_CC = {"Reno": {"cc": "reno"}, "NewReno": {}, "SACK": {"sack": True}}
FIG13B_SERVERS = [8, 16, 32, 64, 128]
FIG13B = {"NewReno": [915, 895, 775, 690, 755], "Reno": [525, 645, 705, 690, 725]}
SIG2_RTOS = ["200us", "1ms", "5ms", "10ms", "50ms", "100ms", "200ms"]
SIG2 = {
    4: [970, 965, 975, 960, 780, 810, 590],
    8: [980, 980, 890, 800, 370, 280, 115],
    16: [960, 960, 765, 580, 175, 100, 60],
    32: [870, 915, 615, 415, 105, 65, 25],
    64: [660, 735, 485, 265, 55, 25, 10],
    128: [575, 700, 185, 95, 20, 10, 5],
}
FIG8_SERVERS = [32, 64, 128, 256, 512, 1024, 2048]
FIG8 = [8800, 7900, 8200, 8100, 7800, 6050, 4650]


def _src(paper: str, fig: str) -> str:
    return f"read off {fig} of {paper} (issue 9's reading, ±5 % of full scale)"


def _fig6_series():
    return [(f"{b} KB", {"buffer_pkts": b}) for b in FIG6]


def _fig12_check(t: pd.DataFrame):
    g = t.pivot_table(index="servers", columns="series", values="goodput_mbps")
    base = "NewReno (ns-2 defaults)"
    if base not in g:
        return None, "the NewReno baseline was not run"
    others = [c for c in g.columns if c != base]
    means = g.mean()
    better = [c for c in others if means[c] > 1.1 * means[base]]
    shows = "; ".join(f"{c}: {means[c]:.0f}" for c in g.columns)
    return not better, f"mean goodput over the servers run (Mb/s): {shows}"


def _fig14_check(t: pd.DataFrame):
    g = t.groupby("series")["goodput_mbps"].mean()
    on, off = "1ms, delayed ACK", "1ms, ACK every packet"
    if on not in g or off not in g:
        return None, "the 1 ms series were not both run"
    return bool(g[on] < g[off]), f"mean goodput {g[on]:.0f} (delayed ACK) against {g[off]:.0f}"


#: ns-2.30's rtt_backoff() stops doubling at 64 (later releases double up to
#: maxrto_); the authors' published ns-2 tree is 2.30 (github.com/amarp/incast,
#: simulation/src/ns-2.30.patch). A setting the paper does not state: an extra
#: series, not the main one.
NS230_BACKOFF = {"max_backoff": 64}
FIG8_NS230 = "ns-2.30 backoff cap (64x)"


def _fig8_tasks(quick: bool) -> list[Task]:
    variants = [
        ("no randomization", {}),
        ("adaptive delay", {"rto_random_delay": "adaptive"}),
        (f"no randomization, {FIG8_NS230}", NS230_BACKOFF),
        (f"adaptive delay, {FIG8_NS230}", {"rto_random_delay": "adaptive", **NS230_BACKOFF}),
        ("delay U(0, 2 µs)", {"rto_random_delay": "2us"}),
        ("delay U(0, 5 µs)", {"rto_random_delay": "5us"}),
        ("RTO x (1 + U(0, 0.5))", {"randomize_rto": True}),
    ]
    servers = [32, 256] if quick else FIG8_SERVERS_RUN
    out = []
    for label, extra in variants[:4] if quick else variants:
        for n in servers:
            for seed in NS2_QUICK_SEEDS:
                sc = _ns2(
                    n,
                    buffer_pkts=32,
                    sru=None,
                    block=80_000_000 // (8 if quick else 1),
                    min_rto="0s",
                    rate="10Gbps",
                    rtt="20us",
                    rounds=1 if quick else 3,
                    extra=extra,
                )
                out.append(Task(sc, seed, {"series": label, "servers": n, "seed": seed}))
    return out


#: Server counts of Fig. 8 the full mode runs (see the experiment's quick text).
FIG8_SERVERS_RUN = FIG8_SERVERS

NS2_EXPERIMENTS = [
    Experiment(
        name="fast08-fig4",
        reproduces="FAST'08 Fig. 4: incast collapse in ns-2 (32 KB buffer, SRU 256 KB)",
        setup=_ns2_setup(
            "A client reads a 256000-byte SRU from each of N servers through a 32-packet "
            "port, NewReno, min RTO 200 ms, on"
        ),
        tasks=_grid(
            [
                ("NewReno, 32 KB", {"buffer_pkts": 32}),
                (JITTER_SERIES, {"buffer_pkts": 32, "jitter": JITTER}),
            ],
            FIG4_SERVERS,
            ["NewReno, 32 KB"],
            [1, 4, 8, 32],
        ),
        summarize=ns2_summarize,
        published=_readings("NewReno, 32 KB", FIG4_SERVERS, FIG4, _src(FAST08, "Fig. 4")),
        quick=_NS2_QUICK,
        plot=ns2_plot("FAST'08 Fig. 4: ns-2 host, 32-packet buffer, SRU 256 KB"),
    ),
    Experiment(
        name="fast08-fig6",
        reproduces="FAST'08 Fig. 6: buffer size against the servers before collapse",
        setup=_ns2_setup(
            "SRU 256000 bytes per server, buffers of 32 to 1024 packets (the figure's 32 KB "
            "to 1024 KB), NewReno, min RTO 200 ms, on"
        ),
        tasks=_grid(_fig6_series(), FIG6_SERVERS, ["32 KB", "256 KB"], [4, 16, 64]),
        summarize=ns2_summarize,
        published=[
            p
            for b, (ns, vs) in FIG6.items()
            for p in _readings(f"{b} KB", ns, vs, _src(FAST08, "Fig. 6"))
        ],
        quick=_NS2_QUICK,
        plot=ns2_plot("FAST'08 Fig. 6: goodput by buffer size (packets of 1 KB)"),
    ),
    Experiment(
        name="fast08-fig9",
        reproduces="FAST'08 Fig. 9: a fixed 1 MB block (64 KB buffer)",
        setup=_ns2_setup(
            "A 1024000-byte block split over N servers, a 64-packet port, NewReno, min RTO "
            "200 ms, on"
        ),
        tasks=_grid(
            [("block 1 MB, 64 KB", {"block": 1024000, "sru": None})], SIX, None, [4, 8, 64]
        ),
        summarize=ns2_summarize,
        published=_readings("block 1 MB, 64 KB", SIX, FIG9, _src(FAST08, "Fig. 9")),
        quick=_NS2_QUICK,
        plot=ns2_plot("FAST'08 Fig. 9: fixed 1 MB block, 64-packet buffer"),
    ),
    Experiment(
        name="fast08-fig10",
        reproduces="FAST'08 Fig. 10 and Table 3: Reno, NewReno and SACK, timeouts by cause",
        setup=_ns2_setup(
            "SRU 256000 bytes, a 64-packet port, min RTO 200 ms; Reno, NewReno, and NewReno "
            "with SACK (ns-2's Sack1 ran with partial_ack_ true); every timeout classified "
            "as a lost retransmission, the last packets of the block lost, or a whole window "
            "lost (columns to_*: mean count per run) on"
        ),
        tasks=_grid(list(FIG10_CC.items()), SIX, None, [8, 64]),
        summarize=ns2_summarize,
        published=[
            p for v, vals in FIG10.items() for p in _readings(v, SIX, vals, _src(FAST08, "Fig. 10"))
        ],
        quick=_NS2_QUICK,
        plot=ns2_plot("FAST'08 Fig. 10: TCP variants, 64-packet buffer, SRU 256 KB"),
    ),
    Experiment(
        name="fast08-fig12",
        reproduces="FAST'08 Fig. 12: limited transmit, dupack threshold 1, no slow start",
        setup=_ns2_setup(
            "SRU 256000 bytes, a 64-packet port, NewReno at min RTO 200 ms: the ns-2 defaults "
            "(limited transmit on, singledup_ 1), without limited transmit, with a duplicate-"
            "ACK threshold of 1, and with threshold 1 and no slow start (ns-2's max_ssthresh_ "
            "1), on"
        ),
        tasks=_grid(
            [
                ("NewReno (ns-2 defaults)", {}),
                ("no limited transmit", {"extra": {"limited_transmit": False}}),
                ("dupack threshold 1", {"extra": {"dupack_threshold": 1}}),
                (
                    "dupack 1, no slow start",
                    {"extra": {"dupack_threshold": 1, "slow_start": False}},
                ),
            ],
            SIX,
            None,
            [8, 32],
        ),
        summarize=ns2_summarize,
        published=[
            Published(
                "none of the three changes improves goodput",
                "stated in the text of FAST'08, Section 5 (Fig. 12)",
                claim="limited transmit, a duplicate-ACK threshold of 1 and disabling slow "
                "start give no goodput benefit over NewReno (checked: no variant's mean "
                "goodput over the servers run is more than 10 % above the baseline's)",
                check=_fig12_check,
            )
        ],
        quick=_NS2_QUICK,
        plot=ns2_plot("FAST'08 Fig. 12: NewReno variants, 64-packet buffer, SRU 256 KB"),
    ),
    Experiment(
        name="fast08-fig13b",
        reproduces="FAST'08 Fig. 13b: a 200 µs RTO, NewReno against Reno",
        setup=_ns2_setup(
            "SRU 256000 bytes, a 64-packet port, a fixed 200 µs RTO (min_rto = max_rto, as "
            "the scripts set minrto_ = maxrto_), Reno and NewReno, on ns-2's default 10 ms "
            "tick as the scripts ran it (they never set tcpTick_; ns-2's rtt_timeout() raises "
            "a timeout below two ticks to 20 ms), and the same on a 1 µs tick (a true 200 µs "
            "RTO; extra series, not compared with the figure), on"
        ),
        tasks=_grid(
            [
                (v + tick, {"cc": cc, "min_rto": "200us", "max_rto": "200us", "extra": ex})
                for v, cc in (("NewReno", "newreno"), ("Reno", "reno"))
                for tick, ex in (
                    ("", {"resolution": "10ms"}),
                    (", 1 µs tick", {"resolution": "1us"}),
                )
            ],
            FIG13B_SERVERS,
            ["NewReno", "NewReno, 1 µs tick"],
            [8, 64],
        ),
        summarize=ns2_summarize,
        published=[
            p
            for v, vals in FIG13B.items()
            for p in _readings(v, FIG13B_SERVERS, vals, _src(FAST08, "Fig. 13b"))
        ],
        quick=_NS2_QUICK,
        plot=ns2_plot("FAST'08 Fig. 13b: fixed 200 µs RTO, 64-packet buffer"),
    ),
    Experiment(
        name="sigcomm09-fig2",
        reproduces="SIGCOMM'09 Fig. 2: goodput by min RTO (1 MB block, 32 KB buffer)",
        setup=_ns2_setup(
            "A 1024000-byte block split over N = 4 to 128 servers, a 32-packet port, NewReno, "
            "a fixed RTO (min_rto = max_rto, as the scripts' min RTO runs) of 200 µs to 200 ms "
            "on a 1 µs tick (the 10 ms default tick would floor every RTO at ns-2's 2 ticks), on"
        ),
        tasks=_grid(
            [
                (
                    rto,
                    {
                        "block": 1024000,
                        "sru": None,
                        "buffer_pkts": 32,
                        "min_rto": rto,
                        "max_rto": rto,
                        "extra": {"resolution": "1us"},
                    },
                )
                for rto in SIG2_RTOS
            ],
            list(SIG2),
            ["200us", "5ms", "200ms"],
            [8, 64],
        ),
        summarize=ns2_summarize,
        published=[
            p
            for n, vals in SIG2.items()
            for rto, v in zip(SIG2_RTOS, vals, strict=True)
            for p in _readings(rto, [n], [v], _src(SIGCOMM09, "Fig. 2"))
        ],
        quick=_NS2_QUICK,
        plot=ns2_plot("SIGCOMM'09 Fig. 2: goodput by fixed RTO, 1 MB block, 32-packet buffer"),
    ),
    Experiment(
        name="sigcomm09-fig14",
        reproduces="SIGCOMM'09 Fig. 14's question in ns-2: delayed ACKs with a small RTO",
        setup=_ns2_setup(
            "SIGCOMM'09 Fig. 2's setup (a 1024000-byte block split over N servers, a 32-packet "
            "port, NewReno, a fixed RTO on a 1 µs tick) at 1 ms and 200 ms, with every packet "
            "ACKed (ns-2's TCPSink) and with delayed ACKs (TCPSink/DelAck, its default "
            "interval_ of 100 ms as the delayed-ACK timeout). The figure's numbers are not in "
            "this project: the experiment compares fairlab's ns2 host with ns-2 only, on"
        ),
        tasks=_grid(
            [
                (
                    f"{rto}, {'delayed ACK' if d else 'ACK every packet'}",
                    {
                        "block": 1024000,
                        "sru": None,
                        "buffer_pkts": 32,
                        "min_rto": rto,
                        "max_rto": rto,
                        "delayed_ack": d,
                        "extra": {"resolution": "1us", "delayed_ack_timeout": "100ms"},
                    },
                )
                for rto in ("1ms", "200ms")
                for d in (False, True)
            ],
            [8, 16, 32, 64],
            ["1ms, delayed ACK", "1ms, ACK every packet"],
            [8, 32],
        ),
        summarize=ns2_summarize,
        published=[
            Published(
                "with a 1 ms RTO, delayed ACKs cost goodput",
                "the question of SIGCOMM'09 Fig. 14 as issue 19's grid asks it (the figure's "
                "numbers are not in this project)",
                claim="with a fixed 1 ms RTO, far below the 100 ms delayed-ACK timeout, the "
                "runs with delayed ACKs have a lower mean goodput than those that ACK every "
                "packet (checked over the servers run)",
                check=_fig14_check,
            )
        ],
        quick=_NS2_QUICK,
        plot=ns2_plot("SIGCOMM'09 Fig. 14's question: delayed ACK, 1 MB block, 32-packet buffer"),
    ),
    Experiment(
        name="sigcomm09-fig8",
        reproduces="SIGCOMM'09 Fig. 8: 10 Gb/s, 2048 servers, with and without randomized timeouts",
        setup=(
            "An 80 MB block split over N = 32 to 2048 servers at 10 Gb/s, RTT 20 µs, a "
            "32-packet port, the `ns2` host with no min RTO (min_rto 0 on a 1 µs tick), 3 "
            "rounds, seed 1. Before the first round the client exchanges a 100-byte message "
            "with each server in turn (`warmup`, as the authors' ns-2 application's setup "
            "phase does), so every connection has an RTT sample instead of ns-2's 3 s initial "
            "RTO. Series: without randomization; with the timeout delayed by U(0, 2 µs), "
            "U(0, 5 µs), or adaptively by U(0, SRTT x 2^backoff); fairlab's multiplicative "
            "RTO x (1 + U(0, 0.5)); and, as extra series on a setting the paper does not "
            f'state, the first two with ns-2.30\'s backoff cap, labelled "{FIG8_NS230}" '
            "(`max_backoff = 64`; the `ns2` profile doubles up to maxrto_ as ns-2.31 to 2.35 "
            "do). The published readings are compared with the main series only."
        ),
        tasks=_fig8_tasks,
        summarize=ns2_summarize,
        published=[
            *_readings("no randomization", FIG8_SERVERS, FIG8, _src(SIGCOMM09, "Fig. 8"), TOL_10G),
            *[
                Published(
                    f"adaptive delay, N = {n}",
                    _src(SIGCOMM09, "Fig. 8") + ": about 8100-9250 Mb/s, flat to 2048",
                    {"series": "adaptive delay", "servers": n},
                    "goodput_mbps",
                    8100.0,
                    bound=">=",
                    unit="Mb/s",
                    tolerance=TOL_10G,
                )
                for n in FIG8_SERVERS
            ],
        ],
        quick="N = 32 and 256, a 10 MB block, 1 round, no randomization and adaptive only "
        "(each also with the ns-2.30 backoff cap)",
        plot=ns2_plot("SIGCOMM'09 Fig. 8: 10 Gb/s, RTT 20 µs, 80 MB block", ymax=10000),
    ),
]

EXPERIMENTS.extend(NS2_EXPERIMENTS)

#: What explains the rows outside, per experiment (found with the flows and
#: rounds tables and per-flow traces; docs/incast.md, "The ns-2 studies").
_COMMON = (
    "The same runs also ran on real ns-2 2.35 (the report's ns-2 column: published, ns-2 "
    "and fairlab side by side; docs/ns2.md). Where fairlab is outside the published value, "
    "ns-2 2.35 run from the authors' scripts' setup is outside too at 30 of 35 rows: the "
    "published curve is not what ns-2 2.35 gives for that setup. How the runs follow the "
    "authors' application and scripts: buffers are their queue-limit minus one (ns-2's "
    "DropTail holds one fewer), SRUs 256000 bytes, bugFix_ false, the warm-up exchange, "
    "requests shuffled every round and sent as one whole 1000-byte segment, no send "
    "jitter, goodput with the headers the authors' bytes_ counted, 400 rounds up to 8 "
    "servers where rare 200 ms timeouts decide the goodput (docs/incast.md)."
)
_NOTES = {
    "fast08-fig4": _COMMON
    + " fairlab agrees with ns-2 at all 12 points. At 4, 5 and 7 servers ns-2 is above the "
    "figure too (801, 423, 195 against 645, 290, 140); at 6 fairlab is 8 Mb/s past the "
    "tolerance (233 against 175; ns-2 215).",
    "fast08-fig6": _COMMON
    + " fairlab agrees with ns-2 at 47 of 48 points (32 packets at 64 servers: 187 against "
    "165, equal timeouts per round; not explained yet). With 1024 packets at 128 servers "
    "ns-2 gives 800 and fairlab 848 against the published 785.",
    "fast08-fig9": _COMMON,
    "fast08-fig10": _COMMON
    + " Reno and NewReno agree with ns-2 at every point. SACK (ns-2's Sack1, modelled in the "
    "ns2 host) does not at 8, 32, 64 and 128 servers: ns-2 turns about one drop in ten "
    "into a timeout, the ns2 host one in 25 (128 servers), so fairlab is above ns-2 and the "
    "figure; the rule behind it is not found (docs/ns2.md).",
    "fast08-fig12": _COMMON
    + " The claim holds on both backends. One point differs from ns-2: dupack threshold 1 "
    "without slow start at 64 servers (241 against 273 Mb/s, 55 against 36 timeouts per "
    "round); not explained yet.",
    "fast08-fig13b": "The authors' scripts never set tcpTick_, so their '200 µs' runs had "
    "ns-2's default 10 ms tick, on which rtt_timeout() raises any timeout below two ticks to "
    "20 ms. On that tick ns-2 2.35 and fairlab both give the published 915 / 895 (NewReno) "
    "and 525 / 645 (Reno) at 8 and 16 servers and both stay above the published curve from "
    "32 servers on (ns-2 909-970 Mb/s). On a 1 µs tick (a true 200 µs RTO, extra series) "
    "both collapse to 400-550 Mb/s with thousands of spurious timeouts per round: 200 µs is "
    "twice the base RTT. fairlab agrees with ns-2 at all 20 points.",
    "sigcomm09-fig2": "Set up as the scripts' min RTO runs (minrto_ = maxrto_: a fixed RTO, "
    "no backoff) on a 1 µs tick. fairlab agrees with ns-2 at all 42 points, and both are "
    "outside the published values at the same rows: the 200 µs column (spurious timeouts, "
    "the RTO being twice the RTT; ns-2 470-660 Mb/s against 575-980) and the 5-100 ms "
    "columns from 32 servers on, where both are above the figure (128 servers, 5 ms: ns-2 "
    "401, fairlab 409, published 185).",
    "sigcomm09-fig14": "No published numbers: ns-2 against fairlab only. With a 1 ms RTO "
    "the two agree; with a 200 ms RTO and delayed ACKs ns-2 is far below fairlab (16 "
    "servers: 29 against 74 Mb/s, 3.6 against 0.1 timeouts per round). Not explained yet; a "
    "candidate is the harness: ns-2's one-way agents never piggyback, so the servers' "
    "DelAck request sinks hold each request's ACK, where fairlab's server acknowledges the "
    "request on its first data segment.",
    "sigcomm09-fig8": "Now (the ns2 host with ns-2's restart after idle, window reduction, "
    "recovery, RTO arithmetic and limited transmit; not run on ns-2: 2048 servers at 10 Gb/s "
    "are hours of it): without randomization 6523 Mb/s at 32 servers, 5274 at 128, 829 at "
    "512, 5 at 2048; adaptive delay 6985 to 4242; with ns-2.30's backoff cap 8473 to 5609 "
    "and 8979 to 4876. After a stall every server restarts its 80 MB round from one "
    "segment. The history of this experiment, with figures from before those rules: "
    "Measured with seed 1 (flows and rounds tables). (1) The runs used to "
    "start cold: with no RTT sample a server that lost part of its first window waited out "
    "ns-2's initial RTO (rtxcur_init_ 3 s, doubled on each further loss), so round 1 took 3.0"
    " s at 32 servers and 273 s at 256 (rounds 2 and 3: 9 and 120 ms) and the rows read 592 "
    "Mb/s (32 servers) down to 1 (2048). The authors' ns-2 application does not start cold: "
    "IncastTcpAppClient::start() runs process_init(), which sends each server in turn a "
    "100-byte message and waits for its 100-byte answer before asking the next "
    "(github.com/amarp/incast, simulation/src/ns-2.30.patch), so every server's agent has an "
    "RTT sample from an idle network before the first block; the runs now do the same "
    "(warmup). (2) The timeouts are mostly real losses, not spurious: of the timeout "
    "retransmissions that reached the client (counted with a temporary probe at the "
    "receiver), 39 % (32 servers), 21 % (256) and 26 % (2048) carried data it already had; "
    "before the warm-up, 42 % (32) and 20 % (256). (3) ns-2's rtt_backoff() restarts the RTT "
    "estimator after the fourth timeout in a row (t_backoff_ > 8: t_srtt_ = 0); the ns2 "
    "profile now does too (backoff_restarts_srtt). (4) What remains is the backoff limit. The"
    " ns2 profile doubles the RTO up to maxrto_ (60 s), as ns-2.31 to 2.35 do (t_backoff_ < "
    "64 || rfc2988_); a flow that keeps losing its retransmission backs off for seconds, so "
    "without randomization the rows fall from 6558 Mb/s (32 servers) to 58 (1024) and 5 "
    "(2048), and the adaptive delay holds 4491 to 8108. ns-2.30, the release the authors' "
    "published tree patches, stops doubling at 64 (if (t_backoff_ < 64)). The paper does "
    "not say which release it ran; with ns-2.30's cap (the extra series, max_backoff = 64) "
    "no randomization gives 8807, 8444, 8655, 8671, 8573, 8404 and 7713 Mb/s from 32 to "
    "2048 servers and the adaptive delay 8357 to 8896, within the published 8100-9250 at "
    "every N. (Figures measured before the ns2 profile took ns-2's restart after idle, "
    "window reduction, fast recovery and RTO arithmetic; not measured again since.) The "
    "published fall without randomization at 1024 and 2048 servers (6050, 4650) does not "
    "appear with the cap: the paper puts it down to synchronized retransmissions, and "
    "fairlab's 1 µs host send jitter desynchronizes them.",
}
EXPERIMENTS[:] = [replace(e, notes=_NOTES[e.name]) if e.name in _NOTES else e for e in EXPERIMENTS]
