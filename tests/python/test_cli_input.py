"""Bad command-line input, tried as a user would: every case is one line on
stderr naming the option or file, the value (shortened) and what is allowed,
with a nonzero exit, before anything runs; never a traceback, a hang or
memory growing without bound."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import fairlab
import pytest
from fairlab.cli import main

SMALL = Path(__file__).with_name("data") / "small_incast.toml"
#: Where the fairlab under test lives (the installed package in CI, which
#: holds the compiled _core; the source tree's python/ does not).
PYTHONPATH = str(Path(fairlab.__file__).resolve().parents[1])
#: Longest error line any case may print.
MAX_LINE = 400


def _error(capsys, args: list[str]) -> tuple[int, str]:
    try:
        code = main(args)
    except SystemExit as e:  # argparse's own refusals
        code = e.code
    out, err = capsys.readouterr()
    assert out == ""
    return code, err


def _nums(n: int) -> str:
    return ",".join(str(i) for i in range(1, n + 1))


S = str(SMALL)
CASES = [
    # (arguments, words the one line must hold)
    (["sweep", S, "--param", "duration=1979-05-27"], ["--param duration", "dates and times"]),
    (["sweep", S, "--param", "duration=07:32:00"], ["07:32:00", "not allowed"]),
    (["sweep", S, "--param", "x=" + "[" * 5000 + "]" * 5000], ["--param x=", "nested 80"]),
    (["sweep", S, "--seeds", "18446744073709551616"], ["--seeds", "above 2^64-1"]),
    (["sweep", S, "--seeds", "1,18446744073709551616"], ["--seeds", "above 2^64-1"]),
    (["sweep", S, "--seeds", "1000000"], ["--seeds", "1000000 runs", "--max-runs"]),
    (
        [
            "sweep",
            S,
            "--param",
            f"workload.0.rounds={_nums(1000)}",
            "--param",
            f"seed={_nums(1000)}",
        ],
        ["1000000 runs", "at most 10000", "--max-runs"],
    ),
    (["sweep", S, "--param", "seed=18446744073709551616"], ["--param seed=", "above 2^64-1"]),
    (["sweep", S, "--cluster", "x"], ["--cluster", "HOST:PORT"]),
    (["sweep", S, "--cluster", "tcp://h:99999"], ["--cluster", "HOST:PORT"]),
    (
        ["sweep", S, "--param", "workload[0].rounds=1", "--param", "workload.0.rounds=2"],
        ["--param workload.0.rounds", "given twice"],
    ),
    (["sweep", S, "--param", "workload.0.client=" + "h" * 100_000], ["100000 characters"]),
    (["sweep", S, "--out", "/proc/fairlab-x.csv"], ["--out", "/proc/fairlab-x.csv", "written"]),
    (["incast", "--servers", "99999999999999999999"], ["--servers", "at most 10000"]),
    (["incast", "--servers", "1", "--seeds", "18446744073709551616"], ["--seeds", "2^64-1"]),
    (["incast", "--servers", "1", "--rounds", "99999999999999999999999"], ["--rounds"]),
    (["incast", "--servers", _nums(1000), "--seeds", _nums(1000)], ["runs", "--max-runs"]),
    (["incast", "--servers", "1", "--cluster", "x"], ["--cluster", "HOST:PORT"]),
    (["incast", "--servers", "1", "--rate", "9" * 100_000], ["topology.rate", "characters"]),
    (["incast", "--servers", "1", "--buffer", "0pkt"], ["--buffer", "0pkt"]),
    (["incast", "--servers", "1", "--mss", "foo", "--rwnd", "20pkt"], ["--mss", "'foo'"]),
    (["run", S, "--seed", "18446744073709551616"], ["--seed", "above 2^64-1"]),
    (["run", S, "--out", "/proc/fairlab-x"], ["--out", "/proc", "not writable"]),
    (["incast", "--servers", "1", "--store", "/proc/fairlab-x"], ["--store", "not writable"]),
    (["run", S, "--time-limit", "nan"], ["--time-limit", "seconds > 0"]),
    (["bench", "--repeat", "99999999999999999999"], ["--repeat", "at most 1000"]),
]


@pytest.mark.parametrize(("args", "words"), CASES, ids=lambda a: str(a)[:40])
def test_one_line_naming_the_option(capsys, args, words):
    if args[0] == "sweep":
        args = [*args, "--no-store"]  # a sweep that wrongly ran leaves nothing behind
    code, err = _error(capsys, args)
    assert code == 2, err
    assert err.count("\n") == 1 and len(err) < MAX_LINE, err[:2000]
    assert "Traceback" not in err
    for w in words:
        assert w in err, err


def test_a_scenario_file_with_a_long_name_is_shortened(capsys, tmp_path):
    # A 1 MB host name: the simulator's message lists the hosts; the line is bounded.
    text = SMALL.read_text()
    sc = tmp_path / "big.toml"
    sc.write_text(text.replace('"client"', '"' + "h" * 1_000_000 + '"', 1))
    code, err = _error(capsys, ["run", str(sc)])
    assert code == 2 and err.count("\n") == 1 and len(err) < 1100, err[:300]
    assert "(1000000 characters)" in err


def test_a_byte_order_mark_is_accepted(capsys, tmp_path):
    sc = tmp_path / "bom.toml"
    sc.write_bytes(b"\xef\xbb\xbf" + SMALL.read_bytes())
    assert main(["run", str(sc)]) == 0
    assert "goodput" in capsys.readouterr().out


@pytest.mark.parametrize(
    ("value", "words"),
    [
        ("duration = 1979-05-27", ["duration", "dates and times"]),
        # TOML integers are 64-bit signed: the key, the range and the line.
        ("seed = 18446744073709551616", ["seed", "signed 64-bit range", "line 1"]),
    ],
)
def test_scenario_file_values_by_field_path(capsys, tmp_path, value, words):
    sc = tmp_path / "s.toml"
    key = value.split(" ")[0]
    lines = [x for x in SMALL.read_text().splitlines() if not x.startswith(f"{key} ")]
    sc.write_text(value + "\n" + "\n".join(lines) + "\n")
    code, err = _error(capsys, ["run", str(sc)])
    assert code == 2 and err.count("\n") == 1, err
    for w in words:
        assert w in err, err


def test_the_output_is_checked_before_the_runs(capsys, tmp_path):
    store = tmp_path / "store"
    code, err = _error(
        capsys, ["sweep", S, "--store", str(store), "--out", str(tmp_path / "no" / "x.csv")]
    )
    assert code == 2 and "--out" in err
    assert not (store / "runs").exists()


def _fairlab(*args: str, timeout: float = 30) -> subprocess.CompletedProcess:
    env = dict(os.environ, PYTHONPATH=PYTHONPATH)
    return subprocess.run(
        [sys.executable, "-m", "fairlab", *args],
        capture_output=True,
        text=True,
        timeout=timeout,
        env=env,
    )


@pytest.mark.parametrize("path", ["/dev/zero", "/dev/urandom", "FIFO"])
def test_a_file_that_never_ends_is_refused_without_reading(tmp_path, path):
    if path == "FIFO":
        path = str(tmp_path / "fifo")
        os.mkfifo(path)
    elif not Path(path).exists():
        pytest.skip(f"no {path}")
    p = _fairlab("run", path)
    assert p.returncode == 2 and p.stderr.count("\n") == 1, p.stderr[-500:]
    assert "not a regular file" in p.stderr and path in p.stderr


def test_a_bad_cluster_address_exits(tmp_path):
    # Dask's own parsing error left its loop thread running: the process never ended.
    p = _fairlab("sweep", S, "--cluster", "x", "--no-store")
    assert p.returncode == 2 and p.stderr.count("\n") == 1, p.stderr[-500:]


def test_a_sweep_that_would_not_fit_in_memory_is_refused(capsys, tmp_path):
    # Every run's scenario is built before the first run: 1000 copies of a
    # 200,000-host topology would be gigabytes.
    hosts = ",".join(f'"x{i}"' for i in range(200_000))
    sc = tmp_path / "many.toml"
    sc.write_text(SMALL.read_text().replace('hosts = ["client",', f'hosts = ["client",{hosts},'))
    code, err = _error(capsys, ["sweep", str(sc), "--seeds", "1000", "--no-store"])
    assert code == 2 and err.count("\n") == 1, err[:300]
    assert "1000 runs of a" in err and "GiB" in err
