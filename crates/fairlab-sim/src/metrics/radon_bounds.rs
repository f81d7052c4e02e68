//! The network-calculus check of every run with Radon streams (the
//! `port_bounds` table and the summary's `bound_violations`).
//!
//! Each stream that sends (admitted, or running without admission) is a
//! token bucket in wire bytes: one paced a datagram per wait at least its
//! shortest wait apart has b = one datagram, r = its wire bytes over that
//! wait; one that sends windows may put its budget anywhere in its period,
//! b = 2e (in bytes at its capacity), r = u·C. Its feedback is a stream of
//! its own on the reverse path: one datagram per `feedback_every` data
//! datagrams, so its rate is the data's scaled by their sizes, and its
//! burst one feedback datagram plus one per `feedback_every` of the data's
//! burst as it reaches the receiver (the data's bucket after its path's
//! delay bounds). Each port is a rate-latency server R(t − T)+ at its rate,
//! T the largest packet it sends; bounds are the closed forms of
//! `fairlab_radon_core::calculus`, fed forward hop by hop. A port that also
//! carries traffic outside these streams (TCP, plain UDP) has no bound
//! here: its row says so and is not checked. Every other port compares the
//! simulated maximum backlog and delay (the simulator's port watch, in the
//! same wire bytes) with its bounds: a port above either is a violation.

use super::radon::reserved_streams;
use super::{Collector, Column, Summary, Table, Value};
use crate::net::PortId;
use crate::packet::UDP_IP_HEADER;
use crate::sim::Simulation;
use crate::units::PS_PER_SEC;
use fairlab_radon_core::{port_bounds, Feedback, PortBound, RateLatency, TokenBucket};
use std::collections::BTreeSet;

pub struct PortBounds;

/// Relative slack for float rounding in the comparison (the bounds are
/// computed in f64 from integer picoseconds and bytes).
const SLACK: f64 = 1e-9;

/// One port's row.
struct Row {
    port: usize,
    streams: usize,
    sum_u: f64,
    backlog_bound: f64,
    max_backlog: f64,
    delay_bound_us: f64,
    max_delay_us: f64,
    status: &'static str,
}

/// The ports from host `a` to host `b` of flow hash `hash`, as indices.
fn path(sim: &Simulation, a: u32, b: u32, hash: u32) -> Vec<usize> {
    sim.net
        .path_to(a, b, hash)
        .into_iter()
        .map(|p| p as usize)
        .collect()
}

/// Ports that carry packets of any endpoint that is not a Radon stream.
fn unreserved_ports(sim: &Simulation) -> BTreeSet<usize> {
    let mut out = BTreeSet::new();
    for e in sim.endpoints.iter().filter(|e| e.as_radon().is_none()) {
        let (a, b, h, back, _) = e.path_probe();
        out.extend(path(sim, a, b, h));
        if let Some(h) = back {
            out.extend(path(sim, b, a, h));
        }
    }
    out
}

/// The streams as buckets on port paths: the n data streams first, then
/// their feedback in the same order (data stream i's is n + i); and each
/// port's largest packet in wire bytes.
struct Curves {
    streams: Vec<(TokenBucket, Vec<usize>)>,
    /// Per data stream: its datagrams' wire bytes and data datagrams per
    /// feedback datagram.
    data: Vec<(f64, f64)>,
    largest: Vec<f64>,
}

fn curves(sim: &Simulation) -> Curves {
    let framing = sim.framing().get() as f64;
    let fb_wire = (UDP_IP_HEADER as usize + Feedback::WIRE_BYTES) as f64 + framing;
    let mut c = Curves {
        streams: Vec::new(),
        data: Vec::new(),
        largest: vec![0.0; sim.net.ports.len()],
    };
    let mut feedback = Vec::new();
    for (_, r, res) in reserved_streams(sim) {
        let (a, b, h0, h1, _) = r.path_probe();
        let wire = res.wire_bytes as f64;
        let data = if res.windows {
            let budget_ps = (res.utilization * res.period.0 as f64) as i64;
            TokenBucket::budgeted(budget_ps, res.utilization, res.capacity_bps)
        } else {
            let rate = wire * 8.0 * PS_PER_SEC as f64 / res.wait_min.0 as f64;
            TokenBucket::paced(wire, rate)
        };
        let fwd = path(sim, a, b, h0);
        let back = h1.map(|h| path(sim, b, a, h)).unwrap_or_default();
        for &p in &fwd {
            c.largest[p] = c.largest[p].max(wire);
        }
        for &p in &back {
            c.largest[p] = c.largest[p].max(fb_wire);
        }
        let per = f64::from(res.feedback_every.max(1));
        let fb = TokenBucket::paced(fb_wire, data.rate_bps * fb_wire / (wire * per));
        c.data.push((wire, per));
        c.streams.push((data, fwd));
        feedback.push((fb, back));
    }
    // Feedback after the data: its burst follows the data's at arrival.
    c.streams.extend(feedback);
    c
}

