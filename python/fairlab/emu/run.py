"""One emulated run: lower the scenario, build the namespaces, run the
agents, read the counters, tear everything down, and return a Result with
the simulator's tables."""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

from .. import _core
from ..result import Result, Tables
from . import machine as mach
from . import pcap as emu_pcap
from . import radon as emu_radon
from . import tables as tb
from .apply import Names, apply
from .safety import EmulationRefused, State, check_machine, guarded, new_prefix

AGENT = Path(__file__).with_name("agent.py")
CAPTURE = Path(__file__).with_name("capture.py")

#: Seconds the capture keeps going after the agents end: the port's queue
#: drains, so that a packet still queued is not counted as dropped.
CAPTURE_DRAIN_S = 0.3

#: Seconds a run without a duration may last at most (every agent stops then).
DEFAULT_TIME_LIMIT_S = 60.0

#: Seconds between T0 and the agents' start, for every agent to be waiting.
START_MARGIN_S = 0.3

_machine_cache: dict[str, Any] = {}


def lower(scenario_json: str, machine: dict) -> dict:
    """The plan of a scenario for this machine (raises ScenarioError)."""
    m = {k: machine[k] for k in ("hz", "congestion_controls", "qdiscs")}
    return json.loads(_core.lower_netns_json(scenario_json, json.dumps(m)))


def machine_facts(prefix: str) -> dict:
    if "facts" not in _machine_cache:
        _machine_cache["facts"] = mach.describe(prefix)
    return dict(_machine_cache["facts"])


def _tc_stats(ns: str) -> list[dict]:
    r = subprocess.run(
        ["tc", "-n", ns, "-s", "-j", "qdisc", "show"], capture_output=True, text=True
    )
    if r.returncode != 0 or not r.stdout.strip():
        return []
    return json.loads(r.stdout)


def _leaves(qs: list[dict]) -> list[dict]:
    """A port's FIFOs: every qdisc under its root, by handle (10:, 11:, ...:
    one per transmit queue of a multi-queue NIC)."""
    return sorted((q for q in qs if not q.get("root")), key=lambda q: int(q["handle"][:-1], 16))


def port_stats(names: Names) -> tuple[dict[tuple[str, str], dict], list[dict]]:
    """Per port: its root qdisc's sent bytes and packets and overlimits, its
    FIFOs' drops, queue lengths and backlogs (tc -s, tc(8)); and per
    transmit queue of a multi-queue NIC its FIFO's counters."""
    out: dict[tuple[str, str], dict] = {}
    per_queue: list[dict] = []
    by_ns: dict[str, list[dict]] = {}
    for p in names.plan["ports"]:
        ns = names.ns(p["node"])
        if ns not in by_ns:
            by_ns[ns] = _tc_stats(ns)
        dev = names.port_iface(p)
        qs = [q for q in by_ns[ns] if q.get("dev") == dev]
        root = next((q for q in qs if q.get("root")), {})
        leaves = _leaves(qs)
        out[(p["node"], p["peer"])] = {
            "packets": root.get("packets", 0),
            "bytes": root.get("bytes", 0),
            "overlimits": root.get("overlimits", 0),
            "drops": sum(q.get("drops", 0) for q in leaves),
            "qlen": sum(q.get("qlen", 0) for q in leaves),
            "backlog": sum(q.get("backlog", 0) for q in leaves),
        }
        if p.get("queues", 1) > 1:
            for i, q in enumerate(leaves):
                per_queue.append(
                    {
                        "node": p["node"],
                        "peer": p["peer"],
                        "queue": i,
                        "enq_pkts": q.get("packets", 0) + q.get("qlen", 0),
                        "deq_pkts": q.get("packets", 0),
                        "drop_pkts": q.get("drops", 0),
                        "max_pkts": tb.UNKNOWN,
                        "held_pkts": q.get("qlen", 0),
                        # A veth has no ring or BQL; what its htb class
                        # sends is on the peer at once; a frame per turn.
                        "ring_size": 0,
                        "ring_enq_pkts": 0,
                        "ring_max_pkts": 0,
                        "ring_held_pkts": 0,
                        "sent_pkts": q.get("packets", 0),
                        "sent_bytes": q.get("bytes", 0),
                        "bql_limit_bytes": tb.UNKNOWN,
                        "bql_max_limit_bytes": tb.UNKNOWN,
                        "turn_pkts": 1,
                        "flows": tb.UNKNOWN,
                        # No root qdisc above the queues (nic_root "mq"):
                        # nothing requeued by a root, nothing stalls.
                        "requeues": 0,
                        "root_stall_s": 0.0,
                        "root_stalled": 0,
                    }
                )
    return out, per_queue


