"""`fairlab results DIR --sql QUERY`: one SQL query over every run of a
store (fairlab.dataset), printed, as CSV, or exported to CSV or Parquet."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

from .common import UsageError

#: Rows of an answer printed as a table; more are counted, not shown
#: (--format csv or --export give them all).
SHOWN_ROWS = 100
#: Rows fetched at a time when an answer is streamed as CSV.
BATCH_ROWS = 65_536


def cmd_sql(root: Path, query: str, *, export: str | None, fmt: str) -> int:
    """Answers ``query`` over the store ``root``: damaged runs named on
    stderr (one line each) and left out."""
    from ..dataset import QueryError, StoreDB
    from ..store import Store

    if not query.strip():
        raise UsageError("--sql: an empty query; expected a statement such as SELECT * FROM runs")
    try:
        import duckdb  # noqa: F401  (a dependency; an older install may lack it)
    except ImportError:
        raise UsageError("--sql: needs the duckdb package (pip install duckdb)") from None
    db = StoreDB(
        Store(root, create=False), note=lambda text: print(f"fairlab: {text}", file=sys.stderr)
    )
    for e in db.damaged:
        print(f"fairlab: damaged run left out: {e}", file=sys.stderr)
    try:
        if export is not None:
            n = _export(db, query, export)
            print(f"{n} rows written to {export}", file=sys.stderr)
            return 0
        rel = db.execute(query)
        if rel is None:
            return 0
        if fmt == "csv":
            _stream_csv(db, rel)
        else:
            _print_table(db, rel)
    except QueryError as e:
        raise UsageError(f"--sql: {e}") from None
    return 0


def _fetch(db: Any, fn: Any) -> Any:
    """``fn()``, which runs the query: DuckDB's errors then (a table file it
    cannot read, a value it cannot convert) as the dataset's."""
    import duckdb

    try:
        return fn()
    except duckdb.Error as e:
        raise db.error(e) from None


def _export(db: Any, query: str, out: str) -> int:
    """Writes the answer with DuckDB's COPY (streamed: an answer larger
    than memory is fine) into ``out``; returns the number of rows."""
    from ..sqltext import literal

    body = query.strip().rstrip(";").strip()
    fmt = "PARQUET" if out.endswith(".parquet") else "CSV, HEADER"
    tmp = Path(out).with_name(f".{Path(out).name}.tmp")
    copy = f"COPY ({body}) TO {literal(str(tmp))} (FORMAT {fmt})"
    try:
        row = _fetch(db, lambda: db.con.execute(copy).fetchone())
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    tmp.replace(out)
    return int(row[0]) if row else 0


def _stream_csv(db: Any, rel: Any) -> None:
    reader = _fetch(db, lambda: rel.to_arrow_reader(BATCH_ROWS))
    header = True
    while True:
        try:
            batch = _fetch(db, reader.read_next_batch)
        except StopIteration:
            break
        # Every digit: the answer is data for another tool, not a display.
        batch.to_pandas().to_csv(sys.stdout, index=False, header=header)
        header = False
    if header:  # no rows: the header alone
        print(",".join(rel.columns))


def _print_table(db: Any, rel: Any) -> None:
    df = _fetch(db, lambda: rel.limit(SHOWN_ROWS + 1).df())
    if not len(df):
        print("(no rows)")
        return
    more = len(df) > SHOWN_ROWS
    print(df.head(SHOWN_ROWS).to_string(index=False, float_format=lambda x: f"{x:.6g}"))
    if more:
        print(
            f"(first {SHOWN_ROWS} rows; --format csv or --export FILE.csv|.parquet for all)",
            file=sys.stderr,
        )
