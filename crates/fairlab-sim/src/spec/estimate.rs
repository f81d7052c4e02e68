//! What a scenario will cost: the workloads' own estimates
//! ([`Estimated`], `workloads.rs`) and the disciplines' ([`PortCost`],
//! `queues/*.rs`) added up with what the topology, the hosts and the
//! metrics cost. No kind is matched here and no node is named: a part's
//! cost comes from the part.
//!
//! Packet-hops: every data packet crosses its route's links and, for TCP,
//! an ACK comes back over as many (delayed ACKs only make fewer), so a
//! workload's packet-hops are at most twice its packets times its longest
//! route. Events: the simulator handles a packet at a hop in at most two
//! events (its arrival and the end of its transmission), and each packet
//! at its ends in about two more (the sender's and the receiver's work and
//! their timers); samples and bins are an event each. Measured against
//! the simulator (`tests.rs`, `the_estimate_bounds_the_simulators_work`),
//! the packet-hops estimate is 1.0 to 3.2 times what a run does and the
//! events estimate 1.7 to 4.3 times (a k = 4 fat tree at 10 Gb/s for 1 s:
//! 1.7 and 2.5). Retransmissions after losses are not counted, as in the
//! packets: a run that loses much can exceed them (over 10,000 fuzzed
//! scenarios, at most 1.55 times the packet-hops estimate, an incast into
//! 20-packet buffers that sent every segment twice; the fuzzer fails a
//! case at 10 times). The copies timeouts send when a data segment's
//! round trip outlasts the first RTO (a link of a few kb/s) are counted
//! ([`sent_again`]): without them an incast at 1 kb/s ran 11.7 times the
//! packets counted.

use super::cost::{EstimateCtx, Estimated, Pace, PortCtx, WorkloadCost};
use super::hosts::{NicRoot, TxqSelect};
use super::limits::{
    approx, mul_div, total, Estimate, Term, CONN_BYTES, HEADERS, PACKET_BYTES, ROUTE_BYTES,
    ROW_BYTES, SETUP_PACKETS, SHAPER_BYTES, STAMP_BYTES, TX_QUEUE_BYTES,
};
use super::queues::Discipline;
use super::routing::PathsName;
use super::tcp::TcpSettings;
use super::topology::TopologySpec;
use super::{Resolved, Scenario};
use crate::units::{Bytes, Time, PS_PER_SEC};
use crate::vocab::BufferLimit;

/// Events per packet-hop (an arrival, a transmission's end) and per
/// packet (its sender's and receiver's work and timers).
const EVENTS_PER_HOP: u64 = 2;
const EVENTS_PER_PACKET: u64 = 2;

/// Estimates what `sc` will cost. `r` holds its resolved hosts and TCP.
pub(super) fn of(sc: &Scenario, r: &Resolved) -> Estimate {
    let mut est = Estimate::default();
    let costs = workload_costs(sc, r);
    let conns: u64 = costs.iter().map(|c| c.connections).sum();
    let udp_flows: u64 = costs.iter().map(|c| c.udp_flows).sum();
    est.flows = conns + udp_flows;
    let hosts = r.hosts.len() as u64;
    est.ports = sc
        .topology
        .switch_ports(hosts)
        .saturating_add(host_links(&sc.topology, hosts));
    // How long the run lasts: its duration, or when the last TCP workload
    // is done.
    est.horizon = sc.duration.unwrap_or_else(|| {
        costs
            .iter()
            .filter_map(|c| c.end)
            .fold(Time::ZERO, Time::max)
    });
    let shared_cap = packets(sc, r, &costs, &mut est);
    let tcp_packets = est.packets();
    port_work(sc, &est.horizon.clone(), tcp_packets, &mut est);
    rebalance(sc, conns, udp_flows, &mut est);
    series(sc, conns, tcp_packets, &mut est);
    let held = memory(sc, r, conns, udp_flows, &mut est);
    hops_and_events(sc, &costs, shared_cap, tcp_packets, held, &mut est);
    est
}

