"""The Python API on small scenarios."""

import math

import fairlab
import pandas as pd
import pytest
from fairlab import scenarios

FLOW_COLUMNS = [
    "flow_id",
    "workload",
    "kind",
    "cc",
    "outcome",
    "src",
    "dst",
    "start_s",
    "end_s",
    "bytes_delivered",
    "goodput_bps",
    "segments_sent",
    "retransmits",
    "fast_retransmits",
    "timeouts",
    "timeouts_retransmission",
    "timeouts_tail",
    "timeouts_window",
    "ecn_reductions",
    "longest_silence_s",
    "final_cwnd_bytes",
    "srtt_s",
    "rto_s",
    "local_drops",
    "src_addr",
    "sport",
    "dst_addr",
    "dport",
    "sack",
    "mss_bytes",
    "tx_queue",
    "tx_queue_moves",
]
ROUND_COLUMNS = [
    "workload",
    "round",
    "start_s",
    "end_s",
    "duration_s",
    "bytes",
    "goodput_bps",
    "slowest_server",
    "timeouts",
]
PORT_COLUMNS = [
    "node",
    "peer",
    "node_kind",
    "limit",
    "shaper",
    "enq_pkts",
    "enq_bytes",
    "deq_pkts",
    "deq_bytes",
    "drop_pkts",
    "drop_bytes",
    "max_bytes",
    "max_pkts",
    "mark_pkts",
    "reordered_pkts",
    "timeout_rtx_pkts",
    "timeout_rtx_drops",
    "shaper_waits",
    "hcf_periods",
    "hcf_hp_pkts",
    "hcf_lp_pkts",
    "hcf_demoted_pkts",
    "hcf_credit_drops",
    "hcf_room_drops",
    "avg_pkts",
    "avg_bytes",
]


def test_simulate_returns_documented_tables(small_toml):
    res = fairlab.simulate(small_toml)
    assert list(res.flows.columns) == FLOW_COLUMNS
    assert list(res.rounds.columns) == ROUND_COLUMNS
    assert list(res.ports.columns) == PORT_COLUMNS
    assert list(res.flow_series.columns) == ["t_s", "flow_id", "bytes", "throughput_bps"]
    assert list(res.queue_series.columns) == ["t_s", "node", "peer", "bytes", "pkts"]
    assert list(res.tables["nic_queues"].columns) == [
        "node",
        "peer",
        "queue",
        "enq_pkts",
        "deq_pkts",
        "drop_pkts",
        "max_pkts",
        "held_pkts",
        "ring_size",
        "ring_enq_pkts",
        "ring_max_pkts",
        "ring_held_pkts",
        "sent_pkts",
        "sent_bytes",
        "bql_limit_bytes",
        "bql_max_limit_bytes",
        "turn_pkts",
        "flows",
        "requeues",
        "root_stall_s",
        "root_stalled",
    ]
    assert len(res.rounds) == 2
    assert (res.rounds["bytes"] == 2 * 65536).all()
    assert res.flows["bytes_delivered"].sum() == 2 * 2 * 65536
    # Rounds run back to back; goodput is all their bytes over their span,
    # under the 1 Gb/s link's payload ceiling (1460 of every 1500 bytes).
    r = res.rounds
    assert r["start_s"].iloc[1] == r["end_s"].iloc[0]
    span = r["end_s"].iloc[-1] - r["start_s"].iloc[0]
    goodput = res.summary["incast_goodput_bps"]
    assert goodput == pytest.approx(r["bytes"].sum() * 8 / span, rel=1e-12)
    assert goodput < 1e9 * 1460 / 1500
    assert res.summary["seed"] == 5
    assert res.summary["profile"] == "rfc"
    # Binned throughput adds up to what was delivered.
    assert res.flow_series["bytes"].sum() == res.flows["bytes_delivered"].sum()


def test_dict_and_toml_give_the_same_run(small_toml):
    as_dict = fairlab.load_scenario(small_toml)
    a = fairlab.simulate(small_toml)
    b = fairlab.simulate(as_dict)
    c = fairlab.simulate(small_toml.read_text())
    assert a.digest == b.digest == c.digest


