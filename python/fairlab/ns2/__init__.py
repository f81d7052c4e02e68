"""The ns-2 backend: a scenario lowered to a Tcl script of ns-2 2.35's
one-way TCP agents (crates/fairlab-sim/src/spec/lower/ns2.rs, then
script.py), run with `ns`, and read back into fairlab's tables (run.py).
docs/ns2.md says what it lowers, what it refuses and how it is checked
against fairlab's `ns2` host."""

from typing import Any

from .errors import Ns2Failed, Ns2Unavailable

__all__ = ["Ns2Failed", "Ns2Unavailable", "ns_binary", "simulate_ns2", "version"]


def __getattr__(name: str) -> Any:
    # The runner (and pandas, pyarrow behind it) only when used.
    if name in ("ns_binary", "simulate_ns2", "version"):
        from . import run

        return getattr(run, name)
    raise AttributeError(name)
