"""Damaged results stores for the Python fuzzer: a small real store, mutated
as a disk, a user or another program could damage it, then driven through
``fairlab.load``, the store's listing (and ``fairlab results`` on it),
``repair.verify`` and a sweep resuming into it.

A case is a list of mutations drawn from a seeded generator (so the same
seed and index give the same case) and a surface. What a case must do:
return, or raise ``StoreError``/``FileNotFoundError`` with a one-line
message; a sweep resuming into the store must give the digests of the runs
it had stored, and leave each of its runs whole; a rerun by ``verify`` must
leave each run it reran whole, with its old digest.
"""

from __future__ import annotations

import contextlib
import hashlib
import io
import json
import os
import random
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import fairlab
from fairlab import scenarios
from fairlab.cli import main
from fairlab.repair import verify
from fairlab.rundir import JSON_MAX_BYTES, StoreError
from fairlab.runner import Task, run_tasks
from fairlab.store import Store

SURFACES = ("load", "list", "verify", "resume")


class CaseFailure(Exception):
    """A case broke a rule (not an exception of the code under test)."""


def base_tasks() -> list[Task]:
    """The runs of the base store: two scenarios, two seeds each (tiny)."""
    return [
        Task(scenarios.incast(n, rounds=1, sru="16KiB"), seed=s, labels={"servers": n, "seed": s})
        for n in (1, 2)
        for s in (1, 2)
    ]


def make_base(root: Path) -> dict[str, str]:
    """Writes the base store into ``root``; returns each run's key -> digest."""
    results = run_tasks(base_tasks(), jobs=1, store=root, progress=False)
    st = Store(root, create=False)
    digests = {st.get(k).digest: k for k in st.run_keys()}
    assert set(digests) == {r.digest for r in results}
    return {k: d for d, k in digests.items()}


# -- mutations -----------------------------------------------------------------


def _real_dir(p: Path) -> bool:
    """A directory, not a symlink to one: the fuzzer never walks out of the
    case's store (a mutation may have made ``runs`` a symlink)."""
    return p.is_dir() and not p.is_symlink()


def _files(root: Path) -> list[Path]:
    """Every path of the store (files and directories), in a fixed order."""
    out = [root / "store.json", root / "runs", root / "shared"]
    for d in sorted((root / "runs").iterdir()) if _real_dir(root / "runs") else []:
        out.append(d)
        if _real_dir(d):
            out.extend(sorted(d.iterdir()))
    shared = root / "shared"
    if _real_dir(shared):
        out.extend(sorted(shared.iterdir())[:4])
    return out


def _replace(p: Path, data: bytes) -> None:
    """Writes ``data`` as a new file at ``p`` (never in place: the case's
    files may be hard links shared with the base store)."""
    _remove(p)
    p.write_bytes(data)


def _remove(p: Path) -> None:
    if p.is_dir() and not p.is_symlink():
        shutil.rmtree(p)
    elif os.path.lexists(p):
        p.unlink()


def _read(p: Path) -> bytes:
    try:
        return p.read_bytes() if p.is_file() and p.stat().st_size < 1 << 20 else b""
    except OSError:
        return b""


WRONG_JSON = [
    b"[]",
    b"null",
    b"0",
    b'"text"',
    b"{}",
    b"true",
    b'{"files": []}',
    b'{"files": {"flows.parquet": 1}}',
    b'{"files": {"../x": {"size": 1, "sha256": "0"}}}',
    b'{"files": {"a\\nb": {"size": 1, "sha256": "0"}, "summary.json": {"size": 1, "sha256": ""},'
    b' "scenario.json": {"size": 1, "sha256": ""}}}',
    b'{"seed": 1e400}',
    b'{"key": 5, "files": {}}',
    b"\xef\xbb\xbf{}",
    b"\xff\xfe{\x00}\x00",
    b"{" * 3 + b"}" * 2,
    b'{"a": ' + b"9" * 5000 + b"}",
    b"NaN",
]


def _deep_json(rng: random.Random) -> bytes:
    n = rng.choice([100, 1000, 10_000, 200_000])
    if rng.random() < 0.5:
        return b"[" * n + b"]" * n
    return b'{"a":' * n + b"1" + b"}" * n


def _mutate_json(rng: random.Random, p: Path) -> str:
    """A JSON file of the right shape with one field changed or removed."""
    try:
        doc = json.loads(_read(p))
    except (ValueError, RecursionError):
        doc = None
    if not isinstance(doc, dict) or not doc:
        _replace(p, rng.choice(WRONG_JSON))
        return "wrong-shape JSON"
    k = rng.choice(sorted(doc))
    choice = rng.randrange(6)
    if choice == 0:
        del doc[k]
        what = f"without {k}"
    else:
        doc[k] = [None, [], {}, "x", -1, 2**64, 1e308, {"size": 1}][rng.randrange(8)]
        what = f"{k} = {json.dumps(doc[k])[:20]}"
    _replace(p, json.dumps(doc).encode())
    return what


