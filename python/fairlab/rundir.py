"""One run's files on disk: their layout, run.json, and reading them safely.

Every run, stored (``fairlab.store``) or written by ``Result.to_parquet``, has
one layout, which ``fairlab.load(DIR)`` reads back::

    <table>.parquet      one per result table (flows, rounds, ports, ...)
    summary.json         the run's summary (seed, digest, goodput, ...)
    scenario.json        the normalized scenario (every default filled in)
    run.json             written last: fairlab version, seed, key, labels, and
                         the size and SHA-256 of every file above

hashlib and uuid are imported where used: importing fairlab (and so the
command line's --help) does not pay for them.

This module sits below both ``result`` (which writes and reads one run) and
``store`` (which keeps many): neither imports the other's internals.

Files on disk are not trusted: every read checks first (``os.stat``) that the
path is a regular file of at most a bounded size, so that a symlink to
/dev/zero, a FIFO or a sparse file of a terabyte is refused instead of read,
and every damage is raised as one ``StoreError`` naming the file, what is
wrong and what was expected.
"""

from __future__ import annotations

import contextlib
import errno
import json
import os
import stat
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

#: Version of the run layout written into run.json.
FORMAT = 1
MANIFEST = "run.json"
TMP_PREFIX = ".tmp-"
#: The two JSON files every run has besides run.json.
RUN_JSON_FILES = ("summary.json", "scenario.json")

#: Largest JSON file (run.json, summary.json, scenario.json) read: a
#: normalized scenario of a large explicit graph is a few MB; parsing JSON
#: takes some ten times its size in memory.
JSON_MAX_BYTES = 64 << 20
#: Largest table file read (Parquet). A table is read whole into memory.
TABLE_MAX_BYTES = 8 << 30
#: Longest excerpt of a foreign message (a Parquet reader's error) in a line.
MESSAGE_CHARS = 160


class StoreError(OSError):
    """A file of a run or store that cannot be used: ``path``, what is wrong
    (``problem``) and what was expected, as one line.

    An OSError, so that callers which report unreadable files (the command
    line prints ``FILE: reason``) report this one the same way."""

    def __init__(self, path: str | Path, problem: str, expected: str) -> None:
        self.path = Path(path)
        self.problem = problem
        self.expected = expected
        super().__init__(errno.EINVAL, f"{problem}; expected {expected}", str(path))

    def __str__(self) -> str:
        return f"{printable(str(self.path))}: {self.problem}; expected {self.expected}"

    def __repr__(self) -> str:
        return f"StoreError({str(self)!r})"

    def __reduce__(self) -> tuple[Any, ...]:
        return (type(self), (self.path, self.problem, self.expected))


def printable(text: str) -> str:
    """``text`` with control characters escaped (a file name may hold a
    newline; a message naming it must stay one line)."""
    if text.isprintable():
        return text
    return "".join(c if c.isprintable() else repr(c)[1:-1] for c in text)


def one_line(text: str, limit: int = MESSAGE_CHARS) -> str:
    """``text`` on one line, at most ``limit`` characters."""
    flat = " ".join(str(text).split())
    return flat if len(flat) <= limit else flat[: limit - 3] + "..."


def regular_size(path: Path, limit: int) -> int:
    """The size of ``path`` if it is a regular file of at most ``limit`` bytes
    (symlinks followed), else raises StoreError (FileNotFoundError if missing)."""
    try:
        st = os.stat(path)
    except FileNotFoundError:
        raise
    except (OSError, ValueError) as e:  # ELOOP, EACCES, a NUL in the name
        raise StoreError(path, f"cannot be examined ({one_line(e)})", "a readable file") from None
    if not stat.S_ISREG(st.st_mode):
        raise StoreError(path, f"is {_kind(st.st_mode)}", "a regular file")
    if st.st_size > limit:
        raise StoreError(path, f"{st.st_size:,} bytes", f"a file of at most {limit:,} bytes")
    return st.st_size


def _open_regular(path: Path, limit: int) -> tuple[int, int]:
    """A file descriptor of the regular file ``path`` and its size (see
    ``regular_size``). It is opened without blocking and checked again once
    open, so a FIFO or device put in its place meanwhile is never read."""
    regular_size(path, limit)
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
    except FileNotFoundError:
        raise
    except OSError as e:
        raise StoreError(path, f"cannot be opened ({one_line(e)})", "a readable file") from None
    st = os.fstat(fd)
    if not stat.S_ISREG(st.st_mode) or st.st_size > limit:
        os.close(fd)
        regular_size(path, limit)  # says why
        raise StoreError(path, "changed while opened", "a regular file")
    return fd, st.st_size


def _chunks(path: Path, limit: int) -> Iterator[bytes]:
    """The bytes of the regular file ``path`` in pieces: as many as its size
    says (a file in /proc says 0 and gives more: refused, not read on)."""
    fd, size = _open_regular(path, limit)
    total = 0
    try:
        while True:
            try:
                piece = os.read(fd, min(1 << 20, size - total + 1))
            except OSError as e:
                why = f"cannot be read ({one_line(e)})"
                raise StoreError(path, why, "a readable file") from None
            if not piece:
                return
            total += len(piece)
            if total > size:
                raise StoreError(
                    path, f"longer than its size ({size:,} bytes)", "a regular file on disk"
                )
            yield piece
    finally:
        os.close(fd)


