"""`fairlab trace FILE.toml`: one flow's sender state over time, plotted."""

from __future__ import annotations

import argparse
import sys

from .common import UsageError, check_out_file, int_in, read_scenario, seed


def cmd_trace(args: argparse.Namespace) -> int:
    """Runs a scenario with the sender trace on and plots one flow's state."""
    sc = read_scenario(args.file)
    check_out_file(args.plot, "--plot")
    check_out_file(args.csv, "--csv")
    from .. import simulate
    from ..plots import plot_trace

    sc.setdefault("metrics", {})
    sc["metrics"]["trace"] = True
    sc["metrics"]["trace_flows"] = [args.flow]
    res = simulate(sc, seed=args.seed)
    tr = res.tables["trace"]
    if tr.empty:
        raise UsageError(f"--flow: no flow {args.flow} in {args.file}")
    flow = res.flows[res.flows["flow_id"] == args.flow].iloc[0]
    sack = "on" if flow["sack"] else "off"
    tcp = f"{flow['cc'].removesuffix('+sack')}, SACK {sack}, MSS {flow['mss_bytes']} B"
    print(
        f"flow {args.flow}: {flow['src']} -> {flow['dst']} ({tcp}), "
        f"{len(tr)} state changes, {flow['timeouts']} timeouts, "
        f"{flow['fast_retransmits']} fast retransmits, profile {res.summary['profile']}"
    )
    if args.csv:
        tr.to_csv(args.csv, index=False)
    if args.plot:
        plot_trace(
            tr,
            args.plot,
            int(flow["mss_bytes"]),
            title=f"{args.file}: flow {args.flow} ({tcp})",
        )
        print(f"plot written to {args.plot}", file=sys.stderr)
    return 0


def add_parser(sub: argparse._SubParsersAction) -> None:
    t = sub.add_parser("trace", help="cwnd, ssthresh, SRTT and RTO of one flow over time")
    t.add_argument("file", help="scenario TOML file")
    t.add_argument("--flow", type=int_in(0, 2**32 - 1), default=0, help="flow id (default 0)")
    t.add_argument("--seed", type=seed, default=None, help="override the scenario's seed")
    t.add_argument("--plot", default="trace.png", help="PNG to write (default trace.png)")
    t.add_argument("--csv", help="also write the trace rows as CSV")
    t.set_defaults(func=cmd_trace)
