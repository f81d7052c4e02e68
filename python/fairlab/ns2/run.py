"""Runs a scenario on real ns-2 and reads its output back into fairlab's
tables (the simulator's names and types, python/fairlab/emu/tables.py's
columns), so that `fairlab.load`, the studies and `fairlab compare` read
the three backends alike.

What ns-2's agents do not count (timeout causes, fast retransmits apart
from other cuts, the queues' maxima) is -1 in an integer column and NaN in
a float one; docs/ns2.md lists them.
"""

from __future__ import annotations

import hashlib
import json
import math
import os
import shutil
import subprocess
import tempfile
import time
from typing import Any

from .. import _core
from ..emu import tables as tb
from ..result import Result, Tables
from . import script
from .errors import Ns2Failed, Ns2Unavailable

UNKNOWN = -1
#: A run that takes longer than this (wall seconds) is stopped.
DEFAULT_TIME_LIMIT_S = 600.0


def ns_binary() -> str | None:
    return shutil.which(os.environ.get("FAIRLAB_NS", "ns"))


def version() -> str:
    """ns-2's version as it reports it (`ns-version`), e.g. "2.35"."""
    ns = ns_binary()
    if ns is None:
        raise Ns2Unavailable(
            "ns-2 is not installed: `ns` is not on the PATH (Debian: apt-get install ns2; "
            "or set FAIRLAB_NS to the binary)"
        )
    with tempfile.NamedTemporaryFile("w", suffix=".tcl", delete=False) as f:
        f.write("puts [ns-version]\nexit 0\n")
    try:
        out = subprocess.run([ns, f.name], capture_output=True, text=True, timeout=30)
    finally:
        os.unlink(f.name)
    return out.stdout.strip() or "unknown"


_VERSION: str | None = None


def _cached_version() -> str:
    global _VERSION
    if _VERSION is None:
        _VERSION = version()
    return _VERSION


def lower(scenario_json: str) -> dict:
    return json.loads(_core.lower_ns2_json(scenario_json))


def run_script(text: str, time_limit_s: float = DEFAULT_TIME_LIMIT_S) -> tuple[list[str], float]:
    """Runs a script with ns; returns its "FL " lines and the wall time."""
    ns = ns_binary()
    if ns is None:
        version()  # raises Ns2Unavailable with the message
    with tempfile.TemporaryDirectory(prefix="fairlab-ns2-") as d:
        path = os.path.join(d, "run.tcl")
        with open(path, "w") as f:
            f.write(text)
        t0 = time.monotonic()
        try:
            p = subprocess.run(
                [ns, path], capture_output=True, text=True, timeout=time_limit_s, cwd=d
            )
        except subprocess.TimeoutExpired as e:
            raise Ns2Failed(f"ns-2 ran longer than {time_limit_s:g} s and was stopped") from e
        wall = time.monotonic() - t0
    fl = [ln[3:] for ln in p.stdout.splitlines() if ln.startswith("FL ")]
    if p.returncode != 0 or not any(x.startswith("end ") for x in fl):
        err = (p.stderr.strip().splitlines() or ["no output"])[0]
        raise Ns2Failed(f"ns-2 exited with status {p.returncode}: {err}")
    return fl, wall


def parse(lines: list[str]) -> dict[str, Any]:
    out: dict[str, Any] = {
        "rounds": [],
        "flows": {},
        "ports": [],
        "wdone": {},
        "end": 0.0,
        "series": [],
    }
    for ln in lines:
        f = ln.split()
        if f[0] == "series":
            out["series"].append((int(f[1]), int(f[2]), int(f[3])))
        elif f[0] == "round":
            w, r, s, e, b, last, to = f[1:8]
            out["rounds"].append(
                {
                    "workload": int(w),
                    "round": int(r),
                    "start_s": float(s),
                    "end_s": float(e),
                    "bytes": int(b),
                    "slowest": int(last),
                    "timeouts": int(to),
                }
            )
        elif f[0] == "flow":
            fid = int(f[1])
            out["flows"][fid] = {
                "start_s": float(f[2]),
                "end_s": float(f[3]),
                "sent": int(f[4]),
                "sink_bytes": int(f[5]),
                "rexmit_pkts": int(f[6]),
                "timeouts": int(f[7]),
                "cwnd_pkts": float(f[8]),
                "srtt_ticks8": float(f[9]),
                "tick_s": float(f[10]),
                "request_timeouts": int(f[11]),
            }
        elif f[0] == "port":
            out["ports"].append(
                dict(
                    zip(
                        ("node", "peer", "arr_p", "arr_b", "dep_p", "dep_b", "drop_p", "drop_b"),
                        [f[1], f[2], *map(int, f[3:9])],
                        strict=True,
                    )
                )
            )
        elif f[0] == "wdone":
            out["wdone"][int(f[1])] = float(f[2])
        elif f[0] == "end":
            out["end"] = float(f[1])
    return out


