//! `[limits]`: bounds on the work and memory a scenario may ask for, checked
//! before anything is built, so that a typo (`duration = "1000000s"`,
//! `queue_sample = "1ns"`, `rounds = 4000000000`) gets one line naming the
//! field instead of a run that never ends or exhausts memory.
//!
//! The checks compare *estimates* with the limits (docs/scenario.md,
//! "Limits"): each estimate is a formula over the spec's values, documented
//! where it is computed. Every default is far above every shipped example,
//! test and study (the largest, the HCF study's 400 flows for 180 s, needs
//! about 1.6 million packets, 7,000 series rows and 110 MB), and a user
//! who means a bigger run raises it in `[limits]`.

use super::queues::{Buffer, Discipline};
use super::workloads::WorkloadSpec;
use super::{Resolved, Scenario, ScenarioError};
use crate::units::{Bytes, Time, PS_PER_SEC};
use serde::{Deserialize, Serialize};

/// The largest time a scenario may name (a duration, a start, a timer):
/// 10^6 s, about 11.6 days of simulated time — far beyond any experiment
/// here (the longest shipped run is 180 s) — so that any instant of a run
/// plus any timer or period still fits in [`Time`] (u64 picoseconds, 213
/// days) and no sum the simulator forms can wrap.
pub const MAX_TIME: Time = Time::from_secs(1_000_000);

/// Refuses a time above [`MAX_TIME`].
pub fn check_time(path: &str, t: Time) -> Result<(), ScenarioError> {
    if t > MAX_TIME {
        return Err(ScenarioError::new(
            path,
            format!("\"{t}\" is too long; expected at most \"{MAX_TIME}\" (about 11.6 days of simulated time)"),
        ));
    }
    Ok(())
}

/// Bytes of headers on every TCP segment (IPv4 + TCP, no options): the
/// smallest packet a TCP flow sends, a pure ACK.
const HEADERS: u64 = 40;
/// Memory of one packet held in a queue or on a wire (an 88-byte packet
/// record and its slot).
const PACKET_BYTES: u64 = 128;
/// Memory of one TCP connection: two sockets with their timers, SACK and
/// reassembly state, and the workload's per-flow records.
pub const CONN_BYTES: u64 = 4096;
/// Memory of one SFQ/DRR bucket: its packet deque, list links, deficit.
const BUCKET_BYTES: u64 = 64;
/// Memory of one HCF credit bin: its period stamp and credit.
const BIN_BYTES: u64 = 16;
/// Memory of one route: a port id per (node, destination host).
const ROUTE_BYTES: u64 = 4;
/// Memory of one flow's reordering stamp at one switch port.
const STAMP_BYTES: u64 = 8;

fn default_max_packets() -> u64 {
    // About a minute of simulation on one core (each data packet and its
    // ACK cost about half a microsecond per hop; docs/scenario.md), and
    // 30 times the HCF study's 1.6 million.
    50_000_000
}
fn default_max_series_rows() -> u64 {
    // Rows become Python objects (four or five columns, about 150 bytes a
    // row): 10 million is about 1.5 GB in pandas, and 10 times the
    // largest shipped series (examples/incast.toml's queue samples).
    10_000_000
}
fn default_max_memory() -> Bytes {
    // Half of a small 8 GB machine; the HCF study needs about 110 MB.
    Bytes(4 << 30)
}
fn default_max_hosts() -> u64 {
    super::topology::MAX_HOSTS
}
fn default_max_flows() -> u64 {
    // Each flow keeps a connection (about 4 KB) and a stamp at every switch
    // port; 100,000 is 250 times the HCF study's 400.
    100_000
}

/// The limits; every field has a default (see each default's function).
#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct LimitsSpec {
    /// Data packets the workloads may send (estimate below).
    pub max_packets: u64,
    /// Rows of the flow_series, queue_series and trace tables.
    pub max_series_rows: u64,
    /// Memory of the simulator's state, estimated.
    pub max_memory: Bytes,
    /// Hosts of the topology.
    pub max_hosts: u64,
    /// TCP connections and UDP flows.
    pub max_flows: u64,
}

impl Default for LimitsSpec {
    fn default() -> Self {
        LimitsSpec {
            max_packets: default_max_packets(),
            max_series_rows: default_max_series_rows(),
            max_memory: default_max_memory(),
            max_hosts: default_max_hosts(),
            max_flows: default_max_flows(),
        }
    }
}

impl LimitsSpec {
    pub fn is_default(&self) -> bool {
        *self == LimitsSpec::default()
    }
}

/// One term of an estimate: its size, the field that drives it, and how it
/// was counted (for the message).
#[derive(Clone, Debug, PartialEq)]
pub struct Term {
    pub value: u64,
    pub path: String,
    pub how: String,
}

/// What a scenario will cost, by the formulas below.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Estimate {
    /// Data packets the workloads send (retransmissions not counted).
    pub packets: Vec<Term>,
    pub series_rows: Vec<Term>,
    pub memory: Vec<Term>,
    pub flows: u64,
    /// How long the run lasts: its duration, or (without one) an estimate.
    pub horizon: Time,
}

