"""fairlab.units reads unit strings as the simulator does: over a corpus of
good and bad strings, one that the exported parsers accept, scenario
validation accepts with the same value, and the other way round (so the
exports and the validation path cannot drift apart)."""

from __future__ import annotations

import fairlab
import pytest
from fairlab import scenarios
from fairlab.units import (
    parse_buffer,
    parse_packets,
    parse_rate_bps,
    parse_size,
    parse_time_ps,
)

RATES = [
    "1Gbps",
    "2.5Gbps",
    "100Mbps",
    "10 Gbit/s",
    "9600bps",
    "1Kb/s",
    "1Tbps",
    "1G",
    "x",
    "1.5Gbps",
    "0bps",
    " 1Gbps ",
    "1gbps",
    "1_000bps",
    "99999999999999999999Tbps",
    "1e9bps",
    "1.0000000001bps",
    "-1Gbps",
    "",
]
TIMES = [
    "25us",
    "200ms",
    "1s",
    "1.5ms",
    "3µs",
    "1min",
    "10ns",
    "0",
    "5",
    "1h",
    "25 us",
    "25US",
    "0.5ps",
    "1.0000000001ns",
    "-1ms",
    "1e3ms",
    "99999999999999999999s",
    "1_000us",
    " 2s",
    "200msec",
    "",
]
#: ("0pkt" parses, and validation refuses it as a buffer that holds no packet.)
BUFFERS = [
    "64KiB",
    "32pkt",
    "20 packets",
    "1500B",
    "1MB",
    "3p",
    "1500",
    "1.5pkt",
    "64Kb",
    "4294967296pkt",
    "1.5KiB",
    "0.5B",
    "64 KiB",
    "1 packet",
    "pkt",
    "1_000pkt",
    "99999999999999999999GiB",
    "",
]


def _rust(**kw):
    try:
        return fairlab.validate(scenarios.incast(1, **kw))
    except fairlab.ScenarioError:
        return None


def _py(parse, text):
    try:
        return parse(text)
    except ValueError:
        return None


@pytest.mark.parametrize("text", RATES)
def test_rates(text):
    v = _rust(rate=text)
    py = _py(parse_rate_bps, text)
    assert (v is None) == (py is None), (text, py)
    if v is not None:
        assert parse_rate_bps(v["topology"]["rate"]) == py


@pytest.mark.parametrize("text", TIMES)
def test_durations(text):
    v = _rust(min_rto=text, resolution="1us")
    py = _py(parse_time_ps, text)
    assert (v is None) == (py is None), (text, py)
    if v is not None:
        assert parse_time_ps(v["tcp"]["min_rto"]) == py


@pytest.mark.parametrize("text", BUFFERS)
def test_buffers(text):
    v = _rust(buffer=text)
    py = _py(parse_buffer, text)
    assert (v is None) == (py is None), (text, py)
    if v is not None:
        assert parse_buffer(v["queue"]["limit"]) == py


def test_refusals_carry_the_simulators_text():
    with pytest.raises(ValueError, match="is not a valid duration; expected"):
        parse_time_ps("1h")
    with pytest.raises(ValueError, match="is not a valid buffer limit; expected"):
        parse_buffer("1.5pkt")
    with pytest.raises(ValueError, match="not a packet count"):
        parse_packets("64KiB")
    assert parse_packets("20 packets") == 20


def test_long_strings_are_refused_without_parsing():
    with pytest.raises(ValueError, match="200-character string"):
        parse_size("9" * 200)