def _flow_rows(plan: dict, raw: dict, run_end: float) -> list[dict]:
    rows = []
    ids = script.flow_ids(plan)
    for w, wl in enumerate(plan["workloads"]):
        tcp = plan["tcp"][wl["tcp"]] if wl.get("tcp") is not None else None
        psize = int(tcp["vars"].get("packetSize_", 1000)) if tcp else 0
        for k, fid in enumerate(ids[w]):
            r = raw["flows"].get(fid)
            if r is None:
                continue
            if wl["kind"] == "incast":
                src, dst = wl["servers"][k], wl["client"]
            else:
                src, dst = wl["src"], wl["dst"]
            if tcp is None:  # UDP: packets sent, packets received
                delivered = r["sink_bytes"] * int(wl["packet_bytes"])
                segs, rex, tos, cwnd, srtt = r["sent"], 0, 0, 0, math.nan
            else:
                # The sink counts wire bytes (packetSize_ + 40 per packet)
                # and the SYN's 40; payload is packetSize_ per packet.
                pkts = max(0, r["sink_bytes"] - script.HEADER_BYTES) // (
                    psize + script.HEADER_BYTES
                )
                delivered = pkts * psize
                segs, rex, tos = r["sent"], r["rexmit_pkts"], r["timeouts"]
                cwnd = int(r["cwnd_pkts"] * psize)
                # t_srtt_ is kept in ticks << T_SRTT_BITS (3) (tcp.cc, rtt_update).
                srtt = r["srtt_ticks8"] / 8.0 * r["tick_s"]
            end = r["end_s"] if r["end_s"] >= 0 else math.nan
            if wl["kind"] == "incast":
                end = raw["wdone"].get(w, math.nan)
            span = (end if not math.isnan(end) else run_end) - r["start_s"]
            done = not math.isnan(end)
            rows.append(
                {
                    "flow_id": fid,
                    "workload": w,
                    "kind": wl["kind"],
                    "cc": (tcp["agent"].lower() if tcp else ""),
                    "outcome": "complete" if done else "running",
                    "src": src,
                    "dst": dst,
                    "start_s": r["start_s"],
                    "end_s": end,
                    "bytes_delivered": delivered,
                    "goodput_bps": delivered * 8 / span if span > 0 else 0.0,
                    "segments_sent": segs,
                    "retransmits": rex,
                    "fast_retransmits": UNKNOWN,
                    "timeouts": tos,
                    "timeouts_retransmission": UNKNOWN,
                    "timeouts_tail": UNKNOWN,
                    "timeouts_window": UNKNOWN,
                    "ecn_reductions": 0,
                    "longest_silence_s": math.nan,
                    "final_cwnd_bytes": cwnd,
                    "srtt_s": srtt,
                    "rto_s": math.nan,
                    "local_drops": 0,
                    "src_addr": src,
                    "sport": UNKNOWN,
                    "dst_addr": dst,
                    "dport": UNKNOWN,
                    "sack": int(bool(tcp and "Sack" in tcp["sink"])),
                    "mss_bytes": psize,
                    "tx_queue": UNKNOWN,
                    "tx_queue_moves": UNKNOWN,
                }
            )
    return rows


def _series_rows(plan: dict, raw: dict) -> list[dict]:
    """The flow_series table as the simulator fills it: per flow, the
    payload bytes delivered in each bin k (t_s = k * bin, the bin's start)
    and their rate, from bin 0 to the flow's last bin with a delivery
    (none for a flow that delivered nothing).

    The harness prints a flow's sink counter at each bin end where it
    moved: a TCP sink's bytes_ (packetSize_ + 40 per packet and the SYN's
    40, as in the flows table, counted back to packetSize_ per packet), a
    LossMonitor's packets (packet_bytes each)."""
    bin_s = plan.get("throughput_bin_s")
    if bin_s is None:
        return []
    ids = script.flow_ids(plan)
    # Per flow: (bytes per unit of its counter, header bytes per packet);
    # a TCP sink counts the SYN's 40 bytes and packetSize_ + 40 per packet.
    unit: dict[int, tuple[int, int]] = {}
    for w, wl in enumerate(plan["workloads"]):
        tcp = plan["tcp"][wl["tcp"]] if wl.get("tcp") is not None else None
        if tcp is None:
            u = (int(wl["packet_bytes"]), -1)
        else:
            u = (int(tcp["vars"].get("packetSize_", 1000)), script.HEADER_BYTES)
        for fid in ids[w]:
            unit[fid] = u

    def conv(fid: int, counter: int) -> int:
        size, h = unit[fid]
        if h < 0:  # LossMonitor: packets
            return counter * size
        return max(0, counter - h) // (size + h) * size

    per_flow: dict[int, dict[int, int]] = {}
    last: dict[int, int] = {}
    for k, fid, counter in raw["series"]:
        if fid not in unit:
            continue
        now = conv(fid, counter)
        d = now - last.get(fid, 0)
        last[fid] = now
        if d:
            bins = per_flow.setdefault(fid, {})
            bins[k] = bins.get(k, 0) + d
    rows = []
    for fid in sorted(per_flow):
        bins = per_flow[fid]
        for k in range(max(bins) + 1):
            b = bins.get(k, 0)
            rows.append(
                {"t_s": k * bin_s, "flow_id": fid, "bytes": b, "throughput_bps": b * 8 / bin_s}
            )
    return rows


