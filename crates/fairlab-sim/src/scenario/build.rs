//! Turns a validated scenario into a ready-to-run [`Simulation`].

use super::{
    Discipline, Scenario, ScenarioError, TopologyKind, WorkloadKind, DEFAULT_REQUEST,
    DEFAULT_ROUNDS,
};
use crate::engine::Rng;
use crate::net::topology::{self, LinkSpec};
use crate::net::{Network, NodeId};
use crate::packet::Salt;
use crate::queue::{BufferLimit, Class, DropTail, Drr, Hcf, Priority, Queue, Red, RedConfig, Sfq};
use crate::sim::{Conn, Series, Simulation};
use crate::transport::tcp::TcpSocket;
use crate::units::Time;
use crate::workload::{Arrivals, Bulk, ConnApp, Incast, ShortFlows, Udp, Workload};

fn droptail(limit: BufferLimit, ecn: Option<BufferLimit>) -> Queue {
    match ecn {
        Some(k) => Queue::DropTail(DropTail::with_ecn(limit, k)),
        None => Queue::DropTail(DropTail::new(limit)),
    }
}

/// Splits a limit into two shares.
fn split(limit: BufferLimit, share: f64) -> (BufferLimit, BufferLimit) {
    match limit {
        BufferLimit::Packets(n) => {
            let h = ((n as f64) * share).round().max(1.0) as u32;
            (
                BufferLimit::Packets(h),
                BufferLimit::Packets(n.saturating_sub(h).max(1)),
            )
        }
        BufferLimit::Bytes(b) => {
            let h = ((b.get() as f64) * share).round() as u64;
            (
                BufferLimit::Bytes(crate::units::Bytes(h)),
                BufferLimit::Bytes(crate::units::Bytes(b.get() - h)),
            )
        }
    }
}

/// Component keys of the RNG streams (see `engine::rng`).
const RNG_WORKLOAD: u64 = 1;
const RNG_HOST: u64 = 2;
const RNG_TCP: u64 = 3;
const RNG_QUEUE: u64 = 4;
const RNG_UDP: u64 = 5;

