"""`fairlab bench`: simulated packets per wall second on reference workloads."""

from __future__ import annotations

import argparse
import os
import sys

from .common import int_in


def _machine() -> str:
    import platform

    model = platform.processor() or "unknown CPU"
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    model = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    return f"{model}, {os.cpu_count()} cores, Python {platform.python_version()}"


def cmd_bench(args: argparse.Namespace) -> int:
    """Wall time of reference workloads, one core, runs in sequence.

    Wall time is measured here only; it never enters a result table.
    """
    import statistics
    import time

    import pandas as pd

    if args.scale:
        return _bench_scale(args)

    from .. import simulate
    from ..scenarios import dumbbell
    from ..scenarios import incast as incast_scenario

    rounds = 5 if args.quick else 20
    servers = [1, 4, 16, 64] if args.quick else [1, 2, 4, 8, 16, 32, 48, 64]
    settings = [("200ms", "jiffy"), ("5ms", "jiffy"), ("200us", "1us")]
    workloads = {
        f"incast sweep ({len(servers) * 3} runs, 1MiB block, {rounds} rounds)": [
            incast_scenario(n, block="1MiB", min_rto=r, resolution=res, rounds=rounds)
            for r, res in settings
            for n in servers
        ],
        "dumbbell, 64 flows": [dumbbell(64, duration="50ms" if args.quick else "500ms")],
    }
    repeat = args.repeat or 3
    rows = []
    for name, scs in workloads.items():
        walls = []
        for _ in range(repeat):
            t0 = time.perf_counter()
            results = [simulate(s) for s in scs]
            walls.append(time.perf_counter() - t0)
        wall = statistics.median(walls)
        pk = sum(r.summary["packets_sent"] for r in results)
        hops = sum(r.summary["packet_hops"] for r in results)
        ev = sum(r.summary["events"] for r in results)
        rows.append(
            {
                "workload": name,
                "runs": len(scs),
                "wall_s_median": wall,
                "packets_per_s": pk / wall,
                "packet_hops_per_s": hops / wall,
                "events_per_s": ev / wall,
            }
        )
    df = pd.DataFrame(rows)
    if args.format == "csv":
        df.to_csv(sys.stdout, index=False, float_format="%.6g")
    else:
        print(f"machine: {_machine()}; median of {repeat} repeats, one core")
        for r in rows:
            print(
                f"{r['workload']}: {r['runs']} runs in {r['wall_s_median']:.3f} s; "
                f"{r['packets_per_s'] / 1e6:.2f} M packets/s, "
                f"{r['packet_hops_per_s'] / 1e6:.2f} M packet-hops/s, "
                f"{r['events_per_s'] / 1e6:.2f} M events/s"
            )
    return 0


def _bench_scale(args: argparse.Namespace) -> int:
    """`fairlab bench --scale`: one child process per workload (bench_scale.py)."""
    import pandas as pd

    from . import bench_scale

    rounds = args.repeat or 1
    rows = bench_scale.run(args.quick, rounds)
    if args.format == "csv":
        pd.DataFrame(rows).to_csv(sys.stdout, index=False, float_format="%.6g")
        return 0
    how = "one run" if rounds == 1 else f"medians of {rounds} rounds"
    print(f"machine: {_machine()}; {how} per workload, each in its own process, one core")
    for r in rows:
        spread = ""
        if rounds > 1:
            spread = f", {r['hop_cost_vs_incast_min']:.2f} to {r['hop_cost_vs_incast_max']:.2f}"
        print(
            f"{r['workload']}: {r['packet_hops']:.3g} packet-hops in {r['cpu_s']:.2f} CPU s "
            f"({r['wall_s']:.2f} s wall); {r['packet_hops_per_cpu_s'] / 1e6:.2f} M packet-hops "
            f"per CPU-second ({r['hop_cost_vs_incast']:.2f}x the incast's CPU time per hop"
            f"{spread}), {r['events_per_hop']:.2f} events per hop, peak "
            f"{r['peak_rss_bytes'] / 2**20:.0f} MiB, {r['bytes_per_flow']:.0f} bytes per flow"
        )
    return 0


def add_parser(sub: argparse._SubParsersAction) -> None:
    b = sub.add_parser("bench", help="simulated packets per wall second on reference workloads")
    b.add_argument("--quick", action="store_true", help="smaller workloads")
    b.add_argument(
        "--scale",
        action="store_true",
        help="fat trees k=4, 8, 16, 48, a leaf-spine and the incast, each in its own process: "
        "packet-hops per CPU-second, events per hop, peak memory, bytes per flow "
        "(--quick: shorter, without k=48)",
    )
    b.add_argument(
        "--repeat",
        type=int_in(1, 1000),
        default=None,
        help="repeats, the median reported (default 3); with --scale, rounds of every "
        "workload, the order reversed each round, each workload's cost over the incast's "
        "taken within a round (default 1)",
    )
    b.add_argument(
        "--format",
        choices=["table", "csv"],
        default="table",
        help="table: a line per workload (default); csv: one row per workload",
    )
    b.set_defaults(func=cmd_bench)
