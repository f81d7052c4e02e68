"""The Radon study, source document 004: the Radon proposal (RAD on
Networks), Chapter 5, "Evaluation of Radon", and issue 21's questions beyond
it.

Radon gives each datagram stream a reservation (a share of a switch port
per period) and paces it; the receiver models the bottleneck queue from the
relative forward delay of the datagrams and tells the sender, which moves
its inter-packet wait by how urgent its reservation is (Percent-Budget). The
seed's prototype (UDPmon, modified) ran on seven Celeron hosts with 82541PI
1 GbE NICs (80 transmit descriptors) through one Extreme Summit 400-24t,
with 8,192-byte payloads. Each experiment below is one section of Chapter 5
on a model of that testbed, non-adaptive and adaptive, beside the seed's
tables; then the three queue models against the simulator's true queue,
timestamp noise, the sensitivity series for the seed's ambiguities, Radon
on the foundation's incast, and the network-calculus bounds of every run.

One concern per module: :mod:`.radon_seed` holds the seed's tables as
published data; :mod:`.radon_testbed` the testbed, the readings of what the
seed leaves open (each also a paragraph of docs/radon.md, "Readings of the
seed") and the scenario builders; :mod:`.radon_runs` reads a run's tables
(`streams`, `port_bounds`, `ports`; docs/radon.md, "Tables") and writes the
why of a departure; :mod:`.radon_models` the queue-model and timestamp
experiments; :mod:`.radon_incast` Radon on the incast;
:mod:`.radon_hypothesis` the labelled HYPOTHESIS series beside the tables
(the receiver as an 800 Mb/s max-min server), judged by claims only. This
module holds the table experiments, the sensitivity series, the bounds and
the study.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, NamedTuple

import pandas as pd

from ..runner import Task
from . import radon_seed as seed
from .base import Experiment, Published, Study, Summary, Tolerance
from .radon_hypothesis import HYPOTHESIS_BOUNDS, SETUP_TEXT, hypothesis_published
from .radon_incast import (
    INCAST,
    INCAST_BUFFER,
    INCAST_ROUNDS,
    INCAST_SERVERS,
    QUICK_INCAST_ROUNDS,
    QUICK_INCAST_SERVERS,
    QUICK_RADON_SERIES,
    RADON_SERIES,
    incast_radon_scenario,
)
from .radon_models import QUEUE_MODELS, TIMESTAMPS
from .radon_runs import (
    NO_VIOLATIONS,
    bottleneck_published,
    run_table,
    summarize_streams,
    why_stream,
    why_stream_brief,
)
from .radon_seed import ISSUE
from .radon_testbed import (
    ADAPTIVE,
    BUFFERS,
    COUNTS_FULL_ONLY,
    DEFAULT_BUFFER,
    HYPOTHESIS_PORT,
    IP_PACKET_BYTES,
    KERNEL_PACKET_BYTES,
    KERNEL_RATE_SCALE,
    KERNEL_TIME_SCALE,
    NON_ADAPTIVE,
    QUICK_SCALE,
    QUICK_SEEDS,
    QUICK_TEXT,
    SEEDS,
    SENSITIVITY,
    SINGLE_DURATION_S,
    START_SPREAD_S,
    Readings,
    buffer_bytes,
    expected_refusals,
    fair_streams,
    hypothesis_series,
    is_hypothesis,
    kernel_scenario,
    punctuated_streams,
    setup_text,
    single_packets,
    single_streams,
    testbed,
    unfair_streams,
    wire_utilization,
)

if TYPE_CHECKING:
    from matplotlib.figure import Figure

    from ..result import Result

SOURCE = "The Radon proposal (RAD on Networks), source document 004, Chapter 5"

#: How far fairlab may be from a cell of the tables and still be "within".
#: The seed gives one run per table, no spread: a send rate is the pacer's
#: (the streams are configured at the stated rates, which the tables'
#: measured rates are up to 2 % below: ±3 %); counts and rates received
#: ±5 %; losses ±25 % and a few datagrams or half a point.
TOLERANCES = {
    "send_rate_mbps": Tolerance(rel=0.03, unit="Mb/s"),
    "num_recv": Tolerance(rel=0.05, unit="datagrams"),
    "num_lost": Tolerance(abs=5, rel=0.25, unit="datagrams"),
    "pct_lost": Tolerance(abs=0.5, rel=0.25, unit="%"),
    "recv_rate_mbps": Tolerance(rel=0.05, unit="Mb/s"),
    "recv_wire_rate_mbps": Tolerance(rel=0.05, unit="Mb/s"),
}


#: The tables' columns that count datagrams: compared in full mode only
#: (COUNTS_FULL_ONLY: quick mode sends a quarter of them).
COUNT_COLUMNS = ("num_recv", "num_lost")

#: The label of a run's datagram counts: "full" (the tables' counts) or
#: "quick" (QUICK_SCALE of them).
FULL, QUICK = "full", "quick"


def table_published(t: seed.SeedTable, buffer: str = DEFAULT_BUFFER) -> list[Published]:
    """Every cell of one of the seed's tables, with its provenance, beside
    fairlab's row of the same series and node at ``buffer``. A count is
    read from full-mode runs only: in quick mode it is "not run", its label
    saying why."""
    out = []
    for r in t.rows:
        for col in seed.COLUMNS:
            row = {"series": t.series, "buffer": buffer, "node": r.node}
            label = f"Table {t.number}, node {r.node}, {seed.HEADINGS[col]}"
            if col in COUNT_COLUMNS:
                row["datagrams"] = FULL
                label += f" ({COUNTS_FULL_ONLY})"
            out.append(
                Published(
                    label,
                    t.provenance(r.node, col),
                    row,
                    col,
                    r.value(col),
                    unit=seed.UNITS[col],
                    tolerance=TOLERANCES[col],
                    why=why_stream_brief,
                )
            )
    return out


def _loss_range(series: str, node: int, lo: float, hi: float, what: str) -> Published:
    """An issue verdict "loses lo-hi %": a value with a tolerance spanning
    the range."""
    return Published(
        f"{what}, {series}: node {node} loses {lo:g}-{hi:g} %",
        ISSUE,
        {"series": series, "buffer": DEFAULT_BUFFER, "node": node},
        "pct_lost",
        (lo + hi) / 2,
        unit="%",
        tolerance=Tolerance(abs=(hi - lo) / 2, unit="%"),
        why=why_stream_brief,
    )


def _loss_below(series: str, node: int, below: float, what: str) -> Published:
    return Published(
        f"{what}, {series}: node {node} loses under {below:g} %",
        ISSUE,
        {"series": series, "buffer": DEFAULT_BUFFER, "node": node},
        "pct_lost",
        below,
        bound="<=",
        unit="%",
        why=why_stream_brief,
    )


def _buffer_fit(tables: Sequence[seed.SeedTable]) -> Published:
    """Which swept buffer fits the seed's losses best: computed from the run."""

    def check(t: pd.DataFrame) -> tuple[bool | None, str]:
        if "buffer" not in t or t["buffer"].nunique() < 2:
            return None, "one buffer was run (quick mode runs the default only)"
        err = {}
        for buf, g in t.groupby("buffer", sort=False):
            d = []
            for st in tables:
                for row in st.rows:
                    sel = g[(g["series"] == st.series) & (g["node"] == row.node)]
                    if len(sel):
                        d.append(abs(float(sel["pct_lost"].mean()) - row.pct_lost))
            if d:
                err[buf] = sum(d) / len(d)
        best = min(err, key=err.__getitem__)
        shows = "; ".join(f"{b}: {e:.2f}" for b, e in err.items())
        return bool(err[DEFAULT_BUFFER] <= err[best] + 1e-9), (
            f"mean |fairlab − seed| of %lost over the tables' rows, per buffer: {shows} "
            f"(closest: {best})"
        )

    def why(t: pd.DataFrame) -> str:
        one = t[t["node"] == 1].groupby(["series", "buffer"], sort=False)["pct_lost"].mean()
        return "node 1's %lost per series and buffer in this run: " + ", ".join(
            f"{s} at {b}: {v:.2f} %" for (s, b), v in one.items()
        )

    return Published(
        f"the default buffer ({DEFAULT_BUFFER}) fits the tables' losses as well as any swept",
        "the study's reading of the unstated switch buffer (docs/radon.md)",
        claim=f"of the buffers swept ({', '.join(BUFFERS)}), the default gives the smallest mean "
        "absolute difference of %lost from the seed's tables",
        check=check,
        why=why,
    )


