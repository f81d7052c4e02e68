"""`fairlab run FILE.toml` and `fairlab emulate FILE.toml`: one scenario on
one backend (the simulator, the kernel in namespaces, or real ns-2)."""

from __future__ import annotations

import argparse
import sys

from .common import UsageError, check_out_dir, read_scenario, seconds, seed, warn

# Packet-hops per CPU-second the ETA assumes, by the network's output ports:
# a hop costs more once a network's ports, queues and tables outgrow the
# caches. Measured on a machine of the CI's kind (2-vCPU AMD EPYC) with
# `fairlab bench --scale --quick`, `speed` and the fat_tree example
# (BENCHMARKS.md, "Scale"; single runs with our own jobs on the other core,
# about ±25 % apart run to run) and rounded down: the incast (under 256
# ports), a k = 16 fat tree (6,144 ports), a k = 48 one (165,888: 1.26e8
# packet-hops in 98 to 127 s of CPU over the fifth pass's pairs, 1.0 to
# 1.3 M/s; the anchor was 0.7 M/s from the third pass). Between two points the speed
# is interpolated on the logarithm of the ports; a shared or slower
# machine runs slower.
ETA_SPEED = ((256, 4.0e6), (6_144, 1.5e6), (165_888, 1.0e6))
# Runs estimated shorter than this start without a word.
ETA_SHOWN_FROM_S = 2.0


def eta_speed(ports: int) -> float:
    """Packet-hops per second the ETA assumes for a network of `ports`."""
    import math

    (p0, s0), *rest = ETA_SPEED
    if ports <= p0:
        return s0
    for p1, s1 in rest:
        if ports <= p1:
            f = math.log(ports / p0) / math.log(p1 / p0)
            return s0 * (s1 / s0) ** f
        p0, s0 = p1, s1
    return s0


def show_estimate(sc: dict) -> None:
    """Prints the simulator's estimate of the run and an ETA on stderr,
    before a long run starts (an estimate beyond `[limits]` raises the
    one-line ScenarioError naming the limit)."""
    import json

    from .. import _as_json, _core

    est = json.loads(_core.estimate_json(_as_json(sc)))
    speed = eta_speed(est["ports"])
    eta_s = est["packet_hops"] / speed
    if eta_s < ETA_SHOWN_FROM_S:
        return
    print(
        f"fairlab: estimate: about {est['packet_hops']:.2g} packet-hops, "
        f"{est['events']:.2g} events, {est['memory_bytes'] / 2**20:.0f} MiB; "
        f"ETA about {eta_s:.0f} s at {speed / 1e6:.1f} M packet-hops/s "
        f"({est['ports']} ports)",
        file=sys.stderr,
    )


def cmd_run(args: argparse.Namespace) -> int:
    from .. import backends

    sc = read_scenario(args.file)
    check_out_dir(args.out, "--out")
    if getattr(args, "backend", "sim") == "sim":
        show_estimate(sc)
    backend = backends.get(getattr(args, "backend", "sim"))
    res = backend.run(
        sc,
        args.seed,
        time_limit_s=getattr(args, "time_limit", None),
        warn=warn,
        progress=sys.stderr.isatty(),
    )
    header = backend.header(res)
    print((header + "\n" if header else "") + res.summary_text())
    if args.out:
        out = res.to_parquet(args.out)
        print(f"tables written to {out}/ (" + ", ".join(f"{t}.parquet" for t in res.tables) + ")")
    violations = res.bound_violations()
    if violations:
        # A bound the run exceeded is a failed check, not a number to read past.
        print(
            f"fairlab: error: {violations} port(s) exceeded their network-calculus bounds "
            '(port_bounds table, status "violated")',
            file=sys.stderr,
        )
        return 3
    return 0


def cmd_emulate(args: argparse.Namespace) -> int:
    if args.cleanup:
        from ..emu import cleanup
        from ..emu.safety import check_machine

        check_machine()
        removed = cleanup(include_running=args.force)
        print(f"removed {len(removed)} namespaces" + (": " + " ".join(removed) if removed else ""))
        return 0
    if not args.file:
        raise UsageError("emulate: a scenario file, or --cleanup; expected one")
    return cmd_run(args)


def add_parsers(sub: argparse._SubParsersAction) -> None:
    r = sub.add_parser("run", help="simulate one scenario file")
    r.add_argument("file", help="scenario TOML file")
    r.add_argument("--seed", type=seed, default=None, help="override the scenario's seed")
    r.add_argument("--out", help="write the tables as Parquet into this directory")
    r.add_argument(
        "--backend",
        choices=["sim", "emu", "ns2"],
        default="sim",
        help="sim: the simulator (default); emu: real Linux TCP in network namespaces "
        "(root; docs/emulation.md); ns2: real ns-2 2.35's one-way agents (`ns` on the PATH; "
        "docs/ns2.md)",
    )
    r.add_argument(
        "--time-limit", type=seconds, default=None, help="emu, ns2: seconds a run may last at most"
    )
    r.set_defaults(func=cmd_run)

    em = sub.add_parser(
        "emulate",
        help="run one scenario on real Linux TCP in network namespaces (root)",
        description="Builds the scenario as network namespaces, veth links, htb-shaped "
        "ports and routes on this machine, runs traffic agents, and writes the simulator's "
        "tables (docs/emulation.md). --cleanup removes what earlier runs left.",
    )
    em.add_argument("file", nargs="?", help="scenario TOML file")
    em.add_argument("--seed", type=seed, default=None, help="override the scenario's seed")
    em.add_argument("--out", help="write the tables as Parquet into this directory")
    em.add_argument(
        "--time-limit",
        type=seconds,
        default=None,
        help="seconds a run without a duration may last at most (default 60)",
    )
    em.add_argument(
        "--cleanup",
        action="store_true",
        help="remove the namespaces earlier fairlab runs left (found by their state files)",
    )
    em.add_argument(
        "--force",
        action="store_true",
        help="with --cleanup: also runs whose fairlab process still lives",
    )
    em.set_defaults(func=cmd_emulate, backend="emu")
