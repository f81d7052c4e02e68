"""The Python fuzzer (tests/fuzz/fuzz_python.py): 200 damaged-store cases
through fairlab.load, the store's listing, verify and a resuming sweep, and
150 argument vectors through the command line (run, sweep, incast, results,
bench), with no failure: no traceback, hang, memory blow-up or error of more
than one bounded line."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import fairlab

FUZZER = Path(__file__).resolve().parents[1] / "fuzz" / "fuzz_python.py"


def test_200_damaged_store_cases_fail_nothing():
    env = {**os.environ, "PYTHONPATH": str(Path(fairlab.__file__).parents[1])}
    argv = [sys.executable, str(FUZZER), "--cases", "200", "--seed", "7", "--workers", "2"]
    argv += ["--surfaces", "load,list,verify,resume", "--timeout", "10"]
    out = subprocess.run(argv, capture_output=True, text=True, env=env, timeout=120)
    assert out.returncode == 0, out.stdout[-3000:] + out.stderr[-2000:]
    assert "200 cases in" in out.stdout and "0 failures" in out.stdout
    rows = [x.split() for x in out.stdout.splitlines() if x.split()[:1] in (["load"], ["resume"])]
    assert len(rows) == 2 and all(int(x) > 0 for r in rows for x in r[1:2])


def test_150_command_line_cases_fail_nothing():
    env = {**os.environ, "PYTHONPATH": str(Path(fairlab.__file__).parents[1])}
    argv = [sys.executable, str(FUZZER), "--cases", "150", "--seed", "3", "--workers", "2"]
    argv += ["--surfaces", "cli", "--timeout", "20"]
    out = subprocess.run(argv, capture_output=True, text=True, env=env, timeout=240)
    assert out.returncode == 0, out.stdout[-3000:] + out.stderr[-2000:]
    assert "150 cases in" in out.stdout and "0 failures" in out.stdout