class Series(NamedTuple):
    """One series of a table experiment: its label, whether adaptive,
    whether admission is on, `[[port]]` overrides (the hypothesis), and
    whether it sweeps the buffers in full mode."""

    label: str
    adaptive: bool
    admission: bool = False
    ports: tuple[dict[str, Any], ...] = ()
    sweep: bool = True


def _stream_tasks(
    case: str,
    build: Callable[[bool, int, str], list[dict[str, Any]]],
    series: Sequence[Series],
) -> Callable[[bool], list[Task]]:
    """Tasks over series x buffers x seeds. ``build(quick, seed, series)``
    gives the streams. Quick mode: the default buffer, QUICK_SEEDS,
    QUICK_SCALE of the datagrams (the label "datagrams" says which)."""

    def make(quick: bool) -> list[Task]:
        out = []
        for se in series:
            buffers = [DEFAULT_BUFFER] if quick or not se.sweep else BUFFERS
            for buf in buffers:
                for s in QUICK_SEEDS if quick else SEEDS:
                    sc = testbed(
                        f"radon {case}, {se.label}, {buf}",
                        build(quick, s, se.label),
                        adaptive=se.adaptive,
                        buffer=buf,
                        seed=s,
                        admission=se.admission,
                        ports=se.ports,
                    )
                    labels = {
                        "case": case,
                        "series": se.label,
                        "buffer": buf,
                        "seed": s,
                        "datagrams": QUICK if quick else FULL,
                    }
                    out.append(Task(sc, s, labels))
        return out

    return make


