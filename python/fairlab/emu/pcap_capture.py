"""Writes libpcap files of what crosses a node's interfaces, as tcpdump there
would (``[metrics] pcap`` in the namespaces).

Run as ``python3 pcap_capture.py`` inside one node's namespace (standard
library only). It reads one JSON line: the points to capture in this
namespace, each with its interfaces, whether only outgoing packets count
(a port) or both directions (a host), the file to write and its caps. It
opens a packet socket (packet(7)) per interface, says ``ready``, and
writes every IPv4 frame's headers (Ethernet, IP, TCP or UDP: the snap
length stops there) with the kernel's receive timestamp (SO_TIMESTAMPNS,
the wall clock, as tcpdump) and the frame's true length, until its stdin
closes. Then it prints one JSON line: per point, packets kept, packets left
out by the caps, and the packets the sockets' buffers dropped.

An outgoing packet reaches a packet socket when the interface's qdisc
hands it to the driver (``dev_queue_xmit_nit``): when its transmission
starts, after the port's shaper and queue. An incoming one when the
interface receives it.
"""

from __future__ import annotations

import json
import select
import socket
import struct
import sys

ETH_P_ALL = 0x0003
PACKET_OUTGOING = 4  # linux/if_packet.h
SOL_PACKET = 263
PACKET_STATISTICS = 6
SO_RCVBUFFORCE = 33
SO_TIMESTAMPNS = 35
SCM_TIMESTAMPNS = SO_TIMESTAMPNS
ETH_HEADER = 14
#: Enough for Ethernet, IPv4 with options and TCP with options.
READ_BYTES = 14 + 60 + 60
MAGIC_NS = 0xA1B23C4D
SNAPLEN = 262144
LINKTYPE_ETHERNET = 1


def headers(frame: bytes) -> tuple[bytes, int] | None:
    """The headers of an Ethernet frame carrying IPv4 and its true length,
    or None for anything else (ARP, IPv6)."""
    if len(frame) < ETH_HEADER + 20 or frame[12:14] != b"\x08\x00":
        return None
    ihl = (frame[ETH_HEADER] & 15) * 4
    total = struct.unpack_from("!H", frame, ETH_HEADER + 2)[0]
    l4 = ETH_HEADER + ihl
    proto = frame[ETH_HEADER + 9]
    if proto == 6 and len(frame) >= l4 + 13:
        end = l4 + (frame[l4 + 12] >> 4) * 4
    elif proto == 17:
        end = l4 + 8
    else:
        end = l4
    return frame[: min(end, len(frame))], ETH_HEADER + total


class Point:
    """One point's file being written, within its caps."""

    def __init__(self, cfg: dict) -> None:
        self.f = open(cfg["path"], "wb")  # noqa: SIM115 (closed in close())
        self.f.write(struct.pack("<IHHiIII", MAGIC_NS, 2, 4, 0, 0, SNAPLEN, LINKTYPE_ETHERNET))
        self.outgoing_only = cfg["outgoing_only"]
        self.max_packets, self.max_bytes = cfg["max_packets"], cfg["max_bytes"]
        self.bytes, self.kept, self.left_out = 24, 0, 0

    def record(self, ns: int, kept: bytes, orig_len: int) -> None:
        n = 16 + len(kept)
        if self.kept >= self.max_packets or self.bytes + n > self.max_bytes:
            self.left_out += 1
            return
        secs, nanos = divmod(ns, 1_000_000_000)
        self.f.write(struct.pack("<IIII", secs & 0xFFFFFFFF, nanos, len(kept), orig_len))
        self.f.write(kept)
        self.bytes += n
        self.kept += 1

    def close(self) -> None:
        self.f.close()


def open_socket(iface: str) -> socket.socket:
    s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, socket.htons(ETH_P_ALL))
    # As root, past net.core.rmem_max: bursts wait here, not in drops.
    s.setsockopt(socket.SOL_SOCKET, SO_RCVBUFFORCE, 64 << 20)
    s.setsockopt(socket.SOL_SOCKET, SO_TIMESTAMPNS, 1)
    s.bind((iface, ETH_P_ALL))
    s.setblocking(False)
    return s


def drain(s: socket.socket, point: Point) -> None:
    """Records every frame waiting on ``s``."""
    while True:
        try:
            frame, anc, _, addr = s.recvmsg(READ_BYTES, socket.CMSG_SPACE(16))
        except BlockingIOError:
            return
        if point.outgoing_only and addr[2] != PACKET_OUTGOING:
            continue
        got = headers(frame)
        if got is None:
            continue
        ns = 0
        for level, kind, data in anc:
            if level == socket.SOL_SOCKET and kind == SCM_TIMESTAMPNS:
                sec, nsec = struct.unpack("qq", data[:16])
                ns = sec * 1_000_000_000 + nsec
        point.record(ns, got[0], got[1])


def main() -> int:
    cfg = json.loads(sys.stdin.readline())
    points = [Point(p) for p in cfg["points"]]
    socks = {}
    for point, p in zip(points, cfg["points"], strict=True):
        for iface in p["ifaces"]:
            s = open_socket(iface)
            socks[s.fileno()] = (s, point)
    print("ready", flush=True)
    stdin = sys.stdin.fileno()
    done = False
    while not done:
        ready, _, _ = select.select([stdin, *socks], [], [], 0.5)
        for fd in ready:
            if fd == stdin:
                done = not sys.stdin.readline()
                continue
            s, point = socks[fd]
            drain(s, point)
    lost = {id(p): 0 for p in points}
    for s, point in socks.values():
        drain(s, point)
        st = s.getsockopt(SOL_PACKET, PACKET_STATISTICS, 8)
        lost[id(point)] += struct.unpack("II", st)[1]
    for p in points:
        p.close()
    out = [{"kept": p.kept, "left_out": p.left_out, "socket_drops": lost[id(p)]} for p in points]
    sys.stdout.write(json.dumps(out) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
