"""An ns-2 plan (crates/fairlab-sim/src/spec/lower/ns2.rs) written as the
Tcl script ns-2 2.35 runs: the harness (harness.tcl) and the run's own
nodes, links, queue monitors, agents and workloads.

Every name a user gave stays in the script (node names as array keys), so
a script can be read beside its scenario. Numbers are written with 12
significant digits: ns-2 parses them as doubles.
"""

from __future__ import annotations

import math
from importlib import resources
from typing import Any

#: ns-2's TCP/IP header on every packet of a one-way agent
#: (Agent/TCP tcpip_base_hdr_size_, ns-default.tcl).
HEADER_BYTES = 40
#: A UDP packet's IP and UDP headers are not added by Agent/UDP: its
#: packetSize_ is the whole packet (udp.cc).


def harness() -> str:
    return resources.files(__package__).joinpath("harness.tcl").read_text()


def _num(x: float | int | bool) -> str:
    if isinstance(x, bool):
        return "1" if x else "0"
    if isinstance(x, int):
        return str(x)
    return f"{x:.12g}"


def _q(name: str) -> str:
    """A node name as a Tcl array key (braced: names may hold any char)."""
    return "{" + name.replace("{", "").replace("}", "") + "}"


def _queue_lines(q: dict[str, Any], a: str, b: str) -> list[str]:
    """The output queue of a toward b: its limit and, for RED, its
    parameters.

    A scenario's limit counts the packets (or bytes) waiting, the one on
    the wire apart, as the simulator's ports do. ns-2's DropTail::enque
    (queue/drop-tail.cc) drops an arrival when `length() + 1 >= qlim_`, or
    in byte mode when `byteLength() + size >= qlim_ * mean_pktsize_`: a
    `queue-limit` of n holds n - 1 packets. So the script asks for one more
    (and, in bytes, counts in 1-byte units), and a scenario's 32pkt is 32
    waiting packets on both backends. (The FAST'08 scripts' `queue-limit
    32` is therefore 31pkt in a scenario.) RED tests `length() >= qlim_`
    before it enqueues (red.cc, REDQueue::enque): its limit is the
    scenario's as it is."""
    out = []
    link = f"[[$ns link $n({_q(a)}) $n({_q(b)})] queue]"
    limit = f"$ns queue-limit $n({_q(a)}) $n({_q(b)})"
    red = q["kind"] == "red"
    vars_ = dict(q.get("vars") or {})
    if q.get("limit_pkts") is not None:
        out.append(f"{limit} {q['limit_pkts'] + (0 if red else 1)}")
    elif q.get("limit_bytes") is not None and red:
        # RED's byte mode counts limit_ in mean_pktsize_ units (red.cc).
        mean = int(vars_.get("mean_pktsize_", 1000))
        out.append(f"{limit} {max(1, q['limit_bytes'] // mean)}")
    elif q.get("limit_bytes") is not None:
        out.append(f"{link} set queue-in-bytes_ true")
        out.append(f"{link} set mean_pktsize_ 1")
        out.append(f"{limit} {q['limit_bytes'] + 1}")
    for var, val in vars_.items():
        out.append(f"{link} set {var} {_num(val)}")
    return out


def _agent(var: str, node: str, tcp: dict[str, Any]) -> list[str]:
    lines = [f"set {var} [new Agent/TCP/{tcp['agent']}]"]
    for k, v in sorted(tcp["vars"].items()):
        lines.append(f"${var} set {k} {_num(v)}")
    lines.append(f"$ns attach-agent $n({_q(node)}) ${var}")
    return lines


def _sink(var: str, node: str, tcp: dict[str, Any]) -> list[str]:
    lines = [f"set {var} [new Agent/{tcp['sink']}]"]
    for k, v in sorted((tcp.get("sink_vars") or {}).items()):
        lines.append(f"${var} set {k} {_num(v)}")
    lines.append(f"$ns attach-agent $n({_q(node)}) ${var}")
    return lines


def _pkts(nbytes: int, psize: int) -> int:
    """Packets a one-way agent sends for n bytes (TcpAgent::sendmsg)."""
    return max(1, math.ceil(nbytes / psize))


