//! The congestion-state trace of each TCP data sender, when the scenario asks.

use super::{secs, Collector, Column, Table};
use crate::sim::Simulation;

pub struct Trace;

impl Collector for Trace {
    fn name(&self) -> &'static str {
        "trace"
    }

    fn table(&self, sim: &Simulation) -> Option<Table> {
        let (mut f, mut t, mut cw, mut ss) = (vec![], vec![], vec![], vec![]);
        let (mut sr, mut ro, mut rec, mut al) = (vec![], vec![], vec![], vec![]);
        for (i, e) in sim.endpoints.iter().enumerate() {
            let Some(rows) = e.as_tcp().and_then(|c| c.sender().trace()) else {
                continue;
            };
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
        let mut table = Table::new();
        table
            .push("flow_id", Column::I64(f))
            .push("t_s", Column::F64(t))
            .push("cwnd_bytes", Column::I64(cw))
            .push("ssthresh_bytes", Column::I64(ss))
            .push("srtt_s", Column::F64(sr))
            .push("rto_s", Column::F64(ro))
            .push("in_recovery", Column::I64(rec))
            .push("dctcp_alpha", Column::F64(al));
        Some(table)
    }
}
