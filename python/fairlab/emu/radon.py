"""Radon streams on the namespace backend: the plan's ``radon`` workloads run
by the socket agent (``crates/fairlab-radon``; docs/radon.md, "On real
sockets"), one receiver and one sender for the whole emulated network: each
stream's socket is opened in its host's namespace, and one sender loop paces
every stream (six busy-waiting processes on two cores would spoil each
other's pacing).

The receiver runs on a thread of this process and the sender on another
(both release the GIL); the Python agents of the plan's other workloads run
beside them. Their tables (``streams``, ``radon_series``, ``pacing``) keep
the simulator's column names (``fairlab.metrics``), so ``fairlab compare``
sets the two backends side by side.
"""

from __future__ import annotations

import json
import threading
from typing import Any

from .. import _core
from .apply import Names

#: The sending loop's real-time priority in the namespaces (SCHED_FIFO; the
#: namespace backend runs as root): the sender spins on one core, and on a
#: machine with other work a normal-priority spinner is preempted for
#: milliseconds (p99 lateness of 4.9 ms at load 8-11 on two cores, against
#: 16-26 us under SCHED_FIFO: BENCHMARKS.md, "Radon on real sockets"). The
#: kernel's real-time throttle still leaves the core 5 % for everything
#: else.
RT_PRIORITY = 50

_RT_ALLOWED: bool | None = None


def rt_allowed() -> bool:
    """Whether this machine lets a process take a SCHED_FIFO priority
    (root without CAP_SYS_NICE in a container may not): tried once, in a
    child process, so this one's scheduling is untouched."""
    global _RT_ALLOWED
    if _RT_ALLOWED is None:
        import subprocess
        import sys

        code = "import os; os.sched_setscheduler(0, os.SCHED_FIFO, os.sched_param(1))"
        r = subprocess.run([sys.executable, "-I", "-S", "-c", code], capture_output=True)
        _RT_ALLOWED = r.returncode == 0
    return _RT_ALLOWED


#: How long after its last datagram the sender waits for the last feedback
#: and the receivers' last arrivals before it asks for their records.
DRAIN_S = 0.3


def streams(plan: dict) -> list[dict]:
    """The plan's Radon streams, in flow order."""
    return [w for w in plan["workloads"] if w["kind"] == "radon"]


def agent_stream(
    w: dict, netns: str | None, src_addr: str | None, dst_addr: str, port: int
) -> dict:
    """A plan's Radon stream ``w`` as the sender agent takes it, its socket
    in ``netns`` (None: this one) bound to ``src_addr`` (None: the
    kernel's choice), sending to ``dst_addr``:``port``."""
    return {
        "id": w["flow_id"],
        "netns": netns,
        "src_addr": src_addr,
        "dst_addr": dst_addr,
        "port": port,
        "payload_bytes": w["payload_bytes"],
        "start_s": w["start_s"],
        "packets": w.get("packets"),
        "stop_s": w.get("stop_s"),
        "sender": w["sender"],
        "receiver": w["receiver"],
    }


def configs(names: Names, duration_s: float, deadline_s: float, trace: bool) -> tuple[dict, dict]:
    """The receiver's and the sender's configurations (the agent's contract)
    for the plan's admitted Radon streams."""
    plan = names.plan
    admitted = [w for w in streams(plan) if not w.get("refused_at")]
    listen: dict[tuple[str, int], dict] = {}
    for w in admitted:
        listen.setdefault(
            (w["dst"], w["port"]),
            {"netns": names.ns(w["dst"]), "addr": w["dst_addr"], "port": w["port"]},
        )
    recv = {
        "listen": list(listen.values()),
        "deadline_s": deadline_s + 10.0,
        "sessions": 1,
        "max_records": 5_000_000,
    }
    send = {
        "streams": [
            agent_stream(w, names.ns(w["src"]), w["src_addr"], w["dst_addr"], w["port"])
            for w in admitted
        ],
        "duration_s": duration_s,
        "drain_s": DRAIN_S,
        "pacing": "auto",
        "cpu": None,
        "rt_priority": RT_PRIORITY if rt_allowed() else None,
        "deadline_s": deadline_s + 10.0,
        "trace": trace,
    }
    return recv, send


class Receiver(threading.Thread):
    """The receiving agent on a thread: its one-line summary, or the error
    it stopped with."""

    def __init__(self, config: dict) -> None:
        super().__init__(name="radon-recv", daemon=True)
        self.config = config
        self.summary: Any = None
        self.error: BaseException | None = None

    def run(self) -> None:
        try:
            self.summary = json.loads(_core.radon_recv(json.dumps(self.config)))
        except BaseException as e:  # reported by the caller
            self.error = e


