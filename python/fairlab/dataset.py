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

import os
import re
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .listing import listing_frame
from .rundir import StoreError, one_line
from .sqltext import literal, quote
from .store_index import Indexed, fingerprint, labels_of
from .store_index import is_error as index_write_error
from .store_index import read as read_index
from .store_index import write as write_index

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


class StoreDB:
    """A store's runs as DuckDB views (see the module's docstring).

    ``con`` is the DuckDB connection (in memory; the store's runs are only
    read), ``sql(query)`` answers a query as a pandas DataFrame, ``runs``
    is the listing the views were made from, ``labels`` the label columns,
    ``views`` each table view's name and how many runs have it, ``damaged``
    one StoreError per run left out.

    ``index``: gather the runs' tables into the store's index
    (``fairlab.store_index``) once at least ``INDEX_MIN_RUNS`` runs are not
    in it yet; False: read every run's own files. ``note`` is told, one
    line, when the index is written (it takes a while the first time).
    """

    #: Runs read from their own files before the index is written anew.
    INDEX_MIN_RUNS = 64

    def __init__(
        self,
        store: Store,
        *,
        verify: bool = False,
        index: bool = True,
        note: Callable[[str], None] | None = None,
    ) -> None:
        import duckdb

        self.store = store
        self.con: duckdb.DuckDBPyConnection = duckdb.connect(":memory:")
        # The bar DuckDB draws on long queries is not fairlab's: off.
        self.con.execute("SET enable_progress_bar = false")
        self.damaged: list[StoreError] = []
        idx = read_index(store.root) if index else None
        runs: dict[str, Indexed] = {}
        fresh: list[str] = []
        for key in store.run_names():
            fp = fingerprint(os.path.join(store.runs_dir, key))
            have = idx.runs.get(key) if idx is not None else None
            if have is not None and fp is not None and have.fingerprint == fp and not verify:
                runs[key] = have
                continue
            try:
                runs[key] = Indexed(fp or "", store.listing_entry(key, full=verify))
            except StoreError as e:
                self.damaged.append(e)
                continue
            fresh.append(key)
        if index and len(fresh) >= self.INDEX_MIN_RUNS:
            if note is not None:
                note(f"indexing {len(fresh):,} runs into {store.root / 'index'} (once; a cache)")
            idx = self._write_index(runs, idx) or idx
        self.index = idx
        #: The runs whose tables the index holds as they are stored now.
        self._served = {
            k
            for k, r in runs.items()
            if idx is not None
            and (i := idx.runs.get(k)) is not None
            and i.fingerprint == r.fingerprint
        }
        # Runs the index holds under another run.json (stored anew): read
        # from their own files, so the index's rows of them must be left out.
        self._stale = idx is not None and any(k in idx.runs and k not in self._served for k in runs)
        keys = sorted(runs)
        self.labels: list[str] = labels_of(runs)
        rows = [row for k in keys for row in runs[k].entry.rows]
        self.runs: pd.DataFrame = listing_frame(rows, self.labels)
        self._register_runs()
        self.views: dict[str, int] = {}
        by_table: dict[str, list[str]] = {}
        for k in keys:
            for t in runs[k].entry.tables:
                by_table.setdefault(t, []).append(k)
        for table in sorted(by_table):
            if table == RUNS_VIEW or table.startswith("_"):
                continue
            self._make_view(table, by_table[table], runs)
            self.views[table] = len(by_table[table])

    def _write_index(self, runs: dict[str, Any], old: Any) -> Any:
        """A new index of ``runs``; a run whose table DuckDB cannot read is
        damaged (left out, listed) and the index written without it. None
        (no index) if the store cannot be written."""
        import duckdb

        for _ in range(len(runs) + 1):
            try:
                return write_index(self.store, self.con, runs, old)
            except duckdb.Error as e:
                err = self.error(e)
                key = _run_of(err, self.store) if isinstance(err, StoreError) else None
                if key is None or key not in runs:
                    if index_write_error(e):
                        return None
                    raise err from None
                self.damaged.append(err)
                del runs[key]
            except OSError:
                return None  # a store we may not write: queried from the runs' files
        return None

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

    def _make_view(self, table: str, keys: list[str], runs: dict[str, Any]) -> None:
        """View ``table`` over that table of the runs ``keys``: those in the
        index from its file, the others from their own (joined to their
        labels by file name)."""
        from .store_index import KEY, read_runs

        idx = self.index
        path = idx.table(table) if idx is not None else None
        in_index = [k for k in keys if k in self._served] if path is not None else []
        own = [k for k in keys if k not in self._served] if in_index else keys
        parts, cols = [], set()
        if in_index:
            q = f"SELECT * FROM read_parquet({literal(str(path))})"
            if self._stale:
                q += f" WHERE {KEY} IN (SELECT key FROM {self._index_keys(in_index)})"
            parts.append(q)
            cols |= _columns(path)  # type: ignore[arg-type]
        if own:
            name = f"_files_{len(self.views)}"
            parts.append(read_runs(self.store, self.con, table, own, runs, name))
            cols |= _columns(self.store.path(own[0]) / f"{table}.parquet")
        params = ", ".join(
            f"p.{quote(c)}" + (f" AS {quote('param_' + c)}" if c in cols and c != _KEY else "")
            for c in self._param_cols
        )
        body = " UNION ALL BY NAME ".join(f"({q})" for q in parts)
        # A run in the index that is no longer stored has no row in _params:
        # the join leaves it out.
        self.con.execute(
            f"CREATE VIEW {quote(table)} AS SELECT {params}, t.* EXCLUDE ({KEY}) "
            f"FROM ({body}) t JOIN _params p ON p.key = t.{KEY}"
        )

    def _index_keys(self, keys: list[str]) -> str:
        """A table of ``keys`` (the runs a view takes from the index)."""
        import pandas as pd

        name = f"_indexed_{len(self.views)}"
        own_df = pd.DataFrame({"key": sorted(keys)}, dtype=object)
        self.con.register("_keys_df", own_df)
        self.con.execute(f"CREATE TABLE {name} AS SELECT * FROM _keys_df")
        self.con.unregister("_keys_df")
        return name

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
            return StoreError(
                m.group(0), f"not a readable Parquet file ({text})", "a Parquet table"
            )
        views = ", ".join([RUNS_VIEW, *self.views])
        return QueryError(f"{text} (views: {views})")

    def __repr__(self) -> str:
        return f"StoreDB({str(self.store.root)!r}: {len(self.runs)} rows in runs)"


def _run_of(err: StoreError, store: Store) -> str | None:
    """The key of the run whose file ``err`` names (None: not a run's)."""
    try:
        rel = err.path.relative_to(store.runs_dir.resolve())
    except ValueError:
        return None
    return rel.parts[0] if rel.parts else None


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