def _incast(w: int, wl: dict[str, Any], tcp: dict[str, Any], flow0: int) -> list[str]:
    psize = int(tcp["vars"].get("packetSize_", 1000))
    n = len(wl["servers"])
    req = _pkts(int(wl["request_bytes"]), psize)
    lines = [
        f"# workload {w}: incast, {n} servers",
        f"set fl_inc_n({w}) {n}",
        f"set fl_inc_warm({w}) {_num(bool(wl['warmup']))}",
        f"set fl_inc_rounds({w}) {int(wl['rounds'])}",
        f"set fl_inc_round({w}) 0",
        f"set fl_inc_reqpkts({w}) {req}",
        f"set fl_inc_order({w}) {wl.get('request_order', 'random')}",
        f"set fl_psize({w}) {psize}",
        f"set fl_inc_bytes({w}) {sum(_pkts(int(b), psize) * psize for b in wl['sru_bytes'])}",
    ]
    for i, (srv, sru) in enumerate(zip(wl["servers"], wl["sru_bytes"], strict=True)):
        fid = flow0 + i
        pk = _pkts(int(sru), psize)
        # Requests: an agent at the client whose sink is at the server; its
        # ACKs cross the congested port toward the client, as in the
        # authors' runs. Only the server agents have the run's bugFix_ etc.;
        # the authors' client agents were ns-2's defaults but for the type.
        client_tcp = {**tcp, "vars": {**tcp["vars"], **(tcp.get("request_vars") or {})}}
        lines += _agent(f"fl_req({w},{i})", wl["client"], client_tcp)
        lines += _sink(f"fl_rsink({w},{i})", srv, tcp)
        lines += [f"$ns connect $fl_req({w},{i}) $fl_rsink({w},{i})"]
        lines += _agent(f"fl_dat({w},{i})", srv, tcp)
        lines += _sink(f"fl_dsink({w},{i})", wl["client"], tcp)
        lines += [
            f"$ns connect $fl_dat({w},{i}) $fl_dsink({w},{i})",
            f"set fl_inc_pkts({w},{i}) {pk}",
            f"set fl_srv({w},{i}) [new Application/FlMsgs]",
            f"$fl_srv({w},{i}) set size {req * (psize + HEADER_BYTES)}",
            f"$fl_srv({w},{i}) set cb {{fl_incast_server_msg {w} {i}}}",
            f"$fl_srv({w},{i}) attach-agent $fl_rsink({w},{i})",
            f"$fl_srv({w},{i}) start",
            f"set fl_cli({w},{i}) [new Application/FlMsgs]",
            f"$fl_cli({w},{i}) set size {psize + HEADER_BYTES}",
            f"$fl_cli({w},{i}) set cb {{fl_incast_client_msg {w} {i}}}",
            f"$fl_cli({w},{i}) attach-agent $fl_dsink({w},{i})",
            f"$fl_cli({w},{i}) start",
            # The request agent too: its timeouts count in the run's total,
            # as the simulator counts both ends of a connection.
            f"lappend fl_flows [list {fid} $fl_dat({w},{i}) $fl_dsink({w},{i}) $fl_req({w},{i})]",
            f"set fl_flow_start({fid}) {_num(float(wl.get('start_s', 0.0)))}",
        ]
    lines.append(f"$ns at {_num(float(wl.get('start_s', 0.0)))} {{fl_incast_start {w}}}")
    return lines


def _tcp_flow(
    w: int, fid: int, src: str, dst: str, nbytes: int | None, start: float, tcp: dict
) -> list[str]:
    psize = int(tcp["vars"].get("packetSize_", 1000))
    a, s = f"fl_tcp({fid})", f"fl_sink({fid})"
    lines = _agent(a, src, tcp) + _sink(s, dst, tcp)
    # `send -1` is an endless source (TcpAgent::sendmsg: curseq_ = TCP_MAXSEQ).
    send = "send -1" if nbytes is None else f"advanceby {_pkts(nbytes, psize)}"
    lines += [
        f"$ns connect ${a} ${s}",
        f"${a} proc done {{}} {{fl_flow_done {fid}}}",
        f"set fl_flow_w({fid}) {w}",
        f"set fl_flow_start({fid}) {_num(start)}",
        f"lappend fl_flows [list {fid} ${a} ${s}]",
        f"$ns at {_num(start)} {{${a} {send}}}",
    ]
    return lines


def _udp(w: int, fid: int, wl: dict[str, Any]) -> list[str]:
    u, s = f"fl_udp({fid})", f"fl_sink({fid})"
    size = int(wl["packet_bytes"])
    gap = size * 8 / float(wl["rate_bps"])
    stop = wl.get("stop_s")
    start = float(wl.get("start_s", 0.0))
    poisson = wl.get("arrivals", "cbr") == "poisson"
    return [
        f"set {u} [new Agent/UDP]",
        f"${u} set packetSize_ {size}",
        f"$ns attach-agent $n({_q(wl['src'])}) ${u}",
        f"set {s} [new Agent/LossMonitor]",
        f"$ns attach-agent $n({_q(wl['dst'])}) ${s}",
        f"$ns connect ${u} ${s}",
        f"set fl_udp_sent({fid}) 0",
        f"set fl_flow_start({fid}) {_num(start)}",
        f"lappend fl_flows [list {fid} ${u} ${s}]",
        f"$ns at {_num(start)} {{fl_udp_send {fid} ${u} {size} {_num(gap)} "
        f"{_num(poisson)} {_num(-1.0 if stop is None else float(stop))}}}",
    ]


