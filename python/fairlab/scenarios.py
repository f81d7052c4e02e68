"""Builders for the scenarios of the source documents, as plain dicts.

A dict built here is the same structure as a TOML scenario file (see
docs/scenario.md); pass it to :func:`fairlab.simulate` or dump it to TOML.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

from .units import format_time_ps, parse_buffer, parse_size, parse_time_ps


def resolve_resolution(min_rto: str, resolution: str = "auto", hz: int = 1000) -> str:
    """The timer resolution "auto" stands for with a min RTO on a jiffy clock
    of ``hz``: "jiffy" from one tick up (what a stock kernel can do), "1us"
    below it (what needs high-resolution timers). Any other resolution is
    returned as given. The rule lives in the simulator's spec
    (``resolution = "auto"`` in docs/scenario.md); this asks it.
    """
    if resolution != "auto":
        return resolution
    from . import _core

    return _core.auto_resolution(min_rto, hz)


def incast(
    servers: int,
    *,
    sru: str | None = None,
    block: str | None = None,
    buffer: str = "64KiB",
    min_rto: str = "200ms",
    resolution: str = "auto",
    hz: int = 1000,
    rate: str = "1Gbps",
    rtt: str = "100us",
    rounds: int = 20,
    delayed_ack: bool | None = None,
    profile: str = "rfc",
    request: str = "100B",
    jitter: str | None = None,
    response_jitter: str | None = None,
    warmup: bool | None = None,
    request_order: str | None = None,
    tcp: str | None = None,
    sack: bool | None = None,
    ecn_threshold: str | None = None,
    randomize_rto: bool | None = None,
    seed: int = 1,
    mss: str | None = None,
    rwnd: str | None = None,
    max_rto: str | None = None,
    duration: str | None = None,
    tcp_extra: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """Barrier-synchronized reads from ``servers`` servers through one switch.

    Hosts are ``client`` and ``s1``..``sN`` on switch ``sw``; every link has
    one quarter of ``rtt`` of propagation delay (client -> sw -> server and
    back). ``buffer`` limits every switch port, the bottleneck being the port
    toward the client. Exactly one of ``sru`` (bytes per server per round)
    and ``block`` (bytes per round, split over the servers) applies; without
    either, the SRU is 256 KiB. ``jitter`` is the hosts' send jitter.
    ``mss`` and ``rwnd`` (the advertised window, "20pkt" counts segments)
    and ``max_rto`` override the profile; ``tcp_extra`` adds any other
    ``[tcp]`` field. ``duration`` ends the run at that time (rounds still
    running are not counted in the goodput). ``warmup`` makes the client
    exchange one request-sized message with each server in turn before the
    first round (the published ns-2 application's setup phase);
    ``request_order="random"`` shuffles each round's requests (as its client).

    With ``profile="ns2"`` and ``resolution="auto"`` the clock stays the
    profile's 10 ms tick (ns-2's tcpTick_) for a min RTO of at least 10 ms
    and becomes 1 µs below it (an ns-2 run with a finer tcpTick_).
    """
    if servers < 1:
        raise ValueError("servers must be at least 1")
    if sru is not None and block is not None:
        raise ValueError("give sru or block, not both")
    if sru is None and block is None:
        sru = "256KiB"
    delay = format_time_ps(int(Fraction(parse_time_ps(rtt), 4)))
    # "auto" is resolved by the simulator's spec (docs/scenario.md): ns2 keeps
    # its own tick, so it gets hz only with a jiffy clock.
    tcp_spec: dict[str, Any] = {"profile": profile, "min_rto": min_rto, "resolution": resolution}
    if profile != "ns2" or resolution == "jiffy":
        tcp_spec["hz"] = hz
    if mss is not None:
        tcp_spec["mss"] = mss
    if rwnd is not None:
        try:
            count, unit = parse_buffer(rwnd)
        except ValueError:  # validation names the field and what is allowed
            unit = "bytes"
        if unit == "packets":
            seg = parse_size(mss) if mss else (1000 if profile == "ns2" else 1460)
            rwnd = f"{count * seg}B"
        tcp_spec["receive_window"] = rwnd
    if max_rto is not None:
        tcp_spec["max_rto"] = max_rto
    if tcp_extra:
        tcp_spec.update(tcp_extra)
    if delayed_ack is not None:
        tcp_spec["delayed_ack"] = delayed_ack
    if tcp is not None:
        tcp_spec["cc"] = tcp
    if sack is not None:
        tcp_spec["sack"] = sack
    if randomize_rto is not None:
        tcp_spec["randomize_rto"] = randomize_rto
    workload: dict[str, Any] = {
        "kind": "incast",
        "client": "client",
        "servers": "all",
        "request": request,
        "rounds": rounds,
    }
    if sru is not None:
        workload["sru"] = sru
    else:
        workload["block"] = block
    if response_jitter:
        workload["response_jitter"] = response_jitter
    if warmup is not None:
        workload["warmup"] = warmup
    if request_order is not None:
        workload["request_order"] = request_order
    scenario: dict[str, Any] = {
        "name": f"incast-{servers}",
        "seed": seed,
        "topology": {
            "kind": "star",
            "hosts": ["client"] + [f"s{i}" for i in range(1, servers + 1)],
            "rate": rate,
            "delay": delay,
        },
        "queue": {"discipline": "droptail", "limit": buffer},
        "tcp": tcp_spec,
        "workload": [workload],
    }
    if ecn_threshold:
        scenario["queue"]["ecn_threshold"] = ecn_threshold
    if jitter:
        scenario["host"] = {"send_jitter": jitter}
    if duration is not None:
        scenario["duration"] = duration
    return scenario


def dumbbell(
    flows: int,
    *,
    duration: str = "1s",
    access_rate: str = "10Gbps",
    bottleneck_rate: str = "1Gbps",
    rtt: str = "100us",
    buffer: str = "100pkt",
    stagger: str = "10us",
    profile: str = "rfc",
    tcp: str | None = None,
    sack: bool | None = None,
    ecn_threshold: str | None = None,
    seed: int = 1,
) -> dict[str, Any]:
    """``flows`` long-lived flows l_i -> r_i across one bottleneck.

    Access links get 10 % of the one-way delay each, the bottleneck the rest;
    flow i starts at i x ``stagger``.
    """
    if flows < 1:
        raise ValueError("flows must be at least 1")
    half = Fraction(parse_time_ps(rtt), 2)
    access = int(half / 10)
    bottleneck = int(half - 2 * access)
    step = parse_time_ps(stagger)
    tcp_spec: dict[str, Any] = {"profile": profile}
    if tcp is not None:
        tcp_spec["cc"] = tcp
    if sack is not None:
        tcp_spec["sack"] = sack
    queue: dict[str, Any] = {"discipline": "droptail", "limit": buffer}
    if ecn_threshold:
        queue["ecn_threshold"] = ecn_threshold
    return {
        "name": f"dumbbell-{flows}",
        "seed": seed,
        "duration": duration,
        "topology": {
            "kind": "dumbbell",
            "left": flows,
            "right": flows,
            "rate": access_rate,
            "delay": format_time_ps(access),
            "bottleneck_rate": bottleneck_rate,
            "bottleneck_delay": format_time_ps(bottleneck),
        },
        "queue": queue,
        "tcp": tcp_spec,
        "workload": [
            {"kind": "bulk", "src": f"l{i}", "dst": f"r{i}", "start": format_time_ps(i * step)}
            for i in range(flows)
        ],
    }


def fat_tree_hosts(k: int) -> list[str]:
    """Host names of a ``fat_tree`` topology, in host order: ``h{pod}_{edge}_{i}``
    (the scheme docs/scenario.md gives every builder; host ``h{p}_{e}_{i}``
    has Al-Fares' address 10.p.e.(i+2))."""
    if k < 2 or k % 2:
        raise ValueError("k must be an even number of at least 2")
    half = k // 2
    return [f"h{p}_{e}_{i}" for p in range(k) for e in range(half) for i in range(half)]


def fat_tree_permutation(
    k: int,
    *,
    duration: str = "100ms",
    rate: str = "10Gbps",
    delay: str = "1us",
    buffer: str | None = None,
    selection: str = "ecmp",
    paths: str = "shortest",
    profile: str = "datacenter",
    shift: int | None = None,
    seed: int = 1,
) -> dict[str, Any]:
    """Long flows on a k-ary fat tree, host i sending to host i + ``shift``
    (default k^2/4: the next pod, so every flow crosses a core switch), one
    flow per host, under ``[routing] selection`` and ``paths``."""
    hosts = fat_tree_hosts(k)
    n = len(hosts)
    step = (k * k // 4) % n if shift is None else shift % n
    if step == 0:
        raise ValueError("shift must not map a host onto itself")
    topology: dict[str, Any] = {"kind": "fat_tree", "k": k, "rate": rate, "delay": delay}
    if buffer is not None:
        topology["buffer"] = buffer
    routing: dict[str, Any] = {"selection": selection}
    if paths != "shortest":
        routing["paths"] = paths
    return {
        "name": f"fat-tree-{k}-permutation",
        "seed": seed,
        "duration": duration,
        "topology": topology,
        "routing": routing,
        "tcp": {"profile": profile},
        "workload": [
            {"kind": "bulk", "src": hosts[i], "dst": hosts[(i + step) % n]} for i in range(n)
        ],
    }
