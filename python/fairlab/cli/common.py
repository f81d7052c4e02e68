"""What every command shares: the one-line usage error, argument types that
check values (and their bounds) before anything runs, the scenario-file
reader, output-path checks, and the shortening of echoed values.

Imports stay light here: `fairlab --help` and usage errors must answer
without loading pandas, pyarrow, matplotlib or dask.
"""

from __future__ import annotations

import argparse
import math
import re
import stat
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any, NoReturn

from ..plain import ECHO_CHARS, INT_MAX, check_plain, int_range_text, shorten

#: Largest scenario file read (a scenario is a few kilobytes; a 100,000-host
#: topology is about a megabyte).
MAX_SCENARIO_BYTES = 16 * 2**20
#: Runs a sweep or incast command starts without being told it may (--max-runs).
MAX_RUNS = 10_000
#: Bytes of scenario a sweep may hold in memory at once (every run's
#: scenario is built and validated before the first one runs).
MAX_SWEEP_BYTES = 2**30
#: Servers of one incast run. Checked before the host list is built; the
#: simulator's own limits refuse far fewer (about 5,000 at the defaults),
#: but only after the scenario is built, which takes seconds at 100,000.
MAX_SERVERS = 10_000


class UsageError(Exception):
    """A bad command-line value: reported as one line, exit code 2."""