def test_same_seed_same_digest_and_seed_matters_with_jitter():
    sc = scenarios.incast(8, rounds=3, min_rto="200us", jitter="2us")
    a = fairlab.simulate(sc, seed=11)
    b = fairlab.simulate(sc, seed=11)
    c = fairlab.simulate(sc, seed=12)
    assert a.digest == b.digest
    pd.testing.assert_frame_equal(a.flows, b.flows)
    assert a.digest != c.digest


def test_parquet_round_trip(small_toml, tmp_path):
    res = fairlab.simulate(small_toml)
    out = res.to_parquet(tmp_path / "run")
    for name in ("flows", "rounds", "ports", "flow_series", "queue_series"):
        back = pd.read_parquet(out / f"{name}.parquet")
        pd.testing.assert_frame_equal(back, res.tables[name], check_dtype=False)
    assert (out / "summary.json").exists() and (out / "scenario.json").exists()


def test_validate_fills_defaults(small_toml):
    v = fairlab.validate(small_toml)
    assert v["queue"]["limit"] == "64KiB"
    assert v["host"]["nic_queue"] == "1000pkt"


def test_incast_builder_splits_the_block_and_puts_a_quarter_rtt_on_each_link():
    sc = scenarios.incast(3, block="1MiB", rtt="100us", rounds=1)
    assert sc["topology"]["delay"] == "25us"
    res = fairlab.simulate(sc)
    assert res.rounds["bytes"].iloc[0] == 1 << 20
    # 1 MiB over three servers: 349525 bytes each and one left over.
    assert sorted(res.flows["bytes_delivered"]) == [349525, 349525, 349526]


def test_srtt_converges_to_the_path_rtt_of_the_topology():
    """One server answering one segment per round, on a 1 us clock.

    rtt = 100us puts 25 us on each of the two links. A 1500-byte segment
    takes 12 us per 1 Gb/s hop and its 40-byte ACK 0.32 us, so a reply is
    timed at 100 + 2 x 12 + 2 x 0.32 = 124.64 us, sampled as 125 us (whole
    ticks, to the nearest). The first sample is the handshake's (SYN-ACK and
    ACK, 40 bytes each: 101.28 us, sampled as 101 us); each round's reply
    then moves SRTT 1/8 of the way (RFC 6298), in integer picoseconds. The
    last reply's ACK arrives after the run ends: 59 reply samples in 60 rounds.
    """
    sc = scenarios.incast(1, sru="1460B", rtt="100us", rounds=60, min_rto="200us")
    # "auto", resolved by the spec to a 1 us clock for a min RTO below a jiffy.
    assert sc["tcp"]["resolution"] == "auto"
    assert scenarios.resolve_resolution("200us") == "1us"
    res = fairlab.simulate(sc)
    srtt_ps = 101 * 10**6
    for _ in range(59):
        srtt_ps = (7 * srtt_ps + 125 * 10**6) // 8
    srtt = res.flows["srtt_s"].iloc[0]
    assert srtt == pytest.approx(srtt_ps * 1e-12, abs=1e-15)
    # That is within one clock tick of the path RTT.
    assert abs(srtt - 124.64e-6) < 1e-6


def test_fine_grained_rto_beats_200ms_at_sixteen_servers():
    slow = fairlab.simulate(scenarios.incast(16, rounds=5, min_rto="200ms"))
    fast = fairlab.simulate(scenarios.incast(16, rounds=5, min_rto="200us"))
    assert slow.scenario["tcp"]["resolution"] == fast.scenario["tcp"]["resolution"] == "auto"
    assert scenarios.resolve_resolution("200ms") == "jiffy"
    assert scenarios.resolve_resolution("200us") == "1us"
    assert slow.summary["incast_goodput_bps"] < 300e6
    assert fast.summary["incast_goodput_bps"] > 600e6


