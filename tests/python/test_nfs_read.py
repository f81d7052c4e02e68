"""NFS-like reads from Python: the workload runs from a dict, and its
per-client table comes back with its columns and types."""

import math

import fairlab
import numpy as np
import pytest
from fairlab import ScenarioError


def nfs_scenario(**workload) -> dict:
    return {
        "topology": {"kind": "star", "hosts": 4, "rate": "1Gbps", "delay": "25us"},
        "tcp": {"profile": "linux"},
        "metrics": {"throughput_bin": "10ms"},
        "workload": [
            {"kind": "nfs_read", "server": "h0", "file_size": "4MiB", **workload},
        ],
    }


def test_an_nfs_read_from_a_dict_gives_a_row_per_client_in_the_reads_table():
    res = fairlab.simulate(nfs_scenario(clients="all", outstanding=4))
    reads = res.reads
    assert list(reads.columns) == [
        "workload",
        "flow_id",
        "client",
        "server",
        "file_bytes",
        "io_bytes",
        "outstanding",
        "bytes_read",
        "requests_sent",
        "requests_done",
        "start_s",
        "end_s",
        "goodput_bps",
        "outcome",
    ]
    assert list(reads["client"]) == ["h1", "h2", "h3"]
    assert set(reads["server"]) == {"h0"}
    assert (reads["bytes_read"] == 4 << 20).all() and (reads["requests_done"] == 64).all()
    assert (reads["outcome"] == "complete").all()
    assert reads["bytes_read"].dtype == np.int64 and reads["goodput_bps"].dtype == np.float64
    # Per-client throughput over time: the flow_series rows of each flow_id,
    # server to client (the file and a 108-byte header per READ).
    per_flow = res.flow_series.groupby("flow_id")["bytes"].sum()
    assert list(per_flow) == [(4 << 20) + 64 * 108] * 3
    flows = res.flows.set_index("flow_id").loc[reads["flow_id"]]
    assert list(flows["kind"]) == ["nfs_read"] * 3
    assert list(flows["src"]) == ["h0"] * 3
    assert all(math.isclose(a, b) for a, b in zip(flows["end_s"], reads["end_s"], strict=True))


def test_a_run_without_nfs_reads_has_an_empty_reads_table_with_its_types():
    res = fairlab.simulate(fairlab.scenarios.incast(2, rounds=1))
    assert res.reads.empty
    assert res.reads["bytes_read"].dtype == np.int64


def test_a_bad_nfs_read_field_is_one_line_naming_it():
    with pytest.raises(ScenarioError) as e:
        fairlab.simulate(nfs_scenario(outstanding=0))
    assert str(e.value).startswith("workload[0].outstanding: 0 is out of range")
    assert "\n" not in str(e.value)
