"""The dataset's index: every run's tables gathered into one Parquet file
per table, so that a query over 10,000 runs reads a few files, not 130,000.

Reading a small Parquet file costs about a millisecond whatever its size
(open, footer, schema), so a query over every run's flows table of a
10,000-run store spent some 6 to 15 s on the files alone. The index is a
cache, derived from the runs and never the only copy: removing ``STORE/index``
loses nothing, and a store that cannot be written is queried without it.

Layout::

    STORE/index/CURRENT          the generation in use (its directory's name)
    STORE/index/<gen>/<table>.parquet   that table of every indexed run, each
                                 row with its run's key (column ``__run_key``)
    STORE/index/<gen>/runs.parquet      per run: the fingerprint of its
                                 run.json, its listing rows, labels, tables
    STORE/index/<gen>/index.json written last: size and SHA-256 of each file

A run is taken from the index while its run.json is the one indexed: same
size, modification time and inode (the store never changes a run in place:
``add_labels`` and a repaired run write a new run.json). Any other run is read
from its own files, and checked as ``Store.scan`` checks it. A new generation
is written beside the old one and named in CURRENT by an atomic rename, so a
reader never sees half an index; generations no longer current are removed
an hour later (a session holding views on one keeps working meanwhile).
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import shutil
import time
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .listing import RunEntry
from .rundir import JSON_MAX_BYTES, MANIFEST, StoreError, parse_json, read_bounded
from .sqltext import literal

if TYPE_CHECKING:
    import duckdb

    from .store import Store

FORMAT = 1
DIR = "index"
CURRENT = "CURRENT"
RUNS = "runs.parquet"
DOC = "index.json"
KEY = "__run_key"
#: How long a generation no longer current is kept (seconds).
KEEP_OLD_S = 3600.0


def fingerprint(run_dir: str) -> str | None:
    """Size, modification time and inode of a run's run.json (None if it
    cannot be examined: the run is then read and checked in full)."""
    try:
        st = os.stat(os.path.join(run_dir, MANIFEST))
    except (OSError, ValueError):
        return None
    return f"{st.st_size}:{st.st_mtime_ns}:{st.st_ino}"


@dataclass
class Indexed:
    """One run as the index holds it."""

    fingerprint: str
    entry: RunEntry


@dataclass
class Index:
    """A generation of the index: its directory and its runs, by key."""

    directory: Path
    runs: dict[str, Indexed] = field(repr=False)

    def table(self, name: str) -> Path | None:
        p = self.directory / f"{name}.parquet"
        return p if p.name != RUNS and os.path.lexists(p) else None


def read(root: Path) -> Index | None:
    """The current index of the store ``root``; None if there is none or it
    is not whole (it is then written anew; nothing is lost)."""
    base = root / DIR
    try:
        gen = read_bounded(base / CURRENT, 1024).decode().strip()
        d = base / gen
        if not gen or "/" in gen or gen.startswith("."):
            return None
        doc = parse_json(d / DOC, read_bounded(d / DOC, JSON_MAX_BYTES))
        files = doc.get("files")
        if doc.get("format") != FORMAT or not isinstance(files, dict) or RUNS not in files:
            return None
        for name, want in files.items():
            if os.stat(d / name).st_size != want.get("size"):
                return None
        data = read_bounded(d / RUNS, 1 << 34)
        if hashlib.sha256(data).hexdigest() != files[RUNS].get("sha256"):
            return None
        return Index(d, _runs(data))
    except (OSError, ValueError, UnicodeDecodeError, KeyError, TypeError):
        return None


def _runs(data: bytes) -> dict[str, Indexed]:
    import pyarrow as pa
    import pyarrow.parquet as pq

    # ParquetFile.read, not read_table: no pyarrow.dataset to import (1.5 s).
    t = pq.ParquetFile(pa.BufferReader(data)).read()
    cols = {c: t.column(c).to_pylist() for c in ("key", "fingerprint", "entry")}
    # One JSON text for all runs: a third of the time of one parse per run.
    entries = json.loads("[" + ",".join(cols["entry"]) + "]")
    out = {}
    for key, fp, e in zip(cols["key"], cols["fingerprint"], entries, strict=True):
        out[key] = Indexed(fp, RunEntry(e["rows"], e["labels"], e["tables"]))
    return out


def write(
    store: Store,
    con: duckdb.DuckDBPyConnection,
    runs: dict[str, Indexed],
    old: Index | None,
) -> Index:
    """Writes a new generation holding ``runs``: those in ``old`` (same
    fingerprint) are copied from it, the others read from their own files.
    Returns it; raises OSError if the store cannot be written."""
    import pandas as pd
    import pyarrow as pa
    import pyarrow.parquet as pq

    base = store.root / DIR
    base.mkdir(exist_ok=True)
    _remove_old(base)
    gen = f"{time.strftime('%Y%m%dT%H%M%S')}-{uuid.uuid4().hex[:8]}"
    tmp = base / f".tmp-{gen}"
    tmp.mkdir()
    try:
        kept = {k for k, r in runs.items() if old is not None and k in old.runs}
        kept = {k for k in kept if old.runs[k].fingerprint == runs[k].fingerprint}  # type: ignore[union-attr]
        con.register("_kept_df", pd.DataFrame({"key": sorted(kept)}, dtype=object))
        tables = sorted({t for r in runs.values() for t in r.entry.tables})
        for table in tables:
            parts = []
            if old is not None and (p := old.table(table)) is not None and kept:
                parts.append(
                    f"SELECT * FROM read_parquet({literal(str(p))}) "
                    f"WHERE {KEY} IN (SELECT key FROM _kept_df)"
                )
            new = [k for k in runs if k not in kept and table in runs[k].entry.tables]
            if new:
                parts.append(read_runs(store, con, table, new, runs, "_new_df"))
            if not parts:
                continue
            body = " UNION ALL BY NAME ".join(f"({q})" for q in parts)
            out = tmp / f"{table}.parquet"
            con.execute(f"COPY ({body} ORDER BY {KEY}) TO {literal(str(out))} (FORMAT PARQUET)")
        con.unregister("_kept_df")
        keys = sorted(runs)
        entries = [
            json.dumps(
                {
                    "rows": runs[k].entry.rows,
                    "labels": runs[k].entry.labels,
                    "tables": runs[k].entry.tables,
                },
                default=str,
            )
            for k in keys
        ]
        fps = [runs[k].fingerprint for k in keys]
        t = pa.table({"key": keys, "fingerprint": fps, "entry": entries})
        pq.write_table(t, tmp / RUNS)
        _finish(tmp, base, gen)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    return Index(base / gen, dict(runs))


def read_runs(
    store: Store, con: duckdb.DuckDBPyConnection, table: str, keys: list[str], runs: Any, name: str
) -> str:
    """A SELECT of table ``table`` of the runs ``keys`` from their own files,
    each row with its run's key (``KEY``). Files of the same content (run.json's
    SHA-256: a table without rows, the same counts under another seed) are
    read once and their rows given to every run that has them: reading a
    small Parquet file costs about a millisecond, whatever it holds.
    ``name``: the table made for the file-to-key map."""
    import pandas as pd

    first: dict[str, str] = {}
    filenames = []
    # One realpath for the runs' directory: a Path.resolve per file costs a
    # few system calls, 28 s over 13 tables of 10,000 runs.
    runs_dir = os.path.realpath(store.runs_dir)
    name_of = f"{table}.parquet"
    for k in keys:
        path = os.path.join(runs_dir, k, name_of)
        entry = runs[k].entry if hasattr(runs[k], "entry") else runs[k]
        h = entry.hashes.get(table) or path
        filenames.append(first.setdefault(h, path))
    con.execute(f"DROP TABLE IF EXISTS {name}")
    con.register("_map_df", pd.DataFrame({"filename": filenames, KEY: keys}))
    con.execute(f"CREATE TABLE {name} AS SELECT * FROM _map_df")
    con.unregister("_map_df")
    listing = "[" + ", ".join(literal(p) for p in first.values()) + "]"
    return (
        f"SELECT f.{KEY}, t.* EXCLUDE (filename) FROM read_parquet({listing}, "
        f"union_by_name = true, filename = true) t JOIN {name} f ON f.filename = t.filename"
    )


def _finish(tmp: Path, base: Path, gen: str) -> None:
    """index.json last, then the generation renamed into place and named
    in CURRENT (each step atomic)."""
    files = {}
    for p in sorted(tmp.iterdir()):
        data = p.read_bytes()
        files[p.name] = {"size": len(data), "sha256": hashlib.sha256(data).hexdigest()}
    doc = {"format": FORMAT, "files": files}
    (tmp / DOC).write_text(json.dumps(doc, indent=1) + "\n")
    os.rename(tmp, base / gen)
    cur = base / f".tmp-{gen}-{CURRENT}"
    cur.write_text(gen + "\n")
    os.replace(cur, base / CURRENT)


def _remove_old(base: Path) -> None:
    """Generations (and half-written ones) other than the current one, last
    changed more than KEEP_OLD_S ago."""
    try:
        current = (base / CURRENT).read_text().strip()
    except OSError:
        current = ""
    now = time.time()
    for p in base.iterdir():
        if p.name == current or p.name == CURRENT or not p.is_dir():
            continue
        with contextlib.suppress(OSError):
            if now - p.stat().st_mtime > KEEP_OLD_S:
                shutil.rmtree(p, ignore_errors=True)


def labels_of(runs: dict[str, Any]) -> list[str]:
    """The label names of ``runs`` (``Indexed`` or ``RunEntry``), in key order."""
    names: dict[str, None] = {}
    for k in sorted(runs):
        r = runs[k]
        names.update(dict.fromkeys(r.entry.labels if isinstance(r, Indexed) else r.labels))
    return list(names)


def is_error(e: BaseException) -> bool:
    """Whether ``e`` is a failure to write the index (the dataset is then
    made without it): the store not writable, a full disk, DuckDB's I/O."""
    return isinstance(e, OSError) or type(e).__name__ in ("IOException", "PermissionException")


__all__ = ["Index", "Indexed", "StoreError", "fingerprint", "read", "write"]
