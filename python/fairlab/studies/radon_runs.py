"""Reading a Radon run: the simulator's `streams`, `port_bounds` and
`ports` tables as the Radon study lays them out (the seed's table columns,
one row per stream), and what explains a stream's numbers when they depart
from the seed's: the "why" text the report shows beside a departure.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import pandas as pd

from ..units import parse_time_ps
from .base import Published, Summary
from .radon_seed import ISSUE, SeedTable
from .radon_testbed import (
    ETHERNET_BYTES,
    IP_PACKET_BYTES,
    SWITCH,
    UDP_IP_BYTES,
    buffer_bytes,
    is_hypothesis,
)

if TYPE_CHECKING:
    from ..result import Result
    from ..runner import Task


class RadonTablesMissing(RuntimeError):
    """A run without the tables a Radon run produces."""


def run_table(r: Result, name: str) -> pd.DataFrame:
    """Table ``name`` of a run, or RadonTablesMissing saying the simulator
    does not produce it (not a bare KeyError deep in a summary)."""
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


def start_of(task: Task, s: pd.Series) -> float:
    """When a stream started, in seconds: the `streams` table's `start_s`;
    a refused stream never sends (its `start_s` is empty), so its
    scenario's workload `start`, the instant admission decided on it."""
    start = s.get("start_s", math.nan)
    if bool(s["admitted"]) and not pd.isna(start):
        return float(start)
    work = task.scenario["workload"][int(s["workload"])]
    return parse_time_ps(str(work.get("start", "0s"))) / 1e12


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
    its status and Σu), the sender's own NIC queue drops, the peak offered
    wire load, the run's bound violations, and when the stream started
    (:func:`start_of`: the order admission decided in)."""
    st = run_table(r, "streams")
    # The kernel's runs have no bounds check (the simulator's port watch
    # measures what the bounds are checked against).
    kernel = r.summary.get("backend", "sim") != "sim"
    bounds = pd.DataFrame() if kernel else run_table(r, "port_bounds")
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
        row["start_s"] = start_of(task, s)
        row["port_drops"] = float(port["drop_pkts"]) if port is not None else math.nan
        # The kernel's ports table gives -1 where tc does not tell.
        peak_bytes = float(port["max_bytes"]) if port is not None else math.nan
        row["port_max_backlog_bytes"] = peak_bytes if peak_bytes >= 0 else math.nan
        row["buffer_bytes"] = buffer_bytes(task.labels.get("buffer"))
        row["host_drops"] = float(host["drop_pkts"]) if host is not None else math.nan
        row["peak_offered_wire_mbps"] = peak
        row["backlog_bound_bytes"] = (
            float(bound["backlog_bound_bytes"]) if bound is not None else math.nan
        )
        row["bound_status"] = str(bound["status"]) if bound is not None else ""
        row["port_sum_u"] = float(bound["sum_u"]) if bound is not None else math.nan
        row["bound_violations"] = int(r.summary.get("bound_violations", 0))
        rows.append(_at_seed_scale(task, row))
    return rows


def _at_seed_scale(task: Task, row: dict[str, Any]) -> dict[str, Any]:
    """A row of a run scaled for the kernel (radon_testbed.kernel_scenario:
    labels ``rate_scale`` and ``time_scale``) at the seed's scale: rates
    times the rate scale, waits and instants over the time scale, backlogs
    in the seed's datagrams' bytes; other rows as they are."""
    rs = float(task.labels.get("rate_scale", 1))
    ts = float(task.labels.get("time_scale", 1))
    if rs == 1 and ts == 1:
        return row
    for c in ("send_rate_mbps", "recv_rate_mbps", "recv_wire_rate_mbps", "peak_offered_wire_mbps"):
        row[c] *= rs
    for c in ("mean_wait_us", "final_wait_us", "start_s"):
        row[c] /= ts
    packet = int(task.labels.get("packet_bytes", IP_PACKET_BYTES))
    row["port_max_backlog_bytes"] *= IP_PACKET_BYTES / packet
    return row


def group_runs(samples: pd.DataFrame, keys: Sequence[str]) -> pd.DataFrame:
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
    return Summary(group_runs(samples, STREAM_KEYS), samples=samples)


def _mean(sel: pd.DataFrame, col: str) -> float:
    return float(sel[col].astype(float).mean()) if col in sel and len(sel) else math.nan


def _refused_text(sel: pd.DataFrame) -> str:
    if "admitted" in sel and not bool(sel["admitted"].all()):
        at = "/".join(sorted({str(x) for x in sel["refused_at"] if x}))
        return f"admission refused this stream at port {at}: it never started"
    return ""


def _stream_text(sel: pd.DataFrame) -> str:
    return (
        f"this stream lost {_mean(sel, 'num_lost'):.0f} of {_mean(sel, 'num_sent'):.0f} "
        f"at a mean wait of {_mean(sel, 'mean_wait_us'):.1f} µs "
        f"(last {_mean(sel, 'final_wait_us'):.1f} µs)"
    )


#: Where nothing in the model overflowed, what that means.
NOTHING_OVERFLOWED = (
    "nothing in the modelled testbed overflowed, so a loss the seed measured came from what the "
    "model leaves out (its hosts' receive path and its switch's internals; the seed's switch "
    "counted no drops, Section 5.3)"
)


def bottleneck_text(sel: pd.DataFrame, *, conclude: bool = True) -> str:
    """What the modelled bottleneck did in the runs of ``sel`` (one series):
    the same for every stream of a run. ``conclude``: where nothing
    overflowed, say what that means (NOTHING_OVERFLOWED) or only that."""
    n = int(sel["seed"].nunique()) if "seed" in sel else 1
    text = (
        f"({n} seed(s)) the switch port toward the receiver dropped "
        f"{_mean(sel, 'port_drops'):.0f} datagrams of all streams, its backlog peaked at "
        f"{_mean(sel, 'port_max_backlog_bytes'):.0f} of {_mean(sel, 'buffer_bytes'):.0f} bytes, "
        f"the streams offered at most {_mean(sel, 'peak_offered_wire_mbps'):.1f} Mb/s on the "
        f"wire; the senders' NIC queues dropped {_mean(sel, 'host_drops'):.0f}"
    )
    if _mean(sel, "port_drops") == 0 and _mean(sel, "host_drops") == 0:
        text += "; " + (NOTHING_OVERFLOWED if conclude else "nothing overflowed")
    return text


def why_stream(sel: pd.DataFrame) -> str:
    """Why a stream's number departs, from the run's own tables: whether it
    was admitted, the stream's losses and mean wait, and what the
    bottleneck did (:func:`bottleneck_text`)."""
    if sel.empty:
        return ""
    refused = _refused_text(sel)
    if refused:
        return refused
    return f"{_stream_text(sel)}; in this run {bottleneck_text(sel)}"


#: The row of each table experiment that says once per series what the
#: bottleneck did; the stream rows' whys refer to it.
BOTTLENECK = "the modelled bottleneck, per series"


def why_stream_brief(sel: pd.DataFrame) -> str:
    """:func:`why_stream` without what the bottleneck did, which the
    experiment's BOTTLENECK row says once per series."""
    if sel.empty:
        return ""
    refused = _refused_text(sel)
    if refused:
        return refused
    series = "/".join(sorted({str(x) for x in sel.get("series", [])}))
    return f"{_stream_text(sel)}; the port and NIC queues in {series}: row '{BOTTLENECK}'"