def run(names: Names, duration_s: float, deadline_s: float, trace: bool = False) -> dict | None:
    """Runs the plan's Radon streams; returns the sender's result (tables and
    machine facts), or None when the plan has no admitted stream."""
    recv_cfg, send_cfg = configs(names, duration_s, deadline_s, trace)
    if not send_cfg["streams"]:
        return None
    receiver = Receiver(recv_cfg)
    receiver.start()
    try:
        out = json.loads(_core.radon_send(json.dumps(send_cfg)))
    finally:
        receiver.join(timeout=deadline_s + 15.0)
    if receiver.error is not None:
        raise receiver.error
    out["receiver_summary"] = receiver.summary
    return out


#: The simulator's `streams` columns (fairlab-sim metrics/radon.rs), in
#: its order; the agent's own columns follow them.
STREAM_COLUMNS = [
    "flow_id", "workload", "src", "dst", "admitted", "refused_at", "send_rate_mbps",
    "num_sent", "num_recv", "num_lost", "pct_lost", "recv_rate_mbps", "recv_wire_rate_mbps",
    "mean_wait_us", "final_wait_us", "start_s", "stop_s", "utilization", "period_us",
    "local_drops", "feedback_sent", "feedback_received",
]  # fmt: skip


def _rows(table: Any) -> list[dict]:
    """A table the agent returned, as rows (it gives rows or columns)."""
    if table is None:
        return []
    if isinstance(table, list):
        return table
    cols = list(table)
    n = len(table[cols[0]]) if cols else 0
    return [{c: table[c][i] for c in cols} for i in range(n)]


def tables(plan: dict, out: dict | None) -> dict[str, Any]:
    """The run's Radon tables as Arrow: ``streams`` (every stream of the plan,
    refused ones included, the simulator's columns first), ``radon_series``
    and ``pacing``, from the sender's result ``out``."""
    import pyarrow as pa

    got = out or {}
    by_id = {int(r["flow_id"]): r for r in _rows(got.get("streams"))}
    rows = []
    for w in streams(plan):
        r = dict(by_id.get(w["flow_id"], {}))
        admitted = not w.get("refused_at")
        payload, wire = w["payload_bytes"], w["wire_bytes"]
        recv_rate = float(r.get("recv_rate_mbps") or 0.0)
        row = {
            "flow_id": w["flow_id"],
            "workload": w["workload"],
            "src": w["src"],
            "dst": w["dst"],
            "admitted": admitted,
            "refused_at": w.get("refused_at"),
            # The wire's bytes per datagram over its payload's (28 bytes
            # of headers and the link's framing), as the simulator counts.
            "recv_wire_rate_mbps": recv_rate * wire / payload,
            "utilization": w["utilization"],
            "period_us": w["period_s"] * 1e6,
        }
        for c in STREAM_COLUMNS:
            if c not in row:
                row[c] = r.get(c, 0 if c.startswith(("num_", "feedback_", "local_")) else None)
        if not admitted:
            row["start_s"] = row["stop_s"] = None
        ordered = {c: row[c] for c in STREAM_COLUMNS}
        for c, v in r.items():
            ordered.setdefault(c, v)
        rows.append(ordered)
    result = {"streams": pa.Table.from_pylist(rows)}
    for name in ("radon_series", "pacing"):
        if got.get(name) is not None:
            result[name] = pa.Table.from_pylist(_rows(got[name]))
    return result


def last_arrival_s(out: dict | None) -> float:
    """When the last Radon datagram arrived, from the run's start (0 without
    one)."""
    recv = [x for x in ((out or {}).get("radon_series") or {}).get("recv_s", []) if x is not None]
    return max(recv, default=0.0)


_CALIBRATION: dict | None = None


def calibration() -> dict:
    """This machine's timestamp noise, pacing lateness and sender CPU per
    datagram (`fairlab radon calibrate`), measured once per process (a few
    hundred ms over loopback)."""
    global _CALIBRATION
    if _CALIBRATION is None:
        # Paced as the runs are: under SCHED_FIFO where allowed.
        cfg = {"spacing_us": 100.0, "rt_priority": RT_PRIORITY if rt_allowed() else None}
        _CALIBRATION = json.loads(_core.radon_calibrate(json.dumps(cfg)))
    return _CALIBRATION


