"""A sweep as a table: jobs (coordinates, scenario, seed) in, one row per run
out, run by ``fairlab.runner`` (a local process pool or a Dask cluster).

Rows come back in submission order, so a sweep's table does not depend on
which worker finished first; every run is itself deterministic.
"""

from __future__ import annotations

import copy
import itertools
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ._core import ScenarioError
from .plain import check_plain, shorten

if TYPE_CHECKING:
    import pandas as pd

    from .result import Result
    from .runner import Task


@dataclass
class Job:
    """One run: its sweep coordinates, its scenario and its seed."""

    params: dict[str, Any]
    scenario: dict[str, Any]
    seed: int | None = None
    keep: Sequence[str] = field(default_factory=tuple)


def run_jobs(
    jobs: Sequence[Job],
    workers: int | None = None,
    progress: bool | None = None,
    *,
    cluster: str | None = None,
    store: str | Path | None = None,
) -> pd.DataFrame:
    """Runs ``jobs`` with ``fairlab.runner.run_tasks``; one row per run.

    Each row holds the job's parameters followed by the run's summary, and
    the tables a job asks to ``keep``. ``workers``: local worker processes
    (default: all cores); ``cluster``, ``store``: see ``run_tasks``.
    """
    import pandas as pd

    from .runner import Task, run_tasks

    tasks = [Task(j.scenario, j.seed, j.params) for j in jobs]
    results = run_tasks(tasks, jobs=workers, cluster=cluster, store=store, progress=progress)
    rows: list[dict[str, Any]] = []
    for job, res in zip(jobs, results, strict=True):
        row = dict(job.params)
        row.update(res.summary)
        for name in job.keep:
            row[name] = res.tables[name]
        rows.append(row)
    return pd.DataFrame(rows)


# -- sweeps over scenario fields ---------------------------------------------
#
# `fairlab sweep SCENARIO.toml --param PATH=V1,V2 ...`: the Cartesian product
# of the values, each run a Task of fairlab.runner, every value checked by the
# simulator's own validation before anything runs.

#: Summary keys that are not measurements of the network.
_NOT_METRICS = {"seed", "digest", "profile"}


def parse_path(path: str) -> list[str | int]:
    """``workload.0.servers`` or ``workload[0].servers`` -> ["workload", 0, "servers"]."""
    out: list[str | int] = []
    for part in path.replace("[", ".").replace("]", "").split("."):
        if part == "":
            raise ScenarioError(
                f"--param {shorten(path)}: empty field name; expected a field path such as "
                "topology.rate or workload.0.servers"
            )
        out.append(int(part) if part.isdigit() else part)
    return out


def _path_text(parts: Sequence[str | int]) -> str:
    text = ""
    for p in parts:
        text += f"[{p}]" if isinstance(p, int) else (f".{p}" if text else p)
    return text


def parse_value(text: str) -> Any:
    """A value as TOML reads it (4, 0.5, true, "x", [1, 2]); anything else as text.

    Arrays and inline tables nested deeper than the Rust parser's limit are
    refused before Python's parser (which recurses once per level) sees them."""
    import tomllib

    from . import MAX_NESTING, _core

    text = text.strip()
    try:
        _core.check_toml(f"v = {text}")
    except ScenarioError as e:
        if "recursion limit exceeded" in str(e):
            raise ScenarioError(
                f"arrays or inline tables nested {MAX_NESTING} or more levels deep; a value "
                "nests a few levels"
            ) from None
    try:
        return tomllib.loads(f"v = {text}")["v"]
    except tomllib.TOMLDecodeError:
        return text


def split_values(text: str) -> list[str]:
    """Splits ``V1,V2,...`` at commas outside brackets, braces and quotes."""
    out, cur, depth, quote = [], "", 0, ""
    for ch in text:
        if quote:
            quote = "" if ch == quote else quote
        elif ch in "\"'":
            quote = ch
        elif ch in "[{":
            depth += 1
        elif ch in "]}":
            depth -= 1
        elif ch == "," and depth == 0:
            out.append(cur)
            cur = ""
            continue
        cur += ch
    out.append(cur)
    return [v.strip() for v in out]


def parse_param(text: str) -> tuple[str, list[Any]]:
    """``PATH=V1,V2,...`` -> (PATH, [values])."""
    path, eq, values = text.partition("=")
    path = path.strip()
    if not eq or not path:
        raise ScenarioError(
            f"--param {shorten(text)}: expected PATH=V1,V2,... such as topology.rate=1Gbps,10Gbps"
        )
    parse_path(path)
    vals = split_values(values)
    if any(v == "" for v in vals):
        raise ScenarioError(
            f"--param {shorten(text)}: an empty value; expected PATH=V1,V2,... with values "
            "between the commas"
        )
    out = []
    for v in vals:
        try:
            value = parse_value(v)
            check_plain(value, "")
        except ScenarioError as e:
            raise ScenarioError(f"--param {shorten(path)}={shorten(v)}: {e}") from None
        out.append(value)
    return path, out


