"""The traffic agent: one process per host namespace, standard library only.

Run as ``python3 agent.py`` inside a host's namespace. It reads one JSON line
on stdin (its host, the plan's flows and workloads, the run's time limit),
opens its listeners, prints ``ready``, waits for ``go T0`` (a CLOCK_MONOTONIC
instant, shared by every namespace), runs its part of every workload from
T0, and prints one JSON line: per flow what its side saw (bytes, times,
TCP_INFO samples of the data sender), the incast rounds it timed, its own
CPU time. Every loop is bounded by bytes and by the run's deadline; it
talks only to the addresses the plan gives (the run's own namespaces).
"""

from __future__ import annotations

import contextlib
import json
import random
import resource
import socket
import struct
import sys
import threading
import time

CHUNK = 64 * 1024

# struct tcp_info (include/uapi/linux/tcp.h), up to tcpi_total_rto_time
# (Linux 6.7): the offsets read below.
TCP_INFO_LEN = 248
_U8 = {"ca_state": 1, "retransmits": 2, "backoff": 4}
_U32 = {
    "rto_us": 8,
    "snd_mss": 16,
    "lost": 32,
    "retrans": 36,
    "rtt_us": 68,
    "rttvar_us": 72,
    "snd_ssthresh": 76,
    "snd_cwnd": 80,
    "total_retrans": 100,
    "min_rtt_us": 148,
    "data_segs_in": 152,
    "data_segs_out": 156,
    "delivered_ce": 196,
}
_U64 = {"bytes_acked": 120, "bytes_received": 128, "bytes_sent": 200, "bytes_retrans": 208}
_U16 = {"total_rto": 240, "total_rto_recoveries": 242}


def close(sock: socket.socket, clock: Clock) -> None:
    """Closes a connection; past the run's deadline with a reset (SO_LINGER
    0, socket(7)), so that the kernel does not go on sending what is left in
    the socket's buffer after the run has ended."""
    if clock.left() <= 0:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
    sock.close()


def tcp_info(sock: socket.socket) -> dict[str, int]:
    """The fields fairlab reads of the socket's TCP_INFO (tcp(7))."""
    b = sock.getsockopt(socket.IPPROTO_TCP, socket.TCP_INFO, TCP_INFO_LEN)
    b = b.ljust(TCP_INFO_LEN, b"\0")
    d = {k: b[o] for k, o in _U8.items()}
    d.update({k: struct.unpack_from("=I", b, o)[0] for k, o in _U32.items()})
    d.update({k: struct.unpack_from("=Q", b, o)[0] for k, o in _U64.items()})
    d.update({k: struct.unpack_from("=H", b, o)[0] for k, o in _U16.items()})
    return d


class Clock:
    """Seconds since T0 on CLOCK_MONOTONIC (the same in every namespace)."""

    def __init__(self, t0: float, deadline_s: float) -> None:
        self.t0 = t0
        self.deadline_s = deadline_s

    def now(self) -> float:
        return time.monotonic() - self.t0

    def sleep_until(self, t: float) -> None:
        d = t - self.now()
        if d > 0:
            time.sleep(d)

    def left(self) -> float:
        return self.deadline_s - self.now()


