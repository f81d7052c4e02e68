//! The simulator's lowering: a validated spec turned into a ready-to-run
//! [`Simulation`]. The only place that knows the simulator's types (queues,
//! TCP configuration, network, workloads); it maps the spec's plain data
//! onto them and refuses, by field path, what the simulator cannot honour.

use crate::engine::Rng;
use crate::net::topology::{self, LinkSpec};
use crate::net::Selection;
use crate::net::{Network, NodeId, PortId, Shaper};
use crate::packet::{Addr, Salt};
use crate::queue::{
    Arbitration, BufferLimit, DropTail, Drr, Fq, FqConfig, Hcf, HcfConfig, Nic, Priority, Queue,
    Red, RedConfig, RootQdisc, Sfq,
};
use crate::sim::{Conn, Series, Simulation};
use crate::spec::{
    ArbitrationName, Discipline, HcfSpec, HostStack, NicRoot, PathsName, RequestOrder, Scenario,
    ScenarioError, SelectionName, ShaperSpec, TcpSettings, TopologySpec, WorkloadSpec,
    TCP_IP_HEADER,
};
use crate::transport::tcp::{Pacing, TcpConfig, TcpSocket};
use crate::transport::{Arrivals, Endpoint, UdpFlow};
use crate::units::{BitsPerSec, Bytes, Time};
use crate::workload::{Bulk, ConnApp, Incast, NfsRead, ReadParams, ShortFlows, Udp, Workload};
use std::collections::HashMap;
use std::sync::Arc;

/// The simulator's TCP configuration of resolved settings.
pub fn tcp_config(s: &TcpSettings) -> TcpConfig {
    TcpConfig {
        mss: s.mss,
        initial_window: s.initial_window,
        receive_window: s.receive_window,
        min_rto: s.min_rto,
        max_rto: s.max_rto,
        initial_rto: s.initial_rto,
        clock: s.clock.into(),
        granularity: s.granularity,
        delayed_ack: s.delayed_ack,
        delayed_ack_timeout: s.delayed_ack_timeout,
        dupack_threshold: s.dupack_threshold,
        slow_start_after_idle: s.slow_start_after_idle,
        cwnd_validation: s.cwnd_validation,
        cc: s.cc,
        sack: s.sack,
        ecn: s.ecn,
        randomize_rto: s.randomize_rto,
        rto_delay: s.rto_delay,
        limited_transmit: s.limited_transmit,
        recover_check: s.recover_check,
        slow_start: s.slow_start,
        rtt_timestamps: s.rtt_timestamps,
        max_retransmits: s.max_retransmits,
        backoff_restarts_srtt: s.backoff_restarts_srtt,
        max_backoff: s.max_backoff,
        halve_window: s.halve_window,
        ns2_recovery: s.ns2_recovery,
        idle_restart: s.idle_restart,
        ns2_limited_transmit: s.ns2_limited_transmit,
        ns2_rto: s.ns2_rto,
        ns2_sack1: s.ns2_sack1,
        pacing: Pacing {
            enabled: s.pacing.enabled,
            ss_ratio: s.pacing.ss_ratio,
            ca_ratio: s.pacing.ca_ratio,
            initial_burst: s.pacing.initial_burst,
        },
        small_queues: s.small_queues,
    }
}

/// HCF's configuration for a port of `limit` (validated: each half holds
/// a packet).
fn hcf_config(h: &HcfSpec, limit: BufferLimit) -> HcfConfig {
    let (hp, lp) = limit.split(h.hp_share);
    HcfConfig {
        hp_limit: hp,
        lp_limit: lp,
        bins: h.bins,
        c0: h.c0,
        period: h.period,
        hashes: h.hashes,
        byte_credits: h.byte_credits,
        swap: h.swap,
    }
}

/// Refuses what a valid spec may say but the simulator cannot do.
fn check_supported(sc: &Scenario) -> Result<(), ScenarioError> {
    for (i, w) in sc.workloads.iter().enumerate() {
        if w.tcp().is_some_and(|t| t.handshake.is_some()) {
            // One switch for the whole run (Simulation::handshake).
            return Err(ScenarioError::new(
                format!("workload[{i}].tcp.handshake"),
                "not supported per workload by the simulator; expected handshake in [tcp], for every connection",
            ));
        }
    }
    Ok(())
}

