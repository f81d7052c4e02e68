"""Radon on real sockets, the Speed figures of BENCHMARKS.md: one stream of
1,500-byte datagrams (1,472 bytes of payload) between two namespaces joined
by a veth pair, non-adaptive, for 3 s at each rate asked; prints per rate
the send rate achieved, losses, pacing lateness p50/p99/max and the sender's
CPU. Root and iproute2 needed; the namespaces are deleted at the end.

    PYTHONPATH=python python3 crates/fairlab-radon/scripts/bench_sockets.py [--rt P] 100 200 400

The sender is pinned to core 1; `--rt P` runs its loop under SCHED_FIFO
at priority P.
"""

from __future__ import annotations

import json
import subprocess
import sys
import threading
import uuid

from fairlab import _core

WIRE_BITS = 1500 * 8
SERVICE_PS = 1538 * 8 * 1000 // 10  # 1,538 wire bytes at 10 Gb/s, the veth's nominal


def ip(*args: str) -> None:
    subprocess.run(["ip", *args], check=True, capture_output=True)


def run(rate_mbps: float, ns_a: str, ns_b: str, port: int, rt: int | None) -> dict:
    wait_ps = round(WIRE_BITS / (rate_mbps * 1e6) * 1e12)
    s = {
        "id": 0,
        "netns": ns_b,
        "dst_addr": "10.231.11.1",
        "port": port,
        "payload_bytes": 1472,
        "sender": {
            "reservation": {"utilization": min(1.0, rate_mbps / 10_000), "period_ps": 10**10},
            "packet_service_ps": SERVICE_PS,
            "wait_ps": wait_ps,
            "mode": "non_adaptive",
        },
        "receiver": {
            "service_ps": SERVICE_PS,
            "model": "median5",
            "feedback_every": 5,
            "congested_depth_pkts": 1.0,
            "pct_divisor": "pairs_gamma_minus_one",
            "all_models": False,
        },
    }
    rcfg = {"listen": [{"netns": ns_a, "addr": "10.231.11.1", "port": port}], "deadline_s": 20}
    t = threading.Thread(target=_core.radon_recv, args=(json.dumps(rcfg),))
    t.start()
    cfg = {"streams": [s], "duration_s": 3.0, "drain_s": 0.2, "deadline_s": 20, "pacing": "busy"}
    cfg.update({"cpu": 1, "rt_priority": rt})
    out = json.loads(_core.radon_send(json.dumps(cfg)))
    t.join()
    st = {k: v[0] for k, v in out["streams"].items()}
    st["asked_mbps"] = rate_mbps
    st["spacing_us"] = wait_ps / 1e6
    st["machine"] = out["machine"]
    return st


def main(rates: list[float], rt: int | None) -> None:
    tag = f"frdn{uuid.uuid4().hex[:6]}"
    ns_a, ns_b = f"{tag}-a", f"{tag}-b"
    try:
        ip("netns", "add", ns_a)
        ip("netns", "add", ns_b)
        ip(
            "link",
            "add",
            f"{tag}a",
            "netns",
            ns_a,
            "type",
            "veth",
            "peer",
            "name",
            f"{tag}b",
            "netns",
            ns_b,
        )
        for ns, dev, addr in (
            (ns_a, f"{tag}a", "10.231.11.1/24"),
            (ns_b, f"{tag}b", "10.231.11.2/24"),
        ):
            ip("-n", ns, "addr", "add", addr, "dev", dev)
            ip("-n", ns, "link", "set", dev, "up")
            ip("-n", ns, "link", "set", "lo", "up")
        for k, rate in enumerate(rates):
            st = run(rate, ns_a, ns_b, 5300 + k, rt)
            print(
                f"{rate:g} Mb/s asked (spacing {st['spacing_us']:.2f} us): sent {st['num_sent']} "
                f"at {st['send_rate_mbps']:.1f} Mb/s, received {st['num_recv']}, lost "
                f"{st['num_lost']}; late p50/p99/max {st['late_p50_us']:.2f}/"
                f"{st['late_p99_us']:.2f}/{st['late_max_us']:.2f} us; sender CPU "
                f"{st['cpu_s']:.2f} s over {st['stop_s'] - st['start_s']:.2f} s; "
                f"{st['machine']['pacing_why']}; {st['machine']['txtime']}",
                flush=True,
            )
    finally:
        for ns in (ns_a, ns_b):
            subprocess.run(["ip", "netns", "delete", ns], capture_output=True)


if __name__ == "__main__":
    argv = sys.argv[1:]
    rt = None
    if argv[:1] == ["--rt"]:
        rt, argv = int(argv[1]), argv[2:]
    main([float(x) for x in argv] or [100.0], rt)
