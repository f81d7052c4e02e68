"""A results store as one dataset: DuckDB views over every run's tables.

>>> st = fairlab.open_store("sweep-results")               # doctest: +SKIP
>>> st.sql("SELECT buffer, avg(goodput_bps) FROM flows GROUP BY buffer")  # doctest: +SKIP

Views, made when the store is opened for SQL (``Store.dataset``):

``runs``
    one row per run and label set, as ``Store.table()`` lists them: key,
    scenario name, the labels a sweep or study gave the run (its swept
    parameters), fairlab version, and the summary (seed, digest, goodput...).
``<table>`` (flows, rounds, ports, ...)
    that table of every run that has it, each row prefixed by its run's key,
    labels and seed. A run stored under several label sets (one scenario
    and seed reached from two sweep points) shows its rows once per label
    set, as ``runs`` lists it. A label named like one of the table's own
    columns is called ``param_<label>`` in that view.

The tables are not loaded: each view reads the runs' Parquet files when a
query runs (DuckDB's ``read_parquet`` over the list of files), so a store
larger than memory can be queried and only the columns a query names are
read. Damaged runs (``Store.scan``: run.json, JSON files, table sizes; with
``verify`` every file's SHA-256) are left out, and listed in ``damaged``; a
table that passed those checks but is not Parquet after all fails the query
with a StoreError naming the file.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .rundir import StoreError, one_line

if TYPE_CHECKING:
    import duckdb
    import pandas as pd

    from .store import Store

#: The view of the runs themselves; a table of that name is not given a view.
RUNS_VIEW = "runs"
#: Columns every table view starts with besides the labels.
_KEY, _SEED = "key", "seed"


class QueryError(ValueError):
    """A query DuckDB refused (bad SQL, an unknown view or column): one line,
    with the views there are."""


def quote(name: str) -> str:
    """``name`` as an SQL identifier (any text: labels are the user's)."""
    return '"' + name.replace('"', '""') + '"'


def _literal(text: str) -> str:
    return "'" + text.replace("'", "''") + "'"


class StoreDB:
    """A store's runs as DuckDB views (see the module's docstring).

    ``con`` is the DuckDB connection (in memory; the store's files are only
    read), ``sql(query)`` answers a query as a pandas DataFrame, ``runs``
    is the listing the views were made from, ``labels`` the label columns,
    ``views`` each table view's name and how many runs have it, ``damaged``
    one StoreError per run left out.
    """

    def __init__(self, store: Store, *, verify: bool = False) -> None:
        import duckdb

        self.store = store
        listing = store.scan(full=verify, files=True)
        self.damaged: list[StoreError] = listing.damaged
        self.runs: pd.DataFrame = listing.table
        self.labels: list[str] = list(self.runs.attrs.get("labels", []))
        self.con: duckdb.DuckDBPyConnection = duckdb.connect(":memory:")
        # The bar DuckDB draws on long queries is not fairlab's: off.
        self.con.execute("SET enable_progress_bar = false")
        self._register_runs()
        self.views: dict[str, int] = {}
        files = listing.files or {}
        for table in sorted({t for names in files.values() for t in names}):
            if table == RUNS_VIEW or table.startswith("_"):
                continue
            keys = [k for k, names in files.items() if table in names]
            self._make_view(table, keys)
            self.views[table] = len(keys)

    def _register_runs(self) -> None:
        """The listing as table ``_runs`` (view ``runs``); the keys, labels
        and seed of each run and label set as ``_params``, which the table
        views join."""
        df = _duckdb_safe(self.runs)
        if _KEY not in df.columns:  # an empty store: no rows, but the columns
            df = df.assign(key=[], seed=[]).astype({"key": str, "seed": "int64"})
        self.con.register("_runs_df", df)
        self.con.execute("CREATE TABLE _runs AS SELECT * FROM _runs_df")
        self.con.unregister("_runs_df")
        self.con.execute(f"CREATE VIEW {RUNS_VIEW} AS SELECT * FROM _runs")
        cols = [_KEY, *[x for x in self.labels if x not in (_KEY, _SEED)], _SEED]
        self._param_cols = cols
        sel = ", ".join(quote(c) for c in cols)
        self.con.execute(f"CREATE TABLE _params AS SELECT DISTINCT {sel} FROM _runs")

    def _make_view(self, table: str, keys: list[str]) -> None:
        """View ``table`` over that table of the runs ``keys``: their files
        read by name (a run's rows joined to its labels by file name)."""
        paths = [str(self.store.path(k).resolve() / f"{table}.parquet") for k in keys]
        name = f"_files_{len(self.views)}"
        import pandas as pd

        self.con.register("_files_df", pd.DataFrame({"filename": paths, "key": keys}))
        self.con.execute(f"CREATE TABLE {name} AS SELECT * FROM _files_df")
        self.con.unregister("_files_df")
        own = _columns(Path(paths[0]))
        params = ", ".join(
            f"p.{quote(c)}" + (f" AS {quote('param_' + c)}" if c in own and c != _KEY else "")
            for c in self._param_cols
        )
        listing = "[" + ", ".join(_literal(p) for p in paths) + "]"
        self.con.execute(
            f"CREATE VIEW {quote(table)} AS SELECT {params}, t.* EXCLUDE (filename) "
            f"FROM read_parquet({listing}, union_by_name = true, filename = true) t "
            f"JOIN {name} f ON f.filename = t.filename JOIN _params p ON p.key = f.key"
        )

    def sql(self, query: str) -> pd.DataFrame:
        """The answer to ``query`` (DuckDB SQL over the views) as a DataFrame;
        a statement without an answer gives an empty one."""
        import pandas as pd

        rel = self.execute(query)
        return pd.DataFrame() if rel is None else rel.df()

    def execute(self, query: str) -> duckdb.DuckDBPyRelation | None:
        """``query`` as a DuckDB relation (None: a statement without rows).
        Raises QueryError, or StoreError for a table file DuckDB cannot read."""
        import duckdb

        try:
            return self.con.sql(query)
        except duckdb.Error as e:
            raise self.error(e) from None

    def error(self, e: Exception) -> Exception:
        """DuckDB's exception as ours: a run's table it could not read is a
        StoreError naming the file, anything else a QueryError."""
        text = one_line(str(e), 400)
        m = re.search(re.escape(str(self.store.runs_dir.resolve())) + r"/[^\s\"']+\.parquet", text)
        if m and not isinstance(e, _catalog_errors()):
            return StoreError(m.group(0), f"not a readable Parquet file ({text})", "a Parquet table")
        views = ", ".join([RUNS_VIEW, *self.views])
        return QueryError(f"{text} (views: {views})")

    def __repr__(self) -> str:
        return f"StoreDB({str(self.store.root)!r}: {len(self.runs)} rows in runs)"


def _catalog_errors() -> tuple[type[Exception], ...]:
    import duckdb

    return (duckdb.CatalogException, duckdb.BinderException, duckdb.ParserException)


def _columns(path: Path) -> set[str]:
    """The column names of one Parquet file (its footer only); none if it
    cannot be read (the query will say which file)."""
    import pyarrow.parquet as pq

    try:
        return set(pq.read_schema(path).names)
    except Exception:  # noqa: BLE001  (pyarrow's many error types; reported by the query)
        return set()


def _duckdb_safe(df: pd.DataFrame) -> pd.DataFrame:
    """Object columns mixing kinds of value (a label "baseline" among
    numbers) as text, so that DuckDB gives the column one type."""
    out = df.copy()
    for c in out.columns:
        if out[c].dtype == object:
            kinds = {type(x) for x in out[c] if x is not None}
            if len(kinds) > 1:
                out[c] = out[c].map(lambda x: None if x is None else str(x))
    return out


def describe(db: StoreDB) -> dict[str, Any]:
    """What the dataset holds, for a summary: runs, damaged runs, labels
    with their distinct values, views with their run counts."""
    values = {}
    for lab in db.labels:
        if lab in db.runs:
            vals = list(dict.fromkeys(db.runs[lab].dropna().tolist()))
            values[lab] = vals
    return {
        "runs": int(db.runs[_KEY].nunique()) if _KEY in db.runs else 0,
        "rows": len(db.runs),
        "damaged": len(db.damaged),
        "labels": values,
        "views": dict(db.views),
    }
