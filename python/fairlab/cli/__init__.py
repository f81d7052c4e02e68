"""The `fairlab` command line, one module per command.

fairlab run FILE.toml [--seed N] [--out DIR] [--backend sim|emu|ns2]
fairlab emulate FILE.toml [--seed N] [--out DIR] | --cleanup
fairlab compare FILE.toml [--seeds N] [--against emu|ns2]
fairlab incast [--servers 1,2,4,...] [--min-rto 200ms,5ms,200us] ...
fairlab sweep FILE.toml --param PATH=V1,V2 [--param ...] [--seeds N] [--store DIR] ...
fairlab results DIR [--where COL=VALUE ...] [--export FILE.csv|FILE.parquet]
fairlab trace FILE.toml [--flow N] [--plot PNG]
fairlab reproduce --list | STUDY [--experiment NAME ...] [--quick] [--out DIR]
                  [--backend sim|both|ns2|all]
fairlab examples [--copy DIR]
fairlab bench [--quick]
fairlab radon recv [--port N] [--bind ADDR] [--sessions N] [--deadline S]
fairlab radon send --config FILE.json [--out DIR] | calibrate

Every bad value is one line naming the option, the (shortened) value and
what is allowed, with a nonzero exit, before anything runs. pandas, pyarrow,
matplotlib and dask are imported by the commands that use them: `fairlab
--help` and usage errors answer without loading them.
"""

from __future__ import annotations

import argparse
import sys

from . import bench, compare, examples, incast, radon, reproduce, results, run, sweep, trace
from .common import Parser, UsageError, shorten_message
from .common import ints as _ints
from .incast import _rto_settings, incast_table

# The golden check (tests/golden/golden.py) builds the README's incast table
# from _ints and _rto_settings, as `fairlab incast` does.
__all__ = ["UsageError", "_ints", "_rto_settings", "build_parser", "incast_table", "main"]


def _version() -> str:
    from .. import __version__

    return __version__


def build_parser() -> argparse.ArgumentParser:
    p = Parser(
        prog="fairlab",
        description="Simulate, measure and reproduce TCP unfairness in data-center networks.",
    )
    p.add_argument("--version", action="version", version=f"fairlab {_version()}")
    sub = p.add_subparsers(dest="command", required=True)
    run.add_parsers(sub)
    compare.add_parser(sub)
    incast.add_parser(sub)
    sweep.add_parser(sub)
    results.add_parser(sub)
    trace.add_parser(sub)
    reproduce.add_parser(sub)
    examples.add_parser(sub)
    bench.add_parser(sub)
    radon.add_parser(sub)
    return p


#: Errors reported as one line, by the module that defines them: exit code 1
#: for runs that failed, 3 for a backend that cannot run here.
_ONE_LINE = {
    "fairlab.runner": (("TasksFailed", 1),),
    "fairlab.emu.safety": (("EmulationRefused", 3),),
    "fairlab.ns2.errors": (("Ns2Unavailable", 3), ("Ns2Failed", 3)),
}


def _exit_code(e: Exception) -> int | None:
    """The exit code of an error reported as one line, or None for a bug.
    A class whose module was never imported cannot have raised: the check
    imports nothing (an error path answers as fast as --help)."""
    from .. import ScenarioError

    if isinstance(e, ScenarioError | UsageError | OSError):
        return 2  # the runner raises UsageError too
    for module, classes in _ONE_LINE.items():
        loaded = sys.modules.get(module)
        for name, code in classes if loaded is not None else ():
            if isinstance(e, getattr(loaded, name)):
                return code
    return None


def _message(e: Exception) -> str:
    rundir = sys.modules.get("fairlab.rundir")
    if rundir is not None and isinstance(e, rundir.StoreError):
        # Already one line: the file (escaped), what is wrong, what was expected.
        return str(e)
    if isinstance(e, FileNotFoundError) and e.filename:
        return f"{e.filename}: no such file"
    if isinstance(e, OSError) and e.filename:
        # Unreadable scenario, unwritable output: one line naming the file.
        return f"{e.filename}: {e.strerror}"
    return str(e)


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        return args.func(args)
    except KeyboardInterrupt:
        print("fairlab: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        return 0
    except Exception as e:
        code = _exit_code(e)
        if code is None:
            raise
        print(f"fairlab: error: {shorten_message(_message(e))}", file=sys.stderr)
        return code


if __name__ == "__main__":
    raise SystemExit(main())
