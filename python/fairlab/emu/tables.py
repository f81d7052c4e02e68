"""The agents' reports and `tc -s` counters made into the simulator's tables
(docs/binding.md: same names, same types), so that `fairlab.load`, the
analyses and the plots read both backends alike.

What the kernel does not tell (the causes of timeouts, fast retransmits
apart from others, per-port ECN marks, a time-averaged queue unless sampled)
is -1 in an integer column and NaN in a float one; docs/emulation.md lists
them.
"""

from __future__ import annotations

import math
from typing import Any

UNKNOWN = -1

FLOW_COLUMNS = {
    "flow_id": "i",
    "workload": "i",
    "kind": "s",
    "cc": "s",
    "outcome": "s",
    "src": "s",
    "dst": "s",
    "start_s": "f",
    "end_s": "f",
    "bytes_delivered": "i",
    "goodput_bps": "f",
    "segments_sent": "i",
    "retransmits": "i",
    "fast_retransmits": "i",
    "timeouts": "i",
    "timeouts_retransmission": "i",
    "timeouts_tail": "i",
    "timeouts_window": "i",
    "ecn_reductions": "i",
    "longest_silence_s": "f",
    "final_cwnd_bytes": "i",
    "srtt_s": "f",
    "rto_s": "f",
    "local_drops": "i",
    "src_addr": "s",
    "sport": "i",
    "dst_addr": "s",
    "dport": "i",
    "sack": "i",
    "mss_bytes": "i",
    "tx_queue": "i",
    "tx_queue_moves": "i",
}
ROUND_COLUMNS = {
    "workload": "i",
    "round": "i",
    "start_s": "f",
    "end_s": "f",
    "duration_s": "f",
    "bytes": "i",
    "goodput_bps": "f",
    "slowest_server": "s",
    "timeouts": "i",
}
PORT_COLUMNS = {
    "node": "s",
    "peer": "s",
    "node_kind": "s",
    "limit": "s",
    "shaper": "s",
    "enq_pkts": "i",
    "enq_bytes": "i",
    "deq_pkts": "i",
    "deq_bytes": "i",
    "drop_pkts": "i",
    "drop_bytes": "i",
    "max_bytes": "i",
    "max_pkts": "i",
    "mark_pkts": "i",
    "reordered_pkts": "i",
    "timeout_rtx_pkts": "i",
    "timeout_rtx_drops": "i",
    "shaper_waits": "i",
    "hcf_periods": "i",
    "hcf_hp_pkts": "i",
    "hcf_lp_pkts": "i",
    "hcf_demoted_pkts": "i",
    "hcf_credit_drops": "i",
    "hcf_room_drops": "i",
    "avg_pkts": "f",
    "avg_bytes": "f",
}
FLOW_SERIES_COLUMNS = {"t_s": "f", "flow_id": "i", "bytes": "i", "throughput_bps": "f"}
QUEUE_SERIES_COLUMNS = {"t_s": "f", "node": "s", "peer": "s", "bytes": "i", "pkts": "i"}
NIC_QUEUE_COLUMNS = {
    "node": "s",
    "peer": "s",
    "queue": "i",
    "enq_pkts": "i",
    "deq_pkts": "i",
    "drop_pkts": "i",
    "max_pkts": "i",
    "held_pkts": "i",
    "ring_size": "i",
    "ring_enq_pkts": "i",
    "ring_max_pkts": "i",
    "ring_held_pkts": "i",
    "sent_pkts": "i",
    "sent_bytes": "i",
    "bql_limit_bytes": "i",
    "bql_max_limit_bytes": "i",
    "turn_pkts": "i",
    "flows": "i",
    "requeues": "i",
    "root_stall_s": "f",
    "root_stalled": "i",
}
TRACE_COLUMNS = {
    "flow_id": "i",
    "t_s": "f",
    "cwnd_bytes": "i",
    "ssthresh_bytes": "i",
    "srtt_s": "f",
    "rto_s": "f",
    "in_recovery": "i",
    "dctcp_alpha": "f",
}


