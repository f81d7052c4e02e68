"""The result of one run: a summary and pandas tables, writable as Parquet."""

from __future__ import annotations

import errno
import json
import math
import os
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .rundir import (
    StoreError,
    manifest,
    one_line,
    pcap_file_names,
    read_run,
    read_table_bytes,
    run_key,
    write_run_dir,
)

if TYPE_CHECKING:
    import pandas as pd
    import pyarrow as pa

# pandas and pyarrow are imported where a table is made, so that importing
# fairlab (and the command line's --help and usage errors) does not pay for them.

TABLES = (
    "flows",
    "rounds",
    "ports",
    "flow_series",
    "queue_series",
    "trace",
    "nic_queues",
    "paths",
    "port_inputs",
    "drop_runs",
    "flow_drop_runs",
    "drop_trace",
    "reads",
)

# The three lists below copy the core's (crates/fairlab-sim/src/metrics/mod.rs):
# _core does not export them yet (issue 20, item 5: contracts exported from
# _core instead of copied); when it does, take them from there.
# Tables the summary's digest leaves out (metrics::NOT_DIGESTED): added after
# digests were first recorded, so that every run's digest stayed the same.
NOT_DIGESTED = ("paths", "port_inputs", "drop_runs", "flow_drop_runs", "drop_trace")
# Columns it leaves out, by (table, column) (metrics::NOT_DIGESTED_COLUMNS): the
# ports table's shaper columns, added with port shapers; the nic_queues table's
# root qdisc columns, added with root qdiscs.
NOT_DIGESTED_COLUMNS = (
    ("ports", "shaper"),
    ("ports", "shaper_waits"),
    ("nic_queues", "requeues"),
    ("nic_queues", "root_stall_s"),
    ("nic_queues", "root_stalled"),
)
# Tables it covers only when they have rows (metrics::DIGESTED_WHEN_NONEMPTY):
# the reads table of NFS reads, a workload no earlier run had.
DIGESTED_WHEN_NONEMPTY = ("reads",)


class Tables(Mapping[str, "pd.DataFrame"]):
    """A run's tables by name, each made a DataFrame the first time it is read.

    The core hands over Arrow tables; converting all of them to pandas cost
    more than a short simulation itself (an incast sweep's 24 runs: 0.06 of
    0.21 s), and most callers read one or two. A table may also be given as a
    function that returns it (a stored run's Parquet, read when first used).
    """

    def __init__(
        self, tables: Mapping[str, pa.Table | pd.DataFrame | Callable[[], pa.Table]]
    ) -> None:
        self._raw = dict(tables)
        self._frames: dict[str, pd.DataFrame] = {}

    def __getitem__(self, name: str) -> pd.DataFrame:
        df = self._frames.get(name)
        if df is None:
            raw = self.arrow(name)
            df = raw if _is_dataframe(raw) else _dataframe(raw)
            self._frames[name] = df
        return df

    def arrow(self, name: str) -> pa.Table | pd.DataFrame:
        """Table ``name`` as the core or the file gave it (Arrow), unconverted."""
        raw = self._raw[name]
        if callable(raw):
            raw = self._raw[name] = raw()
        return raw

    def num_rows(self, name: str) -> int | None:
        """Rows of table ``name`` without reading it: from the Arrow table or
        DataFrame in memory, or a stored file's Parquet footer; None if that
        cannot be read (the table's own read says why)."""
        raw = self._frames.get(name)
        if raw is None:
            raw = self._raw[name]
        if _is_dataframe(raw):
            return len(raw)
        if not callable(raw):
            return raw.num_rows
        path = getattr(raw, "path", None)
        if path is None:
            return None
        import pyarrow.parquet as pq

        try:
            return pq.ParquetFile(path).metadata.num_rows
        except Exception:  # noqa: BLE001  (pyarrow's many error types)
            return None

    def __iter__(self) -> Iterator[str]:
        return iter(self._raw)

    def __len__(self) -> int:
        return len(self._raw)

    def __repr__(self) -> str:
        return f"Tables({list(self._raw)})"


def _is_dataframe(x: object) -> bool:
    return type(x).__name__ == "DataFrame" and hasattr(x, "iloc")