def spacing_warning(plan: dict) -> str | None:
    """A warning when the plan's finest Radon spacing (the shortest wait of
    its admitted streams) is finer than this machine keeps, or None."""
    waits = [w["sender"]["wait_ps"] for w in streams(plan) if not w.get("refused_at")]
    if not waits:
        return None
    try:
        cal = calibration()
    except _core.RadonError as e:
        # Calibration runs over loopback, which a namespace may not have up.
        return f"this machine's pacing and timestamps were not calibrated ({e})"
    return _core.radon_spacing_warning(json.dumps(cal), min(waits) / 1e6)


def calibration_summary() -> dict[str, float]:
    """The calibration's figures, for the run's summary."""
    try:
        c = calibration()
    except _core.RadonError:
        return {}
    return {
        "radon_cal_rfd_p1_us": float(c["rfd_p1_us"]),
        "radon_cal_rfd_p99_us": float(c["rfd_p99_us"]),
        "radon_cal_median5_rfd_p1_us": float(c["median5_rfd_p1_us"]),
        "radon_cal_median5_rfd_p99_us": float(c["median5_rfd_p99_us"]),
        "radon_cal_late_p50_us": float(c["busy"]["p50_us"]),
        "radon_cal_late_p99_us": float(c["busy"]["p99_us"]),
        "radon_cal_late_max_us": float(c["busy"]["max_us"]),
        "radon_cal_cpu_per_packet_us": float(c["cpu_per_packet_us"]),
    }


def decision_mismatches(out: dict | None) -> list[dict]:
    """The decisions the agents made on this run's real timestamps that the
    simulator's driver, fed the same sequence, would not have made (issue
    22: one algorithm, two drivers); empty when they agree."""
    traces = (out or {}).get("trace")
    if not traces:
        return []
    return json.loads(_core.radon_replay(json.dumps(traces)))


def summary(out: dict | None) -> dict[str, Any]:
    """What the run's summary keeps of the agents: how they paced and
    stamped, and whether the two drivers agreed."""
    if out is None:
        return {}
    m = out.get("machine", {})
    return calibration_summary() | {
        "radon_pacing": str(m.get("pacing", "")),
        "radon_pacing_why": str(m.get("pacing_why", "")),
        "radon_txtime": str(m.get("txtime", "")),
        "radon_stamp_source": str(m.get("stamp_source", "")),
        "radon_sender_cpu_s": float(m.get("sender_cpu_s") or 0.0),
        "radon_send_errors": int(m.get("send_errors") or 0),
        "radon_decision_mismatches": len(decision_mismatches(out)),
    }


#: What the lowering is told of a real machine's kernel when it plans a
#: Radon run between real hosts: nothing of it is configured (no namespace,
#: shaper or route), so only the streams' configurations are used.
REAL_MACHINE = {
    "hz": 250,
    "congestion_controls": ["reno", "cubic"],
    "qdiscs": ["htb", "bfifo", "pfifo"],
}


def real_plan(scenario_json: str) -> dict:
    """The scenario's Radon streams as the namespace lowering configures
    them (the same reservation, pacing and models at each path's slowest
    link), for a run between real machines."""
    return json.loads(_core.lower_netns_json(scenario_json, json.dumps(REAL_MACHINE)))


def real_config(
    plan: dict,
    peers: dict[str, str],
    host: str | None,
    port: int,
    deadline_s: float,
    pacing: str = "auto",
    cpu: int | None = None,
) -> dict:
    """The sender's configuration for the streams of ``plan`` that ``host``
    sends (all of them without one), each to its receiving host's address in
    ``peers``; ValueError naming what is missing."""
    mine = [
        w for w in streams(plan) if not w.get("refused_at") and (host is None or w["src"] == host)
    ]
    if not mine:
        hosts = sorted({w["src"] for w in streams(plan)})
        raise ValueError(
            f"--host: {host!r} sends no admitted Radon stream; expected one of {', '.join(hosts)}"
            if host
            else "the scenario has no admitted Radon stream; expected udp workloads with "
            'transport = "radon"'
        )
    missing = sorted({w["dst"] for w in mine} - set(peers))
    if missing:
        raise ValueError(
            f"--peer: no address for {', '.join(missing)}; expected --peer {missing[0]}=ADDRESS "
            "(the host running `fairlab radon recv`)"
        )
    duration = plan["duration_s"] or deadline_s
    return {
        "streams": [agent_stream(w, None, None, peers[w["dst"]], port) for w in mine],
        "duration_s": duration,
        "drain_s": DRAIN_S,
        "pacing": pacing,
        "cpu": cpu,
        # As in the namespaces (and as calibrated): SCHED_FIFO where allowed.
        "rt_priority": RT_PRIORITY if rt_allowed() else None,
        "deadline_s": deadline_s,
        "trace": False,
    }