/// The simulator's shaper of a validated spec.
fn shaper(s: &ShaperSpec) -> Shaper {
    match s {
        ShaperSpec::Tbf(t) => Shaper::tbf(t.rate, t.burst),
        ShaperSpec::Htb(h) => Shaper::htb(h.rate, h.burst(), h.cburst()),
    }
}

/// What a port's queue is, as a scenario says it (for the lowering's
/// refusals).
fn what_queue(q: &Queue) -> &'static str {
    match q {
        Queue::DropTail(_) => "discipline \"droptail\"",
        Queue::Hcf(_) => "discipline \"hcf\"",
        Queue::Red(_) => "discipline \"red\"",
        Queue::Sfq(_) => "discipline \"sfq\"",
        Queue::Drr(_) => "discipline \"drr\"",
        Queue::Priority(_) => "discipline \"priority\"",
        Queue::Nic(_) => "a multi-queue NIC (host.nic_queues above 1)",
    }
}

fn droptail(limit: BufferLimit, ecn: Option<BufferLimit>) -> Queue {
    match ecn {
        Some(k) => Queue::DropTail(DropTail::with_ecn(limit, k)),
        None => Queue::DropTail(DropTail::new(limit)),
    }
}

/// Component keys of the RNG streams (see `engine::rng`).
const RNG_WORKLOAD: u64 = 1;
const RNG_HOST: u64 = 2;
const RNG_TCP: u64 = 3;
const RNG_QUEUE: u64 = 4;
const RNG_UDP: u64 = 5;
const RNG_NIC: u64 = 6;
const RNG_ECMP: u64 = 7;
const RNG_SWITCH: u64 = 8;
const RNG_NIC_QDISC: u64 = 9;
const RNG_TXHASH: u64 = 10;
const RNG_NIC_ROOT: u64 = 11;

fn arbitration(s: &HostStack) -> Arbitration {
    match s.arbitration {
        ArbitrationName::Packet => Arbitration::Packet,
        ArbitrationName::Batch => Arbitration::Batch(s.batch),
        ArbitrationName::Weighted => Arbitration::Weighted(s.weights.clone()),
        ArbitrationName::Posted => Arbitration::Posted,
    }
}

