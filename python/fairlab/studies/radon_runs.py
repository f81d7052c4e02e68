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

from .base import Published, Summary
from .radon_seed import ISSUE
from .radon_testbed import ETHERNET_BYTES, IP_PACKET_BYTES, SWITCH, UDP_IP_BYTES, buffer_bytes

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
    st = run_table(r, "streams")
    bounds = run_table(r, "port_bounds")
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
        row["buffer_bytes"] = buffer_bytes(task.labels.get("buffer"))
        row["host_drops"] = float(host["drop_pkts"]) if host is not None else math.nan
        row["peak_offered_wire_mbps"] = peak
        row["backlog_bound_bytes"] = (
            float(bound["backlog_bound_bytes"]) if bound is not None else math.nan
        )
        row["bound_status"] = str(bound["status"]) if bound is not None else ""
        row["bound_violations"] = int(r.summary.get("bound_violations", 0))
        rows.append(row)
    return rows


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


#: What identifies one run (and, in the bounds table, one port of it).
RUN_KEYS = ("case", "series", "buffer", "servers", "seed", "port")


def one_row_per_run(t: pd.DataFrame) -> pd.DataFrame:
    """One row per run (per port where the table has ports): the stream
    tables repeat a run's figures on each of its streams' rows."""
    return t.drop_duplicates([c for c in RUN_KEYS if c in t])


def no_violations(t: pd.DataFrame) -> tuple[bool | None, str]:
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
    "port_bounds table: no status 'violated'; the run's bound_violations is 0)",
    check=no_violations,
    why=why_violations,
)
