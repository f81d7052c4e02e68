"""Command lines for the Python fuzzer: a valid command of ``fairlab run``,
``sweep``, ``incast``, ``results``, ``bench`` (and ``load``, which is not a
command) with a few of its tokens mutated: huge, negative and 2^64 numbers,
NaN, TOML dates as ``--param`` values, deep brackets, long text, unknown
options, and paths that are devices, FIFOs or missing.

Each case calls ``fairlab.cli.main(argv)`` in this process with stdout and
stderr captured. What it must do: return an exit code (SystemExit counts as
one) without any other exception; on a non-zero exit, stderr is one line
(besides the lines a sweep prints as it goes: its plan and failed runs), of
at most ``MAX_LINE`` characters.
"""

from __future__ import annotations

import contextlib
import io
import os
import random
import shutil
from collections.abc import Callable
from pathlib import Path

from fairlab.cli import main

COMMANDS = ("run", "sweep", "incast", "results", "bench", "load")
#: Longest error line accepted (a value echoed in an error must be shortened).
MAX_LINE = 1000

SCENARIO = """\
name = "fuzz-incast"
seed = 3

[topology]
kind = "star"
hosts = ["client", "s1", "s2"]
rate = "1Gbps"
delay = "25us"

[queue]
limit = "32KiB"

[[workload]]
kind = "incast"
client = "client"
servers = "all"
sru = "8KiB"
rounds = 1
"""

DEEP = "[" * 5000 + "]" * 5000
NUMBERS = [
    "99999999999999999999",
    "18446744073709551616",
    "18446744073709551615",
    "-1",
    "0",
    "1e308",
    "nan",
    "inf",
    "-inf",
    "1.5",
    "0x10",
    "1_000",
    "\u0661\u0662",
    "1000000",
]
TEXTS = [
    "",
    " ",
    ",",
    "1,,2",
    "1979-05-27",
    "1979-05-27T07:32:00Z",
    "07:32:00",
    DEEP,
    "a" * 100_000,
    "{a = 1}",
    '"',
    "\\",
    "\u00e9\u00e8",
    "-5ms",
    "1e-300s",
    "999999999999Tbps",
    "1Gbps",
    "64KiB",
]
PARAMS = [
    "duration=1979-05-27",
    "duration=07:32:00",
    f"queue.limit={DEEP}",
    "queue.limit=" + ",".join(f"{k}KiB" for k in range(1, 400)),
    "workload.0.rounds=1,2",
    "workload[0].sru=8KiB",
    "topology.rate=1Gbps,10Gbps",
    "seed=1e400",
    "seed=18446744073709551616",
    "a.b.c.d.e.f=1",
    "=1",
    "x",
    "workload.99.servers=1",
    "workload.0.servers=99999999999999999999",
    "topology.hosts=" + DEEP,
]
OPTIONS = ["--nope", "-x", "--", "--seed", "--jobs", "--store", "--help", "--version", "-"]


def setup(work: Path) -> dict[str, str]:
    """Files a command line can name: a scenario, a FIFO, a directory."""
    work.mkdir(parents=True, exist_ok=True)
    (work / "sc.toml").write_text(SCENARIO)
    fifo = work / "fifo"
    if not fifo.exists():
        os.mkfifo(fifo)
    (work / "dir").mkdir(exist_ok=True)
    return {"scenario": str(work / "sc.toml"), "fifo": str(fifo), "dir": str(work / "dir")}


def _paths(files: dict[str, str]) -> list[str]:
    return [
        "/dev/zero",
        "/dev/urandom",
        "/dev/null",
        files["fifo"],
        "/proc/x",
        "/proc/x.csv",
        "/proc/self/mem",
        "/",
        "/nonexistent/x",
        files["dir"],
        "/etc/hostname",
    ]


