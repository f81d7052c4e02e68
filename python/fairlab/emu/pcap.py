"""``[metrics] pcap`` in the namespaces: one capture process per node that
holds a point (pcap_capture.py, packet sockets in that node's namespace),
started once the interfaces exist and stopped once the agents are done;
the files come back by point, as the simulator's do.

What the kernel's capture sees (docs/emulation.md): at a port, the
packets leaving the switch's interface as its qdisc hands them to the
driver; at a host, its interface both ways. Timestamps are the kernel's
wall clock (as tcpdump's), not time since the run's start.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from .apply import Names
from .safety import EmulationRefused

SCRIPT = Path(__file__).with_name("pcap_capture.py")
#: Seconds the captures keep going after the agents end, for the queues to
#: drain onto the wire.
DRAIN_S = 0.2


class Capturing:
    """The capture processes of one run."""

    def __init__(self, names: Names) -> None:
        self.points = names.plan.get("pcap") or []
        self.dir = Path(tempfile.mkdtemp(prefix="fairlab-pcap-"))
        self.procs: dict[str, tuple[subprocess.Popen, list[dict]]] = {}
        by_node: dict[str, list[dict]] = {}
        for i, p in enumerate(self.points):
            cfg = {
                "ifaces": [names.iface(link, end) for link, end in p["ifaces"]],
                "outgoing_only": p["outgoing_only"],
                "path": str(self.dir / f"{i}.pcap"),
                "max_packets": p["max_packets"],
                "max_bytes": p["max_bytes"],
                "name": p["name"],
            }
            by_node.setdefault(p["node"], []).append(cfg)
        for node, cfgs in by_node.items():
            proc = subprocess.Popen(
                ["ip", "netns", "exec", names.ns(node), sys.executable, "-I", "-S", str(SCRIPT)],
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                text=True,
            )
            self.procs[node] = (proc, cfgs)
            assert proc.stdin is not None and proc.stdout is not None
            proc.stdin.write(json.dumps({"points": cfgs}) + "\n")
            proc.stdin.flush()
            if proc.stdout.readline().strip() != "ready":
                err = proc.stderr.read() if proc.stderr else ""
                self.kill()
                raise EmulationRefused(
                    f"pcap capture on {node} did not start: {err.strip()[-300:]}"
                )

    def kill(self) -> None:
        for proc, _ in self.procs.values():
            if proc.poll() is None:
                proc.kill()
                proc.wait()
        shutil.rmtree(self.dir, ignore_errors=True)

    def stop(self) -> tuple[dict[str, bytes], dict[str, Any]]:
        """The files by point, and the summary's counts of them."""
        try:
            time.sleep(DRAIN_S)
            files: dict[str, bytes] = {}
            counts = {"pcap_packets": 0, "pcap_packets_left_out": 0, "pcap_socket_drops": 0}
            for node, (proc, cfgs) in self.procs.items():
                out, err = proc.communicate(timeout=60)
                if proc.returncode != 0 or not out.strip():
                    raise EmulationRefused(f"pcap capture on {node} failed: {err.strip()[-300:]}")
                for cfg, got in zip(cfgs, json.loads(out.strip().splitlines()[-1]), strict=True):
                    files[cfg["name"]] = Path(cfg["path"]).read_bytes()
                    counts["pcap_packets"] += got["kept"]
                    counts["pcap_packets_left_out"] += got["left_out"]
                    counts["pcap_socket_drops"] += got["socket_drops"]
            # In the scenario's order, as the simulator gives them.
            order = [p["name"] for p in self.points]
            return {n: files[n] for n in order}, counts
        finally:
            self.kill()


def start(names: Names) -> Capturing | None:
    """The run's captures, started (None without ``[metrics] pcap``)."""
    return Capturing(names) if names.plan.get("pcap") else None


def stop(c: Capturing | None) -> tuple[dict[str, bytes], dict[str, Any]]:
    """Stops the captures: their files by point and their counts (nothing
    without captures)."""
    return c.stop() if c is not None else ({}, {})