/// Each workload's own estimate, in workload order.
fn workload_costs(sc: &Scenario, r: &Resolved) -> Vec<WorkloadCost> {
    let topo = &sc.topology;
    // A shaper slower than every link is the slowest part.
    let slowest = topo
        .slowest_rate()
        .min(sc.slowest_shaper().unwrap_or(topo.slowest_rate()))
        .get();
    // Once, not per workload: on a graph it looks at every host's link.
    let access = topo.access_rate().get();
    sc.workloads
        .iter()
        .enumerate()
        .map(|(i, w)| {
            let cx = EstimateCtx {
                path: format!("workload[{i}]"),
                hosts: &r.hosts,
                index: &r.host_index,
                topology: topo,
                climb: sc.routing.paths == PathsName::EqualLength,
                tcp: r.workload_tcp(i),
                duration: sc.duration,
                send_jitter: sc.host.send_jitter,
                forwarding_jitter: sc.switch.forwarding_jitter,
                slowest,
                access,
            };
            let cost = w.estimate(&cx);
            match cx.tcp {
                Some(tcp) if cost.pace != Pace::Datagrams => sent_again(&cx, tcp, cost),
                _ => cost,
            }
        })
        .collect()
}

/// A TCP workload's data packets counted with the copies its timeouts
/// send when a data segment's round trip outlasts the first RTO the
/// sender can have (a link of a few kb/s, where one segment's
/// serialization takes seconds): the RTO after the handshake's sample
/// (RFC 6298 (2.2): three times that round trip of header-sized packets)
/// or, without a handshake, the initial RTO, within `min_rto` and
/// `max_rto`. Then the sender times out before any ACK can come back,
/// backs off (RFC 6298 (5.5): the RTO doubles, up to `max_rto` and the
/// largest backoff) and sends the segment again, until the RTO outlasts
/// the round trip; the samples its copies' ACKs give keep the RTO near
/// its minimum, so every segment's sequence is counted from `min_rto`.
/// The round trip is counted over the links of the workload's first pair
/// with no queue in the way: queues make it longer (the fuzzer's worst
/// incasts at 1 kb/s ran 1.7 times the packets counted so, within the
/// stated bound). Capped by the timeouts after which the connection
/// aborts. Nothing is added where the round trip is within the first RTO
/// (see the module comment), nor for a workload without pairs.
fn sent_again(cx: &EstimateCtx, tcp: &TcpSettings, mut cost: WorkloadCost) -> WorkloadCost {
    let Some((src, dst)) = cost.pairs.first() else {
        return cost;
    };
    let (topo, index) = (cx.topology, cx.index);
    let segment = Bytes(u64::from(tcp.mss) + HEADERS);
    let header = Bytes(HEADERS);
    let back = topo.one_way(index, dst, src, header);
    let wait = topo.one_way(index, src, dst, segment).saturating_add(back);
    let first_rto = if tcp.handshake {
        topo.one_way(index, src, dst, header)
            .saturating_add(back)
            .times(3)
    } else {
        tcp.initial_rto
    };
    let min_rto = tcp.min_rto.max(Time(1));
    if wait <= first_rto.max(min_rto).min(tcp.max_rto) {
        return cost;
    }
    let ceiling = match tcp.max_backoff {
        0 => tcp.max_rto,
        b => tcp.max_rto.min(min_rto.times(u64::from(b))),
    }
    .max(min_rto);
    // The timeouts that fire before the ACK can return: doubling from the
    // minimum, then every `ceiling`.
    let (mut fired, mut at, mut rto) = (0u64, min_rto, min_rto);
    while at < wait && rto < ceiling {
        fired += 1;
        rto = rto.times(2).min(ceiling);
        at = at.saturating_add(rto);
    }
    if at < wait {
        fired = fired.saturating_add((wait.0 - at.0).div_ceil(ceiling.0));
    }
    if tcp.max_retransmits > 0 {
        fired = fired.min(u64::from(tcp.max_retransmits));
    }
    let sends = fired.saturating_add(1);
    if let Some(p) = &mut cost.packets {
        p.value = p.value.saturating_mul(sends);
        p.how = format!(
            "{}, each sent up to {sends} times: a {}-byte segment's round trip, \"{wait}\", outlasts the first RTO, and its timeouts back off from \"{min_rto}\"",
            p.how,
            segment.get()
        );
    }
    cost
}