def test_bulk_dumbbell_has_nan_incast_goodput():
    res = fairlab.simulate(scenarios.dumbbell(2, duration="20ms"))
    assert math.isnan(res.summary["incast_goodput_bps"])
    assert (res.flows["kind"] == "bulk").all()
    assert res.summary["sim_end_s"] == pytest.approx(0.02)


def test_every_algorithm_runs_and_names_itself():
    for cc in ["reno", "newreno", "cubic", "bic", "bic_paper", "vegas", "dctcp"]:
        sc = scenarios.dumbbell(2, duration="20ms", tcp=cc, sack=cc == "cubic")
        res = fairlab.simulate(sc)
        want = cc + ("+sack" if cc == "cubic" else "")
        assert (res.flows["cc"] == want).all()
        # Over 20 ms the two flows fill the 1 Gb/s bottleneck to within 5 %
        # of its payload ceiling, and neither gets under 40 % of the total.
        delivered = res.flows["bytes_delivered"]
        ceiling = 1e9 * 1460 / 1500 * 0.02 / 8
        assert 0.95 * ceiling <= delivered.sum() <= ceiling, cc
        assert delivered.min() >= 0.4 * delivered.sum(), cc


def test_profiles_fill_their_defaults():
    linux = fairlab.simulate(scenarios.incast(2, rounds=2, profile="linux"))
    assert linux.summary["profile"] == "linux"
    assert linux.flows["cc"].iloc[0] == "cubic+sack"
    dc = fairlab.simulate(scenarios.incast(2, rounds=2, profile="datacenter", min_rto="1ms"))
    assert dc.summary["profile"] == "datacenter"


def test_trace_is_off_by_default_and_records_changes_when_on():
    sc = scenarios.dumbbell(1, duration="20ms", tcp="dctcp", ecn_threshold="5pkt")
    assert fairlab.simulate(sc).trace.empty
    sc["metrics"] = {"trace": True}
    tr = fairlab.simulate(sc).trace
    assert list(tr.columns) == [
        "flow_id",
        "t_s",
        "cwnd_bytes",
        "ssthresh_bytes",
        "srtt_s",
        "rto_s",
        "in_recovery",
        "dctcp_alpha",
    ]
    assert tr["dctcp_alpha"].between(0, 1).all() and tr["t_s"].is_monotonic_increasing


def test_unknown_algorithm_is_a_clear_error():
    sc = scenarios.incast(2, rounds=1)
    sc["tcp"]["cc"] = "hybla"
    with pytest.raises(fairlab.ScenarioError, match=r"^tcp\.cc: .*hybla.*reno, newreno, cubic"):
        fairlab.simulate(sc)
    sc["tcp"]["cc"] = "dctcp"
    sc["tcp"]["ecn"] = False
    with pytest.raises(fairlab.ScenarioError, match=r"^tcp\.ecn:"):
        fairlab.simulate(sc)


def test_hcf_port_and_udp_background():
    from fairlab.studies import hcf

    sc = hcf.long_flows_scenario("hcf", flows=20, duration="2s", window="1s")
    res = fairlab.simulate(sc)
    assert res.summary["hcf_memory_bits"] == 20  # K = 20 bins of one bit (c0 = 1)
    # Poisson UDP at 5 % of 100 Mb/s in 1500-byte datagrams for 2 s: on
    # average 5e6 x 2 / 12000 = 833.3 datagrams; within four standard
    # deviations (sqrt(833) = 29).
    sent, delivered = res.summary["udp_sent"], res.summary["udp_delivered"]
    assert abs(sent - 833.3) < 4 * 29
    bn = res.ports[(res.ports["node"] == "swL") & (res.ports["peer"] == "swR")].iloc[0]
    assert bn["limit"] == "hcf(10pkt+10pkt)"
    # A datagram not delivered was dropped at the bottleneck or is still
    # queued there (at most 20 packets).
    assert 0 <= sent - delivered <= bn["drop_pkts"] + 20
    bad = hcf.long_flows_scenario("hcf", flows=2, duration="1s")
    bad["queue"]["hcf"]["hp_share"] = 1.5
    with pytest.raises(fairlab.ScenarioError, match=r"^queue\.hcf\.hp_share:"):
        fairlab.simulate(bad)