def _forge_manifest(root: Path, p: Path) -> str:
    """Records ``p``'s present bytes in its run's run.json (a damaged file
    that run.json vouches for)."""
    manifest = p.parent / "run.json"
    try:
        doc = json.loads(_read(manifest))
        data = p.read_bytes()
        doc["files"][p.name] = {"size": len(data), "sha256": hashlib.sha256(data).hexdigest()}
    except (ValueError, TypeError, KeyError, OSError, RecursionError):
        return ""
    _replace(manifest, json.dumps(doc).encode())
    return " (run.json updated to match)"


def mutate(rng: random.Random, root: Path, fifo_dir: Path) -> str:
    """Applies one random damage to the store at ``root``; says what it did.
    ``fifo_dir`` (outside the store) holds FIFOs and a directory to point at."""
    paths = _files(root)
    p = rng.choice(paths)
    rel = p.relative_to(root)
    if Path(os.path.realpath(p.parent)) != Path(os.path.realpath(root)) / rel.parent:
        raise AssertionError(f"{p}: outside the case's store")  # _files walks no symlink
    kind = rng.randrange(14)
    if kind == 0:
        data = _read(p)
        _replace(p, data[: rng.randrange(len(data) + 1)] if data else b"")
        return f"{rel}: truncated"
    if kind == 1:
        data = bytearray(_read(p))
        for _ in range(rng.randint(1, 8)):
            if data:
                data[rng.randrange(len(data))] ^= 1 << rng.randrange(8)
        _replace(p, bytes(data))
        return f"{rel}: bits flipped" + (_forge_manifest(root, p) if rng.random() < 0.3 else "")
    if kind == 2:
        what = _mutate_json(rng, p)
        forged = _forge_manifest(root, p) if rng.random() < 0.3 else ""
        return f"{rel}: {what}{forged}"
    if kind == 3:
        _replace(p, rng.choice(WRONG_JSON))
        return f"{rel}: wrong-shape JSON" + (_forge_manifest(root, p) if rng.random() < 0.3 else "")
    if kind == 4:
        _replace(p, _deep_json(rng))
        return f"{rel}: deep JSON" + (_forge_manifest(root, p) if rng.random() < 0.3 else "")
    if kind == 5:
        elsewhere = fifo_dir / "elsewhere"
        elsewhere.mkdir(exist_ok=True)
        (elsewhere / "run.json").write_bytes(b"{}")
        target = rng.choice(["/dev/zero", "/dev/urandom", "/dev/null", "/proc/self/mem", elsewhere])
        _remove(p)
        p.symlink_to(target)
        return f"{rel}: symlink to {target}"
    if kind == 6:
        fifo = fifo_dir / f"fifo{rng.randrange(1 << 30)}"
        if not fifo.exists():
            os.mkfifo(fifo)
        _remove(p)
        p.symlink_to(fifo) if rng.random() < 0.5 else os.mkfifo(p)
        return f"{rel}: a FIFO"
    if kind == 7:
        _remove(p)
        p.mkdir()
        if rng.random() < 0.5:
            (p / "run.json").write_bytes(b"{}")
        return f"{rel}: a directory"
    if kind == 8:
        _replace(p, b"x" * rng.randrange(100))
        return f"{rel}: a small file"
    if kind == 9:
        _remove(p)
        with open(p, "wb") as f:
            f.truncate(rng.choice([JSON_MAX_BYTES + 1, 1 << 34, 1 << 40]))
        return f"{rel}: a huge sparse file"
    if kind == 10:
        _remove(p)
        return f"{rel}: removed"
    if kind == 11:
        _remove(p)
        p.symlink_to(p.name if rng.random() < 0.5 else "missing")
        return f"{rel}: a symlink loop or dangling"
    if kind == 12 and _real_dir(root / "runs"):
        extra = root / "runs" / rng.choice(["0" * 32, "x", "zz" * 16])
        _remove(extra)
        if rng.random() < 0.5:
            extra.mkdir()
            if rng.random() < 0.5:
                (extra / "run.json").write_bytes(rng.choice(WRONG_JSON))
        else:
            extra.write_bytes(b"junk")
        return f"{extra.relative_to(root)}: an extra entry"
    _replace(p, rng.randbytes(rng.randrange(1, 4096)))
    return f"{rel}: random bytes"


# -- surfaces ------------------------------------------------------------------

ALLOWED = (StoreError, FileNotFoundError)


def _one_line(e: BaseException) -> None:
    text = str(e)
    if not text.strip() or "\n" in text.strip() or len(text) > 1000:
        raise CaseFailure(f"{type(e).__name__} message not one line: {text[:300]!r}")


def _read_all(res: fairlab.Result) -> None:
    """Reads every table of a loaded run (each is read when first used; as
    Arrow: pandas' conversion is not what is fuzzed, and costs most)."""
    for name in list(res.tables):
        try:
            res.tables.arrow(name)
        except StoreError as e:
            _one_line(e)