/// The packets terms: TCP workloads' own (with a duration, capped
/// altogether by the links their flows cross: the senders' uplinks, the
/// receivers' downlinks, each at its shaper's rate where slower, the
/// topology's core), NFS reads', every
/// connection's opening, UDP's. Returns the cap when it applied.
fn packets(sc: &Scenario, r: &Resolved, costs: &[WorkloadCost], est: &mut Estimate) -> Option<u64> {
    let of_pace = |p: Pace| -> Vec<Term> {
        costs
            .iter()
            .filter(|c| c.pace == p)
            .filter_map(|c| c.packets.clone())
            .collect()
    };
    let mut shared = of_pace(Pace::Shared);
    let mut cap_applied = None;
    if let Some(d) = sc.duration {
        let access = sc.topology.access_rate().get();
        let pairs: Vec<(String, String)> = costs
            .iter()
            .filter(|c| c.pace == Pace::Shared)
            .flat_map(|c| c.pairs.iter().cloned())
            .collect();
        let senders: std::collections::BTreeSet<&str> =
            pairs.iter().map(|p| p.0.as_str()).collect();
        let receivers: std::collections::BTreeSet<&str> =
            pairs.iter().map(|p| p.1.as_str()).collect();
        // A shaper on a sender's NIC bounds its uplink; one on every
        // switch port bounds each receiver's downlink.
        let up = |h: &str| {
            sc.nic_shaper(h)
                .map_or(access, |(_, r)| r.get().min(access))
        };
        let down = sc
            .switch_shaper()
            .map_or(access, |(_, r)| r.get().min(access));
        let mut cover = senders.iter().fold(0u64, |a, h| a.saturating_add(up(h)));
        cover = cover.min((receivers.len() as u64).saturating_mul(down));
        if let Some(core) = sc.topology.core_capacity(&r.host_index, &pairs, access) {
            cover = cover.min(core);
        }
        let smallest_mss = (0..sc.workloads.len())
            .filter_map(|i| r.workload_tcp(i))
            .map(|t| t.mss)
            .min()
            .unwrap_or(1460) as u64;
        let first_open = sc
            .workloads
            .iter()
            .enumerate()
            .filter(|(i, _)| r.workload_tcp(*i).is_some())
            .map(|(_, w)| w.start())
            .fold(Time::MAX, Time::min);
        let time = d.saturating_sub(first_open.min(d));
        let cap = mul_div(cover, time.0, 8 * PS_PER_SEC * (smallest_mss + HEADERS));
        if total(&shared) > cap {
            shared = vec![Term {
                value: cap,
                path: "duration".into(),
                how: format!(
                    "\"{time}\" of TCP at {} bits/s (the links the flows cross) in {}-byte packets",
                    approx(cover),
                    smallest_mss + HEADERS
                ),
            }];
            cap_applied = Some(cap);
        }
    }
    est.packets.extend(shared);
    est.packets.extend(of_pace(Pace::Own));
    // Every connection opens and acknowledges its opening (SYN, SYN-ACK,
    // ACK, and the request or first ACK), whatever the time.
    let conns: u64 = costs.iter().map(|c| c.connections).sum();
    if conns > 0 {
        est.packets.push(Term {
            value: conns.saturating_mul(SETUP_PACKETS),
            path: "workload".into(),
            how: format!("{SETUP_PACKETS} packets to open each of {conns} connections"),
        });
    }
    est.packets.extend(of_pace(Pace::Datagrams));
    cap_applied
}

