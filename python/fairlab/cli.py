"""The `fairlab` command line.

fairlab run FILE.toml [--seed N] [--out DIR] [--backend sim|emu|ns2]
fairlab emulate FILE.toml [--seed N] [--out DIR] | --cleanup
fairlab compare FILE.toml [--seeds N] [--against emu|ns2]
fairlab incast [--servers 1,2,4,...] [--min-rto 200ms,5ms,200us] ...
fairlab sweep FILE.toml --param PATH=V1,V2 [--param ...] [--seeds N] [--store DIR] ...
fairlab results DIR [--where COL=VAL ...] [--export FILE.csv|FILE.parquet]
fairlab trace FILE.toml [--flow N] [--plot PNG]
fairlab reproduce --list | STUDY [--experiment NAME ...] [--quick] [--out DIR]
                  [--backend sim|both|ns2|all]
fairlab examples [--copy DIR]
fairlab bench [--quick]
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, NoReturn

from . import ScenarioError, load_scenario, simulate, validate
from .emu.safety import EmulationRefused as _EmulationRefused
from .ns2.errors import Ns2Failed as _Ns2Failed
from .ns2.errors import Ns2Unavailable as _Ns2Unavailable
from .runner import TasksFailed
from .scenarios import incast as incast_scenario
from .scenarios import resolve_resolution
from .sweep import Job, run_jobs
from .units import parse_size, parse_time_ps

if TYPE_CHECKING:
    import pandas as pd

# pandas, pyarrow and matplotlib are imported by the commands that use them:
# `fairlab --help` and usage errors answer without loading them.

DEFAULT_SERVERS = "1,2,3,4,6,8,12,16,20,24,32,40,47,56,64"


class UsageError(Exception):
    """A bad command-line value: reported as one line, exit code 2."""


class _Parser(argparse.ArgumentParser):
    """argparse, but a bad argument is one line on stderr, not usage and error."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"{self.prog}: error: {message} (see {self.prog} --help)\n")


def _int_at_least(minimum: int) -> Callable[[str], int]:
    """An argparse type: an integer no smaller than ``minimum``."""

    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{text!r} is not an integer") from None
        if value < minimum:
            raise argparse.ArgumentTypeError(
                f"{value} is not allowed; expected an integer >= {minimum}"
            )
        return value

    return parse


