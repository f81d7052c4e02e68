"""`fairlab incast`: incast goodput against the number of servers, for each
min RTO setting; the sweep is the incast study's (`studies.incast.grid`),
run by the runner or, one run at a time, on the kernel."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from .common import (
    INT_MAX,
    MAX_SERVERS,
    UsageError,
    add_pool_options,
    check_out_dir,
    check_out_file,
    check_runs,
    check_sweep_bytes,
    duration,
    int_in,
    ints,
    shorten,
    warn,
)

if TYPE_CHECKING:
    import pandas as pd

DEFAULT_SERVERS = "1,2,3,4,6,8,12,16,20,24,32,40,47,56,64"
#: Rounds per run: the workload's field is a u32.
MAX_ROUNDS = 2**32 - 1


def _rto_settings(
    text: str, resolution: str, hz: int, keep_auto: bool = False
) -> list[tuple[str, str]]:
    """Parses "200ms,5ms@jiffy,200us@1us" into (min_rto, resolution) pairs.

    With ``keep_auto`` an "auto" resolution is left for the profile to
    settle (the ns2 host keeps its own 10 ms tick, see scenarios.incast)."""
    from ..scenarios import resolve_resolution
    from ..units import parse_time_ps

    out = []
    for item in (x.strip() for x in text.split(",")):
        if not item:
            continue
        rto, _, res = item.partition("@")
        try:
            parse_time_ps(rto)
        except ValueError:
            raise UsageError(
                f"--min-rto: {shorten(rto)!r} is not a duration; expected e.g. 200ms, 5ms, 200us"
            ) from None
        r = res or resolution
        if r not in ("auto", "jiffy"):
            try:
                parse_time_ps(r)
            except ValueError:
                raise UsageError(
                    f"--min-rto/--resolution: {shorten(r)!r} is not a timer resolution; "
                    "expected auto, jiffy or a duration such as 1us"
                ) from None
        out.append((rto, r if keep_auto and r == "auto" else resolve_resolution(rto, r, hz)))
    if not out:
        raise UsageError("--min-rto: no setting given")
    return out


def _buffers(text: str, what: str) -> list[str]:
    """Buffer limits: sizes (64KiB) or packet counts (32pkt), as [queue] limit."""
    from ..units import parse_buffer

    vals = [x.strip() for x in text.split(",") if x.strip()]
    for v in vals:
        try:
            count, _ = parse_buffer(v)
        except ValueError:
            count = 0
        if count <= 0:
            raise UsageError(
                f"{what}: {shorten(v)!r} is not a buffer limit; expected a size such as 64KiB "
                "or a packet count such as 32pkt"
            )
    if not vals:
        raise UsageError(
            f"{what}: {shorten(text)!r}; expected one or more limits such as 64KiB,32pkt"
        )
    return vals


def _sizes(text: str, what: str) -> list[str]:
    from ..units import parse_size

    vals = [x.strip() for x in text.split(",") if x.strip()]
    for v in vals:
        try:
            parse_size(v)
        except ValueError:
            raise UsageError(f"{what}: {shorten(v)!r} is not a size such as 64KiB") from None
    if not vals:
        raise UsageError(
            f"{what}: {shorten(text)!r}; expected one or more sizes such as 64KiB,128KiB"
        )
    return vals


def incast_table(args: argparse.Namespace) -> pd.DataFrame:
    """Runs the incast sweep the arguments describe; one row per run.

    Every count is bounded before a scenario is built, and every scenario is
    validated before the first one runs."""
    from .. import backends, validate
    from ..units import parse_time_ps

    servers = ints(args.servers, "--servers", MAX_SERVERS)
    seeds = ints(args.seeds, "--seeds", INT_MAX)
    backend = backends.get(getattr(args, "backend", "sim"))
    if not backend.parallel and (args.cluster or args.jobs):
        raise UsageError(
            f"--backend {backend.name} runs one run at a time on this machine; expected no "
            "--cluster or --jobs"
        )
    if args.hz is None:
        # The kernel's own clock on the namespace backend; 1000 Hz simulated.
        from ..emu.machine import hz as kernel_hz

        args.hz = kernel_hz()[0] if backend.name == "emu" else 1000
    settings = _rto_settings(
        args.min_rto, args.resolution, args.hz, keep_auto=args.profile == "ns2"
    )
    buffers = _buffers(args.buffer, "--buffer")
    runs = len(buffers) * len(settings) * len(servers) * len(seeds)
    check_runs(runs, "--buffer x --min-rto x --servers x --seeds", args.max_runs)
    # A server costs about 100 bytes of memory in a run's scenario (its host
    # name, and the runner's normalized JSON).
    per_run = 100 * sum(servers) // len(servers) + 1000
    check_sweep_bytes(runs, per_run, "--servers")
    sizing = {"block": args.block} if args.block else {"sru": args.sru or "256KiB"}
    for v in sizing.values():
        _sizes(v, "--block/--sru")
    if args.mss is not None:
        _sizes(args.mss, "--mss")  # a --rwnd in packets is counted in segments of it
    from ..studies.incast import grid

    tasks = grid(
        servers,
        settings,
        seeds,
        buffers=buffers,
        tcp=args.tcp,
        ecn_threshold=args.ecn_threshold,
        hz=args.hz,
        rounds=args.rounds,
        delayed_ack=args.delayed_ack == "on",
        profile=args.profile,
        jitter=args.jitter if parse_time_ps(args.jitter) > 0 else None,
        sack=None if args.sack is None else args.sack == "on",
        randomize_rto=True if args.randomize_rto else None,
        mss=args.mss,
        rwnd=args.rwnd,
        duration=args.duration,
        rate=args.rate,
        **sizing,
    )
    for t in tasks:
        validate(t.scenario)
    # With --out every run is kept there too (the layout fairlab.load reads),
    # as `fairlab reproduce` keeps its runs beside its report.
    if backend.parallel:
        run = backend.run_tasks()
        results = run(tasks, jobs=args.jobs, cluster=args.cluster, store=args.store or args.out)
    else:
        results = backend.run_tasks(warn)(tasks)
    import pandas as pd

    # The TCP and SACK columns come from each run's summary: what the profile
    # and options actually gave.
    df = pd.DataFrame([{**t.labels, **r.summary} for t, r in zip(tasks, results, strict=True)])
    df["goodput_mbps"] = df["incast_goodput_bps"] / 1e6
    df["timeouts"] = df["total_timeouts"]
    df["rounds"] = df["rounds_completed"]
    df["sim_time_s"] = df["sim_end_s"]
    return df


def _tcp_used(df: pd.DataFrame) -> str:
    """The TCP the runs of an incast table actually used ("TCP newreno, SACK
    off"), from each run's summary; several values are listed."""
    tcp = ", ".join(dict.fromkeys(df["tcp"]))
    sack = ", ".join(dict.fromkeys(df["sack"]))
    return f"TCP {tcp}, SACK {sack}"


#: The columns of `fairlab incast --format csv` and of incast.parquet.
COLUMNS = [
    "servers",
    "tcp",
    "sack",
    "min_rto",
    "resolution",
    "buffer",
    "seed",
    "goodput_mbps",
    "timeouts",
    "rounds",
    "sim_time_s",
    "packets_sent",
    "drops",
    "digest",
]


def _print_table(df: pd.DataFrame, args: argparse.Namespace) -> None:
    keys = ["buffer", "min_rto", "resolution", "servers"]
    agg = (
        df.groupby(keys, sort=False)
        .agg(goodput_mbps=("goodput_mbps", "mean"), timeouts=("timeouts", "mean"))
        .reset_index()
    )
    wide = agg.pivot_table(
        index="servers",
        columns=["buffer", "min_rto", "resolution"],
        values="goodput_mbps",
        sort=False,
    )
    nseeds = df["seed"].nunique()
    what = f"block {args.block}" if args.block else f"SRU {args.sru or '256KiB'}"
    print(
        f"incast goodput (Mb/s, mean of {nseeds} seed{'s' if nseeds > 1 else ''}); "
        f"{what}, {args.rounds} rounds, {args.rate}, RTT 100 us, profile {args.profile}, "
        f"{_tcp_used(df)}, delayed ACK {args.delayed_ack}, send jitter {args.jitter}"
    )
    wide.columns = [f"{b} {r}@{res}" for b, r, res in wide.columns]
    print(wide.round(0).astype(int).to_string())


def cmd_incast(args: argparse.Namespace) -> int:
    check_out_dir(args.out, "--out")
    check_out_dir(args.store, "--store")
    check_out_file(args.plot, "--plot")
    df = incast_table(args)
    if args.format == "csv":
        df[COLUMNS].to_csv(sys.stdout, index=False, float_format="%.6g")
    else:
        _print_table(df, args)
    if args.out:
        out = Path(args.out)
        out.mkdir(parents=True, exist_ok=True)
        df[COLUMNS].to_parquet(out / "incast.parquet", index=False)
    if args.plot:
        from ..plots import plot_incast

        agg = (
            df.groupby(["buffer", "min_rto", "resolution", "servers"], sort=False)["goodput_mbps"]
            .agg(goodput_mbps="mean", goodput_std="std", seeds="count")
            .reset_index()
        )
        what = f"block {args.block}" if args.block else f"SRU {args.sru or '256KiB'}"
        title = (
            f"TCP incast: {_tcp_used(df)}, profile {args.profile}\n{what}, "
            f"buffer {args.buffer}, {args.rounds} rounds"
        )
        plot_incast(agg, args.plot, title=title)
        print(f"plot written to {args.plot}", file=sys.stderr)
    return 0


def add_parser(sub: argparse._SubParsersAction) -> None:
    i = sub.add_parser(
        "incast",
        help="incast goodput against the number of servers",
        description="Barrier-synchronized reads from N servers through one switch "
        "(1 Gb/s, 100 us RTT, NewReno): goodput against N for each min RTO.",
    )
    i.add_argument("--servers", default=DEFAULT_SERVERS, help="server counts (default %(default)s)")
    i.add_argument(
        "--min-rto",
        default="200ms,5ms,200us",
        help="min RTO settings, each optionally with its timer resolution as 200us@1us "
        "(default %(default)s)",
    )
    i.add_argument(
        "--resolution",
        default="auto",
        help="timer resolution: auto (jiffy for >= 1 tick, else 1us; with --profile ns2 the "
        "profile's 10 ms tick, 1us below 10 ms), jiffy, or a duration",
    )
    i.add_argument(
        "--hz",
        type=int_in(1, 10**9),
        default=None,
        help="jiffy clock rate (default 1000; with --backend emu the kernel's CONFIG_HZ)",
    )
    i.add_argument("--rate", default="1Gbps", help="every link's rate (default %(default)s)")
    i.add_argument(
        "--backend",
        choices=["sim", "emu"],
        default="sim",
        help="sim (default) or emu: each run on real Linux TCP in namespaces, one at a time",
    )
    i.add_argument(
        "--buffer",
        default="64KiB",
        help="switch port buffer(s): sizes or packet counts, e.g. 64KiB,128KiB or 32pkt",
    )
    size = i.add_mutually_exclusive_group()
    size.add_argument("--sru", help="bytes each server returns per round (default 256KiB)")
    size.add_argument("--block", help="bytes per round, split over the servers (e.g. 1MiB)")
    i.add_argument(
        "--rounds", type=int_in(1, MAX_ROUNDS), default=20, help="rounds per run (default 20)"
    )
    i.add_argument(
        "--delayed-ack",
        choices=["on", "off"],
        default="off",
        help="delayed ACKs at the client (default off, as the published simulations)",
    )
    i.add_argument(
        "--profile",
        choices=["rfc", "linux", "datacenter", "ns2"],
        default="rfc",
        help="TCP host profile: defaults for every [tcp] field (docs/scenario.md; default rfc; "
        "ns2: ns-2's one-way agents, 1000-byte segments, 20-packet window, 10 ms tick)",
    )
    i.add_argument(
        "--mss", default=None, help="segment payload, e.g. 1000B (default: the profile's)"
    )
    i.add_argument(
        "--rwnd",
        default=None,
        help="advertised receive window, bytes (64KiB) or segments (20pkt) (default: the "
        "profile's)",
    )
    i.add_argument(
        "--duration",
        type=duration(True),
        default=None,
        help="end each run at this simulated time (e.g. 20s, as the ns-2 runs); rounds still "
        "running then are not counted (raise --rounds so that the run is time-bound)",
    )
    i.add_argument(
        "--tcp",
        choices=["reno", "newreno", "cubic", "bic", "bic_paper", "vegas", "dctcp"],
        default=None,
        help="congestion control (default newreno)",
    )
    i.add_argument("--sack", choices=["on", "off"], default=None, help="SACK loss recovery")
    i.add_argument(
        "--ecn-threshold",
        default=None,
        help="switch ECN marking threshold K (default: a quarter of the buffer with "
        "--tcp dctcp, else off)",
    )
    i.add_argument("--randomize-rto", action="store_true", help="timeouts at RTO x (1 + U(0, 0.5))")
    i.add_argument(
        "--jitter",
        type=duration(False),
        default="0us",
        help="host send jitter U(0, j) per packet; nonzero makes seeds differ (default 0us)",
    )
    i.add_argument("--seeds", default="1", help="seeds, e.g. 1,2,3 (table shows the mean)")
    add_pool_options(i)
    i.add_argument(
        "--store", metavar="DIR", help="results store: keep every run there, skip stored ones"
    )
    i.add_argument(
        "--format",
        choices=["table", "csv"],
        default="table",
        help="table: goodput by servers and setting (default); csv: one row per run",
    )
    i.add_argument("--plot", help="write goodput vs servers to this PNG")
    i.add_argument(
        "--out",
        metavar="DIR",
        help="write the sweep table (incast.parquet) into this directory, and every run's "
        "tables under DIR/runs unless --store names another store",
    )
    i.set_defaults(func=cmd_incast)