/// Ports that run `d`: every switch port under `[queue]`'s discipline,
/// the `[[port]]`s that choose it, and the hosts' NIC qdiscs that run it
/// (a `nic_qdisc` per transmit queue, or an SFQ root per host), which take
/// `[queue]`'s settings of that discipline too.
fn running(sc: &Scenario, d: Discipline) -> u64 {
    let hosts = sc.topology.host_count();
    let switch_ports = sc.topology.switch_ports(hosts);
    let default = if sc.queue.discipline == d {
        switch_ports
    } else {
        0
    };
    let overridden = sc.ports.iter().filter(|p| p.discipline == Some(d)).count() as u64;
    let nic_queues = if sc.host.nic_qdisc.map(|q| q.discipline()) == Some(d) {
        hosts.saturating_mul(u64::from(sc.host.nic_queues.max(1)))
    } else {
        0
    };
    let nic_roots = if d == Discipline::Sfq && sc.host.nic_root == Some(NicRoot::Sfq) {
        hosts
    } else {
        0
    };
    default
        .saturating_add(overridden)
        .saturating_add(nic_queues)
        .saturating_add(nic_roots)
}

/// Work that grows with time, not packets, counted as packets: each
/// discipline's own (an HCF port's fixed periods, an SFQ port's
/// perturbations).
fn port_work(sc: &Scenario, horizon: &Time, tcp_packets: u64, est: &mut Estimate) {
    let queued = limits_max_packets(sc, Bytes(HEADERS));
    for &d in Discipline::ALL {
        let ports = running(sc, d);
        if ports == 0 {
            continue;
        }
        let cx = PortCtx {
            ports,
            horizon: *horizon,
            packets: tcp_packets,
            queued,
        };
        if let Some(t) = sc.queue.port_cost(d).periodic_work(&cx) {
            est.packets.push(t);
        }
    }
}

/// Explicit load balancing visits every socket at each rebalance.
fn rebalance(sc: &Scenario, conns: u64, udp_flows: u64, est: &mut Estimate) {
    let stack = sc.host.stack();
    if stack.txq_select == TxqSelect::LeastLoaded && stack.rebalance > Time::ZERO {
        let periods = (est.horizon.0 / stack.rebalance.0.max(1)).saturating_add(1);
        let sockets = conns.saturating_mul(2).saturating_add(udp_flows).max(1);
        est.packets.push(Term {
            value: periods.saturating_mul(sockets),
            path: "host.rebalance".into(),
            how: format!(
                "{} rebalances every \"{}\" over \"{}\" visiting {sockets} sockets",
                approx(periods),
                stack.rebalance,
                est.horizon
            ),
        });
    }
}

