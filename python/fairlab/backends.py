"""One seam for what runs a scenario: the simulator, the kernel in network
namespaces, or real ns-2. Every backend takes the same scenario and gives the
same tables (a :class:`~fairlab.result.Result`); the CLI, the runner, the
studies and the report choose one by name here instead of by hand.

>>> from fairlab import backends
>>> sim = backends.get("sim")
>>> sim.unavailable() is None
True

Each backend imports its machinery only when it runs: choosing one, or
asking whether it is available, loads nothing heavy.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .result import Result
    from .runner import Task

Warn = Callable[[str], None]


class Backend:
    """Runs scenarios; ``name`` is how the command line and the stores call it."""

    #: "sim", "emu" or "ns2".
    name: str = ""
    #: What a report calls it ("the simulator", "the kernel", "ns-2").
    title: str = ""
    #: Runs may go side by side on one machine (the kernel's would measure each other).
    parallel: bool = True

    def unavailable(self) -> str | None:
        """Why this backend cannot run on this machine (one line), or None."""
        return None

    def run(
        self,
        scenario: Any,
        seed: int | None = None,
        *,
        time_limit_s: float | None = None,
        warn: Warn | None = None,
        progress: bool = False,
    ) -> Result:
        """Runs one scenario (a dict, TOML text or path) to its end."""
        raise NotImplementedError

    def refusal(self, scenarios: Sequence[Any]) -> str | None:
        """Why this backend refuses one of ``scenarios`` (the first, one line),
        or None; checked before the first run."""
        return None

    def header(self, res: Result) -> str | None:
        """A line on what only this backend's run has (kernel, ns-2 version)."""
        return None

    def run_tasks(self, warn: Warn | None = None) -> Callable[..., list[Result]]:
        """A ``fairlab.runner.run_tasks`` for this backend (one run after
        another where runs must not share the machine; no results store)."""

        def run(tasks: Sequence[Task], **_: Any) -> list[Result]:
            return [self.run(t.scenario, t.seed, warn=warn) for t in tasks]

        return run


class Simulator(Backend):
    name = "sim"
    title = "the simulator"

    def run(self, scenario, seed=None, *, time_limit_s=None, warn=None, progress=False):
        from . import simulate

        return simulate(scenario, seed=seed, progress=progress)

    def run_tasks(self, warn: Warn | None = None) -> Callable[..., list[Result]]:
        from .runner import run_tasks

        return run_tasks


class Kernel(Backend):
    """Real Linux TCP in network namespaces on this machine (docs/emulation.md)."""

    name = "emu"
    title = "the kernel"
    parallel = False

    def unavailable(self) -> str | None:
        from .emu.safety import EmulationRefused, check_machine

        try:
            check_machine()
        except EmulationRefused as e:
            return str(e)
        return None

    def run(self, scenario, seed=None, *, time_limit_s=None, warn=None, progress=False):
        from .emu import emulate
        from .emu.run import DEFAULT_TIME_LIMIT_S

        return emulate(
            scenario, seed=seed, time_limit_s=time_limit_s or DEFAULT_TIME_LIMIT_S, warn=warn
        )

    def refusal(self, scenarios: Sequence[Any]) -> str | None:
        import json

        from . import ScenarioError
        from .emu.run import lower, machine_facts
        from .emu.safety import State, check_machine, guarded, new_prefix

        check_machine()
        prefix = new_prefix()
        with guarded(State(prefix=prefix, namespaces=[f"{prefix}-probe"])):
            facts = machine_facts(prefix)
        seen = set()
        for sc in scenarios:
            text = json.dumps(sc, sort_keys=True)
            if text in seen:
                continue
            seen.add(text)
            try:
                lower(text, facts)
            except ScenarioError as e:
                return str(e)
        return None

    def header(self, res: Result) -> str | None:
        s = res.summary
        return (
            f"backend emu: kernel {s['kernel']}, HZ {s['hz']}, congestion controls "
            f"{s['cc_modules']}; set-up {s['setup_s']:.2f} s, tear-down {s['teardown_s']:.2f} s, "
            f"agents' CPU {s['agents_cpu_s']:.2f} s, machine busy {100 * s['machine_busy']:.0f} "
            f"%, softnet drops {s['softnet_drops']}"
        )


class Ns2(Backend):
    """Real ns-2 2.35's one-way agents (docs/ns2.md)."""

    name = "ns2"
    title = "ns-2"

    def unavailable(self) -> str | None:
        from .ns2 import ns_binary

        if ns_binary() is None:
            return "ns-2 is not installed (`ns` is not on the PATH; Debian: apt-get install ns2)"
        return None

    def run(self, scenario, seed=None, *, time_limit_s=None, warn=None, progress=False):
        from .ns2 import simulate_ns2
        from .ns2.run import DEFAULT_TIME_LIMIT_S

        res = simulate_ns2(
            _plain(scenario), seed=seed, time_limit_s=time_limit_s or DEFAULT_TIME_LIMIT_S
        )
        for w in filter(None, str(res.summary.get("warnings", "")).split(" | ")):
            if warn is not None:
                warn(w)
        return res

    def refusal(self, scenarios: Sequence[Any]) -> str | None:
        import json

        from . import ScenarioError
        from .ns2.run import lower, version

        try:
            for sc in scenarios:
                lower(json.dumps(_plain(sc)))
        except ScenarioError as e:
            return str(e)
        version()  # a missing or broken `ns` raises, before the first run
        return None

    def run_tasks(self, warn: Warn | None = None) -> Callable[..., list[Result]]:
        """Every task on ns-2, ``jobs`` ns processes at a time (each run is one
        single-threaded ns process; default: all cores); no results store."""

        def run(tasks: Sequence[Task], jobs: int | None = None, **_: Any) -> list[Result]:
            import os
            from concurrent.futures import ThreadPoolExecutor

            workers = max(1, jobs or os.cpu_count() or 1)
            with ThreadPoolExecutor(max_workers=workers) as ex:
                return list(ex.map(lambda t: self.run(t.scenario, t.seed, warn=warn), tasks))

        return run

    def header(self, res: Result) -> str | None:
        s = res.summary
        return f"backend ns2: ns-2 {s['ns_version']}, {s['wall_s']:.2f} s in ns, script " + str(
            s["script_digest"]
        )


def _plain(scenario: Any) -> Any:
    """A scenario as a dict or JSON text (what ns-2's lowering takes)."""
    from pathlib import Path

    if isinstance(scenario, Path) or (isinstance(scenario, str) and scenario.endswith(".toml")):
        from . import load_scenario

        return load_scenario(scenario)
    return scenario


BACKENDS: dict[str, Backend] = {b.name: b for b in (Simulator(), Kernel(), Ns2())}


def names() -> list[str]:
    return list(BACKENDS)


def get(name: str) -> Backend:
    """The backend called ``name`` ("sim", "emu", "ns2"); KeyError naming the
    known ones otherwise."""
    try:
        return BACKENDS[name]
    except KeyError:
        known = ", ".join(BACKENDS)
        raise KeyError(f"{name!r} is not a backend; expected one of {known}") from None