fn total(terms: &[Term]) -> u64 {
    terms.iter().fold(0u64, |a, t| a.saturating_add(t.value))
}

/// `a * b / c` without overflow (saturating at u64::MAX).
fn mul_div(a: u64, b: u64, c: u64) -> u64 {
    let v = a as u128 * b as u128 / c.max(1) as u128;
    u64::try_from(v).unwrap_or(u64::MAX)
}

/// Packets of `bytes` of payload in segments of `mss`, and one more for a
/// partial segment.
fn segments(bytes: u64, mss: u32) -> u64 {
    bytes.div_ceil(mss.max(1) as u64)
}

/// Human-readable large numbers in messages ("about 1.2e10").
fn approx(n: u64) -> String {
    if n < 100_000 {
        n.to_string()
    } else {
        format!("{:.2e}", n as f64)
    }
}

impl Estimate {
    pub fn packets(&self) -> u64 {
        total(&self.packets)
    }
    pub fn series_rows(&self) -> u64 {
        total(&self.series_rows)
    }
    pub fn memory(&self) -> u64 {
        total(&self.memory)
    }

    /// Estimates what `sc` will cost. `r` holds its resolved hosts and TCP.
    pub fn of(sc: &Scenario, r: &Resolved) -> Estimate {
        let mut est = Estimate::default();
        let topo = &sc.topology;
        let hosts = r.hosts.len() as u64;
        let access = topo.access_rate().get();
        let switches = topo.switch_names().len() as u64;
        let switch_ports = match topo {
            super::TopologySpec::Star(_) => hosts,
            super::TopologySpec::Dumbbell(_) => hosts + 2,
        };

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
            let (a, b) = (topo.switch_of(&r.hosts, src), topo.switch_of(&r.hosts, dst));
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
                WorkloadSpec::Udp(_) => udp_flows += 1,
            }
            if !matches!(w, WorkloadSpec::Udp(_)) {
                first_open = first_open.min(sc.workloads[i].start());
            }
        }
        est.flows = conns + udp_flows;

        // How long the run lasts. Without a duration: the last opening, plus
        // every TCP byte at the slowest link's rate, plus one minimum RTO
        // per incast round and one initial RTO (a lost SYN). An estimate,
        // not a bound: a run that times out more lasts longer.
        let slowest = match topo {
            super::TopologySpec::Star(t) => t.rate.get(),
            super::TopologySpec::Dumbbell(t) => t.rate.get().min(t.bottleneck_rate.get()),
        };
        let mut sized_bytes = 0u64;
        let mut last_open = Time::ZERO;
        let mut worst_rto = Time::ZERO;
        for (i, w) in sc.workloads.iter().enumerate() {
            last_open = last_open.max(w.last_open().unwrap_or(Time::MAX));
            let Some(tcp) = r.workload_tcp[i] else {
                continue;
            };
            worst_rto = worst_rto.max(tcp.initial_rto);
            let wire = |payload: u64| -> u64 {
                payload.saturating_add(segments(payload, tcp.mss).saturating_mul(HEADERS))
            };
            match w {
                WorkloadSpec::Incast(w) => {
                    let n = w.servers(&r.hosts).len() as u64;
                    sized_bytes = sized_bytes
                        .saturating_add(wire(w.round_bytes(n)).saturating_mul(w.rounds() as u64));
                    worst_rto = worst_rto.max(
                        tcp.min_rto
                            .max(tcp.granularity)
                            .times(w.rounds() as u64)
                            .saturating_add(tcp.initial_rto),
                    );
                }
                WorkloadSpec::Bulk(b) => {
                    sized_bytes = sized_bytes.saturating_add(b.size.map_or(0, |s| wire(s.get())));
                }
                WorkloadSpec::Short(s) => {
                    sized_bytes = sized_bytes
                        .saturating_add(wire(s.flow_bytes(tcp.mss)).saturating_mul(s.count as u64));
                }
                WorkloadSpec::Udp(_) => {}
            }
        }
        est.horizon = match sc.duration {
            Some(d) => d,
            None => last_open
                .saturating_add(Time(mul_div(sized_bytes, 8 * PS_PER_SEC, slowest)))
                .saturating_add(worst_rto),
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
            let mss = r.workload_tcp[i].map_or(1460, |t| t.mss);
            match w {
                WorkloadSpec::Incast(w) => {
                    let n = w.servers(&r.hosts).len() as u64;
                    let per_round = segments(w.round_bytes(n), mss)
                        .saturating_add(n)
                        .saturating_add(n.saturating_mul(segments(w.request().get(), mss)));
                    tcp_terms.push(Term {
                        value: per_round.saturating_mul(w.rounds() as u64),
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
                WorkloadSpec::Udp(_) => {}
            }
        }
        if let Some(d) = sc.duration {
            let mut cover = senders.len() as u64 * access;
            cover = cover.min(receivers.len() as u64 * access);
            if let super::TopologySpec::Dumbbell(t) = topo {
                let crossed = crossing.iter().filter(|c| **c).count() as u64;
                cover = cover.min(
                    crossed * t.bottleneck_rate.get() + same_side_senders.len() as u64 * access,
                );
            }
            let smallest_mss = r
                .workload_tcp
                .iter()
                .flatten()
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
        for (i, w) in sc.workloads.iter().enumerate() {
            if let WorkloadSpec::Udp(u) = w {
                let size = u
                    .packet_size
                    .unwrap_or(super::workloads::DEFAULT_UDP_PACKET);
                let time = est.horizon.saturating_sub(w.start());
                est.packets.push(Term {
                    value: mul_div(u.rate.get(), time.0, 8 * PS_PER_SEC * size.get().max(1)),
                    path: format!("workload[{i}].rate"),
                    how: format!("{} for \"{time}\" in {size} datagrams", u.rate),
                });
            }
        }
        let tcp_packets = total(&est.packets);

        // Series rows: throughput bins of every TCP connection over the
        // run, queue samples of every switch port, and (with trace) about
        // two trace rows per data packet of a traced flow.
        let m = &sc.metrics;
        if let Some(bin) = m.throughput_bin {
            let bins = est.horizon.0 / bin.0.max(1) + 1;
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
            let samples = est.horizon.0 / period.0.max(1) + 1;
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

        // Memory.
        let nodes = hosts + switches;
        est.memory.push(Term {
            value: ROUTE_BYTES * hosts * nodes,
            path: "topology".into(),
            how: format!("routing tables of {hosts} hosts x {nodes} nodes"),
        });
        let keys = 2 * conns + udp_flows;
        est.memory.push(Term {
            value: STAMP_BYTES
                .saturating_mul(switch_ports)
                .saturating_mul(keys),
            path: "workload".into(),
            how: format!(
                "reordering stamps of {keys} flow directions at {switch_ports} switch ports"
            ),
        });
        est.memory.push(Term {
            value: CONN_BYTES.saturating_mul(conns),
            path: "workload".into(),
            how: format!("{conns} TCP connections"),
        });
        let q = &sc.queue;
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
        // Packets held: no more than the queues and wires can hold, and no
        // more than the workloads send (data, and as many ACKs).
        let smallest = Bytes(HEADERS);
        let mut held = hosts.saturating_mul(sc.host.nic_queue.max_packets(smallest));
        let limits: Vec<Buffer> = std::iter::once(q.limit)
            .chain(sc.ports.iter().filter_map(|p| p.limit))
            .collect();
        let biggest = limits
            .iter()
            .map(|l| l.max_packets(smallest))
            .max()
            .unwrap_or(0);
        held = held.saturating_add(switch_ports.saturating_mul(biggest));
        for l in topo.links(&r.hosts) {
            held = held.saturating_add(mul_div(l.rate.get(), l.delay.0, 8 * PS_PER_SEC * HEADERS));
        }
        let held = held.min(tcp_packets.saturating_mul(2));
        est.memory.push(Term {
            value: held.saturating_mul(PACKET_BYTES),
            path: "queue.limit".into(),
            how: format!("{} packets held in queues and on wires", approx(held)),
        });
        est
    }
}

/// "1.5 GiB", "12 MiB".
fn human(n: u64) -> String {
    if n >= 1 << 30 {
        format!("{:.1} GiB", n as f64 / (1u64 << 30) as f64)
    } else {
        format!("{} MiB", n.div_ceil(1 << 20))
    }
}

fn largest(terms: &[Term]) -> Option<&Term> {
    terms.iter().max_by_key(|t| t.value)
}

impl LimitsSpec {
    /// Refuses an estimate above a limit, naming the field that drives it.
    pub fn check(&self, est: &Estimate) -> Result<(), ScenarioError> {
        if est.flows > self.max_flows {
            return Err(ScenarioError::new(
                "workload",
                format!(
                    "{} TCP connections and UDP flows; expected at most {} (raise [limits] max_flows to run more)",
                    est.flows, self.max_flows
                ),
            ));
        }
        let packets = est.packets();
        if packets > self.max_packets {
            let t = largest(&est.packets).expect("some term");
            return Err(ScenarioError::new(
                &t.path,
                format!(
                    "the workloads would send about {} packets ({}: {}); expected at most {} (shorten the run, or raise [limits] max_packets)",
                    approx(packets),
                    approx(t.value),
                    t.how,
                    approx(self.max_packets)
                ),
            ));
        }
        let rows = est.series_rows();
        if rows > self.max_series_rows {
            let t = largest(&est.series_rows).expect("some term");
            return Err(ScenarioError::new(
                &t.path,
                format!(
                    "the time series would hold about {} rows ({}); expected at most {} (a longer period or a shorter run; or raise [limits] max_series_rows)",
                    approx(rows),
                    t.how,
                    approx(self.max_series_rows)
                ),
            ));
        }
        let mem = est.memory();
        if mem > self.max_memory.get() {
            let t = largest(&est.memory).expect("some term");
            return Err(ScenarioError::new(
                &t.path,
                format!(
                    "the simulation would need about {} of memory ({}: {}); expected at most {} (raise [limits] max_memory)",
                    human(mem),
                    human(t.value),
                    t.how,
                    self.max_memory
                ),
            ));
        }
        Ok(())
    }
}