def frame(rows: list[dict[str, Any]], columns: dict[str, str]):
    """An Arrow table with exactly these columns, in the core's types
    (int64, float64, large_string), rows or none."""
    import pyarrow as pa

    types = {"i": pa.int64(), "f": pa.float64(), "s": pa.large_string()}
    conv = {"i": int, "f": float, "s": str}
    arrays = [pa.array([conv[t](r[c]) for r in rows], type=types[t]) for c, t in columns.items()]
    return pa.Table.from_arrays(arrays, names=list(columns))


def _longest_silence(samples: list, end_s: float) -> float:
    """The longest time the sender's bytes_acked stood still while data was
    outstanding, at the samples' resolution."""
    longest = 0.0
    last_t, last_acked = None, None
    for s in samples:
        t, acked = s[0], s[6]
        if last_acked is None or acked != last_acked:
            last_t, last_acked = t, acked
        else:
            longest = max(longest, t - last_t)
    return longest


def flows_table(plan: dict, reports: list[dict], run_end_s: float) -> list[dict]:
    by_flow: dict[int, dict] = {}
    samples: dict[int, list] = {}
    for rep in reports:
        for r in rep["records"]:
            by_flow.setdefault(r["flow_id"], {}).update(r)
        for k, v in rep["samples"].items():
            samples.setdefault(int(k), []).extend(v)
    rows = []
    for f in plan["flows"]:
        if f["kind"] in ("udp", "radon"):
            continue
        fid = f["flow_id"]
        r = by_flow.get(fid, {})
        info = r.get("info") or {}
        w = plan["workloads"][f["workload"]]
        start = r.get("start_s", w["start_s"])
        received = int(r.get("received", 0))
        expected = _expected_bytes(w, f, r)
        complete = expected is not None and received >= expected
        end = r.get("last_s", math.nan) if complete else math.nan
        span = (end if complete else run_end_s) - start
        cc = f["cc"] + ("+sack" if f["sack"] else "")
        rows.append(
            {
                "flow_id": fid,
                "workload": f["workload"],
                "kind": f["kind"],
                "cc": cc,
                "outcome": "complete" if complete else "incomplete",
                "src": f["src"],
                "dst": f["dst"],
                "start_s": start,
                "end_s": end,
                "bytes_delivered": received,
                "goodput_bps": received * 8 / span if span > 0 else 0.0,
                "segments_sent": info.get("data_segs_out", UNKNOWN),
                "retransmits": info.get("total_retrans", UNKNOWN),
                "fast_retransmits": UNKNOWN,
                "timeouts": info.get("total_rto", UNKNOWN),
                "timeouts_retransmission": UNKNOWN,
                "timeouts_tail": UNKNOWN,
                "timeouts_window": UNKNOWN,
                "ecn_reductions": UNKNOWN,
                "longest_silence_s": _longest_silence(samples.get(fid, []), run_end_s),
                "final_cwnd_bytes": info.get("snd_cwnd", 0) * info.get("snd_mss", 0)
                if info
                else UNKNOWN,
                "srtt_s": info["rtt_us"] / 1e6 if info else math.nan,
                "rto_s": info["rto_us"] / 1e6 if info else math.nan,
                "local_drops": UNKNOWN,
                "src_addr": f["src_addr"],
                "sport": UNKNOWN,
                "dst_addr": f["dst_addr"],
                "dport": f["port"],
                "sack": int(f["sack"]),
                "mss_bytes": info.get("snd_mss", f["mss"]) if info else f["mss"],
                # The kernel does not tell a socket its transmit queue.
                "tx_queue": UNKNOWN,
                "tx_queue_moves": UNKNOWN,
            }
        )
    return rows