BOTH = [Series(NON_ADAPTIVE, False), Series(ADAPTIVE, True)]

ADMISSION_SERIES = [
    Series(f"{NON_ADAPTIVE}, admission", False, admission=True),
    Series(f"{ADAPTIVE}, admission", True, admission=True),
]

#: The hypothesis (radon_hypothesis), non-adaptive and adaptive, at the
#: default buffer only, in quick and full mode.
HYPOTHESIS_SERIES = [
    Series(hypothesis_series(base), adaptive, ports=(HYPOTHESIS_PORT,), sweep=False)
    for base, adaptive in ((NON_ADAPTIVE, False), (ADAPTIVE, True))
]

single_tasks = _stream_tasks("single", lambda q, s, _l: single_streams(q), BOTH)

punctuated_tasks = _stream_tasks(
    "punctuated", lambda q, s, _l: punctuated_streams(q), BOTH + HYPOTHESIS_SERIES
)

fair_tasks = _stream_tasks("fair", lambda q, s, _l: fair_streams(q, s), BOTH + HYPOTHESIS_SERIES)

unfair_tasks = _stream_tasks(
    "unfair",
    lambda q, s, label: unfair_streams(q, s, label),
    BOTH + ADMISSION_SERIES + HYPOTHESIS_SERIES,
)


def _kernel(make: Callable[[bool], list[Task]]) -> Callable[[bool], list[Task]]:
    """An experiment's runs scaled for the kernel (``kernel_scenario``; the
    hypothesis series need a drr port, which the namespaces lack, and are
    left out). The labels keep the seed's buffer names and say the scale,
    so the summaries give the seed's units and the verdicts the seed's
    rows."""

    def tasks(quick: bool) -> list[Task]:
        return [
            Task(
                kernel_scenario(t.scenario),
                t.seed,
                {
                    **t.labels,
                    "packet_bytes": KERNEL_PACKET_BYTES,
                    "rate_scale": KERNEL_RATE_SCALE,
                    "time_scale": KERNEL_TIME_SCALE,
                },
            )
            for t in make(quick)
            if not is_hypothesis(t.labels["series"])
        ]

    return tasks


def _single_published() -> list[Published]:
    row = {"buffer": DEFAULT_BUFFER, "node": 1}
    src = seed.SINGLE_SOURCE
    wait_tol = Tolerance(abs=2.0, unit="µs")
    return [
        Published(
            "single stream: send rate 765 Mb/s",
            src,
            {"series": NON_ADAPTIVE, **row},
            "send_rate_mbps",
            seed.SINGLE_RATE_MBPS,
            unit="Mb/s",
            tolerance=TOLERANCES["send_rate_mbps"],
            why=why_stream,
        ),
        Published(
            "single stream: 84 µs between packets",
            src + "; UDPmon's wait, to which each send added about 2 % (the tables' send rates)",
            {"series": NON_ADAPTIVE, **row},
            "mean_wait_us",
            seed.SINGLE_WAIT_US,
            unit="µs",
            tolerance=wait_tol,
            why=why_stream,
        ),
        Published(
            "single adaptive stream: average rate 739 Mb/s",
            src,
            {"series": ADAPTIVE, **row},
            "send_rate_mbps",
            seed.SINGLE_ADAPTIVE_RATE_MBPS,
            unit="Mb/s",
            tolerance=TOLERANCES["send_rate_mbps"],
            why=why_stream,
        ),
        Published(
            "single adaptive stream: 87 µs between packets",
            src,
            {"series": ADAPTIVE, **row},
            "mean_wait_us",
            seed.SINGLE_ADAPTIVE_WAIT_US,
            unit="µs",
            tolerance=Tolerance(abs=3.0, unit="µs"),
            why=why_stream,
        ),
        Published(
            "a single stream does not fill the switch queue",
            src + ": 'A single stream cannot cause collisions, so the switch queue does not fill'",
            claim="in every single-stream run the switch port toward h0 drops nothing and holds "
            "at most one datagram (8,220 bytes)",
            check=_single_queue_empty,
            why=why_stream,
        ),
        NO_VIOLATIONS,
    ]


