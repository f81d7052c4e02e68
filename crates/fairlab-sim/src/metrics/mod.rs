//! What a run measured, as columnar tables: flows, incast rounds, switch and
//! NIC ports, and (when asked) per-flow throughput and queue time series.

mod table;

pub use table::{Column, Fnv64, Table};

use crate::net::NodeKind;
use crate::queue::QueueDiscipline;
use crate::sim::Simulation;
use crate::workload::Workload;

/// A scalar of the run summary.
#[derive(Clone, Debug, PartialEq)]
pub enum Value {
    Int(i64),
    Float(f64),
    Str(String),
}

#[derive(Clone, Debug, Default)]
pub struct RunResult {
    pub summary: Vec<(String, Value)>,
    pub tables: Vec<(String, Table)>,
}

impl RunResult {
    pub fn table(&self, name: &str) -> &Table {
        &self.tables.iter().find(|t| t.0 == name).expect("table").1
    }
    pub fn get(&self, name: &str) -> Option<&Value> {
        self.summary.iter().find(|s| s.0 == name).map(|s| &s.1)
    }
    pub fn float(&self, name: &str) -> f64 {
        match self.get(name) {
            Some(Value::Float(f)) => *f,
            Some(Value::Int(i)) => *i as f64,
            _ => f64::NAN,
        }
    }
    pub fn int(&self, name: &str) -> i64 {
        match self.get(name) {
            Some(Value::Int(i)) => *i,
            _ => panic!("no int {name}"),
        }
    }
    pub fn digest(&self) -> String {
        match self.get("digest") {
            Some(Value::Str(s)) => s.clone(),
            _ => String::new(),
        }
    }
}

fn secs(t: crate::units::Time) -> f64 {
    t.as_secs_f64()
}

