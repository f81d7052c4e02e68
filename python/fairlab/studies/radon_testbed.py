"""The seed's testbed as fairlab scenarios: source document 004 (the
Radon proposal), Section 5.1, and the scenario builders of the Radon study's
experiments (fairlab.studies.radon).

Seven hosts with 1 GbE NICs of 80 transmit descriptors on one
store-and-forward switch, 8,192-byte payloads. Every choice the seed leaves
open is a named constant or a :class:`Readings` field here and a paragraph
of docs/radon.md ("Readings of the seed"). Builders return plain dicts, the
same structure as a TOML scenario (docs/radon.md, "Scenario").
"""

from __future__ import annotations

import copy
import math
import random
from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from ..units import format_time, parse_buffer, parse_rate_bps, parse_time_ps
from . import radon_seed as seed

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

#: Ethernet's bytes beyond each IP packet on the wire: header 14, FCS 4,
#: preamble 8, inter-frame gap 12 (with IPv4 and UDP's 28, 66 per datagram).
LINK_FRAMING = "38B"

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
RESPONSE = "percent_budget"

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


#: The study's readings (every default).
DEFAULT_READINGS = Readings()

#: The `[radon]` keys of the three response readings. The shared design
#: names the readings (WaitReading, BudgetReading, wait_min) but not their
#: scenario keys: these are the study's proposal (docs/radon.md).
READING_KEYS = {"wait": "wait_reading", "wait_min": "wait_min", "budget": "budget_reading"}

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

#: A HYPOTHESIS, not the study's model of the testbed (docs/radon.md,
#: "Experiments", "A hypothesis: the receiver as a max-min server"): the
#: receiving host as a per-flow fair server of the seed's own delivered
#: aggregate. Table 5.6's receive wire rates sum to 797 Mb/s and Table 5.1's
#: primary with one burst to about 815 Mb/s, so 800 Mb/s; modelled on the
#: switch port toward the receiver (DRR over the port's buffer, under an
#: HTB shaper at that rate), that is, before the receiver's timestamps.
HYPOTHESIS_RATE_BPS = 800e6

HYPOTHESIS = "HYPOTHESIS receiver max-min at 800 Mb/s"

#: The `[[port]]` override that models the hypothesis.
HYPOTHESIS_PORT: dict[str, Any] = {
    "node": "sw",
    "peer": "h0",
    "discipline": "drr",
    "shaper": {"kind": "htb", "rate": "800Mbps"},
}


def hypothesis_series(base: str) -> str:
    """The label of the hypothesis series run as ``base`` ("non-adaptive"
    or "adaptive"): it starts with the base so the builders pick the same
    counts."""
    return f"{base}, {HYPOTHESIS}"


def is_hypothesis(series: Any) -> bool:
    return HYPOTHESIS in str(series)


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
    *, adaptive: bool, readings: Readings = DEFAULT_READINGS, admission: bool = False, **more: Any
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
    readings: Readings = DEFAULT_READINGS,
    admission: bool = False,
    series: bool = False,
    ports: Sequence[dict[str, Any]] = (),
) -> dict[str, Any]:
    """The seed's testbed as a scenario: h0..h6 on one store-and-forward
    switch, 1 GbE, a drop-tail ``buffer`` per switch port, an 80-descriptor
    transmit ring on every host; ``streams`` from :func:`radon_stream`.
    ``series`` asks for the per-datagram `radon_series` table; ``ports``
    are `[[port]]` overrides (the hypothesis series)."""
    sc: dict[str, Any] = {
        "name": name,
        "seed": seed,
        "duration": f"{DURATION_CAP_S}s",
        "topology": {"kind": "star", "hosts": list(HOSTS), "rate": LINK_RATE, "delay": LINK_DELAY},
        "queue": {"discipline": "droptail", "limit": buffer},
        # Ethernet on every wire: an 8,192-byte payload is 8,258 bytes there.
        "link": {"framing": LINK_FRAMING},
        "host": {"ring": TX_DESCRIPTORS},
        "radon": radon_table(adaptive=adaptive, readings=readings, admission=admission),
        "workload": [dict(s) for s in streams],
    }
    if series:
        sc["metrics"] = {"radon_series": True}
    if ports:
        sc["port"] = [dict(p) for p in ports]
    return sc


def scaled(packets: int, quick: bool) -> int:
    return max(1, round(packets * QUICK_SCALE)) if quick else packets


def _starts(seed_: int, count: int) -> list[float]:
    """Start instants within START_SPREAD_S, drawn from the run's seed
    (string-seeded: the same on every machine and Python)."""
    rng = random.Random(f"radon-starts-{seed_}")
    return [rng.uniform(0.0, START_SPREAD_S) for _ in range(count)]


def single_packets(quick: bool = False) -> int:
    """Datagrams of the single stream: SINGLE_DURATION_S at 765 Mb/s."""
    full = round(seed.SINGLE_RATE_MBPS * 1e6 * SINGLE_DURATION_S / PAYLOAD_BITS)
    return scaled(full, quick)


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
    primary = scaled(t.row(1).num_sent, quick)
    burst = scaled(t.row(2).num_sent, quick)
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
    n = scaled(seed.TABLE_5_3.row(1).num_sent, quick)
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
            packets=scaled(t.row(node).num_sent, quick),
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
        # The core crate's admission allows 1e-9 of rounding (ADMISSION_EPSILON).
        if total + u <= 1.0 - reserve + 1e-9:
            total += u
        else:
            refused.append(i)
    return refused


