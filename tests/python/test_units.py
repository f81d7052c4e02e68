from fractions import Fraction

import fairlab
from fairlab import scenarios
from fairlab.units import format_size, format_time_ps, parse_size, parse_time_ps
from hypothesis import given
from hypothesis import strategies as st


@given(st.integers(min_value=0, max_value=10**15))
def test_time_strings_round_trip(ps):
    assert parse_time_ps(format_time_ps(ps)) == ps


@given(st.integers(min_value=0, max_value=2**40))
def test_size_strings_round_trip(n):
    assert parse_size(format_size(n)) == n


@given(st.integers(min_value=1, max_value=10**9))
def test_rust_reads_python_time_strings_exactly(ns):
    """A delay formatted in Python is the delay the simulator uses."""
    sc = scenarios.incast(1, rounds=1)
    sc["topology"]["delay"] = format_time_ps(ns * 1000)
    v = fairlab.validate(sc)
    assert parse_time_ps(v["topology"]["delay"]) == ns * 1000


def test_auto_resolution_pairs_jiffies_with_millisecond_rtos():
    assert scenarios.resolve_resolution("200ms") == "jiffy"
    assert scenarios.resolve_resolution("1ms") == "jiffy"
    assert scenarios.resolve_resolution("200us") == "1us"
    assert scenarios.resolve_resolution("5ms", "1us") == "1us"
    assert Fraction(parse_time_ps("25us"), 1) == 25 * 10**6