/// Packet-hops: each workload's packets (and as many ACKs, for TCP) over
/// its longest route; under the links' cap, the cap over the longest
/// route of the capped workloads, and the packets queued beyond it (at
/// most `held`, what queues and wires hold). Events: two per packet-hop,
/// two per packet and ACK, one per sample and bin.
fn hops_and_events(
    sc: &Scenario,
    costs: &[WorkloadCost],
    shared_cap: Option<u64>,
    tcp_packets: u64,
    held: u64,
    est: &mut Estimate,
) {
    let both_ways = |c: &WorkloadCost| if c.pace == Pace::Datagrams { 1 } else { 2 };
    let mut terms: Vec<Term> = Vec::new();
    for c in costs {
        if shared_cap.is_some() && c.pace == Pace::Shared {
            continue;
        }
        let Some(p) = &c.packets else { continue };
        let per_packet = c.hops.saturating_mul(both_ways(c));
        terms.push(Term {
            value: p.value.saturating_mul(per_packet),
            path: p.path.clone(),
            how: format!(
                "{} packets x {per_packet} hops ({})",
                approx(p.value),
                p.how
            ),
        });
    }
    if let Some(cap) = shared_cap {
        // Under the cap, the packets the senders put in queues and on
        // wires beyond it when the run ends (or drop and send again), at
        // most what those hold, count too.
        let beyond = held.min(cap);
        let hops = costs
            .iter()
            .filter(|c| c.pace == Pace::Shared)
            .map(|c| c.hops)
            .max()
            .unwrap_or(0);
        terms.insert(
            0,
            Term {
                value: cap.saturating_mul(2 * hops).saturating_add(beyond.saturating_mul(hops)),
                path: "duration".into(),
                how: format!(
                    "{} TCP packets (the links' capacity over the run) x {} hops, and {} queued beyond it",
                    approx(cap),
                    2 * hops,
                    approx(beyond)
                ),
            },
        );
    }
    let conns: u64 = costs.iter().map(|c| c.connections).sum();
    let longest = costs.iter().map(|c| c.hops).max().unwrap_or(0);
    if conns > 0 {
        terms.push(Term {
            value: conns
                .saturating_mul(2 * SETUP_PACKETS)
                .saturating_mul(longest),
            path: "workload".into(),
            how: format!(
                "{} packets to open and close each of {conns} connections x {longest} hops",
                2 * SETUP_PACKETS
            ),
        });
    }
    let hops = total(&terms);
    let path = largest_path(&terms, "workload");
    est.packet_hops = terms;
    est.events.push(Term {
        value: hops.saturating_mul(EVENTS_PER_HOP),
        path,
        how: format!(
            "{EVENTS_PER_HOP} per packet-hop x {} packet-hops",
            approx(hops)
        ),
    });
    // The periodic work counted as packets (HCF's fixed periods, SFQ's
    // perturbations, rebalances) is done lazily, at a packet's arrival or
    // in one timer: no events of its own.
    let all = tcp_packets.saturating_mul(2);
    est.events.push(Term {
        value: all.saturating_mul(EVENTS_PER_PACKET),
        path: largest_path(&est.packets, "workload"),
        how: format!(
            "{EVENTS_PER_PACKET} per packet x {} packets and ACKs",
            approx(all)
        ),
    });
    let m = &sc.metrics;
    let horizon = est.horizon;
    for (period, field) in [
        (m.queue_sample, "metrics.queue_sample"),
        (m.throughput_bin, "metrics.throughput_bin"),
    ] {
        if let Some(p) = period {
            let n = (horizon.0 / p.0.max(1)).saturating_add(1);
            est.events.push(Term {
                value: n,
                path: field.into(),
                how: format!("{} samples every \"{p}\" over \"{horizon}\"", approx(n)),
            });
        }
    }
}

/// The field of the largest of `terms`.
fn largest_path(terms: &[Term], otherwise: &str) -> String {
    terms
        .iter()
        .max_by_key(|t| t.value)
        .map_or(otherwise.into(), |t| t.path.clone())
}

/// Series rows: throughput bins of every TCP connection over the run,
/// queue samples of every switch port, and (with trace) about two trace
/// rows per data packet of a traced flow.
fn series(sc: &Scenario, conns: u64, tcp_packets: u64, est: &mut Estimate) {
    let switch_ports = sc.topology.switch_ports(sc.topology.host_count());
    let m = &sc.metrics;
    if let Some(bin) = m.throughput_bin {
        let bins = (est.horizon.0 / bin.0.max(1)).saturating_add(1);
        est.series_rows.push(Term {
            value: bins.saturating_mul(conns),
            path: "metrics.throughput_bin".into(),
            how: format!(
                "{} bins of \"{bin}\" over \"{}\" x {conns} connections",
                approx(bins),
                est.horizon
            ),
        });
    }
    if let Some(period) = m.queue_sample {
        let samples = (est.horizon.0 / period.0.max(1)).saturating_add(1);
        est.series_rows.push(Term {
            value: samples.saturating_mul(switch_ports),
            path: "metrics.queue_sample".into(),
            how: format!(
                "{} samples every \"{period}\" over \"{}\" x {switch_ports} switch ports",
                approx(samples),
                est.horizon
            ),
        });
    }
    if m.trace {
        let traced = match &m.trace_flows {
            Some(f) => (f.len() as u64).min(conns),
            None => conns,
        };
        est.series_rows.push(Term {
            value: mul_div(tcp_packets.saturating_mul(2), traced, conns.max(1)),
            path: "metrics.trace".into(),
            how: format!("two rows per data packet of {traced} traced connections"),
        });
    }

    if let Some(port) = &m.drop_trace {
        // A row per arrival at the port: at most every packet, data and
        // ACK, and at most the cap.
        let cap = m
            .drop_trace_max_rows
            .unwrap_or(crate::spec::metrics::DEFAULT_DROP_TRACE_MAX_ROWS);
        est.series_rows.push(Term {
            value: tcp_packets.saturating_mul(2).min(cap),
            path: "metrics.drop_trace".into(),
            how: format!("a row per arrival at {port}, at most {}", approx(cap)),
        });
    }
}

