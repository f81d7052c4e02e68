"""The study's topologies from Python: round trips, names, errors, paths."""

from __future__ import annotations

import copy

import fairlab
import pytest
from fairlab import scenarios


def outcast(**topology) -> dict:
    topo = {"kind": "outcast", "senders": 3, "rate": "1Gbps", "delay": "10us", "buffer": "16KiB"}
    topo.update(topology)
    return {
        "duration": "5ms",
        "topology": topo,
        "workload": [
            {"kind": "bulk", "src": "a0", "dst": "recv"},
            {"kind": "bulk", "src": "b1", "dst": "recv"},
        ],
    }


def explicit() -> dict:
    link = {"rate": "1Gbps", "delay": "5us"}
    return {
        "duration": "2ms",
        "topology": {
            "kind": "explicit",
            "hosts": ["x", "y"],
            "switches": ["s", "t"],
            "links": [
                {"a": "x", "b": "s", **link},
                {"a": "s", "b": "t", **link, "buffer": "20pkt", "buffer_b": "8KiB"},
                {"a": "t", "b": "y", **link},
            ],
        },
        "workload": [{"kind": "bulk", "src": "x", "dst": "y"}],
    }


@pytest.mark.parametrize(
    "sc",
    [
        outcast(),
        explicit(),
        scenarios.fat_tree_permutation(4, duration="1ms", selection="address_bits"),
        scenarios.fat_tree_permutation(
            4, duration="1ms", selection="address_bits", paths="equal_length"
        ),
        {
            "duration": "1ms",
            "topology": {"kind": "parking_lot", "switches": 3, "rate": "1Gbps", "delay": "1us"},
            "workload": [{"kind": "bulk", "src": "h0_0", "dst": "h2_0"}],
        },
        {
            "duration": "1ms",
            "topology": {
                "kind": "leaf_spine",
                "leaves": 2,
                "spines": 2,
                "hosts": 4,
                "rate": "10Gbps",
                "delay": "1us",
                "oversubscription": 2,
            },
            "workload": [{"kind": "bulk", "src": "h0_0", "dst": "h1_3"}],
        },
    ],
)
def test_every_new_topology_round_trips_through_validate(sc):
    full = fairlab.validate(sc)
    assert full["topology"]["kind"] == sc["topology"]["kind"]
    assert fairlab.validate(full) == full
    res = fairlab.simulate(full)
    assert len(res.paths) == len(res.flows)


def test_fat_tree_names_and_paths_table():
    sc = scenarios.fat_tree_permutation(4, duration="2ms", selection="address_bits")
    assert scenarios.fat_tree_hosts(4)[:3] == ["h0_0_0", "h0_0_1", "h0_1_0"]
    assert len(scenarios.fat_tree_hosts(8)) == 128
    res = fairlab.simulate(sc)
    p = res.paths
    assert list(p.columns) == [
        "flow_id",
        "src",
        "dst",
        "path",
        "hops",
        "reverse_path",
        "one_way_s",
        "base_rtt_s",
    ]
    assert (p["hops"] == 6).all()  # every flow goes to the next pod
    assert p["path"].iloc[0] == "h0_0_0>edge0_0>agg0_0>core0_0>agg1_0>edge1_0>h1_0_0"
    # 6 links of 1 us, 1500 B at 10 Gb/s (1.2 us) out, 40 B (32 ns) back.
    assert p["base_rtt_s"].iloc[0] == pytest.approx(6 * (2e-6 + 1.2e-6 + 0.032e-6), rel=1e-9)
    assert set(res.flows["src"]) == set(p["src"])