def _expected_bytes(w: dict, f: dict, r: dict) -> int | None:
    k = w["kind"]
    if k == "incast":
        j = w["flow_ids"].index(f["flow_id"])
        return w["sru_bytes"][j] * (w["rounds"] + (1 if w["warmup"] else 0))
    if k in ("bulk", "short"):
        size = w.get("size_bytes")
        return None if size is None else int(size)
    if k == "nfs_read":
        reads = -(-w["file_bytes"] // w["io_bytes"])
        return reads * (w["io_bytes"] + w["reply_header_bytes"])
    return None


def rounds_table(plan: dict, reports: list[dict]) -> list[dict]:
    rows = []
    # Each server's total_rto when each request arrived: round r's
    # timeouts are the increase from request r to request r + 1.
    rto: dict[int, list[int]] = {}
    for rep in reports:
        for r in rep["records"]:
            if "rto_at_request" in r:
                rto[r["flow_id"]] = r["rto_at_request"]
    for rep in reports:
        for rd in rep["rounds"]:
            w = plan["workloads"][rd["workload"]]
            k = rd["round"] + (1 if w["warmup"] else 0)
            timeouts = 0
            for fid in w["flow_ids"]:
                seq = rto.get(fid, [])
                if k + 1 < len(seq):
                    timeouts += seq[k + 1] - seq[k]
            d = rd["end_s"] - rd["start_s"]
            rows.append(
                {
                    "workload": rd["workload"],
                    "round": rd["round"],
                    "start_s": rd["start_s"],
                    "end_s": rd["end_s"],
                    "duration_s": d,
                    "bytes": rd["bytes"],
                    "goodput_bps": rd["bytes"] * 8 / d if d > 0 else 0.0,
                    "slowest_server": w["servers"][rd["slowest"]],
                    "timeouts": timeouts,
                }
            )
    rows.sort(key=lambda r: (r["workload"], r["round"]))
    return rows


def ports_table(plan: dict, stats: dict[tuple[str, str], dict], series: list[dict]) -> list[dict]:
    rows = []
    for p in plan["ports"]:
        key = (p["node"], p["peer"])
        st = stats.get(key, {})
        s = p["shaper"]
        q = [r for r in series if (r["node"], r["peer"]) == key]
        rows.append(
            {
                "node": p["node"],
                "peer": p["peer"],
                "node_kind": p["node_kind"],
                "limit": p["queue"]["limit_text"],
                "shaper": f"{s['kind']}({s['rate_bps']},{s['burst_bytes']}"
                + (f",{s['cburst_bytes']})" if s["kind"] == "htb" else ")"),
                # tc counts what its qdisc sent; every admitted packet was
                # sent or is still queued (the backlog at the end).
                "enq_pkts": st.get("packets", 0) + st.get("qlen", 0),
                "enq_bytes": st.get("bytes", 0) + st.get("backlog", 0),
                "deq_pkts": st.get("packets", 0),
                "deq_bytes": st.get("bytes", 0),
                "drop_pkts": st.get("drops", 0),
                "drop_bytes": UNKNOWN,
                "max_bytes": max((r["bytes"] for r in q), default=UNKNOWN),
                "max_pkts": max((r["pkts"] for r in q), default=UNKNOWN),
                "mark_pkts": UNKNOWN,
                "reordered_pkts": UNKNOWN,
                "timeout_rtx_pkts": UNKNOWN,
                "timeout_rtx_drops": UNKNOWN,
                "shaper_waits": st.get("overlimits", 0),
                "hcf_periods": 0,
                "hcf_hp_pkts": 0,
                "hcf_lp_pkts": 0,
                "hcf_demoted_pkts": 0,
                "hcf_credit_drops": 0,
                "hcf_room_drops": 0,
                "avg_pkts": sum(r["pkts"] for r in q) / len(q) if q else math.nan,
                "avg_bytes": sum(r["bytes"] for r in q) / len(q) if q else math.nan,
            }
        )
    return rows


def flow_series_table(plan: dict, reports: list[dict]) -> list[dict]:
    b = plan.get("throughput_bin_s")
    if not b:
        return []
    rows = []
    for rep in reports:
        for r in rep["records"]:
            for t, n in r.get("bins", []):
                rows.append(
                    {"t_s": t, "flow_id": r["flow_id"], "bytes": n, "throughput_bps": n * 8 / b}
                )
    rows.sort(key=lambda r: (r["t_s"], r["flow_id"]))
    return rows


def trace_table(plan: dict, reports: list[dict]) -> list[dict]:
    if not plan.get("trace"):
        return []
    only = set(plan["trace_flows"]) if plan.get("trace_flows") is not None else None
    rows = []
    for rep in reports:
        for k, v in rep["samples"].items():
            fid = int(k)
            if only is not None and fid not in only:
                continue
            for t, cwnd, ssthresh, rtt, rto, ca_state, *_ in v:
                rows.append(
                    {
                        "flow_id": fid,
                        "t_s": t,
                        "cwnd_bytes": cwnd,
                        "ssthresh_bytes": ssthresh,
                        "srtt_s": rtt / 1e6,
                        "rto_s": rto / 1e6,
                        # tcp_ca_state: 3 TCP_CA_Recovery, 4 TCP_CA_Loss.
                        "in_recovery": int(ca_state >= 3),
                        "dctcp_alpha": math.nan,
                    }
                )
    rows.sort(key=lambda r: (r["flow_id"], r["t_s"]))
    return rows


DROP_TRACE_COLUMNS = {
    "t_s": "f",
    "input": "s",
    "flow_id": "i",
    "data": "i",
    "src": "s",
    "dst": "s",
    "seq": "i",
    "payload_bytes": "i",
    "admitted": "i",
    "queue_pkts": "i",
    "queue_bytes": "i",
}
PORT_INPUT_COLUMNS = {
    "node": "s",
    "peer": "s",
    "input": "s",
    "arrival_pkts": "i",
    "arrival_bytes": "i",
    "drop_pkts": "i",
    "drop_bytes": "i",
    "runs": "i",
    "runs_alone": "i",
    "longest_run": "i",
    "input_runs": "i",
    "longest_input_run": "i",
}

#: IPv4 and TCP headers and the Ethernet header the capture saw: a packet's
#: bytes at the port are its payload plus these (the simulator's packets
#: are payload + 40).
WIRE_HEADER = 40


def _flow_of(plan: dict) -> tuple[dict, dict]:
    """Flows by listener port, and host names by address."""
    by_port = {f["port"]: f for f in plan["flows"]}
    names = {n["addr"]: n["name"] for n in plan["nodes"] if n["kind"] == "host"}
    return by_port, names


def drop_trace_table(plan: dict, rows: list) -> tuple[list[dict], int]:
    """The captured arrivals as the simulator's drop_trace rows (the first
    max_rows; how many were left out)."""
    dt = plan["drop_trace"]
    by_port, names = _flow_of(plan)
    out = []
    for t, k, src, dst, sport, dport, seq, payload, admitted in rows[: dt["max_rows"]]:
        f = by_port.get(dport) or by_port.get(sport)
        out.append(
            {
                "t_s": t,
                "input": dt["inputs"][k]["peer"],
                "flow_id": f["flow_id"] if f else UNKNOWN,
                "data": int(bool(f) and src == f["src_addr"]),
                "src": names.get(src, src),
                "dst": names.get(dst, dst),
                "seq": seq,
                "payload_bytes": payload,
                "admitted": admitted,
                "queue_pkts": UNKNOWN,
                "queue_bytes": UNKNOWN,
            }
        )
    return out, max(len(rows) - dt["max_rows"], 0)


def port_inputs_table(plan: dict, rows: list) -> list[dict]:
    """Per input of the traced port: arrivals, drops, and the runs of
    consecutive drops (docs/scenario.md, "Drops by input port")."""
    dt = plan["drop_trace"]
    n = len(dt["inputs"])
    arr = [0] * n
    arr_b = [0] * n
    drops = [0] * n
    drop_b = [0] * n
    runs = [0] * n
    alone = [0] * n
    longest = [0] * n
    own_runs = [0] * n
    own_longest = [0] * n
    own_len = [0] * n
    run: list[int] = []

    def close_run() -> None:
        if run:
            hit = set(run)
            for k in hit:
                runs[k] += 1
                longest[k] = max(longest[k], len(run))
            if len(hit) == 1:
                alone[run[0]] += 1
            run.clear()

    for _t, k, *_mid, payload, admitted in rows:
        size = payload + WIRE_HEADER
        arr[k] += 1
        arr_b[k] += size
        if admitted:
            close_run()
            if own_len[k]:
                own_runs[k] += 1
                own_longest[k] = max(own_longest[k], own_len[k])
                own_len[k] = 0
        else:
            drops[k] += 1
            drop_b[k] += size
            run.append(k)
            own_len[k] += 1
    close_run()
    for k in range(n):
        if own_len[k]:
            own_runs[k] += 1
            own_longest[k] = max(own_longest[k], own_len[k])
    return [
        {
            "node": dt["node"],
            "peer": dt["peer"],
            "input": dt["inputs"][k]["peer"],
            "arrival_pkts": arr[k],
            "arrival_bytes": arr_b[k],
            "drop_pkts": drops[k],
            "drop_bytes": drop_b[k],
            "runs": runs[k],
            "runs_alone": alone[k],
            "longest_run": longest[k],
            "input_runs": own_runs[k],
            "longest_input_run": own_longest[k],
        }
        for k in range(n)
        if arr[k]
    ]


DROP_RUN_COLUMNS = {
    "node": "s",
    "peer": "s",
    "input": "s",
    "run_length": "i",
    "runs": "i",
    "runs_alone": "i",
    "drops": "i",
    "input_runs": "i",
}
FLOW_DROP_RUN_COLUMNS = {
    "flow_id": "i",
    "data": "i",
    "src": "s",
    "dst": "s",
    "node": "s",
    "peer": "s",
    "run_length": "i",
    "runs": "i",
}


def _own_runs(fates: list[int]) -> list[int]:
    """Lengths of the runs of drops (0s) in a sequence of fates."""
    out, n = [], 0
    for admitted in fates:
        if admitted:
            if n:
                out.append(n)
            n = 0
        else:
            n += 1
    if n:
        out.append(n)
    return out


def drop_runs_tables(plan: dict, rows: list) -> tuple[list[dict], list[dict]]:
    """The traced port's histograms of drop runs (the simulator's drop_runs:
    the whole port, ``input = "*"``, then per input) and per flow direction
    (flow_drop_runs), from the joined capture."""
    from collections import Counter, defaultdict

    dt = plan["drop_trace"]
    by_port, names = _flow_of(plan)
    inputs = [i["peer"] for i in dt["inputs"]]
    # The port's runs: consecutive drops, whatever their input.
    port_runs: list[list[int]] = []
    run: list[int] = []
    per_input: dict[int, list[int]] = defaultdict(list)
    per_flow: dict[tuple, list[int]] = defaultdict(list)
    for _t, k, src, dst, sport, dport, _seq, _payload, admitted in rows:
        per_input[k].append(admitted)
        f = by_port.get(dport) or by_port.get(sport)
        if f is not None:
            per_flow[(f["flow_id"], int(src == f["src_addr"]), src, dst)].append(admitted)
        if admitted:
            if run:
                port_runs.append(run)
            run = []
        else:
            run.append(k)
    if run:
        port_runs.append(run)
    own = {k: Counter(_own_runs(v)) for k, v in per_input.items()}
    base = {"node": dt["node"], "peer": dt["peer"]}
    out = []
    lengths = Counter(len(r) for r in port_runs)
    alone = Counter(len(r) for r in port_runs if len(set(r)) == 1)
    for n in sorted(lengths):
        out.append(
            {
                **base,
                "input": "*",
                "run_length": n,
                "runs": lengths[n],
                "runs_alone": alone[n],
                "drops": n * lengths[n],
                "input_runs": sum(c[n] for c in own.values()),
            }
        )
    for k in sorted(per_input):
        hit = Counter(len(r) for r in port_runs if k in r)
        only = Counter(len(r) for r in port_runs if set(r) == {k})
        drops = Counter()
        for r in port_runs:
            if k in r:
                drops[len(r)] += r.count(k)
        for n in sorted(set(hit) | set(own[k])):
            out.append(
                {
                    **base,
                    "input": inputs[k],
                    "run_length": n,
                    "runs": hit[n],
                    "runs_alone": only[n],
                    "drops": drops[n],
                    "input_runs": own[k][n],
                }
            )
    flows = []
    for (fid, data, src, dst), fates in sorted(per_flow.items()):
        for n, c in sorted(Counter(_own_runs(fates)).items()):
            flows.append(
                {
                    "flow_id": fid,
                    "data": data,
                    "src": names.get(src, src),
                    "dst": names.get(dst, dst),
                    **base,
                    "run_length": n,
                    "runs": c,
                }
            )
    return out, flows
