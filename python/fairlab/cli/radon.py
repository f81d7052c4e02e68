"""`fairlab radon recv|send|calibrate`: Radon on real sockets (docs/radon.md,
"On real sockets"). The agents are Rust (crates/fairlab-radon) behind
`fairlab._core`; this module reads options and files and writes tables.

fairlab radon recv [--port 5201] [--bind ADDR] [--sessions N] [--deadline S]
fairlab radon send --config FILE.json [--out DIR] [--csv]
fairlab radon calibrate [--spacing-us 100] [--packets 1000] [--payload 1472] [--cpu N]
                        [--rt-priority P] [--json]
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from .common import UsageError, check_out_dir, int_in, seconds

#: The tables `radon send` writes, in this order.
TABLES = ("streams", "radon_series", "pacing")


def _core() -> Any:
    from .. import _core

    return _core


def _radon_error(e: Exception) -> UsageError:
    """The agents' one-line errors, as the CLI reports usage errors."""
    return UsageError(str(e))


def cmd_recv(args: argparse.Namespace) -> int:
    cfg = {
        "listen": [{"netns": None, "addr": args.bind, "port": args.port}],
        "deadline_s": args.deadline,
        "sessions": args.sessions,
        "max_records": args.max_records,
    }
    core = _core()
    print(
        f"radon recv: listening on {args.bind}:{args.port} (TCP control, UDP data); "
        f"{'until the deadline' if args.sessions == 0 else f'{args.sessions} session(s)'}, "
        f"deadline {args.deadline:g} s",
        file=sys.stderr,
    )
    try:
        core.radon_recv(json.dumps(cfg), lambda line: print(line, flush=True))
    except (core.RadonError, ValueError) as e:
        raise _radon_error(e) from None
    return 0


def read_config(path: str) -> str:
    """The sender's JSON config file, checked to be JSON (the agent checks
    every field and names it)."""
    p = Path(path)
    if not p.is_file():
        raise UsageError(f"--config: {path}: no such file")
    if p.stat().st_size > 16 << 20:
        raise UsageError(f"--config: {path}: larger than 16 MiB; expected a sender config")
    text = p.read_text(encoding="utf-8", errors="replace")
    try:
        json.loads(text)
    except json.JSONDecodeError as e:
        raise UsageError(f"--config: {path}: not JSON ({e.msg} at line {e.lineno})") from None
    return text


def tables(result: dict[str, Any]) -> dict[str, Any]:
    """The result's tables as DataFrames (columns in the agent's order)."""
    import pandas as pd

    return {name: pd.DataFrame(result[name]) for name in TABLES}


def write_tables(result: dict[str, Any], out: str, csv: bool) -> list[str]:
    """Writes each table as Parquet (or CSV) and `radon.json` (the machine
    record and the trace, when asked) into `out`; returns the file names."""
    d = Path(out)
    d.mkdir(parents=True, exist_ok=True)
    names = []
    for name, df in tables(result).items():
        file = f"{name}.csv" if csv else f"{name}.parquet"
        if csv:
            df.to_csv(d / file, index=False)
        else:
            df.to_parquet(d / file, index=False)
        names.append(file)
    extra = {"machine": result["machine"]}
    if "trace" in result:
        extra["trace"] = result["trace"]
    (d / "radon.json").write_text(json.dumps(extra), encoding="utf-8")
    names.append("radon.json")
    return names


def summary_lines(result: dict[str, Any]) -> list[str]:
    """One line per stream, then the machine's."""
    s = result["streams"]
    out = []
    for i, flow in enumerate(s["flow_id"]):
        out.append(
            f"stream {flow}: sent {s['num_sent'][i]}, received {s['num_recv'][i]}, "
            f"lost {s['num_lost'][i]} ({_num(s['pct_lost'][i])} %), "
            f"{_num(s['send_rate_mbps'][i])} Mb/s sent, {_num(s['recv_rate_mbps'][i])} received, "
            f"late p50/p99/max {_num(s['late_p50_us'][i])}/{_num(s['late_p99_us'][i])}/"
            f"{_num(s['late_max_us'][i])} us, stamps {s['stamp_source'][i] or 'none'}"
        )
    m = result["machine"]
    out.append(f"pacing {m['pacing_why']}; {m['txtime']}")
    return out