def test_destination_id_routes_every_flow_to_a_host_down_one_path():
    """The reproduction's static routing (riplpox StaticShortestPathRouting):
    an edge switch picks the aggregation switch by the destination index's
    lowest bit, an aggregation switch the core by the next, the same for
    every source: all 15 flows to h0_0_0 come down core0_0 and agg0_0, and
    its pod neighbours climb to agg0_0 too (Al-Fares' address_bits spreads
    them over both aggregation switches)."""
    hosts = scenarios.fat_tree_hosts(4)

    def paths(dst, selection):
        sc = {
            "duration": "1ms",
            "topology": {"kind": "fat_tree", "k": 4, "rate": "1Gbps", "delay": "1us"},
            "routing": {"selection": selection},
            "workload": [{"kind": "bulk", "src": h, "dst": dst} for h in hosts if h != dst],
        }
        return fairlab.simulate(sc).paths.set_index("src")["path"]

    p = paths("h0_0_0", "destination_id")
    far = [h for h in hosts if not h.startswith("h0_")]
    assert all(">agg" + h[1] + "_0>core0_0>agg0_0>edge0_0>" in p[h] for h in far)
    assert p["h0_1_0"] == "h0_1_0>edge0_1>agg0_0>edge0_0>h0_0_0"
    # Index 1 (h0_0_1): aggregation switch 1; index 2 (h0_1_0): core 1 of group 0.
    assert ">agg2_1>core1_0>agg0_1>" in paths("h0_0_1", "destination_id")["h2_0_0"]
    assert ">agg2_0>core0_1>agg0_0>" in paths("h0_1_0", "destination_id")["h2_0_0"]
    spread = paths("h0_0_0", "address_bits")
    assert {s.split(">")[-3] for s in spread} == {"agg0_0", "agg0_1", "h0_0_1"}


def test_outcast_paths_show_the_two_input_ports():
    res = fairlab.simulate(outcast())
    assert list(res.paths["path"]) == ["a0>s0>recv", "b1>s1>s0>recv"]
    assert list(res.paths["hops"]) == [2, 3]


@pytest.mark.parametrize(
    ("change", "path"),
    [
        (lambda s: s["topology"].update(k=5), r"^topology\.k: 5; expected an even number"),
        (lambda s: s["topology"].update(kind="fat-tree"), r"^topology\.kind:"),
        (lambda s: s["topology"].update(port=4), r"^topology\.port: not a field"),
        (lambda s: s["routing"].update(selection="hash"), r"^routing\.selection:"),
        (lambda s: s["routing"].update(paths="equal"), r"^routing\.paths:"),
        (
            lambda s: s["workload"][0].update(src="h9_0_0"),
            r"^workload\[0\]\.src: \"h9_0_0\" is not a host",
        ),
        (lambda s: s["topology"].update(buffer="10B"), r"^topology\.buffer: .*smaller than one"),
        (lambda s: s["topology"].update(k=64), r"^topology: 65536 hosts and 5120 switches"),
    ],
)
def test_fat_tree_errors_name_the_field(change, path):
    sc = copy.deepcopy(scenarios.fat_tree_permutation(4, duration="1ms"))
    change(sc)
    sc["limits"] = {"max_memory": "1GiB"}  # k = 64's routing (1.4 GB) is over it
    with pytest.raises(fairlab.ScenarioError, match=path):
        fairlab.validate(sc)


@pytest.mark.parametrize(
    ("change", "path"),
    [
        (lambda t: t["links"][0].update(b="nowhere"), r"^topology\.links\[0\]\.b: \"nowhere\""),
        (lambda t: t["links"][0].update(buffer_a="8KiB"), r"^topology\.links\[0\]\.buffer_a: "),
        (lambda t: t["links"].pop(), r"^topology\.links: host \"y\" has 0 links"),
        (lambda t: t["links"].append(dict(t["links"][1])), r"^topology\.links\[3\]: links "),
        (lambda t: t["switches"].append("x"), r"^topology\.switches\[2\]: \"x\" is empty or rep"),
        (lambda t: t["links"][1].update(rate="0bps"), r"^topology\.links\[1\]\.rate: "),
    ],
)
def test_explicit_errors_name_the_link(change, path):
    sc = explicit()
    change(sc["topology"])
    with pytest.raises(fairlab.ScenarioError, match=path):
        fairlab.validate(sc)


def test_equal_length_needs_a_tiered_topology():
    sc = outcast()
    sc["routing"] = {"paths": "equal_length"}
    with pytest.raises(fairlab.ScenarioError, match=r"^routing\.paths: .*outcast topology"):
        fairlab.validate(sc)
