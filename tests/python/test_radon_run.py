"""`fairlab run` on Radon streams (docs/radon.md): the seed's columns in the
summary, the tables with their documented columns, and a violated
network-calculus bound failing the run."""

from __future__ import annotations

import json
from pathlib import Path

import fairlab
import pytest
from fairlab.cli import main

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "radon-punctuated.toml"

STREAMS = [
    "flow_id", "workload", "src", "dst", "admitted", "refused_at", "send_rate_mbps",
    "num_sent", "num_recv", "num_lost", "pct_lost", "recv_rate_mbps", "recv_wire_rate_mbps",
    "mean_wait_us", "final_wait_us", "start_s", "stop_s", "utilization", "period_us",
    "local_drops", "feedback_sent", "feedback_received",
]  # fmt: skip
PORT_BOUNDS = [
    "port", "streams", "sum_u", "backlog_bound_bytes", "max_backlog_bytes",
    "delay_bound_us", "max_delay_us", "status",
]  # fmt: skip
SERIES = [
    "flow_id", "frame", "sent_s", "recv_s", "rfd_us", "true_owd_us", "true_queue_pkts",
    "basic_pkts", "pathload_pkts", "median5_pkts", "trend", "pathload_trend", "wait_us",
]  # fmt: skip


def _two_streams(series: bool = False) -> dict:
    sc = {
        "duration": "30ms",
        "topology": {"kind": "star", "hosts": 3, "rate": "1Gbps", "delay": "1us"},
        "link": {"framing": "38B"},
        "workload": [
            {"kind": "udp", "transport": "radon", "src": f"h{i}", "dst": "h0",
             "rate": "400Mbps", "packet_size": "8220B", "packets": 100}
            for i in (1, 2)
        ],
    }  # fmt: skip
    if series:
        sc["metrics"] = {"radon_series": True}
    return sc


def test_a_radon_run_has_the_documented_tables():
    res = fairlab.simulate(_two_streams(series=True), seed=1)
    assert list(res.tables["streams"].columns) == STREAMS
    assert list(res.tables["port_bounds"].columns) == PORT_BOUNDS
    assert list(res.tables["radon_series"].columns) == SERIES
    st = res.tables["streams"]
    assert (st["num_sent"] == 100).all() and (st["num_lost"] == 0).all()
    assert res.summary["radon_streams"] == 2 and res.summary["bound_violations"] == 0
    assert set(res.tables["port_bounds"]["status"]) == {"ok"}
    assert len(res.tables["radon_series"]) == 200


def test_run_prints_the_streams_and_the_bounds_verdict(capsys):
    assert main(["run", str(EXAMPLE)]) == 0
    out = capsys.readouterr().out
    assert "Radon streams (src -> dst: send Mb/s" in out
    assert "network-calculus bounds:" in out and "violated" not in out


def test_a_violated_bound_fails_the_run(monkeypatch, capsys):
    from fairlab import result

    monkeypatch.setattr(result.Result, "bound_violations", lambda self: 1)
    assert main(["run", str(EXAMPLE)]) == 3
    err = capsys.readouterr().err
    assert "exceeded their network-calculus bounds" in err and len(err.strip().splitlines()) == 1


MACHINE = json.dumps(
    {"hz": 250, "congestion_controls": ["reno"], "qdiscs": ["htb", "tbf", "pfifo", "bfifo"]}
)


def test_ns2_refuses_radon_by_field():
    from fairlab import _core

    sc = _two_streams()
    del sc["link"]  # refused first, by its own field
    with pytest.raises(fairlab.ScenarioError, match=r"^workload\[0\]\.transport: \"radon\""):
        _core.lower_ns2_json(json.dumps(sc))


def test_the_namespace_backend_lowers_radon_streams_to_the_socket_agent():
    from fairlab import _core

    plan = json.loads(_core.lower_netns_json(json.dumps(_two_streams()), MACHINE))
    streams = [w for w in plan["workloads"] if w["kind"] == "radon"]
    assert len(streams) == 2
    for w in streams:
        assert w["sender"]["packet_service_ps"] > 0 and w["receiver"]["feedback_every"] >= 1
        assert w["path"][0].startswith(w["src"] + ":")