def _single_queue_empty(t: pd.DataFrame) -> tuple[bool | None, str]:
    if t.empty:
        return None, "no run"
    drops = float(t["port_drops"].max())
    peak = float(t["port_max_backlog_bytes"].max())
    return bool(drops == 0 and peak <= IP_PACKET_BYTES), (
        f"most drops at the port toward h0 in any run: {drops:.0f}; highest backlog {peak:.0f} B"
    )


def _node1_loss(t: pd.DataFrame, series: str, buffer: str = DEFAULT_BUFFER) -> float:
    sel = t[(t["series"] == series) & (t["buffer"] == buffer) & (t["node"] == 1)]
    return float(sel["pct_lost"].mean()) if len(sel) else math.nan


def _third_of(series_a: str = ADAPTIVE, series_n: str = NON_ADAPTIVE, case: str | None = None):
    """The issue's punctuated verdict: the adaptive primary loses under a
    third of the non-adaptive primary's loss."""

    def check(t: pd.DataFrame) -> tuple[bool | None, str]:
        if case is not None and "case" in t:
            t = t[t["case"] == case]
        shows = []
        result = None
        for buf in [b for b in BUFFERS if b in set(t.get("buffer", []))]:
            a, n = _node1_loss(t, series_a, buf), _node1_loss(t, series_n, buf)
            if math.isnan(a) or math.isnan(n):
                continue
            shows.append(f"{buf}: {series_a} {a:.2f} % against {series_n} {n:.2f} %")
            if buf == DEFAULT_BUFFER:
                result = bool(a < n / 3)
        return result, "; ".join(shows) or "the two series were not both run"

    return check


def _why_ports(t: pd.DataFrame) -> str:
    """What the bottleneck port did per case and series at the default
    buffer."""
    d = t[t["buffer"] == DEFAULT_BUFFER] if "buffer" in t else t
    keys = [k for k in ("case", "series") if k in d]
    parts = []
    for key, g in d.groupby(keys, sort=False):
        one = g[g["node"] == 1]
        name = ", ".join(map(str, key)) if isinstance(key, tuple) else str(key)
        parts.append(
            f"{name}: port drops {g['port_drops'].mean():.0f}, peak backlog "
            f"{g['port_max_backlog_bytes'].mean():.0f} B, peak offered "
            f"{g['peak_offered_wire_mbps'].mean():.1f} Mb/s on the wire, node 1's mean wait "
            f"{one['mean_wait_us'].mean():.1f} µs"
        )
    return "; ".join(parts)


def _punctuated_published() -> list[Published]:
    tables = [seed.TABLE_5_1, seed.TABLE_5_2]
    return [
        bottleneck_published(tables, DEFAULT_BUFFER),
        *table_published(seed.TABLE_5_1),
        *table_published(seed.TABLE_5_2),
        Published(
            "punctuated: the adaptive primary loses under a third of the non-adaptive "
            "primary's loss",
            ISSUE + "; Tables 5.1/5.2: 2.5 % against 24.0 %",
            claim="at the default buffer the adaptive primary's %lost is below a third of the "
            "non-adaptive primary's (every buffer swept shown)",
            check=_third_of(),
            why=_why_ports,
        ),
        _buffer_fit(tables),
        *hypothesis_published(tables, "punctuated", TOLERANCES["pct_lost"]),
        NO_VIOLATIONS,
    ]


def _fair_published() -> list[Published]:
    tables = [seed.TABLE_5_3, seed.TABLE_5_4]
    return [
        bottleneck_published(tables, DEFAULT_BUFFER),
        *table_published(seed.TABLE_5_3),
        *table_published(seed.TABLE_5_4),
        _buffer_fit(tables),
        *hypothesis_published(tables, "fair", TOLERANCES["pct_lost"]),
        NO_VIOLATIONS,
    ]


def _table_5_5_published() -> list[Published]:
    """Table 5.5's waits and rates, beside the non-adaptive streams' mean
    wait and send rate (checks that the streams run the reservations)."""
    out = []
    for node, wait, rate in seed.table_5_5():
        row = {"series": NON_ADAPTIVE, "buffer": DEFAULT_BUFFER, "node": node}
        out.append(
            Published(
                f"Table 5.5, node {node}, inter-packet wait",
                seed.table_5_5_provenance(node, "Inter-packet Wait Time (μ s)"),
                row,
                "mean_wait_us",
                wait,
                unit="µs",
                # The table's waits are whole µs below the rates' exact waits.
                tolerance=Tolerance(abs=1.0, rel=0.02, unit="µs"),
                why=why_stream,
            )
        )
        out.append(
            Published(
                f"Table 5.5, node {node}, send rate",
                seed.table_5_5_provenance(node, "Send Rate (Mbps)"),
                row,
                "send_rate_mbps",
                rate,
                unit="Mb/s",
                tolerance=TOLERANCES["send_rate_mbps"],
                why=why_stream,
            )
        )
    return out