/// Feeds each feedback stream the data's burst at its receiver, from
/// `bounds`; whether any burst grew.
fn feed_back(c: &mut Curves, bounds: &[PortBound], fb_wire: f64) -> bool {
    let mut grew = false;
    let n = c.data.len();
    for i in 0..n {
        let (data, fwd) = &c.streams[i];
        let delay_ps: i64 = fwd
            .iter()
            .map(|&p| match bounds[p] {
                PortBound::Bounded { delay_ps, .. } => delay_ps,
                _ => 0,
            })
            .sum();
        let (k, (wire, per)) = (n + i, c.data[i]);
        let arrived = data.burst_bytes + data.rate_bps * delay_ps as f64 / 8.0 / PS_PER_SEC as f64;
        let pkts = (arrived / wire).ceil();
        let burst = fb_wire * (1.0 + (pkts / per).ceil());
        if burst > c.streams[k].0.burst_bytes * (1.0 + SLACK) {
            c.streams[k].0.burst_bytes = burst;
            grew = true;
        }
    }
    grew
}

/// What port `p` serves at, b/s ([`crate::net::Network::serving_rate`]):
/// a shaped port is the slower, conservative server.
fn service_rate(sim: &Simulation, p: usize) -> f64 {
    sim.net.serving_rate(p as PortId).get() as f64
}

/// The bounds of every port the streams cross.
fn bounds(sim: &Simulation, c: &mut Curves) -> Vec<PortBound> {
    let servers: Vec<RateLatency> = (0..sim.net.ports.len())
        .map(|p| RateLatency::for_port(service_rate(sim, p), c.largest[p]))
        .collect();
    let fb_wire =
        (UDP_IP_HEADER as usize + Feedback::WIRE_BYTES) as f64 + sim.framing().get() as f64;
    let mut b = port_bounds(&c.streams, &servers);
    // Feedback shares ports with data only on two-way paths; a few rounds
    // reach the fixed point there (bursts only grow).
    for _ in 0..8 {
        if !feed_back(c, &b, fb_wire) {
            break;
        }
        b = port_bounds(&c.streams, &servers);
    }
    b
}

fn rows(sim: &Simulation) -> Vec<Row> {
    let Some(watch) = sim.watch.as_deref() else {
        return Vec::new();
    };
    let mut c = curves(sim);
    if c.streams.is_empty() {
        return Vec::new();
    }
    let b = bounds(sim, &mut c);
    let other = unreserved_ports(sim);
    // Per port, the streams crossing it: one pass over the paths.
    let mut crossing: Vec<Vec<usize>> = vec![Vec::new(); b.len()];
    for (s, (_, ports)) in c.streams.iter().enumerate() {
        for &p in ports {
            crossing[p].push(s);
        }
    }
    let mut out = Vec::new();
    for (p, (bound, users)) in b.iter().zip(&crossing).enumerate() {
        if users.is_empty() {
            continue;
        }
        let rate = service_rate(sim, p);
        let sum_u = users.iter().map(|&s| c.streams[s].0.rate_bps).sum::<f64>() / rate;
        let max_backlog = watch.max_backlog_bytes(p) as f64;
        let max_delay_us = watch.max_delay(p).as_secs_f64() * 1e6;
        let (backlog_bound, delay_bound_us, mut status) = match *bound {
            PortBound::Bounded {
                backlog_bytes,
                delay_ps,
            } => (backlog_bytes, delay_ps as f64 / 1e6, "ok"),
            PortBound::Unstable { .. } | PortBound::UpstreamUnstable { .. } => {
                (f64::INFINITY, f64::INFINITY, "unstable")
            }
            PortBound::Cyclic | PortBound::Unused => (f64::NAN, f64::NAN, "cyclic"),
        };
        if other.contains(&p) {
            status = "unreserved traffic";
        } else if status == "ok"
            && (max_backlog > backlog_bound * (1.0 + SLACK)
                || max_delay_us > delay_bound_us * (1.0 + SLACK))
        {
            status = "violated";
        }
        out.push(Row {
            port: p,
            streams: users.len(),
            sum_u,
            backlog_bound,
            max_backlog,
            delay_bound_us,
            max_delay_us,
            status,
        });
    }
    out
}

