"""Drops by input port from Python: the port_inputs, drop_runs,
flow_drop_runs and drop_trace tables, their documented columns, and the
drop_trace port's errors."""

from __future__ import annotations

from pathlib import Path

import fairlab
import pytest
from fairlab.result import NOT_DIGESTED, TABLES

DOCS = Path(__file__).resolve().parents[2] / "docs" / "binding.md"

COLUMNS = {
    "port_inputs": [
        "node",
        "peer",
        "input",
        "arrival_pkts",
        "arrival_bytes",
        "drop_pkts",
        "drop_bytes",
        "runs",
        "runs_alone",
        "longest_run",
        "input_runs",
        "longest_input_run",
    ],
    "drop_runs": [
        "node",
        "peer",
        "input",
        "run_length",
        "runs",
        "runs_alone",
        "drops",
        "input_runs",
    ],
    "flow_drop_runs": [
        "flow_id",
        "data",
        "src",
        "dst",
        "node",
        "peer",
        "run_length",
        "runs",
    ],
    "drop_trace": [
        "t_s",
        "input",
        "flow_id",
        "data",
        "src",
        "dst",
        "seq",
        "payload_bytes",
        "admitted",
        "queue_pkts",
        "queue_bytes",
    ],
}


def outcast(b: int = 6, duration: str = "300ms", **metrics) -> dict:
    """One sender on s0 against ``b`` on s1, all to recv through s0's 16 KB
    port; TCP with a 2 ms minimum RTO."""
    return {
        "duration": duration,
        "topology": {
            "kind": "outcast",
            "senders": b,
            "rate": "1Gbps",
            "delay": "10us",
            "buffer": "16KiB",
        },
        "tcp": {"min_rto": "2ms"},
        "metrics": metrics,
        "workload": [{"kind": "bulk", "src": "a0", "dst": "recv"}]
        + [{"kind": "bulk", "src": f"b{i}", "dst": "recv"} for i in range(b)],
    }


def test_the_tables_have_their_documented_columns():
    res = fairlab.simulate(outcast(drop_trace="s0:recv"))
    doc = DOCS.read_text()
    for name, cols in COLUMNS.items():
        assert name in TABLES and name in NOT_DIGESTED
        df = getattr(res, name)
        assert list(df.columns) == cols, name
        assert len(df) > 0, name
        entry = doc.split(f"\n* {name}: `", 1)[1].split("\n* ", 1)[0]
        assert all(c in entry for c in cols), name
    assert res.summary["drop_trace_rows_left_out"] == 0


def test_the_tables_agree_with_the_ports_table():
    res = fairlab.simulate(outcast(drop_trace="s0:recv"))
    ports = res.ports[res.ports.node_kind == "switch"].set_index(["node", "peer"])
    inp = res.port_inputs.groupby(["node", "peer"])[["drop_pkts", "arrival_pkts"]].sum()
    joined = ports.join(inp, rsuffix="_in").fillna(0)
    assert (joined.drop_pkts == joined.drop_pkts_in).all()
    assert (joined.enq_pkts + joined.drop_pkts == joined.arrival_pkts).all()
    runs = res.drop_runs
    whole = runs[runs.input == "*"]
    assert (whole.drops == whole.run_length * whole.runs).all()
    assert whole.drops.sum() == ports.drop_pkts.sum() == res.summary["drops"]
    # The trace: one row per arrival at s0 -> recv; its drops, per input,
    # are the table's.
    tr = res.drop_trace
    at = res.port_inputs.set_index(["node", "peer", "input"]).loc[("s0", "recv")]
    assert sorted(at.index) == ["a0", "s1"]
    assert len(tr) == at.arrival_pkts.sum()
    dropped = tr[tr.admitted == 0].groupby("input").size()
    assert dropped.to_dict() == at.drop_pkts[at.drop_pkts > 0].to_dict()
    assert set(tr.src[tr.data == 1]) <= {"a0"} | {f"b{i}" for i in range(6)}


def test_the_trace_is_off_by_default_and_capped():
    assert len(fairlab.simulate(outcast(duration="20ms")).drop_trace) == 0
    res = fairlab.simulate(outcast(duration="50ms", drop_trace="s0:recv", drop_trace_max_rows=50))
    assert len(res.drop_trace) == 50
    assert res.summary["drop_trace_rows_left_out"] > 0


@pytest.mark.parametrize(
    ("port", "allowed"),
    [
        ("s0", "s0:recv"),
        ("s0:b1", "s0:recv, s0:a0, s0:s1"),
        ("recv:s0", "s0:recv, s0:a0, s0:s1, s1:b0"),
        ("x:y", "s0:"),
    ],
)
def test_a_bad_port_is_one_line_naming_the_field_and_the_ports(port, allowed):
    with pytest.raises(fairlab.ScenarioError) as e:
        fairlab.simulate(outcast(duration="1ms", drop_trace=port))
    msg = str(e.value)
    assert msg.startswith(f'metrics.drop_trace: "{port}" is not a switch output port')
    assert allowed in msg and "\n" not in msg


def test_the_cap_without_a_trace_is_refused():
    with pytest.raises(fairlab.ScenarioError, match=r"^metrics\.drop_trace_max_rows: "):
        fairlab.simulate(outcast(duration="1ms", drop_trace_max_rows=5))
