"""Every kind of bad input gives one clear ScenarioError naming the field,
the value and what is allowed; never a Rust panic or backtrace."""

import copy
import time

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


def test_deeply_nested_toml_arrays_are_refused_before_parsing():
    n = 100_000  # recursion in tomllib; a stack overflow in an unbounded parser
    with pytest.raises(ScenarioError) as e:
        fairlab.validate("a = " + "[" * n + "]" * n + "\n")
    assert "nested 80 or more levels" in str(e.value) and "\n" not in str(e.value)


def test_long_dotted_keys_are_refused_before_tomllib_sees_them():
    # tomllib takes time and memory quadratic in a dotted key's length
    # (100 000 segments exhaust 23 GB); the bounded Rust parser refuses it first.
    with pytest.raises(ScenarioError, match="dotted keys nested 80 or more levels"):
        fairlab.validate("a" + ".a" * 2000 + " = 1\n")


def test_deeply_nested_dict_is_refused_without_recursing():
    sc: dict = {}
    inner = sc
    for _ in range(5000):
        inner["a"] = {}
        inner = inner["a"]
    with pytest.raises(ScenarioError, match="^scenario: nested 80 or more levels deep"):
        fairlab.validate(sc)


def test_non_utf8_scenario_file_names_the_file_and_line(tmp_path):
    f = tmp_path / "latin1.toml"
    f.write_bytes('name = "x"\n# caf\xe9\n'.encode("latin-1"))
    with pytest.raises(ScenarioError) as e:
        fairlab.load_scenario(f)
    assert (
        str(e.value) == f"{f}: not UTF-8 text (byte 0xe9 on line 2); a scenario file is UTF-8 TOML"
    )


def test_core_toml_errors_are_one_line():
    from fairlab import _core

    # toml's message for this header spans two lines.
    with pytest.raises(ScenarioError) as e:
        _core.validate_toml("[" + "a." * 100 + "a]\n")
    assert "\n" not in str(e.value) and "recursion limit" in str(e.value)


# Inputs that once killed, hung or blew up the Python process: each must now
# be one ScenarioError naming the field, raised before anything runs.


def test_zero_drr_quantum_is_refused_not_a_hang():
    msg = bad(lambda s: s["queue"].update(discipline="drr", drr={"quantum": "0B"}))
    assert msg.startswith("queue.drr.quantum:") and "0B" in msg


def test_zero_sfq_buckets_is_refused_not_a_panic():
    msg = bad(lambda s: s["queue"].update(discipline="sfq", sfq={"buckets": 0}))
    assert msg.startswith("queue.sfq.buckets:") and "65536" in msg


def test_a_port_too_small_for_hcf_is_refused_not_a_panic():
    port = {"node": "sw", "peer": "client", "discipline": "hcf", "limit": "1pkt"}
    msg = bad(lambda s: s.update(port=[port]))
    assert msg.startswith("port[0].limit:") and "hp_share" in msg


@pytest.mark.parametrize(
    ("field", "value"),
    [("throughput_bin", "1ps"), ("queue_sample", "1ns")],
)
def test_series_that_would_exhaust_memory_are_refused(field, value):
    msg = bad(lambda s: s.update(duration="10s", metrics={field: value}))
    assert msg.startswith(f"metrics.{field}:") and "max_series_rows" in msg


def test_work_that_would_run_for_ever_is_refused():
    msg = bad(lambda s: s["workload"][0].update(rounds=4_000_000_000))
    assert msg.startswith("workload[0]:") and "max_packets" in msg


def test_a_raised_limit_lets_a_large_run_through_validation():
    sc = copy.deepcopy(BASE)
    sc["workload"][0]["rounds"] = 4_000_000_000
    sc["limits"] = {"max_packets": 10**13, "max_packet_hops": 10**14, "max_events": 10**15}
    assert fairlab.validate(sc)["limits"]["max_packets"] == 10**13


RATE = {"rate": "10Gbps", "delay": "1us"}


@pytest.mark.parametrize(
    ("topology", "workload", "path", "limit"),
    [
        (
            {"kind": "parking_lot", "switches": 20000},
            ("h0_0", "h19999_0", None),
            "topology",
            "max_route_work",
        ),
        ({"kind": "fat_tree", "k": 64}, ("h0_0_0", "h1_0_0", None), "topology", "max_route_work"),
        ({"kind": "fat_tree", "k": 76}, ("h0_0_0", "h1_0_0", None), "topology", "max_hosts"),
        ({"kind": "star", "hosts": 999_999}, ("h0", "h1", None), "topology", "max_hosts"),
        (
            {"kind": "leaf_spine", "leaves": 1000, "spines": 1000, "hosts": 1},
            ("h0_0", "h1_0", None),
            "topology",
            "max_route_work",
        ),
        (
            {"kind": "parking_lot", "switches": 8000},
            ("h0_0", "h7999_0", "20MB"),
            "workload[0].size",
            "max_packet_hops",
        ),
    ],
)
def test_networks_and_runs_that_would_run_away_are_refused_at_once(topology, workload, path, limit):
    src, dst, size = workload
    bulk = {"kind": "bulk", "src": src, "dst": dst}
    if size:
        bulk["size"] = size
    sc = {"duration": "1s", "topology": {**topology, **RATE}, "workload": [bulk]}
    t = time.monotonic()
    with pytest.raises(fairlab.ScenarioError) as e:
        fairlab.validate(sc)
    assert time.monotonic() - t < 1.0
    msg = str(e.value)
    assert msg.startswith(f"{path}:") and limit in msg and "[limits]" in msg and "\n" not in msg


def test_a_fat_tree_permutation_for_a_second_is_refused():
    with pytest.raises(fairlab.ScenarioError, match=r"^duration: .*max_packet_hops"):
        fairlab.validate(scenarios.fat_tree_permutation(4, duration="1s"))
    fairlab.validate(scenarios.fat_tree_permutation(4))


def test_a_start_that_would_overflow_the_clock_is_refused():
    msg = bad(lambda s: s["workload"][0].update(start="18446744s"))
    assert msg.startswith("workload[0].start:") and "1000000s" in msg


@pytest.mark.parametrize("value", [float("nan"), float("inf"), 2.0])
def test_nan_infinity_and_out_of_range_shares_are_named(value):
    msg = bad(lambda s: s["queue"].update(priority={"high_share": value}))
    assert msg.startswith("queue.priority.high_share:")
    if value != value:
        assert "NaN" in msg


@pytest.mark.parametrize(
    ("mutate", "prefix", "allowed"),
    [
        (lambda s: s["topology"].update(kind="ring"), "topology.kind:", '"star", "dumbbell"'),
        (
            lambda s: s["queue"].update(priority={"high": "udpp"}),
            "queue.priority.high:",
            "control, udp",
        ),
        (lambda s: s["queue"].update(discipline="fifo"), "queue.discipline:", "droptail, hcf"),
    ],
)
def test_a_wrong_name_lists_the_allowed_names(mutate, prefix, allowed):
    msg = bad(mutate)
    assert msg.startswith(prefix) and allowed in msg


def test_red_thresholds_must_rise():
    msg = bad(lambda s: s["queue"].update(discipline="red", red={"min_th": 20, "max_th": 10}))
    assert msg.startswith("queue.red.max_th:")


def test_every_study_run_fits_the_default_limits():
    """The limits refuse runaways, not the studies: every run of every
    experiment, at full scale, validates as it is (some raise a limit)."""
    from fairlab import studies

    for name in studies.names():
        for ex in studies.get(name).experiments:
            for task in ex.tasks(False):
                fairlab.validate(task.scenario)
