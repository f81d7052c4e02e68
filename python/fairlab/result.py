"""The result of one run: a summary and pandas tables, writable as Parquet."""

from __future__ import annotations

import errno
import json
import math
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import pandas as pd
    import pyarrow as pa

# pandas and pyarrow are imported where a table is made, so that importing
# fairlab (and the command line's --help and usage errors) does not pay for them.

TABLES = ("flows", "rounds", "ports", "flow_series", "queue_series", "trace", "nic_queues")


class Tables(Mapping[str, "pd.DataFrame"]):
    """A run's tables by name, each made a DataFrame the first time it is read.

    The core hands over Arrow tables; converting all of them to pandas cost
    more than a short simulation itself (an incast sweep's 24 runs: 0.06 of
    0.21 s), and most callers read one or two.
    """

    def __init__(self, tables: Mapping[str, pa.Table | pd.DataFrame]) -> None:
        self._raw = dict(tables)
        self._frames: dict[str, pd.DataFrame] = {}

    def __getitem__(self, name: str) -> pd.DataFrame:
        df = self._frames.get(name)
        if df is None:
            raw = self._raw[name]
            df = raw if _is_dataframe(raw) else _dataframe(raw)
            self._frames[name] = df
        return df

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

    @classmethod
    def from_core(cls, raw: dict[str, Any]) -> Result:
        tables = Tables({name: _arrow_table(cols) for name, cols in raw["tables"].items()})
        summary = dict(raw["summary"])
        # The core's summary holds integers as i64: a seed of 2^63 or more
        # arrives negative. Seeds are unsigned 64-bit.
        if isinstance(summary.get("seed"), int):
            summary["seed"] %= 2**64
        return cls(summary=summary, tables=tables, scenario=json.loads(raw["scenario"]))

    @classmethod
    def from_parquet(cls, directory: str | Path) -> Result:
        """Reads back a run that :meth:`to_parquet` wrote into ``directory``."""
        import pyarrow.parquet as pq

        d = Path(directory)
        if not d.is_dir():
            raise FileNotFoundError(errno.ENOENT, "no such directory", str(d))
        names = [n for n in TABLES if (d / f"{n}.parquet").exists()]
        names += sorted(p.stem for p in d.glob("*.parquet") if p.stem not in TABLES)
        tables = Tables({n: pq.read_table(d / f"{n}.parquet") for n in names})
        return cls(
            summary=json.loads((d / "summary.json").read_text()),
            tables=tables,
            scenario=json.loads((d / "scenario.json").read_text()),
        )

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
    def digest(self) -> str:
        return str(self.summary["digest"])

    def to_parquet(self, directory: str | Path) -> Path:
        """Writes each table as ``<name>.parquet`` plus summary.json and scenario.json."""
        out = Path(directory)
        out.mkdir(parents=True, exist_ok=True)
        for name, df in self.tables.items():
            df.to_parquet(out / f"{name}.parquet", index=False)
        (out / "summary.json").write_text(json.dumps(self.summary, indent=2, default=str) + "\n")
        (out / "scenario.json").write_text(json.dumps(self.scenario, indent=2) + "\n")
        return out

    def summary_text(self) -> str:
        """A human-readable summary, as `fairlab run` prints it."""
        s = self.summary
        lines = [
            f"profile {s['profile']}  seed {s['seed']}  simulated {s['sim_end_s'] * 1e3:.3f} ms"
            f"  events {s['events']:,}  packets {s['packets_sent']:,}  hops {s['packet_hops']:,}",
        ]
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
            lines.append(
                f"flows: {len(f)}; goodput Mb/s min {f['goodput_bps'].min() / 1e6:.1f} "
                f"median {f['goodput_bps'].median() / 1e6:.1f} "
                f"max {f['goodput_bps'].max() / 1e6:.1f}; "
                f"final cwnd (segments of 1460 B) median "
                f"{(f['final_cwnd_bytes'] / 1460).median():.1f} max "
                f"{(f['final_cwnd_bytes'] / 1460).max():.1f}; "
                f"timeouts {int(f['timeouts'].sum())}; longest silence "
                f"{f['longest_silence_s'].max() * 1e3:.3f} ms"
            )
        lines.append(f"digest {s['digest']}")
        return "\n".join(lines)


def _arrow_table(columns: list[tuple[str, str, int, tuple[Any, ...]]]) -> pa.Table:
    """Wraps the core's column buffers as an Arrow table, without copying them."""
    import pyarrow as pa

    types = {"int64": pa.int64(), "float64": pa.float64(), "large_string": pa.large_string()}
    arrays = [
        pa.Array.from_buffers(types[kind], rows, [None, *map(pa.py_buffer, buffers)])
        for _, kind, rows, buffers in columns
    ]
    return pa.Table.from_arrays(arrays, names=[name for name, *_ in columns])


def _dataframe(table: pa.Table) -> pd.DataFrame:
    # Numeric columns are copied once into pandas' own writable blocks (Arrow
    # memory is read-only, and pandas writes in place when nothing else refers
    # to a block); string columns keep Arrow's memory.
    return table.to_pandas()