@dataclass
class Result:
    """What one simulation measured (see docs/binding.md for every column)."""

    summary: dict[str, Any]
    tables: Mapping[str, pd.DataFrame] = field(repr=False)
    scenario: dict[str, Any] = field(repr=False)
    #: The run's files once encoded (see ``files``).
    _files: dict[str, bytes] | None = field(default=None, repr=False, compare=False)
    #: Packet captures (``[metrics] pcap``): a libpcap file per point, by the
    #: point's name (``"sw:h0"``, ``"h3"``); empty unless asked.
    pcap: dict[str, bytes] = field(default_factory=dict, repr=False, compare=False)

    @classmethod
    def from_core(cls, raw: dict[str, Any]) -> Result:
        tables = Tables({name: _arrow_table(cols) for name, cols in raw["tables"].items()})
        summary = dict(raw["summary"])
        # The core's summary holds integers as i64: a seed of 2^63 or more
        # arrives negative. Seeds are unsigned 64-bit.
        if isinstance(summary.get("seed"), int):
            summary["seed"] %= 2**64
        return cls(
            summary=summary,
            tables=tables,
            scenario=json.loads(raw["scenario"]),
            pcap=dict(raw.get("pcap", {})),
        )

    @classmethod
    def from_parquet(cls, directory: str | Path) -> Result:
        """Reads back a run that :meth:`to_parquet` wrote into ``directory``, or a
        stored run (``STORE/runs/<key>``); tables are read when first used.

        run.json, summary.json and scenario.json are read and checked now,
        each table file's size too; a table's bytes are checked against
        run.json when it is read. Damage raises ``StoreError`` (one line: the
        file, what is wrong, what was expected); a missing directory
        FileNotFoundError."""
        d = Path(directory)
        if not os.path.lexists(d):
            raise FileNotFoundError(errno.ENOENT, "no such directory", str(d))
        docs = read_run(d, full=False)
        if docs.manifest is not None:
            listed = docs.manifest["files"]
            found = [n[: -len(".parquet")] for n in listed if n.endswith(".parquet")]
        else:
            listed = {}
            found = [p.stem for p in d.glob("*.parquet") if p.name[0] != "."]
        names = sorted(found, key=lambda n: (_order(n), n))
        tables = Tables(
            {n: _stored_reader(d / f"{n}.parquet", listed.get(f"{n}.parquet")) for n in names}
        )
        return cls(summary=docs.summary, tables=tables, scenario=docs.scenario)

    @classmethod
    def from_files(cls, files: Mapping[str, bytes]) -> Result:
        """A run from its files' contents (:meth:`files`, or :meth:`transfer_files`
        with ``<table>.arrow`` in Arrow IPC); tables decoded when first used."""
        tables: dict[str, Callable[[], pa.Table]] = {}
        for n in sorted(files, key=lambda n: (_order(n.rsplit(".", 1)[0]), n)):
            base, _, ext = n.rpartition(".")
            if ext == "parquet":
                tables[base] = _parquet_reader(files[n])
            elif ext == "arrow":
                tables[base] = _ipc_reader(files[n])
        scenario = json.loads(files["scenario.json"])
        # The captures, by point: their file names follow from the scenario's.
        points = (scenario.get("metrics") or {}).get("pcap") or []
        pcap = {p: files[n] for p, n in pcap_file_names(points).items() if n in files}
        res = cls(
            summary=json.loads(files["summary.json"]),
            tables=Tables(tables),
            scenario=scenario,
            pcap=pcap,
        )
        if all(not n.endswith(".arrow") for n in files):
            res._files = dict(files)
        return res

    @property
    def flows(self) -> pd.DataFrame:
        return self.tables["flows"]

    @property
    def rounds(self) -> pd.DataFrame:
        return self.tables["rounds"]

    @property
    def ports(self) -> pd.DataFrame:
        return self.tables["ports"]

    @property
    def flow_series(self) -> pd.DataFrame:
        return self.tables["flow_series"]

    @property
    def queue_series(self) -> pd.DataFrame:
        return self.tables["queue_series"]

    @property
    def trace(self) -> pd.DataFrame:
        return self.tables["trace"]

    @property
    def paths(self) -> pd.DataFrame:
        """One row per flow: its hops (``a0>s0>recv``), way back and round
        trip without queueing (docs/scenario.md, "The paths table")."""
        return self.tables["paths"]

    @property
    def port_inputs(self) -> pd.DataFrame:
        """One row per switch output port and input port that reached it:
        arrivals, drops and the runs of consecutive drops that hit it
        (docs/binding.md)."""
        return self.tables["port_inputs"]

    @property
    def drop_runs(self) -> pd.DataFrame:
        """Per switch output port, the histogram of runs of consecutive drops:
        whole port (``input == "*"``) and per input port hit."""
        return self.tables["drop_runs"]

    @property
    def flow_drop_runs(self) -> pd.DataFrame:
        """Per flow direction and port, the histogram of the flow's own runs
        of consecutive drops."""
        return self.tables["flow_drop_runs"]

    @property
    def drop_trace(self) -> pd.DataFrame:
        """Every arrival at the port ``[metrics] drop_trace`` names, admitted
        or dropped (no rows unless asked)."""
        return self.tables["drop_trace"]

    @property
    def reads(self) -> pd.DataFrame:
        """One row per client of an ``nfs_read`` workload: file bytes read,
        READs sent and answered, when its file ended, its goodput; ``flow_id``
        joins its flows and flow_series rows (docs/binding.md)."""
        return self.tables["reads"]

    @property
    def digest(self) -> str:
        return str(self.summary["digest"])

    def files(self) -> dict[str, bytes]:
        """The run's files, as :meth:`to_parquet` writes them: ``<table>.parquet``
        for every table, ``summary.json``, ``scenario.json``, and a ``.pcap``
        per capture point (``rundir.pcap_file_names``).

        The same run always gives the same bytes (the store relies on it)."""
        if self._files is None:
            files = {f"{name}.parquet": _parquet_bytes(self.tables, name) for name in self.tables}
            files["summary.json"] = (
                json.dumps(self.summary, indent=2, default=str) + "\n"
            ).encode()
            files["scenario.json"] = (json.dumps(self.scenario, indent=2) + "\n").encode()
            for point, name in pcap_file_names(self.pcap).items():
                files[name] = self.pcap[point]
            self._files = files
        return self._files

    def transfer_files(self) -> dict[str, bytes]:
        """The run as :meth:`files`, but each table as ``<table>.arrow`` (Arrow IPC):
        how a worker hands a run it does not store to another process."""
        import pyarrow as pa

        files = {}
        for name in self.tables:
            raw = self.tables.arrow(name) if isinstance(self.tables, Tables) else None
            if raw is None or _is_dataframe(raw):
                raw = pa.Table.from_pandas(self.tables[name], preserve_index=False)
            sink = pa.BufferOutputStream()
            with pa.ipc.new_file(sink, raw.schema) as w:
                w.write_table(raw)
            files[f"{name}.arrow"] = sink.getvalue().to_pybytes()
        files["summary.json"] = (json.dumps(self.summary, indent=2, default=str) + "\n").encode()
        files["scenario.json"] = (json.dumps(self.scenario, indent=2) + "\n").encode()
        for point, name in pcap_file_names(self.pcap).items():
            files[name] = self.pcap[point]
        return files

    def to_parquet(self, directory: str | Path, labels: Mapping[str, Any] | None = None) -> Path:
        """Writes the run into ``directory``: each table as ``<name>.parquet``,
        summary.json, scenario.json, and last run.json (fairlab version, seed,
        store key, ``labels``, each file's size and SHA-256). Each file is
        written to a temporary name, fsynced and renamed into place."""
        from . import _core

        files = self.files()
        seed = int(self.summary["seed"])
        version = _core.__version__
        key = run_key(json.dumps(self.scenario), seed, version)
        run_json = manifest(files, key=key, seed=seed, version=version, labels=[dict(labels or {})])
        return write_run_dir(directory, files, run_json)

    def tcp_text(self) -> str:
        """The TCP the run actually used (after profile and per-workload
        settings): congestion control, SACK and MSS, e.g. ``TCP newreno,
        SACK off, MSS 1000 B``; empty when the run had no TCP flow."""
        s = self.summary
        if not s.get("tcp"):
            return ""
        text = f"TCP {s['tcp']}, SACK {s['sack']}"
        f = self.flows
        if "mss_bytes" in f and len(f):
            mss = sorted({int(m) for m in f["mss_bytes"]})
            text += ", MSS " + "/".join(map(str, mss)) + " B"
        return text

    def summary_text(self) -> str:
        """A human-readable summary, as `fairlab run` prints it."""
        s = self.summary
        lines = [
            f"profile {s['profile']}  seed {s['seed']}  simulated {s['sim_end_s'] * 1e3:.3f} ms"
            f"  events {s['events']:,}  packets {s['packets_sent']:,}  hops {s['packet_hops']:,}",
        ]
        tcp = self.tcp_text()
        if tcp:
            lines.append(tcp)
        g = s.get("incast_goodput_bps", math.nan)
        if isinstance(g, float) and not math.isnan(g):
            lines.append(
                f"incast goodput {g / 1e6:.1f} Mb/s over {s['rounds_completed']} rounds, "
                f"{s['total_timeouts']} retransmission timeouts"
            )
        if s.get("hcf_memory_bits", 0):
            lines.append(f"HCF credit bins need {s['hcf_memory_bits']} bits per port")
        if s.get("udp_sent", 0):
            lines.append(f"UDP datagrams: {s['udp_delivered']:,} delivered of {s['udp_sent']:,}")
        sw = self.ports[self.ports["node_kind"] == "switch"]
        if len(sw):
            lines.append(
                "switch ports (node -> peer: limit, mean and max queue, drops, ECN marks, "
                "reordered):"
            )
            for _, p in sw.iterrows():
                lines.append(
                    f"  {p['node']} -> {p['peer']}: {p['limit']}, mean {p['avg_pkts']:.1f} pkts, "
                    f"max {p['max_pkts']} pkts ({p['max_bytes']} B), dropped {p['drop_pkts']} of "
                    f"{p['enq_pkts'] + p['drop_pkts']}, marked {p['mark_pkts']}, "
                    f"reordered {p['reordered_pkts']}"
                )
        f = self.flows
        if len(f):
            cwnd = _cwnd_segments(f)
            lines.append(
                f"flows: {len(f)}; goodput Mb/s min {f['goodput_bps'].min() / 1e6:.1f} "
                f"median {f['goodput_bps'].median() / 1e6:.1f} "
                f"max {f['goodput_bps'].max() / 1e6:.1f}; "
                f"final cwnd (segments of the flow's MSS) median {cwnd.median():.1f} "
                f"max {cwnd.max():.1f}; "
                f"timeouts {int(f['timeouts'].sum())}; longest silence "
                f"{f['longest_silence_s'].max() * 1e3:.3f} ms"
            )
        lines.extend(self._radon_lines())
        lines.append(f"digest {s['digest']}")
        return "\n".join(lines)

    def _radon_lines(self) -> list[str]:
        """Radon streams in the seed's columns, and the network-calculus
        check of every port they cross (docs/radon.md)."""
        if "streams" not in self.tables:
            return []
        st = self.tables["streams"]
        lines = [
            "Radon streams (src -> dst: send Mb/s, received, lost %, receive Mb/s, "
            "receive wire Mb/s, mean wait us):"
        ]
        for _, r in st.iterrows():
            if not r["admitted"]:
                lines.append(f"  {r['src']} -> {r['dst']}: refused at {r['refused_at']}")
                continue
            lines.append(
                f"  {r['src']} -> {r['dst']}: {r['send_rate_mbps']:.3f}, {r['num_recv']:,} of "
                f"{r['num_sent']:,}, {r['pct_lost']:.2f} %, {r['recv_rate_mbps']:.3f}, "
                f"{r['recv_wire_rate_mbps']:.3f}, {r['mean_wait_us']:.1f}"
            )
        b = self.tables.get("port_bounds")
        if b is not None and len(b):
            counts = b["status"].value_counts().to_dict()
            lines.append(
                f"network-calculus bounds: {len(b)} ports, "
                + ", ".join(f"{n} {k}" for k, n in sorted(counts.items()))
            )
            for _, r in b[b["status"] == "violated"].iterrows():
                lines.append(
                    f"  VIOLATED {r['port']}: backlog {r['max_backlog_bytes']:.0f} B "
                    f"(bound {r['backlog_bound_bytes']:.0f} B), delay {r['max_delay_us']:.3f} us "
                    f"(bound {r['delay_bound_us']:.3f} us)"
                )
        return lines

    def _repr_html_(self) -> str:
        """Jupyter's view: the summary, the tables and each flow's goodput."""
        from .display import result_html

        return result_html(self)

    def bound_violations(self) -> int:
        """Ports whose simulated backlog or delay exceeded its network-calculus
        bound (0 without Radon streams)."""
        return int(self.summary.get("bound_violations", 0) or 0)


