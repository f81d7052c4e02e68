"""`fairlab sweep FILE.toml --param PATH=V1,V2 ...`: one scenario over the
Cartesian product of field values and seeds, kept in a results store."""

from __future__ import annotations

import argparse
import json
import math
import sys
from pathlib import Path

from .common import (
    UsageError,
    add_pool_options,
    check_out_dir,
    check_out_file,
    check_runs,
    check_sweep_bytes,
    read_scenario,
    seed_list,
    shorten,
    shorten_path,
)

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


def _fmt_metric(metric: str, mean: float, std: float) -> str:
    from ..sweep import metric_unit

    scale, unit = metric_unit(metric)
    if mean != mean:  # NaN
        return "-"
    text = f"{mean * scale:.1f}" if unit == "Mb/s" else f"{mean * scale:.4g}"
    if std == std:
        text += f" ± {std * scale:.1f}" if unit == "Mb/s" else f" ± {std * scale:.2g}"
    return text


def _plot_spec(args: argparse.Namespace, names: list[str]) -> tuple[str, str, str] | None:
    """--plot METRIC:PARAM OUT.png, checked before anything runs."""
    if not args.plot:
        return None
    spec, plot_path = args.plot
    metric, colon, param = spec.partition(":")
    if not colon or metric not in SWEEP_METRICS or param not in names:
        raise UsageError(
            f"--plot {shorten(spec)}: expected METRIC:PARAM with METRIC one of "
            f"{', '.join(SWEEP_METRICS)} and PARAM one of the --param paths "
            f"({', '.join(map(shorten, names)) or 'none given'})"
        )
    check_out_file(plot_path, "--plot")
    return metric, param, plot_path


def _print_table(summary, names, seeds, plot, base, args) -> None:
    from ..sweep import metric_unit

    shown = [
        m for m in SWEEP_SHOWN if f"{m}_mean" in summary and summary[f"{m}_mean"].notna().any()
    ]
    if plot and plot[0] not in shown:
        shown.append(plot[0])
    table = summary[[*names, "seeds"]].copy()
    for m in shown:
        _, unit = metric_unit(m)
        table[f"{m} ({unit})"] = [
            _fmt_metric(m, a, b)
            for a, b in zip(summary[f"{m}_mean"], summary[f"{m}_std"], strict=True)
        ]
    name = base.get("name", Path(args.file).stem)
    nseeds = len(seeds or [None])
    print(f"sweep of {name}: mean" + (f" ± std over {nseeds} seeds" if nseeds > 1 else ""))
    print(table.to_string(index=False))


def cmd_sweep(args: argparse.Namespace) -> int:
    """The Cartesian product of --param values (and seeds) over one scenario file."""
    from ..sweep import parse_param, sweep_table, sweep_tasks

    base = read_scenario(args.file)
    params = [parse_param(p) for p in args.param]
    names = [p for p, _ in params]
    seeds = seed_list(args.seeds, args.max_runs)
    # The product is counted before a single scenario is built.
    combos = math.prod(len(values) for _, values in params)
    check_runs(
        combos * len(seeds or [None]),
        "--param x --seeds" if params else "--seeds",
        args.max_runs,
    )
    # A run holds its scenario (copies share the strings) and the runner its
    # normalized JSON: about three times the scenario's JSON.
    base_bytes = 3 * len(json.dumps(base))
    check_sweep_bytes(combos * len(seeds or [None]), base_bytes, shorten_path(args.file))
    plot = _plot_spec(args, names)
    if args.out and Path(args.out).suffix not in (".csv", ".parquet"):
        raise UsageError(f"--out: {shorten(args.out)}; expected a .csv or .parquet file name")
    check_out_file(args.out, "--out")
    store = None if args.no_store else args.store
    if store is not None:
        check_out_dir(store, "--store")
    # The runner (and the store behind it) only once every argument is good.
    from ..runner import TasksFailed, run_tasks

    tasks = sweep_tasks(base, params, seeds)
    stored = ""
    if store is not None:
        from ..runner import _plan
        from ..store import Store

        have = set(Store(store).run_keys())
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
            labels = " ".join(f"{k}={shorten(v)}" for k, v in tasks[i].labels.items())
            print(f"fairlab: run failed ({labels}): {why}", file=sys.stderr)
        results = e.results
    ok = [i for i, r in enumerate(results) if r is not None]
    runs, summary = sweep_table([tasks[i] for i in ok], [results[i] for i in ok], names)
    if args.format == "csv":
        summary.to_csv(sys.stdout, index=False, float_format="%.6g")
    else:
        _print_table(summary, names, seeds, plot, base, args)
    if args.out:
        if args.out.endswith(".parquet"):
            summary.to_parquet(args.out, index=False)
        else:
            summary.to_csv(args.out, index=False)
        print(f"summary table written to {args.out}", file=sys.stderr)
    if plot:
        from ..plots import plot_sweep

        plot_sweep(summary, plot[0], plot[1], names, plot[2], title=base.get("name"))
        print(f"plot written to {plot[2]}", file=sys.stderr)
    return 1 if failed else 0


def add_parser(sub: argparse._SubParsersAction) -> None:
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
    add_pool_options(sw)
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