def drive_load(root: Path, digests: dict[str, str], rng: random.Random) -> str:
    got = fairlab.load(root)
    if isinstance(got, fairlab.Result):
        raise CaseFailure("load(STORE) gave a Result")
    listing = got.scan()
    for e in listing.damaged:
        _one_line(e)
    for key in listing.table["key"] if len(listing.table) else []:
        try:
            _read_all(got[key])
        except ALLOWED as e:
            _one_line(e)
    runs = sorted((root / "runs").iterdir()) if (root / "runs").is_dir() else []
    for d in rng.sample(runs, min(2, len(runs))):
        try:
            res = fairlab.load(d)
        except ALLOWED as e:
            _one_line(e)
            continue
        if isinstance(res, fairlab.Result):
            _read_all(res)
    return f"{len(listing.table)} rows, {len(listing.damaged)} damaged"


def drive_list(root: Path, digests: dict[str, str], rng: random.Random) -> str:
    st = Store(root, create=False)
    full = st.scan(full=True)
    quick = st.scan(full=False)
    for e in [*full.damaged, *quick.damaged]:
        _one_line(e)
    if len(full.table) > len(quick.table):
        raise CaseFailure("the full check lists runs the quick one leaves out")
    for key in st.run_keys():
        why = st.check(key)
        if why is not None and "\n" in why:
            raise CaseFailure(f"check({key}) not one line: {why!r}")
    _results_cli(root, rng)
    return f"{len(quick.table)} rows, {len(full.damaged)} damaged"


def _results_cli(root: Path, rng: random.Random) -> None:
    """``fairlab results`` on the damaged store: exit 0, or one line; with
    ``--verify``, exit 1 says damage was found, one line per damaged run."""
    argv = ["results", str(root), *rng.choice([[], ["--verify"], ["--table", "flows"]])]
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            code = main(argv)
        except SystemExit as e:
            code = e.code if isinstance(e.code, int) else 2
    lines = err.getvalue().strip().splitlines()
    if "--verify" in argv and code == 1:
        if not lines or any(not x.startswith("fairlab: damaged run: ") for x in lines):
            raise CaseFailure(f"{argv[0]} {argv[2:]}: exit 1 with {lines[:3]!r}")
        return
    if code != 0 and len(lines) != 1:
        raise CaseFailure(f"{argv[0]} {argv[2:]}: exit {code} with {lines[:3]!r}")


def drive_verify(root: Path, digests: dict[str, str], rng: random.Random) -> str:
    v = verify(root, rerun=True, jobs=1, progress=False)
    for e in v.damaged:
        _one_line(e)
    for why in [*v.unrecoverable.values(), *v.failed.values()]:
        if "\n" in why:
            raise CaseFailure(f"a reason not one line: {why!r}")
    st = Store(root, create=False)
    for key in v.rerun:
        if st.check(key) is not None:
            raise CaseFailure(f"rerun {key} but it is still damaged: {st.check(key)}")
        if key in digests and st.get(key).digest != digests[key]:
            raise CaseFailure(f"rerun {key} gave another digest")
    return f"{len(v.damaged)} damaged, {len(v.rerun)} rerun, {len(v.unrecoverable)} lost"


def drive_resume(root: Path, digests: dict[str, str], rng: random.Random) -> str:
    tasks = base_tasks()
    results = run_tasks(tasks, jobs=1, store=root, progress=False)
    want = sorted(digests.values())
    if sorted({r.digest for r in results}) != want:
        raise CaseFailure("a resumed sweep gave other digests than the runs it stored")
    st = Store(root, create=False)
    for key in digests:
        if st.check(key) is not None:
            raise CaseFailure(f"after resuming, {key} is not whole: {st.check(key)}")
    return "resumed"


DRIVERS: dict[str, Callable[[Path, dict[str, str], random.Random], str]] = {
    "load": drive_load,
    "list": drive_list,
    "verify": drive_verify,
    "resume": drive_resume,
}


def run_case(
    rng: random.Random,
    surface: str,
    base: Path,
    work: Path,
    digests: dict[str, str],
    say: Callable[[str], None],
) -> tuple[str, str, Any]:
    """Copies the base store, damages it, drives ``surface``; returns
    (outcome, detail, description). Outcomes: ok, refused (an allowed error,
    one line). Anything else propagates (the caller reports it); ``say`` is
    given the description as it grows, mutation by mutation."""
    root = work / "store"
    _remove(root)
    # Hard links: mutations replace files, never write into them (checked
    # at the end of a fuzz run: the base store must still be whole).
    shutil.copytree(base, root, symlinks=True, copy_function=os.link)
    done: list[str] = []
    for _ in range(rng.choice([1, 1, 1, 2, 3])):
        say(f"{surface}: mutating after " + "; ".join(done))
        done.append(mutate(rng, root, work))
    desc = f"{surface}: " + "; ".join(done)
    say(desc)
    try:
        return "ok", DRIVERS[surface](root, digests, rng), desc
    except ALLOWED as e:
        _one_line(e)
        return "refused", str(e)[:200], desc
