"""The namespace backend: the same scenario on real Linux TCP, in network
namespaces on this machine (docs/emulation.md).

`emulate(scenario)` lowers the scenario (Rust, `spec/lower/netns.rs`),
builds it with `ip` and `tc` (apply.py) under a per-run prefix and state
file (safety.py), runs the traffic agents (agent.py), and returns a Result
with the simulator's tables (tables.py). `cleanup()` removes what earlier
runs left.
"""

from .run import emulate
from .safety import EmulationRefused, cleanup

__all__ = ["EmulationRefused", "cleanup", "emulate"]