/// Header bytes a captured packet takes in its file, at most: its record
/// header and Ethernet, IPv4 and TCP with 40 bytes of options.
const PCAP_RECORD_BYTES: u64 = 16 + crate::packet::frame::MAX_FRAME_HEADER as u64;

/// `[metrics] pcap`: each point's file, within its caps and at most every
/// packet (data and ACK) of the run, held twice while its two directions
/// are merged.
fn pcap_memory(sc: &Scenario, est: &mut Estimate) {
    use crate::spec::metrics::{DEFAULT_PCAP_MAX_BYTES, DEFAULT_PCAP_MAX_PACKETS};
    let m = &sc.metrics;
    let Some(points) = &m.pcap else {
        return;
    };
    let packets = m
        .pcap_max_packets
        .unwrap_or(DEFAULT_PCAP_MAX_PACKETS)
        .min(est.packets().saturating_mul(2));
    let cap = m.pcap_max_bytes.map_or(DEFAULT_PCAP_MAX_BYTES, |b| b.get());
    let per_point = packets.saturating_mul(PCAP_RECORD_BYTES).min(cap);
    est.memory.push(Term {
        value: per_point
            .saturating_mul(2)
            .saturating_mul(points.len() as u64),
        path: "metrics.pcap".into(),
        how: format!(
            "{} captures of up to {} packets ({} bytes each)",
            points.len(),
            approx(packets),
            approx(per_point)
        ),
    });
}