def read_bounded(path: Path, limit: int) -> bytes:
    """The bytes of the regular file ``path``, at most ``limit`` (see
    ``regular_size``); else StoreError (FileNotFoundError if missing)."""
    return b"".join(_chunks(path, limit))


def parse_json(path: Path, data: bytes, expected: str = "a JSON object") -> dict[str, Any]:
    """``data`` (the contents of ``path``) as a JSON object, else StoreError."""
    try:
        doc = json.loads(data)
    except RecursionError:
        raise StoreError(path, "JSON nested too deep", expected) from None
    except (ValueError, UnicodeDecodeError) as e:
        raise StoreError(path, f"not valid JSON ({one_line(e)})", expected) from None
    if not isinstance(doc, dict):
        raise StoreError(path, f"a JSON {_json_kind(doc)}", expected)
    return doc


def read_json(path: Path, expected: str = "a JSON object") -> dict[str, Any]:
    """A JSON object from the file ``path`` (bounded read), else StoreError."""
    return parse_json(path, read_bounded(path, JSON_MAX_BYTES), expected)


def read_manifest(directory: Path) -> dict[str, Any]:
    """The run.json of the run in ``directory``, checked for shape: ``files``
    maps names to ``{size, sha256}`` and lists summary.json and scenario.json,
    ``key`` is text, ``seed`` a 64-bit unsigned integer, ``labels`` a list of
    tables (each when given)."""
    path = directory / MANIFEST
    expected = "run.json as fairlab writes it (format, key, seed, labels, files)"
    try:
        doc = read_json(path, expected)
    except FileNotFoundError:
        raise StoreError(path, "missing", expected) from None
    files = doc.get("files")
    if not isinstance(files, dict):
        raise StoreError(path, "no `files` table", expected)
    for name, want in files.items():
        if (
            not isinstance(want, dict)
            or type(want.get("size")) is not int
            or not isinstance(want.get("sha256"), str)
        ):
            shown = printable(name[:60])
            raise StoreError(path, f"files.{shown}: not {{size, sha256}}", expected)
        if "/" in name or name in ("", ".", "..", MANIFEST) or not name.isprintable():
            shown = printable(name[:60])
            raise StoreError(path, f"files: '{shown}' is not a file name", expected)
    for name in RUN_JSON_FILES:
        if name not in files:
            raise StoreError(path, f"files: no {name}", expected)
    if "seed" in doc and (type(doc["seed"]) is not int or not 0 <= doc["seed"] < 2**64):
        raise StoreError(path, f"seed {one_line(repr(doc['seed']), 40)}", expected)
    if "key" in doc and not isinstance(doc["key"], str):
        raise StoreError(path, "key is not text", expected)
    labels = doc.get("labels", [])
    if not isinstance(labels, list) or not all(isinstance(x, dict) for x in labels):
        raise StoreError(path, "labels are not a list of tables", expected)
    return doc


def check_file(directory: Path, name: str, want: Mapping[str, Any], *, full: bool) -> None:
    """Checks one file of a run against its run.json entry: a regular file of
    the recorded size and (``full``) SHA-256; raises StoreError."""
    path = directory / name
    limit = JSON_MAX_BYTES if name.endswith(".json") else TABLE_MAX_BYTES
    try:
        size = regular_size(path, limit)
    except FileNotFoundError:
        raise StoreError(path, "missing", "the file run.json lists") from None
    if size != want["size"]:
        raise StoreError(path, f"{size:,} bytes", f"{want['size']:,} bytes as run.json records")
    if full:
        digest = _sha256_file(path, limit)
        if digest != want["sha256"]:
            raise StoreError(path, "contents differ from run.json", "the SHA-256 run.json records")


@dataclass
class RunDocs:
    """The JSON files of one run: run.json (None for a run directory written
    without one), summary.json and scenario.json."""

    manifest: dict[str, Any] | None
    summary: dict[str, Any]
    scenario: dict[str, Any]


def read_run(directory: Path, *, full: bool) -> RunDocs:
    """Reads and checks the run in ``directory``; raises StoreError on the
    first damage found. With run.json, every file it lists must be a regular
    file of the recorded size and, when ``full`` (and always for the two JSON
    files, which are read anyway), of the recorded SHA-256; summary.json and
    scenario.json must be JSON objects, the summary with its seed and digest.
    Without run.json only those two are read (a run written before run.json
    existed)."""
    if not directory.is_dir():
        raise StoreError(directory, "not a directory", "a run directory")
    doc = None
    if os.path.lexists(directory / MANIFEST):
        doc = read_manifest(directory)
        for name, want in doc["files"].items():
            if name not in RUN_JSON_FILES:
                check_file(directory, name, want, full=full)
    jsons = []
    for name in RUN_JSON_FILES:
        path = directory / name
        try:
            data = read_bounded(path, JSON_MAX_BYTES)
        except FileNotFoundError:
            raise StoreError(path, "missing", f"the run's {name}") from None
        if doc is not None:
            _check_bytes(path, data, doc["files"][name])
        jsons.append(parse_json(path, data))
    summary = jsons[0]
    # What readers of any run rely on (every backend writes both).
    if not isinstance(summary.get("digest"), str) or type(summary.get("seed")) is not int:
        raise StoreError(
            directory / "summary.json",
            "no digest (text) or seed (integer)",
            "a run's summary (seed, digest, ...)",
        )
    return RunDocs(doc, summary, jsons[1])