def _round_rows(plan: dict, raw: dict) -> list[dict]:
    rows = []
    for rd in raw["rounds"]:
        wl = plan["workloads"][rd["workload"]]
        d = rd["end_s"] - rd["start_s"]
        rows.append(
            {
                "workload": rd["workload"],
                # fairlab numbers rounds from 0.
                "round": rd["round"] - 1,
                "start_s": rd["start_s"],
                "end_s": rd["end_s"],
                "duration_s": d,
                "bytes": rd["bytes"],
                "goodput_bps": rd["bytes"] * 8 / d if d > 0 else 0.0,
                "slowest_server": wl["servers"][rd["slowest"]],
                "timeouts": rd["timeouts"],
            }
        )
    return rows


def _unwrap_bytes(b: int, pkts: int, biggest: int) -> int:
    """A queue monitor's byte count as it was before 32 bits wrapped it.

    ns-2 2.35 keeps barrivals_, bdepartures_ and bdrops_ in a C `int`
    (queue-monitor.h): past 2^31 bytes (a 100 Mb/s port busy for 172 s)
    the count wraps. Its packet counts do not wrap at these sizes, and every
    packet is 40 bytes (an ACK or SYN) up to `biggest`: the true count is the
    one of b + k 2^32 in [40 pkts, biggest pkts], unique while (biggest -
    40) pkts < 2^32."""
    lo = script.HEADER_BYTES * pkts
    true = b % 2**32
    while true < lo:
        true += 2**32
    if true > biggest * pkts:  # not a wrap of a plausible count: left as read
        return b
    return true


def _port_rows(plan: dict, raw: dict) -> list[dict]:
    kinds = {n["name"]: n["kind"] for n in plan["nodes"]}
    limits = {}
    for ln in plan["links"]:
        for x, y, q in ((ln["a"], ln["b"], ln["queue_ab"]), (ln["b"], ln["a"], ln["queue_ba"])):
            lim = (
                f"{q['limit_pkts']}pkt"
                if q.get("limit_pkts") is not None
                else f"{q.get('limit_bytes')}B"
            )
            limits[(x, y)] = f"{q['kind']}({lim})"
    # The largest packet of the run, for unwrapping the monitors' byte counts.
    biggest = max(
        [int(t["vars"].get("packetSize_", 1000)) + script.HEADER_BYTES for t in plan["tcp"]]
        + [int(w["packet_bytes"]) for w in plan["workloads"] if w["kind"] == "udp"]
        + [script.HEADER_BYTES]
    )
    rows = []
    for p in raw["ports"]:
        key = (p["node"], p["peer"])
        p = dict(p)
        for b, k in (("arr_b", "arr_p"), ("dep_b", "dep_p"), ("drop_b", "drop_p")):
            p[b] = _unwrap_bytes(p[b], p[k], biggest)
        rows.append(
            {
                "node": p["node"],
                "peer": p["peer"],
                "node_kind": kinds.get(p["node"], "switch"),
                "limit": limits.get(key, ""),
                "shaper": "",
                "enq_pkts": p["arr_p"] - p["drop_p"],
                "enq_bytes": p["arr_b"] - p["drop_b"],
                "deq_pkts": p["dep_p"],
                "deq_bytes": p["dep_b"],
                "drop_pkts": p["drop_p"],
                "drop_bytes": p["drop_b"],
                "max_bytes": UNKNOWN,
                "max_pkts": UNKNOWN,
                "mark_pkts": 0,
                "reordered_pkts": UNKNOWN,
                "timeout_rtx_pkts": UNKNOWN,
                "timeout_rtx_drops": UNKNOWN,
                "shaper_waits": 0,
                "hcf_periods": 0,
                "hcf_hp_pkts": 0,
                "hcf_lp_pkts": 0,
                "hcf_demoted_pkts": 0,
                "hcf_credit_drops": 0,
                "hcf_room_drops": 0,
                "avg_pkts": math.nan,
                "avg_bytes": math.nan,
            }
        )
    return rows