def _seed(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not an integer") from None
    if not 0 <= value < 2**64:
        raise argparse.ArgumentTypeError(
            f"{value} is not allowed; expected an integer in [0, 2^64)"
        )
    return value


def _duration(positive: bool) -> Callable[[str], str]:
    """An argparse type: a duration string such as 10s, kept as written."""

    def parse(text: str) -> str:
        try:
            ps = parse_time_ps(text)
        except ValueError:
            raise argparse.ArgumentTypeError(
                f"{text!r} is not a duration; expected e.g. 10s, 200ms, 1us"
            ) from None
        if positive and ps <= 0:
            raise argparse.ArgumentTypeError(
                f"{text!r} is not allowed; expected a positive duration"
            )
        return text

    return parse


def _scenario_file(path: str) -> Path:
    """The scenario file argument, checked before anything runs."""
    p = Path(path)
    if p.is_dir():
        raise UsageError(f"{path}: is a directory; expected a scenario TOML file")
    if not p.exists():
        raise UsageError(f"{path}: no such file; expected a scenario TOML file")
    return p


def _check_out_dir(path: str | None, option: str) -> None:
    """Fails now, not after the run, if ``path`` cannot become an output directory."""
    if path is None:
        return
    p = Path(path)
    if p.exists() and not p.is_dir():
        raise UsageError(f"{option}: {path} is a file; expected a directory (new or existing)")
    _check_writable(p, option)


def _check_out_file(path: str | None, option: str) -> None:
    """Fails now, not after the run, if the file ``path`` cannot be written."""
    if path is None:
        return
    p = Path(path)
    if p.is_dir():
        raise UsageError(f"{option}: {path} is a directory; expected a file name")
    if not p.parent.is_dir():
        raise UsageError(
            f"{option}: {p.parent} is not a directory; the file's directory must exist"
        )
    if not os.access(p if p.exists() else p.parent, os.W_OK):
        raise UsageError(f"{option}: {path} is not writable")


def _check_writable(p: Path, option: str) -> None:
    """``p`` (a directory, perhaps to be made) can be written: its first existing
    ancestor is a writable directory."""
    q = p
    while not q.exists() and q != q.parent:
        q = q.parent
    if not q.is_dir():
        raise UsageError(f"{option}: {q} is a file, so {p} cannot be a directory")
    if not os.access(q, os.W_OK | os.X_OK):
        raise UsageError(f"{option}: {q} is not writable")


def _ints(text: str, what: str) -> list[int]:
    try:
        vals = [int(x) for x in text.split(",") if x.strip()]
    except ValueError:
        raise UsageError(f"{what}: {text!r} is not a comma-separated list of integers") from None
    if not vals or any(v < 1 for v in vals):
        raise UsageError(f"{what}: {text!r}; expected positive integers such as 1,2,4")
    return vals


def _rto_settings(
    text: str, resolution: str, hz: int, keep_auto: bool = False
) -> list[tuple[str, str]]:
    """Parses "200ms,5ms@jiffy,200us@1us" into (min_rto, resolution) pairs.

    With ``keep_auto`` an "auto" resolution is left for the profile to
    settle (the ns2 host keeps its own 10 ms tick, see scenarios.incast)."""
    out = []
    for item in (x.strip() for x in text.split(",")):
        if not item:
            continue
        rto, _, res = item.partition("@")
        try:
            parse_time_ps(rto)
        except ValueError:
            raise UsageError(
                f"--min-rto: {rto!r} is not a duration; expected e.g. 200ms, 5ms, 200us"
            ) from None
        r = res or resolution
        out.append((rto, r if keep_auto and r == "auto" else resolve_resolution(rto, r, hz)))
    if not out:
        raise UsageError("--min-rto: no setting given")
    return out


def _buffers(text: str, what: str) -> list[str]:
    """Buffer limits: sizes (64KiB) or packet counts (32pkt), as [queue] limit."""
    vals = [x.strip() for x in text.split(",") if x.strip()]
    for v in vals:
        count = v.removesuffix("pkt").strip()
        if v.endswith("pkt") and count.isdigit() and int(count) > 0:
            continue
        try:
            parse_size(v)
        except ValueError:
            raise UsageError(
                f"{what}: {v!r} is not a buffer limit; expected a size such as 64KiB or a "
                "packet count such as 32pkt"
            ) from None
    if not vals:
        raise UsageError(f"{what}: {text!r}; expected one or more limits such as 64KiB,32pkt")
    return vals


def _sizes(text: str, what: str) -> list[str]:
    vals = [x.strip() for x in text.split(",") if x.strip()]
    for v in vals:
        try:
            parse_size(v)
        except ValueError:
            raise UsageError(f"{what}: {v!r} is not a size such as 64KiB") from None
    if not vals:
        raise UsageError(f"{what}: {text!r}; expected one or more sizes such as 64KiB,128KiB")
    return vals


def _warn(msg: str) -> None:
    print(f"fairlab: warning: {msg}", file=sys.stderr)


def _emulate(sc: dict, seed: int | None, time_limit: float | None = None):
    """One run on the kernel (the namespace backend), warnings on stderr."""
    from .emu import emulate
    from .emu.run import DEFAULT_TIME_LIMIT_S

    return emulate(sc, seed=seed, time_limit_s=time_limit or DEFAULT_TIME_LIMIT_S, warn=_warn)


def cmd_run(args: argparse.Namespace) -> int:
    sc = load_scenario(_scenario_file(args.file))
    _check_out_dir(args.out, "--out")
    if getattr(args, "backend", "sim") == "emu":
        res = _emulate(sc, args.seed, getattr(args, "time_limit", None))
        print(_emu_summary_text(res))
    elif getattr(args, "backend", "sim") == "ns2":
        res = _ns2_run(sc, args.seed, getattr(args, "time_limit", None))
        s = res.summary
        print(
            f"backend ns2: ns-2 {s['ns_version']}, {s['wall_s']:.2f} s in ns, script "
            f"{s['script_digest']}\n" + res.summary_text()
        )
    else:
        res = simulate(sc, seed=args.seed, progress=sys.stderr.isatty())
        print(res.summary_text())
    if args.out:
        out = res.to_parquet(args.out)
        print(f"tables written to {out}/ (" + ", ".join(f"{t}.parquet" for t in res.tables) + ")")
    return 0


def _ns2_run(sc: dict, seed: int | None, time_limit: float | None = None):
    """One run on real ns-2 (the ns-2 backend), warnings on stderr."""
    from .ns2 import simulate_ns2
    from .ns2.run import DEFAULT_TIME_LIMIT_S

    res = simulate_ns2(sc, seed=seed, time_limit_s=time_limit or DEFAULT_TIME_LIMIT_S)
    for w in filter(None, str(res.summary.get("warnings", "")).split(" | ")):
        _warn(w)
    return res


def _emu_summary_text(res) -> str:
    """The simulator's summary, and what only a kernel run has."""
    s = res.summary
    text = res.summary_text()
    return (
        f"backend emu: kernel {s['kernel']}, HZ {s['hz']}, congestion controls "
        f"{s['cc_modules']}; set-up {s['setup_s']:.2f} s, tear-down {s['teardown_s']:.2f} s, "
        f"agents' CPU {s['agents_cpu_s']:.2f} s, machine busy {100 * s['machine_busy']:.0f} %, "
        f"softnet drops {s['softnet_drops']}\n" + text
    )


def cmd_emulate(args: argparse.Namespace) -> int:
    if args.cleanup:
        from .emu import cleanup
        from .emu.safety import check_machine

        check_machine()
        removed = cleanup(include_running=args.force)
        print(f"removed {len(removed)} namespaces" + (": " + " ".join(removed) if removed else ""))
        return 0
    if not args.file:
        raise UsageError("emulate: a scenario file, or --cleanup; expected one")
    return cmd_run(args)


def cmd_compare(args: argparse.Namespace) -> int:
    from .emu.compare import compare, format_table

    sc = load_scenario(_scenario_file(args.file))
    seeds = _seed_list(args.seeds) or [sc.get("seed", 1)]
    ns2 = args.against == "ns2"
    other = "ns2" if ns2 else "kernel"

    def emu(scenario: dict, seed: int):
        if ns2:
            return _ns2_run(scenario, seed, args.time_limit)
        return _emulate(scenario, seed, args.time_limit)

    if ns2:
        # Refusals and a missing ns before the first simulated run.
        import json as _json

        from .ns2.run import lower as ns2_lower
        from .ns2.run import version as ns2_version

        ns2_lower(_json.dumps(sc))
        ns2_version()
    rows, sim_runs, emu_runs = compare(sc, seeds, simulate, emu, other)
    if args.format == "csv":
        import pandas as pd

        pd.DataFrame(rows).to_csv(sys.stdout, index=False, float_format="%.6g")
    else:
        print(
            f"{args.file}: simulator and {'ns-2' if ns2 else 'kernel'}, {len(seeds)} seed(s) "
            f"each (seeds {','.join(map(str, seeds))}); {other} sd: run-to-run spread"
        )
        print(format_table(rows, other))
    if args.out:
        import pandas as pd

        out = Path(args.out)
        out.mkdir(parents=True, exist_ok=True)
        pd.DataFrame(rows).to_csv(out / "compare.csv", index=False)
        runs = [r | {"backend": "sim"} for r in sim_runs] + [
            r | {"backend": "ns2" if ns2 else "emu"} for r in emu_runs
        ]
        pd.DataFrame(runs).to_csv(out / "runs.csv", index=False)
    return 0


def _emu_jobs(jobs: list[Job], time_limit: float | None) -> pd.DataFrame:
    """Runs jobs one after another on the kernel (namespaces share the
    machine: runs side by side would measure each other)."""
    import pandas as pd

    rows = []
    for job in jobs:
        res = _emulate(job.scenario, job.seed, time_limit)
        rows.append({**job.params, **res.summary})
    return pd.DataFrame(rows)


def incast_table(args: argparse.Namespace) -> pd.DataFrame:
    """Runs the incast sweep the arguments describe; one row per run.

    Every scenario is validated before the first one runs."""
    servers = _ints(args.servers, "--servers")
    seeds = _ints(args.seeds, "--seeds")
    emu = getattr(args, "backend", "sim") == "emu"
    if emu and (args.cluster or args.jobs):
        raise UsageError(
            "--backend emu runs one run at a time on this machine; expected no --cluster or --jobs"
        )
    if args.hz is None:
        # The kernel's own clock on the namespace backend; 1000 Hz simulated.
        from .emu.machine import hz as kernel_hz

        args.hz = kernel_hz()[0] if emu else 1000
    settings = _rto_settings(
        args.min_rto, args.resolution, args.hz, keep_auto=args.profile == "ns2"
    )
    buffers = _buffers(args.buffer, "--buffer")
    sizing = {"block": args.block} if args.block else {"sru": args.sru or "256KiB"}
    for v in sizing.values():
        _sizes(v, "--block/--sru")
    # DCTCP needs switches that mark: by default at a quarter of the buffer
    # (10 to 11 packets of a 64 KiB port; the DCTCP paper's rule K > C x RTT / 7
    # asks for only 1.2 packets at 1 Gb/s and 100 us).
    ecn_k = args.ecn_threshold
    jobs = []
    for buf in buffers:
        for rto, res in settings:
            for n in servers:
                for seed in seeds:
                    k = ecn_k
                    if k is None and args.tcp == "dctcp":
                        k = f"{int(buf[:-3]) // 4}pkt" if buf.endswith("pkt") else (
                            f"{parse_size(buf) // 4}B")  # fmt: skip
                    sc = incast_scenario(
                        n,
                        buffer=buf,
                        min_rto=rto,
                        resolution=res,
                        hz=args.hz,
                        rounds=args.rounds,
                        delayed_ack=args.delayed_ack == "on",
                        profile=args.profile,
                        jitter=args.jitter if parse_time_ps(args.jitter) > 0 else None,
                        tcp=args.tcp,
                        sack=None if args.sack is None else args.sack == "on",
                        ecn_threshold=k,
                        randomize_rto=True if args.randomize_rto else None,
                        mss=args.mss,
                        rwnd=args.rwnd,
                        duration=args.duration,
                        rate=args.rate,
                        **sizing,
                    )
                    # The TCP and SACK columns come from each run's summary:
                    # what the profile and options actually gave.
                    params = {
                        "servers": n,
                        "min_rto": rto,
                        "resolution": res,
                        "buffer": buf,
                        "seed": seed,
                    }
                    jobs.append(Job(params, sc, seed))
    for job in jobs:
        validate(job.scenario)
    # With --out every run is kept there too (the layout fairlab.load reads),
    # as `fairlab reproduce` keeps its runs beside its report.
    store = args.store or args.out
    if emu:
        df = _emu_jobs(jobs, None)
    else:
        df = run_jobs(jobs, workers=args.jobs, cluster=args.cluster, store=store)
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


def cmd_incast(args: argparse.Namespace) -> int:
    _check_out_dir(args.out, "--out")
    _check_out_file(args.plot, "--plot")
    df = incast_table(args)
    cols = [
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
    if args.format == "csv":
        df[cols].to_csv(sys.stdout, index=False, float_format="%.6g")
    else:
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
    if args.out:
        out = Path(args.out)
        out.mkdir(parents=True, exist_ok=True)
        df[cols].to_parquet(out / "incast.parquet", index=False)
    if args.plot:
        from .plots import plot_incast

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


#: Metrics a sweep table shows, when the runs have them (all are in --out).
SWEEP_SHOWN = [
    "incast_goodput_bps",
    "flow_goodput_mean_bps",
    "jain_index",
    "total_timeouts",
    "drops",
]
#: Every metric of a sweep table: the summary's measurements and the flows'.
SWEEP_METRICS = [
    "sim_end_s",
    "events",
    "packets_sent",
    "data_packets_sent",
    "packet_hops",
    "drops",
    "local_drops",
    "rounds_completed",
    "incast_goodput_bps",
    "total_timeouts",
    "udp_sent",
    "udp_delivered",
    "hcf_memory_bits",
    "flow_goodput_mean_bps",
    "flow_goodput_min_bps",
    "jain_index",
]


def _seed_list(text: str | None) -> list[int] | None:
    """--seeds: N (seeds 1 to N) or a list such as 1,5,9; None: the scenario's seed."""
    if text is None:
        return None
    try:
        if "," not in text:
            n = int(text)
            if n < 1:
                raise ValueError
            return list(range(1, n + 1))
        seeds = [int(x) for x in text.split(",") if x.strip()]
    except ValueError:
        raise UsageError(
            f"--seeds: {text!r}; expected a count such as 3 (seeds 1 to 3) or a list such as 1,5,9"
        ) from None
    if not seeds or any(not 0 <= x < 2**64 for x in seeds):
        raise UsageError(f"--seeds: {text!r}; expected seeds in [0, 2^64)")
    return seeds


def _fmt_metric(metric: str, mean: float, std: float) -> str:
    from .sweep import metric_unit

    scale, unit = metric_unit(metric)
    if mean != mean:  # NaN
        return "-"
    text = f"{mean * scale:.1f}" if unit == "Mb/s" else f"{mean * scale:.4g}"
    if std == std:
        text += f" ± {std * scale:.1f}" if unit == "Mb/s" else f" ± {std * scale:.2g}"
    return text


def cmd_sweep(args: argparse.Namespace) -> int:
    """The Cartesian product of --param values (and seeds) over one scenario file."""
    from .runner import TasksFailed, run_tasks
    from .sweep import parse_param, sweep_table, sweep_tasks

    base = load_scenario(_scenario_file(args.file))
    params = [parse_param(p) for p in args.param]
    names = [p for p, _ in params]
    seeds = _seed_list(args.seeds)
    plot = None
    if args.plot:
        spec, plot_path = args.plot
        metric, colon, param = spec.partition(":")
        if not colon or metric not in SWEEP_METRICS or param not in names:
            raise UsageError(
                f"--plot {spec}: expected METRIC:PARAM with METRIC one of "
                f"{', '.join(SWEEP_METRICS)} and PARAM one of the --param paths "
                f"({', '.join(names) or 'none given'})"
            )
        _check_out_file(plot_path, "--plot")
        plot = (metric, param, plot_path)
    if args.out and Path(args.out).suffix not in (".csv", ".parquet"):
        raise UsageError(f"--out: {args.out}; expected a .csv or .parquet file name")
    _check_out_file(args.out, "--out")
    store = None if args.no_store else args.store
    if store is not None:
        _check_out_dir(store, "--store")
    tasks = sweep_tasks(base, params, seeds)
    combos = len(tasks) // max(len(seeds or [None]), 1)
    stored = ""
    if store is not None:
        from .store import Store

        st = Store(store)
        have = set(st.run_keys())
        from .runner import _plan

        n_have = sum(u.key in have for u in _plan(tasks)[0])
        stored = f"; store {Path(store)}/ holds {n_have} of them"
    print(
        f"{len(tasks)} runs: {combos} parameter combinations x {len(seeds or [None])} "
        f"seed(s){stored}",
        file=sys.stderr,
    )
    failed: dict[int, str] = {}
    try:
        results = run_tasks(tasks, jobs=args.jobs, cluster=args.cluster, store=store)
    except TasksFailed as e:
        failed = e.failures
        for i, why in sorted(failed.items()):
            labels = " ".join(f"{k}={v}" for k, v in tasks[i].labels.items())
            print(f"fairlab: run failed ({labels}): {why}", file=sys.stderr)
        results = e.results
    ok = [i for i, r in enumerate(results) if r is not None]
    runs, summary = sweep_table([tasks[i] for i in ok], [results[i] for i in ok], names)
    if args.format == "csv":
        summary.to_csv(sys.stdout, index=False, float_format="%.6g")
    else:
        shown = [
            m for m in SWEEP_SHOWN if f"{m}_mean" in summary and summary[f"{m}_mean"].notna().any()
        ]
        if plot and plot[0] not in shown:
            shown.append(plot[0])
        table = summary[[*names, "seeds"]].copy()
        for m in shown:
            from .sweep import metric_unit

            _, unit = metric_unit(m)
            table[f"{m} ({unit})"] = [
                _fmt_metric(m, a, b)
                for a, b in zip(summary[f"{m}_mean"], summary[f"{m}_std"], strict=True)
            ]
        name = base.get("name", Path(args.file).stem)
        nseeds = len(seeds or [None])
        print(f"sweep of {name}: mean" + (f" ± std over {nseeds} seeds" if nseeds > 1 else ""))
        print(table.to_string(index=False))
    if args.out:
        if args.out.endswith(".parquet"):
            summary.to_parquet(args.out, index=False)
        else:
            summary.to_csv(args.out, index=False)
        print(f"summary table written to {args.out}", file=sys.stderr)
    if plot:
        from .plots import plot_sweep

        plot_sweep(summary, plot[0], plot[1], names, plot[2], title=base.get("name"))
        print(f"plot written to {plot[2]}", file=sys.stderr)
    return 1 if failed else 0


def cmd_results(args: argparse.Namespace) -> int:
    """Lists, filters and exports the runs of a results store."""
    import pandas as pd

    from .store import MARKER, Store, check_run

    root = Path(args.dir)
    if not (root / MARKER).exists():
        raise UsageError(f"{args.dir}: not a fairlab results store (no {MARKER})")
    for opt in (args.export, args.table_out):
        if opt and Path(opt).suffix not in (".csv", ".parquet"):
            raise UsageError(f"{opt}: expected a .csv or .parquet file name")
        _check_out_file(opt, "--export")
    st = Store(root)
    df = st.table()
    labels = df.attrs.get("labels", [])
    if args.verify:
        bad = [k for k in st.run_keys() if check_run(st.path(k)) is not None]
        for k in bad:
            print(f"corrupt: {st.path(k)}: {check_run(st.path(k))}", file=sys.stderr)
        if bad:
            df = df[~df["key"].isin(bad)]
    for cond in args.where:
        col, eq, val = cond.partition("=")
        if not eq or col not in df.columns:
            cols = ", ".join(df.columns) if len(df) else "none: the store is empty"
            raise UsageError(f"--where {cond}: expected COL=VALUE with COL one of {cols}")
        c = df[col]
        if pd.api.types.is_numeric_dtype(c) and not pd.api.types.is_bool_dtype(c):
            try:
                num = float(val)
            except ValueError:
                raise UsageError(
                    f"--where {cond}: {col} holds numbers; {val!r} is not one"
                ) from None
            df = df[c == num]
        else:
            df = df[c.astype(str) == val]
    if args.export:
        out = df.drop(columns=[]).reset_index(drop=True)
        if args.export.endswith(".parquet"):
            out.to_parquet(args.export, index=False)
        else:
            out.to_csv(args.export, index=False)
        print(f"{len(out)} runs written to {args.export}", file=sys.stderr)
    if args.table:
        frames = []
        for _, row in df.iterrows():
            res = st.get(row["key"])
            if args.table not in res.tables:
                raise UsageError(
                    f"--table {args.table}: not a table of the runs; expected one of "
                    f"{', '.join(res.tables)}"
                )
            t = res.tables[args.table].copy()
            for i, lab in enumerate(["key", *labels]):
                t.insert(i, lab, row[lab])
            frames.append(t)
        tab = pd.concat(frames, ignore_index=True) if frames else pd.DataFrame()
        if args.table_out is None:
            tab.to_csv(sys.stdout, index=False, float_format="%.6g")
        elif args.table_out.endswith(".parquet"):
            tab.to_parquet(args.table_out, index=False)
        else:
            tab.to_csv(args.table_out, index=False)
        return 0
    if args.format == "csv":
        df.to_csv(sys.stdout, index=False, float_format="%.6g")
        return 0
    if not len(df):
        print(f"{args.dir}: no runs" + (" match" if args.where else ""))
        return 0
    shown = ["key", "name", *labels]
    shown += [
        m
        for m in ("incast_goodput_bps", "total_timeouts", "drops", "sim_end_s")
        if m in df and df[m].notna().any()
    ]
    view = df[[c for c in dict.fromkeys(shown) if c in df]].copy()
    view["key"] = view["key"].str[:12]
    print(f"{len(df)} runs in {args.dir}")
    print(view.to_string(index=False, float_format=lambda x: f"{x:.4g}"))
    return 0


def cmd_trace(args: argparse.Namespace) -> int:
    """Runs a scenario with the sender trace on and plots one flow's state."""
    sc = load_scenario(_scenario_file(args.file))
    _check_out_file(args.plot, "--plot")
    _check_out_file(args.csv, "--csv")
    from .plots import plot_trace

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


def cmd_reproduce(args: argparse.Namespace) -> int:
    """Runs a study's experiments (the registry in fairlab.studies), prints
    each beside the published numbers and writes the report into --out."""
    import time

    from . import __version__, report, studies

    if args.list:
        for name in studies.names():
            st = studies.get(name)
            print(f"{name}: {st.title}")
            print(f"    source: {st.source}")
            width = max(len(e.name) for e in st.experiments)
            for e in st.experiments:
                print(f"  {e.name:<{width}}  {e.reproduces}")
        return 0
    if args.study is None:
        raise UsageError(
            "reproduce: name a study (one of " + ", ".join(studies.names()) + ") or give --list"
        )
    if args.study not in studies.names():
        raise UsageError(
            f"reproduce: {args.study!r} is not a known study; expected one of "
            + ", ".join(studies.names())
            + " (see fairlab reproduce --list)"
        )
    study = studies.get(args.study)
    names = args.experiment or study.names
    for name in names:
        if name not in study.names:
            raise UsageError(
                f"--experiment: {name!r} is not an experiment of {study.name}; expected one of "
                + ", ".join(study.names)
            )
    names = list(dict.fromkeys(names))
    if args.format == "csv" and len(names) > 1:
        raise UsageError("--format csv prints one table: give one --experiment")
    out = Path(args.out or f"{study.name}-results")
    _check_out_dir(str(out), "--out")
    if args.no_store and args.store:
        raise UsageError("--store and --no-store: give one of them")
    store = None if args.no_store else (args.store or str(out))
    if args.store:
        _check_out_dir(args.store, "--store")
    outcomes = []
    t0 = time.perf_counter()
    for name in names:
        o = report.run_experiment(
            study.experiment(name),
            quick=args.quick,
            jobs=args.jobs,
            cluster=args.cluster,
            store=store,
        )
        if args.backend in ("ns2", "all") or (args.backend == "sim" and not args.no_ns2):
            _ns2_column(study, o, args)
        if args.backend in ("both", "all"):
            from .emu import studies as emu_studies

            exp = study.experiment(name)
            why = emu_studies.refusal(exp.tasks(args.quick))
            if why is None:
                o.kernel = report.run_experiment(
                    exp, quick=args.quick, run=emu_studies.runner(_warn)
                )
            else:
                o.kernel_note = why
        outcomes.append(o)
        if args.format == "csv":
            o.summary.table.to_csv(sys.stdout, index=False, float_format="%.6g")
        else:
            print(("\n" if len(outcomes) > 1 else "") + report.text(study, o), flush=True)
    command = (
        "fairlab " + " ".join(sys.argv[1:]) if args.command_line is None else args.command_line
    )
    page = report.write(study, outcomes, out, command=command, version=__version__)
    print(
        f"report: {page} ({len(outcomes)} experiment(s), {time.perf_counter() - t0:.1f} s; "
        "tables as CSV and Parquet beside it"
        + (f"; every run in {store}/runs, see fairlab results {store})" if store else ")"),
        file=sys.stderr,
    )
    return 0


def _ns2_column(study, o, args: argparse.Namespace) -> None:
    """The experiment's ns-2 column: run now with --backend ns2|all (ns-2
    must be installed), else the stored ns-2 results where the study keeps
    them (their provenance shown)."""
    from . import __version__
    from .ns2 import ns_binary
    from .ns2 import studies as ns2_studies

    exp = o.experiment
    if args.backend in ("ns2", "all"):
        if ns_binary() is None:
            raise UsageError(
                "--backend ns2: ns-2 is not installed (`ns` is not on the PATH; Debian: "
                "apt-get install ns2); without it the report shows the stored ns-2 results"
            )
        o.ns2, o.ns2_note = ns2_studies.run_experiment(exp, args.quick, args.jobs)
        if o.ns2 is not None and args.save_ns2:
            ns2_studies.save(study.name, o.ns2, __version__)
        return
    stored, prov = ns2_studies.load(study.name, exp, args.quick)
    if stored is not None:
        o.ns2, o.ns2_provenance = stored, prov


def _examples_dir() -> Path:
    """The example scenarios installed with the package."""
    from importlib.resources import files

    return Path(str(files("fairlab") / "examples"))


def _first_comment(path: Path) -> str:
    for line in path.read_text().splitlines():
        line = line.strip()
        if line.startswith("#"):
            return line.lstrip("# ").strip()
    return ""


def cmd_examples(args: argparse.Namespace) -> int:
    """Lists the shipped example scenarios, or copies them into a directory."""
    import shutil

    src = _examples_dir()
    files = sorted(src.glob("*.toml"))
    if args.copy:
        dest = Path(args.copy)
        _check_out_dir(args.copy, "--copy")
        dest.mkdir(parents=True, exist_ok=True)
        for f in files:
            target = dest / f.name
            if target.exists() and not args.force:
                raise UsageError(f"--copy: {target} exists; add --force to overwrite it")
        for f in files:
            shutil.copyfile(f, dest / f.name)
            print(dest / f.name)
        return 0
    width = max(len(f.name) for f in files)
    for f in files:
        print(f"{f.name:<{width}}  {_first_comment(f)}")
    print(f"(in {src}; fairlab examples --copy DIR copies them, then: fairlab run DIR/NAME.toml)")
    return 0


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

    from .scenarios import dumbbell

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
    rows = []
    for name, scs in workloads.items():
        walls = []
        for _ in range(args.repeat):
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
        print(f"machine: {_machine()}; median of {args.repeat} repeats, one core")
        for r in rows:
            print(
                f"{r['workload']}: {r['runs']} runs in {r['wall_s_median']:.3f} s; "
                f"{r['packets_per_s'] / 1e6:.2f} M packets/s, "
                f"{r['packet_hops_per_s'] / 1e6:.2f} M packet-hops/s, "
                f"{r['events_per_s'] / 1e6:.2f} M events/s"
            )
    return 0


def _version() -> str:
    from . import __version__

    return __version__


def _study_names() -> list[str]:
    from . import studies

    return studies.names()


def build_parser() -> argparse.ArgumentParser:
    p = _Parser(
        prog="fairlab",
        description="Simulate, measure and reproduce TCP unfairness in data-center networks.",
    )
    p.add_argument("--version", action="version", version=f"fairlab {_version()}")
    sub = p.add_subparsers(dest="command", required=True)

    r = sub.add_parser("run", help="simulate one scenario file")
    r.add_argument("file", help="scenario TOML file")
    r.add_argument("--seed", type=_seed, default=None, help="override the scenario's seed")
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
        "--time-limit", type=float, default=None, help="emu, ns2: seconds a run may last at most"
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
    em.add_argument("--seed", type=_seed, default=None, help="override the scenario's seed")
    em.add_argument("--out", help="write the tables as Parquet into this directory")
    em.add_argument(
        "--time-limit",
        type=float,
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

    cp = sub.add_parser(
        "compare",
        help="the simulator and the kernel (root) or real ns-2 on the same scenario, metric by "
        "metric",
    )
    cp.add_argument("file", help="scenario TOML file")
    cp.add_argument("--seeds", default="3", help="seeds: N (1..N) or a list (default 3)")
    cp.add_argument(
        "--against",
        choices=["emu", "ns2"],
        default="emu",
        help="emu: the kernel in namespaces (root; default); ns2: real ns-2 (`ns` on the PATH)",
    )
    cp.add_argument("--time-limit", type=float, default=None, help="emu: seconds per run at most")
    cp.add_argument(
        "--format",
        choices=["table", "csv"],
        default="table",
        help="table: one row per metric, both backends (default); csv: the same as CSV",
    )
    cp.add_argument("--out", metavar="DIR", help="write compare.csv and runs.csv here")
    cp.set_defaults(func=cmd_compare)

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
        type=_int_at_least(1),
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
        "--rounds", type=_int_at_least(1), default=20, help="rounds per run (default 20)"
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
        type=_duration(True),
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
        type=_duration(False),
        default="0us",
        help="host send jitter U(0, j) per packet; nonzero makes seeds differ (default 0us)",
    )
    i.add_argument("--seeds", default="1", help="seeds, e.g. 1,2,3 (table shows the mean)")
    i.add_argument(
        "--jobs", type=_int_at_least(1), default=None, help="worker processes (default: all cores)"
    )
    i.add_argument(
        "--cluster",
        metavar="ADDRESS",
        help="run on this Dask scheduler (tcp://HOST:8786) instead of local processes",
    )
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

    sw = sub.add_parser(
        "sweep",
        help="one scenario over the Cartesian product of field values and seeds",
        description="Runs SCENARIO once per combination of --param values and seed, on "
        "local processes or a Dask cluster, keeps every run in a results store (a rerun "
        "skips what is stored), and prints the mean and standard deviation over seeds.",
    )
    sw.add_argument("file", help="scenario TOML file")
    sw.add_argument(
        "--param",
        action="append",
        default=[],
        metavar="PATH=V1,V2,...",
        help="a field by its path and the values it takes, e.g. topology.rate=1Gbps,10Gbps, "
        "workload.0.servers=4,8, queue.limit=32KiB,64KiB (values as in TOML; repeatable)",
    )
    sw.add_argument(
        "--seeds",
        help="N: seeds 1 to N; or a list such as 1,5,9 (default: the scenario's seed)",
    )
    sw.add_argument(
        "--store",
        default="fairlab-store",
        metavar="DIR",
        help="results store directory (default %(default)s)",
    )
    sw.add_argument("--no-store", action="store_true", help="keep no run on disk")
    sw.add_argument(
        "--jobs", type=_int_at_least(1), default=None, help="worker processes (default: all cores)"
    )
    sw.add_argument(
        "--cluster",
        metavar="ADDRESS",
        help="run on this Dask scheduler (tcp://HOST:8786) instead of local processes",
    )
    sw.add_argument(
        "--out", metavar="FILE", help="write the summary table to FILE.csv or FILE.parquet"
    )
    sw.add_argument(
        "--format", choices=["table", "csv"], default="table", help="what to print (table)"
    )
    sw.add_argument(
        "--plot",
        nargs=2,
        metavar=("METRIC:PARAM", "OUT.png"),
        help="plot METRIC (e.g. incast_goodput_bps) against the --param PARAM, error bars "
        "over seeds",
    )
    sw.set_defaults(func=cmd_sweep)

    rs = sub.add_parser(
        "results",
        help="list, filter and export the runs of a results store",
        description="One row per stored run (and label set): key, labels, summary.",
    )
    rs.add_argument("dir", help="results store directory (fairlab sweep --store)")
    rs.add_argument(
        "--where",
        action="append",
        default=[],
        metavar="COL=VALUE",
        help="keep rows whose column equals VALUE (repeatable: all must hold)",
    )
    rs.add_argument(
        "--export", metavar="FILE", help="write the rows (every column) to FILE.csv or .parquet"
    )
    rs.add_argument(
        "--table",
        help="print one result table (flows, rounds, ports, ...) of every selected run, "
        "with its key and labels, as CSV",
    )
    rs.add_argument(
        "--table-out", metavar="FILE", help="write --table to FILE.csv or .parquet instead"
    )
    rs.add_argument(
        "--verify", action="store_true", help="check every run's files against its run.json"
    )
    rs.add_argument(
        "--format",
        choices=["table", "csv"],
        default="table",
        help="table: a few columns per run (default); csv: every column",
    )
    rs.set_defaults(func=cmd_results)

    t = sub.add_parser("trace", help="cwnd, ssthresh, SRTT and RTO of one flow over time")
    t.add_argument("file", help="scenario TOML file")
    t.add_argument("--flow", type=_int_at_least(0), default=0, help="flow id (default 0)")
    t.add_argument("--seed", type=_seed, default=None, help="override the scenario's seed")
    t.add_argument("--plot", default="trace.png", help="PNG to write (default trace.png)")
    t.add_argument("--csv", help="also write the trace rows as CSV")
    t.set_defaults(func=cmd_trace)

    rp = sub.add_parser(
        "reproduce",
        help="a source document's experiments beside its published numbers, with a report",
        description="Runs the experiments of one study (fairlab reproduce --list names them), "
        "prints each beside the published numbers with a verdict per row, and writes an HTML "
        "report with plots, and the tables as CSV and Parquet, into --out.",
    )
    rp.add_argument(
        "study", nargs="?", help="the study to run (see --list): " + ", ".join(_study_names())
    )
    rp.add_argument(
        "--list", action="store_true", help="list the studies and their experiments, then exit"
    )
    rp.add_argument(
        "--experiment",
        nargs="+",
        action="extend",
        metavar="NAME",
        help="run only these experiments of the study (default: all of them)",
    )
    rp.add_argument(
        "--quick", action="store_true", help="fewer and shorter runs (not the published scale)"
    )
    rp.add_argument(
        "--jobs", type=_int_at_least(1), default=None, help="worker processes (default: all cores)"
    )
    rp.add_argument(
        "--cluster",
        metavar="ADDRESS",
        default=None,
        help="run on an existing Dask cluster, e.g. tcp://HOST:8786 (default: local processes)",
    )
    rp.add_argument(
        "--out",
        metavar="DIR",
        default=None,
        help="directory for the report (index.html), its plots and the tables as CSV and "
        "Parquet (default: STUDY-results)",
    )
    rp.add_argument(
        "--store",
        metavar="DIR",
        default=None,
        help="results store for every run (fairlab.load reads each; a rerun skips the runs "
        "already there, so an interrupted study resumes; default: the --out directory)",
    )
    rp.add_argument(
        "--no-store",
        action="store_true",
        help="keep no run's tables, only the report (a rerun runs everything again)",
    )
    rp.add_argument(
        "--format",
        choices=["table", "csv"],
        default="table",
        help="table: each experiment beside the published numbers (default); csv: one "
        "experiment's table on stdout",
    )
    rp.add_argument(
        "--backend",
        choices=["sim", "both", "ns2", "all"],
        default="sim",
        help="sim: the simulator (default; the report shows the stored ns-2 results where a "
        "study keeps them); both: each experiment the kernel can run also on real Linux TCP "
        "in namespaces (root; one run at a time), the report showing both side by side, and "
        "why not for the others; ns2: the runs ns-2 can run also on real ns-2 (`ns` on the "
        "PATH), published, ns-2 and fairlab side by side; all: ns2 and both",
    )
    rp.add_argument(
        "--no-ns2", action="store_true", help="with --backend sim: no stored ns-2 column"
    )
    rp.add_argument(
        "--save-ns2",
        action="store_true",
        help="with --backend ns2|all: keep the ns-2 results in the package's store "
        "(fairlab/studies/ns2_results), for reports on machines without ns-2",
    )
    rp.set_defaults(func=cmd_reproduce, command_line=None)

    ex = sub.add_parser(
        "examples",
        help="list the example scenarios installed with fairlab, or copy them",
        description="The example scenario files shipped with the package, each naming the "
        "published result it reproduces.",
    )
    ex.add_argument("--copy", metavar="DIR", help="copy every example scenario into DIR")
    ex.add_argument(
        "--force", action="store_true", help="with --copy: overwrite files of the same name"
    )
    ex.set_defaults(func=cmd_examples)

    b = sub.add_parser("bench", help="simulated packets per wall second on reference workloads")
    b.add_argument("--quick", action="store_true", help="smaller workloads")
    b.add_argument(
        "--repeat", type=_int_at_least(1), default=3, help="repeats; the median is reported"
    )
    b.add_argument(
        "--format",
        choices=["table", "csv"],
        default="table",
        help="table: a line per workload (default); csv: one row per workload",
    )
    b.set_defaults(func=cmd_bench)
    return p


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        return args.func(args)
    except (ScenarioError, UsageError) as e:  # the runner raises UsageError too
        print(f"fairlab: error: {e}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("fairlab: interrupted", file=sys.stderr)
        return 130
    except TasksFailed as e:
        print(f"fairlab: error: {e}", file=sys.stderr)
        return 1
    except _EmulationRefused as e:
        print(f"fairlab: error: {e}", file=sys.stderr)
        return 3
    except (_Ns2Unavailable, _Ns2Failed) as e:
        print(f"fairlab: error: {e}", file=sys.stderr)
        return 3
    except BrokenPipeError:
        return 0
    except FileNotFoundError as e:
        print(f"fairlab: error: {e.filename}: no such file", file=sys.stderr)
        return 2
    except OSError as e:
        # Unreadable scenario, unwritable output: one line naming the file.
        what = f"{e.filename}: {e.strerror}" if e.filename else str(e)
        print(f"fairlab: error: {what}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    raise SystemExit(main())
