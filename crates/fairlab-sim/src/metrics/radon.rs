//! Radon's collectors: the `streams` table (one row per stream, the seed's
//! columns: send rate, received, lost, % lost, receive rate, receive wire
//! rate), the `radon_series` table on request (one row per received
//! datagram: stamps, relative forward delay, the true one-way delay and
//! queueing, each queue model's latest estimate), and the summary's
//! counts. The per-port network-calculus check is `radon_bounds.rs`.
//!
//! Rates are the seed's (UDPmon's): payload bits over the stream's own
//! span, from its first to its last datagram sent (or received), so a
//! stream paced at a fixed wait shows exactly its rate; the wire rate
//! counts every byte each datagram takes on the wire.

use super::{secs, Collector, Column, Summary, Table, Value};
use crate::packet::UDP_IP_HEADER;
use crate::sim::Simulation;
use crate::transport::{RadonFlow, Reserved};
use crate::units::{Bytes, Time};
use fairlab_radon_core::Estimate;

pub struct RadonStreams;

/// Bits per second of `count` datagrams of `bytes` over a span whose ends
/// are the first and the last (NaN for fewer than two).
fn rate_mbps(count: u64, bytes: f64, first: Option<Time>, last: Time) -> f64 {
    match first {
        Some(f) if count > 1 && last > f => {
            (count - 1) as f64 * bytes * 8.0 / (last - f).as_secs_f64() / 1e6
        }
        _ => f64::NAN,
    }
}

/// Every Radon stream with its endpoint id.
fn streams(sim: &Simulation) -> impl Iterator<Item = (usize, &RadonFlow)> {
    sim.endpoints
        .iter()
        .enumerate()
        .filter_map(|(i, e)| e.as_radon().map(|r| (i, r)))
}

impl Collector for RadonStreams {
    fn name(&self) -> &'static str {
        "streams"
    }

    fn table(&self, sim: &Simulation) -> Option<Table> {
        let mut t = StreamColumns::default();
        for (i, r) in streams(sim) {
            t.push(sim, i, r);
        }
        (!t.flow_id.is_empty()).then(|| t.into_table())
    }

    fn summary(&self, sim: &Simulation, out: &mut Summary) {
        let (mut n, mut refused) = (0i64, 0i64);
        for (_, r) in streams(sim) {
            n += 1;
            refused += r.refused.is_some() as i64;
        }
        if n > 0 {
            out.push(("radon_streams".into(), Value::Int(n)));
            out.push(("radon_refused".into(), Value::Int(refused)));
        }
    }
}

#[derive(Default)]
struct StreamColumns {
    flow_id: Vec<i64>,
    workload: Vec<i64>,
    src: Vec<String>,
    dst: Vec<String>,
    admitted: Vec<i64>,
    refused_at: Vec<String>,
    send_rate: Vec<f64>,
    sent: Vec<i64>,
    recv: Vec<i64>,
    lost: Vec<i64>,
    pct_lost: Vec<f64>,
    recv_rate: Vec<f64>,
    recv_wire_rate: Vec<f64>,
    mean_wait: Vec<f64>,
    final_wait: Vec<f64>,
    start: Vec<f64>,
    stop: Vec<f64>,
    utilization: Vec<f64>,
    period: Vec<f64>,
    local_drops: Vec<i64>,
    fb_sent: Vec<i64>,
    fb_recv: Vec<i64>,
}

impl StreamColumns {
    fn push(&mut self, sim: &Simulation, i: usize, r: &RadonFlow) {
        let s = &r.stats;
        let payload = r.size.get().saturating_sub(u64::from(UDP_IP_HEADER)) as f64;
        let wire = r.reserved.map_or(r.size.get(), |x| x.wire_bytes) as f64;
        let name = |n: u32| sim.net.nodes[n as usize].name.clone();
        self.flow_id.push(i as i64);
        self.workload.push(i64::from(r.app.workload));
        self.src.push(name(r.src));
        self.dst.push(name(r.dst));
        self.admitted.push(r.refused.is_none() as i64);
        self.refused_at.push(r.refused.clone().unwrap_or_default());
        self.send_rate
            .push(rate_mbps(s.sent, payload, s.first_send, s.last_send));
        self.sent.push(s.sent as i64);
        self.recv.push(s.received as i64);
        let lost = s.sent.saturating_sub(s.received);
        self.lost.push(lost as i64);
        self.pct_lost.push(if s.sent > 0 {
            100.0 * lost as f64 / s.sent as f64
        } else {
            f64::NAN
        });
        let rx = rate_mbps(s.received, payload, s.first_recv, s.last_recv);
        self.recv_rate.push(rx);
        self.recv_wire_rate.push(rx * wire / payload);
        self.mean_wait.push(if s.sent > 0 {
            s.wait_sum_ns as f64 / s.sent as f64 / 1e3
        } else {
            f64::NAN
        });
        let last_wait = r.sender().map_or(f64::NAN, |x| x.wait_ps() as f64 / 1e6);
        self.final_wait.push(last_wait);
        self.start.push(s.first_send.map_or(f64::NAN, secs));
        self.stop.push(if s.sent > 0 {
            secs(s.last_send)
        } else {
            f64::NAN
        });
        let res = r.reserved;
        self.utilization
            .push(res.map_or(f64::NAN, |x| x.utilization));
        self.period
            .push(res.map_or(f64::NAN, |x| x.period.as_secs_f64() * 1e6));
        self.local_drops.push(s.local_drops as i64);
        self.fb_sent.push(s.feedback_sent as i64);
        self.fb_recv.push(s.feedback_received as i64);
    }