class QueueSampler(threading.Thread):
    """Backlogs of the switch ports' FIFOs every interval (tc -s)."""

    def __init__(self, names: Names, interval_s: float, t0: float) -> None:
        super().__init__(daemon=True)
        self.names = names
        self.interval_s = max(interval_s, 0.005)
        self.t0 = t0
        self.rows: list[dict] = []
        self.halt = threading.Event()

    def run(self) -> None:
        ports = [p for p in self.names.plan["ports"] if p["node_kind"] == "switch"]
        nss = sorted({self.names.ns(p["node"]) for p in ports})
        while not self.halt.is_set():
            t = time.monotonic() - self.t0
            for ns in nss:
                stats = _tc_stats(ns)
                for p in ports:
                    if self.names.ns(p["node"]) != ns:
                        continue
                    dev = self.names.port_iface(p)
                    leaves = _leaves([q for q in stats if q.get("dev") == dev])
                    if leaves and t >= 0:
                        self.rows.append(
                            {
                                "t_s": t,
                                "node": p["node"],
                                "peer": p["peer"],
                                "bytes": sum(q.get("backlog", 0) for q in leaves),
                                "pkts": sum(q.get("qlen", 0) for q in leaves),
                            }
                        )
            self.halt.wait(self.interval_s)


def _agent_config(plan: dict, host: str, seed: int, deadline_s: float) -> dict:
    sample_s = 0.001 if plan.get("trace") else 0.01
    return {
        "host": host,
        "flows": plan["flows"],
        "workloads": plan["workloads"],
        "seed": seed,
        "deadline_s": deadline_s,
        "sample_s": sample_s,
        "bin_s": plan.get("throughput_bin_s"),
    }