/// Gathers the tables and summary of a finished simulation.
pub fn collect(sim: &Simulation) -> RunResult {
    let end = sim.end_time();
    let net = &sim.net;
    let name = |n: u32| net.nodes[n as usize].name.clone();

    // Flows: one row per connection, seen from its data sender.
    let mut flows = Table::new();
    {
        let n = sim.conns.len();
        let mut flow_id = Vec::with_capacity(n);
        let mut workload = Vec::with_capacity(n);
        let mut kind = Vec::with_capacity(n);
        let (mut src, mut dst) = (Vec::with_capacity(n), Vec::with_capacity(n));
        let (mut start, mut fin) = (Vec::with_capacity(n), Vec::with_capacity(n));
        let (mut bytes, mut goodput) = (Vec::with_capacity(n), Vec::with_capacity(n));
        let (mut segs, mut rtx, mut frtx, mut tos) = (vec![], vec![], vec![], vec![]);
        let (mut silence, mut cwnd, mut srtt, mut rto) = (vec![], vec![], vec![], vec![]);
        let (mut ccs, mut outcome, mut ecn) = (vec![], vec![], vec![]);
        let (mut local, mut saddr, mut daddr) = (vec![], vec![], vec![]);
        let (mut sport, mut dport) = (vec![], vec![]);
        for (i, c) in sim.conns.iter().enumerate() {
            let w = &sim.workloads[c.app.workload as usize];
            let s = c.sender();
            let r = c.receiver();
            flow_id.push(i as i64);
            workload.push(c.app.workload as i64);
            let (k, done) = match w {
                Workload::Incast(inc) => (
                    "incast",
                    if inc.finished {
                        inc.records.last().map(|r| r.end)
                    } else {
                        None
                    },
                ),
                Workload::Bulk(b) => ("bulk", b.end),
                Workload::Short(w) => ("short", w.end[c.app.index as usize]),
                Workload::Udp(_) => unreachable!("UDP flows have no connection"),
            };
            kind.push(k.to_string());
            ccs.push(s_cc_name(c));
            outcome.push(
                if c.sock[0].aborted() || c.sock[1].aborted() {
                    "aborted"
                } else if done.is_some() {
                    "complete"
                } else {
                    "incomplete"
                }
                .to_string(),
            );
            let (snode, dnode) = sender_receiver_nodes(sim, i);
            src.push(name(snode));
            dst.push(name(dnode));
            let st = c.opened.unwrap_or(w.start_time());
            start.push(secs(st));
            fin.push(done.map_or(f64::NAN, secs));
            let b = r.stats.bytes_received;
            bytes.push(b as i64);
            let span = done.unwrap_or(end).saturating_sub(st);
            goodput.push(if span.0 > 0 {
                b as f64 * 8.0 / secs(span)
            } else {
                0.0
            });
            segs.push(s.stats.data_segments_sent as i64);
            rtx.push(s.stats.retransmits as i64);
            frtx.push(s.stats.fast_retransmits as i64);
            tos.push(s.stats.timeouts as i64);
            silence.push(secs(s.longest_silence_at(end)));
            cwnd.push(s.cwnd() as i64);
            srtt.push(s.srtt().map_or(f64::NAN, secs));
            rto.push(secs(s.rto()));
            ecn.push(s.stats.ecn_reductions as i64);
            local.push(s.stats.local_drops as i64);
            let t = s.tuple().expect("every flow is named");
            saddr.push(t.src.to_string());
            daddr.push(t.dst.to_string());
            sport.push(t.sport as i64);
            dport.push(t.dport as i64);
        }
        flows
            .push("flow_id", Column::I64(flow_id))
            .push("workload", Column::I64(workload))
            .push("kind", Column::Str(kind))
            .push("cc", Column::Str(ccs))
            .push("outcome", Column::Str(outcome))
            .push("src", Column::Str(src))
            .push("dst", Column::Str(dst))
            .push("start_s", Column::F64(start))
            .push("end_s", Column::F64(fin))
            .push("bytes_delivered", Column::I64(bytes))
            .push("goodput_bps", Column::F64(goodput))
            .push("segments_sent", Column::I64(segs))
            .push("retransmits", Column::I64(rtx))
            .push("fast_retransmits", Column::I64(frtx))
            .push("timeouts", Column::I64(tos))
            .push("ecn_reductions", Column::I64(ecn))
            .push("longest_silence_s", Column::F64(silence))
            .push("final_cwnd_bytes", Column::I64(cwnd))
            .push("srtt_s", Column::F64(srtt))
            .push("rto_s", Column::F64(rto))
            .push("local_drops", Column::I64(local))
            .push("src_addr", Column::Str(saddr))
            .push("sport", Column::I64(sport))
            .push("dst_addr", Column::Str(daddr))
            .push("dport", Column::I64(dport));
    }

    // Rounds of every incast workload.
    let mut rounds = Table::new();
    let mut incast_bytes = 0u64;
    let mut incast_time = 0.0f64;
    let mut rounds_completed = 0i64;
    let mut has_incast = false;
    {
        let (mut wl, mut rd, mut st, mut en, mut du) = (vec![], vec![], vec![], vec![], vec![]);
        let (mut by, mut gp, mut slow, mut to) = (vec![], vec![], vec![], vec![]);
        for (wi, w) in sim.workloads.iter().enumerate() {
            if let Workload::Incast(inc) = w {
                has_incast = true;
                for r in &inc.records {
                    let d = secs(r.end - r.start);
                    wl.push(wi as i64);
                    rd.push(r.round as i64);
                    st.push(secs(r.start));
                    en.push(secs(r.end));
                    du.push(d);
                    by.push(r.bytes as i64);
                    gp.push(if d > 0.0 {
                        r.bytes as f64 * 8.0 / d
                    } else {
                        0.0
                    });
                    slow.push(name(inc.servers[r.slowest as usize]));
                    to.push(r.timeouts as i64);
                    incast_bytes += r.bytes;
                    incast_time += d;
                    rounds_completed += 1;
                }
            }
        }
        rounds
            .push("workload", Column::I64(wl))
            .push("round", Column::I64(rd))
            .push("start_s", Column::F64(st))
            .push("end_s", Column::F64(en))
            .push("duration_s", Column::F64(du))
            .push("bytes", Column::I64(by))
            .push("goodput_bps", Column::F64(gp))
            .push("slowest_server", Column::Str(slow))
            .push("timeouts", Column::I64(to));
    }

    // Ports.
    let mut ports = Table::new();
    {
        let (mut node, mut peer, mut nk, mut lim) = (vec![], vec![], vec![], vec![]);
        let mut cols: [Vec<i64>; 15] = Default::default();
        for p in &net.ports {
            node.push(name(p.node));
            peer.push(name(p.peer));
            nk.push(
                match net.nodes[p.node as usize].kind {
                    NodeKind::Switch => "switch",
                    NodeKind::Host => "host",
                }
                .to_string(),
            );
            lim.push(p.queue.limit_label());
            let s = &p.stats;
            let h = p.queue.hcf_stats();
            for (c, v) in cols.iter_mut().zip([
                s.enq_pkts,
                s.enq_bytes,
                s.deq_pkts,
                s.deq_bytes,
                s.drop_pkts,
                s.drop_bytes,
                s.max_bytes,
                s.max_pkts,
                p.queue.marks(),
                s.reordered,
                s.timeout_rtx_pkts,
                s.timeout_rtx_drops,
                h.periods,
                h.hp_pkts,
                h.lp_pkts,
            ]) {
                c.push(v as i64);
            }
        }
        // Time-averaged occupancy over the run (the standing queue).
        let span = end.0.max(1) as f64;
        let mut avg_pkts = Vec::new();
        let mut avg_bytes = Vec::new();
        for p in &net.ports {
            let mut st = p.stats;
            st.integrate(
                end.max(st.last_change),
                p.queue.packets() as u64,
                p.queue.bytes(),
            );
            avg_pkts.push(st.area_pkts as f64 / span);
            avg_bytes.push(st.area_bytes as f64 / span);
        }
        ports
            .push("node", Column::Str(node))
            .push("peer", Column::Str(peer))
            .push("node_kind", Column::Str(nk))
            .push("limit", Column::Str(lim));
        let names = [
            "enq_pkts",
            "enq_bytes",
            "deq_pkts",
            "deq_bytes",
            "drop_pkts",
            "drop_bytes",
            "max_bytes",
            "max_pkts",
            "mark_pkts",
            "reordered_pkts",
            "timeout_rtx_pkts",
            "timeout_rtx_drops",
            "hcf_periods",
            "hcf_hp_pkts",
            "hcf_lp_pkts",
        ];
        for (n, c) in names.iter().zip(cols) {
            ports.push(n, Column::I64(c));
        }
        ports
            .push("avg_pkts", Column::F64(avg_pkts))
            .push("avg_bytes", Column::F64(avg_bytes));
    }

    // Time series.
    let mut flow_series = Table::new();
    {
        let (mut t, mut f, mut b, mut tp) = (vec![], vec![], vec![], vec![]);
        if let Some(bin) = sim.series.throughput_bin {
            let w = secs(bin);
            for (ci, bins) in sim.series.flow_bins.iter().enumerate() {
                for (k, &v) in bins.iter().enumerate() {
                    t.push(k as f64 * w);
                    f.push(ci as i64);
                    b.push(v as i64);
                    tp.push(v as f64 * 8.0 / w);
                }
            }
        }
        flow_series
            .push("t_s", Column::F64(t))
            .push("flow_id", Column::I64(f))
            .push("bytes", Column::I64(b))
            .push("throughput_bps", Column::F64(tp));
    }
    let mut queue_series = Table::new();
    {
        let (mut t, mut nd, mut pr, mut b, mut k) = (vec![], vec![], vec![], vec![], vec![]);
        for &(time, p, bytes, pkts) in &sim.series.queue_samples {
            let port = &net.ports[p as usize];
            t.push(secs(time));
            nd.push(name(port.node));
            pr.push(name(port.peer));
            b.push(bytes as i64);
            k.push(pkts as i64);
        }
        queue_series
            .push("t_s", Column::F64(t))
            .push("node", Column::Str(nd))
            .push("peer", Column::Str(pr))
            .push("bytes", Column::I64(b))
            .push("pkts", Column::I64(k));
    }

    // Per-flow traces of the data senders.
    let mut trace = Table::new();
    {
        let (mut f, mut t, mut cw, mut ss) = (vec![], vec![], vec![], vec![]);
        let (mut sr, mut ro, mut rec, mut al) = (vec![], vec![], vec![], vec![]);
        for (i, c) in sim.conns.iter().enumerate() {
            if let Some(rows) = &c.sender().trace {
                for r in rows {
                    f.push(i as i64);
                    t.push(secs(r.t));
                    cw.push(r.cwnd as i64);
                    // "Arbitrarily high" initial ssthresh (RFC 5681 (3.1)) as -1.
                    ss.push(if r.ssthresh == u64::MAX {
                        -1
                    } else {
                        r.ssthresh as i64
                    });
                    sr.push(r.srtt.map_or(f64::NAN, secs));
                    ro.push(secs(r.rto));
                    rec.push(r.in_recovery as i64);
                    al.push(r.alpha);
                }
            }
        }
        trace
            .push("flow_id", Column::I64(f))
            .push("t_s", Column::F64(t))
            .push("cwnd_bytes", Column::I64(cw))
            .push("ssthresh_bytes", Column::I64(ss))
            .push("srtt_s", Column::F64(sr))
            .push("rto_s", Column::F64(ro))
            .push("in_recovery", Column::I64(rec))
            .push("dctcp_alpha", Column::F64(al));
    }

    let tables = vec![
        ("flows".to_string(), flows),
        ("rounds".to_string(), rounds),
        ("ports".to_string(), ports),
        ("flow_series".to_string(), flow_series),
        ("queue_series".to_string(), queue_series),
        ("trace".to_string(), trace),
    ];
    let mut h = Fnv64::default();
    for (n, t) in &tables {
        h.write(n.as_bytes());
        t.hash_into(&mut h);
    }
    let c = &sim.counters;
    let total_timeouts: u64 = sim.conns.iter().map(|c| c.timeouts()).sum();
    let incast_goodput = if has_incast && incast_time > 0.0 {
        incast_bytes as f64 * 8.0 / incast_time
    } else {
        f64::NAN
    };
    let (mut udp_sent, mut udp_delivered) = (0i64, 0i64);
    for w in &sim.workloads {
        if let Workload::Udp(u) = w {
            udp_sent += u.sent as i64;
            udp_delivered += u.delivered as i64;
        }
    }
    let hcf_bits = net
        .ports
        .iter()
        .filter_map(|p| match &p.queue {
            crate::queue::Queue::Hcf(h) => Some(h.memory_bits() as i64),
            _ => None,
        })
        .max()
        .unwrap_or(0);
    let summary = vec![
        ("seed".into(), Value::Int(sim.seed as i64)),
        ("profile".into(), Value::Str(sim.profile.to_string())),
        ("sim_end_s".into(), Value::Float(secs(end))),
        (
            "events".into(),
            Value::Int(sim.events.events_processed() as i64),
        ),
        ("packets_sent".into(), Value::Int(c.packets_sent as i64)),
        (
            "data_packets_sent".into(),
            Value::Int(c.data_packets_sent as i64),
        ),
        ("packet_hops".into(), Value::Int(c.packet_hops as i64)),
        ("drops".into(), Value::Int(c.drops as i64)),
        ("local_drops".into(), Value::Int(c.local_drops as i64)),
        ("rounds_completed".into(), Value::Int(rounds_completed)),
        ("incast_goodput_bps".into(), Value::Float(incast_goodput)),
        ("total_timeouts".into(), Value::Int(total_timeouts as i64)),
        ("udp_sent".into(), Value::Int(udp_sent)),
        ("udp_delivered".into(), Value::Int(udp_delivered)),
        ("hcf_memory_bits".into(), Value::Int(hcf_bits)),
        ("digest".into(), Value::Str(format!("{:016x}", h.finish()))),
    ];
    RunResult { summary, tables }
}

fn s_cc_name(c: &crate::sim::Conn) -> String {
    let cfg = c.sender().config();
    let mut n = cfg.cc.name().to_string();
    if cfg.sack {
        n.push_str("+sack");
    }
    n
}

/// Data sender and receiver nodes of connection `i`.
fn sender_receiver_nodes(sim: &Simulation, i: usize) -> (u32, u32) {
    let c = &sim.conns[i];
    let (a, b) = c.sock[0].endpoints();
    if c.data_side == 0 {
        (a, b)
    } else {
        (b, a)
    }
}
