"""The HCF study on the ns-2 backend: which of its runs ns-2 can make (the
FIFO baselines on ns-2's own agents; HCF and the Linux-like host refused by
field path), and, where `ns` is installed, a small long-flow FIFO run on
real ns-2 with the flow_series table the study reads."""

from __future__ import annotations

import json
import shutil

import fairlab
import pytest
from fairlab import ScenarioError
from fairlab.ns2.run import lower
from fairlab.ns2.studies import split
from fairlab.studies import hcf

needs_ns = pytest.mark.skipif(
    shutil.which("ns") is None,
    reason="ns-2 is not installed (`ns` not on the PATH; apt-get install ns2)",
)


def _small_fifo() -> dict:
    """20 long flows of the baseline on ns-2's NewReno agent, 4 s, 1 s bins."""
    return hcf.long_flows_scenario(
        "droptail", flows=20, duration="4s", window="1s", tcp=hcf.NS2_LONG_TCP
    )


def test_hcf_runs_are_refused_by_field_path():
    """HCF has no ns-2 queue; the paper series' Linux-like host (profile
    "rfc") is not ns-2's agent. The FIFO runs on the ns2 host are kept."""
    for disc, path in (("hcf", "queue.discipline"),):
        sc = hcf.long_flows_scenario(disc, flows=4, duration="1s", tcp=hcf.NS2_LONG_TCP)
        with pytest.raises(ScenarioError, match=path):
            lower(json.dumps(sc))
    with pytest.raises(ScenarioError, match="tcp.profile"):
        lower(json.dumps(hcf.long_flows_scenario("droptail", flows=4, duration="1s")))
    ok, note = split(hcf.incast_tasks([4], 3, 1, series=hcf.NS2_SERIES))
    assert [t.labels["discipline"] for t in ok] == ["fifo"]
    assert "queue.discipline" in note and "1 of 2 runs" in note
    ok, note = split(hcf.baseline_ns2_tasks(hcf.QUICK, (1,)))
    assert len(ok) == 1 and note == ""


def test_ns2_long_flow_plan_keeps_the_baselines_packets_and_window():
    plan = lower(json.dumps(_small_fifo()))
    (tcp,) = plan["tcp"]
    assert tcp["agent"] == "Newreno" and tcp["vars"]["packetSize_"] == 1460
    assert tcp["vars"]["window_"] == 20 and plan["throughput_bin_s"] == 1.0
    assert not plan["warnings"]


@needs_ns
def test_small_long_flow_fifo_runs_on_ns2_with_the_simulators_flow_series():
    from fairlab.ns2 import simulate_ns2

    sc = _small_fifo()
    a = fairlab.simulate(sc, seed=1)
    b = simulate_ns2(sc, seed=1)
    for t in ("flows", "ports", "flow_series"):
        assert list(a.tables[t].columns) == list(b.tables[t].columns), t
        assert list(a.tables[t].dtypes) == list(b.tables[t].dtypes), t
    s = b.flow_series
    assert len(s) > 0 and set(s["t_s"]) <= {0.0, 1.0, 2.0, 3.0}
    assert (s["throughput_bps"] == s["bytes"] * 8 / 1.0).all()
    # Every flow's bins add up to its delivered payload (packetSize_ per packet).
    per_flow = s.groupby("flow_id")["bytes"].sum()
    tcp = b.flows[b.flows["kind"] == "bulk"].set_index("flow_id")["bytes_delivered"]
    assert (per_flow.reindex(tcp.index, fill_value=0) == tcp).all()
    assert (tcp % 1460 == 0).all()
    m = hcf.long_flow_metrics(b.flows, s, b.ports, 4.0, 1.0, 20)
    assert 0.9 < m["utilization"] <= 1.01 and 80 < m["goodput_mbps"] < 100
    assert m["reordered_pkts"] != m["reordered_pkts"]  # NaN: ns-2 does not tell


def test_ns2_incast_series_asks_for_what_ns2s_agents_do():
    """ns-2's agent sends the 100-byte request as one whole 1000-byte
    segment, and its SYN gives the sender an RTT sample before the first
    round: the ns2 series asks for both (request 1000B, warm-up), and for
    each server's share of the block in whole segments; the paper's series
    keeps its 100-byte request, no warm-up and 1 MB / N bytes."""
    (t,) = [
        t
        for t in hcf.incast_tasks([4], 3, 1, series=hcf.NS2_SERIES)
        if t.labels["discipline"] == "fifo"
    ]
    wl = t.scenario["workload"][0]
    assert wl["request"] == "1000B" and wl["warmup"] is True
    assert "request_order" not in wl
    # Whole segments per server, as ns-2 sends them: ceil(1 MB / 256 / 1000 B) = 4.
    (t,) = [
        t
        for t in hcf.incast_tasks([256], 3, 1, series=hcf.NS2_SERIES)
        if t.labels["discipline"] == "fifo"
    ]
    assert t.scenario["workload"][0]["sru"] == "4000B" and "block" not in t.scenario["workload"][0]
    (tp,) = [t for t in hcf.incast_tasks([4], 3, 1) if t.labels["discipline"] == "fifo"]
    assert tp.scenario["workload"][0]["request"] == "100B"
    assert "warmup" not in tp.scenario["workload"][0]