def _cwnd_segments(flows: pd.DataFrame) -> pd.Series:
    """Each flow's final cwnd in segments of its own MSS (runs stored before
    the flows table had ``mss_bytes``: 1460 B)."""
    mss = flows.get("mss_bytes", 1460)
    return flows["final_cwnd_bytes"] / mss


def _arrow_table(columns: list[tuple[str, str, int, tuple[Any, ...]]]) -> pa.Table:
    """Wraps the core's column buffers as an Arrow table, without copying them."""
    import pyarrow as pa

    types = {"int64": pa.int64(), "float64": pa.float64(), "large_string": pa.large_string()}
    arrays = [
        pa.Array.from_buffers(types[kind], rows, [None, *map(pa.py_buffer, buffers)])
        for _, kind, rows, buffers in columns
    ]
    return pa.Table.from_arrays(arrays, names=[name for name, *_ in columns])


def _parquet_reader(source: Path | bytes) -> Callable[[], pa.Table]:
    """A function that reads one table from a Parquet file or its bytes."""

    def read() -> pa.Table:
        import pyarrow as pa
        import pyarrow.parquet as pq

        src = pa.BufferReader(source) if isinstance(source, bytes) else str(source)
        # ParquetFile.read: a fifth of read_table's cost on small tables (no dataset layer).
        return pq.ParquetFile(src).read(use_threads=False)

    return read