def expected_refused_nodes(run: pd.DataFrame) -> set[int]:
    """The nodes the seed's admission rule refuses in one run: Σu on the
    wire ≤ 1 − reserve (reserve 0) at the port toward the receiver, the
    streams taken in the order they started (the run's own `start_s`; a
    refused stream's scheduled start), ties in node order; u from Table
    5.5's rate, 8,258 wire bytes per 8,192 of payload."""
    rates = {node: rate * 1e6 for node, _w, rate in seed.table_5_5()}
    order = run.sort_values(["start_s", "node"])
    nodes = [int(n) for n in order["node"]]
    refused = expected_refusals([rates[n] for n in nodes])
    return {nodes[i] for i in refused}


def _admission_check(t: pd.DataFrame) -> tuple[bool | None, str]:
    rates = [rate * 1e6 for _n, _w, rate in seed.table_5_5()]
    total = sum(wire_utilization(r) for r in rates)
    adm = t[t["series"].astype(str).str.endswith("admission")]
    if adm.empty:
        return None, "the admission series were not run"
    shows, ok = [], True
    for (s, buf, sd), g in adm.groupby(["series", "buffer", "seed"], sort=False):
        want = expected_refused_nodes(g)
        refused = set(g.loc[~g["admitted"].astype(bool), "node"].astype(int))
        ports = sorted({str(x) for x in g["refused_at"] if x})
        ok &= refused == want and bool(ports)
        order = [int(n) for n in g.sort_values(["start_s", "node"])["node"]]
        others = g[g["admitted"].astype(bool)]
        shows.append(
            f"{s} ({buf}, seed {sd}): start order {order}, the rule refuses {sorted(want)}, "
            f"the simulator refused {sorted(refused) or 'none'} at {ports or 'no port'}; the "
            f"others lose at most {others['pct_lost'].max():.2f} %"
        )
    return ok, (
        f"Table 5.5's reservations ask {total:.4f} of the port on the wire (8,258 bytes per "
        "8,192 of payload), so the last stream to start that does not fit is refused. "
        + "; ".join(shows)
    )


def _unfair_published() -> list[Published]:
    what = "unfair"
    issue_rows = []
    for s in (NON_ADAPTIVE, ADAPTIVE):
        issue_rows.append(_loss_range(s, 1, 25, 50, what))
        issue_rows += [_loss_below(s, n, 5, what) for n in range(2, 7)]
    tables = [seed.TABLE_5_6, seed.TABLE_5_7]
    return [
        bottleneck_published(tables, DEFAULT_BUFFER),
        *_table_5_5_published(),
        *table_published(seed.TABLE_5_6),
        *table_published(seed.TABLE_5_7),
        *issue_rows,
        Published(
            "admission with headers counted refuses what does not fit",
            "issue 21, item 9: 'The payloads sum to 1 Gb/s, so on the wire they offer about "
            "1.008 Gb/s'; the seed's admission rule, Section 4.1",
            claim="with admission on (Σu ≤ 1 on the wire at the port toward h0, in the order "
            "the streams start), the simulator refuses in every run exactly the streams the "
            "rule refuses in that run's start order, names the port, and the rest run",
            check=_admission_check,
            why=_why_ports,
        ),
        _buffer_fit(tables),
        *hypothesis_published(tables, "unfair", TOLERANCES["pct_lost"]),
        NO_VIOLATIONS,
    ]


def _seed_losses(experiment: str) -> dict[str, list[float]]:
    out = {}
    for t in seed.TABLES:
        if t.experiment == experiment:
            out[f"seed {t.series} (Table {t.number})"] = [r.pct_lost for r in t.rows]
    return out