    fn into_table(self) -> Table {
        let mut t = Table::new();
        t.push("flow_id", Column::I64(self.flow_id))
            .push("workload", Column::I64(self.workload))
            .push("src", Column::Str(self.src))
            .push("dst", Column::Str(self.dst))
            .push("admitted", Column::I64(self.admitted))
            .push("refused_at", Column::Str(self.refused_at))
            .push("send_rate_mbps", Column::F64(self.send_rate))
            .push("num_sent", Column::I64(self.sent))
            .push("num_recv", Column::I64(self.recv))
            .push("num_lost", Column::I64(self.lost))
            .push("pct_lost", Column::F64(self.pct_lost))
            .push("recv_rate_mbps", Column::F64(self.recv_rate))
            .push("recv_wire_rate_mbps", Column::F64(self.recv_wire_rate))
            .push("mean_wait_us", Column::F64(self.mean_wait))
            .push("final_wait_us", Column::F64(self.final_wait))
            .push("start_s", Column::F64(self.start))
            .push("stop_s", Column::F64(self.stop))
            .push("utilization", Column::F64(self.utilization))
            .push("period_us", Column::F64(self.period))
            .push("local_drops", Column::I64(self.local_drops))
            .push("feedback_sent", Column::I64(self.fb_sent))
            .push("feedback_received", Column::I64(self.fb_recv));
        t
    }
}

pub struct RadonSeries;

/// A data datagram's time through `r`'s path with no queueing: each hop's
/// serialization (with framing) and propagation.
fn base_owd(sim: &Simulation, r: &RadonFlow) -> Time {
    let (a, b, hash, _, size) = r.path_probe();
    let wire = Bytes(size.get() + sim.framing().get());
    sim.net
        .path_to(a, b, hash)
        .iter()
        .fold(Time::ZERO, |t, &p| {
            let port = &sim.net.ports[p as usize];
            t.saturating_add(port.delay)
                .saturating_add(port.rate.serialization(wire))
        })
}

fn depth(e: Option<Estimate>) -> f64 {
    e.map_or(f64::NAN, |e| e.depth_pkts)
}

fn trend(e: Option<Estimate>) -> String {
    e.map_or(String::new(), |e| e.trend.name().to_string())
}

impl Collector for RadonSeries {
    fn name(&self) -> &'static str {
        "radon_series"
    }

    fn table(&self, sim: &Simulation) -> Option<Table> {
        let mut c = SeriesColumns::default();
        let mut any = false;
        for (i, r) in streams(sim) {
            let Some(rows) = r.series.as_ref() else {
                continue;
            };
            any = true;
            let base = base_owd(sim, r);
            let service = r.reserved.map_or(Time::ZERO, |x| {
                Time((x.wire_bytes as f64 * 8e12 / x.capacity_bps).round() as u64)
            });
            c.push_stream(i, rows, base, service);
        }
        any.then(|| c.into_table())
    }
}

#[derive(Default)]
struct SeriesColumns {
    flow_id: Vec<i64>,
    frame: Vec<i64>,
    sent: Vec<f64>,
    recv: Vec<f64>,
    rfd: Vec<f64>,
    owd: Vec<f64>,
    queue: Vec<f64>,
    basic: Vec<f64>,
    pathload: Vec<f64>,
    median5: Vec<f64>,
    trend: Vec<String>,
    pathload_trend: Vec<String>,
    wait: Vec<f64>,
}

impl SeriesColumns {
    /// Stream `i`'s rows, each model's estimate carried forward from the
    /// datagram that completed it (NaN before its first).
    fn push_stream(
        &mut self,
        i: usize,
        rows: &[crate::transport::SeriesRow],
        base: Time,
        service: Time,
    ) {
        let (mut basic, mut pathload, mut median5) = (None, None, None);
        for row in rows {
            basic = row.basic.or(basic);
            pathload = row.pathload.or(pathload);
            median5 = row.median5.or(median5);
            self.flow_id.push(i as i64);
            self.frame.push(row.frame as i64);
            self.sent.push(secs(row.sent));
            self.recv.push(secs(row.recv));
            self.rfd
                .push(row.rfd_ps.map_or(f64::NAN, |v| v as f64 / 1e6));
            self.owd.push(row.true_owd.as_secs_f64() * 1e6);
            let queued = row.true_owd.saturating_sub(base);
            self.queue.push(if service > Time::ZERO {
                queued.0 as f64 / service.0 as f64
            } else {
                f64::NAN
            });
            self.basic.push(depth(basic));
            self.pathload.push(depth(pathload));
            self.median5.push(depth(median5));
            self.trend.push(trend(median5));
            self.pathload_trend.push(trend(pathload));
            self.wait.push(f64::from(row.wait_ns) / 1e3);
        }
    }

    fn into_table(self) -> Table {
        let mut t = Table::new();
        t.push("flow_id", Column::I64(self.flow_id))
            .push("frame", Column::I64(self.frame))
            .push("sent_s", Column::F64(self.sent))
            .push("recv_s", Column::F64(self.recv))
            .push("rfd_us", Column::F64(self.rfd))
            .push("true_owd_us", Column::F64(self.owd))
            .push("true_queue_pkts", Column::F64(self.queue))
            .push("basic_pkts", Column::F64(self.basic))
            .push("pathload_pkts", Column::F64(self.pathload))
            .push("median5_pkts", Column::F64(self.median5))
            .push("trend", Column::Str(self.trend))
            .push("pathload_trend", Column::Str(self.pathload_trend))
            .push("wait_us", Column::F64(self.wait));
        t
    }
}

/// What the bounds check needs of a stream (`radon_bounds.rs`).
pub(super) fn reserved_streams(sim: &Simulation) -> Vec<(usize, &RadonFlow, Reserved)> {
    streams(sim)
        .filter(|(_, r)| r.refused.is_none())
        .filter_map(|(i, r)| r.reserved.map(|x| (i, r, x)))
        .collect()
}
