"""Result tables cross from Rust as Arrow memory: exact bits, exact types,
writable DataFrames, and a Parquet round trip that keeps both."""

import json
import math
import struct

import fairlab
import numpy as np
import pandas as pd
import pytest
from fairlab import _core, scenarios
from fairlab.result import DIGESTED_WHEN_NONEMPTY, NOT_DIGESTED, NOT_DIGESTED_COLUMNS, Result


def fnv1a(h: int, data: bytes) -> int:
    for b in data:
        h = ((h ^ b) * 0x100000001B3) & 0xFFFFFFFFFFFFFFFF
    return h


def python_digest(tables: dict[str, pd.DataFrame]) -> str:
    """The simulator's digest (metrics::Table::hash_into), recomputed from the
    DataFrames: it matches only if every value arrived bit for bit, with its type.
    The paths and drop tables are not in the digest (NOT_DIGESTED), nor the
    ports table's shaper columns (NOT_DIGESTED_COLUMNS), nor the reads table
    without rows (DIGESTED_WHEN_NONEMPTY)."""
    h = 0xCBF29CE484222325
    for name, df in tables.items():
        if name in NOT_DIGESTED or (name in DIGESTED_WHEN_NONEMPTY and len(df) == 0):
            continue
        h = fnv1a(h, name.encode())
        for col in df.columns:
            if (name, col) in NOT_DIGESTED_COLUMNS:
                continue
            h = fnv1a(h, col.encode())
            s = df[col]
            if s.dtype == np.int64:
                h = fnv1a(h, s.to_numpy().astype("<i8").tobytes())
            elif s.dtype == np.float64:
                h = fnv1a(h, s.to_numpy().astype("<f8").tobytes())
            else:
                assert pd.api.types.is_string_dtype(s.dtype), (name, col, s.dtype)
                h = fnv1a(h, b"".join(v.encode() + b"\0" for v in s))
    return f"{h:016x}"


def unicode_incast() -> dict:
    """Every table has rows, and host names need more than one UTF-8 byte."""
    sc = scenarios.incast(2, rounds=2, sru="16KiB")
    sc["topology"]["hosts"] = ["clïent", "sérveur-1", "服务器-2"]
    sc["workload"][0]["client"] = "clïent"
    sc["metrics"] = {
        "throughput_bin": "1ms",
        "queue_sample": "50us",
        "trace": True,
        "drop_trace": "sw:clïent",
    }
    sc["host"] = {"nic_queues": 2}  # rows in the NIC transmit-queue table
    sc["queue"] = {"limit": "6pkt"}  # drops: rows in the drop tables
    # A client reading from a server: rows in the reads table.
    sc["workload"].append(
        {"kind": "nfs_read", "server": "服务器-2", "client": "clïent", "file_size": "100KiB"}
    )
    return sc


def test_tables_carry_the_bits_the_simulator_hashed():
    res = fairlab.simulate(unicode_incast())
    assert all(len(df) for df in res.tables.values())
    assert "服务器-2" in set(res.flows["src"]) and "clïent" in set(res.queue_series["peer"])
    assert python_digest(res.tables) == res.digest


def test_empty_tables_keep_their_column_types():
    res = fairlab.simulate(scenarios.incast(2, rounds=1))
    assert res.trace.empty and res.queue_series.empty and res.flow_series.empty
    assert res.trace["cwnd_bytes"].dtype == np.int64
    assert res.trace["srtt_s"].dtype == np.float64
    assert res.flow_series["flow_id"].dtype == np.int64
    assert pd.api.types.is_string_dtype(res.queue_series["node"].dtype)
    assert res.queue_series["pkts"].dtype == np.int64


def test_core_hands_over_read_only_arrow_buffers():
    raw = _core.simulate_json(json.dumps(unicode_incast()))
    kinds = set()
    for columns in raw["tables"].values():
        for _name, kind, rows, buffers in columns:
            kinds.add(kind)
            views = [memoryview(b) for b in buffers]
            assert all(v.readonly for v in views)
            if kind == "large_string":
                offsets = struct.unpack(f"<{rows + 1}q", views[0])
                assert offsets[0] == 0 and offsets[-1] == views[1].nbytes
                views[1].tobytes().decode()  # valid UTF-8
            else:
                assert kind in ("int64", "float64") and views[0].nbytes == 8 * rows
            with pytest.raises(TypeError):
                views[0][:1] = b"\0"
    assert kinds == {"int64", "float64", "large_string"}


def test_result_tables_can_be_changed_in_place():
    raw = _core.simulate_json(json.dumps(unicode_incast()))
    res = Result.from_core(raw)
    name, kind, rows, (buf,) = raw["tables"]["queue_series"][0]
    assert (name, kind) == ("t_s", "float64") and rows == len(res.queue_series)
    core = np.frombuffer(buf, dtype=np.float64).copy()
    res.queue_series.loc[0, "t_s"] = -1.0
    res.flows["goodput_bps"] /= 1e6
    assert res.queue_series["t_s"].iloc[0] == -1.0
    assert np.array_equal(np.frombuffer(buf, dtype=np.float64), core)


def test_load_reads_back_what_to_parquet_wrote(tmp_path):
    res = fairlab.simulate(scenarios.incast(2, rounds=1))  # trace and series without rows
    back = fairlab.load(res.to_parquet(tmp_path / "run"))
    assert list(back.tables) == list(res.tables)
    for name, df in res.tables.items():
        pd.testing.assert_frame_equal(back.tables[name], df, check_exact=True)
    assert back.scenario == res.scenario
    assert back.summary.keys() == res.summary.keys()
    for k, v in res.summary.items():
        assert back.summary[k] == v or (isinstance(v, float) and math.isnan(v))


def test_load_of_a_missing_directory_names_it(tmp_path):
    with pytest.raises(FileNotFoundError, match="nowhere"):
        fairlab.load(tmp_path / "nowhere")