def _summary(
    plan, seed, rounds, flows, ports, run_end, wall, digest, request_timeouts=0
) -> dict[str, Any]:
    has_incast = any(w["kind"] == "incast" for w in plan["workloads"])
    rb = sum(r["bytes"] for r in rounds)
    rt = sum(r["duration_s"] for r in rounds)
    psizes = [int(t["vars"].get("packetSize_", 1000)) for t in plan["tcp"]]
    psize = psizes[0] if psizes else 1000
    return {
        "backend": "ns2",
        "seed": seed,
        "profile": "ns2",
        "sim_end_s": run_end,
        "events": UNKNOWN,
        "packets_sent": sum(p["deq_pkts"] for p in ports if p["node_kind"] == "host"),
        "data_packets_sent": sum(max(f["segments_sent"], 0) for f in flows),
        "packet_hops": sum(p["deq_pkts"] for p in ports),
        "drops": sum(p["drop_pkts"] for p in ports if p["node_kind"] == "switch"),
        "local_drops": sum(p["drop_pkts"] for p in ports if p["node_kind"] == "host"),
        "rounds_completed": len(rounds),
        "incast_goodput_bps": rb * 8 / rt if has_incast and rt > 0 else math.nan,
        # What the FAST'08 scripts summed: the sinks' bytes_, 40 bytes of
        # header on every packetSize_ bytes of payload.
        "incast_goodput_wire_bps": rb * 8 / rt * (psize + script.HEADER_BYTES) / psize
        if has_incast and rt > 0
        else math.nan,
        # As the simulator counts them: both ends of every connection (an
        # incast's request agent too; the flows table has the data side).
        "total_timeouts": sum(max(f["timeouts"], 0) for f in flows) + request_timeouts,
        "timeouts_retransmission": UNKNOWN,
        "timeouts_tail": UNKNOWN,
        "timeouts_window": UNKNOWN,
        "tcp": ",".join(sorted({t["agent"].lower() for t in plan["tcp"]})),
        "sack": ",".join(sorted({"on" if "Sack" in t["sink"] else "off" for t in plan["tcp"]})),
        "udp_sent": sum(f["segments_sent"] for f in flows if f["kind"] == "udp"),
        "udp_delivered": sum(f["bytes_delivered"] for f in flows if f["kind"] == "udp"),
        "hcf_memory_bits": 0,
        "base_rtt_s": math.nan,
        "wall_s": wall,
        "warnings": " | ".join(plan.get("warnings", [])),
        "digest": digest,
    }


def tables_from(plan: dict, raw: dict, seed: int, wall: float) -> tuple[dict, dict]:
    run_end = raw["end"]
    flows = _flow_rows(plan, raw, run_end)
    rounds = _round_rows(plan, raw)
    ports = _port_rows(plan, raw)
    series = _series_rows(plan, raw)
    tables = {
        "flows": tb.frame(flows, tb.FLOW_COLUMNS),
        "rounds": tb.frame(rounds, tb.ROUND_COLUMNS),
        "ports": tb.frame(ports, tb.PORT_COLUMNS),
        "flow_series": tb.frame(series, tb.FLOW_SERIES_COLUMNS),
    }
    hashed: list[Any] = [flows, rounds, ports] + ([series] if series else [])
    h = hashlib.sha256(json.dumps(hashed, default=str).encode()).hexdigest()
    req = sum(f.get("request_timeouts", 0) for f in raw["flows"].values())
    summary = _summary(plan, seed, rounds, flows, ports, run_end, wall, "ns2-" + h[:16], req)
    return tables, summary


def simulate_ns2(
    scenario: str | dict,
    seed: int | None = None,
    time_limit_s: float = DEFAULT_TIME_LIMIT_S,
    ack_first: bool = True,
) -> Result:
    """Runs a scenario (JSON text or dict) on ns-2; returns its Result.

    Raises ScenarioError (a field ns-2 cannot honour), Ns2Unavailable or
    Ns2Failed."""
    text = scenario if isinstance(scenario, str) else json.dumps(scenario)
    plan = lower(text)
    seed = plan["seed"] if seed is None else seed
    text_tcl = script.write(plan, seed, ack_first)
    lines, wall = run_script(text_tcl, time_limit_s)
    tables, summary = tables_from(plan, parse(lines), seed, wall)
    summary["ns_version"] = _cached_version()
    summary["script_digest"] = hashlib.sha256(text_tcl.encode()).hexdigest()[:16]
    sc = json.loads(_core.validate_json(text))
    return Result(summary=summary, tables=Tables(tables), scenario=sc)