/// Memory: series rows, routing tables, the graph, NIC queues, shapers,
/// reordering stamps, connections, the disciplines' state per port, and
/// the packets queues and wires hold.
fn memory(sc: &Scenario, r: &Resolved, conns: u64, udp_flows: u64, est: &mut Estimate) -> u64 {
    let topo = &sc.topology;
    let hosts = r.hosts.len() as u64;
    let switches = topo.sizes().1;
    let switch_ports = topo.switch_ports(hosts);
    let stack = sc.host.stack();
    let rows = est.series_rows();
    est.memory.push(Term {
        value: ROW_BYTES.saturating_mul(rows),
        path: est
            .series_rows
            .iter()
            .max_by_key(|t| t.value)
            .map_or("metrics".into(), |t| t.path.clone()),
        how: format!("{} time series rows", approx(rows)),
    });
    pcap_memory(sc, est);
    let nodes = hosts + switches;
    // Routing: a FIB entry per (switch, host), or, where those tables
    // would pass `GROUP_FIBS_FROM_BYTES`, per (switch, group of hosts
    // hanging off the same switches) and per (switch, host attached to
    // it) with each host's place in its group; a route per node; and
    // while routes are computed a hop count per (switch, switch).
    let by_host = ROUTE_BYTES.saturating_mul(hosts).saturating_mul(switches);
    let (tables, how) = if by_host > crate::net::GROUP_FIBS_FROM_BYTES {
        let groups = host_groups(topo, hosts, switches);
        let bytes = ROUTE_BYTES
            .saturating_mul(groups)
            .saturating_mul(switches)
            .saturating_add(ROUTE_BYTES.saturating_mul(host_links(topo, hosts)))
            .saturating_add(8u64.saturating_mul(hosts));
        (bytes, format!("{groups} groups of hosts"))
    } else {
        (by_host, format!("{hosts} hosts"))
    };
    est.memory.push(Term {
        value: tables
            .saturating_add(
                ROUTE_BYTES
                    .saturating_mul(switches)
                    .saturating_mul(switches),
            )
            .saturating_add(ROUTE_BYTES.saturating_mul(nodes)),
        path: "topology".into(),
        how: format!("routing tables of {switches} switches x {how}"),
    });
    // A graph's own description (names, links, adjacency) and the
    // simulator's nodes and ports: about a kilobyte per host and per
    // switch, 256 bytes per link.
    if let Some(g) = topo.graph() {
        est.memory.push(Term {
            value: 1024u64
                .saturating_mul(nodes)
                .saturating_add(256u64.saturating_mul(g.links.len() as u64)),
            path: "topology".into(),
            how: format!("{nodes} nodes and {} links", g.links.len()),
        });
    }
    if sc.host.nic_queues > 1 || !stack.is_plain() {
        let queues = hosts.saturating_mul(sc.host.nic_queues as u64);
        est.memory.push(Term {
            value: TX_QUEUE_BYTES.saturating_mul(queues),
            path: "host.nic_queues".into(),
            how: format!("{queues} NIC transmit queues"),
        });
    }
    // Shapers: [queue]'s at every switch port, [host]'s at every host
    // NIC (a host has one port but on a graph that says otherwise, where
    // the graph's own term counts kilobytes per node anyway), and one
    // per [[port]] that sets its own.
    let shaped = [
        (sc.queue.shaper.is_some(), switch_ports, "queue.shaper"),
        (sc.host.shaper.is_some(), hosts, "host.shaper"),
        (
            true,
            sc.ports.iter().filter(|p| p.shaper.is_some()).count() as u64,
            "port",
        ),
    ];
    if let Some((_, _, path)) = shaped.iter().filter(|s| s.0).max_by_key(|s| s.1) {
        let n: u64 = shaped.iter().filter(|s| s.0).map(|s| s.1).sum();
        if n > 0 {
            est.memory.push(Term {
                value: SHAPER_BYTES.saturating_mul(n),
                path: (*path).into(),
                how: format!("{n} port shapers"),
            });
        }
    }
    // Only ports whose discipline can reorder keep a stamp per flow
    // direction (`sim::flows`): a FIFO (drop-tail, RED) keeps none, so a
    // large fabric of drop-tail ports costs nothing here.
    let keys = conns.saturating_add(udp_flows).saturating_mul(2);
    let reordering = Discipline::ALL
        .iter()
        .filter(|d| !matches!(d, Discipline::Droptail | Discipline::Red))
        .fold(0u64, |a, &d| a.saturating_add(running(sc, d)))
        .min(switch_ports);
    if reordering > 0 {
        est.memory.push(Term {
            value: STAMP_BYTES.saturating_mul(reordering).saturating_mul(keys),
            path: "workload".into(),
            how: format!(
                "reordering stamps of {keys} flow directions at {reordering} switch ports"
            ),
        });
    }
    est.memory.push(Term {
        value: CONN_BYTES.saturating_mul(conns),
        path: "workload".into(),
        how: format!("{conns} TCP connections"),
    });
    let mut discs = vec![sc.queue.discipline];
    discs.extend(sc.ports.iter().filter_map(|p| p.discipline));
    let per_port = discs
        .iter()
        .map(|&d| sc.queue.port_cost(d).port_bytes())
        .max()
        .unwrap_or((0, "queue"));
    est.memory.push(Term {
        value: per_port.0.saturating_mul(switch_ports),
        path: per_port.1.into(),
        how: format!(
            "{} bytes of queue state at each of {switch_ports} switch ports",
            per_port.0
        ),
    });
    memory_held(sc, hosts, switch_ports, est)
}

