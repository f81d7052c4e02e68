"""The Radon socket agents (crates/fairlab-radon) through `fairlab._core`:
one second of real Radon traffic at 20 Mb/s between two namespaces joined by
a veth pair (skipped, with the reason, where namespaces cannot be made), and
the one-line errors (anywhere). About 2 s in all."""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import threading
import uuid

import pytest
from fairlab import _core

#: 1,472-byte payloads at 20 Mb/s: 588.8 us apart; a 1,538-byte frame
#: takes 12.304 us at 1 Gb/s.
WAIT_PS = 588_800_000
SERVICE_PS = 12_304_000


def stream(port: int, **where: object) -> dict:
    return {
        "id": 0,
        "dst_addr": "127.0.0.1",
        "port": port,
        "payload_bytes": 1472,
        "sender": {
            "reservation": {"utilization": 0.02, "period_ps": 10_000_000_000},
            "packet_service_ps": SERVICE_PS,
            "wait_ps": WAIT_PS,
            "mode": "non_adaptive",
        },
        "receiver": {
            "service_ps": SERVICE_PS,
            "model": "median5",
            "feedback_every": 5,
            "congested_depth_pkts": 1.0,
            "pct_divisor": "pairs_gamma_minus_one",
            "all_models": True,
        },
        **where,
    }


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _ip(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(["ip", *args], capture_output=True, text=True)


def _why_no_namespaces() -> str | None:
    if os.geteuid() != 0:
        return "needs root to create network namespaces"
    if shutil.which("ip") is None:
        return "needs iproute2's `ip`"
    name = f"frdn{uuid.uuid4().hex[:6]}-probe"
    r = _ip("netns", "add", name)
    if r.returncode != 0:
        return f"cannot create a network namespace here: {r.stderr.strip()}"
    _ip("netns", "delete", name)
    return None


def test_one_second_between_two_namespaces_is_accounted_for_frame_by_frame():
    why = _why_no_namespaces()
    if why:
        pytest.skip(why)
    tag = f"frdn{uuid.uuid4().hex[:6]}"
    a, b = f"{tag}-a", f"{tag}-b"
    made: list[str] = []
    try:
        for ns in (a, b):
            assert _ip("netns", "add", ns).returncode == 0
            made.append(ns)
        r = _ip(
            "link",
            "add",
            f"{tag}a",
            "netns",
            a,
            "type",
            "veth",
            "peer",
            "name",
            f"{tag}b",
            "netns",
            b,
        )
        assert r.returncode == 0, r.stderr
        for ns, dev, addr in ((a, f"{tag}a", "10.231.7.1/24"), (b, f"{tag}b", "10.231.7.2/24")):
            for cmd in (
                ["addr", "add", addr, "dev", dev],
                ["link", "set", dev, "up"],
                ["link", "set", "lo", "up"],
            ):
                assert _ip("-n", ns, *cmd).returncode == 0
        recv_cfg = {
            "listen": [{"netns": a, "addr": "10.231.7.1", "port": 5201}],
            "deadline_s": 8.0,
            "sessions": 1,
        }
        lines: list[str] = []
        box: dict = {}

        def serve() -> None:
            try:
                box["out"] = _core.radon_recv(json.dumps(recv_cfg), lines.append)
            except Exception as e:  # reported by the assertion below
                box["error"] = e

        t = threading.Thread(target=serve)
        t.start()
        s = stream(5201, netns=b, src_addr="10.231.7.2", dst_addr="10.231.7.1")
        send_cfg = {"streams": [s], "duration_s": 1.0, "drain_s": 0.1, "deadline_s": 8.0}
        result = json.loads(_core.radon_send(json.dumps(send_cfg)))
        t.join(timeout=5)
        assert not t.is_alive() and "error" not in box, box
        st = result["streams"]
        sent, recv, lost = st["num_sent"][0], st["num_recv"][0], st["num_lost"][0]
        # At most 1 s / 588.8 us; fewer where other jobs take the spinning core.
        assert 50 <= sent <= 1699, sent
        assert recv + lost == sent and lost == 0
        frames = result["radon_series"]["frame"]
        assert sorted(frames) == list(range(sent))
        assert st["stamp_source"][0] == "kernel"
        assert st["feedback_received"][0] == recv // 5
        rfd = sorted(x for x in result["radon_series"]["rfd_us"] if x is not None)
        p1, p99 = rfd[len(rfd) // 100], rfd[len(rfd) * 99 // 100]
        assert -100 < p1 < 0 < p99 < 100, (p1, p99)  # real stamps: spread, and small
        assert len(result["pacing"]["late_us"]) == sent
        assert "SO_TXTIME" in result["machine"]["txtime"]
        assert len(lines) == 1 and f"{sent} datagrams received, 0 lost" in lines[0]
    finally:
        for ns in made:
            _ip("netns", "delete", ns)
    listed = _ip("netns", "list").stdout
    assert tag not in listed, "namespaces left behind"


def test_a_port_in_use_is_one_line():
    with socket.socket() as held:
        held.bind(("127.0.0.1", 0))
        held.listen()
        port = held.getsockname()[1]
        cfg = {"listen": [{"addr": "127.0.0.1", "port": port}], "deadline_s": 1.0}
        with pytest.raises(_core.RadonError) as e:
            _core.radon_recv(json.dumps(cfg))
    assert str(e.value).startswith(f"TCP port {port} is in use at 127.0.0.1:{port}")
    assert "\n" not in str(e.value)


def test_nothing_listening_is_one_line_naming_the_address_and_the_command():
    port = free_port()
    cfg = {"streams": [stream(port)], "duration_s": 0.1, "connect_s": 0.2, "deadline_s": 5}
    with pytest.raises(_core.RadonError) as e:
        _core.radon_send(json.dumps(cfg))
    assert str(e.value) == (
        f"cannot reach the receiver at 127.0.0.1:{port}: nothing listens there; "
        f"start `fairlab radon recv --port {port}` there"
    )


def test_a_bad_field_is_named():
    cfg = {"streams": [stream(5201)], "duration_s": 0.1, "pacing": "warp"}
    with pytest.raises(ValueError, match="warp"):
        _core.radon_send(json.dumps(cfg))
