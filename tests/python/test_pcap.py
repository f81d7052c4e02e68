"""Packet captures from the simulator (``[metrics] pcap``), checked as a user
would: the files open in tshark (Debian's package; skipped with the reason
without it) and its TCP analysis counts the retransmissions the flows table
counts. Cost: one shipped incast run (about a second) and a few tshark
reads of a few thousand packets."""

from __future__ import annotations

import json
import re
import shutil
import struct
import subprocess
import sys
from pathlib import Path

import fairlab
import pytest

EXAMPLE = Path(fairlab.__file__).parent / "examples" / "incast.toml"
TSHARK, MERGECAP = shutil.which("tshark"), shutil.which("mergecap")
needs_tshark = pytest.mark.skipif(
    TSHARK is None or MERGECAP is None,
    reason="tshark or mergecap not installed (Debian: apt-get install tshark)",
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


def expert(path: Path) -> dict[str, int]:
    """tshark's expert summary of a file (``-z expert``): count by message,
    and by severity under ``"(severity)"``."""
    r = subprocess.run(
        [TSHARK, "-n", "-q", "-r", str(path), "-z", "expert"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert r.returncode == 0, r.stderr
    out: dict[str, int] = {}
    for line in r.stdout.splitlines():
        head = re.match(r"^(Errors|Warns|Notes|Chats) \((\d+)\)$", line)
        row = re.match(r"^\s+(\d+)\s+\S+\s+\S+\s+(.*)$", line)
        if head:
            out[f"({head[1]})"] = int(head[2])
        elif row:
            out[row[2].strip()] = out.get(row[2].strip(), 0) + int(row[1])
    return out


def merged(files: dict[str, bytes], tmp_path: Path) -> Path:
    """The captures as one file, in time order (mergecap, Wireshark's)."""
    paths = []
    for name, data in files.items():
        paths.append(tmp_path / f"{name}.pcap")
        paths[-1].write_bytes(data)
    out = tmp_path / "merged.pcap"
    r = subprocess.run(
        [MERGECAP, "-F", "nsecpcap", "-w", str(out), *map(str, paths)],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert r.returncode == 0, r.stderr
    return out


def test_captures_hold_every_packet_in_time_order_and_reach_the_run_directory(tmp_path):
    res = run(incast(["sw:client", "s1"]), tmp_path)
    assert list(res.pcap) == ["sw:client", "s1"]
    port = res.ports.set_index(["node", "peer"]).loc[("sw", "client")]
    recs = records(res.pcap["sw:client"])
    # Every packet that left the port, none left out.
    assert len(recs) == port["deq_pkts"] and res.summary["pcap_packets_left_out"] == 0
    assert [t for t, _, _ in recs] == sorted(t for t, _, _ in recs)
    # Headers only: Ethernet + IPv4 + TCP (the example's "rfc" profile has
    # no timestamps and no SACK: 8 option bytes on a SYN, none after); the
    # true length counts the payload, as the kernel's 1514-byte frames.
    assert {k for _, k, _ in recs} == {54, 62}
    assert max(o for _, _, o in recs) == 14 + 20 + 20 + 1460
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
    # Listed in run.json like every file; the run reads back.
    listed = json.loads((out / "run.json").read_text())["files"]
    assert listed["pcap-s1.pcap"]["size"] == len(res.pcap["s1"])
    # Handed between processes as a runner's workers do, the captures stay.
    moved = fairlab.Result.from_files(res.transfer_files())
    assert moved.pcap == res.pcap
    back = fairlab.load(out)
    assert back.summary["pcap_packets"] == res.summary["pcap_packets"]
    assert back.flows.equals(res.flows)


@needs_tshark
def test_tshark_counts_the_flows_tables_retransmissions_at_the_senders(tmp_path):
    """At a sender's interface every segment below the highest one sent is a
    retransmission. tshark calls it one (fast and spurious ones included)
    unless it follows the highest segment by less than the connection's
    first RTT: then it calls it out-of-order (its heuristic for segments a
    network reordered, packet-tcp.c). The two together are the flows
    table's retransmits."""
    servers = [f"s{i}" for i in range(1, 17)]
    res = run(incast(servers), tmp_path)
    rtx = int(res.flows["retransmits"].sum())
    assert rtx > 0 and (res.flows["fast_retransmits"] > 0).any(), "the example retransmits"
    got = expert(merged(res.pcap, tmp_path))
    seen = got.get("This frame is a (suspected) retransmission", 0)
    seen += got.get("This frame is a (suspected) out-of-order segment", 0)
    assert seen == rtx, (got, rtx)
    assert (
        got["This frame is a (suspected) fast retransmission"]
        == res.flows["fast_retransmits"].sum()
    )
    # Nothing malformed, no segment acknowledged before it was seen.
    assert "(Errors)" not in got, got
    assert "ACKed segment that wasn't captured (common at capture start)" not in got, got


@needs_tshark
def test_tshark_reads_the_options_and_the_ecn_marks(tmp_path):
    """The DCTCP example (ECN) with SACK and timestamps, 2 rounds: tshark
    finds the SYNs' options, the window the scale implies, and at the
    client's switch port as many CE marks as the port made."""
    text = (Path(fairlab.__file__).parent / "examples" / "dctcp-incast.toml").read_text()
    text = text.replace("rounds = 20", "rounds = 2").replace(
        '"dctcp"', '"dctcp"\nsack = true\nrtt_timestamps = true'
    )
    text += '\n[metrics]\npcap = ["sw:client", "s1"]\n'
    res = run(text, tmp_path)
    port, host = tmp_path / "port.pcap", tmp_path / "s1.pcap"
    port.write_bytes(res.pcap["sw:client"])
    host.write_bytes(res.pcap["s1"])

    def fields(path: Path, *names: str) -> list[dict[str, str]]:
        """Every frame's ``names``, by name."""
        r = subprocess.run(
            [TSHARK, "-n", "-r", str(path), "-T", "fields"] + [a for n in names for a in ("-e", n)],
            capture_output=True,
            text=True,
            timeout=60,
        )
        assert r.returncode == 0, r.stderr
        return [dict(zip(names, line.split("\t"), strict=True)) for line in r.stdout.splitlines()]

    frames = fields(
        host,
        "tcp.flags.syn",
        "tcp.options.mss_val",
        "tcp.options.wscale.shift",
        "tcp.option_kind",
        "tcp.options.timestamp.tsval",
        "tcp.window_size_scalefactor",
        "tcp.len",
        "ip.dsfield.ecn",
        "tcp.flags.ece",
    )
    syns = [f for f in frames if f["tcp.flags.syn"] in ("1", "True")]
    assert len(syns) == 2, syns  # the SYN and the SYN-ACK
    for f in syns:
        assert f["tcp.options.mss_val"] == "1460" and f["tcp.options.timestamp.tsval"], f
        # SACK-permitted is option kind 4.
        assert "4" in f["tcp.option_kind"].split(","), f
    # Past the handshake tshark scales the window by the SYNs' shift.
    scale = str(2 ** int(syns[0]["tcp.options.wscale.shift"]))
    data = [f for f in frames if f["tcp.len"] not in ("", "0")]
    assert data and {f["tcp.window_size_scalefactor"] for f in data} == {scale}
    # s1 sends its data ECN-capable (ECT(0)), and the ACKs back echo marks.
    assert {f["ip.dsfield.ecn"] for f in data} == {"2"}
    assert any(f["tcp.flags.ece"] in ("1", "True") for f in frames if f["tcp.len"] == "0")
    marks = [f for f in fields(port, "ip.dsfield.ecn") if f["ip.dsfield.ecn"] == "3"]
    ports = res.ports.set_index(["node", "peer"])
    assert len(marks) == ports.loc[("sw", "client"), "mark_pkts"] > 0