def set_field(scenario: dict[str, Any], path: str, value: Any) -> None:
    """Sets the field at ``path`` of ``scenario`` (in place), making missing tables."""
    parts = parse_path(path)
    node: Any = scenario
    for n, part in enumerate(parts[:-1]):
        here = _path_text(parts[: n + 1])
        nxt = parts[n + 1]
        if isinstance(part, int):
            if not isinstance(node, list):
                raise ScenarioError(
                    f"--param {path}: {_path_text(parts[:n]) or 'the scenario'} is not a list; "
                    f"{part} is not a field name"
                )
            if not 0 <= part < len(node):
                raise ScenarioError(
                    f"--param {path}: {_path_text(parts[:n])} has {len(node)} entries; "
                    f"expected an index from 0 to {len(node) - 1}"
                )
            node = node[part]
            continue
        if not isinstance(node, dict):
            raise ScenarioError(f"--param {path}: {_path_text(parts[:n])} is not a table")
        if part not in node:
            if isinstance(nxt, int):
                raise ScenarioError(
                    f"--param {path}: the scenario has no {here}; an index needs an existing list"
                )
            node[part] = {}
        elif not isinstance(node[part], dict | list):
            raise ScenarioError(
                f"--param {path}: {here} is {shorten(repr(node[part]))}, not a table or list; "
                f"{nxt} cannot be set inside it"
            )
        node = node[part]
    last = parts[-1]
    if isinstance(last, int):
        if not isinstance(node, list) or not 0 <= last < len(node):
            raise ScenarioError(f"--param {path}: no entry {last} to replace")
        node[last] = value
    elif not isinstance(node, dict):
        raise ScenarioError(f"--param {path}: {_path_text(parts[:-1])} is not a table")
    else:
        node[last] = value


def _show(value: Any) -> str:
    return value if isinstance(value, str) else json.dumps(value)


def sweep_tasks(
    base: Mapping[str, Any],
    params: Sequence[tuple[str, Sequence[Any]]],
    seeds: Sequence[int] | None = None,
) -> list[Task]:
    """The Cartesian product of ``params`` over ``base``, times ``seeds``.

    Every value is validated alone, then every combination, by the simulator's
    own checks, before anything runs; a bad one raises ScenarioError naming
    ``--param PATH=VALUE`` and what is allowed.
    """
    from . import _as_json, _core
    from .runner import Task

    try:
        base_seed = json.loads(_core.validate_json(_as_json(base)))["seed"]
    except ScenarioError as e:
        raise ScenarioError(f"the scenario: {e}") from None
    seen: dict[str, str] = {}
    for path, _ in params:
        # workload[0].size and workload.0.size name one field.
        norm = _path_text(parse_path(path))
        if norm in seen:
            same = "" if seen[norm] == path else f" (as --param {shorten(seen[norm])})"
            raise ScenarioError(
                f"--param {shorten(path)}: given twice{same}; give its values in one --param"
            )
        seen[norm] = path
    tasks = []
    for combo in itertools.product(*(values for _, values in params)):
        sc = copy.deepcopy(dict(base))
        for (path, _), v in zip(params, combo, strict=True):
            set_field(sc, path, v)
        try:
            _core.validate_json(_as_json(sc))
        except ScenarioError as e:
            raise ScenarioError(_blame(params, combo, str(e))) from None
        labels = {path: v for (path, _), v in zip(params, combo, strict=True)}
        for seed in seeds or [None]:
            lab = dict(labels)
            lab["seed"] = seed if seed is not None else base_seed
            tasks.append(Task(sc, seed, lab))
    return tasks


def _blame(params: Sequence[tuple[str, Sequence[Any]]], combo: Sequence[Any], msg: str) -> str:
    """The validation error ``msg`` of a combination, prefixed with the
    parameter its field path names (or, if none, with all of them)."""
    field_path = msg.split(":", 1)[0]
    named = []
    for (p, _), v in zip(params, combo, strict=True):
        t = _path_text(parse_path(p))
        if field_path == t or field_path.startswith((t + ".", t + "[")):
            named.append((p, v))
    if not named:
        named = [(p, v) for (p, _), v in zip(params, combo, strict=True)]
    return " ".join(f"--param {shorten(p)}={shorten(_show(v))}" for p, v in named) + f": {msg}"


