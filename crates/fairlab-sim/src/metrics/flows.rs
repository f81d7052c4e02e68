//! The flows table: one row per TCP connection, seen from its data sender;
//! and the summary's flow totals (timeouts, UDP datagrams).

use super::{secs, Collector, Column, Summary, Table, Value};
use crate::sim::{Conn, Simulation};
use crate::workload::Workload;

pub struct Flows;

impl Collector for Flows {
    fn name(&self) -> &'static str {
        "flows"
    }

    fn table(&self, sim: &Simulation) -> Table {
        let end = sim.end_time();
        let name = |n: u32| sim.net.nodes[n as usize].name.clone();
        let n = sim.conns.len();
        let ints = || Vec::<i64>::with_capacity(n);
        let floats = || Vec::<f64>::with_capacity(n);
        let strs = || Vec::<String>::with_capacity(n);
        let (mut flow_id, mut workload, mut bytes) = (ints(), ints(), ints());
        let (mut kind, mut ccs, mut outcome, mut src, mut dst) =
            (strs(), strs(), strs(), strs(), strs());
        let (mut start, mut fin, mut goodput) = (floats(), floats(), floats());
        let (mut segs, mut rtx, mut frtx, mut tos, mut ecn) =
            (ints(), ints(), ints(), ints(), ints());
        let (mut silence, mut srtt, mut rto) = (floats(), floats(), floats());
        let (mut cwnd, mut local, mut sport, mut dport) = (ints(), ints(), ints(), ints());
        let (mut saddr, mut daddr) = (strs(), strs());
        for (i, c) in sim.conns.iter().enumerate() {
            let w = &sim.workloads[c.app.workload as usize];
            let (s, r) = (c.sender(), c.receiver());
            let done = w.flow_end(c.app.index);
            flow_id.push(i as i64);
            workload.push(c.app.workload as i64);
            kind.push(w.kind_name().to_string());
            ccs.push(cc_name(c));
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
            let (snode, dnode) = (s.endpoints().0, r.endpoints().0);
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
        let mut flows = Table::new();
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
        flows
    }

    fn summary(&self, sim: &Simulation, out: &mut Summary) {
        let timeouts: u64 = sim.conns.iter().map(|c| c.timeouts()).sum();
        let (mut sent, mut delivered) = (0i64, 0i64);
        for w in &sim.workloads {
            if let Workload::Udp(u) = w {
                sent += u.sent as i64;
                delivered += u.delivered as i64;
            }
        }
        out.push(("total_timeouts".into(), Value::Int(timeouts as i64)));
        out.push(("udp_sent".into(), Value::Int(sent)));
        out.push(("udp_delivered".into(), Value::Int(delivered)));
    }
}

fn cc_name(c: &Conn) -> String {
    let cfg = c.sender().config();
    let mut n = cfg.cc.name().to_string();
    if cfg.sack {
        n.push_str("+sack");
    }
    n
}
