"""Applies a plan (the Rust lowering's JSON) with `ip` and `tc`, in batches.

One `ip -batch` in the root namespace adds the namespaces and the veth
pairs (each end created directly inside its namespace, so nothing is left
in the root namespace if a run dies); then, per namespace, one `ip -batch`
(addresses, offloads, routes), one `tc -batch` (shapers and FIFOs) and one
`sysctl` process. ip-link(8), ip-route(8), tc-htb(8), tc-tbf(8), tc-bfifo(8).
"""

from __future__ import annotations

import subprocess
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

from .safety import EmulationRefused, if_name, ns_name


@dataclass
class Names:
    """A plan's kernel names under one prefix."""

    prefix: str
    plan: dict

    def ns(self, node: str) -> str:
        return ns_name(self.prefix, node)

    def iface(self, link: int, end: str) -> str:
        return if_name(self.prefix, link, end)

    def namespaces(self) -> list[str]:
        return [self.ns(n["name"]) for n in self.plan["nodes"]]

    def port_iface(self, port: dict) -> str:
        return self.iface(port["link"], port["end"])


def _run(cmd: list[str], stdin: str | None = None) -> None:
    r = subprocess.run(cmd, input=stdin, text=True, capture_output=True)
    if r.returncode != 0:
        first = (r.stderr or r.stdout).strip().splitlines()
        raise EmulationRefused(
            f"`{' '.join(cmd)}` failed: {first[0] if first else r.returncode}"
            + (f" (batch line: {first[1]})" if len(first) > 1 else "")
        )


def root_batch(names: Names) -> str:
    plan = names.plan
    lines = [f"netns add {ns}" for ns in names.namespaces()]
    mtu = plan["mtu"]
    queues = {(p["link"], p["end"]): p.get("queues", 1) for p in plan["ports"]}
    for i, link in enumerate(plan["links"]):
        a, b = names.iface(i, "a"), names.iface(i, "b")
        # One transmit and receive queue per end: the port is one FIFO
        # (veth would otherwise get one queue per CPU); a multi-queue NIC's
        # end has its queues, and its peer as many receive queues.
        qa, qb = queues.get((i, "a"), 1), queues.get((i, "b"), 1)
        n = max(qa, qb)
        lines.append(
            f"link add {a} netns {names.ns(link['a'])} mtu {mtu} numtxqueues {qa} numrxqueues {n} "
            f"type veth peer name {b} netns {names.ns(link['b'])} mtu {mtu} "
            f"numtxqueues {qb} numrxqueues {n}"
        )
    return "".join(line + "\n" for line in lines)


def node_ip_batch(names: Names, node: dict) -> str:
    plan = names.plan
    name = node["name"]
    lines = ["link set lo up"]
    for p in plan["ports"]:
        if p["node"] != name:
            continue
        dev = names.port_iface(p)
        link = plan["links"][p["link"]]
        addr = link["a_addr"] if p["end"] == "a" else link["b_addr"]
        # gso_max_segs 1: TCP builds one segment per skb (sk_gso_max_segs,
        # tcp_tso_autosize), so the qdiscs see, queue and drop packets, not
        # TSO/GSO batches. veth does GRO only when asked (veth.c,
        # veth_gro_requested), so the receiver sees each segment too.
        lines.append(
            f"link set {dev} txqueuelen {p['txqueuelen']} gso_max_segs 1 "
            f"gso_max_size {plan['mtu']} up"
        )
        lines.append(f"addr add {addr}/30 dev {dev}")
        if node["kind"] == "host":
            lines.append(f"addr add {node['addr']}/32 dev {dev}")
    for r in plan["routes"]:
        if r["node"] != name or not r["via"]:
            continue
        devs = [names.iface(lk, _end(plan, lk, name)) for lk in r["links"]]
        if len(r["via"]) == 1:
            hop = f"via {r['via'][0]} dev {devs[0]}"
        else:
            hop = " ".join(f"nexthop via {v} dev {d}" for v, d in zip(r["via"], devs, strict=True))
        extra = f" src {r['src']}" if r["src"] else ""
        t = r.get("tcp")
        if t:
            # ip-route(8): rto_min (locked by ip), congctl, initcwnd, advmss,
            # window, quickack.
            extra += (
                f" congctl {t['congctl']} rto_min {t['rto_min_ms']}ms initcwnd {t['initcwnd']}"
                f" advmss {t['advmss']} window {t['window']} quickack {int(t['quickack'])}"
            )
        lines.append(f"route add {r['dst']} {hop}{extra}")
    return "".join(line + "\n" for line in lines)


def _end(plan: dict, link: int, node: str) -> str:
    return "a" if plan["links"][link]["a"] == node else "b"


