"""Captures one switch port's arrivals and departures, for its drop trace.

Run as ``python3 capture.py`` inside a switch's namespace (standard library
only). It reads one JSON line: the port's interface, the switch's other
interfaces with the neighbour behind each, the destinations the port
reaches, the most rows to keep. It opens a packet socket (packet(7)) on
each interface, says ``ready``, and records every IPv4 packet that arrives
on an input toward one of those destinations and every packet that leaves
by the port, until its stdin closes. Then it joins them: an arrival whose
(addresses, ports, IP ID, sequence number) never left by the port was
dropped there (Linux numbers a connected socket's packets with its own IP
ID counter, ``ip_select_ident_segs``, so each transmission has its own).
It prints one JSON line: the arrivals in order with their fate, and the
packet sockets' own drops (PACKET_STATISTICS), which would make the join
count a packet it missed as a drop.
"""

from __future__ import annotations

import json
import select
import socket
import struct
import sys
import time

ETH_P_IP = 0x0800
# Outgoing packets reach only ETH_P_ALL sockets (dev_queue_xmit_nit walks
# ptype_all; a protocol's sockets see incoming packets only).
ETH_P_ALL = 0x0003
PACKET_OUTGOING = 4  # linux/if_packet.h
SOL_PACKET = 263
PACKET_STATISTICS = 6
SO_RCVBUFFORCE = 33
ETH_HEADER = 14


def parse(b: bytes) -> tuple | None:
    """(src, dst, proto, ipid, sport, dport, seq, payload) of an Ethernet frame."""
    if len(b) < ETH_HEADER + 20 or b[12:14] != b"\x08\x00":
        return None
    ip = ETH_HEADER
    ihl = (b[ip] & 15) * 4
    total = struct.unpack_from("!H", b, ip + 2)[0]
    ipid = struct.unpack_from("!H", b, ip + 4)[0]
    proto = b[ip + 9]
    src = socket.inet_ntoa(b[ip + 12 : ip + 16])
    dst = socket.inet_ntoa(b[ip + 16 : ip + 20])
    l4 = ip + ihl
    if proto == 6 and len(b) >= l4 + 13:
        sport, dport, seq = struct.unpack_from("!HHI", b, l4)
        doff = (b[l4 + 12] >> 4) * 4
        return src, dst, proto, ipid, sport, dport, seq, total - ihl - doff
    if proto == 17 and len(b) >= l4 + 4:
        sport, dport = struct.unpack_from("!HH", b, l4)
        return src, dst, proto, ipid, sport, dport, 0, total - ihl - 8
    return src, dst, proto, ipid, 0, 0, 0, total - ihl


def open_socket(iface: str, proto: int) -> socket.socket:
    s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, socket.htons(proto))
    # As root, past net.core.rmem_max: bursts wait here, not in drops.
    s.setsockopt(socket.SOL_SOCKET, SO_RCVBUFFORCE, 64 << 20)
    s.bind((iface, proto))
    s.setblocking(False)
    return s


def main() -> int:
    cfg = json.loads(sys.stdin.readline())
    dsts = set(cfg["dsts"])
    out = open_socket(cfg["out"], ETH_P_ALL)
    inputs = [(peer, open_socket(iface, ETH_P_IP)) for peer, iface in cfg["inputs"]]
    by_fd = {out.fileno(): (-1, out)}
    for k, (_, s) in enumerate(inputs):
        by_fd[s.fileno()] = (k, s)
    print("ready", flush=True)
    t0 = float(sys.stdin.readline().split()[1])
    arrivals: list[tuple] = []
    departed: set[tuple] = set()
    stdin = sys.stdin.fileno()
    watch = [stdin, *by_fd]
    done = False
    while not done:
        ready, _, _ = select.select(watch, [], [], 0.5)
        for fd in ready:
            if fd == stdin:
                done = True
                continue
            k, s = by_fd[fd]
            while True:
                try:
                    b, addr = s.recvfrom(128)
                except BlockingIOError:
                    break
                t = time.monotonic() - t0
                outgoing = addr[2] == PACKET_OUTGOING
                p = parse(b)
                if p is None:
                    continue
                key = (p[0], p[1], p[2], p[3], p[4], p[5], p[6])
                if k < 0:
                    if outgoing:
                        departed.add(key)
                elif not outgoing and p[1] in dsts:
                    arrivals.append((t, k, key, p[7]))
    # Whatever is still readable (packets queued when stdin closed).
    for _, s in by_fd.values():
        while True:
            try:
                b, addr = s.recvfrom(128)
            except BlockingIOError:
                break
            p = parse(b)
            if p is not None and s is out and addr[2] == PACKET_OUTGOING:
                departed.add(tuple(p[:7]))
    lost = 0
    for _, s in by_fd.values():
        st = s.getsockopt(SOL_PACKET, PACKET_STATISTICS, 8)
        lost += struct.unpack("II", st)[1]
    rows = [
        [t, k, key[0], key[1], key[4], key[5], key[6], payload, int(key in departed)]
        for t, k, key, payload in arrivals
    ]
    sys.stdout.write(json.dumps({"rows": rows, "capture_drops": lost}) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