impl Collector for PortBounds {
    fn name(&self) -> &'static str {
        "port_bounds"
    }

    fn table(&self, sim: &Simulation) -> Option<Table> {
        let rows = rows(sim);
        if rows.is_empty() {
            return None;
        }
        let name = |p: usize| {
            let port = &sim.net.ports[p];
            let n = |x: u32| sim.net.nodes[x as usize].name.as_str();
            format!("{}:{}", n(port.node), n(port.peer))
        };
        let mut t = Table::new();
        t.push(
            "port",
            Column::Str(rows.iter().map(|r| name(r.port)).collect()),
        )
        .push(
            "streams",
            Column::I64(rows.iter().map(|r| r.streams as i64).collect()),
        )
        .push("sum_u", Column::F64(rows.iter().map(|r| r.sum_u).collect()))
        .push(
            "backlog_bound_bytes",
            Column::F64(rows.iter().map(|r| r.backlog_bound).collect()),
        )
        .push(
            "max_backlog_bytes",
            Column::F64(rows.iter().map(|r| r.max_backlog).collect()),
        )
        .push(
            "delay_bound_us",
            Column::F64(rows.iter().map(|r| r.delay_bound_us).collect()),
        )
        .push(
            "max_delay_us",
            Column::F64(rows.iter().map(|r| r.max_delay_us).collect()),
        )
        .push(
            "status",
            Column::Str(rows.iter().map(|r| r.status.to_string()).collect()),
        );
        Some(t)
    }

    fn summary(&self, sim: &Simulation, out: &mut Summary) {
        if sim.endpoints.iter().all(|e| e.as_radon().is_none()) {
            return;
        }
        let violations = rows(sim).iter().filter(|r| r.status == "violated").count();
        out.push(("bound_violations".into(), Value::Int(violations as i64)));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::spec::Scenario;
    use crate::units::Time;

    fn ran() -> Simulation {
        let sc = Scenario::from_toml_str(
            r#"
duration = "20ms"
[topology]
kind = "star"
hosts = 3
rate = "1Gbps"
delay = "1us"
[[workload]]
kind = "udp"
transport = "radon"
src = "h1"
dst = "h0"
rate = "400Mbps"
packet_size = "1500B"
[[workload]]
kind = "udp"
transport = "radon"
src = "h2"
dst = "h0"
rate = "400Mbps"
packet_size = "1500B"
"#,
        )
        .unwrap();
        let mut sim = crate::spec::build(&sc, None).unwrap();
        sim.run_with_progress(&mut |_| {});
        sim
    }

    #[test]
    fn a_backlog_above_its_bound_is_a_violation_not_a_number() {
        let mut sim = ran();
        let ok = rows(&sim);
        let at = ok
            .iter()
            .position(|r| sim_name(&sim, r.port) == "sw:h0")
            .unwrap();
        assert_eq!(ok[at].status, "ok");
        // Two paced streams of one 1500-byte packet each, grown by their
        // rate over the sender's NIC's delay bound (12 µs latency + 12 µs
        // for its burst): 2 × (1500 + 407.6 Mb/s × 24 µs) + 815.2 Mb/s ×
        // 12 µs of the switch port's latency.
        let expect = 2.0 * (1500.0 + 407.608_7e6 * 24e-6 / 8.0) + 815.217_4e6 * 12e-6 / 8.0;
        assert!(
            (ok[at].backlog_bound - expect).abs() < 1.0,
            "{}",
            ok[at].backlog_bound
        );
        assert!(ok[at].max_backlog >= 1500.0);
        let port = ok[at].port;
        let over = ok[at].backlog_bound as u64 + 1;
        sim.watch
            .as_deref_mut()
            .unwrap()
            .enqueued(port, 0, Time::ZERO, over, false);
        let bad = rows(&sim);
        assert_eq!(bad[at].status, "violated");
        let mut summary = Summary::new();
        PortBounds.summary(&sim, &mut summary);
        assert_eq!(
            summary,
            vec![("bound_violations".to_string(), Value::Int(1))]
        );
    }

    fn sim_name(sim: &Simulation, p: usize) -> String {
        let port = &sim.net.ports[p];
        let n = |x: u32| sim.net.nodes[x as usize].name.clone();
        format!("{}:{}", n(port.node), n(port.peer))
    }
}
