//! What a scenario will cost: packets, series rows, memory (see
//! [`super::limits`] for the limits they are checked against).

use super::limits::{
    approx, mul_div, segments, total, Estimate, Term, BIN_BYTES, BUCKET_BYTES, CONN_BYTES, HEADERS,
    PACKET_BYTES, ROUTE_BYTES, ROW_BYTES, SETUP_PACKETS, SHAPER_BYTES, STAMP_BYTES, TX_QUEUE_BYTES,
};
use super::queues::Discipline;
use super::workloads::{NfsReadSpec, WorkloadSpec};
use super::{Resolved, Scenario};
use crate::units::{Bytes, Time, PS_PER_SEC};
use crate::vocab::BufferLimit;

/// Estimates what `sc` will cost. `r` holds its resolved hosts and TCP.
pub(super) fn of(sc: &Scenario, r: &Resolved) -> Estimate {
    let mut est = Estimate::default();
    let topo = &sc.topology;
    let hosts = r.hosts.len() as u64;
    let access = topo.access_rate().get();
    let switches = topo.sizes().1;
    let switch_ports = topo.switch_ports(hosts);

    // Flows and their data senders and receivers.
    let mut conns = 0u64;
    let mut udp_flows = 0u64;
    let mut senders = std::collections::BTreeSet::new();
    let mut receivers = std::collections::BTreeSet::new();
    let mut crossing = [false; 2];
    let mut same_side_senders = std::collections::BTreeSet::new();
    let mut tcp_flow = |src: &str, dst: &str| {
        senders.insert(src.to_string());
        receivers.insert(dst.to_string());
        let (a, b) = (
            topo.switch_of(&r.host_index, src),
            topo.switch_of(&r.host_index, dst),
        );
        if a == b {
            same_side_senders.insert(src.to_string());
        } else {
            crossing[usize::from(a == "swR")] = true;
        }
    };
    let mut first_open = Time::MAX;
    for (i, w) in sc.workloads.iter().enumerate() {
        match w {
            WorkloadSpec::Incast(w) => {
                for s in w.servers(&r.hosts) {
                    tcp_flow(&s, &w.client);
                    conns += 1;
                }
            }
            WorkloadSpec::Bulk(b) => {
                tcp_flow(&b.src, &b.dst);
                conns += 1;
            }
            WorkloadSpec::Short(s) => {
                tcp_flow(&s.src, &s.dst);
                conns += s.count as u64;
            }
            // Counted apart from the others' senders and receivers: an
            // NFS read's packets are estimated on their own (below).
            WorkloadSpec::NfsRead(n) => conns += n.client_count(&r.hosts) as u64,
            WorkloadSpec::Udp(_) => udp_flows += 1,
        }
        if !matches!(w, WorkloadSpec::Udp(_)) {
            first_open = first_open.min(sc.workloads[i].start());
        }
    }
    est.flows = conns + udp_flows;

    // How long the run lasts. Without a duration, an estimate of when
    // the last workload is done: its last opening, then the round trips
    // its transfers need (the handshake, and per transfer the request,
    // slow start from the initial window and one per receive window of
    // data, each delayed by the send jitter), all its bytes at the
    // slowest link's rate, its timeouts (one initial RTO for a lost SYN,
    // one minimum RTO per incast round) and an incast's response jitter
    // in every round. An estimate, not a bound:
    // a run that times out more lasts longer. A shaper slower than
    // every link is the slowest part.
    let slowest = topo
        .slowest_rate()
        .min(sc.slowest_shaper().unwrap_or(topo.slowest_rate()))
        .get();
    let mut horizon = Time::ZERO;
    for (i, w) in sc.workloads.iter().enumerate() {
        let Some(&tcp) = r.workload_tcp(i) else {
            continue;
        };
        let wire = |payload: u64| -> u64 {
            payload.saturating_add(segments(payload, tcp.mss).saturating_mul(HEADERS))
        };
        // An incast server answers after up to its response jitter.
        let think = match w {
            WorkloadSpec::Incast(w) => w.response_jitter.unwrap_or(Time::ZERO),
            _ => Time::ZERO,
        };
        let (src, dst, per_flow, bytes, rounds) = match w {
            WorkloadSpec::Incast(w) => {
                let servers = w.servers(&r.hosts);
                let n = servers.len().max(1) as u64;
                let round = w.round_bytes(n);
                let first = servers.first().cloned().unwrap_or_default();
                (
                    first,
                    w.client.clone(),
                    round.div_ceil(n),
                    round,
                    w.rounds() as u64,
                )
            }
            WorkloadSpec::Bulk(b) => {
                let size = b.size.map_or(0, |s| s.get());
                (b.src.clone(), b.dst.clone(), size, size, 1)
            }
            WorkloadSpec::Short(s) => {
                let size = s.flow_bytes(tcp.mss);
                let all = size.saturating_mul(s.count as u64);
                (s.src.clone(), s.dst.clone(), size, all, 1)
            }
            WorkloadSpec::NfsRead(n) => {
                let clients = n.clients(&r.hosts);
                let each = n.reply_bytes();
                let all = each.saturating_mul(clients.len() as u64);
                let first = clients.first().cloned().unwrap_or_default();
                (n.server.clone(), first, each, all, 1)
            }
            WorkloadSpec::Udp(_) => continue,
        };
        let packet = Bytes(tcp.mss as u64 + HEADERS);
        let rtt = topo
            .one_way(&r.host_index, &src, &dst, packet)
            .saturating_add(topo.one_way(&r.host_index, &dst, &src, Bytes(HEADERS)))
            .saturating_add(sc.host.send_jitter.times(2));
        let first_window = tcp.initial_window as u64 * tcp.mss as u64;
        let mut slow_start = 0u64;
        while slow_start < 64 && first_window.saturating_mul(1 << slow_start) < per_flow {
            slow_start += 1;
        }
        let per_transfer = 1 + slow_start + per_flow / tcp.receive_window.get().max(1);
        // An incast's warm-up: one exchange per server, one at a time.
        let setup = match w {
            WorkloadSpec::Incast(w) if w.warmup == Some(true) => {
                2 * w.servers(&r.hosts).len() as u64
            }
            _ => 0,
        };
        // An NFS read: at most `outstanding` replies per round trip.
        let windows = match w {
            WorkloadSpec::NfsRead(n) => n.requests().div_ceil(n.outstanding().max(1) as u64),
            _ => 0,
        };
        let rtts = 1u64
            .saturating_add(rounds.saturating_mul(per_transfer))
            .saturating_add(setup)
            .saturating_add(windows);
        // An NFS server's disk, when slower than the network, sets the
        // pace: every client's file at its rate.
        let transfer = Time(mul_div(
            wire(bytes).saturating_mul(rounds),
            8 * PS_PER_SEC,
            slowest,
        ));
        let transfer = match w {
            WorkloadSpec::NfsRead(NfsReadSpec {
                disk_rate: Some(d), ..
            }) => {
                let files = n_files(w, &r.hosts);
                transfer.max(Time(mul_div(files, 8 * PS_PER_SEC, d.get())))
            }
            _ => transfer,
        };
        let end = w
            .last_open()
            .unwrap_or(Time::MAX)
            .saturating_add(rtt.times(rtts))
            .saturating_add(transfer)
            .saturating_add(tcp.initial_rto)
            .saturating_add(tcp.min_rto.max(tcp.granularity).times(rounds))
            .saturating_add(think.times(rounds));
        horizon = horizon.max(end);
    }
    est.horizon = match sc.duration {
        Some(d) => d,
        None => horizon,
    };

    // Packets. Sized TCP workloads: their segments (incast: every
    // round's replies and requests). With a duration, TCP altogether
    // sends no faster than the links its flows must cross allow: the
    // least of the senders' uplinks, the receivers' downlinks, and (on
    // a dumbbell) the bottleneck directions crossed plus the uplinks of
    // flows that stay on one side. UDP: its rate over the time it runs.
    let mut tcp_terms = Vec::new();
    for (i, w) in sc.workloads.iter().enumerate() {
        let path = format!("workload[{i}]");
        let mss = r.workload_tcp(i).map_or(1460, |t| t.mss);
        match w {
            WorkloadSpec::Incast(w) => {
                let n = w.servers(&r.hosts).len() as u64;
                let per_round = segments(w.round_bytes(n), mss)
                    .saturating_add(n)
                    .saturating_add(n.saturating_mul(segments(w.request().get(), mss)));
                // The warm-up: a request and an answer per server.
                let setup = if w.warmup == Some(true) { 2 * n } else { 0 };
                tcp_terms.push(Term {
                    value: per_round.saturating_mul(w.rounds() as u64).saturating_add(setup),
                    path,
                    how: format!(
                        "{} rounds x {n} servers x their replies (sru or block) in {mss}-byte segments",
                        w.rounds()
                    ),
                });
            }
            WorkloadSpec::Bulk(b) => match b.size {
                Some(s) => tcp_terms.push(Term {
                    value: segments(s.get(), mss),
                    path: format!("{path}.size"),
                    how: format!("\"{s}\" in {mss}-byte segments"),
                }),
                None => tcp_terms.push(Term {
                    value: u64::MAX,
                    path: "duration".into(),
                    how: "a bulk flow without a size sends until the run ends".into(),
                }),
            },
            WorkloadSpec::Short(s) => tcp_terms.push(Term {
                value: segments(s.flow_bytes(mss), mss).saturating_mul(s.count as u64),
                path,
                how: format!(
                    "{} flows x {} bytes each in {mss}-byte segments",
                    s.count,
                    s.flow_bytes(mss)
                ),
            }),
            WorkloadSpec::Udp(_) | WorkloadSpec::NfsRead(_) => {}
        }
    }
    // NFS reads: per reply, its segments and its request's; with a
    // duration, no more replies than the server's link carries in that
    // time (its clients share it). Apart from the cap below, which
    // counts full segments: READs smaller than a segment are packets
    // of their own.
    let mut nfs_terms = Vec::new();
    for (i, w) in sc.workloads.iter().enumerate() {
        let WorkloadSpec::NfsRead(n) = w else {
            continue;
        };
        let mss = r.workload_tcp(i).map_or(1460, |t| t.mss);
        let clients = n.client_count(&r.hosts) as u64;
        let reply = n.io_size().get().saturating_add(n.reply_header().get());
        let reply_segments = segments(reply, mss);
        let per_reply = reply_segments.saturating_add(segments(n.request().get(), mss));
        let replies = n.requests().saturating_mul(clients);
        let mut term = Term {
            value: replies.saturating_mul(per_reply),
            path: format!("workload[{i}].file_size"),
            how: format!(
                "{clients} clients x {} READs x {per_reply} segments (reply and request)",
                n.requests()
            ),
        };
        if let Some(d) = sc.duration {
            let time = d.saturating_sub(w.start().min(d));
            let wire = reply.saturating_add(reply_segments.saturating_mul(HEADERS));
            let fit = mul_div(access, time.0, (8 * PS_PER_SEC).saturating_mul(wire.max(1)))
                .saturating_add(1);
            if fit < replies {
                term = Term {
                    value: fit.saturating_mul(per_reply),
                    path: "duration".into(),
                    how: format!(
                        "\"{time}\" of READ replies of {reply} bytes at {} bits/s (the server's link), {per_reply} segments each",
                        approx(access)
                    ),
                };
            }
        }
        nfs_terms.push(term);
    }
    if let Some(d) = sc.duration {
        let mut cover = (senders.len() as u64).saturating_mul(access);
        cover = cover.min((receivers.len() as u64).saturating_mul(access));
        if let crate::spec::TopologySpec::Dumbbell(t) = topo {
            let crossed = crossing.iter().filter(|c| **c).count() as u64;
            cover = cover.min(
                crossed
                    .saturating_mul(t.bottleneck_rate.get())
                    .saturating_add((same_side_senders.len() as u64).saturating_mul(access)),
            );
        }
        let smallest_mss = (0..sc.workloads.len())
            .filter_map(|i| r.workload_tcp(i))
            .map(|t| t.mss)
            .min()
            .unwrap_or(1460) as u64;
        let time = d.saturating_sub(first_open.min(d));
        let cap = mul_div(cover, time.0, 8 * PS_PER_SEC * (smallest_mss + HEADERS));
        if total(&tcp_terms) > cap {
            tcp_terms = vec![Term {
                value: cap,
                path: "duration".into(),
                how: format!(
                    "\"{time}\" of TCP at {} bits/s (the links the flows cross) in {}-byte packets",
                    approx(cover),
                    smallest_mss + HEADERS
                ),
            }];
        }
    }
    est.packets.extend(tcp_terms);
    est.packets.extend(nfs_terms);
    // Every connection opens and acknowledges its opening (SYN,
    // SYN-ACK, ACK, and the request or first ACK), whatever the time.
    if conns > 0 {
        est.packets.push(Term {
            value: conns.saturating_mul(SETUP_PACKETS),
            path: "workload".into(),
            how: format!("{SETUP_PACKETS} packets to open each of {conns} connections"),
        });
    }
    for (i, w) in sc.workloads.iter().enumerate() {
        if let WorkloadSpec::Udp(u) = w {
            let size = u
                .packet_size
                .unwrap_or(crate::spec::workloads::DEFAULT_UDP_PACKET);
            let time = est.horizon.saturating_sub(w.start());
            est.packets.push(Term {
                value: mul_div(u.rate.get(), time.0, 8 * PS_PER_SEC * size.get().max(1)),
                path: format!("workload[{i}].rate"),
                how: format!("{} for \"{time}\" in {size} datagrams", u.rate),
            });
        }
    }
    let tcp_packets = total(&est.packets);

    // Work that grows with time, not packets, counted as packets: an HCF
    // port with a fixed period renews its credits once per period, and
    // an SFQ port moves its queued packets at each perturbation (at
    // most once per arrival).
    let q = &sc.queue;
    let running = |d: Discipline| -> u64 {
        let default = if q.discipline == d { switch_ports } else { 0 };
        let overridden = sc.ports.iter().filter(|p| p.discipline == Some(d)).count() as u64;
        default.saturating_add(overridden)
    };
    if let crate::spec::HcfPeriod::Fixed(p) = q.hcf.period {
        let ports = running(Discipline::Hcf);
        if ports > 0 {
            let periods = (est.horizon.0 / p.0.max(1)).saturating_add(1);
            est.packets.push(Term {
                value: periods.saturating_mul(ports),
                path: "queue.hcf.period".into(),
                how: format!(
                    "{} fixed periods of \"{p}\" over \"{}\" at {ports} HCF ports",
                    approx(periods),
                    est.horizon
                ),
            });
        }
    }
    if q.sfq.perturb > Time::ZERO {
        let ports = running(Discipline::Sfq);
        if ports > 0 {
            let rehashes = (est.horizon.0 / q.sfq.perturb.0.max(1))
                .saturating_add(1)
                .min(tcp_packets);
            let queued = limits_max_packets(sc, Bytes(HEADERS)).min(tcp_packets);
            est.packets.push(Term {
                value: rehashes.saturating_mul(queued).saturating_mul(ports),
                path: "queue.sfq.perturb".into(),
                how: format!(
                    "{} perturbations of \"{}\" moving up to {} queued packets at {ports} SFQ ports",
                    approx(rehashes),
                    q.sfq.perturb,
                    approx(queued)
                ),
            });
        }
    }

    // Explicit load balancing visits every socket at each rebalance.
    let stack = sc.host.stack();
    if stack.txq_select == crate::spec::TxqSelect::LeastLoaded && stack.rebalance > Time::ZERO {
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

    // Series rows: throughput bins of every TCP connection over the
    // run, queue samples of every switch port, and (with trace) about
    // two trace rows per data packet of a traced flow.
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

    // Memory.
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
    let nodes = hosts + switches;
    // Routing: a FIB entry per (switch, host), a route per node, and
    // while routes are computed a hop count per (switch, switch).
    est.memory.push(Term {
        value: ROUTE_BYTES
            .saturating_mul(hosts.saturating_add(switches))
            .saturating_mul(switches)
            .saturating_add(ROUTE_BYTES.saturating_mul(nodes)),
        path: "topology".into(),
        how: format!("routing tables of {switches} switches x {hosts} hosts"),
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
    let stack = sc.host.stack();
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
    let keys = conns.saturating_add(udp_flows).saturating_mul(2);
    est.memory.push(Term {
        value: STAMP_BYTES
            .saturating_mul(switch_ports)
            .saturating_mul(keys),
        path: "workload".into(),
        how: format!("reordering stamps of {keys} flow directions at {switch_ports} switch ports"),
    });
    est.memory.push(Term {
        value: CONN_BYTES.saturating_mul(conns),
        path: "workload".into(),
        how: format!("{conns} TCP connections"),
    });
    let mut discs = vec![q.discipline];
    discs.extend(sc.ports.iter().filter_map(|p| p.discipline));
    let per_port = discs
        .iter()
        .map(|d| match d {
            Discipline::Sfq => (q.sfq.buckets as u64 * BUCKET_BYTES, "queue.sfq.buckets"),
            Discipline::Drr => (q.drr.buckets as u64 * BUCKET_BYTES, "queue.drr.buckets"),
            Discipline::Hcf => (q.hcf.bins as u64 * BIN_BYTES, "queue.hcf.bins"),
            _ => (0, "queue"),
        })
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
    // Packets held. Queues grow on demand (none reserves its limit when
    // built), so queues and wires hold no more than they can and no more
    // than the workloads send (data, and as many ACKs).
    let smallest = Bytes(HEADERS);
    // Every transmit queue of a NIC holds its qdisc's limit and its
    // ring; under a root qdisc the NIC holds the root's limit once (fq's
    // own, sfq's nic_queue) and every ring.
    let rings = (stack.ring as u64).saturating_mul(sc.host.nic_queues as u64);
    let nic = match stack.root {
        crate::spec::NicRoot::Mq => sc
            .host
            .nic_queue
            .max_packets(smallest)
            .saturating_add(stack.ring as u64)
            .saturating_mul(sc.host.nic_queues as u64),
        crate::spec::NicRoot::Sfq => sc
            .host
            .nic_queue
            .max_packets(smallest)
            .saturating_add(rings),
        crate::spec::NicRoot::Fq => {
            let limit = sc.host.fq.clone().unwrap_or_default().limit;
            (limit as u64).saturating_add(rings)
        }
    };
    let limits: Vec<BufferLimit> = std::iter::once(q.limit)
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
    let wire = |rate: crate::units::BitsPerSec, delay: Time, links: u64| {
        mul_div(rate.get(), delay.0, 8 * PS_PER_SEC * HEADERS).saturating_mul(2 * links)
    };
    room = room.saturating_add(match topo {
        crate::spec::TopologySpec::Star(t) => wire(t.rate, t.delay, hosts),
        crate::spec::TopologySpec::Dumbbell(t) => wire(t.rate, t.delay, hosts)
            .saturating_add(wire(t.bottleneck_rate, t.bottleneck_delay, 1)),
        _ => topo.graph().map_or(0, |g| {
            g.links
                .iter()
                .fold(0u64, |a, l| a.saturating_add(wire(l.rate, l.delay, 1)))
        }),
    });
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
        room = room.saturating_add(match topo {
            crate::spec::TopologySpec::Star(t) => wire(t.rate, fwd, hosts),
            crate::spec::TopologySpec::Dumbbell(t) => {
                wire(t.rate, fwd, hosts).saturating_add(wire(t.bottleneck_rate, fwd, 1))
            }
            _ => topo.graph().map_or(0, |g| {
                g.links
                    .iter()
                    .fold(0u64, |a, l| a.saturating_add(wire(l.rate, fwd, 1)))
            }),
        });
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
    est
}

/// File bytes an NFS read workload reads altogether (0 for another kind).
fn n_files(w: &WorkloadSpec, hosts: &[String]) -> u64 {
    match w {
        WorkloadSpec::NfsRead(n) => n
            .file_size
            .get()
            .saturating_mul(n.client_count(hosts) as u64),
        _ => 0,
    }
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
