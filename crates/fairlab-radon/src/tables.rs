//! The run's tables, with the simulator's column names where they mean the
//! same (crates/fairlab-sim/src/metrics/radon.rs), as JSON columns: each
//! table is an object of equal-length arrays (NaN written as null).
//!
//! The receiver returns raw stamps only; the RFD and each model's estimate
//! are recomputed here by running the core's receiver over the records in
//! arrival order. The core is pure, so these are exactly the values the
//! receiver computed.

use crate::config::{Pacing, SendConfig};
use crate::send::Run;
use crate::session::{stamp_ps, Record};
use crate::stamp::StampSource;
use fairlab_radon_core::{Estimate, Receiver};
use serde_json::{json, Value};

/// An ordered set of columns.
#[derive(Default)]
pub struct Table(Vec<(&'static str, Vec<Value>)>);

impl Table {
    fn col(&mut self, name: &'static str) -> &mut Vec<Value> {
        if let Some(i) = self.0.iter().position(|(n, _)| *n == name) {
            return &mut self.0[i].1;
        }
        self.0.push((name, Vec::new()));
        &mut self.0.last_mut().expect("just pushed").1
    }
    fn f(&mut self, name: &'static str, v: f64) {
        let v = if v.is_finite() { json!(v) } else { Value::Null };
        self.col(name).push(v);
    }
    fn i(&mut self, name: &'static str, v: i64) {
        self.col(name).push(json!(v));
    }
    fn s(&mut self, name: &'static str, v: &str) {
        self.col(name).push(json!(v));
    }
    /// The table as a JSON object whose keys keep the columns' order
    /// (serde_json's own map sorts them).
    pub fn to_json(&self) -> String {
        let mut out = String::from("{");
        for (k, (name, col)) in self.0.iter().enumerate() {
            if k > 0 {
                out.push(',');
            }
            out.push_str(&format!("{name:?}:"));
            out.push_str(&Value::Array(col.clone()).to_string());
        }
        out.push('}');
        out
    }
}

/// Percentile (nearest rank) of sorted values.
pub fn percentile(sorted: &[f64], p: f64) -> f64 {
    if sorted.is_empty() {
        return f64::NAN;
    }
    let rank = ((p / 100.0) * sorted.len() as f64).ceil() as usize;
    sorted[rank.clamp(1, sorted.len()) - 1]
}

fn rate_mbps(count: usize, bytes: f64, first_s: f64, last_s: f64) -> f64 {
    if count > 1 && last_s > first_s {
        (count - 1) as f64 * bytes * 8.0 / (last_s - first_s) / 1e6
    } else {
        f64::NAN
    }
}

/// The most frequent stamp source of a stream's records.
fn dominant(records: &[Record]) -> &'static str {
    let mut counts = [0usize; 3];
    for r in records {
        counts[r.source.code() as usize] += 1;
    }
    let best = (0..3).max_by_key(|&i| (counts[i], 3 - i)).unwrap_or(1);
    if counts[best] == 0 {
        return "";
    }
    StampSource::from_code(best as u8).map_or("", |s| s.name())
}

/// The whole result: `streams`, `radon_series`, `pacing`, `trace` (when
/// asked) and `machine`.
pub fn result(cfg: &SendConfig, run: &Run) -> String {
    let mut streams = Table::default();
    let mut series = Table::default();
    let mut pacing = Table::default();
    let total_sent: u64 = run.sessions.iter().map(|s| s.sent()).sum();
    let mut traces = Vec::new();
    for (k, s) in run.sessions.iter().enumerate() {
        let sc = &cfg.streams[k];
        let found = run.collected.iter().find_map(|c| {
            let sum = c.summaries.iter().find(|x| x.id == s.id)?;
            Some((sum, c.records.get(&s.id)?))
        });
        let empty = Vec::new();
        let (summary, records) = match found {
            Some((sum, recs)) => (Some(sum), recs),
            None => (None, &empty),
        };
        let lateness = pacing_rows(&mut pacing, s, cfg, run);
        let row = StreamRow {
            k,
            lateness,
            cpu_s: run.cpu_ns as f64 / 1e9 * s.sent() as f64 / total_sent.max(1) as f64,
        };
        stream_row(&mut streams, cfg, run, &row, summary, records);
        series_rows(&mut series, s.id, sc.receiver, records, run);
        if cfg.trace {
            traces.push(json!({
                "flow_id": s.id,
                "sender": sc.sender,
                "receiver": sc.receiver,
                "start_ps": (sc.start_s * 1e12).round() as i64,
                "receiver_events": summary.and_then(|x| x.trace.clone()).unwrap_or_default(),
                "sender_events": s.trace.clone().unwrap_or_default(),
            }));
        }
    }
    let mut out = format!(
        r#"{{"streams":{},"radon_series":{},"pacing":{},"machine":{}"#,
        streams.to_json(),
        series.to_json(),
        pacing.to_json(),
        machine(run)
    );
    if cfg.trace {
        out.push_str(&format!(r#","trace":{}"#, Value::Array(traces)));
    }
    out.push('}');
    out
}

fn machine(run: &Run) -> Value {
    let sent: u64 = run.sessions.iter().map(|s| s.sent()).sum();
    let mut sources: Vec<&str> = run
        .collected
        .iter()
        .flat_map(|c| c.records.values())
        .map(|r| dominant(r))
        .filter(|s| !s.is_empty())
        .collect();
    sources.sort();
    sources.dedup();
    json!({
        "pacing": match run.chosen.mode { Pacing::Hybrid => "hybrid", _ => "busy" },
        "pacing_why": run.chosen.why,
        "txtime": run.chosen.txtime,
        "stamp_source": sources.join("+"),
        "cores": crate::pacing::cores(),
        "cpu_pinned": run.cpu_pinned,
        "rt_priority": run.rt_priority,
        "sender_cpu_s": run.cpu_ns as f64 / 1e9,
        "datagrams_sent": sent,
        "send_errors": run.local_drops.iter().sum::<u64>(),
        "malformed_at_receivers": run.collected.iter().map(|c| c.malformed).sum::<u64>(),
    })
}

struct StreamRow {
    k: usize,
    lateness: [f64; 3],
    cpu_s: f64,
}

fn stream_row(
    t: &mut Table,
    cfg: &SendConfig,
    run: &Run,
    row: &StreamRow,
    summary: Option<&crate::control::StreamSummary>,
    records: &[Record],
) {
    let s = &run.sessions[row.k];
    let sc = &cfg.streams[row.k];
    let payload = sc.payload_bytes as f64;
    let sent_s: Vec<f64> = s.pacing.iter().map(|p| p.sent_ps as f64 / 1e12).collect();
    let (first, last) = (
        sent_s.first().copied().unwrap_or(f64::NAN),
        sent_s.last().copied().unwrap_or(f64::NAN),
    );
    let received = summary.map_or(0, |x| x.received);
    let lost = s.sent().saturating_sub(received);
    t.i("flow_id", i64::from(s.id));
    t.f(
        "send_rate_mbps",
        rate_mbps(sent_s.len(), payload, first, last),
    );
    t.i("num_sent", s.sent() as i64);
    t.i("num_recv", received as i64);
    t.i("num_lost", lost as i64);
    t.f(
        "pct_lost",
        if s.sent() > 0 {
            100.0 * lost as f64 / s.sent() as f64
        } else {
            f64::NAN
        },
    );
    let recv_first = records.first().map_or(f64::NAN, |r| r.recv_ns as f64 / 1e9);
    let recv_last = records.last().map_or(f64::NAN, |r| r.recv_ns as f64 / 1e9);
    t.f(
        "recv_rate_mbps",
        rate_mbps(records.len(), payload, recv_first, recv_last),
    );
    let mean_wait = s.wait_sum_ns as f64 / s.sent().max(1) as f64 / 1e3;
    t.f(
        "mean_wait_us",
        if s.sent() > 0 { mean_wait } else { f64::NAN },
    );
    t.f("final_wait_us", s.sender().wait_ps() as f64 / 1e6);
    t.f("start_s", first);
    t.f("stop_s", last);
    t.f("utilization", sc.sender.reservation.utilization);
    t.f("period_us", sc.sender.reservation.period_ps as f64 / 1e6);
    t.i("local_drops", run.local_drops[row.k] as i64);
    t.i(
        "feedback_sent",
        summary.map_or(0, |x| x.feedback_sent) as i64,
    );
    t.i("feedback_received", s.feedback_received as i64);
    t.s("stamp_source", dominant(records));
    t.s(
        "pacing",
        match run.chosen.mode {
            Pacing::Hybrid => "hybrid",
            _ => "busy",
        },
    );
    t.f("late_p50_us", row.lateness[0]);
    t.f("late_p99_us", row.lateness[1]);
    t.f("late_max_us", row.lateness[2]);
    t.f("cpu_s", row.cpu_s);
}

/// The stream's pacing rows; returns its lateness p50, p99, max (µs).
fn pacing_rows(
    t: &mut Table,
    s: &crate::session::SendSession,
    _cfg: &SendConfig,
    _run: &Run,
) -> [f64; 3] {
    let mut late = Vec::with_capacity(s.pacing.len());
    for p in &s.pacing {
        let late_us = (p.sent_ps - p.intended_ps) as f64 / 1e6;
        late.push(late_us);
        t.i("flow_id", i64::from(s.id));
        t.i("frame", p.frame as i64);
        t.f("intended_s", p.intended_ps as f64 / 1e12);
        t.f("sent_s", p.sent_ps as f64 / 1e12);
        t.f("late_us", late_us);
    }
    late.sort_by(f64::total_cmp);
    [
        percentile(&late, 50.0),
        percentile(&late, 99.0),
        late.last().copied().unwrap_or(f64::NAN),
    ]
}

fn depth(e: Option<Estimate>) -> f64 {
    e.map_or(f64::NAN, |e| e.depth_pkts)
}

fn trend(e: Option<Estimate>) -> &'static str {
    e.map_or("", |e| e.trend.name())
}

/// The per-datagram series: the core's receiver rerun over the records.
fn series_rows(
    t: &mut Table,
    id: u32,
    rc: fairlab_radon_core::ReceiverConfig,
    records: &[Record],
    run: &Run,
) {
    let (t0_real_ns, epoch) = (run.t0_real_ns, run.epoch_ns);
    let mut rx = Receiver::new(rc);
    let (mut basic, mut pathload, mut median5) = (None, None, None);
    for r in records {
        let (sent_ps, recv_ps) = (stamp_ps(r.sent_ns, epoch), stamp_ps(r.recv_ns, epoch));
        let (obs, _) = rx.on_datagram(r.frame, sent_ps, recv_ps);
        basic = obs.basic.or(basic);
        pathload = obs.pathload.or(pathload);
        median5 = obs.median5.or(median5);
        t.i("flow_id", i64::from(id));
        t.i("frame", r.frame as i64);
        t.f("sent_s", (r.sent_ns - t0_real_ns) as f64 / 1e9);
        t.f("recv_s", (r.recv_ns - t0_real_ns) as f64 / 1e9);
        t.f("rfd_us", obs.rfd_ps.map_or(f64::NAN, |v| v as f64 / 1e6));
        t.f("owd_us", (r.recv_ns - r.sent_ns) as f64 / 1e3);
        t.f("basic_pkts", depth(basic));
        t.f("pathload_pkts", depth(pathload));
        t.f("median5_pkts", depth(median5));
        t.s("trend", trend(median5));
        t.s("pathload_trend", trend(pathload));
        t.f("wait_us", r.wait_ns as f64 / 1e3);
        t.s("stamp_source", r.source.name());
    }
}