class Parser(argparse.ArgumentParser):
    """argparse, but a bad argument is one line on stderr, not usage and error."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"{self.prog}: error: {shorten_message(message)} (see {self.prog} --help)\n")


#: A word to shorten: a run of characters without spaces or separators (and
#: not already shortened, which leaves "…" in the middle).
_LONG_TOKEN = re.compile(rf"[^\s,;()…]{{{ECHO_CHARS + 1},}}")
#: Longest file path echoed whole (a path is worth reading to its end).
PATH_CHARS = 250
#: Longest error line, whatever it quotes (a list of 100,000 host names).
MAX_LINE_CHARS = 1000


def _shorten_token(m: re.Match) -> str:
    word = m.group(0)
    is_path = word.startswith(("/", "./", "../", "~/")) and '"' not in word
    return shorten(word, PATH_CHARS if is_path else ECHO_CHARS)


def shorten_message(msg: str) -> str:
    """An error line with every over-long word shortened and the line bounded:
    messages (ours and the simulator's) quote values as given."""
    msg = " ".join(msg.split()) if "\n" in msg else msg
    msg = _LONG_TOKEN.sub(_shorten_token, msg)
    # Room for the prefix and the "(see fairlab --help)" a line gets around it.
    room = MAX_LINE_CHARS - 60
    if len(msg) > room:
        msg = f"{msg[: room - 40]}… ({len(msg)} characters in all)"
    return msg


def shorten_path(path: object) -> str:
    return shorten(path, PATH_CHARS)


def int_in(minimum: int, maximum: int) -> Callable[[str], int]:
    """An argparse type: an integer from ``minimum`` to ``maximum``."""

    def parse(text: str) -> int:
        return parse_int(text, minimum, maximum)

    return parse


def parse_int(text: str, minimum: int, maximum: int) -> int:
    """``text`` as an integer in [minimum, maximum]; ArgumentTypeError naming the range."""
    t = text.strip()
    if not re.fullmatch(r"[+-]?[0-9]{1,400}", t):
        raise argparse.ArgumentTypeError(f"{shorten(text)!r} is not an integer")
    value = int(t)
    if value < minimum:
        raise argparse.ArgumentTypeError(
            f"{shorten(value)} is not allowed; expected an integer >= {minimum}"
        )
    if value > maximum:
        what = int_range_text(value) if maximum == INT_MAX else "too large"
        raise argparse.ArgumentTypeError(f"{shorten(value)} is {what}; expected at most {maximum}")
    return value


def seed(text: str) -> int:
    """An argparse type: a seed, an integer in [0, 2^64-1]."""
    return parse_int(text, 0, INT_MAX)


def seconds(text: str) -> float:
    """An argparse type: a positive, finite number of seconds (--time-limit)."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{shorten(text)!r} is not a number of seconds") from None
    if not (math.isfinite(value) and value > 0):
        raise argparse.ArgumentTypeError(f"{shorten(text)} is not allowed; expected seconds > 0")
    return value


def duration(positive: bool) -> Callable[[str], str]:
    """An argparse type: a duration string such as 10s, kept as written."""

    def parse(text: str) -> str:
        from ..units import parse_time_ps

        try:
            ps = parse_time_ps(text)
        except ValueError:
            raise argparse.ArgumentTypeError(
                f"{shorten(text)!r} is not a duration; expected e.g. 10s, 200ms, 1us"
            ) from None
        if positive and ps <= 0:
            raise argparse.ArgumentTypeError(
                f"{shorten(text)!r} is not allowed; expected a positive duration"
            )
        return text

    return parse


_ADDRESS = re.compile(
    r"(?:(?:tcp|tls|ws|wss|ucx)://)?(?:[A-Za-z0-9_.-]{1,253}|\[[0-9A-Fa-f:.]{2,45}\])"
    r":([0-9]{1,5})"
)
#: An in-process scheduler (a LocalCluster with processes=False).
_INPROC = re.compile(r"inproc://[^\s]{1,300}")


def cluster_address(text: str) -> str:
    """An argparse type: a Dask scheduler address, [tcp://]HOST:PORT, checked
    before anything runs (Dask's own error leaves the process hanging)."""
    if _INPROC.fullmatch(text.strip()):
        return text.strip()
    m = _ADDRESS.fullmatch(text.strip())
    if m is None or not 0 < int(m.group(1)) < 65536:
        raise argparse.ArgumentTypeError(
            f"{shorten(text)!r} is not a scheduler address; expected [tcp://]HOST:PORT such as "
            "tcp://10.0.0.1:8786"
        )
    return text.strip()


def add_pool_options(p: argparse.ArgumentParser) -> None:
    """--jobs, --max-runs and --cluster: where a sweep's runs go and how many
    it may start (sweep and incast share them)."""
    p.add_argument(
        "--jobs", type=int_in(1, 4096), default=None, help="worker processes (default: all cores)"
    )
    p.add_argument(
        "--max-runs",
        type=int_in(1, INT_MAX),
        default=MAX_RUNS,
        help="refuse a sweep of more runs than this, before anything runs (default %(default)s)",
    )
    p.add_argument(
        "--cluster",
        type=cluster_address,
        metavar="ADDRESS",
        help="run on this Dask scheduler (tcp://HOST:8786) instead of local processes",
    )


def warn(msg: str) -> None:
    print(f"fairlab: warning: {msg}", file=sys.stderr)


# -- scenario files ------------------------------------------------------------


def scenario_file(path: str) -> Path:
    """The scenario file argument, checked before anything is read: a regular
    file (not a device or a pipe, which never end) of bounded size."""
    p = Path(path)
    shown = shorten_path(path)
    try:
        st = p.stat()
    except FileNotFoundError:
        raise UsageError(f"{shown}: no such file; expected a scenario TOML file") from None
    except OSError as e:
        raise UsageError(f"{shown}: {e.strerror}; expected a scenario TOML file") from None
    if stat.S_ISDIR(st.st_mode):
        raise UsageError(f"{shown}: is a directory; expected a scenario TOML file")
    if not stat.S_ISREG(st.st_mode):
        raise UsageError(
            f"{shown}: not a regular file (a device, pipe or socket); expected a scenario TOML file"
        )
    if st.st_size > MAX_SCENARIO_BYTES:
        raise UsageError(
            f"{shown}: {st.st_size} bytes; expected a scenario file of at most "
            f"{MAX_SCENARIO_BYTES} bytes"
        )
    return p


def read_scenario(path: str) -> dict[str, Any]:
    """Reads and parses the scenario file ``path`` (not yet validated): checked
    by :func:`scenario_file`, read with a bound, a UTF-8 byte-order mark
    accepted, and every value plain data the simulator reads."""
    from .. import ScenarioError, _parse_toml

    p = scenario_file(path)
    shown = shorten_path(path)
    with open(p, "rb") as f:
        data = f.read(MAX_SCENARIO_BYTES + 1)
    if len(data) > MAX_SCENARIO_BYTES:
        raise UsageError(f"{shown}: grew past {MAX_SCENARIO_BYTES} bytes while read")
    # Windows editors write a byte-order mark; TOML has no use for it.
    data = data.removeprefix(b"\xef\xbb\xbf")
    try:
        text = data.decode()
    except UnicodeDecodeError as e:
        line = data.count(b"\n", 0, e.start) + 1
        raise ScenarioError(
            f"{shown}: not UTF-8 text (byte 0x{data[e.start]:02x} on line {line}); "
            "a scenario file is UTF-8 TOML"
        ) from None
    scenario = _parse_toml(text, shown)
    check_plain(scenario, shown + ": ")
    return scenario


# -- output paths --------------------------------------------------------------


def check_out_dir(path: str | None, option: str) -> None:
    """Fails now, not after the run, if ``path`` cannot become an output directory."""
    if path is None:
        return
    p = Path(path)
    if p.exists() and not p.is_dir():
        raise UsageError(
            f"{option}: {shorten_path(path)} is a file; expected a directory (new or existing)"
        )
    check_writable(p, option)


def check_out_file(path: str | None, option: str) -> None:
    """Fails now, not after the run, if the file ``path`` cannot be written:
    opens it for appending (an existing file is left as it is), and removes
    it again if it did not exist. Permission bits alone do not tell (root,
    /proc, read-only mounts)."""
    if path is None:
        return
    p = Path(path)
    shown = shorten_path(path)
    if p.is_dir():
        raise UsageError(f"{option}: {shown} is a directory; expected a file name")
    if not p.parent.is_dir():
        raise UsageError(
            f"{option}: {shorten_path(p.parent)} is not a directory; the file's directory must "
            "exist"
        )
    existed = p.exists()
    if existed and not p.is_file():
        raise UsageError(f"{option}: {shown} is not a regular file; expected a file name")
    try:
        with open(p, "ab"):
            pass
    except OSError as e:
        raise UsageError(f"{option}: {shown} cannot be written ({e.strerror})") from None
    if not existed:
        p.unlink(missing_ok=True)


def check_writable(p: Path, option: str) -> None:
    """``p`` (a directory, perhaps to be made) can be written: its first existing
    ancestor is a directory in which a file can be made (made and removed
    here; permission bits alone do not tell for root, /proc or read-only
    mounts)."""
    import tempfile

    q = p
    while not q.exists() and q != q.parent:
        q = q.parent
    if not q.is_dir():
        raise UsageError(
            f"{option}: {shorten_path(q)} is a file, so {shorten_path(p)} cannot be a directory"
        )
    try:
        with tempfile.TemporaryFile(dir=q, prefix=".fairlab-check-"):
            pass
    except OSError as e:
        raise UsageError(f"{option}: {shorten_path(q)} is not writable ({e.strerror})") from None


# -- counts --------------------------------------------------------------------


def ints(text: str, what: str, maximum: int = INT_MAX) -> list[int]:
    """A comma-separated list of positive integers, each at most ``maximum``."""
    vals = []
    for item in (x for x in text.split(",") if x.strip()):
        try:
            vals.append(parse_int(item, 1, maximum))
        except argparse.ArgumentTypeError as e:
            raise UsageError(f"{what}: {e} (a list such as 1,2,4)") from None
    if not vals:
        raise UsageError(f"{what}: {shorten(text)!r}; expected positive integers such as 1,2,4")
    return vals


def seed_list(text: str | None, max_runs: int) -> list[int] | None:
    """--seeds: N (seeds 1 to N) or a list such as 1,5,9; None: the scenario's seed."""
    if text is None:
        return None
    usage = "a count such as 3 for seeds 1 to 3, or a list such as 1,5,9"
    try:
        if "," not in text:
            n = parse_int(text, 1, INT_MAX)
            check_runs(n, "--seeds", max_runs)
            return list(range(1, n + 1))
        seeds = [parse_int(x, 0, INT_MAX) for x in text.split(",") if x.strip()]
    except argparse.ArgumentTypeError as e:
        raise UsageError(f"--seeds: {e} ({usage})") from None
    if not seeds:
        raise UsageError(f"--seeds: {shorten(text)!r}; expected {usage}")
    return seeds


def check_runs(count: int, what: str, max_runs: int) -> None:
    """Refuses, before anything is built, more than ``max_runs`` runs."""
    if count > max_runs:
        raise UsageError(
            f"{what}: {shorten(count)} runs; expected at most {max_runs} (raise --max-runs to "
            "run more)"
        )


def check_sweep_bytes(runs: int, scenario_bytes: int, what: str) -> None:
    """Refuses a sweep whose scenarios, all built before the first run,
    would not fit in memory: ``runs`` copies of ``scenario_bytes``."""
    total = runs * scenario_bytes
    if total > MAX_SWEEP_BYTES:
        raise UsageError(
            f"{what}: {runs} runs of a {scenario_bytes}-byte scenario would hold about "
            f"{total / 2**30:.1f} GiB before the first run; expected at most "
            f"{MAX_SWEEP_BYTES // 2**30} GiB (fewer runs or a smaller scenario)"
        )
