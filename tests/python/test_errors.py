"""Every kind of bad input gives one clear ScenarioError naming the field,
the value and what is allowed; never a Rust panic or backtrace."""

import copy

import fairlab
import pytest
from fairlab import ScenarioError, scenarios
from hypothesis import given, settings
from hypothesis import strategies as st

BASE = scenarios.incast(2, rounds=1)


def bad(mutate):
    sc = copy.deepcopy(BASE)
    mutate(sc)
    with pytest.raises(ScenarioError) as e:
        fairlab.simulate(sc)
    msg = str(e.value)
    for forbidden in ("panicked", "Traceback", "RUST_BACKTRACE", "\n"):
        assert forbidden not in msg
    return msg


def test_unknown_key():
    msg = bad(lambda s: s["topology"].update(rat="1Gbps"))
    assert "topology" in msg and "rat" in msg and "expected one of" in msg


def test_wrong_type():
    msg = bad(lambda s: s["topology"].update(rate=5))
    assert msg.startswith("topology.rate:") and "5" in msg and "1Gbps" in msg


def test_wrong_type_for_hosts():
    msg = bad(lambda s: s["topology"].update(hosts="x"))
    assert msg.startswith("topology.hosts:") and "list of host names" in msg


@pytest.mark.parametrize("rate", ["-1Gbps", "0Gbps", "0bps"])
def test_negative_or_zero_rate(rate):
    msg = bad(lambda s: s["topology"].update(rate=rate))
    assert msg.startswith("topology.rate:") and rate in msg and "positive" in msg


def test_buffer_smaller_than_one_packet():
    msg = bad(lambda s: s["queue"].update(limit="100B"))
    assert msg.startswith("queue.limit:") and "100B" in msg and "1500B" in msg


def test_missing_host():
    msg = bad(lambda s: s["workload"][0].update(client="nobody"))
    assert msg.startswith("workload[0].client:") and "nobody" in msg


def test_missing_required_field():
    msg = bad(lambda s: s["topology"].pop("rate"))
    assert msg.startswith("topology.rate:") and "missing" in msg


def test_bad_seed():
    with pytest.raises(ScenarioError, match="seed"):
        fairlab.simulate(BASE, seed=-1)


def test_not_a_scenario():
    with pytest.raises(ScenarioError):
        fairlab.simulate(42)  # type: ignore[arg-type]


@settings(max_examples=60, deadline=None)
@given(st.text(max_size=12))
def test_any_rate_string_is_accepted_or_named(rate):
    sc = copy.deepcopy(BASE)
    sc["topology"]["rate"] = rate
    sc["workload"][0]["rounds"] = 1
    sc["workload"][0]["sru"] = "1460B"
    try:
        fairlab.validate(sc)
    except ScenarioError as e:
        assert str(e).startswith("topology.rate:")
        assert "\n" not in str(e)


@settings(max_examples=60, deadline=None)
@given(st.integers(min_value=1, max_value=1499))
def test_byte_buffers_below_one_packet_always_rejected(nbytes):
    sc = copy.deepcopy(BASE)
    sc["queue"]["limit"] = f"{nbytes}B"
    with pytest.raises(ScenarioError, match=r"^queue\.limit:"):
        fairlab.validate(sc)
