"""The results store: finished runs in a directory, one subdirectory per run.

Every run, stored or written by ``Result.to_parquet``, has one layout, which
``fairlab.load(DIR)`` reads back::

    <table>.parquet      one per result table (flows, rounds, ports, ...)
    summary.json         the run's summary (seed, digest, goodput, ...)
    scenario.json        the normalized scenario (every default filled in)
    run.json             written last: fairlab version, seed, key, labels, and
                         the size and SHA-256 of every file above

A store is a directory::

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
A run whose files do not match its run.json (truncated, edited, bad JSON) is
corrupt: ``check`` says so and the runner runs it again.
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
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import pandas as pd

    from .result import Result

#: Version of the run layout written into run.json.
FORMAT = 1
MANIFEST = "run.json"
MARKER = "store.json"
TMP_PREFIX = ".tmp-"


def run_key(scenario_json: str, seed: int, version: str) -> str:
    """The store key of a run: SHA-256 over the normalized scenario, seed, version.

    ``scenario_json`` is what ``fairlab._core.validate_json`` returns (the same
    text a run returns as its scenario); it is re-serialized with sorted keys
    so the key does not depend on field order.
    """
    doc = {"fairlab": version, "seed": int(seed), "scenario": json.loads(scenario_json)}
    text = json.dumps(doc, sort_keys=True, separators=(",", ":"), allow_nan=True)
    return hashlib.sha256(text.encode()).hexdigest()[:32]


def plain(value: Any) -> Any:
    """JSON-ready labels: numpy scalars as Python numbers, other objects as text."""
    if isinstance(value, Mapping):
        return {str(k): plain(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [plain(v) for v in value]
    if value is None or isinstance(value, bool | int | float | str):
        return value
    item = getattr(value, "item", None)
    if callable(item):
        with contextlib.suppress(Exception):
            return plain(item())
    return str(value)


def manifest(
    files: Mapping[str, bytes], *, key: str, seed: int, version: str, labels: list[dict]
) -> bytes:
    """run.json for a run of ``files`` (name -> content)."""
    doc = {
        "format": FORMAT,
        "key": key,
        "fairlab_version": version,
        "seed": int(seed),
        "labels": [plain(x) for x in labels],
        "files": {
            name: {"size": len(data), "sha256": hashlib.sha256(data).hexdigest()}
            for name, data in sorted(files.items())
        },
    }
    return (json.dumps(doc, indent=2) + "\n").encode()


def _fsync_path(path: Path, directory: bool = False) -> None:
    fd = os.open(path, os.O_RDONLY | (os.O_DIRECTORY if directory else 0))
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def _write(path: Path, data: bytes) -> None:
    with open(path, "wb") as f:
        f.write(data)


def write_run_dir(directory: str | Path, files: Mapping[str, bytes], run_json: bytes) -> Path:
    """Writes a run's files into ``directory`` (which may exist), each atomically.

    Each file goes to a temporary name in the directory, is fsynced and renamed
    over its final name; run.json goes last. For ``Result.to_parquet``; the
    store renames a whole directory instead (``Store.put_many``).
    """
    out = Path(directory)
    out.mkdir(parents=True, exist_ok=True)
    tag = uuid.uuid4().hex[:8]
    # run.json first out of the way: a reader never pairs an old manifest
    # with new files.
    with contextlib.suppress(FileNotFoundError):
        os.unlink(out / MANIFEST)
    for name, data in [*files.items(), (MANIFEST, run_json)]:
        tmp = out / f"{TMP_PREFIX}{tag}-{name}"
        _write(tmp, data)
        _fsync_path(tmp)
        os.replace(tmp, out / name)
    _fsync_path(out, directory=True)
    return out


def read_manifest(directory: Path) -> dict[str, Any] | None:
    try:
        doc = json.loads((directory / MANIFEST).read_bytes())
    except (OSError, ValueError):
        return None
    return doc if isinstance(doc, dict) and isinstance(doc.get("files"), dict) else None


def check_run(directory: Path) -> str | None:
    """None if ``directory`` holds a complete run matching its run.json, else why not."""
    doc = read_manifest(directory)
    if doc is None:
        return f"{directory / MANIFEST}: missing or not valid JSON"
    for name, want in doc["files"].items():
        p = directory / name
        try:
            data = p.read_bytes()
        except OSError:
            return f"{p}: missing"
        if len(data) != want.get("size") or hashlib.sha256(data).hexdigest() != want.get("sha256"):
            return f"{p}: {len(data)} bytes that do not match run.json"
    for name in ("summary.json", "scenario.json"):
        if name not in doc["files"]:
            return f"{directory / name}: not in run.json"
    return None


class Store:
    """A results store in directory ``root`` (made if missing)."""

    def __init__(self, root: str | Path) -> None:
        self.root = Path(root)
        if self.root.exists() and not self.root.is_dir():
            raise NotADirectoryError(20, "a store is a directory, not a file", str(self.root))
        marker = self.root / MARKER
        if not marker.exists():
            if (
                self.root.exists()
                and any(self.root.iterdir())
                and not (self.root / "runs").is_dir()
            ):
                raise FileExistsError(
                    17,
                    "not empty and not a fairlab store (no store.json); give a new or "
                    "empty directory",
                    str(self.root),
                )
            self.root.mkdir(parents=True, exist_ok=True)
            (self.root / "runs").mkdir(exist_ok=True)
            tmp = self.root / f"{TMP_PREFIX}{uuid.uuid4().hex[:8]}-{MARKER}"
            _write(tmp, (json.dumps({"fairlab_store": FORMAT}) + "\n").encode())
            os.replace(tmp, marker)
        self.runs_dir = self.root / "runs"
        self.runs_dir.mkdir(exist_ok=True)
        self._pool: ThreadPoolExecutor | None = None
        #: Contents seen once in this session, and shared copies known good (hashes).
        self._seen: dict[str, int] = {}
        self._shared: set[str] = set()
        self._clean_tmp()

    # -- reading -----------------------------------------------------------

    def path(self, key: str) -> Path:
        return self.runs_dir / key

    def run_keys(self) -> list[str]:
        return sorted(
            p.name
            for p in self.runs_dir.iterdir()
            if not p.name.startswith(".") and (p / MANIFEST).exists()
        )

    def __contains__(self, key: str) -> bool:
        return self.check(key) is None

    def check(self, key: str) -> str | None:
        """None if the run ``key`` is stored whole, else what is wrong (or missing)."""
        d = self.path(key)
        if not d.is_dir():
            return f"{d}: not stored"
        return check_run(d)

    def get(self, key: str) -> Result:
        """The stored run ``key``; tables are read when first used."""
        from .result import Result

        return Result.from_parquet(self.path(key))

    def manifests(self) -> Iterator[dict[str, Any]]:
        for key in self.run_keys():
            doc = read_manifest(self.path(key))
            if doc is not None:
                yield doc

    def table(self, *, verify: bool = False) -> pd.DataFrame:
        """One row per stored run and label set: key, labels, seed, version, summary."""
        import pandas as pd

        rows = []
        label_names: dict[str, None] = {}
        for doc in self.manifests():
            key = doc["key"]
            d = self.path(key)
            if verify and check_run(d) is not None:
                continue
            try:
                summary = json.loads((d / "summary.json").read_bytes())
                scenario = json.loads((d / "scenario.json").read_bytes())
            except (OSError, ValueError):
                continue
            for labels in doc.get("labels") or [{}]:
                row = {"key": key, "name": scenario.get("name", "")}
                row.update({k: _cell(v) for k, v in labels.items()})
                label_names.update(dict.fromkeys(labels))
                row["fairlab_version"] = doc.get("fairlab_version")
                row.update(summary)
                rows.append(row)
        df = pd.DataFrame(rows)
        if len(df):
            first = ["key", "name", *label_names, "fairlab_version"]
            df = df[first + [c for c in df.columns if c not in first]]
            with contextlib.suppress(TypeError):  # labels of mixed types: key order
                df = df.sort_values(["name", *label_names], kind="stable", ignore_index=True)
        df.attrs["labels"] = list(label_names)
        return df

    # -- writing -----------------------------------------------------------

    def remove(self, key: str) -> None:
        """Removes run ``key`` (renamed away first, so no half-removed run shows)."""
        d = self.path(key)
        if not d.exists():
            return
        gone = self.runs_dir / _tmp_name()
        os.rename(d, gone)
        shutil.rmtree(gone, ignore_errors=True)

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
            if final.exists() and check_run(final) is not None:
                self.remove(key)  # corrupt: replace it
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
        copy is checked against its hash before its first use."""
        h = hashlib.sha256(data).hexdigest()
        blob = self.root / "shared" / h
        if h not in self._shared:
            if blob.exists():
                try:
                    ok = hashlib.sha256(blob.read_bytes()).hexdigest() == h
                except OSError:
                    ok = False
                if not ok:
                    blob.unlink(missing_ok=True)
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
        try:
            os.link(blob, dst)
        except OSError:  # no hard links here: a file of its own
            return False
        return True

    def add_labels(self, key: str, labels: Mapping[str, Any]) -> None:
        """Adds a label set to a stored run's run.json, unless it holds it already."""
        d = self.path(key)
        doc = read_manifest(d)
        if doc is None:
            return
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
            if p.is_dir():
                shutil.rmtree(p, ignore_errors=True)
            else:
                p.unlink(missing_ok=True)


def _tmp_name() -> str:
    """``.tmp-PID.RANDOM@HOST``: who writes a temporary directory (see ``_clean_tmp``)."""
    return f"{TMP_PREFIX}{os.getpid()}.{uuid.uuid4().hex[:8]}@{socket.gethostname()}"


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _cell(v: Any) -> Any:
    """A label as a table cell: lists and tables as JSON text."""
    return json.dumps(v) if isinstance(v, list | dict) else v