def _short_starts(wl: dict[str, Any]) -> list[float]:
    """Opening times of a short workload's flows: uniform over the spread,
    drawn in Python from a fixed stream (the plan's workloads carry no seed,
    so every run of a plan opens its short flows at the same instants)."""
    import random

    r = random.Random(wl.get("seed", 0))
    start = float(wl.get("start_s", 0.0))
    spread = float(wl.get("spread_s", 0.0))
    return [start + (r.uniform(0.0, spread) if spread > 0 else 0.0) for _ in range(wl["count"])]


def flow_ids(plan: dict[str, Any]) -> list[list[int]]:
    """Flow ids of each workload, numbered in workload order (one per
    server of an incast, per flow of a short workload)."""
    out, nxt = [], 0
    for wl in plan["workloads"]:
        k = wl["kind"]
        n = len(wl["servers"]) if k == "incast" else wl["count"] if k == "short" else 1
        out.append(list(range(nxt, nxt + n)))
        nxt += n
    return out


def write(plan: dict[str, Any], seed: int, ack_first: bool = True) -> str:
    """The whole script for one run."""
    lines = [
        f"# fairlab ns-2 script: {plan.get('name', '')}",
        "set ns [new Simulator]",
        f"set fl_rng [new RNG]\n$fl_rng seed {max(1, int(seed))}",
        "set fl_flows {}\nset fl_ports {}",
        harness(),
        f"set fl_ack_first {_num(ack_first)}",
    ]
    for node in plan["nodes"]:
        lines.append(f"set n({_q(node['name'])}) [$ns node]")
    for ln in plan["links"]:
        a, b = ln["a"], ln["b"]
        kind = "RED" if "red" in (ln["queue_ab"]["kind"], ln["queue_ba"]["kind"]) else "DropTail"
        lines.append(
            f"$ns duplex-link $n({_q(a)}) $n({_q(b)}) {ln['rate_bps']}b "
            f"{_num(float(ln['delay_s']))}s {kind}"
        )
        lines += _queue_lines(ln["queue_ab"], a, b)
        lines += _queue_lines(ln["queue_ba"], b, a)
        for x, y in ((a, b), (b, a)):
            mon = f'[$ns monitor-queue $n({_q(x)}) $n({_q(y)}) ""]'
            lines.append(f"lappend fl_ports [list {_q(x)} {_q(y)} {mon}]")
    ids = flow_ids(plan)
    lines.append(f"set fl_open {len(plan['workloads'])}")
    for w, wl in enumerate(plan["workloads"]):
        k = wl["kind"]
        tcp = plan["tcp"][wl["tcp"]] if wl.get("tcp") is not None else None
        if k == "incast":
            lines += _incast(w, wl, tcp, ids[w][0])
        elif k == "bulk":
            lines.append(f"set fl_w_open({w}) 1")
            lines += _tcp_flow(
                w, ids[w][0], wl["src"], wl["dst"], wl.get("bytes"), float(wl["start_s"]), tcp
            )
            if wl.get("bytes") is None:
                lines.append("incr fl_open -1")
        elif k == "short":
            lines.append(f"set fl_w_open({w}) {wl['count']}")
            nbytes = int(wl["bytes"])
            for fid, t in zip(ids[w], _short_starts(wl), strict=True):
                lines += _tcp_flow(w, fid, wl["src"], wl["dst"], nbytes, t, tcp)
        elif k == "udp":
            lines += _udp(w, ids[w][0], wl)
            lines.append("incr fl_open -1")
        else:  # the lowering refuses every other kind
            raise ValueError(f"workload[{w}].kind: {k!r} is not lowered to ns-2")
    bin_s = plan.get("throughput_bin_s")
    if bin_s is not None:
        # Every flow's sink sampled at every bin end (harness: fl_series_tick).
        lines.append(f"set fl_bin {_num(float(bin_s))}")
        lines.append(f"$ns at {_num(float(bin_s))} {{fl_series_tick 1}}")
    dur = plan.get("duration_s")
    if dur is not None:
        lines.append(f"$ns at {_num(float(dur))} fl_finish")
    lines.append("if {$fl_open == 0} { puts stderr {FL nothing ends the run} }")
    lines.append("$ns run")
    return "\n".join(lines) + "\n"