/// Builds the simulation of `sc` with `seed` (the scenario's own seed when `None`).
pub fn build(sc: &Scenario, seed: Option<u64>) -> Result<Simulation, ScenarioError> {
    sc.validate()?;
    let seed = seed.unwrap_or(sc.seed);
    let profile = sc.tcp.profile()?;
    let tcp = sc.tcp.resolve()?;
    let t = &sc.topology;
    let sw_limit = sc.queue.limit;
    let sw_ecn = sc.queue.ecn_threshold;
    let nic_limit = sc.host.nic_queue;
    let packet = crate::units::Bytes((tcp.mss + crate::packet::TCP_IP_HEADER) as u64);
    // Each switch queue that draws random numbers (HCF's hash functions)
    // gets its own stream, numbered in the order the builder creates ports.
    let queue_no = std::cell::Cell::new(0u64);
    let make_queue = |disc: Discipline, limit: BufferLimit, ecn: Option<BufferLimit>| -> Queue {
        let n = queue_no.get();
        queue_no.set(n + 1);
        match disc {
            Discipline::Droptail => droptail(limit, ecn),
            Discipline::Hcf => {
                let cfg = sc
                    .queue
                    .hcf
                    .config(limit, packet, "queue.hcf")
                    .expect("validated");
                Queue::Hcf(Hcf::new(cfg, Rng::stream(seed, &[RNG_QUEUE, n])))
            }
            Discipline::Red => {
                let r = &sc.queue.red;
                let rate = t.bottleneck_rate.or(t.rate).expect("validated");
                Queue::Red(Red::new(
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
                    Rng::stream(seed, &[RNG_QUEUE, n]),
                ))
            }
            Discipline::Sfq => Queue::Sfq(Sfq::new(
                sc.queue.sfq.buckets,
                limit,
                sc.queue.sfq.perturb,
                Rng::stream(seed, &[RNG_QUEUE, n]),
            )),
            Discipline::Drr => Queue::Drr(Drr::new(
                sc.queue.drr.buckets,
                limit,
                sc.queue.drr.quantum.get(),
                Salt::from_u64(Rng::stream(seed, &[RNG_QUEUE, n]).next_u64()),
            )),
            Discipline::Priority => {
                let p = &sc.queue.priority;
                let class = if p.high == "udp" {
                    Class::Udp
                } else {
                    Class::Control
                };
                let (hi, lo) = split(limit, p.high_share);
                Queue::Priority(Priority::new(class, hi, lo))
            }
        }
    };
    let switch_q = || make_queue(sc.queue.discipline, sw_limit, sw_ecn);
    let host_q = || droptail(nic_limit, None);
    let access = LinkSpec {
        rate: t.rate.expect("validated"),
        delay: t.delay.expect("validated"),
    };
    let mut net: Network = match t.kind {
        TopologyKind::Star => {
            let hosts = t.hosts.as_ref().expect("validated").names("h");
            topology::star(&hosts, access, &switch_q, &host_q).0
        }
        TopologyKind::Dumbbell => {
            let left = t.left.as_ref().expect("validated").names("l");
            let right = t.right.as_ref().expect("validated").names("r");
            let bottleneck = LinkSpec {
                rate: t.bottleneck_rate.expect("validated"),
                delay: t.bottleneck_delay.expect("validated"),
            };
            topology::dumbbell(&left, &right, access, bottleneck, &switch_q, &host_q)
        }
    };
    for p in &sc.ports {
        let a = net.node_by_name(&p.node).expect("validated");
        let b = net.node_by_name(&p.peer).expect("validated");
        let port = net.port_toward(a, b).expect("validated");
        if p.limit.is_some() || p.ecn_threshold.is_some() || p.discipline.is_some() {
            let limit = p.limit.unwrap_or(sw_limit);
            let k = p.ecn_threshold.or(sw_ecn);
            let disc = p.discipline.unwrap_or(sc.queue.discipline);
            net.ports[port as usize].queue = make_queue(disc, limit, k);
        }
    }

    let node = |n: &str| -> NodeId { net.node_by_name(n).expect("validated") };
    let mut conns: Vec<Conn> = Vec::new();
    let mut workloads: Vec<Workload> = Vec::new();
    let socket = |cfg, c: u32, local, remote, passive: bool| {
        let mut s = TcpSocket::new(cfg, c, local, remote, passive);
        s.set_rng(Rng::stream(seed, &[RNG_TCP, c as u64, passive as u64]));
        s
    };
    for (wi, w) in sc.workloads.iter().enumerate() {
        let id = wi as u32;
        let start = w.start.unwrap_or(Time::ZERO);
        let tcp = match &w.tcp {
            Some(t) => sc.tcp.overlaid(t).resolve()?,
            None => tcp,
        };
        match w.kind {
            WorkloadKind::Incast => {
                let client_name = w.client.clone().expect("validated");
                let client = node(&client_name);
                let names = sc.incast_servers(w, &client_name);
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
                        socket(tcp, c, client, s, false),
                        socket(tcp, c, s, client, true),
                        app,
                        1,
                    ));
                }
                workloads.push(Workload::Incast(Incast::new(
                    id,
                    start,
                    client,
                    servers,
                    ids,
                    sru,
                    w.request.unwrap_or(DEFAULT_REQUEST).get(),
                    w.rounds.unwrap_or(DEFAULT_ROUNDS),
                    w.response_jitter.unwrap_or(Time::ZERO),
                    Rng::stream(seed, &[RNG_WORKLOAD, wi as u64]),
                )));
            }
            WorkloadKind::Bulk => {
                let src = node(w.src.as_deref().expect("validated"));
                let dst = node(w.dst.as_deref().expect("validated"));
                let c = conns.len() as u32;
                conns.push(Conn::new(
                    socket(tcp, c, src, dst, false),
                    socket(tcp, c, dst, src, true),
                    ConnApp {
                        workload: id,
                        index: 0,
                    },
                    0,
                ));
                workloads.push(Workload::Bulk(Bulk::new(
                    id,
                    c,
                    start,
                    w.size.map(|s| s.get()),
                )));
            }
            WorkloadKind::Short => {
                let src = node(w.src.as_deref().expect("validated"));
                let dst = node(w.dst.as_deref().expect("validated"));
                let n = w.count.expect("validated");
                let size = match (w.size, w.packets) {
                    (Some(b), _) => b.get(),
                    (None, Some(p)) => p as u64 * tcp.mss as u64,
                    _ => unreachable!("validated"),
                };
                let mut ids = Vec::with_capacity(n as usize);
                for i in 0..n {
                    let c = conns.len() as u32;
                    ids.push(c);
                    conns.push(Conn::new(
                        socket(tcp, c, src, dst, false),
                        socket(tcp, c, dst, src, true),
                        ConnApp {
                            workload: id,
                            index: i,
                        },
                        0,
                    ));
                }
                workloads.push(Workload::Short(ShortFlows::new(
                    id,
                    start,
                    w.spread.unwrap_or(Time::ZERO),
                    ids,
                    size,
                    &mut Rng::stream(seed, &[RNG_WORKLOAD, wi as u64]),
                )));
            }
            // UDP flows need the final connection count for their ids: below.
            WorkloadKind::Udp => workloads.push(Workload::Udp(Udp::new(
                id,
                0,
                0,
                0,
                w.rate.expect("validated"),
                crate::units::Bytes(0),
                Arrivals::Poisson,
                start,
                Rng::new(0),
            ))),
        }
    }
    let mut udp_no = 0u32;
    for (wi, w) in sc.workloads.iter().enumerate() {
        if w.kind != WorkloadKind::Udp {
            continue;
        }
        let arrivals = match w.arrivals.as_deref() {
            Some("periodic") => Arrivals::Periodic,
            _ => Arrivals::Poisson,
        };
        workloads[wi] = Workload::Udp(Udp::new(
            wi as u32,
            node(w.src.as_deref().expect("validated")),
            node(w.dst.as_deref().expect("validated")),
            2 * conns.len() as u32 + udp_no,
            w.rate.expect("validated"),
            w.packet_size.unwrap_or(crate::units::Bytes(1500)),
            arrivals,
            w.start.unwrap_or(Time::ZERO),
            Rng::stream(seed, &[RNG_UDP, wi as u64]),
        ));
        udp_no += 1;
    }
    if sc.metrics.trace {
        for (i, c) in conns.iter_mut().enumerate() {
            let wanted = sc
                .metrics
                .trace_flows
                .as_ref()
                .is_none_or(|f| f.contains(&(i as u32)));
            if wanted {
                let side = c.data_side;
                c.sock[side].enable_trace();
            }
        }
    }
    let series = Series {
        throughput_bin: sc.metrics.throughput_bin,
        queue_sample: sc.metrics.queue_sample,
        ..Series::default()
    };
    let mut sim = Simulation::new(
        net,
        conns,
        workloads,
        sc.duration,
        seed,
        profile.name(),
        series,
    );
    if sc.host.send_jitter > Time::ZERO {
        sim.set_host_jitter(sc.host.send_jitter, seed, RNG_HOST);
    }
    sim.index_flows();
    sim.handshake = sc.tcp.handshake.unwrap_or(true);
    Ok(sim)
}