def plot_streams(experiment: str) -> Callable[[Summary, Sequence[Published]], Figure]:
    """%lost per node, fairlab's series at the default buffer beside the
    seed's tables; and node 1's %lost against the switch buffer."""

    def draw(summary: Summary, published: Sequence[Published]) -> Figure:
        from ..plots import figure

        t = summary.table
        fig, (ax, bx) = figure(2, 13, 4.6)
        d = t[t["buffer"] == DEFAULT_BUFFER]
        bars: dict[str, list[float]] = dict(_seed_losses(experiment))
        for s, g in d.groupby("series", sort=False):
            g = g.sort_values("node")
            bars[f"fairlab {s}"] = list(g["pct_lost"].astype(float))
        nodes = sorted(int(n) for n in d["node"].unique()) if len(d) else [1]
        width = 0.8 / max(1, len(bars))
        for i, (label, vals) in enumerate(bars.items()):
            xs = [n + (i - (len(bars) - 1) / 2) * width for n in range(1, len(vals) + 1)]
            ax.bar(xs, vals, width=width, label=label)
        ax.set_yscale("symlog", linthresh=1)
        ax.set_xticks(nodes)
        ax.set_xlabel("node (stream)")
        ax.set_ylabel("% lost")
        ax.set_title(f"{experiment}: loss per stream, {DEFAULT_BUFFER} switch buffer", fontsize=10)
        ax.legend(fontsize=7)
        for s, g in t[t["node"] == 1].groupby("series", sort=False):
            g = g.assign(kib=g["buffer"].map(lambda b: buffer_bytes(b) / 1024)).sort_values("kib")
            bx.plot(g["kib"], g["pct_lost"], marker="o", label=f"fairlab {s}")
        for label, vals in _seed_losses(experiment).items():
            bx.axhline(vals[0], ls="--", lw=1, color="grey")
            bx.annotate(label, (64, vals[0]), fontsize=7, color="grey")
        bx.set_xscale("log", base=2)
        bx.set_yscale("symlog", linthresh=1)
        bx.set_xlabel("switch buffer per port (KiB)")
        bx.set_ylabel("node 1: % lost")
        bx.set_title("node 1's loss against the switch buffer", fontsize=10)
        bx.grid(True, alpha=0.3)
        bx.legend(fontsize=7)
        return fig

    return draw


SENSITIVITY_CASES: list[tuple[str, Callable[[bool, int, str], list[dict[str, Any]]]]] = [
    ("punctuated", lambda q, s, _l: punctuated_streams(q)),
    ("unfair", lambda q, s, _l: unfair_streams(q, s, ADAPTIVE)),
]


def sensitivity_tasks(quick: bool) -> list[Task]:
    """Each case non-adaptive and adaptive under every reading of
    SENSITIVITY (one changed at a time), default buffer. Quick mode: the
    punctuated case only, QUICK_SEEDS, QUICK_SCALE."""
    out = []
    for case, build in SENSITIVITY_CASES[:1] if quick else SENSITIVITY_CASES:
        series = [(NON_ADAPTIVE, False, Readings())] + [(s, True, rd) for s, rd in SENSITIVITY]
        for label, adaptive, rd in series:
            for s in QUICK_SEEDS if quick else SEEDS:
                sc = testbed(
                    f"radon sensitivity, {case}, {label}",
                    build(quick, s, label),
                    adaptive=adaptive,
                    seed=s,
                    readings=rd,
                )
                labels = {"case": case, "series": label, "buffer": DEFAULT_BUFFER, "seed": s}
                out.append(Task(sc, s, labels))
    return out


def _literal_is_wait_min(t: pd.DataFrame) -> tuple[bool | None, str]:
    lit = "wait: seed-literal clamp"
    shows, ok = [], True
    for case, g in t.groupby("case", sort=False):
        a = g[g["series"] == lit].groupby("node")["mean_wait_us"].mean()
        n = g[g["series"] == NON_ADAPTIVE].groupby("node")["mean_wait_us"].mean()
        if a.empty or n.empty:
            continue
        dev = ((a - n).abs() / n).max()
        ok &= bool(dev <= 0.01)
        shows.append(f"{case}: largest difference of a stream's mean wait {100 * dev:.2f} %")
    if not shows:
        return None, "the seed-literal series was not run"
    return ok, "; ".join(shows)


def _sensitivity_published() -> list[Published]:
    out = [
        Published(
            "the seed-literal clamp leaves every wait at wait_min",
            "issue 21, item 5: 'The seed writes the clamp on the change, which is never positive'",
            claim="under the seed-literal reading each adaptive stream's mean wait equals the "
            "non-adaptive wait (the reservation's) within 1 %",
            check=_literal_is_wait_min,
            why=_why_ports,
        )
    ]
    for label, _rd in SENSITIVITY:
        out.append(
            Published(
                f"punctuated, {label}: adaptive primary under a third of the non-adaptive loss",
                ISSUE + "; Tables 5.1/5.2",
                claim=f"with '{label}', the adaptive primary's %lost is below a third of the "
                "non-adaptive primary's",
                check=_third_of(label, NON_ADAPTIVE, case="punctuated"),
                why=_why_ports,
            )
        )
    out.append(NO_VIOLATIONS)
    return out


def plot_sensitivity(summary: Summary, published: Sequence[Published]) -> Figure:
    from ..plots import figure

    t = summary.table
    cases = list(t["case"].unique()) if len(t) else ["none"]
    fig, axes = figure(len(cases), 13, 4.4)
    for ax, case in zip(axes, cases, strict=True):
        g = t[t["case"] == case]
        series = list(g["series"].unique())
        one = [float(g[(g["series"] == s) & (g["node"] == 1)]["pct_lost"].mean()) for s in series]
        rest = [float(g[(g["series"] == s) & (g["node"] != 1)]["pct_lost"].mean()) for s in series]
        xs = range(len(series))
        ax.bar([x - 0.2 for x in xs], one, width=0.4, label="node 1")
        ax.bar([x + 0.2 for x in xs], rest, width=0.4, label="nodes 2-6 (mean)")
        ax.set_xticks(list(xs))
        ax.set_xticklabels(series, rotation=30, ha="right", fontsize=7)
        ax.set_yscale("symlog", linthresh=1)
        ax.set_ylabel("% lost")
        ax.set_title(f"{case}: loss under each reading", fontsize=10)
        ax.legend(fontsize=7)
    return fig


