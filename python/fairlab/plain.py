"""What a scenario value may be: plain data the simulator reads. TOML also
has dates and times, and integers of any size in Python; both are refused
here, by field path, before they reach the JSON encoder or the simulator
(whose messages would be "not JSON serializable" and "floating point
`1.8446744073709552e+19`")."""

from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import Any

from ._core import ScenarioError

#: Integer range of a scenario value: the simulator reads i64 and u64 fields.
INT_MIN, INT_MAX = -(2**63), 2**64 - 1
#: Longest field path or value echoed in a message.
ECHO_CHARS = 60

_DATES = (datetime.date, datetime.time, datetime.datetime)


def shorten(text: object, limit: int = ECHO_CHARS) -> str:
    """``text`` as written, or its two ends and its length when longer than ``limit``."""
    s = str(text)
    if len(s) <= limit:
        return s
    half = (limit - 5) // 2
    return f"{s[:half]}…{s[-half:]} ({len(s)} characters)"


def int_range_text(value: int) -> str:
    """How an out-of-range integer is named: never as a float."""
    return "an integer above 2^64-1" if value > INT_MAX else "an integer below -2^63"


def check_plain(value: Any, where: str) -> None:
    """Refuses dates and times, and integers outside the simulator's 64-bit
    fields, anywhere in ``value``; ``where`` prefixes the field path in the
    message. Iterative: nesting depth is the parser's to bound."""
    stack: list[tuple[Any, str]] = [(value, "")]
    while stack:
        v, at = stack.pop()
        if isinstance(v, Mapping):
            stack.extend((x, f"{at}.{k}" if at else str(k)) for k, x in v.items())
        elif isinstance(v, list | tuple):
            stack.extend((x, f"{at}[{i}]") for i, x in enumerate(v))
        elif isinstance(v, _DATES):
            raise ScenarioError(
                f"{where}{shorten(at)}{': ' if at else ''}`{v}` is a TOML date or time; dates "
                'and times are not allowed (a duration is a string such as "10s")'
            )
        elif isinstance(v, int) and not isinstance(v, bool) and not INT_MIN <= v <= INT_MAX:
            raise ScenarioError(
                f"{where}{shorten(at)}{': ' if at else ''}{shorten(v)} is {int_range_text(v)}; "
                f"expected an integer from {INT_MIN} to {INT_MAX}"
            )