/// Builds the simulation of `sc` with `seed` (the scenario's own seed when `None`).
pub fn build(sc: &Scenario, seed: Option<u64>) -> Result<Simulation, ScenarioError> {
    let resolved = sc.resolve()?;
    check_supported(sc)?;
    let seed = seed.unwrap_or(sc.seed);
    let profile = sc.tcp_profile();
    let tcp = tcp_config(&resolved.tcp);
    let t = &sc.topology;
    let sw_limit = sc.queue.limit;
    let sw_ecn = sc.queue.ecn_threshold;
    let nic_limit = sc.host.nic_queue;
    let packet = Bytes((tcp.mss + TCP_IP_HEADER) as u64);
    // A discipline of `limit` at a port of `rate` (RED's packet time),
    // drawing from `rng` (HCF's hashes, RED's drops, SFQ's and DRR's salts).
    let make_disc = |disc: Discipline,
                     spec_limit: BufferLimit,
                     ecn: Option<BufferLimit>,
                     rate: BitsPerSec,
                     rng: Rng|
     -> Queue {
        let limit = spec_limit;
        match disc {
            Discipline::Droptail => droptail(limit, ecn),
            Discipline::Hcf => {
                let cfg = hcf_config(&sc.queue.hcf, spec_limit);
                Queue::Hcf(Box::new(Hcf::new(cfg, rng)))
            }
            Discipline::Red => {
                let r = &sc.queue.red;
                Queue::Red(Box::new(Red::new(
                    RedConfig {
                        limit,
                        min_th: r.min_th,
                        max_th: r.max_th,
                        max_p: r.max_p,
                        w_q: r.w_q,
                        gentle: r.gentle,
                        ecn: r.ecn,
                        packet_time: rate.serialization(packet),
                    },
                    rng,
                )))
            }
            Discipline::Sfq => Queue::Sfq(Box::new(Sfq::new(
                sc.queue.sfq.buckets,
                limit,
                sc.queue.sfq.perturb,
                rng,
            ))),
            Discipline::Drr => {
                let mut rng = rng;
                Queue::Drr(Box::new(Drr::new(
                    sc.queue.drr.buckets,
                    limit,
                    sc.queue.drr.quantum.get(),
                    Salt::from_u64(rng.next_u64()),
                )))
            }
            Discipline::Priority => {
                let p = &sc.queue.priority;
                let (hi, lo) = limit.split(p.high_share);
                Queue::Priority(Box::new(Priority::new(p.high, hi, lo)))
            }
        }
    };
    // Each switch queue gets its own random stream, numbered in the order
    // the builder creates ports.
    let queue_no = std::cell::Cell::new(0u64);
    // `rate`: the port's own link rate where RED needs one (a graph
    // topology's; a star's or dumbbell's is `TopologySpec::red_rate`).
    let make_queue = |disc: Discipline,
                      spec_limit: BufferLimit,
                      ecn: Option<BufferLimit>,
                      rate: BitsPerSec|
     -> Queue {
        let n = queue_no.get();
        queue_no.set(n + 1);
        make_disc(
            disc,
            spec_limit,
            ecn,
            rate,
            Rng::stream(seed, &[RNG_QUEUE, n]),
        )
    };
    let switch_q = || make_queue(sc.queue.discipline, sw_limit, sw_ecn, t.red_rate());
    // A host's NIC, on a link of `rate`: one drop-tail queue, or a
    // multi-queue NIC whose flow hash salt comes from its own stream (NICs
    // numbered in build order); with a sending stack (`[host]` beyond the
    // plain model, or TCP Small Queues) a qdisc per queue feeding rings,
    // each qdisc with a stream of its own, and every transmission's
    // completion reported.
    let stack = sc.host.stack();
    let tsq = resolved.tcp.small_queues.is_some()
        || (0..sc.workloads.len()).any(|i| {
            resolved
                .workload_tcp(i)
                .is_some_and(|t| t.small_queues.is_some())
        });
    let with_stack = !stack.is_plain() || tsq;
    let nic_no = std::cell::Cell::new(0u64);
    let host_q = |rate: BitsPerSec| {
        let n = nic_no.get();
        nic_no.set(n + 1);
        let k = sc.host.nic_queues;
        let salt = || Salt::from_u64(Rng::stream(seed, &[RNG_NIC, n]).next_u64());
        if !with_stack {
            return match k {
                1 => droptail(nic_limit, None),
                k => Queue::Nic(Box::new(Nic::new(
                    (0..k).map(|_| droptail(nic_limit, None)).collect(),
                    salt(),
                ))),
            };
        }
        if stack.root != NicRoot::Mq {
            // One qdisc above every ring (`tc qdisc replace dev eth0 root`).
            let root = match stack.root {
                NicRoot::Fq => {
                    let fq = sc.host.fq.clone().unwrap_or_default();
                    let (quantum, initial) = fq.quanta(packet);
                    RootQdisc::Fq(Box::new(Fq::new(FqConfig {
                        limit_pkts: fq.limit,
                        flow_limit_pkts: fq.flow_limit,
                        quantum_bytes: quantum.get() as u32,
                        initial_quantum_bytes: initial.get() as u32,
                        refill_delay: fq.refill_delay,
                    })))
                }
                _ => RootQdisc::Sfq(Box::new(Sfq::new(
                    sc.queue.sfq.buckets,
                    stack.nic_queue,
                    sc.queue.sfq.perturb,
                    Rng::stream(seed, &[RNG_NIC_ROOT, n]),
                ))),
            };
            return Queue::Nic(Box::new(
                Nic::with_root(k as usize, root, salt())
                    .with_rings(stack.ring, stack.bql)
                    .with_arbitration(&arbitration(&stack))
                    .tracked(),
            ));
        }
        let qdiscs = (0..k as u64)
            .map(|i| {
                let rng = Rng::stream(seed, &[RNG_NIC_QDISC, n, i]);
                make_disc(stack.qdisc.discipline(), stack.nic_queue, None, rate, rng)
            })
            .collect();
        Queue::Nic(Box::new(
            Nic::new(qdiscs, salt())
                .with_rings(stack.ring, stack.bql)
                .with_arbitration(&arbitration(&stack))
                .tracked(),
        ))
    };
    let mut net: Network = match t {
        TopologySpec::Star(t) => {
            let access = LinkSpec {
                rate: t.rate,
                delay: t.delay,
            };
            let hosts = t.hosts.names("h");
            topology::star(&hosts, access, &switch_q, &|| host_q(t.rate)).0
        }
        TopologySpec::Dumbbell(t) => {
            let access = LinkSpec {
                rate: t.rate,
                delay: t.delay,
            };
            let left = t.left.names("l");
            let right = t.right.names("r");
            let bottleneck = LinkSpec {
                rate: t.bottleneck_rate,
                delay: t.bottleneck_delay,
            };
            topology::dumbbell(&left, &right, access, bottleneck, &switch_q, &|| {
                host_q(t.rate)
            })
        }
        _ => {
            let g = t.graph().expect("validated");
            let h = g.hosts.len() as NodeId;
            let switches: Vec<(String, u8)> = g
                .switches
                .iter()
                .cloned()
                .zip(g.tiers.iter().copied())
                .collect();
            let links: Vec<(NodeId, NodeId, LinkSpec)> = g
                .links
                .iter()
                .map(|l| {
                    let spec = LinkSpec {
                        rate: l.rate,
                        delay: l.delay,
                    };
                    (l.a, l.b, spec)
                })
                .collect();
            let mut queue = |i: usize, end_b: bool| {
                let l = &g.links[i];
                let (node, own) = if end_b {
                    (l.b, l.buffer_b)
                } else {
                    (l.a, l.buffer_a)
                };
                if node < h {
                    host_q(l.rate)
                } else {
                    let limit = own.unwrap_or(sw_limit);
                    make_queue(sc.queue.discipline, limit, sw_ecn, l.rate)
                }
            };
            let equal = sc.routing.paths == PathsName::EqualLength;
            let mut net = topology::graph(&g.hosts, &switches, &links, &mut queue, equal);
            for (i, a) in g.addrs.iter().enumerate() {
                if let Some(a) = a {
                    net.set_addr(i as NodeId, *a);
                }
            }
            net
        }
    };
    // Node ids by name, once: a lookup per endpoint by scanning every node
    // is quadratic in a topology of many hosts.
    let ids: std::collections::HashMap<String, NodeId> = (0..net.nodes.len())
        .map(|i| (net.nodes[i].name.clone(), i as NodeId))
        .collect();
    let node = |n: &str| -> NodeId { *ids.get(n).expect("validated") };
    for (name, text) in &sc.host.addresses {
        let h = node(name);
        net.set_addr(h, Addr::parse(text).expect("validated"));
    }
    // One salt for every switch under "ecmp_unsalted" (a stream of its
    // own, so the per-switch salts stay what they were).
    let shared_salt = Salt::from_u64(Rng::stream(seed, &[RNG_ECMP, u64::MAX]).next_u64());
    let graph = t.graph();
    let hosts = graph.map_or(0, |g| g.hosts.len());
    for u in 0..net.nodes.len() as NodeId {
        if net.is_host(u) {
            continue;
        }
        let sel = match sc.routing.of(&net.nodes[u as usize].name) {
            SelectionName::Ecmp => Selection::FlowHash(Salt::from_u64(
                Rng::stream(seed, &[RNG_ECMP, u as u64]).next_u64(),
            )),
            SelectionName::EcmpUnsalted => Selection::FlowHash(shared_salt),
            SelectionName::First => Selection::First,
            SelectionName::AddressBits => Selection::DstAddr {
                offset: graph.map_or(0, |g| g.offsets[u as usize - hosts]),
            },
            SelectionName::DestinationId => {
                // A fat tree's switches of tier t choose by the (t - 1)th
                // base-k/2 digit of the host index; elsewhere the index itself.
                let tier = graph.map_or(0, |g| g.tiers[u as usize - hosts]) as u32;
                let divisor = match t {
                    TopologySpec::FatTree(f) if tier >= 1 => {
                        (f.k / 2).max(1).saturating_pow(tier - 1).max(1)
                    }
                    _ => 1,
                };
                Selection::DstIndex { divisor }
            }
            SelectionName::Spray => Selection::Spray,
        };
        net.set_selection(u, sel);
    }
    // Shapers: `[queue]`'s on every switch port, `[host]`'s on every host
    // NIC, then `[[port]]`'s in their place; each port remembers the field
    // its shaper came from, for the refusal below.
    let mut shaped_by: Vec<Option<String>> = vec![None; net.ports.len()];
    for (i, by) in shaped_by.iter_mut().enumerate() {
        let (field, spec) = if net.is_host(net.ports[i].node) {
            ("host.shaper", &sc.host.shaper)
        } else {
            ("queue.shaper", &sc.queue.shaper)
        };
        if let Some(s) = spec {
            net.set_shaper(i as PortId, Some(shaper(s)));
            *by = Some(field.to_string());
        }
    }
    for (i, p) in sc.ports.iter().enumerate() {
        if let Some(s) = &p.shaper {
            let port = net
                .port_toward(node(&p.node), node(&p.peer))
                .expect("validated");
            net.set_shaper(port, Some(shaper(s)));
            shaped_by[port as usize] = Some(format!("port[{i}].shaper"));
        }
    }
    for p in &sc.ports {
        let a = node(&p.node);
        let b = node(&p.peer);
        let port = net.port_toward(a, b).expect("validated");
        if p.limit.is_some() || p.ecn_threshold.is_some() || p.discipline.is_some() {
            // Without its own limit, the port keeps its link's buffer.
            let link_buffer = graph.and_then(|g| {
                let (x, y) = (*g.index.get(&p.node)?, *g.index.get(&p.peer)?);
                let &(_, l) = g.adj[x as usize].iter().find(|e| e.0 == y)?;
                let l = &g.links[l as usize];
                if l.a == x {
                    l.buffer_a
                } else {
                    l.buffer_b
                }
            });
            let limit = p.limit.or(link_buffer).unwrap_or(sw_limit);
            let k = p.ecn_threshold.or(sw_ecn);
            let disc = p.discipline.unwrap_or(sc.queue.discipline);
            let rate = match t {
                TopologySpec::Star(_) | TopologySpec::Dumbbell(_) => t.red_rate(),
                _ => net.ports[port as usize].rate,
            };
            net.ports[port as usize].queue = make_queue(disc, limit, k, rate);
        }
    }

    // TBF prices the packet it would send next before sending it, which
    // the simulator can tell without dequeuing only of a drop-tail queue
    // (Linux's tbf peeks any child qdisc).
    for (i, port) in net.ports.iter().enumerate() {
        let tbf = net.shaper(i as PortId).is_some_and(|s| s.needs_head());
        if tbf && !matches!(port.queue, Queue::DropTail(_)) {
            let field = shaped_by[i].clone().expect("a shaped port has its field");
            return Err(ScenarioError::new(
                field,
                format!(
                    "tbf on the port of {:?} toward {:?}, which runs {}, is not supported by the simulator: tbf needs the size of the next packet before it leaves, known only of a drop-tail queue; expected discipline = \"droptail\" there, or kind = \"htb\" (which charges after sending)",
                    net.nodes[port.node as usize].name,
                    net.nodes[port.peer as usize].name,
                    what_queue(&port.queue)
                ),
            ));
        }
    }

    let mut conns: Vec<Conn> = Vec::new();
    let mut workloads: Vec<Workload> = Vec::new();
    let socket = |cfg: &Arc<TcpConfig>, c: u32, local, remote, passive: bool| {
        let mut s = TcpSocket::new(Arc::clone(cfg), c, local, remote, passive);
        if cfg.uses_rng() {
            s.set_rng(Rng::stream(seed, &[RNG_TCP, c as u64, passive as u64]));
        }
        s
    };
    // Sockets share their settings: one copy per distinct configuration,
    // however many workloads override [tcp] the same way.
    let mut configs: HashMap<TcpConfig, Arc<TcpConfig>> = HashMap::new();
    let mut shared =
        |cfg: TcpConfig| Arc::clone(configs.entry(cfg).or_insert_with(|| Arc::new(cfg)));
    for (wi, w) in sc.workloads.iter().enumerate() {
        let id = wi as u32;
        let start = w.start();
        let tcp = shared(match resolved.workload_tcp(wi) {
            Some(t) => tcp_config(t),
            None => tcp,
        });
        match w {
            WorkloadSpec::Incast(w) => {
                let client = node(&w.client);
                let names = w.servers(&resolved.hosts);
                let servers: Vec<NodeId> = names.iter().map(|n| node(n)).collect();
                let sru = match (w.sru, w.block) {
                    (Some(s), _) => vec![s.get(); servers.len()],
                    (None, Some(b)) => Incast::split_block(b.get(), servers.len()),
                    _ => unreachable!("validated"),
                };
                let mut ids = Vec::with_capacity(servers.len());
                for (i, &s) in servers.iter().enumerate() {
                    let c = conns.len() as u32;
                    ids.push(c);
                    let app = ConnApp {
                        workload: id,
                        index: i as u32,
                    };
                    // The client opens; the server listens and sends the data.
                    conns.push(Conn::new(
                        socket(&tcp, c, client, s, false),
                        socket(&tcp, c, s, client, true),
                        app,
                        1,
                    ));
                }
                workloads.push(Workload::Incast(Box::new(
                    Incast::new(
                        id,
                        start,
                        client,
                        servers,
                        ids,
                        sru,
                        w.request().get(),
                        w.rounds(),
                        w.response_jitter.unwrap_or(Time::ZERO),
                        Rng::stream(seed, &[RNG_WORKLOAD, wi as u64]),
                    )
                    .with_warmup(w.warmup.unwrap_or(false))
                    .with_random_order(w.request_order == Some(RequestOrder::Random)),
                )));
            }
            WorkloadSpec::Bulk(w) => {
                let src = node(&w.src);
                let dst = node(&w.dst);
                let c = conns.len() as u32;
                conns.push(Conn::new(
                    socket(&tcp, c, src, dst, false),
                    socket(&tcp, c, dst, src, true),
                    ConnApp {
                        workload: id,
                        index: 0,
                    },
                    0,
                ));
                workloads.push(Workload::Bulk(Bulk::new(c, start, w.size.map(|s| s.get()))));
            }
            WorkloadSpec::Short(w) => {
                let src = node(&w.src);
                let dst = node(&w.dst);
                let n = w.count;
                let size = w.flow_bytes(tcp.mss);
                let mut ids = Vec::with_capacity(n as usize);
                for i in 0..n {
                    let c = conns.len() as u32;
                    ids.push(c);
                    conns.push(Conn::new(
                        socket(&tcp, c, src, dst, false),
                        socket(&tcp, c, dst, src, true),
                        ConnApp {
                            workload: id,
                            index: i,
                        },
                        0,
                    ));
                }
                workloads.push(Workload::Short(Box::new(ShortFlows::new(
                    id,
                    start,
                    w.spread.unwrap_or(Time::ZERO),
                    ids,
                    size,
                    &mut Rng::stream(seed, &[RNG_WORKLOAD, wi as u64]),
                ))));
            }
            WorkloadSpec::NfsRead(w) => {
                let server = node(&w.server);
                let names = w.clients(&resolved.hosts);
                let clients: Vec<NodeId> = names.iter().map(|n| node(n)).collect();
                let mut ids = Vec::with_capacity(clients.len());
                for (i, &cl) in clients.iter().enumerate() {
                    let c = conns.len() as u32;
                    ids.push(c);
                    // The client opens and asks; the server listens and
                    // sends the data (the replies).
                    conns.push(Conn::new(
                        socket(&tcp, c, cl, server, false),
                        socket(&tcp, c, server, cl, true),
                        ConnApp {
                            workload: id,
                            index: i as u32,
                        },
                        1,
                    ));
                }
                let params = ReadParams {
                    file_size: w.file_size.get(),
                    io_size: w.io_size().get(),
                    outstanding: w.outstanding(),
                    request: w.request().get(),
                    reply_header: w.reply_header().get(),
                    disk_rate: w.disk_rate,
                };
                workloads.push(Workload::NfsRead(Box::new(NfsRead::new(
                    id, start, server, clients, ids, params,
                ))));
            }
            // UDP flows are endpoints after the connections: below.
            WorkloadSpec::Udp(_) => workloads.push(Workload::Udp(Udp::new(u32::MAX, start))),
        }
    }
    if sc.metrics.trace {
        // A set: the list may be as long as the connections.
        let only: Option<std::collections::BTreeSet<u32>> = sc
            .metrics
            .trace_flows
            .as_ref()
            .map(|f| f.iter().copied().collect());
        for (i, c) in conns.iter_mut().enumerate() {
            let wanted = only.as_ref().is_none_or(|f| f.contains(&(i as u32)));
            if wanted {
                let side = c.data_side();
                c.sock[side].enable_trace();
            }
        }
    }
    // Endpoints: the connections (ids 0.., as the flows table numbers
    // them), then the UDP flows in workload order.
    let mut endpoints: Vec<Endpoint> = conns.into_iter().map(Endpoint::Tcp).collect();
    for (wi, w) in sc.workloads.iter().enumerate() {
        let WorkloadSpec::Udp(w) = w else {
            continue;
        };
        let arrivals = w.arrivals.unwrap_or(Arrivals::Poisson);
        let e = endpoints.len() as u32;
        endpoints.push(Endpoint::Udp(UdpFlow::new(
            ConnApp {
                workload: wi as u32,
                index: 0,
            },
            e,
            node(&w.src),
            node(&w.dst),
            w.rate,
            w.packet_size
                .unwrap_or(crate::spec::workloads::DEFAULT_UDP_PACKET),
            arrivals,
            Rng::stream(seed, &[RNG_UDP, wi as u64]),
        )));
        workloads[wi] = Workload::Udp(Udp::new(e, w.start.unwrap_or(Time::ZERO)));
    }
    let series = Series {
        throughput_bin: sc.metrics.throughput_bin,
        queue_sample: sc.metrics.queue_sample,
        ..Series::default()
    };
    let mut sim = Simulation::new(
        net,
        endpoints,
        workloads,
        sc.duration,
        seed,
        profile.name(),
        series,
    );
    if sc.host.send_jitter > Time::ZERO {
        sim.set_host_jitter(sc.host.send_jitter, seed, RNG_HOST);
    }
    if sc.switch.forwarding_jitter > Time::ZERO {
        sim.set_forwarding_jitter(sc.switch.forwarding_jitter, seed, RNG_SWITCH);
    }
    if let Some((a, b)) = sc
        .metrics
        .drop_trace
        .as_deref()
        .and_then(|s| s.split_once(':'))
    {
        let net = &sim.net;
        let named = |n: u32, s: &str| net.nodes[n as usize].name == s;
        let port = net
            .ports
            .iter()
            .position(|p| named(p.node, a) && named(p.peer, b))
            .expect("validated");
        let max = sc
            .metrics
            .drop_trace_max_rows
            .unwrap_or(crate::spec::metrics::DEFAULT_DROP_TRACE_MAX_ROWS);
        sim.drops
            .trace_port(port as u32, usize::try_from(max).unwrap_or(usize::MAX));
    }
    sim.index_flows();
    if with_stack {
        sim.set_host_stack(stack.txq_select, stack.rebalance, tsq, seed, RNG_TXHASH);
    }
    sim.handshake = resolved.tcp.handshake;
    Ok(sim)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_specs_header_size_is_the_simulators() {
        assert_eq!(TCP_IP_HEADER, crate::packet::TCP_IP_HEADER);
    }

    #[test]
    fn a_connection_fits_the_memory_the_limits_count_for_it() {
        // As the simulation holds it: an endpoint.
        let conn = std::mem::size_of::<Endpoint>() as u64;
        assert!(conn <= crate::spec::limits::CONN_BYTES / 2, "{conn} bytes");
    }

    #[test]
    fn a_shaper_fits_the_memory_the_limits_count_for_it() {
        // Boxed, with room for the allocator's own bookkeeping.
        let shaper = std::mem::size_of::<Shaper>() as u64;
        assert!(
            shaper + 16 <= crate::spec::limits::SHAPER_BYTES,
            "{shaper} bytes"
        );
        // A port without one pays a pointer (once any port has one).
        assert_eq!(std::mem::size_of::<Option<Box<Shaper>>>(), 8);
    }
}
