"""Unit strings as the scenario format writes them ("25us", "64KiB", "1Gbps",
"32pkt").

The parsers are the simulator's own (``units.rs``, exported from ``_core``),
so a string reads here exactly as scenario validation reads it; this module
adds the Python-side bound on length and formats Python numbers into
strings that parse back to exactly the same value. The CLI, the studies and
the plots parse unit strings only through it.
"""

from __future__ import annotations

from fractions import Fraction

from . import _core

_TIME_UNITS = [("s", 10**12), ("ms", 10**9), ("us", 10**6), ("ns", 10**3), ("ps", 1)]
#: Longest unit string parsed: a real value has a few digits, and an error
#: line should not echo a long string.
MAX_UNIT_CHARS = 100


def _bounded(text: str) -> str:
    if not isinstance(text, str):
        raise ValueError(f"{type(text).__name__} {text!r:.60} is not a string with a unit")
    if len(text) > MAX_UNIT_CHARS:
        raise ValueError(f"a {len(text)}-character string is not a number with a unit")
    return text


def parse_time_ps(text: str) -> int:
    """Picoseconds in a duration string such as "200ms" or "25us"."""
    return _core.parse_time_ps(_bounded(text))


def parse_size(text: str) -> int:
    """Bytes in a size string such as "64KiB" or "1500B"."""
    return _core.parse_size_bytes(_bounded(text))


def parse_rate_bps(text: str) -> int:
    """Bits per second in a rate string such as "1Gbps" or "100Mbit/s"."""
    return _core.parse_rate_bps(_bounded(text))


def parse_packets(text: str) -> int:
    """Packets in a count such as "32pkt" (also "32 packets")."""
    count, unit = parse_buffer(text)
    if unit != "packets":
        raise ValueError(f"{text!r} is not a packet count such as '32pkt'")
    return count


def parse_buffer(text: str) -> tuple[int, str]:
    """A buffer limit, as [queue] limit takes it: (count, "packets") for
    "32pkt", (bytes, "bytes") for a size such as "64KiB"."""
    return _core.parse_buffer(_bounded(text))


def format_time(seconds: float | Fraction | int) -> str:
    """The exact unit string of a duration given in seconds (rounded to 1 ps)."""
    ps = round(Fraction(seconds) * 10**12)
    return format_time_ps(ps)


def format_time_ps(ps: int) -> str:
    if ps < 0:
        raise ValueError("durations are non-negative")
    if ps == 0:
        return "0s"
    for unit, scale in _TIME_UNITS:
        if ps % scale == 0:
            return f"{ps // scale}{unit}"
    raise AssertionError("unreachable: 1 ps divides every integer")


def format_size(nbytes: int) -> str:
    """The exact unit string of a size in bytes ("64KiB", "1500B")."""
    if nbytes < 0:
        raise ValueError("sizes are non-negative")
    if nbytes:
        for unit, scale in (("GiB", 2**30), ("MiB", 2**20), ("KiB", 2**10)):
            if nbytes % scale == 0:
                return f"{nbytes // scale}{unit}"
    return f"{nbytes}B"


def format_rate(bps: int) -> str:
    """The exact unit string of a rate in bit/s ("1Gbps")."""
    if bps <= 0:
        raise ValueError("rates are positive")
    for unit, scale in (("Tbps", 10**12), ("Gbps", 10**9), ("Mbps", 10**6), ("kbps", 10**3)):
        if bps % scale == 0:
            return f"{bps // scale}{unit}"
    return f"{bps}bps"