def bounds_tasks(quick: bool) -> list[Task]:
    """The table experiments' runs at the default buffer, and the Radon
    incast at the largest N: the same scenarios, so a results store holds
    them once."""
    out = []
    for make in (single_tasks, punctuated_tasks, fair_tasks, unfair_tasks):
        out += [t for t in make(quick) if t.labels["buffer"] == DEFAULT_BUFFER]
    n = max(QUICK_INCAST_SERVERS if quick else INCAST_SERVERS)
    for label, adaptive, response in QUICK_RADON_SERIES if quick else RADON_SERIES:
        rounds = QUICK_INCAST_ROUNDS if quick else INCAST_ROUNDS
        sc = incast_radon_scenario(n, adaptive=adaptive, response=response, rounds=rounds)
        out.append(
            Task(
                sc, 1, {"case": f"incast-{n}", "series": label, "buffer": INCAST_BUFFER, "seed": 1}
            )
        )
    return out


def summarize_bounds(tasks: Sequence[Task], results: Sequence[Result]) -> Summary:
    """One row per run and port with Radon streams: the bound and what the
    run measured."""
    rows = []
    for t, r in zip(tasks, results, strict=True):
        pb = run_table(r, "port_bounds")
        for _, b in pb.iterrows():
            row = {**t.labels, "port": str(b["port"])}
            for c in (
                "streams",
                "sum_u",
                "backlog_bound_bytes",
                "max_backlog_bytes",
                "delay_bound_us",
                "max_delay_us",
            ):
                row[c] = float(b[c])
            row["status"] = str(b["status"])
            row["bound_violations"] = int(str(b["status"]) == "violated")
            rows.append(row)
    samples = pd.DataFrame(rows)
    return Summary(samples, samples=samples)


def _admitted_bounded(t: pd.DataFrame) -> tuple[bool | None, str]:
    adm = t[t["series"].astype(str).str.contains("admission") | t["case"].str.startswith("incast")]
    if adm.empty:
        return None, "no run with admission on"
    counts = adm["status"].value_counts().to_dict()
    return bool(set(counts) <= {"ok"}), f"port status over the runs with admission: {counts}"


def _why_unbounded(t: pd.DataFrame) -> str:
    """The ports of the runs with admission that were not "ok"."""
    adm = t[t["series"].astype(str).str.contains("admission") | t["case"].str.startswith("incast")]
    bad = adm[adm["status"] != "ok"]
    return "; ".join(
        f"{r['case']}, {r['series']}, seed {r['seed']}, port {r['port']}: {r['status']} "
        f"({r['streams']:.0f} streams, Σu {r['sum_u']:.4f})"
        for _, r in bad.iterrows()
    )


def _bounds_published() -> list[Published]:
    return [
        NO_VIOLATIONS,
        HYPOTHESIS_BOUNDS,
        Published(
            "with admission on, every port has a finite bound",
            "issue 21, item 7: admitted reservations sum to at most the port, so Σr ≤ R",
            claim="every port of every run with admission on has status 'ok' (not 'unstable')",
            check=_admitted_bounded,
            why=_why_unbounded,
        ),
    ]


def plot_bounds(summary: Summary, published: Sequence[Published]) -> Figure:
    from ..plots import figure

    t = summary.table
    fig, (ax,) = figure(1, 9, 5)
    ok = t[t["backlog_bound_bytes"].astype(float) > 0] if len(t) else t
    for status, g in ok.groupby("status"):
        ax.scatter(g["backlog_bound_bytes"], g["max_backlog_bytes"], s=18, label=status)
    if len(ok):
        hi = float(max(ok["backlog_bound_bytes"].max(), ok["max_backlog_bytes"].max(), 1.0))
        ax.plot([1, hi], [1, hi], color="grey", lw=1, ls="--", label="bound = measured")
    ax.set_xscale("log")
    ax.set_yscale("symlog", linthresh=1000)
    ax.set_xlabel("backlog bound (bytes)")
    ax.set_ylabel("measured maximum backlog (bytes)")
    ax.set_title("Every port of every run: measured backlog against its bound", fontsize=10)
    ax.legend(fontsize=7)
    return fig


