"""Packet captures from the simulator (``[metrics] pcap``), checked as a user
would: the files open in tshark (Debian's package; skipped with the reason
without it) and its TCP analysis counts the retransmissions the flows table
counts. Cost: one shipped incast run (about a second) and a few tshark
reads of a few thousand packets."""

from __future__ import annotations

import shutil
import struct
import subprocess
import sys
from pathlib import Path

import fairlab
import pytest

EXAMPLE = Path(fairlab.__file__).parent / "examples" / "incast.toml"
TSHARK = shutil.which("tshark")
needs_tshark = pytest.mark.skipif(
    TSHARK is None, reason="tshark not installed (Debian: apt-get install tshark)"
)


def incast(points: list[str], rounds: int = 3) -> str:
    """The shipped incast example as TOML, shortened to ``rounds`` rounds,
    capturing at ``points``."""
    text = EXAMPLE.read_text()
    assert "rounds = 20\n" in text and "[metrics]\n" in text
    text = text.replace("rounds = 20\n", f"rounds = {rounds}\n")
    return text.replace("[metrics]\n", f"[metrics]\npcap = {points!r}\n".replace("'", '"'))


def run(text: str, tmp_path: Path) -> fairlab.Result:
    path = tmp_path / "incast.toml"
    path.write_text(text)
    return fairlab.simulate(fairlab.load_scenario(path))


def records(data: bytes) -> list[tuple[int, int, int]]:
    """(time in ns, bytes kept, true length) of each packet of a libpcap file."""
    magic, major, minor, _, _, snaplen, linktype = struct.unpack_from("<IHHiIII", data)
    assert (magic, major, minor, linktype) == (0xA1B23C4D, 2, 4, 1)
    out, at = [], 24
    while at < len(data):
        sec, ns, kept, orig = struct.unpack_from("<IIII", data, at)
        out.append((sec * 10**9 + ns, kept, orig))
        at += 16 + kept
    assert at == len(data)
    return out


def tshark_count(path: Path, display_filter: str) -> int:
    r = subprocess.run(
        [TSHARK, "-n", "-r", str(path), "-Y", display_filter, "-T", "fields", "-e", "frame.number"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert r.returncode == 0, r.stderr
    return len(r.stdout.split())


def test_captures_hold_every_packet_in_time_order_and_reach_the_run_directory(tmp_path):
    res = run(incast(["sw:client", "s1"]), tmp_path)
    assert list(res.pcap) == ["sw:client", "s1"]
    port = res.ports.set_index(["node", "peer"]).loc[("sw", "client")]
    recs = records(res.pcap["sw:client"])
    # Every packet that left the port, none left out.
    assert len(recs) == port["deq_pkts"] and res.summary["pcap_packets_left_out"] == 0
    assert [t for t, _, _ in recs] == sorted(t for t, _, _ in recs)
    # Headers only: Ethernet + IPv4 + TCP with timestamps (and SACK blocks
    # or, on a SYN, its options); the true length counts the payload.
    assert {k for _, k, _ in recs} <= {66, 74, 78, 86, 94}
    assert max(o for _, _, o in recs) == 14 + 20 + 32 + 1460
    out = tmp_path / "run"
    r = subprocess.run(
        [sys.executable, "-m", "fairlab", "run", str(tmp_path / "incast.toml"), "--out", str(out)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert r.returncode == 0, r.stderr
    assert (out / "pcap-sw-client.pcap").read_bytes() == res.pcap["sw:client"]
    assert (out / "pcap-s1.pcap").read_bytes() == res.pcap["s1"]


@needs_tshark
def test_tshark_counts_the_flows_tables_retransmissions_at_the_senders(tmp_path):
    # Capture at every server (the senders' interfaces, where a
    # retransmission is seen whether or not the switch drops it again).
    servers = [f"s{i}" for i in range(1, 17)]
    res = run(incast(servers), tmp_path)
    rtx = int(res.flows["retransmits"].sum())
    assert rtx > 0, "the example retransmits"
    seen = 0
    for s in servers:
        path = tmp_path / f"{s}.pcap"
        path.write_bytes(res.pcap[s])
        seen += tshark_count(path, "tcp.analysis.retransmission")
        # Nothing tshark cannot parse, no checksum or length complaints.
        assert tshark_count(path, "_ws.malformed || _ws.expert.severity == error") == 0
    assert seen == rtx, (seen, rtx)


@needs_tshark
def test_tshark_reads_the_handshake_options(tmp_path):
    path = tmp_path / "s1.pcap"
    path.write_bytes(run(incast(["s1"], rounds=1), tmp_path).pcap["s1"])
    r = subprocess.run(
        [TSHARK, "-n", "-r", str(path), "-Y", "tcp.flags.syn == 1", "-T", "fields"]
        + [f"-e{f}" for f in ("tcp.options.mss_val", "tcp.options.wscale.shift")]
        + ["-e", "tcp.options.sack_perm", "-e", "tcp.options.timestamp.tsval"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert r.returncode == 0, r.stderr
    rows = [line.split("\t") for line in r.stdout.splitlines()]
    assert len(rows) == 2, rows  # SYN and SYN-ACK
    assert all(row[0] == "1460" and row[2] for row in rows), rows