def _num(x: Any) -> str:
    return "nan" if x is None else f"{x:.3g}"


def _peers(items: list[str]) -> dict[str, str]:
    """--peer NAME=ADDRESS, repeated."""
    peers = {}
    for item in items:
        name, sep, addr = item.partition("=")
        if not sep or not name or not addr:
            raise UsageError(f"--peer: {item!r}; expected NAME=ADDRESS, e.g. h0=192.168.1.10")
        peers[name] = addr
    return peers


def cmd_send_scenario(args: argparse.Namespace) -> int:
    """The scenario's Radon streams that ``--host`` sends, to receivers on
    other machines (`fairlab radon recv` there), with the configuration the
    simulator and the namespace backend give them; the run is written as a
    run directory that `fairlab compare` sets beside the simulator."""
    from .. import ScenarioError
    from .. import _core as core
    from ..emu import radon as er
    from ..result import Result, Tables
    from .common import read_scenario

    sc = read_scenario(args.scenario)
    text = json.dumps(sc)
    try:
        plan = er.real_plan(text)
        cfg = er.real_config(
            plan, _peers(args.peer), args.host, args.port, args.deadline, args.pacing, args.cpu
        )
    except ScenarioError as e:
        raise UsageError(f"{args.scenario}: {e}") from None
    except ValueError as e:
        raise UsageError(str(e)) from None
    why = er.spacing_warning(plan)
    if why:
        print(f"warning: {why}", file=sys.stderr)
    try:
        result = json.loads(core.radon_send(json.dumps(cfg)))
    except (core.RadonError, ValueError) as e:
        raise _radon_error(e) from None
    for line in summary_lines(result):
        print(line)
    if args.out:
        summary = {
            "backend": "real",
            "seed": plan["seed"],
            "host": args.host or "",
            "peers": ",".join(args.peer),
            **er.summary(result),
        }
        from ..emu.run import _digest

        raw = er.tables(plan, result)
        summary["digest"] = _digest(raw, "real")
        tables = Tables(raw)
        sc_valid = json.loads(core.validate_json(text))
        path = Result(summary=summary, tables=tables, scenario=sc_valid).to_parquet(args.out)
        print(f"run written to {path} (fairlab compare {path}: beside the simulator)")
    return 0


def cmd_send(args: argparse.Namespace) -> int:
    check_out_dir(args.out, "--out")
    if (args.config is None) == (args.scenario is None):
        raise UsageError("radon send: give --config FILE.json or --scenario FILE.toml (one)")
    if args.scenario is not None:
        return cmd_send_scenario(args)
    if args.peer or args.host:
        raise UsageError("--peer and --host go with --scenario")
    text = read_config(args.config)
    core = _core()
    try:
        result = json.loads(core.radon_send(text))
    except (core.RadonError, ValueError) as e:
        raise _radon_error(e) from None
    for line in summary_lines(result):
        print(line)
    if args.out:
        names = write_tables(result, args.out, args.csv)
        print(f"tables written to {args.out}/ ({', '.join(names)})")
    return 0