def _valid(rng: random.Random, cmd: str, files: dict[str, str], store: str) -> list[str]:
    sc = files["scenario"]
    if cmd == "run":
        return ["run", sc, "--seed", str(rng.randrange(5))]
    if cmd == "sweep":
        argv = ["sweep", sc, "--param", rng.choice(PARAMS[4:7]), "--jobs", "1"]
        return argv + rng.choice([["--no-store"], ["--store", "st"], ["--seeds", "2"]])
    if cmd == "incast":
        return ["incast", "--servers", "1,2", "--rounds", "1", "--sru", "8KiB", "--jobs", "1"]
    if cmd == "results":
        extra = rng.choice([[], ["--verify"], ["--format", "csv"], ["--where", "servers=2"]])
        return ["results", store, *extra, *rng.choice([[], ["--table", "flows"]])]
    if cmd == "bench":
        return ["bench", "--quick", "--format", "csv"]
    return ["load", store]


def argv_for(rng: random.Random, files: dict[str, str], store: str) -> list[str]:
    """A command line: a valid one with 0 to 3 tokens mutated."""
    cmd = rng.choice(COMMANDS)
    argv = _valid(rng, cmd, files, store)
    for _ in range(rng.choice([0, 1, 1, 2, 3])):
        i = rng.randrange(1, len(argv) + 1)
        kind = rng.randrange(7)
        if kind == 0 and i < len(argv):
            argv[i] = rng.choice(NUMBERS)
        elif kind == 1 and i < len(argv):
            argv[i] = rng.choice(TEXTS)
        elif kind == 2 and i < len(argv):
            argv[i] = rng.choice(_paths(files))
        elif kind == 3:
            argv[i:i] = [rng.choice(OPTIONS)]
        elif kind == 4:
            argv[i:i] = ["--param", rng.choice(PARAMS)]
        elif kind == 5 and len(argv) > 1 and i < len(argv):
            del argv[i]
        else:
            opt = rng.choice(["--seeds", "--servers", "--rounds", "--jobs", "--out", "--cluster"])
            argv[i:i] = [opt, rng.choice([*NUMBERS, *_paths(files), "x", "tcp://127.0.0.1:1"])]
    if cmd == "bench" and "--help" not in argv and rng.random() < 0.9:
        # A bench that runs takes seconds: most cases exercise its arguments.
        argv.append("--nope")
    return argv


def run_case(
    rng: random.Random, work: Path, base_store: Path, say: Callable[[str], None]
) -> tuple[str, str, str]:
    """Runs one command line in ``work``; returns (outcome, detail, description).
    ``say`` is given the description before the command runs."""
    files = setup(work)
    store = work / "store"
    if store.exists():
        shutil.rmtree(store)
    shutil.copytree(base_store, store, copy_function=os.link)
    argv = argv_for(rng, files, str(store))
    desc = "argv: " + repr([a if len(a) < 80 else a[:40] + f"...({len(a)} chars)" for a in argv])
    say(desc)
    out, err = io.StringIO(), io.StringIO()
    cwd = os.getcwd()
    os.chdir(work)
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            try:
                code = main(argv)
            except SystemExit as e:
                code = e.code if isinstance(e.code, int) else (0 if e.code is None else 2)
    finally:
        os.chdir(cwd)
    return _judge(code, err.getvalue(), desc)


def _judge(code: int, stderr: str, desc: str) -> tuple[str, str, str]:
    lines = [x for x in stderr.splitlines() if x.strip()]
    if code == 0:
        return "ok", "", desc
    noise = ("fairlab: run failed (",)
    said = [x for x in lines if not x.startswith(noise) and " runs: " not in x[:30]]
    if len(said) > 1 or (not said and not lines):
        raise CliFailure(f"exit {code} with {len(lines)} lines on stderr: {stderr[:300]!r}")
    if any(len(x) > MAX_LINE for x in lines):
        longest = max(len(x) for x in lines)
        raise CliFailure(f"exit {code} with an error line of {longest} characters")
    return "refused", (said or lines)[-1][:200], desc


class CliFailure(Exception):
    """A command line broke a rule (its output, not an exception)."""