/// Packets held. Queues grow on demand (none reserves its limit when
/// built), so queues and wires hold no more than they can and no more
/// than the workloads send (data, and as many ACKs).
/// Returns how many.
fn memory_held(sc: &Scenario, hosts: u64, switch_ports: u64, est: &mut Estimate) -> u64 {
    let topo = &sc.topology;
    let stack = sc.host.stack();
    let access = topo.access_rate().get();
    let smallest = Bytes(HEADERS);
    // Every transmit queue of a NIC holds its qdisc's limit and its
    // ring; under a root qdisc the NIC holds the root's limit once (fq's
    // own, sfq's nic_queue) and every ring.
    let rings = (stack.ring as u64).saturating_mul(sc.host.nic_queues as u64);
    let nic = match stack.root {
        NicRoot::Mq => sc
            .host
            .nic_queue
            .max_packets(smallest)
            .saturating_add(stack.ring as u64)
            .saturating_mul(sc.host.nic_queues as u64),
        NicRoot::Sfq => sc
            .host
            .nic_queue
            .max_packets(smallest)
            .saturating_add(rings),
        NicRoot::Fq => {
            let limit = sc.host.fq.clone().unwrap_or_default().limit;
            (limit as u64).saturating_add(rings)
        }
    };
    let limits: Vec<BufferLimit> = std::iter::once(sc.queue.limit)
        .chain(sc.ports.iter().filter_map(|p| p.limit))
        .chain(sc.topology.buffers().into_iter().map(|b| b.1))
        .collect();
    let port = limits
        .iter()
        .map(|l| l.max_packets(smallest))
        .max()
        .unwrap_or(0);
    let mut room = hosts
        .saturating_mul(nic)
        .saturating_add(switch_ports.saturating_mul(port));
    // Each link both ways: its rate times its delay, in header-sized packets.
    room = room.saturating_add(topo.in_flight(hosts, None, HEADERS));
    // Send jitter holds each packet at its host for up to the jitter:
    // as many as the hosts' links can emit in that time.
    let jitter = sc.host.send_jitter;
    if jitter > Time::ZERO {
        room = room.saturating_add(mul_div(
            hosts.saturating_mul(access),
            jitter.0,
            8 * PS_PER_SEC * HEADERS,
        ));
    }
    // Forwarding jitter holds each packet at a switch for up to the
    // jitter: as many as the switch's input links deliver in that time,
    // counted like an extra stretch of wire of that delay on every link.
    let fwd = sc.switch.forwarding_jitter;
    if fwd > Time::ZERO {
        room = room.saturating_add(topo.in_flight(hosts, Some(fwd), HEADERS));
    }
    let held = room.min(est.packets().saturating_mul(2));
    est.memory.push(Term {
        value: held.saturating_mul(PACKET_BYTES),
        path: if hosts.saturating_mul(nic) > switch_ports.saturating_mul(port) {
            "host.nic_queue".into()
        } else {
            "queue.limit".into()
        },
        how: format!(
            "{} packets held or reserved in queues and on wires",
            approx(held)
        ),
    });
    held
}

/// The most packets any switch queue of `sc` holds.
fn limits_max_packets(sc: &Scenario, smallest: Bytes) -> u64 {
    std::iter::once(sc.queue.limit)
        .chain(sc.ports.iter().filter_map(|p| p.limit))
        .chain(sc.topology.buffers().into_iter().map(|b| b.1))
        .map(|l| l.max_packets(smallest))
        .max()
        .unwrap_or(0)
}

/// How many groups of hosts (hosts hanging off the same set of switches)
/// the routing tables are indexed by: counted on a graph; a star's and a
/// dumbbell's hosts each hang off one of their switches.
fn host_groups(topo: &TopologySpec, hosts: u64, switches: u64) -> u64 {
    match topo.graph() {
        Some(g) if !g.hosts.is_empty() => {
            let n = g.hosts.len() as u32;
            let mut sets: std::collections::HashSet<Vec<u32>> = Default::default();
            for h in 0..g.hosts.len() {
                let mut at: Vec<u32> = g.adj[h]
                    .iter()
                    .map(|&(v, _)| v)
                    .filter(|&v| v >= n)
                    .collect();
                at.sort_unstable();
                at.dedup();
                sets.insert(at);
            }
            sets.len() as u64
        }
        _ => hosts.min(switches.max(1)),
    }
}

/// Links from hosts (each a local FIB entry at the switch it reaches).
fn host_links(topo: &TopologySpec, hosts: u64) -> u64 {
    match topo.graph() {
        Some(g) if !g.hosts.is_empty() => {
            g.adj[..g.hosts.len()].iter().map(|a| a.len() as u64).sum()
        }
        _ => hosts,
    }
}