def cmd_calibrate(args: argparse.Namespace) -> int:
    cfg = {
        "spacing_us": args.spacing_us,
        "packets": args.packets,
        "payload_bytes": args.payload,
        "cpu": args.cpu,
        "rt_priority": args.rt_priority,
    }
    core = _core()
    try:
        cal = json.loads(core.radon_calibrate(json.dumps(cfg)))
    except (core.RadonError, ValueError) as e:
        raise _radon_error(e) from None
    if args.json:
        print(json.dumps(cal, indent=1))
        return 0
    print(
        f"{cal['packets']} datagrams of {cal['payload_bytes']} B, {cal['spacing_us']:g} us apart, "
        f"over loopback; {cal['cores']} cores"
    )
    print(
        f"timestamps ({cal['stamp_source']}): RFD p1/p99 {cal['rfd_p1_us']:.2f} / "
        f"{cal['rfd_p99_us']:.2f} us; median of five {cal['median5_rfd_p1_us']:.2f} / "
        f"{cal['median5_rfd_p99_us']:.2f} us"
    )
    for mode in ("busy", "hybrid"):
        lat = cal[mode]
        print(
            f"pacing {mode}: late p50 {lat['p50_us']:.2f} us, p99 {lat['p99_us']:.2f} us, "
            f"max {lat['max_us']:.2f} us"
        )
    print(f"sender CPU per datagram: {cal['cpu_per_packet_us']:.2f} us")
    return 0


def add_parser(sub: argparse._SubParsersAction) -> None:
    r = sub.add_parser("radon", help="Radon on real sockets: recv, send, calibrate")
    cmds = r.add_subparsers(dest="radon_command", required=True, help="the agent to run")

    rv = cmds.add_parser("recv", help="serve Radon senders (TCP control and UDP data)")
    rv.add_argument("--port", type=int_in(1, 65535), default=5201, help="port (default 5201)")
    rv.add_argument("--bind", default="0.0.0.0", help="address to listen on (default all)")
    rv.add_argument(
        "--sessions", type=int_in(0, 10**6), default=1, help="sessions to serve; 0: until deadline"
    )
    rv.add_argument(
        "--deadline", type=seconds, default=600.0, help="seconds to serve at most (default 600)"
    )
    rv.add_argument(
        "--max-records",
        type=int_in(1, 100_000_000),
        default=5_000_000,
        help="datagram records a session may hold (default 5,000,000)",
    )
    rv.set_defaults(func=cmd_recv)

    sd = cmds.add_parser("send", help="run Radon streams to receivers")
    sd.add_argument("--config", help="sender config JSON (docs/radon.md)")
    sd.add_argument(
        "--scenario",
        help="a scenario TOML: its Radon streams as the simulator configures them; --out writes "
        "a run directory for fairlab compare",
    )
    sd.add_argument(
        "--peer",
        action="append",
        default=[],
        metavar="NAME=ADDRESS",
        help="with --scenario: the address of a receiving host (repeat per host)",
    )
    sd.add_argument("--host", help="with --scenario: send the streams of this host only")
    sd.add_argument(
        "--port", type=int_in(1, 65535), default=5201, help="receivers' port (default 5201)"
    )
    sd.add_argument(
        "--pacing", choices=["auto", "busy", "hybrid", "txtime"], default="auto", help="pacing"
    )
    sd.add_argument("--cpu", type=int_in(0, 4095), default=None, help="pin the sender to a core")
    sd.add_argument("--deadline", type=seconds, default=600.0, help="seconds at most (default 600)")
    sd.add_argument("--out", help="write the tables (with --scenario: a run directory) here")
    sd.add_argument("--csv", action="store_true", help="CSV instead of Parquet")
    sd.set_defaults(func=cmd_send)

    c = cmds.add_parser("calibrate", help="timestamp noise, pacing lateness, CPU per datagram")
    c.add_argument("--spacing-us", type=float, default=100.0, help="spacing (default 100 us)")
    c.add_argument("--packets", type=int_in(20, 100_000), default=1000, help="datagrams (1000)")
    c.add_argument("--payload", type=int_in(36, 65507), default=1472, help="payload bytes (1472)")
    c.add_argument("--cpu", type=int_in(0, 4095), default=None, help="pin to this core")
    c.add_argument(
        "--rt-priority",
        type=int_in(1, 99),
        default=None,
        help="measure pacing under SCHED_FIFO at this priority (root)",
    )
    c.add_argument("--json", action="store_true", help="print the figures as JSON")
    c.set_defaults(func=cmd_calibrate)
