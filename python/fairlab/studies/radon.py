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

Every choice the seed leaves open is a named constant or a
:class:`Readings` field here and a paragraph of docs/radon.md ("Readings of
the seed"). The simulator produces the tables read here (`streams`,
`radon_series`, `port_bounds`; docs/radon.md, "Tables").
"""

from __future__ import annotations

import math
import random
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from fractions import Fraction
from typing import TYPE_CHECKING, Any

import pandas as pd

from ..runner import Task
from ..scenarios import incast as incast_scenario
from ..units import format_time, parse_buffer
from . import radon_seed as seed
from .base import Experiment, Published, Study, Summary, Tolerance

if TYPE_CHECKING:
    from matplotlib.figure import Figure

    from ..result import Result

SOURCE = "The Radon proposal (RAD on Networks), source document 004, Chapter 5"
ISSUE = "issue 21's verdict ('What it must show')"
ISSUE_ITEM3 = (
    "issue 21, item 3: measured on this machine kind between two namespaces at 100 µs spacing "
    "(the timestamp-noise model's calibration target)"
)

# ---------------------------------------------------------------------------
# The testbed (seed Section 5.1) and what the seed leaves open.

#: 1 GbE everywhere.
LINK_RATE = "1Gbps"
CAPACITY_BPS = 1e9
#: The UDP payload of every datagram (8 KiB, the filesystem block size).
PAYLOAD_BYTES = 8192
#: UDP (8) and IPv4 (20) headers: a datagram of 8,192 bytes is an 8,220-byte
#: IP packet, the scenario's `packet_size`.
UDP_IP_BYTES = 28
IP_PACKET_BYTES = PAYLOAD_BYTES + UDP_IP_BYTES
#: What Ethernet adds on the wire to an IP packet: header 14, FCS 4,
#: preamble 8, inter-frame gap 12. 8,192 payload bytes are 8,258 wire bytes.
ETHERNET_BYTES = 38
WIRE_BYTES = IP_PACKET_BYTES + ETHERNET_BYTES
PAYLOAD_BITS = PAYLOAD_BYTES * 8
#: The 82541PI's transmit descriptors as the seed set them (Section 5.1):
#: the host's transmit ring. (Its 4,096 receive descriptors are not
#: modelled: the simulator's receiver takes every packet the wire delivers.)
TX_DESCRIPTORS = 80
#: The hosts: h0 is the receiver (UDPmon's server), h1..h6 the six clients
#: (the tables' nodes 1..6); all on one switch `sw`.
RECEIVER = "h0"
SWITCH = "sw"
HOSTS = [RECEIVER] + [f"h{i}" for i in range(1, 7)]
#: Propagation per link. The seed gives no cable lengths: a short machine-
#: room cable (about 200 m of copper) is 1 µs; at 8 KiB frames (66 µs on
#: the wire) it does not matter.
LINK_DELAY = "1us"
#: The switch's per-port buffer. The seed does not give the Summit
#: 400-24t's: 256 KiB (31 frames of 8,220 bytes) is the default and every
#: table experiment sweeps BUFFERS.
DEFAULT_BUFFER = "256KiB"
BUFFERS = ["64KiB", "128KiB", "256KiB", "512KiB", "1MiB"]
#: The RAD period of every reservation. The seed never states the
#: prototype's period; 10 ms is the design's example.
PERIOD = "10ms"
#: The response and the model that drives it in the adaptive runs: the
#: prototype's rate-based Percent-Budget on the median-filter model
#: (Sections 4.4, 5.3: "adapt their inter-packet wait time according to
#: the median-filter queue depth model").
RESPONSE = "percent_budget_rate"
MODEL = "median5"
#: How long each run may last at most. The streams stop after their
#: datagrams (UDPmon's -l); the seed's adaptive bursts sent 500 datagrams at
#: 1.476 Mb/s, 22 s, so the cap is above that.
DURATION_CAP_S = 30
#: Streams that run together start within this much of one another, at
#: instants drawn from the run's seed. The seed does not say how its six
#: clients were started; exactly together would put their paced datagrams
#: in lockstep, which no set of hosts started by hand does.
START_SPREAD_S = 1e-3
#: The unstated duration of the single-stream runs (Figures 5.2/5.3 give no
#: packet count): 2 s, as the tables' runs ("approximately the same two
#: second interval", Section 5.5).
SINGLE_DURATION_S = 2.0
#: Quick mode sends this share of every stream's datagrams (and schedules
#: the punctuated bursts from the shortened counts): 0.5 s instead of 2 s.
QUICK_SCALE = 0.25
SEEDS = [1, 2, 3]
QUICK_SEEDS = [1]


@dataclass(frozen=True)
class Readings:
    """How a run reads what the seed leaves open in the rate response and
    the timestamps (docs/radon.md, "Readings of the seed"); the defaults are
    the study's readings, the others its sensitivity series.

    * ``wait``: "halfway" moves the wait halfway toward wait_op and clamps
      the result to [wait_min, wait_max] (the evident intent); "seed_literal"
      clamps the change itself, which is never positive, so the wait is
      always wait_min.
    * ``wait_min``: "reservation" is the wait of the reservation's own rate,
      L/(u·C) (what the tables imply: 131 µs for 500 Mb/s); "line_rate" the
      fastest the link allows, L/C.
    * ``budget``: "remaining" computes %budget with e′, the budget left in
      the period (the seed's definition through %laxity); "full" with e, as
      the seed's shorthand e/(d − t) writes it.
    * ``stamp``: where the hosts take their timestamps: "nic", "socket" (the
      default: the kernel's receive timestamp, which the seed found close to
      the true arrival) or "application" (user space, as UDPmon's TSC).
    """

    wait: str = "halfway"
    wait_min: str = "reservation"
    budget: str = "remaining"
    stamp: str = "socket"

    def radon_keys(self) -> dict[str, Any]:
        """The `[radon]` keys of this reading: the capture point always,
        the three response readings only where they differ from the default
        (so the default scenario uses the design's keys only)."""
        keys: dict[str, Any] = {"stamp": self.stamp}
        default = Readings()
        for attr, key in READING_KEYS.items():
            if getattr(self, attr) != getattr(default, attr):
                keys[key] = getattr(self, attr)
        return keys


#: The `[radon]` keys of the three response readings. The shared design
#: names the readings (WaitReading, BudgetReading, wait_min) but not their
#: scenario keys: these are the study's proposal (docs/radon.md).
READING_KEYS = {"wait": "wait_reading", "wait_min": "wait_min", "budget": "budget"}

#: The sensitivity series: one reading changed at a time.
SENSITIVITY = [
    ("default readings", Readings()),
    ("wait: seed-literal clamp", Readings(wait="seed_literal")),
    ("wait_min: line rate", Readings(wait_min="line_rate")),
    ("%budget with e (full budget)", Readings(budget="full")),
    ("stamps: nic", Readings(stamp="nic")),
    ("stamps: application", Readings(stamp="application")),
]

NON_ADAPTIVE = "non-adaptive"
ADAPTIVE = "adaptive"


# ---------------------------------------------------------------------------
# Scenario builders.


def rate_text(rate_bps: float) -> str:
    """A rate as the scenario takes it: "765Mbps", "31.25Mbps", or whole
    bits per second where Mb/s would need more than six digits."""
    mbps = rate_bps / 1e6
    short = f"{mbps:g}"
    if float(short) * 1e6 == rate_bps:
        return f"{short}Mbps"
    return f"{round(rate_bps)}bps"


def _time_text(seconds: float) -> str:
    """A start instant, rounded to the nanosecond."""
    return format_time(Fraction(round(seconds * 1e9), 10**9))


def radon_stream(
    src: str,
    *,
    rate_bps: float,
    packets: int,
    start_s: float = 0.0,
    dst: str = RECEIVER,
    packet_bytes: int = IP_PACKET_BYTES,
    radon: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """One Radon stream (a `[[workload]]`): ``packets`` datagrams of
    ``packet_bytes`` (IP) from ``src`` to ``dst``, reserving ``rate_bps`` of
    payload per PERIOD, from ``start_s``; ``radon`` overrides `[radon]`."""
    w: dict[str, Any] = {
        "kind": "udp",
        "transport": "radon",
        "src": src,
        "dst": dst,
        "rate": rate_text(rate_bps),
        "period": PERIOD,
        "packet_size": f"{packet_bytes}B",
        "start": _time_text(start_s),
        "packets": int(packets),
    }
    if radon:
        w["radon"] = dict(radon)
    return w


def radon_table(
    *, adaptive: bool, readings: Readings = Readings(), admission: bool = False, **more: Any
) -> dict[str, Any]:
    """The `[radon]` table: the prototype's response and model, the
    reading's keys, admission as asked (off for the seed's runs: its
    prototype had none, and its punctuated and unfair runs over-subscribe
    the port on the wire)."""
    t: dict[str, Any] = {
        "adaptive": adaptive,
        "response": RESPONSE,
        "model": MODEL,
        "admission": admission,
        "reserve": 0.0,
    }
    t.update(readings.radon_keys())
    t.update(more)
    return t


def testbed(
    name: str,
    streams: Sequence[dict[str, Any]],
    *,
    adaptive: bool,
    buffer: str = DEFAULT_BUFFER,
    seed: int = 1,
    readings: Readings = Readings(),
    admission: bool = False,
    series: bool = False,
) -> dict[str, Any]:
    """The seed's testbed as a scenario: h0..h6 on one store-and-forward
    switch, 1 GbE, a drop-tail ``buffer`` per switch port, an 80-descriptor
    transmit ring on every host; ``streams`` from :func:`radon_stream`.
    ``series`` asks for the per-datagram `radon_series` table."""
    sc: dict[str, Any] = {
        "name": name,
        "seed": seed,
        "duration": f"{DURATION_CAP_S}s",
        "topology": {"kind": "star", "hosts": list(HOSTS), "rate": LINK_RATE, "delay": LINK_DELAY},
        "queue": {"discipline": "droptail", "limit": buffer},
        "host": {"ring": TX_DESCRIPTORS},
        "radon": radon_table(adaptive=adaptive, readings=readings, admission=admission),
        "workload": [dict(s) for s in streams],
    }
    if series:
        sc["metrics"] = {"radon_series": True}
    return sc


def _scaled(packets: int, quick: bool) -> int:
    return max(1, round(packets * QUICK_SCALE)) if quick else packets


def _starts(seed_: int, count: int) -> list[float]:
    """Start instants within START_SPREAD_S, drawn from the run's seed
    (string-seeded: the same on every machine and Python)."""
    rng = random.Random(f"radon-starts-{seed_}")
    return [rng.uniform(0.0, START_SPREAD_S) for _ in range(count)]


def single_packets(quick: bool = False) -> int:
    """Datagrams of the single stream: SINGLE_DURATION_S at 765 Mb/s."""
    full = round(seed.SINGLE_RATE_MBPS * 1e6 * SINGLE_DURATION_S / PAYLOAD_BITS)
    return _scaled(full, quick)


def single_streams(quick: bool = False) -> list[dict[str, Any]]:
    """Section 5.2: one stream h1 -> h0 at 765 Mb/s."""
    return [radon_stream("h1", rate_bps=seed.SINGLE_RATE_MBPS * 1e6, packets=single_packets(quick))]


def burst_starts_s(
    primary_packets: int,
    burst_packets: int,
    primary_mbps: float = seed.PUNCTUATED_PRIMARY_MBPS,
    burst_mbps: float = seed.PUNCTUATED_BURST_MBPS,
    bursts: int = 5,
) -> list[float]:
    """When the punctuated experiment's bursts start, derived from the
    tables' counts: the primary sends ``primary_packets`` (Table 5.1:
    17,571 + 5,652 = 23,223) at its rate, so it lives
    23,223 × 65,536 bits / 749 Mb/s = 2.032 s; each burst sends
    ``burst_packets`` (481 + 19 = 500) at 250 Mb/s, 131 ms. The seed says
    only that the bursts come "in turn" and "throughout its lifetime": they
    are spread evenly, equal gaps before, between and after them."""
    primary_s = primary_packets * PAYLOAD_BITS / (primary_mbps * 1e6)
    burst_s = burst_packets * PAYLOAD_BITS / (burst_mbps * 1e6)
    gap_s = (primary_s - bursts * burst_s) / (bursts + 1)
    if gap_s < 0:
        raise ValueError("the bursts do not fit in the primary's life")
    return [gap_s + k * (burst_s + gap_s) for k in range(bursts)]


def punctuated_streams(quick: bool = False) -> list[dict[str, Any]]:
    """Section 5.3, Tables 5.1/5.2: the primary h1 at 749 Mb/s and five
    bursts h2..h6 at 250 Mb/s, 500 datagrams each, in turn. Both series use
    Table 5.1's counts (the adaptive run of Table 5.2 sent 32 datagrams
    more, 23,255, within the same schedule)."""
    t = seed.TABLE_5_1
    primary = _scaled(t.row(1).num_sent, quick)
    burst = _scaled(t.row(2).num_sent, quick)
    starts = burst_starts_s(primary, burst)
    out = [radon_stream("h1", rate_bps=seed.PUNCTUATED_PRIMARY_MBPS * 1e6, packets=primary)]
    for k, s in enumerate(starts):
        out.append(
            radon_stream(
                f"h{k + 2}", rate_bps=seed.PUNCTUATED_BURST_MBPS * 1e6, packets=burst, start_s=s
            )
        )
    return out


def fair_streams(quick: bool = False, seed_: int = 1) -> list[dict[str, Any]]:
    """Section 5.4, Tables 5.3/5.4: six clients h1..h6 at 163 Mb/s (the
    tables' send rates, 163.0-163.2 Mb/s at a 394 µs wait; the text's 166
    Mb/s is the nominal sixth of the link), 5,076 datagrams each (every row
    of both tables: received + lost)."""
    n = _scaled(seed.TABLE_5_3.row(1).num_sent, quick)
    starts = _starts(seed_, 6)
    return [
        radon_stream(f"h{i}", rate_bps=seed.FAIR_TABLE_MBPS * 1e6, packets=n, start_s=starts[i - 1])
        for i in range(1, 7)
    ]


def unfair_streams(quick: bool = False, seed_: int = 1, series: str = NON_ADAPTIVE):
    """Section 5.5: Table 5.5's six reservations (500 / 250 / 125 / 62.5 /
    31.25 / 31.25 Mb/s), each sending what its row of Table 5.6
    (non-adaptive) or 5.7 (adaptive) counts, received + lost."""
    t = seed.table("unfair", NON_ADAPTIVE if series.startswith(NON_ADAPTIVE) else ADAPTIVE)
    starts = _starts(seed_, 6)
    return [
        radon_stream(
            f"h{node}",
            rate_bps=rate * 1e6,
            packets=_scaled(t.row(node).num_sent, quick),
            start_s=starts[node - 1],
        )
        for node, _wait, rate in seed.table_5_5()
    ]


def wire_utilization(rate_bps: float, packet_bytes: int = IP_PACKET_BYTES) -> float:
    """A payload rate's share of the 1 GbE link counting every byte on the
    wire (payload 8,192 -> 8,258 wire bytes)."""
    payload = packet_bytes - UDP_IP_BYTES
    return rate_bps * (packet_bytes + ETHERNET_BYTES) / payload / CAPACITY_BPS


def expected_refusals(rates_bps: Sequence[float], reserve: float = 0.0) -> list[int]:
    """Which streams (0-based, in the order given) admission control refuses
    at one port, by the seed's rule as issue 21 states it: Σu ≤ 1 − reserve
    with u on the wire, streams admitted in order, a refused one reserving
    nothing. An arithmetic of the rule, independent of the simulator's, that
    the unfair experiment checks the simulator against."""
    total = 0.0
    refused = []
    for i, r in enumerate(rates_bps):
        u = wire_utilization(r)
        if total + u <= 1.0 - reserve + 1e-12:
            total += u
        else:
            refused.append(i)
    return refused


# ---------------------------------------------------------------------------
# Reading a run's tables.


class RadonTablesMissing(RuntimeError):
    """A run without the tables a Radon run produces."""


def _table(r: Result, name: str) -> pd.DataFrame:
    if name not in r.tables:
        raise RadonTablesMissing(
            f"the run has no {name!r} table: this simulator does not produce the Radon tables "
            "(docs/radon.md, 'Tables')"
        )
    return r.tables[name]


def port_of(text: str) -> tuple[str, str]:
    """(node, peer) of a port as a table names it: "sw:h0", "sw->h0"."""
    parts = [p for p in re.split(r"[^A-Za-z0-9_]+", str(text)) if p]
    if len(parts) < 2:
        return (str(text), "")
    return (parts[0], parts[-1])


def _port_row(ports: pd.DataFrame, node: str, peer: str) -> pd.Series | None:
    m = ports[(ports["node"] == node) & (ports["peer"] == peer)]
    return None if m.empty else m.iloc[0]


def _bound_row(bounds: pd.DataFrame, node: str, peer: str) -> pd.Series | None:
    for _, b in bounds.iterrows():
        if port_of(b["port"]) == (node, peer):
            return b
    return None


def node_of(host: str) -> int:
    """The tables' node number of a host: h3 -> 3, s12 -> 12."""
    m = re.search(r"(\d+)$", str(host))
    return int(m.group(1)) if m else -1


def wire_factor(packet_bytes: int = IP_PACKET_BYTES) -> float:
    """Wire bytes per payload byte: 8,258 / 8,192 for 8 KiB datagrams."""
    return (packet_bytes + ETHERNET_BYTES) / (packet_bytes - UDP_IP_BYTES)


def peak_offered_wire_mbps(streams: pd.DataFrame, factor: float) -> float:
    """The most the admitted streams offered together on the wire: at each
    stream's start, the sum of the send rates of those then sending."""
    s = streams[streams["admitted"].astype(bool)]
    if s.empty:
        return 0.0
    peak = 0.0
    for t in s["start_s"].astype(float):
        on = s[(s["start_s"].astype(float) <= t) & (s["stop_s"].astype(float) > t)]
        peak = max(peak, float(on["send_rate_mbps"].astype(float).sum()) * factor)
    return peak


STREAM_COLUMNS = (
    "send_rate_mbps",
    "num_sent",
    "num_recv",
    "num_lost",
    "pct_lost",
    "recv_rate_mbps",
    "recv_wire_rate_mbps",
    "mean_wait_us",
    "final_wait_us",
)


def stream_rows(task: Task, r: Result) -> list[dict[str, Any]]:
    """One row per Radon stream of a run: the task's labels, the node, the
    `streams` table's columns, and what explains its losses: the switch
    port toward its receiver (drops, peak backlog, its buffer, the bound and
    its status), the sender's own NIC queue drops, the peak offered wire
    load, and the run's bound violations."""
    st = _table(r, "streams")
    bounds = _table(r, "port_bounds")
    ports = r.ports
    packet = int(task.labels.get("packet_bytes", IP_PACKET_BYTES))
    peak = peak_offered_wire_mbps(st, wire_factor(packet))
    rows = []
    for _, s in st.iterrows():
        dst, src = str(s["dst"]), str(s["src"])
        port = _port_row(ports, SWITCH, dst)
        host = _port_row(ports, src, SWITCH)
        bound = _bound_row(bounds, SWITCH, dst)
        row: dict[str, Any] = {**task.labels, "node": node_of(src)}
        row["admitted"] = bool(s["admitted"])
        row["refused_at"] = "" if pd.isna(s["refused_at"]) else str(s["refused_at"])
        for c in STREAM_COLUMNS:
            row[c] = float(s[c])
        row["port_drops"] = float(port["drop_pkts"]) if port is not None else math.nan
        row["port_max_backlog_bytes"] = float(port["max_bytes"]) if port is not None else math.nan
        row["buffer_bytes"] = _buffer_bytes(task.labels.get("buffer"))
        row["host_drops"] = float(host["drop_pkts"]) if host is not None else math.nan
        row["peak_offered_wire_mbps"] = peak
        row["backlog_bound_bytes"] = (
            float(bound["backlog_bound_bytes"]) if bound is not None else math.nan
        )
        row["bound_status"] = str(bound["status"]) if bound is not None else ""
        row["bound_violations"] = int(r.summary.get("bound_violations", 0))
        rows.append(row)
    return rows


def _buffer_bytes(buffer: Any) -> float:
    if not buffer:
        return math.nan
    count, unit = parse_buffer(str(buffer))
    return float(count if unit == "bytes" else count * IP_PACKET_BYTES)


def _group(samples: pd.DataFrame, keys: Sequence[str]) -> pd.DataFrame:
    """Per-seed rows averaged per ``keys``: numbers by their mean, whether
    admitted by all, the refusing port and bound status as seen, the seeds."""
    keys = [k for k in keys if k in samples.columns]
    skip = {*keys, "seed"}
    numeric = [
        c
        for c in samples.columns
        if c not in skip
        and pd.api.types.is_numeric_dtype(samples[c])
        and not pd.api.types.is_bool_dtype(samples[c])
    ]
    g = samples.groupby(keys, sort=False)
    table = g[numeric].mean()
    if "admitted" in samples:
        table["admitted"] = g["admitted"].all()
    for c in ("refused_at", "bound_status"):
        if c in samples:
            table[c] = g[c].agg(lambda s: "/".join(sorted({x for x in s if x})))
    table["seeds"] = g["seed"].nunique() if "seed" in samples else 1
    return table.reset_index()


STREAM_KEYS = ["case", "series", "buffer", "node"]


def summarize_streams(tasks: Sequence[Task], results: Sequence[Result]) -> Summary:
    """The seed's table layout: one row per (series, buffer, node), mean
    over seeds; the per-seed rows are the samples the verdicts read."""
    rows = [row for t, r in zip(tasks, results, strict=True) for row in stream_rows(t, r)]
    samples = pd.DataFrame(rows)
    return Summary(_group(samples, STREAM_KEYS), samples=samples)


# ---------------------------------------------------------------------------
# Published rows: every cell of the seed's tables, the issue's verdicts.

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


def _mean(sel: pd.DataFrame, col: str) -> float:
    return float(sel[col].astype(float).mean()) if col in sel and len(sel) else math.nan


def why_stream(sel: pd.DataFrame) -> str:
    """Why a stream's number departs, from the run's own tables: whether it
    was admitted, what the switch port toward its receiver dropped and held
    against its buffer, what the streams offered, what the sender's own NIC
    queue dropped, and the stream's mean wait."""
    if sel.empty:
        return ""
    n = int(sel["seed"].nunique()) if "seed" in sel else 1
    if "admitted" in sel and not bool(sel["admitted"].all()):
        at = "/".join(sorted({str(x) for x in sel["refused_at"] if x}))
        return f"admission refused this stream at port {at}: it never started"
    parts = [
        f"in this run ({n} seed(s)) the switch port toward the receiver dropped "
        f"{_mean(sel, 'port_drops'):.0f} datagrams of all streams, its backlog peaked at "
        f"{_mean(sel, 'port_max_backlog_bytes'):.0f} of {_mean(sel, 'buffer_bytes'):.0f} bytes, "
        f"the streams offered at most {_mean(sel, 'peak_offered_wire_mbps'):.1f} Mb/s on the wire",
        f"the sender's NIC queue dropped {_mean(sel, 'host_drops'):.0f}",
        f"this stream lost {_mean(sel, 'num_lost'):.0f} of {_mean(sel, 'num_sent'):.0f} "
        f"at a mean wait of {_mean(sel, 'mean_wait_us'):.1f} µs "
        f"(last {_mean(sel, 'final_wait_us'):.1f} µs)",
    ]
    if _mean(sel, "port_drops") == 0 and _mean(sel, "host_drops") == 0:
        parts.append(
            "nothing in the modelled testbed overflowed, so a loss the seed measured came from "
            "what the model leaves out (its hosts' receive path and its switch's internals; the "
            "seed's switch counted no drops, Section 5.3)"
        )
    return "; ".join(parts)


def table_published(t: seed.SeedTable, buffer: str = DEFAULT_BUFFER) -> list[Published]:
    """Every cell of one of the seed's tables, with its provenance, beside
    fairlab's row of the same series and node at ``buffer``."""
    return [
        Published(
            f"Table {t.number}, node {r.node}, {seed.HEADINGS[col]}",
            t.provenance(r.node, col),
            {"series": t.series, "buffer": buffer, "node": r.node},
            col,
            r.value(col),
            unit=seed.UNITS[col],
            tolerance=TOLERANCES[col],
            why=why_stream,
        )
        for r in t.rows
        for col in seed.COLUMNS
    ]


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
        why=why_stream,
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
        why=why_stream,
    )


#: What identifies one run (and, in the bounds table, one port of it).
RUN_KEYS = ("case", "series", "buffer", "servers", "seed", "port")


def _runs(t: pd.DataFrame) -> pd.DataFrame:
    """One row per run (per port where the table has ports): the stream
    tables repeat a run's figures on each of its streams' rows."""
    return t.drop_duplicates([c for c in RUN_KEYS if c in t])


def _no_violations(t: pd.DataFrame) -> tuple[bool | None, str]:
    if "bound_violations" not in t or t.empty:
        return None, "no run reported its bounds"
    v = _runs(t)
    total = int(v["bound_violations"].sum())
    col = "bound_status" if "bound_status" in t else "status"
    status = sorted({s for x in t.get(col, []) for s in str(x).split("/") if s})
    return total == 0, (
        f"{total} violated port bound(s) over {len(v)} row(s) of runs; port status seen: "
        + (", ".join(status) or "none")
    )


def _why_violations(t: pd.DataFrame) -> str:
    """Which runs held more than a bound, and by how much where the table
    has the port's figures."""
    bad = _runs(t[t["bound_violations"] > 0]) if "bound_violations" in t else t.iloc[0:0]
    parts = []
    for _, r in bad.iterrows():
        where = ", ".join(f"{k} {r[k]}" for k in RUN_KEYS if k in r.index)
        peak = r.get("port_max_backlog_bytes", r.get("max_backlog_bytes", math.nan))
        bound = r.get("backlog_bound_bytes", math.nan)
        parts.append(
            f"{where}: {int(r['bound_violations'])} port(s) held more than their bound "
            f"(peak {float(peak):.0f} B against a bound of {float(bound):.0f} B)"
        )
    return "; ".join(parts)


NO_VIOLATIONS = Published(
    "zero network-calculus bound violations in every run",
    ISSUE + " and issue 21, item 7",
    claim="no port of any run of this experiment held more than its backlog bound (the "
    "port_bounds table: no status 'violated'; the run's bound_violations is 0)",
    check=_no_violations,
    why=_why_violations,
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


# ---------------------------------------------------------------------------
# The table experiments: tasks.


def _stream_tasks(
    case: str,
    build: Callable[[bool, int, str], list[dict[str, Any]]],
    series: Sequence[tuple[str, bool, bool]],
    *,
    sweep: bool = True,
) -> Callable[[bool], list[Task]]:
    """Tasks over series x buffers x seeds. ``build(quick, seed, series)``
    gives the streams; ``series`` are (label, adaptive, admission). Quick
    mode: the default buffer, QUICK_SEEDS, QUICK_SCALE of the datagrams."""

    def make(quick: bool) -> list[Task]:
        out = []
        buffers = [DEFAULT_BUFFER] if quick or not sweep else BUFFERS
        for label, adaptive, admission in series:
            for buf in buffers:
                for s in QUICK_SEEDS if quick else SEEDS:
                    sc = testbed(
                        f"radon {case}, {label}, {buf}",
                        build(quick, s, label),
                        adaptive=adaptive,
                        buffer=buf,
                        seed=s,
                        admission=admission,
                    )
                    labels = {"case": case, "series": label, "buffer": buf, "seed": s}
                    out.append(Task(sc, s, labels))
        return out

    return make


BOTH = [(NON_ADAPTIVE, False, False), (ADAPTIVE, True, False)]
ADMISSION_SERIES = [
    (f"{NON_ADAPTIVE}, admission", False, True),
    (f"{ADAPTIVE}, admission", True, True),
]

single_tasks = _stream_tasks("single", lambda q, s, _l: single_streams(q), BOTH)
punctuated_tasks = _stream_tasks("punctuated", lambda q, s, _l: punctuated_streams(q), BOTH)
fair_tasks = _stream_tasks("fair", lambda q, s, _l: fair_streams(q, s), BOTH)
unfair_tasks = _stream_tasks(
    "unfair", lambda q, s, label: unfair_streams(q, s, label), BOTH + ADMISSION_SERIES
)


# ---------------------------------------------------------------------------
# The table experiments: published rows and claims.


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
    return [
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
        _buffer_fit([seed.TABLE_5_1, seed.TABLE_5_2]),
        NO_VIOLATIONS,
    ]


def _fair_published() -> list[Published]:
    return [
        *table_published(seed.TABLE_5_3),
        *table_published(seed.TABLE_5_4),
        _buffer_fit([seed.TABLE_5_3, seed.TABLE_5_4]),
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


def _admission_check(t: pd.DataFrame) -> tuple[bool | None, str]:
    rates = [rate * 1e6 for _n, _w, rate in seed.table_5_5()]
    want = {i + 1 for i in expected_refusals(rates)}
    total = sum(wire_utilization(r) for r in rates)
    adm = t[t["series"].astype(str).str.endswith("admission")]
    if adm.empty:
        return None, "the admission series were not run"
    shows, ok = [], True
    for (s, buf), g in adm.groupby(["series", "buffer"], sort=False):
        refused = set(g.loc[~g["admitted"].astype(bool), "node"].astype(int))
        ports = sorted({str(x) for x in g["refused_at"] if x})
        ok &= refused == want and bool(ports)
        others = g[g["admitted"].astype(bool)]
        shows.append(
            f"{s} ({buf}): refused node(s) {sorted(refused) or 'none'} at {ports or 'no port'}; "
            f"the others lose at most {others['pct_lost'].max():.2f} %"
        )
    return ok, (
        f"Table 5.5's reservations ask {total:.4f} of the port on the wire (8,258 bytes per "
        f"8,192 of payload); the rule refuses node(s) {sorted(want)}. " + "; ".join(shows)
    )


def _unfair_published() -> list[Published]:
    what = "unfair"
    issue_rows = []
    for s in (NON_ADAPTIVE, ADAPTIVE):
        issue_rows.append(_loss_range(s, 1, 25, 50, what))
        issue_rows += [_loss_below(s, n, 5, what) for n in range(2, 7)]
    return [
        *_table_5_5_published(),
        *table_published(seed.TABLE_5_6),
        *table_published(seed.TABLE_5_7),
        *issue_rows,
        Published(
            "admission with headers counted refuses what does not fit",
            "issue 21, item 9: 'The payloads sum to 1 Gb/s, so on the wire they offer about "
            "1.008 Gb/s'; the seed's admission rule, Section 4.1",
            claim="with admission on (Σu ≤ 1 on the wire, in node order) the simulator refuses "
            "exactly the streams the rule refuses, names the port, and the rest run",
            check=_admission_check,
            why=_why_ports,
        ),
        _buffer_fit([seed.TABLE_5_6, seed.TABLE_5_7]),
        NO_VIOLATIONS,
    ]


# ---------------------------------------------------------------------------
# Plots of the table experiments.


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
            g = g.assign(kib=g["buffer"].map(lambda b: _buffer_bytes(b) / 1024)).sort_values("kib")
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


# ---------------------------------------------------------------------------
# The queue models against the true queue (Figures 5.2-5.9).

MODELS = [("basic", "basic_pkts"), ("pathload", "pathload_pkts"), ("median5", "median5_pkts")]
#: (case, series, streams builder): the runs whose series the models are
#: read from, one per figure of Chapter 5.
MODEL_CASES: list[tuple[str, str, str, Callable[[bool], list[dict[str, Any]]]]] = [
    ("single", NON_ADAPTIVE, "Fig. 5.2", single_streams),
    ("single", ADAPTIVE, "Fig. 5.3", single_streams),
    ("punctuated", NON_ADAPTIVE, "Fig. 5.4", punctuated_streams),
    ("punctuated", ADAPTIVE, "Fig. 5.5", punctuated_streams),
    ("fair", NON_ADAPTIVE, "Fig. 5.6", fair_streams),
    ("fair", ADAPTIVE, "Fig. 5.7", fair_streams),
    ("unfair", NON_ADAPTIVE, "Fig. 5.8", unfair_streams),
    ("unfair", ADAPTIVE, "Fig. 5.9", lambda q: unfair_streams(q, series=ADAPTIVE)),
]
#: Points per curve kept for the plot.
PLOT_POINTS = 1500


def model_tasks(quick: bool) -> list[Task]:
    """One run per figure (seed 1, default buffer) with the per-datagram
    series."""
    out = []
    for case, series, fig, build in MODEL_CASES:
        sc = testbed(
            f"radon models, {case}, {series}",
            build(quick),
            adaptive=series == ADAPTIVE,
            series=True,
        )
        labels = {"case": case, "series": series, "figure": fig, "seed": 1}
        out.append(Task(sc, 1, labels))
    return out


def _rank_corr(a: pd.Series, b: pd.Series) -> float:
    """Spearman's rank correlation (ranks, then Pearson's)."""
    if len(a) < 3:
        return math.nan
    return float(a.rank().corr(b.rank()))


def model_rows(task: Task, r: Result) -> tuple[list[dict[str, Any]], dict[Any, pd.DataFrame]]:
    """Per stream and model: how the model's depth compares with the true
    depth the datagrams found at the bottleneck port; and node 1's series
    (thinned) for the plot."""
    rs = _table(r, "radon_series")
    st = _table(r, "streams")
    node = {int(f): node_of(s) for f, s in zip(st["flow_id"], st["src"], strict=True)}
    rows, curves = [], {}
    for fid, g in rs.groupby("flow_id", sort=True):
        g = g.sort_values("frame")
        true = g["true_queue_pkts"].astype(float)
        q = max(1, len(g) // 4)
        for model, col in MODELS:
            est = g[col].astype(float)
            ok = est.notna()
            e, tr, fr = est[ok], true[ok], g["frame"][ok].astype(float)
            rows.append(
                {
                    **task.labels,
                    "node": node.get(int(fid), -1),
                    "model": model,
                    "estimates": int(ok.sum()),
                    "mean_true_pkts": float(true.mean()),
                    "max_true_pkts": float(true.max()),
                    "mean_model_pkts": float(e.mean()) if len(e) else math.nan,
                    "mae_pkts": float((e - tr).abs().mean()) if len(e) else math.nan,
                    "corr_true": float(e.corr(tr)) if len(e) > 2 else math.nan,
                    "rank_corr_frame": _rank_corr(e, fr),
                    "first_quarter_pkts": float(est.iloc[:q].mean()),
                    "last_quarter_pkts": float(est.iloc[-q:].mean()),
                }
            )
        if node.get(int(fid)) == 1:
            step = max(1, len(g) // PLOT_POINTS)
            curves[(task.labels["case"], task.labels["series"])] = g.iloc[::step][
                ["frame", "true_queue_pkts", *[c for _, c in MODELS]]
            ]
    return rows, curves


def summarize_models(tasks: Sequence[Task], results: Sequence[Result]) -> Summary:
    rows, curves = [], {}
    for t, r in zip(tasks, results, strict=True):
        more, c = model_rows(t, r)
        rows += more
        curves.update(c)
    return Summary(pd.DataFrame(rows), extra=curves)


def _model(t: pd.DataFrame, case: str, series: str, model: str, node: int = 1) -> pd.Series | None:
    sel = t[(t["case"] == case) & (t["series"] == series) & (t["model"] == model)]
    sel = sel[sel["node"] == node]
    return None if sel.empty else sel.iloc[0]


def _claim_small(case: str, series: str, models: Sequence[str], limit_pkts: float = 1.0):
    def check(t: pd.DataFrame) -> tuple[bool | None, str]:
        got = {m: _model(t, case, series, m) for m in models}
        if any(v is None for v in got.values()):
            return None, f"{case} {series} was not run"
        shows = "; ".join(
            f"{m}: mean {v['mean_model_pkts']:.2f} pkts (true {v['mean_true_pkts']:.2f})"
            for m, v in got.items()
        )
        return all(v["mean_model_pkts"] <= limit_pkts for v in got.values()), shows

    return check


def _claim_increasing(case: str, series: str, model: str, want: bool = True):
    """The model's depth rises through the run (rank correlation with the
    frame number at least 0.5, last quarter above the first) while the true
    queue does not explain it."""

    def check(t: pd.DataFrame) -> tuple[bool | None, str]:
        v = _model(t, case, series, model)
        if v is None:
            return None, f"{case} {series} was not run"
        rising = bool(
            v["rank_corr_frame"] >= 0.5 and v["last_quarter_pkts"] > v["first_quarter_pkts"]
        )
        return rising == want, (
            f"{model}: rank correlation with the frame number {v['rank_corr_frame']:.2f}, first "
            f"quarter {v['first_quarter_pkts']:.2f}, last quarter {v['last_quarter_pkts']:.2f} "
            f"pkts; true queue mean {v['mean_true_pkts']:.2f}, max {v['max_true_pkts']:.0f}"
        )

    return check


def _claim_smaller_adaptive(case: str):
    def check(t: pd.DataFrame) -> tuple[bool | None, str]:
        pairs = [
            (m, _model(t, case, NON_ADAPTIVE, m), _model(t, case, ADAPTIVE, m)) for m, _ in MODELS
        ]
        if any(a is None or b is None for _, a, b in pairs):
            return None, f"{case} was not run in both series"
        shows = "; ".join(
            f"{m}: {b['mean_model_pkts']:.2f} adaptive against {a['mean_model_pkts']:.2f}"
            for m, a, b in pairs
        )
        return all(b["mean_model_pkts"] < a["mean_model_pkts"] for _, a, b in pairs), shows

    return check


def _claim_tracks(case: str, series: str, better: str, worse: str):
    def check(t: pd.DataFrame) -> tuple[bool | None, str]:
        a, b = _model(t, case, series, better), _model(t, case, series, worse)
        if a is None or b is None:
            return None, f"{case} {series} was not run"
        return bool(a["corr_true"] > b["corr_true"]), (
            f"correlation with the true queue: {better} {a['corr_true']:.2f}, "
            f"{worse} {b['corr_true']:.2f}"
        )

    return check


def _why_models(case: str, series: str):
    """Every model's figures on node 1 of one run, against the true queue."""

    def why(t: pd.DataFrame) -> str:
        sel = t[(t["case"] == case) & (t["series"] == series) & (t["node"] == 1)]
        return "; ".join(
            f"{r['model']}: {r['estimates']:.0f} estimates, mean {r['mean_model_pkts']:.2f} pkts "
            f"(true {r['mean_true_pkts']:.2f}, max {r['max_true_pkts']:.0f}), mean error "
            f"{r['mae_pkts']:.2f}, correlation with the true queue {r['corr_true']:.2f}, with "
            f"the frame number {r['rank_corr_frame']:.2f}"
            for _, r in sel.iterrows()
        )

    return why


def _models_published() -> list[Published]:
    s52 = f"stated in the text, Section 5.2 ({seed.SOURCE})"
    s53 = f"stated in the text, Section 5.3 ({seed.SOURCE})"
    return [
        Published(
            "single stream: basic and Pathload show a small queue",
            s52 + ", Fig. 5.2",
            claim="basic and Pathload models: mean depth at most one packet on the single stream",
            check=_claim_small("single", NON_ADAPTIVE, ["basic", "pathload"]),
            why=_why_models("single", NON_ADAPTIVE),
        ),
        Published(
            "single stream: the median-filter model rises throughout",
            s52 + ", Fig. 5.2: 'an unreasonable, ever-increasing trend'",
            claim="median-of-five depth rises through the run (rank correlation with the frame "
            "≥ 0.5, last quarter above the first)",
            check=_claim_increasing("single", NON_ADAPTIVE, "median5"),
            why=_why_models("single", NON_ADAPTIVE),
        ),
        Published(
            "single adaptive stream: every model shows a smaller queue",
            s52 + ", Fig. 5.3",
            claim="each model's mean depth is smaller in the adaptive run than the non-adaptive",
            check=_claim_smaller_adaptive("single"),
            why=_why_models("single", ADAPTIVE),
        ),
        Published(
            "single adaptive stream: the median-filter model no longer rises",
            s52 + ", Fig. 5.3",
            claim="median-of-five depth does not rise through the adaptive run",
            check=_claim_increasing("single", ADAPTIVE, "median5", want=False),
            why=_why_models("single", ADAPTIVE),
        ),
        Published(
            "punctuated: the Pathload model rises throughout",
            s53 + ", Fig. 5.4: 'an always increasing trend ... groups of 100'",
            claim="Pathload depth rises through the punctuated run",
            check=_claim_increasing("punctuated", NON_ADAPTIVE, "pathload"),
            why=_why_models("punctuated", NON_ADAPTIVE),
        ),
        Published(
            "punctuated: the median filter follows filling and draining",
            s53 + ", Fig. 5.4: 'reflects the filling and draining of the queue more quickly'",
            claim="median-of-five depth correlates with the true queue better than Pathload's",
            check=_claim_tracks("punctuated", NON_ADAPTIVE, "median5", "pathload"),
            why=_why_models("punctuated", NON_ADAPTIVE),
        ),
        Published(
            "punctuated: the basic model stays close to zero",
            s53 + ": 'The basic model stays close to zero'",
            claim="basic model: mean depth at most one packet on the punctuated primary",
            check=_claim_small("punctuated", NON_ADAPTIVE, ["basic"]),
            why=_why_models("punctuated", NON_ADAPTIVE),
        ),
    ]


def plot_models(summary: Summary, published: Sequence[Published]) -> Figure:
    """Node 1's true queue and the three models against the frame number,
    one panel per figure of Chapter 5."""
    from ..plots import figure

    curves = summary.extra or {}
    keys = list(curves) or [("none", "")]
    fig, axes = figure(len(keys), 14, 3.2 * math.ceil(len(keys) / 2), rows=math.ceil(len(keys) / 2))
    for ax, key in zip(axes, keys, strict=True):
        g = curves.get(key)
        if g is not None:
            ax.plot(g["frame"], g["true_queue_pkts"], color="black", lw=1.2, label="true queue")
            for model, col in MODELS:
                ax.plot(g["frame"], g[col], lw=0.8, label=model)
        ax.set_title(f"{key[0]}, {key[1]}: node 1", fontsize=9)
        ax.set_xlabel("frame")
        ax.set_ylabel("queue depth (pkts)")
        ax.grid(True, alpha=0.3)
    axes[0].legend(fontsize=7)
    return fig


# ---------------------------------------------------------------------------
# Timestamp noise (Section 5.2, Figure 5.1; issue 21, item 3).

STAMPS = ["nic", "socket", "application"]
#: The calibration stream: one datagram every 100 µs (issue 21's spacing).
STAMP_SPACING_US = 100.0
STAMP_PACKETS = 20000


def stamp_tasks(quick: bool) -> list[Task]:
    """A single non-adaptive stream at 100 µs spacing, no contention, per
    capture point: its RFD is the timestamps' noise and nothing else."""
    rate = PAYLOAD_BITS / (STAMP_SPACING_US * 1e-6)
    n = _scaled(STAMP_PACKETS, quick)
    out = []
    for point in STAMPS:
        sc = testbed(
            f"radon timestamps, {point}",
            [radon_stream("h1", rate_bps=rate, packets=n)],
            adaptive=False,
            readings=Readings(stamp=point),
            series=True,
        )
        out.append(Task(sc, 1, {"stamp": point, "seed": 1}))
    return out


def summarize_stamps(tasks: Sequence[Task], results: Sequence[Result]) -> Summary:
    """Per capture point: RFD percentiles, and of the medians of five."""
    rows, hist = [], {}
    for t, r in zip(tasks, results, strict=True):
        rfd = _table(r, "radon_series")["rfd_us"].astype(float).dropna()
        med5 = rfd.groupby(pd.RangeIndex(len(rfd)) // 5).median()
        rows.append(
            {
                **t.labels,
                "samples": len(rfd),
                "rfd_p1_us": float(rfd.quantile(0.01)),
                "rfd_p50_us": float(rfd.quantile(0.5)),
                "rfd_p99_us": float(rfd.quantile(0.99)),
                "rfd_spread_us": float(rfd.quantile(0.99) - rfd.quantile(0.01)),
                "median5_p1_us": float(med5.quantile(0.01)),
                "median5_p99_us": float(med5.quantile(0.99)),
                "median5_extreme_us": float(
                    max(abs(med5.quantile(0.01)), abs(med5.quantile(0.99)))
                ),
            }
        )
        hist[t.labels["stamp"]] = rfd.to_numpy()
    return Summary(pd.DataFrame(rows), extra=hist)


def _stamp_order(t: pd.DataFrame) -> tuple[bool | None, str]:
    s = t.set_index("stamp")["rfd_spread_us"]
    if not set(STAMPS) <= set(s.index):
        return None, "not every capture point was run"
    shows = ", ".join(f"{p} {s[p]:.1f} µs" for p in STAMPS)
    return bool(s["application"] > s["socket"] >= s["nic"]), f"RFD p1-p99 spread: {shows}"


def _why_stamp(sel: pd.DataFrame) -> str:
    """The capture point's RFD as this run measured it."""
    return "; ".join(
        f"{r['stamp']} stamps in this run: RFD p1 {r['rfd_p1_us']:.1f}, p50 {r['rfd_p50_us']:.1f}, "
        f"p99 {r['rfd_p99_us']:.1f} µs over {r['samples']:.0f} datagrams; medians of five "
        f"p1 {r['median5_p1_us']:.2f}, p99 {r['median5_p99_us']:.2f} µs"
        for _, r in sel.iterrows()
    )


def _stamps_published() -> list[Published]:
    tol = Tolerance(abs=1.0, rel=0.25, unit="µs")
    rows = [
        ("socket", "rfd_p1_us", -7.4, "p1"),
        ("socket", "rfd_p99_us", 6.9, "p99"),
        ("application", "rfd_p1_us", -94.0, "p1"),
        ("application", "rfd_p99_us", 17.5, "p99"),
    ]
    out = [
        Published(
            f"RFD from {point} timestamps, {q}",
            ISSUE_ITEM3,
            {"stamp": point},
            metric,
            value,
            unit="µs",
            tolerance=tol,
            why=_why_stamp,
        )
        for point, metric, value, q in rows
    ]
    out.append(
        Published(
            "median of five socket RFDs within ±1.8 µs",
            ISSUE_ITEM3,
            {"stamp": "socket"},
            "median5_extreme_us",
            1.8,
            bound="<=",
            unit="µs",
            why=_why_stamp,
        )
    )
    out.append(
        Published(
            "application stamps spread widest, socket close to the NIC",
            f"stated in the text, Section 5.2, Fig. 5.1 ({seed.SOURCE})",
            claim="RFD spread (p1 to p99): application > socket ≥ nic",
            check=_stamp_order,
            why=_why_stamp,
        )
    )
    return out


def plot_stamps(summary: Summary, published: Sequence[Published]) -> Figure:
    from ..plots import figure

    fig, (ax,) = figure(1, 10, 4.2)
    for point, vals in (summary.extra or {}).items():
        if len(vals):
            ax.hist(vals, bins=120, histtype="step", density=True, label=point)
    ax.set_yscale("log")
    ax.set_xlabel("relative forward delay between consecutive datagrams (µs)")
    ax.set_ylabel("density")
    ax.set_title("RFD of an uncontended stream at 100 µs spacing, per capture point", fontsize=10)
    ax.legend(fontsize=8)
    return fig


# ---------------------------------------------------------------------------
# Sensitivity series: the seed's ambiguities and the capture point.

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


# ---------------------------------------------------------------------------
# Beyond the seed: Radon against TCP on the foundation's incast.

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
TCP_SERIES = [("NewReno", "newreno"), ("CUBIC", "cubic"), ("DCTCP", "dctcp")]
#: (label, adaptive, response).
RADON_SERIES = [
    ("Radon non-adaptive", False, RESPONSE),
    ("Radon rate (Percent-Budget)", True, "percent_budget_rate"),
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
        "duration": f"{DURATION_CAP_S}s",
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
    st = _table(r, "streams")
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


# ---------------------------------------------------------------------------
# The network-calculus bounds of every experiment's runs.


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
        pb = _table(r, "port_bounds")
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


# ---------------------------------------------------------------------------
# The study.

_TESTBED = (
    "The seed's testbed as a model: hosts h0 (the receiver) and h1-h6 on one store-and-forward "
    "switch, 1 GbE links of 1 µs, a drop-tail buffer per switch port "
    f"({DEFAULT_BUFFER} by default; the seed does not give it, so "
    f"{', '.join(BUFFERS)} are swept), an 80-descriptor transmit ring on each host NIC; each "
    "stream sends 8,192-byte payloads (8,220-byte IP packets, 8,258 bytes on the wire) with a "
    f"reservation per {PERIOD} period; adaptive runs use rate-based Percent-Budget driven by "
    "the median-of-five model, socket timestamps; admission off, as the seed's prototype ran. "
    f"Seeds {', '.join(map(str, SEEDS))}."
)
_QUICK = (
    f"the default buffer only, seed {QUICK_SEEDS[0]}, {QUICK_SCALE:g} of every stream's "
    "datagrams (about 0.5 s instead of 2 s)"
)


def _setup(what: str) -> str:
    return f"{what} {_TESTBED}"


EXPERIMENTS = [
    Experiment(
        name="single",
        reproduces="Section 5.2, Figures 5.2/5.3: one stream, 765 Mb/s, non-adaptive and adaptive",
        setup=_setup(
            f"One stream h1 -> h0 at 765 Mb/s (84 µs in the seed), {single_packets()} datagrams "
            f"({SINGLE_DURATION_S:g} s: the figures give no count)."
        ),
        tasks=single_tasks,
        summarize=summarize_streams,
        published=_single_published(),
        quick=_QUICK,
        plot=plot_streams("single"),
    ),
    Experiment(
        name="punctuated",
        reproduces="Section 5.3, Tables 5.1/5.2: a 749 Mb/s primary punctuated by five 250 Mb/s "
        "bursts",
        setup=_setup(
            "The primary h1 -> h0 at 749 Mb/s (86 µs) sends 23,223 datagrams (Table 5.1: "
            "received + lost); five bursts h2..h6 at 250 Mb/s (257 µs), 500 datagrams each, in "
            "turn. The seed gives no start times: from the counts and rates the primary lives "
            "2.032 s and a burst 131 ms, and the bursts are spread evenly over the primary's "
            "life (equal gaps of 229 ms before, between and after; burst k starts at "
            "0.229 + 0.361·k s)."
        ),
        tasks=punctuated_tasks,
        summarize=summarize_streams,
        published=_punctuated_published(),
        quick=_QUICK,
        plot=plot_streams("punctuated"),
    ),
    Experiment(
        name="fair",
        reproduces="Section 5.4, Tables 5.3/5.4: six fair-share streams at 163 Mb/s",
        setup=_setup(
            "Six clients h1..h6 -> h0 at 163 Mb/s each (394 µs; the tables' send rates), 5,076 "
            f"datagrams each, starting within {START_SPREAD_S * 1e3:g} ms of one another at "
            "seeded instants."
        ),
        tasks=fair_tasks,
        summarize=summarize_streams,
        published=_fair_published(),
        quick=_QUICK,
        plot=plot_streams("fair"),
    ),
    Experiment(
        name="unfair",
        reproduces="Section 5.5, Tables 5.5-5.7: six unfair streams, 500 to 31.25 Mb/s, and what "
        "admission control does",
        setup=_setup(
            "Six clients at Table 5.5's reservations (500, 250, 125, 62.5, 31.25, 31.25 Mb/s), "
            "each sending its row's count of Table 5.6 (non-adaptive) or 5.7 (adaptive), starting "
            f"within {START_SPREAD_S * 1e3:g} ms. Their payloads sum to 1 Gb/s, 1.008 Gb/s on the "
            "wire: the extra series turn admission on (headers counted)."
        ),
        tasks=unfair_tasks,
        summarize=summarize_streams,
        published=_unfair_published(),
        quick=_QUICK,
        plot=plot_streams("unfair"),
    ),
    Experiment(
        name="queue-models",
        reproduces="Figures 5.2-5.9: the basic, Pathload and median-of-five queue models "
        "against the true queue depth",
        setup=_setup(
            "Every table experiment's run (seed 1, default buffer) with the per-datagram series: "
            "each stream's modelled queue depth under the three models beside the depth its "
            "datagrams found at the switch port (which the seed's switch could not show)."
        ),
        tasks=model_tasks,
        summarize=summarize_models,
        published=_models_published(),
        quick=f"{QUICK_SCALE:g} of every stream's datagrams",
        plot=plot_models,
    ),
    Experiment(
        name="timestamps",
        reproduces="Section 5.2, Figure 5.1: where timestamps are taken, and their noise",
        setup=_setup(
            f"One uncontended non-adaptive stream h1 -> h0 at one datagram every "
            f"{STAMP_SPACING_US:g} µs ({STAMP_PACKETS} datagrams), its stamps taken at the NIC, "
            "the socket or the application: the relative forward delay of consecutive datagrams "
            "is the capture point's noise alone."
        ),
        tasks=stamp_tasks,
        summarize=summarize_stamps,
        published=_stamps_published(),
        quick=f"{QUICK_SCALE:g} of the datagrams",
        plot=plot_stamps,
    ),
    Experiment(
        name="sensitivity",
        reproduces="The seed's ambiguities: wait reading, wait_min, %budget, capture point",
        setup=_setup(
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
    Experiment(
        name="incast",
        reproduces="Beyond the seed: Radon against NewReno, CUBIC and DCTCP on the foundation's "
        "incast",
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
    ),
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


def simulator_support() -> str | None:
    """None when this simulator runs Radon streams; otherwise why not (the
    spec's refusal of the study's first scenario, one line)."""
    import fairlab

    try:
        fairlab.validate(single_tasks(True)[0].scenario)
    except fairlab.ScenarioError as e:
        return str(e).splitlines()[0]
    return None