class Agent:
    def __init__(self, cfg: dict) -> None:
        self.cfg = cfg
        self.host = cfg["host"]
        self.flows = {f["flow_id"]: f for f in cfg["flows"]}
        self.sample_s = cfg["sample_s"]
        self.bin_s = cfg.get("bin_s")
        self.records: dict[int, dict] = {}
        self.rounds: list[dict] = []
        self.errors: list[str] = []
        self.lock = threading.Lock()
        self.listeners: dict[int, socket.socket] = {}
        self.threads: list[threading.Thread] = []
        self.senders: dict[int, socket.socket] = {}
        self.samples: dict[int, list] = {}
        self.stop = threading.Event()

    # -- records -----------------------------------------------------
    def rec(self, fid: int) -> dict:
        with self.lock:
            return self.records.setdefault(fid, {"flow_id": fid})

    def fail(self, what: str, e: BaseException) -> None:
        with self.lock:
            self.errors.append(f"{self.host}: {what}: {type(e).__name__}: {e}")

    # -- set-up ------------------------------------------------------
    def listen_tcp(self, f: dict) -> None:
        s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        addr = f["src_addr"] if f["opener"] == "dst" else f["dst_addr"]
        s.bind((addr, f["port"]))
        s.listen(4)
        self.listeners[f["flow_id"]] = s

    def listen_udp(self, f: dict) -> None:
        s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4 << 20)
        s.bind((f["dst_addr"], f["port"]))
        self.listeners[f["flow_id"]] = s

    def setup(self) -> None:
        for f in self.flows.values():
            listener = f["dst"] if f["opener"] == "src" else f["src"]
            if listener != self.host:
                continue
            if f["kind"] == "udp":
                self.listen_udp(f)
            else:
                self.listen_tcp(f)

    def spawn(self, fn, *args) -> None:
        def run() -> None:
            try:
                fn(*args)
            except Exception as e:  # reported, never silent
                self.fail(fn.__name__, e)

        t = threading.Thread(target=run, daemon=True)
        t.start()
        self.threads.append(t)

    # -- helpers -----------------------------------------------------
    def connect(self, f: dict, clock: Clock) -> socket.socket:
        s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        a, b = f["src_addr"], f["dst_addr"]
        mine, peer = (a, b) if f["opener"] == "src" else (b, a)
        s.bind((mine, 0))
        s.settimeout(max(clock.left(), 0.01))
        s.connect((peer, f["port"]))
        s.settimeout(None)
        return s

    def accept(self, fid: int, clock: Clock) -> socket.socket:
        ls = self.listeners[fid]
        ls.settimeout(max(clock.left(), 0.01))
        s, _ = ls.accept()
        s.settimeout(None)
        return s

    def recv_exact(self, s: socket.socket, n: int, clock: Clock, bins: list | None) -> int:
        got = 0
        while got < n:
            if clock.left() <= 0:
                break
            s.settimeout(max(clock.left(), 0.001))
            try:
                b = s.recv(min(CHUNK, n - got))
            except (TimeoutError, ConnectionResetError):
                break
            if not b:
                break
            got += len(b)
            if bins is not None:
                bins.append((clock.now(), len(b)))
        s.settimeout(None)
        return got

    def send_bytes(self, s: socket.socket, n: int | None, clock: Clock) -> int:
        """Sends n bytes (None: until the deadline); returns bytes handed to TCP."""
        buf = b"\0" * CHUNK
        sent = 0
        s.settimeout(0.05)
        while (n is None or sent < n) and clock.left() > 0:
            k = CHUNK if n is None else min(CHUNK, n - sent)
            try:
                sent += s.send(buf[:k])
            except TimeoutError:
                continue
            except OSError:
                break
        s.settimeout(None)
        return sent

    def watch(self, fid: int, s: socket.socket) -> None:
        with self.lock:
            self.senders[fid] = s
            self.samples[fid] = []

    def sampler(self, clock: Clock) -> None:
        """TCP_INFO of every data sender, every sample_s."""
        while not self.stop.is_set() and clock.left() > -1:
            t = clock.now()
            with self.lock:
                items = list(self.senders.items())
            for fid, s in items:
                try:
                    i = tcp_info(s)
                except OSError:
                    continue
                self.samples[fid].append(
                    (
                        t,
                        i["snd_cwnd"] * i["snd_mss"],
                        i["snd_ssthresh"] * i["snd_mss"] if i["snd_ssthresh"] < 0x7FFFFFFF else -1,
                        i["rtt_us"],
                        i["rto_us"],
                        i["ca_state"],
                        i["bytes_acked"],
                        i["total_rto"],
                        i["total_retrans"],
                    )
                )
            self.stop.wait(self.sample_s)

    def final_info(self, fid: int, s: socket.socket) -> None:
        try:
            i = tcp_info(s)
        except OSError:
            return
        r = self.rec(fid)
        r["info"] = i
        with self.lock:
            self.senders.pop(fid, None)

    # -- workloads ---------------------------------------------------
    def bulk_send(self, f: dict, start: float, size: int | None, clock: Clock) -> None:
        clock.sleep_until(start)
        r = self.rec(f["flow_id"])
        r["start_s"] = clock.now()
        s = self.connect(f, clock)
        self.watch(f["flow_id"], s)
        r["sent"] = self.send_bytes(s, size, clock)
        # Wait for the last byte's ACK (bounded by the deadline).
        while clock.left() > 0:
            i = tcp_info(s)
            if i["bytes_acked"] >= r["sent"]:
                break
            time.sleep(0.001)
        self.final_info(f["flow_id"], s)
        close(s, clock)

    def bulk_sink(self, f: dict, clock: Clock) -> None:
        s = self.accept(f["flow_id"], clock)
        r = self.rec(f["flow_id"])
        bins: list = []
        got = 0
        s.settimeout(0.05)
        while clock.left() > 0:
            try:
                b = s.recv(CHUNK)
            except TimeoutError:
                continue
            except ConnectionResetError:
                # The sender reset the connection at the run's deadline.
                break
            if not b:
                break
            got += len(b)
            if self.bin_s:
                bins.append((clock.now(), len(b)))
            r["last_s"] = clock.now()
        r["received"] = got
        r["bins"] = _bin(bins, self.bin_s) if self.bin_s else []
        with contextlib.suppress(OSError):
            r["rx_info"] = tcp_info(s)
        s.close()

    def incast_server(self, f: dict, w: dict, k: int, clock: Clock) -> None:
        s = self.accept(f["flow_id"], clock)
        self.watch(f["flow_id"], s)
        r = self.rec(f["flow_id"])
        rto_at_request = []
        rng = random.Random(self.cfg["seed"] * 1_000_003 + f["flow_id"])
        sru = w["sru_bytes"][k]
        sent = 0
        for _ in range(w["rounds"] + (1 if w["warmup"] else 0)):
            got = self.recv_exact(s, w["request_bytes"], clock, None)
            if got < w["request_bytes"]:
                break
            rto_at_request.append(tcp_info(s)["total_rto"])
            if w["response_jitter_s"] > 0:
                time.sleep(rng.uniform(0, w["response_jitter_s"]))
            sent += self.send_bytes(s, sru, clock)
        # The client closes after its last round: wait for it (bounded).
        self.recv_exact(s, 1, clock, None)
        rto_at_request.append(tcp_info(s)["total_rto"])
        r["sent"] = sent
        r["rto_at_request"] = rto_at_request
        self.final_info(f["flow_id"], s)
        close(s, clock)

    def incast_client(self, w: dict, clock: Clock) -> None:
        clock.sleep_until(w["start_s"])
        socks = []
        for fid in w["flow_ids"]:
            f = self.flows[fid]
            socks.append(self.connect(f, clock))
            self.rec(fid)["start_s"] = clock.now()
        n = len(socks)
        req = b"\0" * w["request_bytes"]
        got = [0] * n
        done_at = [0.0] * n
        bins: list[list] = [[] for _ in range(n)]
        total = w["rounds"] + (1 if w["warmup"] else 0)
        for rnd in range(total):
            if clock.left() <= 0:
                break
            t_start = clock.now()
            for s in socks:
                s.sendall(req)

            def read(j: int) -> None:
                k = self.recv_exact(
                    socks[j], w["sru_bytes"][j], clock, bins[j] if self.bin_s else None
                )
                got[j] += k
                done_at[j] = clock.now()

            ts = [threading.Thread(target=read, args=(j,)) for j in range(n)]
            for t in ts:
                t.start()
            for t in ts:
                t.join()
            t_end = clock.now()
            if sum(got) < sum(w["sru_bytes"]) * (rnd + 1):
                break
            if w["warmup"] and rnd == 0:
                continue
            slowest = max(range(n), key=lambda j: done_at[j])
            self.rounds.append(
                {
                    "workload": w["workload"],
                    "round": rnd - (1 if w["warmup"] else 0),
                    "start_s": t_start,
                    "end_s": t_end,
                    "bytes": sum(w["sru_bytes"]),
                    "slowest": slowest,
                }
            )
        for j, s in enumerate(socks):
            fid = w["flow_ids"][j]
            r = self.rec(fid)
            r["received"] = got[j]
            r["last_s"] = done_at[j]
            r["bins"] = _bin(bins[j], self.bin_s) if self.bin_s else []
            close(s, clock)

    def nfs_server(self, f: dict, w: dict, clock: Clock) -> None:
        s = self.accept(f["flow_id"], clock)
        self.watch(f["flow_id"], s)
        r = self.rec(f["flow_id"])
        sent = 0
        reply = w["io_bytes"] + w["reply_header_bytes"]
        # At most one reply per READ the file needs (bounded).
        for _ in range(-(-w["file_bytes"] // w["io_bytes"])):
            if self.recv_exact(s, w["request_bytes"], clock, None) < w["request_bytes"]:
                break
            sent += self.send_bytes(s, reply, clock)
        self.recv_exact(s, 1, clock, None)
        r["sent"] = sent
        self.final_info(f["flow_id"], s)
        close(s, clock)

    def nfs_client(self, f: dict, w: dict, clock: Clock) -> None:
        clock.sleep_until(w["start_s"])
        r = self.rec(f["flow_id"])
        r["start_s"] = clock.now()
        s = self.connect(f, clock)
        reads = -(-w["file_bytes"] // w["io_bytes"])
        reply = w["io_bytes"] + w["reply_header_bytes"]
        req = b"\0" * w["request_bytes"]
        sent_req = 0
        done = 0
        got = 0
        bins: list = []
        while sent_req < min(w["outstanding"], reads):
            s.sendall(req)
            sent_req += 1
        while done < reads and clock.left() > 0:
            k = self.recv_exact(s, reply, clock, bins if self.bin_s else None)
            got += k
            if k < reply:
                break
            done += 1
            r["last_s"] = clock.now()
            if sent_req < reads:
                s.sendall(req)
                sent_req += 1
        r["received"] = got
        r["requests_sent"] = sent_req
        r["requests_done"] = done
        r["bins"] = _bin(bins, self.bin_s) if self.bin_s else []
        s.close()

    def udp_send(self, f: dict, w: dict, clock: Clock) -> None:
        clock.sleep_until(w["start_s"])
        s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        s.bind((f["src_addr"], 0))
        payload = b"\0" * (w["packet_bytes"] - 28)
        gap = w["packet_bytes"] * 8 / w["rate_bps"]
        rng = random.Random(self.cfg["seed"] * 1_000_003 + f["flow_id"])
        poisson = w["arrivals"] == "poisson"
        t = clock.now()
        sent = 0
        start = t
        # The stream's end: a datagram count, or an instant (no datagram at
        # or after `stop_s`).
        limit = w.get("packets")
        stop = w.get("stop_s")
        while clock.left() > 0:
            if (limit is not None and sent >= limit) or (stop is not None and t >= stop):
                break
            clock.sleep_until(t)
            try:
                s.sendto(payload, (f["dst_addr"], f["port"]))
                sent += 1
            except OSError:
                pass
            t += rng.expovariate(1 / gap) if poisson else gap
        r = self.rec(f["flow_id"])
        r["start_s"] = start
        r["udp_sent"] = sent
        s.close()

    def udp_sink(self, f: dict, clock: Clock) -> None:
        s = self.listeners[f["flow_id"]]
        r = self.rec(f["flow_id"])
        got = 0
        nbytes = 0
        bins: list = []
        s.settimeout(0.05)
        while clock.left() > 0:
            try:
                b = s.recv(65536)
            except TimeoutError:
                continue
            got += 1
            nbytes += len(b) + 28
            r["last_s"] = clock.now()
            if self.bin_s:
                bins.append((clock.now(), len(b) + 28))
        r["udp_delivered"] = got
        r["received"] = nbytes
        r["bins"] = _bin(bins, self.bin_s) if self.bin_s else []

    def start_workloads(self, clock: Clock) -> None:
        h = self.host
        seed = self.cfg["seed"]
        for w in self.cfg["workloads"]:
            kind = w["kind"]
            if kind == "incast":
                if w["client"] == h:
                    self.spawn(self.incast_client, w, clock)
                for k, fid in enumerate(w["flow_ids"]):
                    if self.flows[fid]["src"] == h:
                        self.spawn(self.incast_server, self.flows[fid], w, k, clock)
            elif kind == "bulk":
                f = self.flows[w["flow_id"]]
                if f["src"] == h:
                    self.spawn(self.bulk_send, f, w["start_s"], w["size_bytes"], clock)
                if f["dst"] == h:
                    self.spawn(self.bulk_sink, f, clock)
            elif kind == "short":
                rng = random.Random(seed * 1_000_003 + w["workload"])
                for fid in w["flow_ids"]:
                    f = self.flows[fid]
                    at = w["start_s"] + rng.uniform(0, w["spread_s"])
                    if f["src"] == h:
                        self.spawn(self.bulk_send, f, at, w["size_bytes"], clock)
                    if f["dst"] == h:
                        self.spawn(self.bulk_sink, f, clock)
            elif kind == "nfs_read":
                for fid in w["flow_ids"]:
                    f = self.flows[fid]
                    if f["src"] == h:
                        self.spawn(self.nfs_server, f, w, clock)
                    if f["dst"] == h:
                        self.spawn(self.nfs_client, f, w, clock)
            elif kind == "udp":
                f = self.flows[w["flow_id"]]
                if f["src"] == h:
                    self.spawn(self.udp_send, f, w, clock)
                if f["dst"] == h:
                    self.spawn(self.udp_sink, f, clock)


def _bin(events: list, bin_s: float) -> list:
    """(bin start, bytes) per bin with bytes, of (time, bytes) events."""
    out: dict[int, int] = {}
    for t, n in events:
        k = int(t // bin_s)
        out[k] = out.get(k, 0) + n
    return sorted((k * bin_s, n) for k, n in out.items())


def main() -> int:
    cfg = json.loads(sys.stdin.readline())
    agent = Agent(cfg)
    agent.setup()
    print("ready", flush=True)
    line = sys.stdin.readline().split()
    if len(line) != 2 or line[0] != "go":
        return 1
    clock = Clock(float(line[1]), cfg["deadline_s"])
    clock.sleep_until(0.0)
    sampler = threading.Thread(target=agent.sampler, args=(clock,), daemon=True)
    sampler.start()
    agent.start_workloads(clock)
    for t in agent.threads:
        t.join(max(clock.left() + 2.0, 0.1))
    agent.stop.set()
    sampler.join(1.0)
    ru = resource.getrusage(resource.RUSAGE_SELF)
    out = {
        "host": agent.host,
        "records": list(agent.records.values()),
        "samples": {str(k): v for k, v in agent.samples.items()},
        "rounds": agent.rounds,
        "errors": agent.errors,
        "cpu_s": ru.ru_utime + ru.ru_stime,
        "end_s": clock.now(),
        "unfinished_threads": sum(t.is_alive() for t in agent.threads),
    }
    sys.stdout.write(json.dumps(out) + "\n")
    sys.stdout.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