EXPERIMENTS = [
    Experiment(
        name="single",
        reproduces="Section 5.2, Figures 5.2/5.3: one stream, 765 Mb/s, non-adaptive and adaptive",
        setup=setup_text(
            f"One stream h1 -> h0 at 765 Mb/s (84 µs in the seed), {single_packets()} datagrams "
            f"({SINGLE_DURATION_S:g} s: the figures give no count)."
        ),
        tasks=single_tasks,
        kernel_tasks=_kernel(single_tasks),
        summarize=summarize_streams,
        published=_single_published(),
        quick=QUICK_TEXT,
        plot=plot_streams("single"),
    ),
    Experiment(
        name="punctuated",
        reproduces="Section 5.3, Tables 5.1/5.2: a 749 Mb/s primary punctuated by five 250 Mb/s "
        "bursts",
        setup=setup_text(
            "The primary h1 -> h0 at 749 Mb/s (86 µs) sends 23,223 datagrams (Table 5.1: "
            "received + lost); five bursts h2..h6 at 250 Mb/s (257 µs), 500 datagrams each, in "
            "turn. The seed gives no start times: from the counts and rates the primary lives "
            "2.032 s and a burst 131 ms, and the bursts are spread evenly over the primary's "
            "life (equal gaps of 229 ms before, between and after; burst k starts at "
            "0.229 + 0.361·k s). " + SETUP_TEXT
        ),
        tasks=punctuated_tasks,
        kernel_tasks=_kernel(punctuated_tasks),
        summarize=summarize_streams,
        published=_punctuated_published(),
        quick=QUICK_TEXT,
        plot=plot_streams("punctuated"),
    ),
    Experiment(
        name="fair",
        reproduces="Section 5.4, Tables 5.3/5.4: six fair-share streams at 163 Mb/s",
        setup=setup_text(
            "Six clients h1..h6 -> h0 at 163 Mb/s each (394 µs; the tables' send rates), 5,076 "
            f"datagrams each, starting within {START_SPREAD_S * 1e3:g} ms of one another at "
            "seeded instants. " + SETUP_TEXT
        ),
        tasks=fair_tasks,
        kernel_tasks=_kernel(fair_tasks),
        summarize=summarize_streams,
        published=_fair_published(),
        quick=QUICK_TEXT,
        plot=plot_streams("fair"),
    ),
    Experiment(
        name="unfair",
        reproduces="Section 5.5, Tables 5.5-5.7: six unfair streams, 500 to 31.25 Mb/s, and what "
        "admission control does",
        setup=setup_text(
            "Six clients at Table 5.5's reservations (500, 250, 125, 62.5, 31.25, 31.25 Mb/s), "
            "each sending its row's count of Table 5.6 (non-adaptive) or 5.7 (adaptive), starting "
            f"within {START_SPREAD_S * 1e3:g} ms. Their payloads sum to 1 Gb/s, 1.008 Gb/s on the "
            "wire: the extra series turn admission on (headers counted). " + SETUP_TEXT
        ),
        tasks=unfair_tasks,
        kernel_tasks=_kernel(unfair_tasks),
        summarize=summarize_streams,
        published=_unfair_published(),
        quick=QUICK_TEXT,
        plot=plot_streams("unfair"),
    ),
    QUEUE_MODELS,
    TIMESTAMPS,
    Experiment(
        name="sensitivity",
        reproduces="The seed's ambiguities: wait reading, wait_min, %budget, capture point",
        setup=setup_text(
            "The punctuated and unfair experiments (default buffer), non-adaptive and adaptive "
            "under each reading, one changed at a time: "
            + "; ".join(label for label, _ in SENSITIVITY)
            + "."
        ),
        tasks=sensitivity_tasks,
        summarize=summarize_streams,
        published=_sensitivity_published(),
        quick=f"the punctuated case only, seed {QUICK_SEEDS[0]}, {QUICK_SCALE:g} of the datagrams",
        plot=plot_sensitivity,
    ),
    INCAST,
    Experiment(
        name="bounds",
        reproduces="Issue 21, item 7: the network-calculus bounds against the measured maximum "
        "backlog, every experiment",
        setup=(
            "Every run of the single, punctuated, fair and unfair experiments at the default "
            "buffer and the Radon incast at the largest N: per switch and host port with Radon "
            "streams, the backlog and delay bounds the simulator computed (token buckets b + r·t "
            "into a rate-latency server) beside the maximum backlog and delay it measured."
        ),
        tasks=bounds_tasks,
        summarize=summarize_bounds,
        published=_bounds_published(),
        quick="the quick runs of those experiments",
        plot=plot_bounds,
    ),
]

STUDY = Study(
    name="radon",
    title="Radon: RAD reservations on a network, and the seed's Chapter 5",
    source=SOURCE,
    doc="docs/radon.md",
    experiments=EXPERIMENTS,
)