def bottleneck_published(tables: Sequence[SeedTable], buffer: str) -> Published:
    """Once per experiment, per series at ``buffer``: what the modelled
    bottleneck did (the stream rows refer to it), and whether it dropped
    datagrams in each series where the seed lost some (a row of 1 % or more)."""

    def per_series(t: pd.DataFrame) -> list[tuple[str, pd.DataFrame, float | None]]:
        d = t[t["buffer"] == buffer] if "buffer" in t else t
        out = []
        for s, g in d.groupby("series", sort=False):
            lost = [max(r.pct_lost for r in st.rows) for st in tables if st.series == s]
            out.append((str(s), g, max(lost) if lost else None))
        return out

    def check(t: pd.DataFrame) -> tuple[bool | None, str]:
        if t.empty or "series" not in t:
            return None, "no run"
        shows, ok = [], True
        for s, g, seed_max in per_series(t):
            dropped = _mean(g, "port_drops") + _mean(g, "host_drops") > 0
            text = f"{s}: {bottleneck_text(g, conclude=False)}"
            if seed_max is not None:
                text += f"; the seed's largest loss in this series {seed_max:g} %"
                ok &= dropped or seed_max < 1.0
            shows.append(text)
        return ok, " | ".join(shows)

    def why(t: pd.DataFrame) -> str:
        bad = [
            s
            for s, g, seed_max in per_series(t)
            if seed_max is not None
            and seed_max >= 1.0
            and _mean(g, "port_drops") + _mean(g, "host_drops") == 0
        ]
        return (
            f"in {', '.join(bad)}: {NOTHING_OVERFLOWED}; the hypothesis series model one such "
            "receive path"
        )

    return Published(
        BOTTLENECK,
        "the run's ports table (docs/radon.md, 'Tables') beside the seed's tables",
        claim=f"at {buffer}, in each of the seed's series where it lost datagrams (a row of 1 % "
        "or more), the modelled testbed dropped some (the switch port toward h0 or a sender's "
        "NIC queue); the per-series figures here are what the stream rows' whys refer to",
        check=check,
        why=why,
    )


#: What identifies one run (and, in the bounds table, one port of it).
RUN_KEYS = ("case", "series", "buffer", "servers", "seed", "port")


def one_row_per_run(t: pd.DataFrame) -> pd.DataFrame:
    """One row per run (per port where the table has ports): the stream
    tables repeat a run's figures on each of its streams' rows."""
    return t.drop_duplicates([c for c in RUN_KEYS if c in t])


def model_runs(t: pd.DataFrame) -> pd.DataFrame:
    """The rows of the study's model of the testbed, without the hypothesis
    series (which HYPOTHESIS_BOUNDS checks on their own)."""
    if "series" not in t:
        return t
    return t[~t["series"].map(is_hypothesis)]


def no_violations(t: pd.DataFrame) -> tuple[bool | None, str]:
    t = model_runs(t)
    if "bound_violations" not in t or t.empty:
        return None, "no run reported its bounds"
    v = one_row_per_run(t)
    total = int(v["bound_violations"].sum())
    col = "bound_status" if "bound_status" in t else "status"
    status = sorted({s for x in t.get(col, []) for s in str(x).split("/") if s})
    return total == 0, (
        f"{total} violated port bound(s) over {len(v)} row(s) of runs; port status seen: "
        + (", ".join(status) or "none")
    )


def why_violations(t: pd.DataFrame) -> str:
    """Which runs held more than a bound, and by how much where the table
    has the port's figures."""
    t = model_runs(t)
    bad = one_row_per_run(t[t["bound_violations"] > 0]) if "bound_violations" in t else t.iloc[0:0]
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
    "port_bounds table: no status 'violated'; the run's bound_violations is 0); the hypothesis "
    "series have a row of their own",
    check=no_violations,
    why=why_violations,
)
