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

import json
import tomllib
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from . import _core, scenarios
from ._core import ScenarioError
from .result import Result

__version__ = _core.__version__
__all__ = [
    "ScenarioError",
    "Result",
    "load",
    "load_scenario",
    "scenarios",
    "simulate",
    "validate",
]

ScenarioLike = Mapping[str, Any] | str | Path


def load(directory: str | Path) -> Result:
    """Reads back a run written by ``Result.to_parquet`` or ``fairlab run --out``."""
    return Result.from_parquet(directory)


def load_scenario(path: str | Path) -> dict[str, Any]:
    """Reads a TOML scenario file into a dict (not yet validated)."""
    with open(path, "rb") as f:
        try:
            return tomllib.load(f)
        except tomllib.TOMLDecodeError as e:
            raise ScenarioError(f"{path}: not valid TOML: {e}") from None


def _as_json(scenario: ScenarioLike) -> str:
    if isinstance(scenario, Path) or (
        isinstance(scenario, str) and scenario.endswith(".toml") and "\n" not in scenario
    ):
        scenario = load_scenario(scenario)
    elif isinstance(scenario, str):
        try:
            scenario = tomllib.loads(scenario)
        except tomllib.TOMLDecodeError as e:
            raise ScenarioError(f"not valid TOML: {e}") from None
    if not isinstance(scenario, Mapping):
        raise ScenarioError(
            f"a scenario is a dict, a TOML string or a .toml path, not {type(scenario).__name__}"
        )
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
