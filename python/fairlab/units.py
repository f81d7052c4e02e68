"""Unit strings as the scenario format writes them ("25us", "64KiB", "1Gbps",
"32pkt").

The Rust side parses them when it validates a scenario; this module formats
Python numbers into strings that parse back to exactly the same value, and is
the one Python parser of the strings the CLI, the studies and the plots need
to reason about (whether a min RTO is below one jiffy, a quarter of a
buffer, a rate on an axis). Nothing else in the package parses unit strings.
"""

from __future__ import annotations

import re
from fractions import Fraction

_TIME_UNITS = [("s", 10**12), ("ms", 10**9), ("us", 10**6), ("ns", 10**3), ("ps", 1)]
_TIME_PARSE = {
    "ps": 1,
    "ns": 10**3,
    "us": 10**6,
    "µs": 10**6,
    "μs": 10**6,
    "ms": 10**9,
    "s": 10**12,
    "sec": 10**12,
    "min": 60 * 10**12,
}
_SIZE_PARSE = {
    "": 1,
    "B": 1,
    "byte": 1,
    "bytes": 1,
    "KB": 10**3,
    "kB": 10**3,
    "MB": 10**6,
    "GB": 10**9,
    "KiB": 2**10,
    "K": 2**10,
    "k": 2**10,
    "MiB": 2**20,
    "M": 2**20,
    "GiB": 2**30,
    "G": 2**30,
}
#: Rates as Rust's BitsPerSec::parse reads them: a decimal prefix, then
#: bps, bit/s or b/s.
_RATE_PARSE = {
    prefix + suffix: scale
    for prefix, scale in (("", 1), ("k", 10**3), ("K", 10**3), ("M", 10**6), ("G", 10**9),
                          ("T", 10**12))
    for suffix in ("bps", "bit/s", "b/s")
}  # fmt: skip
_PACKET_UNITS = ("pkt", "pkts", "packets", "packet", "p")
#: Longest unit string parsed: the number of a real value has a few digits,
#: and Fraction's cost grows with the square of a number's length.
MAX_UNIT_CHARS = 100
_NUM = re.compile(r"^\s*([0-9_]*\.?[0-9_]+)\s*([A-Za-zµμ/]*)\s*$")


def _split(text: str) -> tuple[Fraction, str]:
    if len(text) > MAX_UNIT_CHARS:
        raise ValueError(f"a {len(text)}-character string is not a number with a unit")
    m = _NUM.match(text)
    if not m:
        raise ValueError(f"{text!r} is not a number with a unit")
    return Fraction(m.group(1).replace("_", "")), m.group(2)


def parse_time_ps(text: str) -> int:
    """Picoseconds in a duration string such as "200ms" or "25us"."""
    num, unit = _split(text)
    if unit == "" and num == 0:
        return 0
    if unit not in _TIME_PARSE:
        raise ValueError(f"{text!r} is not a duration such as '25us' or '200ms'")
    ps = num * _TIME_PARSE[unit]
    if ps.denominator != 1:
        raise ValueError(f"{text!r} is not a whole number of picoseconds")
    return int(ps)


def parse_size(text: str) -> int:
    """Bytes in a size string such as "64KiB" or "1500B"."""
    num, unit = _split(text)
    if unit not in _SIZE_PARSE:
        raise ValueError(f"{text!r} is not a size such as '64KiB' or '1500B'")
    b = num * _SIZE_PARSE[unit]
    if b.denominator != 1:
        raise ValueError(f"{text!r} is not a whole number of bytes")
    return int(b)


def parse_rate_bps(text: str) -> int:
    """Bits per second in a rate string such as "1Gbps" or "100Mbit/s"."""
    num, unit = _split(text)
    if unit not in _RATE_PARSE:
        raise ValueError(f"{text!r} is not a rate such as '1Gbps' or '100Mbps'")
    bps = num * _RATE_PARSE[unit]
    if bps.denominator != 1:
        raise ValueError(f"{text!r} is not a whole number of bit/s")
    return int(bps)


def parse_packets(text: str) -> int:
    """Packets in a count such as "32pkt" (also "32 packets")."""
    num, unit = _split(text)
    if unit not in _PACKET_UNITS or num.denominator != 1:
        raise ValueError(f"{text!r} is not a packet count such as '32pkt'")
    return int(num)


def parse_buffer(text: str) -> tuple[int, str]:
    """A buffer limit, as [queue] limit takes it: (count, "packets") for
    "32pkt", (bytes, "bytes") for a size such as "64KiB"."""
    try:
        return parse_packets(text), "packets"
    except ValueError:
        pass
    try:
        return parse_size(text), "bytes"
    except ValueError:
        raise ValueError(f"{text!r} is not a buffer limit such as '64KiB' or '32pkt'") from None


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