def _start_capture(names: Names) -> subprocess.Popen | None:
    """The drop trace's capture in the switch's namespace, or None."""
    plan = names.plan
    dt = plan.get("drop_trace")
    if not dt:
        return None
    # The destinations the port reaches: the switch's routes over its link.
    dsts = [
        r["dst"].split("/")[0]
        for r in plan["routes"]
        if r["node"] == dt["node"] and dt["link"] in r["links"]
    ]
    cfg = {
        "out": names.iface(dt["link"], dt["end"]),
        "inputs": [[i["peer"], names.iface(i["link"], i["end"])] for i in dt["inputs"]],
        "dsts": dsts,
    }
    p = subprocess.Popen(
        ["ip", "netns", "exec", names.ns(dt["node"]), sys.executable, "-I", "-S", str(CAPTURE)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert p.stdin is not None and p.stdout is not None
    p.stdin.write(json.dumps(cfg) + "\n")
    p.stdin.flush()
    line = p.stdout.readline().strip()
    if line != "ready":
        err = p.stderr.read() if p.stderr else ""
        raise EmulationRefused(f"capture on {dt['node']} did not start: {err.strip()[-300:]}")
    return p


def run_agents(names: Names, seed: int, deadline_s: float, queue_sample_s: float | None):
    plan = names.plan
    hosts = [n["name"] for n in plan["nodes"] if n["kind"] == "host"]
    # Radon streams run in the socket agent (emu/radon.py), not here.
    busy = {f[k] for f in plan["flows"] if f["kind"] != "radon" for k in ("src", "dst")}
    procs = {}
    capture = _start_capture(names)
    if capture is not None:
        procs["(capture)"] = capture
    for h in hosts:
        if h not in busy:
            continue
        procs[h] = subprocess.Popen(
            ["ip", "netns", "exec", names.ns(h), sys.executable, "-I", "-S", str(AGENT)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
    try:
        agents = {h: p for h, p in procs.items() if h != "(capture)"}
        for h, p in agents.items():
            assert p.stdin is not None
            p.stdin.write(json.dumps(_agent_config(plan, h, seed, deadline_s)) + "\n")
            p.stdin.flush()
        for h, p in agents.items():
            assert p.stdout is not None
            line = p.stdout.readline().strip()
            if line != "ready":
                err = p.stderr.read() if p.stderr else ""
                raise EmulationRefused(f"agent on {h} did not start: {line or err.strip()[-300:]}")
        t0 = time.monotonic() + START_MARGIN_S
        sampler = QueueSampler(names, queue_sample_s, t0) if queue_sample_s else None
        if sampler:
            sampler.start()
        for p in procs.values():
            assert p.stdin is not None
            p.stdin.write(f"go {t0!r}\n")
            p.stdin.flush()
        reports = []
        for h, p in agents.items():
            left = t0 + deadline_s + 10.0 - time.monotonic()
            try:
                out, err = p.communicate(timeout=max(left, 1.0))
            except subprocess.TimeoutExpired:
                p.kill()
                raise EmulationRefused(
                    f"agent on {h} ran past its deadline and was killed"
                ) from None
            if p.returncode != 0 or not out.strip():
                raise EmulationRefused(f"agent on {h} failed: {err.strip()[-300:]}")
            reports.append(json.loads(out.strip().splitlines()[-1]))
        if sampler:
            sampler.halt.set()
            sampler.join(2.0)
        captured = None
        if capture is not None:
            time.sleep(CAPTURE_DRAIN_S)
            out, err = capture.communicate(timeout=60)
            if capture.returncode != 0 or not out.strip():
                raise EmulationRefused(f"capture failed: {err.strip()[-300:]}")
            captured = json.loads(out.strip().splitlines()[-1])
        return reports, (sampler.rows if sampler else []), t0, captured
    finally:
        for p in procs.values():
            if p.poll() is None:
                p.kill()
                p.wait()


class RadonRun(threading.Thread):
    """The plan's Radon streams (emu/radon.py) beside the Python agents."""

    def __init__(self, names: Names, deadline_s: float) -> None:
        super().__init__(name="radon", daemon=True)
        self.names, self.deadline_s = names, deadline_s
        self.out: dict | None = None
        self.error: BaseException | None = None

    def run(self) -> None:
        try:
            dur = self.names.plan["duration_s"] or self.deadline_s
            self.out = emu_radon.run(self.names, dur, self.deadline_s, trace=True)
        except BaseException as e:  # raised by result()
            self.error = e

    def result(self) -> dict | None:
        if self.error is not None:
            raise EmulationRefused(f"Radon agents failed: {self.error}") from self.error
        return self.out


def _probe_scenario(rate_bps: int) -> dict:
    """One shaped port at ``rate_bps`` with a bulk flow through it."""
    return {
        "name": "probe",
        "duration": "0.6s",
        "topology": {"kind": "star", "hosts": 2, "rate": f"{rate_bps}bps", "delay": "0us"},
        "queue": {"limit": "64KiB"},
        "tcp": {"profile": "linux"},
        "workload": [{"kind": "bulk", "src": "h0", "dst": "h1"}],
    }


def _overload_scenario(rate_bps: int) -> dict:
    """Two bulk flows from two hosts into a third, every link at
    ``rate_bps``: the port toward the third is offered twice its rate, and
    a machine that can offer that fills its 64 KiB and drops."""
    return {
        "name": "overload probe",
        "duration": "0.6s",
        "topology": {"kind": "star", "hosts": 3, "rate": f"{rate_bps}bps", "delay": "0us"},
        "queue": {"limit": "64KiB"},
        "tcp": {"profile": "linux"},
        "workload": [
            {"kind": "bulk", "src": "h0", "dst": "h2"},
            {"kind": "bulk", "src": "h1", "dst": "h2"},
        ],
    }


#: A probe is kept this long (seconds): the machine's load changes.
PROBE_MAX_AGE_S = 600.0


def probe(rate_bps: int) -> dict:
    """What the machine sustains through one htb-shaped port at
    ``rate_bps``: the bulk flow's goodput over the rate's payload share,
    its base RTT, the timer slack and how busy the CPUs were. Kept in the
    state directory for PROBE_MAX_AGE_S."""
    from .safety import STATE_DIR

    cache = STATE_DIR / f"probe-{rate_bps}.json"
    try:
        d = json.loads(cache.read_text())
        fresh = time.time() - d["at"] < PROBE_MAX_AGE_S
        if d["kernel"] == os.uname().release and fresh and "overload_drops" in d:
            return d
    except (OSError, ValueError, KeyError):
        pass
    res = emulate(_probe_scenario(rate_bps), seed=1, probe_first=False)
    # Whether the machine can offer a port more than its rate, as incast and
    # outcast need: at 1 Gb/s on the 2-core reference machine two senders
    # into one port delivered 957 Mb/s with no drop (the CPUs, not the
    # port, were the bottleneck), at 100 Mb/s the port dropped.
    ports = emulate(_overload_scenario(rate_bps), seed=1, probe_first=False).ports
    shared = ports[(ports["node"] == "sw") & (ports["peer"] == "h2")]
    overload_drops = int(shared["drop_pkts"].sum())
    mss = int(res.flows["mss_bytes"].iloc[0])
    # The most a TCP flow can deliver: payload over the frame (14 Ethernet
    # + 40 IP/TCP + 12 timestamps bytes of headers).
    ideal = rate_bps * mss / (mss + 66)
    d = {
        "kernel": os.uname().release,
        "at": time.time(),
        "rate_bps": rate_bps,
        "goodput_bps": float(res.flows["goodput_bps"].iloc[0]),
        "fraction": float(res.flows["goodput_bps"].iloc[0]) / ideal,
        "base_rtt_s": res.summary["base_rtt_s"],
        "timer_slack_us": mach.timer_slack_us(),
        "machine_busy": res.summary["machine_busy"],
        "overload_drops": overload_drops,
    }
    STATE_DIR.mkdir(parents=True, exist_ok=True)
    cache.write_text(json.dumps(d))
    return d


#: A probe below this fraction of the ideal goodput: the machine does not
#: sustain the scenario's rate faithfully.
FAITHFUL_FRACTION = 0.9


def emulate(
    scenario: str | dict,
    seed: int | None = None,
    time_limit_s: float = DEFAULT_TIME_LIMIT_S,
    warn=None,
    probe_first: bool = True,
) -> Result:
    """Runs a scenario (JSON text or dict) on the kernel; returns its Result.

    Raises EmulationRefused (machine) or ScenarioError (scenario)."""
    text = scenario if isinstance(scenario, str) else json.dumps(scenario)
    check_machine()
    prefix = new_prefix()
    # The probe namespace is the run's first name: recorded before it exists.
    probe_state = State(prefix=prefix, namespaces=[f"{prefix}-probe"])
    with guarded(probe_state):
        facts = machine_facts(prefix)
    plan = lower(text, facts)
    seed = plan["seed"] if seed is None else seed
    names = Names(prefix, plan)
    for w in plan["warnings"]:
        if warn:
            warn(w)
    fastest = max(p["shaper"]["rate_bps"] for p in plan["ports"])
    pr = probe(fastest) if probe_first else None
    if pr is not None and pr["fraction"] < FAITHFUL_FRACTION and warn:
        warn(
            f"this machine sustained {pr['goodput_bps'] / 1e6:.1f} Mb/s of TCP through one "
            f"port shaped to {fastest / 1e6:g} Mb/s ({100 * pr['fraction']:.0f} % of what the "
            f"rate allows, CPUs {100 * pr['machine_busy']:.0f} % busy): the scenario asks for "
            "more than it can emulate faithfully; expected slower links"
        )
    if pr is not None and pr["overload_drops"] == 0 and warn:
        warn(
            f"this machine cannot offer a port of {fastest / 1e6:g} Mb/s more than its rate: "
            "two senders at that rate into one such port (64 KiB) dropped nothing in 0.6 s, "
            "so queues at the scenario's switch ports will not build as in a network "
            "(incast and outcast need arrivals above a port's rate); expected slower links"
        )
    deadline_s = plan["duration_s"] or time_limit_s
    if emu_radon.streams(plan):
        why = emu_radon.spacing_warning(plan)
        if why and warn:
            warn(f"radon: {why}")
    state = State(prefix=prefix, namespaces=names.namespaces())
    load0 = os.getloadavg()[0]
    with guarded(state):
        t_setup = time.monotonic()
        apply(names)
        setup_s = time.monotonic() - t_setup
        drops0 = mach.softnet_drops()
        busy0, total0 = mach.cpu_times()
        # The captures first: if one cannot start, nothing else has.
        pcap = emu_pcap.start(names)
        radon_run = RadonRun(names, deadline_s) if emu_radon.streams(plan) else None
        if radon_run:
            radon_run.start()
        try:
            reports, qrows, t0, captured = run_agents(
                names, seed, deadline_s, plan["queue_sample_s"]
            )
        finally:
            if radon_run:
                radon_run.join()
            pcap_files, pcap_counts = emu_pcap.stop(pcap)
        radon_out = radon_run.result() if radon_run else None
        busy1, total1 = mach.cpu_times()
        stats, per_queue = port_stats(names)
        drops1 = mach.softnet_drops()
        t_down = time.monotonic()
    teardown_s = time.monotonic() - t_down
    errors = [e for r in reports for e in r["errors"]]
    if errors:
        raise EmulationRefused("agents failed: " + "; ".join(errors[:3]))
    run_end = max(r["end_s"] for r in reports) if reports else 0.0
    run_end = max(run_end, emu_radon.last_arrival_s(radon_out))
    if plan["duration_s"]:
        run_end = min(run_end, plan["duration_s"])
    flows = tb.flows_table(plan, reports, run_end)
    rounds = tb.rounds_table(plan, reports)
    ports = tb.ports_table(plan, stats, qrows)
    tables = {
        "flows": tb.frame(flows, tb.FLOW_COLUMNS),
        "rounds": tb.frame(rounds, tb.ROUND_COLUMNS),
        "ports": tb.frame(ports, tb.PORT_COLUMNS),
        "flow_series": tb.frame(tb.flow_series_table(plan, reports), tb.FLOW_SERIES_COLUMNS),
        "queue_series": tb.frame(qrows, tb.QUEUE_SERIES_COLUMNS),
        "trace": tb.frame(tb.trace_table(plan, reports), tb.TRACE_COLUMNS),
        "nic_queues": tb.frame(per_queue, tb.NIC_QUEUE_COLUMNS),
    }
    if radon_run:
        tables.update(emu_radon.tables(plan, radon_out))
        summary_radon = emu_radon.summary(radon_out)
    else:
        summary_radon = {}
    left_out = 0
    if captured is not None:
        trace, left_out = tb.drop_trace_table(plan, captured["rows"])
        tables["drop_trace"] = tb.frame(trace, tb.DROP_TRACE_COLUMNS)
        tables["port_inputs"] = tb.frame(
            tb.port_inputs_table(plan, captured["rows"]), tb.PORT_INPUT_COLUMNS
        )
        runs, flow_runs = tb.drop_runs_tables(plan, captured["rows"])
        tables["drop_runs"] = tb.frame(runs, tb.DROP_RUN_COLUMNS)
        tables["flow_drop_runs"] = tb.frame(flow_runs, tb.FLOW_DROP_RUN_COLUMNS)
    summary = _summary(plan, facts, seed, reports, flows, rounds, ports, run_end)
    summary.update(summary_radon)
    summary.update(
        {
            "run_prefix": prefix,
            "probe_rate_bps": pr["rate_bps"] if pr else float("nan"),
            "probe_goodput_fraction": pr["fraction"] if pr else float("nan"),
            "probe_base_rtt_s": pr["base_rtt_s"] if pr else float("nan"),
            "probe_overload_drops": pr["overload_drops"] if pr else -1,
            "timer_slack_us": pr["timer_slack_us"] if pr else float("nan"),
            "setup_s": setup_s,
            "teardown_s": teardown_s,
            "agents_cpu_s": sum(r["cpu_s"] for r in reports),
            "machine_busy": (busy1 - busy0) / max(total1 - total0, 1.0),
            "loadavg_before": load0,
            "softnet_drops": drops1 - drops0 if drops0 >= 0 else -1,
            "warnings": " | ".join(plan["warnings"]),
            "unfinished_agents": sum(r["unfinished_threads"] for r in reports),
        }
    )
    if captured is not None:
        summary["drop_trace_rows_left_out"] = left_out
        # Packets the capture's sockets missed: each may be a false drop.
        summary["capture_drops"] = captured["capture_drops"]
    summary.update(pcap_counts)
    sc = json.loads(_core.validate_json(text))
    summary["digest"] = _digest(tables)
    return Result(summary=summary, tables=Tables(tables), scenario=sc, pcap=pcap_files)


def _summary(plan, facts, seed, reports, flows, rounds, ports, run_end) -> dict[str, Any]:
    ccs = sorted({f["cc"] for f in plan["flows"] if f["cc"]})
    sacks = {f["sack"] for f in plan["flows"] if f["kind"] != "udp"}
    rb = sum(r["bytes"] for r in rounds)
    rt = sum(r["duration_s"] for r in rounds)
    has_incast = any(w["kind"] == "incast" for w in plan["workloads"])
    udp = [r for rep in reports for r in rep["records"] if "udp_sent" in r or "udp_delivered" in r]
    # The kernel's own minimum RTT of any flow (tcp_info.tcpi_min_rtt): the
    # emulation's path without queues, which replaces the links' delays.
    min_rtts = [
        r["info"]["min_rtt_us"]
        for rep in reports
        for r in rep["records"]
        if r.get("info") and r["info"].get("min_rtt_us", 0) > 0
    ]
    return {
        "backend": "emu",
        "seed": seed,
        "profile": plan["profile"],
        "sim_end_s": run_end,
        "events": 0,
        "packets_sent": sum(p["deq_pkts"] for p in ports if p["node_kind"] == "host"),
        "data_packets_sent": sum(max(f["segments_sent"], 0) for f in flows),
        "packet_hops": sum(p["deq_pkts"] for p in ports),
        "drops": sum(p["drop_pkts"] for p in ports if p["node_kind"] == "switch"),
        "local_drops": sum(p["drop_pkts"] for p in ports if p["node_kind"] == "host"),
        "rounds_completed": len(rounds),
        "incast_goodput_bps": rb * 8 / rt if has_incast and rt > 0 else float("nan"),
        "total_timeouts": sum(max(f["timeouts"], 0) for f in flows),
        "timeouts_retransmission": tb.UNKNOWN,
        "timeouts_tail": tb.UNKNOWN,
        "timeouts_window": tb.UNKNOWN,
        "tcp": ",".join(ccs),
        "sack": ("on" if sacks == {True} else "off" if sacks == {False} else "mixed")
        if sacks
        else "",
        "udp_sent": sum(r.get("udp_sent", 0) for r in udp),
        "udp_delivered": sum(r.get("udp_delivered", 0) for r in udp),
        "hcf_memory_bits": 0,
        "base_rtt_s": min(min_rtts) / 1e6 if min_rtts else float("nan"),
        "kernel": facts["kernel"],
        "hz": facts["hz"],
        "hz_source": facts["hz_source"],
        "cc_modules": ",".join(facts["congestion_controls"]),
        "qdiscs": ",".join(facts["qdiscs"]),
        "cpus": facts["cpus"],
    }


def _digest(tables: dict, backend: str = "emu") -> str:
    """A hash of the tables, to tell runs apart (not reproducible: the
    kernel's runs differ from one another), named by ``backend``."""
    h = hashlib.sha256()
    for name in sorted(tables):
        h.update(name.encode())
        h.update(json.dumps(tables[name].to_pydict(), default=str).encode())
    return f"{backend}-" + h.hexdigest()[:16]