def buffer_bytes(buffer: Any) -> float:
    """A buffer limit ("256KiB", "31pkt") in bytes (packets of 8,220 bytes);
    NaN without one."""
    if not buffer:
        return math.nan
    count, unit = parse_buffer(str(buffer))
    return float(count if unit == "bytes" else count * IP_PACKET_BYTES)


TESTBED_TEXT = (
    "The seed's testbed as a model: hosts h0 (the receiver) and h1-h6 on one store-and-forward "
    "switch, 1 GbE links of 1 µs, a drop-tail buffer per switch port "
    f"({DEFAULT_BUFFER} by default; the seed does not give it, so "
    f"{', '.join(BUFFERS)} are swept), an 80-descriptor transmit ring on each host NIC; each "
    "stream sends 8,192-byte payloads (8,220-byte IP packets, 8,258 bytes on the wire) with a "
    f"reservation per {PERIOD} period; adaptive runs use rate-based Percent-Budget driven by "
    "the median-of-five model, socket timestamps; admission off, as the seed's prototype ran. "
    f"Seeds {', '.join(map(str, SEEDS))}."
)

#: Why quick mode compares no datagram count: it sends QUICK_SCALE of every
#: stream's datagrams, so a count is a quarter of the table's by
#: construction; scaled back up it would say nothing %lost does not (the
#: counts are exactly the quarter, rounded), so the count rows are "not run"
#: and the percentages and rates are compared.
COUNTS_FULL_ONLY = "a count: compared in full mode only"

QUICK_TEXT = (
    f"the default buffer only, seed {QUICK_SEEDS[0]}, {QUICK_SCALE:g} of every stream's "
    "datagrams (about 0.5 s instead of 2 s); the tables' datagram counts (num recv, num lost) "
    f"are therefore not compared ({COUNTS_FULL_ONLY}), their percentages and rates are"
)


def setup_text(what: str) -> str:
    """An experiment's setup paragraph: what it runs, then the testbed."""
    return f"{what} {TESTBED_TEXT}"


# --------------------------------------------------------------------------
# The testbed scaled to what the namespace backend sustains on this machine
# kind (issue 22; docs/radon.md, "Chapter 5 on the kernel"): 100 Mb/s links
# and 1,500-byte datagrams, the seed's ratios kept. Every rate is divided by
# KERNEL_RATE_SCALE; a datagram takes KERNEL_TIME_SCALE times as long on the
# wire (1,500 bytes at 100 Mb/s against 8,220 at 1 Gb/s), so every instant
# and period is stretched by it and every buffer keeps its count of
# datagrams: the queues see the same arrivals, counted in packets.

KERNEL_RATE_SCALE = 10

KERNEL_PACKET_BYTES = 1500

KERNEL_TIME_SCALE = KERNEL_PACKET_BYTES / IP_PACKET_BYTES * KERNEL_RATE_SCALE


def _stretched(text: str) -> str:
    scale = Fraction(KERNEL_PACKET_BYTES * KERNEL_RATE_SCALE, IP_PACKET_BYTES)
    return format_time(Fraction(parse_time_ps(text), 10**12) * scale)


def _slowed(text: str) -> str:
    return rate_text(parse_rate_bps(text) / KERNEL_RATE_SCALE)


def _shrunk_buffer(text: str) -> str:
    count, unit = parse_buffer(text)
    if unit != "bytes":
        return text
    return f"{round(count * KERNEL_PACKET_BYTES / IP_PACKET_BYTES)}B"


def kernel_scenario(sc: dict[str, Any]) -> dict[str, Any]:
    """A testbed scenario scaled for the kernel: rates / KERNEL_RATE_SCALE,
    KERNEL_PACKET_BYTES datagrams, times x KERNEL_TIME_SCALE, buffers of
    the same datagram count; no transmit ring (a veth has none: the
    sender's queue is its qdisc)."""
    out = copy.deepcopy(sc)
    out["name"] = f"{sc['name']} (kernel scale)"
    topo = out["topology"]
    topo["rate"] = _slowed(topo["rate"])
    topo["delay"] = _stretched(topo["delay"])
    out["queue"]["limit"] = _shrunk_buffer(out["queue"]["limit"])
    out.pop("host", None)
    out["duration"] = _stretched(out["duration"])
    for w in out["workload"]:
        w["rate"] = _slowed(w["rate"])
        w["packet_size"] = f"{KERNEL_PACKET_BYTES}B"
        for k in ("start", "period", "stop"):
            if k in w:
                w[k] = _stretched(w[k])
        if "wait_max" in w.get("radon", {}):
            w["radon"]["wait_max"] = _stretched(w["radon"]["wait_max"])
    if "wait_max" in out.get("radon", {}):
        out["radon"]["wait_max"] = _stretched(out["radon"]["wait_max"])
    for p in out.get("port", []):
        if "shaper" in p:
            p["shaper"]["rate"] = _slowed(p["shaper"]["rate"])
        if "limit" in p:
            p["limit"] = _shrunk_buffer(p["limit"])
    return out


KERNEL_TEXT = (
    f"On the kernel (namespace backend, the socket agent): the same runs scaled to what this "
    f"machine sustains, rates / {KERNEL_RATE_SCALE} (100 Mb/s links), {KERNEL_PACKET_BYTES}-byte "
    f"datagrams, every time x {KERNEL_TIME_SCALE:.4g} and every buffer the same count of "
    "datagrams, no transmit ring; the tables give rates x "
    f"{KERNEL_RATE_SCALE} and waits / {KERNEL_TIME_SCALE:.4g}, at the seed's scale."
)