def _stored_reader(path: Path, want: Mapping[str, Any] | None) -> Callable[[], pa.Table]:
    """A function that reads one table of a run on disk: a bounded read of a
    regular file, checked against its run.json entry ``want``, then parsed.
    Anything the Parquet reader raises on it (ArrowInvalid, a thrift error,
    an allocation failure) is a damaged file, one line."""

    def read() -> pa.Table:
        data = read_table_bytes(path, want)
        try:
            return _parquet_reader(data)()
        except Exception as e:  # noqa: BLE001  (pyarrow's many error types)
            text = one_line(e) or type(e).__name__
            raise StoreError(
                path, f"not a readable Parquet file ({text})", "a Parquet table"
            ) from None

    read.path = path  # type: ignore[attr-defined]  (Tables.num_rows reads its footer)
    return read


def _ipc_reader(data: bytes) -> Callable[[], pa.Table]:
    """A function that reads one table from Arrow IPC file bytes."""

    def read() -> pa.Table:
        import pyarrow as pa

        return pa.ipc.open_file(pa.BufferReader(data)).read_all()

    return read


def _order(name: str) -> int:
    """Tables in the core's order, others after."""
    return TABLES.index(name) if name in TABLES else len(TABLES)


def _parquet_bytes(tables: Mapping[str, Any], name: str) -> bytes:
    """One table as Parquet bytes, from its Arrow form when it has one."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    raw = tables.arrow(name) if isinstance(tables, Tables) else tables[name]
    if _is_dataframe(raw):
        raw = pa.Table.from_pandas(raw, preserve_index=False)
    empty = raw.num_rows == 0
    if empty and raw.schema in _EMPTY_PARQUET:
        return _EMPTY_PARQUET[raw.schema]
    sink = pa.BufferOutputStream()
    if raw.num_rows <= SMALL_TABLE:
        # Statistics, dictionaries and compression save nothing on a few rows
        # and cost a third of the encoding (a 16-server incast's three tables:
        # 1.0 -> 0.7 ms).
        pq.write_table(raw, sink, write_statistics=False, use_dictionary=False, compression="none")
    else:
        pq.write_table(raw, sink)
    data = sink.getvalue().to_pybytes()
    if empty:
        _EMPTY_PARQUET[raw.schema] = data
    return data


#: Tables of at most this many rows are written without statistics,
#: dictionaries or compression.
SMALL_TABLE = 1000

#: Parquet bytes of a table without rows, by schema: most runs have four such
#: tables (series, trace, NIC queues), and their bytes never change (0.2 ms each).
_EMPTY_PARQUET: dict[Any, bytes] = {}


def _dataframe(table: pa.Table) -> pd.DataFrame:
    # Numeric columns are copied once into pandas' own writable blocks (Arrow
    # memory is read-only, and pandas writes in place when nothing else refers
    # to a block); string columns keep Arrow's memory.
    return table.to_pandas()