def _check_bytes(path: Path, data: bytes, want: Mapping[str, Any]) -> None:
    import hashlib

    if len(data) != want["size"]:
        raise StoreError(
            path, f"{len(data):,} bytes", f"{want['size']:,} bytes as run.json records"
        )
    if hashlib.sha256(data).hexdigest() != want["sha256"]:
        raise StoreError(path, "contents differ from run.json", "the SHA-256 run.json records")


def check_run(directory: Path, *, full: bool = True) -> StoreError | None:
    """None if ``directory`` holds a whole run matching its run.json, else the
    first damage found (see ``read_run``; a run here must have run.json)."""
    try:
        if directory.is_dir() and not os.path.lexists(directory / MANIFEST):
            raise StoreError(directory / MANIFEST, "missing", "run.json, written last")
        read_run(directory, full=full)
    except StoreError as e:
        return e
    except OSError as e:  # a file gone while checked
        return StoreError(getattr(e, "filename", None) or directory, one_line(e), "a whole run")
    return None


def read_table_bytes(path: Path, want: Mapping[str, Any] | None) -> bytes:
    """A table file's bytes (bounded), checked against its run.json entry
    ``want`` when there is one."""
    try:
        data = read_bounded(path, TABLE_MAX_BYTES)
    except FileNotFoundError:
        raise StoreError(path, "missing", "the table file run.json lists") from None
    if want is not None:
        _check_bytes(path, data, want)
    return data


def _sha256_file(path: Path, limit: int) -> str:
    import hashlib

    h = hashlib.sha256()
    for piece in _chunks(path, limit):
        h.update(piece)
    return h.hexdigest()


def _kind(mode: int) -> str:
    for test, name in (
        (stat.S_ISDIR, "a directory"),
        (stat.S_ISCHR, "a character device"),
        (stat.S_ISBLK, "a block device"),
        (stat.S_ISFIFO, "a named pipe"),
        (stat.S_ISSOCK, "a socket"),
    ):
        if test(mode):
            return name
    return "not a regular file"


def _json_kind(doc: Any) -> str:
    if doc is None:
        return "null"
    return {list: "array", str: "string", bool: "boolean"}.get(type(doc), "number")


def run_key(scenario_json: str, seed: int, version: str) -> str:
    """The store key of a run: SHA-256 over the normalized scenario, seed, version.

    ``scenario_json`` is what ``fairlab._core.validate_json`` returns (the same
    text a run returns as its scenario); it is re-serialized with sorted keys
    so the key does not depend on field order.
    """
    import hashlib

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
    import hashlib

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


def pcap_file_names(points: Mapping[str, Any]) -> dict[str, str]:
    """The file name of each capture point's libpcap file in a run directory:
    ``sw:h0`` as ``pcap-sw-h0.pcap``, a host ``h3`` as ``pcap-h3.pcap`` (other
    characters than letters, digits, ``.``, ``_`` and ``-`` as ``_``; a name
    two points would share takes the point's index)."""
    out: dict[str, str] = {}
    for i, point in enumerate(points):
        text = point.replace(":", "-", 1)
        safe = "".join(c if c.isascii() and (c.isalnum() or c in "._-") else "_" for c in text)
        name = f"pcap-{safe}.pcap"
        if name in out.values():
            name = f"pcap-{i}-{safe}.pcap"
        out[point] = name
    return out


def fsync_path(path: Path, directory: bool = False) -> None:
    fd = os.open(path, os.O_RDONLY | (os.O_DIRECTORY if directory else 0))
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def write_file(path: Path, data: bytes) -> None:
    with open(path, "wb") as f:
        f.write(data)


def write_run_dir(directory: str | Path, files: Mapping[str, bytes], run_json: bytes) -> Path:
    """Writes a run's files into ``directory`` (which may exist), each atomically.

    Each file goes to a temporary name in the directory, is fsynced and renamed
    over its final name; run.json goes last. For ``Result.to_parquet``; the
    store renames a whole directory instead (``Store.put_many``).
    """
    import uuid

    out = Path(directory)
    out.mkdir(parents=True, exist_ok=True)
    tag = uuid.uuid4().hex[:8]
    # run.json first out of the way: a reader never pairs an old manifest
    # with new files.
    with contextlib.suppress(FileNotFoundError):
        os.unlink(out / MANIFEST)
    for name, data in [*files.items(), (MANIFEST, run_json)]:
        tmp = out / f"{TMP_PREFIX}{tag}-{name}"
        write_file(tmp, data)
        fsync_path(tmp)
        os.replace(tmp, out / name)
    fsync_path(out, directory=True)
    return out
