"""Checking a results store run by run, and repairing it by running again.

``verify(root)`` lists every damaged run (``fairlab results STORE --verify``);
``verify(root, rerun=True)`` also runs each again from what the store holds
of it (its scenario.json and seed) and stores it whole under its key. A run
whose scenario.json is damaged, or does not give the run's key with its
seed (a file edited by hand, or a run of another fairlab version), cannot
be run again and is reported so.

This sits above the store and the runner (it uses both); neither imports it.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

from ._core import ScenarioError
from .rundir import (
    JSON_MAX_BYTES,
    MANIFEST,
    StoreError,
    one_line,
    parse_json,
    read_bounded,
    read_manifest,
    run_key,
)
from .runner import Task, TasksFailed, run_tasks
from .store import Store


@dataclass
class Verification:
    """What ``verify`` found and did.

    ``damaged``: every damaged run, one StoreError each (its ``path``, what
    is wrong, what was expected; ``str()`` is one line). ``rerun``: the keys
    run again and now stored whole. ``unrecoverable``: runs that cannot be
    run again, each with why (one line). ``failed``: keys whose rerun
    failed, with the error."""

    damaged: list[StoreError] = field(default_factory=list)
    #: The keys of the damaged runs, in the order of ``damaged``.
    keys: list[str] = field(default_factory=list)
    rerun: list[str] = field(default_factory=list)
    unrecoverable: dict[str, str] = field(default_factory=dict)
    failed: dict[str, str] = field(default_factory=dict)

    @property
    def ok(self) -> bool:
        """Whether the store is whole now."""
        return set(self.keys) <= set(self.rerun)


def verify(
    root: str | Path, *, rerun: bool = False, jobs: int | None = None, progress: bool | None = None
) -> Verification:
    """Checks every run of the store ``root`` against its run.json (every
    file's size and SHA-256, run.json's shape and key, summary.json and
    scenario.json JSON objects); with ``rerun``, runs each damaged one again
    (``jobs``, ``progress``: as ``run_tasks``) and replaces it.

    For the command line, ``fairlab results STORE --verify [--rerun]``::

        v = verify(store, rerun=args.rerun)
        for e in v.damaged:          # stderr, one line each
            print(f"fairlab: damaged run: {e}")
        for key in v.rerun:
            print(f"fairlab: run again and stored: {key}")
        for key, why in {**v.unrecoverable, **v.failed}.items():
            print(f"fairlab: cannot repair {key}: {why}")
        exit code 0 if v.ok else 1

    Raises StoreError (one line) if ``root`` is not a store.
    """
    st = Store(root, create=False)
    damaged = st.damaged(full=True)
    report = Verification(damaged, [_key_of(st, e.path) for e in damaged])
    if not rerun or not damaged:
        return report
    tasks: list[Task] = []
    owners: list[str] = []
    for key in report.keys:
        try:
            found = _recover(st, key)
        except StoreError as e:
            report.unrecoverable[key] = str(e)
            continue
        for t in found:
            tasks.append(t)
            owners.append(key)
    if not tasks:
        return report
    try:
        run_tasks(tasks, jobs=jobs, store=st.root, progress=progress)
    except TasksFailed as e:
        for i, why in e.failures.items():
            report.failed[owners[i]] = why
    report.rerun = sorted({k for k in owners if k not in report.failed and st.check(k) is None})
    for k in dict.fromkeys(owners):
        if k not in report.rerun and k not in report.failed:
            report.failed[k] = str(st.check(k))
    return report


def _key_of(st: Store, path: Path) -> str:
    """The run key (directory name under runs/) a damaged file belongs to."""
    rel = path.relative_to(st.runs_dir) if path.is_relative_to(st.runs_dir) else path
    return rel.parts[0] if rel.parts else path.name


def _recover(st: Store, key: str) -> list[Task]:
    """The tasks that run ``key`` again: its scenario.json and seed (from
    run.json, else summary.json) must give back ``key`` under this fairlab
    version; its label sets are kept when run.json is readable."""
    from . import _core

    d = st.path(key)
    if not d.is_dir():
        raise StoreError(d, "not a directory", "a run directory holding scenario.json")
    try:
        scenario = parse_json(
            d / "scenario.json", read_bounded(d / "scenario.json", JSON_MAX_BYTES)
        )
    except FileNotFoundError:
        raise StoreError(d / "scenario.json", "missing", "the run's scenario") from None
    labels: list[dict] = [{}]
    seeds: list[int] = []
    try:
        doc = read_manifest(d)
        labels = doc.get("labels") or [{}]
        if "seed" in doc:
            seeds.append(doc["seed"])
    except StoreError:
        pass  # run.json damaged: the seed may be in summary.json
    try:
        summary = parse_json(d / "summary.json", read_bounded(d / "summary.json", JSON_MAX_BYTES))
        if type(summary.get("seed")) is int:
            seeds.append(summary["seed"] % 2**64)
    except (StoreError, FileNotFoundError):
        pass
    if not seeds:
        raise StoreError(d / MANIFEST, "no seed readable here or in summary.json", "the run's seed")
    text = json.dumps(scenario)
    for seed in dict.fromkeys(seeds):
        if run_key(text, seed, _core.__version__) == key:
            try:
                _core.validate_json(text)
            except ScenarioError as e:
                raise StoreError(d / "scenario.json", one_line(e), "a valid scenario") from None
            return [Task(scenario, seed, x) for x in labels]
    raise StoreError(
        d / "scenario.json",
        f"with seed {seeds[0]} it does not give the run's key (this file damaged, or the run "
        "made by another fairlab version)",
        "the scenario the run was stored with",
    )
