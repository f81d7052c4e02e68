"""`fairlab bench --scale`: the simulator's cost as topologies grow.

Each workload runs alone in a fresh child process, so that its peak memory
(``getrusage`` maxrss) is its own: fat trees k = 4, 8, 16 and 48 with a
permutation of long flows (host i to host i + k^2/4, every flow through a
core switch), a leaf-spine with the same permutation pattern, and the
32-server incast of BENCHMARKS.md. Each reports packet-hops per CPU-second
(the child's CPU time over the whole `simulate` call: build, run and
tables), events per packet-hop, peak memory (the child's maxrss), and
bytes per flow (the peak over the resident memory before the run, divided
by the flows: the simulator's state, the tables and their Python objects).
"""

from __future__ import annotations

import concurrent.futures
import multiprocessing
import resource
import time
from typing import Any

# Limits raised for the largest runs on purpose: these are benchmarks.
_LIMITS = {
    "max_packets": 10**11,
    "max_packet_hops": 10**12,
    "max_events": 10**12,
    "max_memory": "64GiB",
    "max_flows": 10**6,
}


def _leaf_spine(leaves: int, spines: int, per_leaf: int, duration: str) -> dict[str, Any]:
    """Long flows on a leaf-spine at 10 Gb/s, host i of leaf l sending to
    host i of leaf l + 1 (every flow crosses a spine)."""
    hosts = [f"h{leaf}_{i}" for leaf in range(leaves) for i in range(per_leaf)]
    n = len(hosts)
    return {
        "name": f"leaf-spine-{leaves}x{spines}",
        "duration": duration,
        "topology": {
            "kind": "leaf_spine",
            "leaves": leaves,
            "spines": spines,
            "hosts": per_leaf,
            "rate": "10Gbps",
            "delay": "1us",
        },
        "routing": {"selection": "ecmp"},
        "tcp": {"profile": "datacenter"},
        "workload": [
            {"kind": "bulk", "src": hosts[i], "dst": hosts[(i + per_leaf) % n]} for i in range(n)
        ],
    }


def workloads(quick: bool) -> list[tuple[str, dict[str, Any]]]:
    """(name, scenario) of every scale workload; `quick` shortens each and
    leaves out k = 48 (about a minute and several GiB)."""
    from ..scenarios import fat_tree_permutation
    from ..scenarios import incast as incast_scenario

    fat = [(4, "20ms", "5ms"), (8, "10ms", "2ms"), (16, "2ms", "0.5ms")]
    if not quick:
        fat.append((48, "1ms", ""))
    out = []
    for k, full, short in fat:
        d = short if quick else full
        out.append((f"fat tree k={k}, {k**3 // 4} flows, {d}", fat_tree_permutation(k, duration=d)))
    d = "1ms" if quick else "5ms"
    out.append((f"leaf-spine 16x8, 256 flows, {d}", _leaf_spine(16, 8, 16, d)))
    rounds = 100 if quick else 1000
    inc = incast_scenario(32, block="1MiB", min_rto="1ms", resolution="1us", rounds=rounds)
    out.append((f"incast 32 servers, {rounds} rounds", inc))
    for _, sc in out:
        sc["limits"] = dict(_LIMITS)
    return out


def _maxrss_bytes() -> int:
    # Linux reports kilobytes.
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024


def _rss_bytes() -> int:
    """Resident memory now (the peak so far may be an import's)."""
    import os

    try:
        with open("/proc/self/statm") as f:
            return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
    except OSError:
        return _maxrss_bytes()


def measure(scenario: dict[str, Any]) -> dict[str, float]:
    """Runs `scenario` here (a fresh child) and measures it."""
    # Import what the run and its result use first, so that only the run
    # grows the process.
    import pandas  # noqa: F401
    import pyarrow  # noqa: F401

    from .. import simulate

    before = _rss_bytes()
    cpu0, wall0 = time.process_time(), time.perf_counter()
    res = simulate(scenario)
    cpu, wall = time.process_time() - cpu0, time.perf_counter() - wall0
    peak = _maxrss_bytes()
    hops = res.summary["packet_hops"]
    events = res.summary["events"]
    # Connections: one per flows-table row (an incast's servers each keep one).
    flows = max(len(res.flows), 1)
    return {
        "packet_hops": hops,
        "events": events,
        "cpu_s": cpu,
        "wall_s": wall,
        "packet_hops_per_cpu_s": hops / cpu,
        "events_per_hop": events / max(hops, 1),
        "peak_rss_bytes": peak,
        "bytes_per_flow": (peak - before) / flows,
        "flows": flows,
    }


def run(quick: bool, rounds: int = 1) -> list[dict[str, Any]]:
    """Every workload measured, each with its CPU time per packet-hop
    over the incast's (`hop_cost_vs_incast`, issue 23's measure of how a
    hop's cost grows with the topology: at most 1.5 at k = 16).

    With several `rounds` every workload runs once a round, in the list's
    order and then in reverse (so the incast runs next to each workload in
    turn), each in a fresh child: a row then holds the medians over the
    rounds (peak memory: the largest), and `hop_cost_vs_incast` is the
    median over the rounds of that round's incast rate over the
    workload's, with its lowest and highest beside it. On a shared host
    whose load moves from minute to minute, a ratio within one round is
    steadier than a ratio of two rates measured apart."""
    import statistics

    named = workloads(quick)
    measured: dict[str, list[dict[str, float]]] = {name: [] for name, _ in named}
    ctx = multiprocessing.get_context("spawn")
    for r in range(rounds):
        for name, sc in named if r % 2 == 0 else named[::-1]:
            with concurrent.futures.ProcessPoolExecutor(max_workers=1, mp_context=ctx) as pool:
                measured[name].append(pool.submit(measure, sc).result())
    incast = next(ms for name, ms in measured.items() if name.startswith("incast"))
    rows = []
    for name, ms in measured.items():
        row: dict[str, Any] = {"workload": name, "rounds": rounds}
        for key in ms[0]:
            row[key] = statistics.median(m[key] for m in ms)
        row["peak_rss_bytes"] = max(m["peak_rss_bytes"] for m in ms)
        # Round by round: both lists are in round order.
        ratios = [
            i["packet_hops_per_cpu_s"] / m["packet_hops_per_cpu_s"]
            for i, m in zip(incast, ms, strict=True)
        ]
        row["hop_cost_vs_incast"] = statistics.median(ratios)
        row["hop_cost_vs_incast_min"] = min(ratios)
        row["hop_cost_vs_incast_max"] = max(ratios)
        rows.append(row)
    return rows
