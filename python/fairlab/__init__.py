"""fairlab: a lab for the ways TCP turns unfair in data-center and storage
networks (incast, outcast, hash-cast, long-flow starvation) and their remedies.

Describe a network and a workload once (a TOML file or the same structure as a
dict), then simulate it packet by packet with the deterministic Rust core:

>>> import fairlab
>>> res = fairlab.simulate(fairlab.scenarios.incast(servers=4, rounds=5))
>>> res.summary["incast_goodput_bps"] > 0
True
"""

from __future__ import annotations

import errno
import json
import os
import tomllib
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from . import _core, scenarios
from ._core import ScenarioError
from .result import Result
from .rundir import MANIFEST, StoreError

if TYPE_CHECKING:
    from .store import Store

__version__ = _core.__version__
__all__ = [
    "ScenarioError",
    "Result",
    "StoreError",
    "load",
    "load_scenario",
    "open_store",
    "scenarios",
    "simulate",
    "validate",
]

ScenarioLike = Mapping[str, Any] | str | Path


def load(directory: str | Path) -> Result | Store:
    """Reads back a run or a results store.

    A run written by ``Result.to_parquet``, ``fairlab run --out``, or stored
    by a sweep or study (``STORE/runs/<key>``; one layout for all) gives its
    Result. A store (``sweep --store``, a study's results) gives the Store,
    opened for reading: ``store.table()`` has a row per run with its labels
    (a sweep's parameters and seed) and summary as columns, ``store[key]``
    is that run's Result; damaged runs are left out (``store.scan()`` says
    which). A missing path raises FileNotFoundError; a damaged run or
    anything else StoreError, one line naming the file.
    """
    from .store import MARKER, Store

    d = Path(directory)
    if os.path.lexists(d / MARKER):
        return Store(d, create=False)
    if d.is_dir() and any(os.path.lexists(d / n) for n in (MANIFEST, "summary.json")):
        return Result.from_parquet(d)
    if not os.path.lexists(d):
        raise FileNotFoundError(errno.ENOENT, "no such run or store directory", str(d))
    raise StoreError(
        d,
        "a directory without run.json or store.json" if d.is_dir() else "not a directory",
        "a run directory (fairlab run --out, Result.to_parquet) or a results store "
        "(fairlab sweep --store)",
    )


def open_store(directory: str | Path, *, verify: bool = False) -> Store:
    """Opens a results store for reading and querying.

    The Store ``fairlab.load`` gives (``table()``, ``store[key]``), with its
    runs as one dataset: ``store.sql("SELECT ... FROM flows ...")`` answers
    DuckDB SQL over views ``runs`` (one row per run: key, labels, summary)
    and one per table (flows, rounds, ports, ...) across every run, each row
    with its run's key, labels (a sweep's parameters) and seed;
    ``store.con`` is the DuckDB connection. Damaged runs are left out and
    listed in ``store.dataset().damaged``; ``verify`` checks every file's
    SHA-256 first. See ``fairlab.dataset``. A directory that is not a store
    raises StoreError (one line), a missing one FileNotFoundError.
    """
    from .store import MARKER, Store

    d = Path(directory)
    if not os.path.lexists(d):
        raise FileNotFoundError(errno.ENOENT, "no such store directory", str(d))
    if not os.path.lexists(d / MARKER):
        raise StoreError(d / MARKER, "missing", "a fairlab results store (fairlab sweep --store)")
    st = Store(d, create=False)
    if verify:
        st.dataset(verify=True)
    return st


#: Nesting of tables and arrays at which a scenario is refused: the Rust TOML
#: parser's limit. Real scenarios need four levels; the limit keeps Python's
#: TOML parser and JSON encoder from recursing into a pathological input.
MAX_NESTING = 80


def _check_nesting(value: Any, where: str) -> None:
    """Rejects data nested deeper than MAX_NESTING, without recursing."""
    stack = [(value, 0)]
    while stack:
        v, depth = stack.pop()
        if isinstance(v, Mapping | list | tuple):
            if depth >= MAX_NESTING:
                raise ScenarioError(
                    f"{where}: nested {MAX_NESTING} or more levels deep; a scenario nests a few "
                    "levels"
                )
            items = v.values() if isinstance(v, Mapping) else v
            stack.extend((x, depth + 1) for x in items)


def _parse_toml(text: str, path: str | None = None) -> dict[str, Any]:
    where = f"{path}: " if path else ""
    # First the Rust parser, which bounds nesting: tomllib recurses once per
    # nested array or inline table, and takes quadratic time and memory in the
    # length of a dotted key (a.a.a...), so it must not see such a file.
    try:
        _core.check_toml(text)
    except ScenarioError as e:
        msg = str(e)
        if "recursion limit exceeded" in msg:
            at = msg[msg.rfind(" (line ") :] if " (line " in msg else ""
            raise ScenarioError(
                f"{where}arrays, inline tables or dotted keys nested {MAX_NESTING} or more "
                f"levels deep{at}; a scenario nests a few levels"
            ) from None
        raise ScenarioError(f"{where}not valid TOML: {msg}") from None
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        raise ScenarioError(f"{where}not valid TOML: {e}") from None


def load_scenario(path: str | Path) -> dict[str, Any]:
    """Reads a TOML scenario file into a dict (not yet validated)."""
    with open(path, "rb") as f:
        data = f.read()
    try:
        text = data.decode()
    except UnicodeDecodeError as e:
        line = data.count(b"\n", 0, e.start) + 1
        raise ScenarioError(
            f"{path}: not UTF-8 text (byte 0x{data[e.start]:02x} on line {line}); "
            "a scenario file is UTF-8 TOML"
        ) from None
    return _parse_toml(text, str(path))


def _as_json(scenario: ScenarioLike) -> str:
    if isinstance(scenario, Path) or (
        isinstance(scenario, str) and scenario.endswith(".toml") and "\n" not in scenario
    ):
        scenario = load_scenario(scenario)
    elif isinstance(scenario, str):
        scenario = _parse_toml(scenario)
    if not isinstance(scenario, Mapping):
        raise ScenarioError(
            f"a scenario is a dict, a TOML string or a .toml path, not {type(scenario).__name__}"
        )
    _check_nesting(scenario, "scenario")
    try:
        return json.dumps(scenario)
    except (TypeError, ValueError) as e:
        raise ScenarioError(f"scenario holds a value that is not plain data: {e}") from None


def validate(scenario: ScenarioLike) -> dict[str, Any]:
    """Checks a scenario and returns it with every default filled in."""
    return json.loads(_core.validate_json(_as_json(scenario)))


def simulate(scenario: ScenarioLike, seed: int | None = None, progress: bool = False) -> Result:
    """Simulates a scenario to its end and returns its tables.

    ``seed`` overrides the scenario's own ``seed``; the same scenario and seed
    always give bit-identical results. ``progress`` draws a bar on stderr.
    """
    if seed is not None and not (isinstance(seed, int) and 0 <= seed < 2**64):
        raise ScenarioError(f"seed: {seed!r} is not allowed; expected an integer in [0, 2^64)")
    raw = _core.simulate_json(_as_json(scenario), seed, progress)
    return Result.from_core(raw)
