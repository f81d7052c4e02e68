"""The backend seam: one interface for the simulator, the kernel and ns-2,
chosen by name by the CLI, the studies and the report."""

from __future__ import annotations

import shutil

import fairlab
import pytest
from fairlab import backends, scenarios


def test_every_backend_is_found_by_its_name():
    assert backends.names() == ["sim", "emu", "ns2"]
    for name in backends.names():
        b = backends.get(name)
        assert b.name == name and b.title
    with pytest.raises(KeyError, match="'x' is not a backend; expected one of sim, emu, ns2"):
        backends.get("x")


def test_the_simulator_backend_gives_what_simulate_gives():
    sc = scenarios.incast(2, rounds=2)
    sim = backends.get("sim")
    assert sim.unavailable() is None and sim.refusal([sc]) is None and sim.parallel
    assert sim.run(sc, seed=3).summary["digest"] == fairlab.simulate(sc, seed=3).summary["digest"]


def test_unavailable_is_one_line_or_none(monkeypatch):
    monkeypatch.setenv("FAIRLAB_NS", "/nonexistent/ns")
    why = backends.get("ns2").unavailable()
    assert why is not None and "ns-2 is not installed" in why and "\n" not in why
    kernel = backends.get("emu").unavailable()
    assert kernel is None or "\n" not in kernel
    assert not backends.get("emu").parallel


def test_ns2_refuses_by_field_before_running():
    sc = scenarios.incast(2, profile="ns2", rounds=2) | {
        "queue": {"discipline": "hcf", "limit": "32pkt"}
    }
    why = backends.get("ns2").refusal([sc])
    assert why is not None and "queue.discipline" in why


@pytest.mark.skipif(shutil.which("ns") is None, reason="ns-2 is not installed")
def test_ns2_runs_tasks_side_by_side_in_task_order():
    from fairlab.runner import Task

    tasks = [Task(scenarios.incast(n, profile="ns2", rounds=2), 1, {"n": n}) for n in (1, 2)]
    results = backends.get("ns2").run_tasks()(tasks, jobs=2)
    assert [len(r.flows) for r in results] == [1, 2]
    assert all(r.summary["ns_version"] for r in results)