def node_tc_batch(names: Names, node: dict) -> str:
    lines = []
    for p in names.plan["ports"]:
        if p["node"] != node["name"]:
            continue
        dev = names.port_iface(p)
        s, q = p["shaper"], p["queue"]
        quantum = names.plan["mtu"] + 14
        k = p.get("queues", 1)
        if k > 1:
            lines += _multi_queue(dev, s, q, k, quantum)
            continue
        # [link] framing beyond the frame's Ethernet header: the shaper
        # charges it per packet (tc-htb(8), tc-tbf(8) `overhead`).
        overhead = f" overhead {s['overhead_bytes']}" if s.get("overhead_bytes") else ""
        if s["kind"] == "htb":
            # One class, rate = ceil, explicit bursts; quantum one frame
            # (tc-htb(8): r2q would make it rate/80, "quantum is big").
            lines.append(f"qdisc add dev {dev} root handle 1: htb default 1")
            lines.append(
                f"class add dev {dev} parent 1: classid 1:1 htb rate {s['rate_bps']}bit "
                f"ceil {s['rate_bps']}bit burst {s['burst_bytes']}b cburst {s['cburst_bytes']}b "
                f"quantum {quantum}{overhead}"
            )
        else:
            limit = q["limit"] if q["kind"] in ("bfifo", "red") else q["limit"] * 1514
            lines.append(
                f"qdisc add dev {dev} root handle 1: tbf rate {s['rate_bps']}bit "
                f"burst {s['burst_bytes']}b limit {limit}b{overhead}"
            )
        lines.append(f"qdisc add dev {dev} parent 1:1 handle 10: {_leaf(q)}")
    return "".join(line + "\n" for line in lines)


#: Classic BPF (tc-bpf(8), cls_bpf): load the packet's queue mapping
#: (SKF_AD_OFF + SKF_AD_QUEUE = -4096 + 24, include/uapi/linux/filter.h;
#: skb->queue_mapping in net/core/filter.c convert_skb_access), add 0x10002,
#: return it as the classid: transmit queue i goes to class 1:(2 + i).
#: Opcodes: BPF_LD|BPF_W|BPF_ABS = 32, BPF_ALU|BPF_ADD|BPF_K = 4,
#: BPF_RET|BPF_A = 22.
QUEUE_CLASSIFIER = "3,32 0 0 4294963224,4 0 0 65538,22 0 0 0"


def _multi_queue(dev: str, s: dict, q: dict, k: int, quantum: int) -> list[str]:
    """A multi-queue NIC: the kernel sets each packet's queue mapping (its
    socket's queue, netdev_pick_tx) before the root qdisc; a BPF classifier
    puts queue i in htb class 1:(2+i) under the port's rate, and htb serves
    the backlogged classes in turn, a frame per turn (equal quanta, equal
    priority: its deficit round robin), as the NIC's arbiter."""
    rate = s["rate_bps"]
    share = max(rate // k, 8)
    overhead = f" overhead {s['overhead_bytes']}" if s.get("overhead_bytes") else ""
    out = [
        f"qdisc add dev {dev} root handle 1: htb default 2",
        f"class add dev {dev} parent 1: classid 1:1 htb rate {rate}bit ceil {rate}bit "
        f"burst {s['burst_bytes']}b cburst {s['cburst_bytes']}b quantum {quantum}{overhead}",
    ]
    for i in range(k):
        out.append(
            f"class add dev {dev} parent 1:1 classid 1:{2 + i:x} htb rate {share}bit "
            f"ceil {rate}bit burst {s['burst_bytes']}b cburst {s['cburst_bytes']}b "
            f"quantum {quantum}{overhead}"
        )
        out.append(f"qdisc add dev {dev} parent 1:{2 + i:x} handle {16 + i:x}: {_leaf(q)}")
    out.append(f'filter add dev {dev} parent 1: bpf bytecode "{QUEUE_CLASSIFIER}"')
    return out


def _leaf(q: dict) -> str:
    k = q["kind"]
    if k in ("bfifo", "pfifo"):
        return f"{k} limit {q['limit']}"
    p = q["params"]
    if k == "red":
        return (
            f"red limit {q['limit']} min {int(p['min_bytes'])} max {int(p['max_bytes'])} "
            f"avpkt {int(p['avpkt'])} bandwidth {int(p['bandwidth_bps'])}bit "
            f"probability {p['probability']}" + (" ecn" if p["ecn"] else "")
        )
    return f"sfq limit {q['limit']} divisor {int(p['divisor'])} perturb {int(p['perturb_s'])}"


#: Every namespace runs IPv4 only: IPv6's neighbour discovery and MLD
#: would put packets of their own into the ports' FIFOs (ip-sysctl.rst,
#: disable_ipv6), which the tables would count and no flow sent.
BASE_SYSCTLS = ["net.ipv6.conf.all.disable_ipv6=1", "net.ipv6.conf.default.disable_ipv6=1"]


def sysctl_args(names: Names, node: dict) -> list[str]:
    own = [f"{s['key']}={s['value']}" for s in names.plan["sysctls"] if s["node"] == node["name"]]
    return BASE_SYSCTLS + own


def apply(names: Names) -> None:
    """Creates the plan's namespaces, links, qdiscs, routes and sysctls."""
    _run(["ip", "-batch", "-"], root_batch(names))

    def one(node: dict) -> None:
        ns = names.ns(node["name"])
        # Sysctls first: the routes' congctl needs nothing, but TCP settings
        # must be in place before any socket exists.
        args = sysctl_args(names, node)
        if args:
            _run(["ip", "netns", "exec", ns, "sysctl", "-q", "-w", *args])
        _run(["ip", "-n", ns, "-batch", "-"], node_ip_batch(names, node))
        tc = node_tc_batch(names, node)
        if tc:
            _run(["tc", "-n", ns, "-batch", "-"], tc)

    with ThreadPoolExecutor(max_workers=8) as ex:
        list(ex.map(one, names.plan["nodes"]))
