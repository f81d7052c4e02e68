"""The results store: finished runs in a directory, one subdirectory per run.

Each run has the layout ``fairlab.rundir`` describes (tables as Parquet,
summary.json, scenario.json, run.json written last), which ``fairlab.load``
reads back. A store is a directory::

    STORE/store.json     marks the directory as a store
    STORE/runs/<key>/    one run, in the layout above
    STORE/runs/.tmp-*    runs being written (never read as runs)
    STORE/shared/<hash>  files that several runs hold the same (tables without
                         rows, one scenario's several seeds): hard-linked into
                         each run, written once

``key`` is a content hash of the normalized scenario (``validate``'s JSON:
units as written, every default filled in), the seed and the fairlab version,
so a rerun of a sweep finds what it already ran. A run is written into a
temporary directory beside its final place, every file fsynced, then renamed
into place (an atomic step), then the parent directory fsynced: a process
killed at any moment leaves either the whole run or none of it under its key.
A run whose files do not match its run.json (truncated, edited, bad JSON, a
file replaced by a device or a pipe) is damaged: listing leaves it out and
says why (``scan``), ``check`` says so and the runner runs it again, and
``fairlab.repair.verify`` lists every one and can run them again.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import shutil
import socket
import uuid
from collections.abc import Iterable, Iterator, Mapping
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .listing import RunEntry, listing_frame
from .result import Result
from .rundir import (
    FORMAT,
    MANIFEST,
    TABLE_MAX_BYTES,
    TMP_PREFIX,
    RunDocs,
    StoreError,
    manifest,
    plain,
    read_bounded,
    read_manifest,
    read_run,
    regular_size,
    run_key,
    write_run_dir,
)
from .rundir import check_run as _damage_of
from .rundir import fsync_path as _fsync_path
from .rundir import write_file as _write

if TYPE_CHECKING:
    import duckdb
    import pandas as pd

    from .dataset import StoreDB

# Re-exported from rundir: the runner, the sweep and older callers import them from here.
__all__ = [
    "FORMAT",
    "MANIFEST",
    "MARKER",
    "Listing",
    "RunEntry",
    "Store",
    "StoreError",
    "check_run",
    "manifest",
    "plain",
    "read_manifest",
    "run_key",
    "write_run_dir",
]

MARKER = "store.json"


def check_run(directory: Path) -> str | None:
    """None if ``directory`` holds a whole run matching its run.json (every
    file's size and SHA-256), else what is wrong, one line."""
    damage = _damage_of(Path(directory), full=True)
    return None if damage is None else str(damage)


class NotAStore(StoreError, FileExistsError):
    """A directory asked to become a store that already holds other things:
    a StoreError (one line) and, as before, a FileExistsError."""


@dataclass
class Listing:
    """A store's runs: ``table`` (one row per run and label set; see
    ``Store.table``) and ``damaged`` (one StoreError per run left out: the
    file, what is wrong, what was expected)."""

    table: pd.DataFrame
    damaged: list[StoreError] = field(default_factory=list)
    #: With ``scan(files=True)``: each listed run's tables, by key (the
    #: Parquet files its run.json lists, without ``.parquet``).
    files: dict[str, list[str]] | None = None


class Store:
    """A results store in directory ``root``.

    ``create``: make the store if ``root`` is missing or empty (a writer);
    else ``root`` must be a store already (a reader: ``fairlab.load``), and
    no run is written to it (querying it writes the dataset's index, a
    cache under ``STORE/index``, where it may: ``dataset``).
    ``fairlab.load(root)`` gives a reader: its
    ``table()`` lists the runs with their labels (a sweep's parameters and
    seed) as columns, ``store[key]`` reads one run's Result.
    """

    def __init__(self, root: str | Path, *, create: bool = True) -> None:
        self.root = Path(root)
        expected = "a fairlab results store (a directory with store.json and runs/)"
        if self.root.exists() and not self.root.is_dir():
            raise StoreError(self.root, "is not a directory", expected)
        marker = self.root / MARKER
        if os.path.lexists(marker):
            regular_size(marker, 1 << 20)
        elif not create:
            raise StoreError(marker, "missing", expected)
        else:
            self._make(marker)
        self.runs_dir = self.root / "runs"
        if os.path.lexists(self.runs_dir) and not self.runs_dir.is_dir():
            raise StoreError(self.runs_dir, "is not a directory", "the directory of the runs")
        if create:
            self.runs_dir.mkdir(exist_ok=True)
        self._pool: ThreadPoolExecutor | None = None
        #: Contents seen once in this session, and shared copies known good (hashes).
        self._seen: dict[str, int] = {}
        self._shared: set[str] = set()
        self._db: StoreDB | None = None
        self._db_verified = False
        if create:
            self._clean_tmp()

    def _make(self, marker: Path) -> None:
        if self.root.exists() and any(self.root.iterdir()) and not (self.root / "runs").is_dir():
            raise NotAStore(
                self.root,
                "not empty and not a fairlab store (no store.json)",
                "a new or empty directory, or a store",
            )
        self.root.mkdir(parents=True, exist_ok=True)
        (self.root / "runs").mkdir(exist_ok=True)
        tmp = self.root / f"{TMP_PREFIX}{uuid.uuid4().hex[:8]}-{MARKER}"
        _write(tmp, (json.dumps({"fairlab_store": FORMAT}) + "\n").encode())
        os.replace(tmp, marker)

    def __repr__(self) -> str:
        return f"Store({str(self.root)!r})"

    def _repr_html_(self) -> str:
        """Jupyter's view: runs, labels, tables, the first runs and the main
        summary metric against the first swept label (``fairlab.display``)."""
        from .display import store_html

        return store_html(self)

    # -- reading -----------------------------------------------------------

    def path(self, key: str) -> Path:
        return self.runs_dir / key

    def _names(self) -> list[str]:
        """Every entry of runs/ but runs being written (``.tmp-*``), sorted."""
        if not self.runs_dir.is_dir():
            return []
        try:
            return sorted(p.name for p in self.runs_dir.iterdir() if not p.name.startswith("."))
        except OSError as e:
            raise StoreError(
                self.runs_dir, f"cannot be listed ({e.strerror})", "a readable directory"
            ) from None

    def run_names(self) -> list[str]:
        """Every run directory's name (its key), whole or not, sorted."""
        return self._names()

    def run_keys(self) -> list[str]:
        """The keys of the runs stored (with a run.json; whole or not)."""
        return [k for k in self._names() if os.path.lexists(self.path(k) / MANIFEST)]

    def __iter__(self) -> Iterator[str]:
        return iter(self.run_keys())

    def __len__(self) -> int:
        return len(self.run_keys())

    def __contains__(self, key: object) -> bool:
        return isinstance(key, str) and self.check(key) is None

    def __getitem__(self, key: str) -> Result:
        return self.get(key)

    def check(self, key: str) -> str | None:
        """None if the run ``key`` is stored whole, else what is wrong (or missing)."""
        d = self.path(key)
        if not d.is_dir():
            return f"{d}: not stored"
        damage = self._damage(key, full=True)
        return None if damage is None else str(damage)

    def _damage(self, key: str, *, full: bool) -> StoreError | None:
        try:
            self._read(key, full=full)
        except StoreError as e:
            return e
        return None

    def _read(self, key: str, *, full: bool) -> RunDocs:
        """The run ``key``'s JSON files, checked (``rundir.read_run``); its
        run.json must exist and name the key the run is stored under."""
        d = self.path(key)
        if not d.is_dir():
            raise StoreError(d, "not a directory", "a run directory (STORE/runs/KEY)")
        if not os.path.lexists(d / MANIFEST):
            raise StoreError(d / MANIFEST, "missing", "run.json, written last")
        try:
            docs = read_run(d, full=full)
        except StoreError:
            raise
        except OSError as e:  # a file gone while read
            raise StoreError(e.filename or d, str(e.strerror or e), "a whole run") from None
        have = docs.manifest.get("key") if docs.manifest else None
        if have != key:
            shown = "no key" if have is None else f"key {str(have)[:40]!r}"
            raise StoreError(d / MANIFEST, shown, f"key {key!r}, the run's directory name")
        return docs

    def get(self, key: str) -> Result:
        """The stored run ``key``; tables are read when first used."""
        return Result.from_parquet(self.path(key))

    def damaged(self, *, full: bool = True) -> list[StoreError]:
        """Every run in runs/ that is not whole, one StoreError each (``full``:
        every file's SHA-256 checked, else sizes only)."""
        return [e for k in self._names() if (e := self._damage(k, full=full)) is not None]

    def scan(self, *, full: bool = False, files: bool = False) -> Listing:
        """The runs as a table (see ``table``) and the damaged ones left out.

        ``full``: check every file's SHA-256 (reads every table); else the
        JSON files are read and the tables' sizes checked, which finds
        truncation and wrong-shape JSON but not a changed byte in a table.
        ``files``: also each run's table names (``Listing.files``).
        """
        rows: list[dict[str, Any]] = []
        damaged = []
        tables: dict[str, list[str]] = {}
        label_names: dict[str, None] = {}
        for key in self._names():
            try:
                entry = self.listing_entry(key, full=full)
            except StoreError as e:
                damaged.append(e)
                continue
            rows.extend(entry.rows)
            label_names.update(dict.fromkeys(entry.labels))
            tables[key] = entry.tables
        return Listing(listing_frame(rows, list(label_names)), damaged, tables if files else None)

    def listing_entry(self, key: str, *, full: bool) -> RunEntry:
        """The run ``key`` as the listing shows it (``scan``), checked as
        there; StoreError if it is damaged."""
        docs = self._read(key, full=full)
        assert docs.manifest is not None  # _read requires run.json
        rows = []
        label_names: dict[str, None] = {}
        fixed = ("key", "name", "fairlab_version")
        for labels in docs.manifest.get("labels") or [{}]:
            row: dict[str, Any] = {k: _cell(v) for k, v in labels.items() if k not in fixed}
            label_names.update(dict.fromkeys(row))
            row["key"] = key
            row["name"] = _cell(docs.scenario.get("name", ""))
            row["fairlab_version"] = _cell(docs.manifest.get("fairlab_version"))
            row.update({k: _cell(v) for k, v in docs.summary.items() if k not in row})
            rows.append(row)
        names = docs.manifest["files"]
        hashes = {
            n[: -len(".parquet")]: w["sha256"] for n, w in names.items() if n.endswith(".parquet")
        }
        return RunEntry(rows, list(label_names), list(hashes), hashes)

    def dataset(self, *, verify: bool = False, refresh: bool = False) -> StoreDB:
        """The runs as one dataset: DuckDB views ``runs``, ``flows``,
        ``rounds``, ... over every run, each row with its run's key, labels
        and seed (``fairlab.dataset``). Made when first asked for and kept;
        ``refresh``: made again (runs stored since are seen), ``verify``:
        every file's SHA-256 checked first."""
        if self._db is None or refresh or (verify and not self._db_verified):
            from .dataset import StoreDB

            self._db = StoreDB(self, verify=verify)
            self._db_verified = verify
        return self._db

    @property
    def con(self) -> duckdb.DuckDBPyConnection:
        """The dataset's DuckDB connection (see ``dataset``)."""
        return self.dataset().con

    def sql(self, query: str) -> pd.DataFrame:
        """The answer to a DuckDB SQL ``query`` over the dataset's views
        (see ``dataset``), as a DataFrame."""
        return self.dataset().sql(query)

    def table(self, *, verify: bool = False) -> pd.DataFrame:
        """One row per stored run and label set: key, name, labels, version,
        summary. Damaged runs are left out (``scan`` says which); ``verify``:
        check every file's SHA-256 first."""
        return self.scan(full=verify).table

    # -- writing -----------------------------------------------------------

    def remove(self, key: str) -> None:
        """Removes run ``key`` (renamed away first, so no half-removed run shows)."""
        d = self.path(key)
        if not os.path.lexists(d):
            return
        gone = self.runs_dir / _tmp_name()
        os.rename(d, gone)
        _remove_path(gone)

    def put_many(self, runs: Iterable[tuple[str, Mapping[str, bytes], bytes]]) -> list[str]:
        """Stores runs given as (key, files, run.json); returns the keys stored.

        All files of the batch are written, then fsynced together (the file
        system commits concurrent fsyncs as one), then each run's directory is
        renamed into place and the runs directory fsynced once. A key already
        stored whole is kept as it is.
        """
        staged: list[tuple[str, Path]] = []
        paths: list[Path] = []
        for key, files, run_json in runs:
            tmp = self.runs_dir / _tmp_name()
            tmp.mkdir()
            for name, data in [*files.items(), (MANIFEST, run_json)]:
                if name != MANIFEST and self._link_shared(data, tmp / name):
                    continue
                _write(tmp / name, data)
                paths.append(tmp / name)
            staged.append((key, tmp))
        if not staged:
            return []
        ex = self._fsyncer()
        list(ex.map(_fsync_path, paths))
        list(ex.map(lambda p: _fsync_path(p, directory=True), [t for _, t in staged]))
        done = []
        for key, tmp in staged:
            final = self.path(key)
            if os.path.lexists(final) and self._damage(key, full=True) is not None:
                self.remove(key)  # damaged: replace it
            try:
                os.rename(tmp, final)
            except OSError:
                # Stored meanwhile (another sweep on this store): keep that one.
                shutil.rmtree(tmp, ignore_errors=True)
                continue
            done.append(key)
        _fsync_path(self.runs_dir, directory=True)
        return done

    def _fsyncer(self) -> ThreadPoolExecutor:
        if self._pool is None:
            self._pool = ThreadPoolExecutor(max_workers=8, thread_name_prefix="fairlab-fsync")
        return self._pool

    def _link_shared(self, data: bytes, dst: Path) -> bool:
        """Hard-links ``dst`` to a shared copy of ``data`` if this content was
        stored before (the tables without rows, a scenario run with several
        seeds): a link costs a few microseconds, a new file some 300 (ext4).
        Files are never changed in place, so runs may share them; a shared
        copy is checked against its hash before its first use, and one that
        is damaged (or not a file) is removed. Any failure here only means
        the run gets a file of its own."""
        h = hashlib.sha256(data).hexdigest()
        blob = self.root / "shared" / h
        try:
            if h not in self._shared and not self._shared_ready(h, blob, data):
                return False
            os.link(blob, dst)
        except OSError:  # no hard links here, shared/ not a directory, ...
            return False
        return True

    def _shared_ready(self, h: str, blob: Path, data: bytes) -> bool:
        """Whether the shared copy ``blob`` of ``data`` is there and good,
        writing it when this content is seen the second time."""
        if os.path.lexists(blob):
            try:
                ok = hashlib.sha256(read_bounded(blob, TABLE_MAX_BYTES)).hexdigest() == h
            except OSError:
                ok = False
            if not ok:
                _remove_path(blob)
                return False
        elif self._seen.get(h, 0) == 0:
            self._seen[h] = 1
            return False
        else:
            blob.parent.mkdir(exist_ok=True)
            tmp = blob.parent / _tmp_name()
            _write(tmp, data)
            _fsync_path(tmp)
            os.replace(tmp, blob)
            _fsync_path(blob.parent, directory=True)
        self._shared.add(h)
        return True

    def add_labels(self, key: str, labels: Mapping[str, Any]) -> None:
        """Adds a label set to a stored run's run.json, unless it holds it already."""
        d = self.path(key)
        try:
            doc = read_manifest(d)
        except StoreError:
            return  # damaged: the runner stores it anew
        new = plain(dict(labels))
        have = doc.get("labels") or []
        if new in have:
            return
        doc["labels"] = [*have, new]
        tmp = d / f"{TMP_PREFIX}{uuid.uuid4().hex[:8]}-{MANIFEST}"
        _write(tmp, (json.dumps(doc, indent=2) + "\n").encode())
        _fsync_path(tmp)
        os.replace(tmp, d / MANIFEST)
        _fsync_path(d, directory=True)

    def _clean_tmp(self) -> None:
        """Removes what writers on this host that no longer run left half-written."""
        host = socket.gethostname()
        for p in [*self.runs_dir.glob(f"{TMP_PREFIX}*"), *self.root.glob(f"shared/{TMP_PREFIX}*")]:
            head, _, h = p.name[len(TMP_PREFIX) :].partition("@")
            pid_text = head.split(".")[0]
            if h != host or not pid_text.isdigit() or _alive(int(pid_text)):
                continue
            _remove_path(p)


def _tmp_name() -> str:
    """``.tmp-PID.RANDOM@HOST``: who writes a temporary directory (see ``_clean_tmp``)."""
    return f"{TMP_PREFIX}{os.getpid()}.{uuid.uuid4().hex[:8]}@{socket.gethostname()}"


def _remove_path(p: Path) -> None:
    """Removes a file, symlink or directory tree, as far as it can."""
    with contextlib.suppress(OSError):
        if p.is_dir() and not p.is_symlink():
            shutil.rmtree(p, ignore_errors=True)
        else:
            p.unlink(missing_ok=True)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _cell(v: Any) -> Any:
    """A label or summary value as a table cell: lists and tables as JSON text."""
    if not isinstance(v, list | dict):
        return v
    try:
        return json.dumps(v)
    except (RecursionError, ValueError):
        return "(nested too deep)"
