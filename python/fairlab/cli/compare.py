"""`fairlab compare FILE.toml`: the simulator beside the kernel or real ns-2
on the same scenario, metric by metric."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from .common import (
    MAX_RUNS,
    UsageError,
    check_out_dir,
    read_scenario,
    seconds,
    seed_list,
    shorten,
    warn,
)


def cmd_compare(args: argparse.Namespace) -> int:
    if Path(args.file).is_dir():
        return _compare_run_dir(args)
    from .. import ScenarioError, backends, simulate
    from ..emu.compare import compare, format_table

    sc = read_scenario(args.file)
    check_out_dir(args.out, "--out")
    check_out_dir(args.pcap, "--pcap")
    seeds = seed_list(args.seeds, MAX_RUNS) or [sc.get("seed", 1)]
    ns2 = args.against == "ns2"
    other = "ns2" if ns2 else "kernel"
    backend = backends.get(args.against)

    def emu(scenario: dict, seed: int):
        return backend.run(scenario, seed, time_limit_s=args.time_limit, warn=warn)

    if args.pcap:
        simulate, emu = (
            keep_pcap(args.pcap, sc, "sim", simulate),
            keep_pcap(args.pcap, sc, other, emu),
        )

    if ns2:
        # Refusals and a missing ns before the first simulated run.
        why = backend.refusal([sc])
        if why is not None:
            raise ScenarioError(why)
    rows, sim_runs, emu_runs = compare(sc, seeds, simulate, emu, other)
    if args.format == "csv":
        import pandas as pd

        pd.DataFrame(rows).to_csv(sys.stdout, index=False, float_format="%.6g")
    else:
        print(
            f"{shorten(args.file)}: simulator and {'ns-2' if ns2 else 'kernel'}, {len(seeds)} "
            f"seed(s) each (seeds {','.join(map(str, seeds))}); {other} sd: run-to-run spread"
        )
        print(format_table(rows, other))
    if args.out:
        import pandas as pd

        out = Path(args.out)
        out.mkdir(parents=True, exist_ok=True)
        pd.DataFrame(rows).to_csv(out / "compare.csv", index=False)
        runs = [r | {"backend": "sim"} for r in sim_runs] + [
            r | {"backend": backend.name} for r in emu_runs
        ]
        pd.DataFrame(runs).to_csv(out / "runs.csv", index=False)
    return 0


def _compare_run_dir(args: argparse.Namespace) -> int:
    """A run already made on another backend (a directory of `fairlab run
    --out`, `fairlab emulate --out`, or a Radon run between real machines,
    `fairlab radon send --out`) beside the simulator on its own scenario and
    seed."""
    from .. import load, simulate
    from ..emu.compare import format_table, metrics, table
    from ..result import Result

    run = load(args.file)
    if not isinstance(run, Result):
        raise UsageError(f"{args.file}: a results store, not one run; expected a run directory")
    if not run.scenario:
        raise UsageError(f"{args.file}: the run keeps no scenario; expected a run directory")
    seed = int(run.summary.get("seed", run.scenario.get("seed", 1)))
    other = str(run.summary.get("backend", "other"))
    if other == "sim":
        raise UsageError(f"{args.file}: a simulator run; expected a run of another backend")
    sim_runs = [metrics(simulate(run.scenario, seed=seed)) | {"seed": seed}]
    other_runs = [metrics(run) | {"seed": seed}]
    rows = table(sim_runs, other_runs, other)
    if args.format == "csv":
        import pandas as pd

        pd.DataFrame(rows).to_csv(sys.stdout, index=False, float_format="%.6g")
    else:
        print(f"{shorten(args.file)}: the simulator (seed {seed}) beside the stored {other} run")
        print(format_table(rows, other))
    return 0


def keep_pcap(directory: str, sc: dict, backend: str, run: Callable) -> Callable:
    """``run`` that also writes each run's captures into
    ``DIRECTORY/<backend>/seed-<seed>/`` (file names as in a run directory)."""
    from ..rundir import pcap_file_names

    if not (sc.get("metrics") or {}).get("pcap"):
        raise UsageError(
            "--pcap: the scenario captures nothing; expected [metrics] pcap = "
            '["node:peer", "host"] in it'
        )

    def wrapped(scenario: dict, seed: int) -> Any:
        res = run(scenario, seed=seed)
        out = Path(directory) / backend / f"seed-{seed}"
        out.mkdir(parents=True, exist_ok=True)
        for point, name in pcap_file_names(res.pcap).items():
            (out / name).write_bytes(res.pcap[point])
        return res

    return wrapped


def add_parser(sub: argparse._SubParsersAction) -> None:
    cp = sub.add_parser(
        "compare",
        help="the simulator and the kernel (root) or real ns-2 on the same scenario, metric by "
        "metric",
    )
    cp.add_argument(
        "file",
        help="scenario TOML file; or a run directory of another backend (emulate --out, radon "
        "send --out), set beside the simulator on its scenario and seed",
    )
    cp.add_argument("--seeds", default="3", help="seeds: N (1..N) or a list (default 3)")
    cp.add_argument(
        "--against",
        choices=["emu", "ns2"],
        default="emu",
        help="emu: the kernel in namespaces (root; default); ns2: real ns-2 (`ns` on the PATH)",
    )
    cp.add_argument("--time-limit", type=seconds, default=None, help="emu: seconds per run at most")
    cp.add_argument(
        "--format",
        choices=["table", "csv"],
        default="table",
        help="table: one row per metric, both backends (default); csv: the same as CSV",
    )
    cp.add_argument("--out", metavar="DIR", help="write compare.csv and runs.csv here")
    cp.add_argument(
        "--pcap",
        metavar="DIR",
        help="keep both backends' packet captures ([metrics] pcap) in DIR/<backend>/seed-<N>/",
    )
    cp.set_defaults(func=cmd_compare)