def test_example_scenarios_run_and_show_what_they_say():
    from pathlib import Path

    # The examples are installed with the package (fairlab examples).
    examples = Path(fairlab.__file__).parent / "examples"
    files = sorted(examples.glob("*.toml"))
    assert len(files) >= 3
    for f in files:
        fairlab.validate(f)
    dctcp = fairlab.simulate(examples / "dctcp-incast.toml")
    assert dctcp.summary["incast_goodput_bps"] > 850e6
    incast = fairlab.simulate(examples / "incast.toml")
    assert incast.summary["incast_goodput_bps"] < 300e6


def test_hcf_cuts_starvation_and_unfairness_at_equal_utilization():
    """The HCF paper's baseline, scaled to 100 flows and 20 s: on the same
    host, FIFO starves flows that HCF keeps alive, and HCF's per-flow
    throughput varies far less, with the link as busy."""
    from fairlab.studies import hcf

    df = hcf.baseline(flows=100, duration="20s", window="5s", workers=1)
    fifo, h = (df[df["discipline"] == d].iloc[0] for d in ("fifo", "hcf"))
    assert fifo["starved_pct"] >= 5
    assert h["starved_pct"] <= fifo["starved_pct"] / 5
    assert h["variance"] <= fifo["variance"] / 3
    assert h["utilization"] >= fifo["utilization"] - 0.02
    assert h["reordered_pkts"] == 0


def test_short_flows_over_long_ones_report_one_completion_time_per_flow():
    from fairlab.studies import hcf

    df = hcf.short_over_long(flows=10, duration="20s", per_size=5, workers=1)
    assert len(df) == 2 * 3 * 5
    assert sorted(df["packets"].unique()) == [10, 30, 60]
    assert df["fct_s"].notna().mean() > 0.9
    # No flow beats the path: the handshake's round trip (100 us of
    # propagation), then its packets at 120 us each through the 100 Mb/s
    # bottleneck and 50 us of propagation to the receiver.
    done = df.dropna()
    assert (done["fct_s"] >= 150e-6 + done["packets"] * 120e-6).all()


def test_disciplines_experiment_runs_each_discipline_once():
    from fairlab.studies import hcf

    df = hcf.disciplines(flows=20, duration="3s", window="1s", workers=1)
    assert list(df["discipline"]) == ["fifo", "red", "sfq", "drr", "hcf"]
    # Utilization counts bytes the bottleneck put on the wire over the 3 s:
    # at most its capacity, plus the one packet that may still be on the
    # wire (1500 B at 100 Mb/s: 4e-5 of 3 s). FIFO and HCF keep it busy;
    # RED, SFQ and DRR leave it idle some of the time.
    u = df.set_index("discipline")["utilization"]
    assert (u <= 1 + 1500 * 8 / (100e6 * 3)).all()
    assert u["fifo"] >= 0.99 and u["hcf"] >= 0.99
    assert (u[["red", "sfq", "drr"]] < u["hcf"]).all()


def test_summary_names_every_congestion_control_and_a_sack_mix():
    """Two workloads with their own TCP settings: the summary lists both
    controls in name order and calls SACK mixed; each flow has its own MSS."""
    sc = {
        "duration": "5ms",
        "topology": {
            "kind": "dumbbell",
            "left": 2,
            "right": 2,
            "rate": "1Gbps",
            "delay": "10us",
            "bottleneck_rate": "1Gbps",
            "bottleneck_delay": "10us",
        },
        "workload": [
            {"kind": "bulk", "src": "l0", "dst": "r0", "tcp": {"cc": "vegas", "mss": "1000B"}},
            {"kind": "bulk", "src": "l1", "dst": "r1", "tcp": {"cc": "cubic", "sack": True}},
        ],
    }
    res = fairlab.simulate(sc)
    assert res.summary["tcp"] == "cubic,vegas" and res.summary["sack"] == "mixed"
    assert list(res.flows["mss_bytes"]) == [1000, 1460] and list(res.flows["sack"]) == [0, 1]
    assert res.tcp_text() == "TCP cubic,vegas, SACK mixed, MSS 1000/1460 B"


