//! The flows table: one row per endpoint that has one (each TCP connection,
//! seen from its data sender: [`crate::transport::Endpoint::flow_record`]);
//! and the summary's totals over all endpoints (timeouts, UDP datagrams).

use super::{secs, Collector, Column, Summary, Table, Value};
use crate::sim::Simulation;
use crate::transport::Totals;

pub struct Flows;

impl Collector for Flows {
    fn name(&self) -> &'static str {
        "flows"
    }

    fn table(&self, sim: &Simulation) -> Table {
        let end = sim.end_time();
        let name = |n: u32| sim.net.nodes[n as usize].name.clone();
        let n = sim.endpoints.len();
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
        let (mut to_rtx, mut to_tail, mut to_win) = (ints(), ints(), ints());
        let (mut sack, mut mss) = (ints(), ints());
        let (mut txq, mut txq_moves) = (ints(), ints());
        for (i, e) in sim.endpoints.iter().enumerate() {
            let Some(r) = e.flow_record(end, &sim.net) else {
                continue;
            };
            let app = e.app();
            let w = &sim.workloads[app.workload as usize];
            let done = w.flow_end(app.index);
            flow_id.push(i as i64);
            workload.push(app.workload as i64);
            kind.push(w.kind_name().to_string());
            ccs.push(r.cc);
            sack.push(i64::from(r.sack));
            mss.push(i64::from(r.mss));
            outcome.push(
                if r.aborted {
                    "aborted"
                } else if done.is_some() {
                    "complete"
                } else {
                    "incomplete"
                }
                .to_string(),
            );
            src.push(name(r.src));
            dst.push(name(r.dst));
            let st = r.opened.unwrap_or(w.start_time());
            start.push(secs(st));
            fin.push(done.map_or(f64::NAN, secs));
            let b = r.bytes_delivered;
            bytes.push(b as i64);
            let span = done.unwrap_or(end).saturating_sub(st);
            goodput.push(if span.0 > 0 {
                b as f64 * 8.0 / secs(span)
            } else {
                0.0
            });
            segs.push(r.segments_sent as i64);
            rtx.push(r.retransmits as i64);
            frtx.push(r.fast_retransmits as i64);
            tos.push(r.timeouts as i64);
            to_rtx.push(r.timeouts_retransmission as i64);
            to_tail.push(r.timeouts_tail as i64);
            to_win.push(r.timeouts_window as i64);
            silence.push(secs(r.longest_silence));
            cwnd.push(r.final_cwnd as i64);
            srtt.push(r.srtt.map_or(f64::NAN, secs));
            rto.push(secs(r.rto));
            ecn.push(r.ecn_reductions as i64);
            local.push(r.local_drops as i64);
            let t = r.tuple;
            saddr.push(t.src.to_string());
            daddr.push(t.dst.to_string());
            sport.push(t.sport as i64);
            dport.push(t.dport as i64);
            // The data sender's transmit queue at its host (-1 without a
            // multi-queue NIC), and how often it moved.
            let key = 2 * i as u32 + e.data_side() as u32;
            let q = sim.tx_queue_of(key);
            txq.push(q.map_or(-1, |(_, q, _)| q as i64));
            txq_moves.push(q.map_or(0, |(_, _, m)| m as i64));
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
            .push("timeouts_retransmission", Column::I64(to_rtx))
            .push("timeouts_tail", Column::I64(to_tail))
            .push("timeouts_window", Column::I64(to_win))
            .push("ecn_reductions", Column::I64(ecn))
            .push("longest_silence_s", Column::F64(silence))
            .push("final_cwnd_bytes", Column::I64(cwnd))
            .push("srtt_s", Column::F64(srtt))
            .push("rto_s", Column::F64(rto))
            .push("local_drops", Column::I64(local))
            .push("src_addr", Column::Str(saddr))
            .push("sport", Column::I64(sport))
            .push("dst_addr", Column::Str(daddr))
            .push("dport", Column::I64(dport))
            .push("sack", Column::I64(sack))
            .push("mss_bytes", Column::I64(mss))
            .push("tx_queue", Column::I64(txq))
            .push("tx_queue_moves", Column::I64(txq_moves));
        flows
    }

    fn summary(&self, sim: &Simulation, out: &mut Summary) {
        let mut t = Totals::default();
        for e in &sim.endpoints {
            e.add_totals(&mut t);
        }
        out.push(("total_timeouts".into(), Value::Int(t.timeouts as i64)));
        out.push((
            "timeouts_retransmission".into(),
            Value::Int(t.timeouts_retransmission as i64),
        ));
        out.push(("timeouts_tail".into(), Value::Int(t.timeouts_tail as i64)));
        out.push((
            "timeouts_window".into(),
            Value::Int(t.timeouts_window as i64),
        ));
        // The TCP actually run (a profile or a per-workload setting may differ
        // from what the user typed): congestion controls in name order, and
        // SACK "on", "off" or "mixed"; empty without TCP flows.
        let mut ccs = std::collections::BTreeSet::new();
        let (mut with_sack, mut without_sack) = (false, false);
        for c in sim.endpoints.iter().filter_map(|e| e.tcp_config()) {
            ccs.insert(c.cc.name());
            if c.sack {
                with_sack = true;
            } else {
                without_sack = true;
            }
        }
        let cc: Vec<&str> = ccs.into_iter().collect();
        out.push(("tcp".into(), Value::Str(cc.join(","))));
        let sack = match (with_sack, without_sack) {
            (true, true) => "mixed",
            (true, false) => "on",
            (false, true) => "off",
            (false, false) => "",
        };
        out.push(("sack".into(), Value::Str(sack.into())));
        out.push(("udp_sent".into(), Value::Int(t.udp_sent as i64)));
        out.push(("udp_delivered".into(), Value::Int(t.udp_delivered as i64)));
    }
}