def metrics_of(res: Result) -> dict[str, Any]:
    """A run's numbers for a sweep table: its summary's measurements, and the
    flows' goodput (mean, min, Jain's fairness index)."""
    row = {k: v for k, v in res.summary.items() if k not in _NOT_METRICS}
    f = res.flows
    g = f["goodput_bps"].to_numpy(dtype=float) if len(f) else None
    if g is not None and len(g):
        row["flow_goodput_mean_bps"] = float(g.mean())
        row["flow_goodput_min_bps"] = float(g.min())
        row["jain_index"] = jain_index(g)
    return row


def jain_index(values: Sequence[float]) -> float:
    """Jain's fairness index of ``values``: (sum x)^2 / (n sum x^2); NaN when
    all are zero."""
    s = float(sum(values))
    sq = float(sum(v * v for v in values))
    return s * s / (len(values) * sq) if sq > 0 else float("nan")


def sweep_table(
    tasks: Sequence[Task], results: Sequence[Result], params: Sequence[str]
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """(runs, summary): one row per run (params, seed, key, metrics); and one
    row per parameter combination with ``seeds`` and each metric's mean and
    standard deviation over seeds (``<metric>_mean``, ``<metric>_std``; NaN
    with one seed)."""
    import pandas as pd

    from . import _core
    from .store import run_key

    rows = []
    for t, res in zip(tasks, results, strict=True):
        row = {p: _cell(t.labels[p]) for p in params}
        row["seed"] = t.labels["seed"]
        row["key"] = run_key(json.dumps(res.scenario), res.summary["seed"], _core.__version__)
        row.update(metrics_of(res))
        rows.append(row)
    runs = pd.DataFrame(rows)
    metrics = [
        c
        for c in runs.columns
        if c not in (*params, "seed", "key") and pd.api.types.is_numeric_dtype(runs[c])
    ]
    groups = runs.groupby(list(params), sort=False, dropna=False) if params else [((), runs)]
    out = []
    for key, g in groups:
        key = key if isinstance(key, tuple) else (key,)
        row = dict(zip(params, key, strict=True))
        row["seeds"] = len(g)
        for m in metrics:
            row[f"{m}_mean"] = g[m].mean()
            row[f"{m}_std"] = g[m].std(ddof=1) if len(g) > 1 else float("nan")
        out.append(row)
    return runs, pd.DataFrame(out)


def _cell(v: Any) -> Any:
    return json.dumps(v) if isinstance(v, list | dict) else v


#: Units of metrics by name ending: (suffix, scale, unit shown).
_UNITS = [("_bps", 1e-6, "Mb/s"), ("_s", 1.0, "s"), ("_bytes", 1.0, "bytes"), ("_bits", 1, "bits")]


def metric_label(metric: str) -> str:
    """A metric's name for an axis: incast_goodput_bps -> "incast goodput"."""
    for suffix in ("_bps", "_s", "_bytes", "_bits"):
        if metric.endswith(suffix):
            metric = metric.removesuffix(suffix)
            break
    return metric.replace("_", " ")


def metric_unit(metric: str) -> tuple[float, str]:
    """(scale, unit) to show ``metric`` in: bit/s as Mb/s, seconds as s, else a count."""
    if metric == "jain_index":
        return 1.0, "Jain's index"
    for suffix, scale, unit in _UNITS:
        if metric.endswith(suffix):
            return scale, unit
    return 1.0, "count"


def axis_values(values: Sequence[Any]) -> tuple[list[float], str] | None:
    """Numbers for parameter values on a plot axis and their unit, or None if they
    are not all numbers (or all durations, sizes or rates)."""
    from .units import parse_packets, parse_rate_bps, parse_size, parse_time_ps

    if all(isinstance(v, int | float) and not isinstance(v, bool) for v in values):
        return [float(v) for v in values], ""
    if not all(isinstance(v, str) for v in values):
        return None
    try:
        secs = [parse_time_ps(v) / 1e12 for v in values]
    except ValueError:
        pass
    else:
        top = max(secs)
        for unit, scale in (("s", 1.0), ("ms", 1e-3), ("µs", 1e-6), ("ns", 1e-9)):
            if top >= scale or unit == "ns":
                return [x / scale for x in secs], unit
    parsers: list[tuple[Any, str]] = [
        (lambda v: parse_rate_bps(v) / 1e6, "Mb/s"),
        (lambda v: parse_size(v) / 1024, "KiB"),
        (parse_packets, "packets"),
    ]
    for parse, unit in parsers:
        try:
            return [float(parse(v)) for v in values], unit
        except ValueError:
            continue
    return None
