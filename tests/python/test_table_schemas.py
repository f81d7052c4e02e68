"""The emulated backends' tables (fairlab.emu.tables, which the ns-2 reader
uses too) have exactly the simulator's columns, in its order and types.

The simulator's collectors name their columns only when they build a table,
so the schemas are read off a run: every collector gives its table in every
run, empty where nothing was measured, with its columns typed.
"""

from __future__ import annotations

import fairlab
import pytest
from fairlab import scenarios
from fairlab.emu import tables as tb

#: The simulator's tables the other backends write, with their schemas.
EMULATED = {
    "flows": tb.FLOW_COLUMNS,
    "rounds": tb.ROUND_COLUMNS,
    "ports": tb.PORT_COLUMNS,
    "flow_series": tb.FLOW_SERIES_COLUMNS,
    "queue_series": tb.QUEUE_SERIES_COLUMNS,
    "trace": tb.TRACE_COLUMNS,
    "nic_queues": tb.NIC_QUEUE_COLUMNS,
    "drop_trace": tb.DROP_TRACE_COLUMNS,
    "port_inputs": tb.PORT_INPUT_COLUMNS,
    "drop_runs": tb.DROP_RUN_COLUMNS,
    "flow_drop_runs": tb.FLOW_DROP_RUN_COLUMNS,
}
#: The simulator's tables only it writes (the routed paths; NFS reads).
SIMULATOR_ONLY = {"paths", "reads"}


def _kind(dtype) -> str:
    return {"i": "i", "u": "i", "f": "f"}.get(dtype.kind, "s")


@pytest.fixture(scope="module")
def simulated():
    sc = scenarios.incast(4, rounds=3, buffer="16KiB")
    sc["metrics"] = {
        "throughput_bin": "1ms",
        "queue_sample": "100us",
        "trace": True,
        "drop_trace": "sw:client",
    }
    res = fairlab.simulate(sc, seed=1)
    return {name: [(c, _kind(df[c].dtype)) for c in df.columns] for name, df in res.tables.items()}


def test_every_simulator_table_is_emulated_or_named_simulator_only(simulated):
    assert set(simulated) == set(EMULATED) | SIMULATOR_ONLY


@pytest.mark.parametrize("name", sorted(EMULATED))
def test_emulated_schema_is_the_simulators(simulated, name):
    assert list(EMULATED[name].items()) == simulated[name]
