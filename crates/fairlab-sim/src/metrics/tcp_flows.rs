//! TCP's collector: the flows table, one row per TCP connection seen from
//! its data sender, and TCP's totals in the run summary (timeouts by cause,
//! the congestion controls and SACK actually run). Other transports bring
//! their own collectors (`udp_totals`): nothing here is shared with them.

use super::{secs, Collector, Column, Summary, Table, Value};
use crate::sim::Simulation;
use crate::transport::Conn;

pub struct TcpFlows;

/// The TCP connections among the endpoints, with their endpoint index.
fn conns(sim: &Simulation) -> impl Iterator<Item = (usize, &Conn)> {
    sim.endpoints
        .iter()
        .enumerate()
        .filter_map(|(i, e)| Some((i, e.as_tcp()?)))
}

impl Collector for TcpFlows {
    fn name(&self) -> &'static str {
        "flows"
    }

    fn table(&self, sim: &Simulation) -> Option<Table> {
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
        for (i, c) in conns(sim) {
            let (s, r) = (c.sender(), c.receiver());
            let (cfg, st) = (s.config(), &s.stats);
            let app = c.app;
            let w = &sim.workloads[app.workload as usize];
            let done = w.flow_end(app.index);
            flow_id.push(i as i64);
            workload.push(app.workload as i64);
            kind.push(w.kind_name().to_string());
            let mut cc = cfg.cc.name().to_string();
            if cfg.sack {
                cc.push_str("+sack");
            }
            ccs.push(cc);
            sack.push(i64::from(cfg.sack));
            mss.push(i64::from(cfg.mss));
            outcome.push(
                if c.aborted() {
                    "aborted"
                } else if done.is_some() {
                    "complete"
                } else {
                    "incomplete"
                }
                .to_string(),
            );
            src.push(name(s.endpoints().0));
            dst.push(name(r.endpoints().0));
            let opened = c.opened.get().unwrap_or(w.start_time());
            start.push(secs(opened));
            fin.push(done.map_or(f64::NAN, secs));
            let b = r.bytes_received();
            bytes.push(b as i64);
            let span = done.unwrap_or(end).saturating_sub(opened);
            goodput.push(if span.0 > 0 {
                b as f64 * 8.0 / secs(span)
            } else {
                0.0
            });
            segs.push(st.data_segments_sent as i64);
            rtx.push(st.retransmits as i64);
            frtx.push(st.fast_retransmits as i64);
            tos.push(st.timeouts as i64);
            to_rtx.push(st.timeouts_retransmission as i64);
            to_tail.push(st.timeouts_tail as i64);
            to_win.push(st.timeouts_window as i64);
            silence.push(secs(s.longest_silence_at(end)));
            cwnd.push(s.cwnd() as i64);
            srtt.push(s.srtt().map_or(f64::NAN, secs));
            rto.push(secs(s.rto()));
            ecn.push(st.ecn_reductions as i64);
            local.push(st.local_drops as i64);
            let t = c
                .tuple(c.data_side(), &sim.net)
                .expect("every flow is named");
            saddr.push(t.src.to_string());
            daddr.push(t.dst.to_string());
            sport.push(t.sport as i64);
            dport.push(t.dport as i64);
            // The data sender's transmit queue at its host (-1 without a
            // multi-queue NIC), and how often it moved.
            let key = 2 * i as u32 + c.data_side() as u32;
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
        Some(flows)
    }

    fn summary(&self, sim: &Simulation, out: &mut Summary) {
        // Timeouts of both sides, and the data senders' by cause.
        let (mut total, mut by_cause) = (0u64, [0u64; 3]);
        for (_, c) in conns(sim) {
            total += c.timeouts();
            let s = &c.sender().stats;
            by_cause[0] += s.timeouts_retransmission;
            by_cause[1] += s.timeouts_tail;
            by_cause[2] += s.timeouts_window;
        }
        out.push(("total_timeouts".into(), Value::Int(total as i64)));
        let causes = [
            "timeouts_retransmission",
            "timeouts_tail",
            "timeouts_window",
        ];
        for (name, n) in causes.iter().zip(by_cause) {
            out.push((name.to_string(), Value::Int(n as i64)));
        }
        // The TCP actually run (a profile or a per-workload setting may differ
        // from what the user typed): congestion controls in name order, and
        // SACK "on", "off" or "mixed"; empty without TCP flows.
        let mut ccs = std::collections::BTreeSet::new();
        let (mut with_sack, mut without_sack) = (false, false);
        for c in conns(sim).map(|(_, c)| c.sender().config()) {
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
    }
}