PACED_INCAST = """
[topology]
kind = "star"
hosts = 11
rate = "1Gbps"
delay = "25us"
[queue]
limit = "16pkt"
[tcp]
profile = "datacenter"
{tcp}
[[workload]]
kind = "incast"
client = "h0"
servers = "all"
sru = "64KiB"
rounds = 20
{workload_tcp}
"""


def _paced(tcp="", workload_tcp=""):
    return PACED_INCAST.format(tcp=tcp, workload_tcp=workload_tcp)


def test_pacing_round_trips_through_the_scenario_and_cuts_drops(tmp_path):
    off = fairlab.simulate(_paced())
    # Off by default: saying so changes nothing, bit for bit.
    assert fairlab.simulate(_paced("pacing = false")).digest == off.digest
    text = _paced("pacing = true\npacing_ss_ratio = 200\npacing_ca_ratio = 120")
    v = fairlab.validate(text)
    assert v["tcp"]["pacing"] is True and v["tcp"]["pacing_ca_ratio"] == 120
    on = fairlab.simulate(text)
    assert fairlab.simulate(v).digest == on.digest != off.digest
    # The same switch per workload.
    per_workload = fairlab.simulate(_paced(workload_tcp="[workload.tcp]\npacing = true"))
    assert per_workload.digest == on.digest
    # Fewer drops at the switch and fewer timeouts, in the tables as written out.
    for res, name in ((off, "off"), (on, "on")):
        res.ports.to_csv(tmp_path / f"ports-{name}.csv", index=False)
        res.flows.to_csv(tmp_path / f"flows-{name}.csv", index=False)
    drops = {n: pd.read_csv(tmp_path / f"ports-{n}.csv")["drop_pkts"].sum() for n in ("off", "on")}
    touts = {n: pd.read_csv(tmp_path / f"flows-{n}.csv")["timeouts"].sum() for n in ("off", "on")}
    assert drops["on"] < 0.8 * drops["off"], drops
    assert touts["on"] < 0.75 * touts["off"], touts


def test_pacing_ratio_out_of_range_is_a_one_line_error_naming_the_field():
    with pytest.raises(fairlab.ScenarioError, match=r"^workload\[0\]\.tcp\.pacing_ss_ratio: 0 is"):
        fairlab.simulate(_paced(workload_tcp="[workload.tcp]\npacing_ss_ratio = 0"))
    with pytest.raises(fairlab.ScenarioError, match=r"^tcp\.pacing_ca_ratio: 1001 is .*1 to 1000"):
        fairlab.validate(_paced("pacing_ca_ratio = 1001"))


def test_the_host_stack_crosses_to_python_with_each_flows_transmit_queue():
    hosts = ["srv"] + [f"c{i}" for i in range(5)]
    sc = {
        "duration": "50ms",
        "topology": {"kind": "star", "hosts": hosts, "rate": "1Gbps", "delay": "25us"},
        "host": {"profile": "linux-3.12", "nic_queues": 8},
        "workload": [{"kind": "bulk", "src": "srv", "dst": f"c{i}"} for i in range(5)],
    }
    res = fairlab.simulate(sc, seed=3)
    assert res.summary["profile"] == "linux-3.12"
    assert res.flows["tx_queue"].between(0, 7).all()
    assert (res.flows["tx_queue_moves"] == 0).all()
    q = res.tables["nic_queues"]
    srv = q[q["node"] == "srv"]
    assert len(srv) == 8 and (srv["ring_size"] == 255).all()
    assert (srv["bql_limit_bytes"] >= 0).all()
    # Each flow leaves by the queue it reports.
    by_queue = res.flows["tx_queue"].value_counts()
    for queue, n in by_queue.items():
        assert int(srv[srv["queue"] == queue]["flows"].iloc[0]) == n
    with pytest.raises(fairlab.ScenarioError, match=r"host.txq_select: .*least_loaded"):
        fairlab.simulate({**sc, "host": {"txq_select": "lightest"}})
