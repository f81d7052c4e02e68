"""fairlab.units reads unit strings as the simulator does: a string the
Python parser accepts, Rust's validation accepts with the same value, and
the other way round."""

from __future__ import annotations

import fairlab
import pytest
from fairlab import scenarios
from fairlab.units import parse_buffer, parse_rate_bps, parse_size, parse_time_ps

RATES = ["1Gbps", "2.5Gbps", "100Mbps", "10 Gbit/s", "9600bps", "1Kb/s", "1Tbps", "1G", "x"]
TIMES = ["25us", "200ms", "1s", "1.5ms", "3µs", "1min", "10ns", "0", "5", "1h"]
BUFFERS = ["64KiB", "32pkt", "20 packets", "1500B", "1MB", "3p", "1500", "1.5pkt", "64Kb"]


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


def test_long_strings_are_refused_without_parsing():
    with pytest.raises(ValueError, match="200-character string"):
        parse_size("9" * 200)
