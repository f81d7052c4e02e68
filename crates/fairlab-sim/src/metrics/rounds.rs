//! The rounds table of incast workloads: one row per completed round; and
//! the summary's incast goodput.

use super::{secs, Collector, Column, Summary, Table, Value};
use crate::sim::Simulation;
use crate::workload::Workload;

pub struct Rounds;

impl Collector for Rounds {
    fn name(&self) -> &'static str {
        "rounds"
    }

    fn table(&self, sim: &Simulation) -> Option<Table> {
        let name = |n: u32| sim.net.nodes[n as usize].name.clone();
        let (mut wl, mut rd, mut st, mut en, mut du) = (vec![], vec![], vec![], vec![], vec![]);
        let (mut by, mut gp, mut slow, mut to) = (vec![], vec![], vec![], vec![]);
        for (wi, w) in sim.workloads.iter().enumerate() {
            let Workload::Incast(inc) = w else { continue };
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
            }
        }
        let mut t = Table::new();
        t.push("workload", Column::I64(wl))
            .push("round", Column::I64(rd))
            .push("start_s", Column::F64(st))
            .push("end_s", Column::F64(en))
            .push("duration_s", Column::F64(du))
            .push("bytes", Column::I64(by))
            .push("goodput_bps", Column::F64(gp))
            .push("slowest_server", Column::Str(slow))
            .push("timeouts", Column::I64(to));
        Some(t)
    }

    fn summary(&self, sim: &Simulation, out: &mut Summary) {
        // Goodput over all completed rounds: their bytes over their summed
        // durations (NaN without an incast workload).
        let (mut bytes, mut time, mut rounds, mut any) = (0u64, 0.0f64, 0i64, false);
        for w in &sim.workloads {
            if let Workload::Incast(inc) = w {
                any = true;
                for r in &inc.records {
                    bytes += r.bytes;
                    time += secs(r.end - r.start);
                    rounds += 1;
                }
            }
        }
        let goodput = if any && time > 0.0 {
            bytes as f64 * 8.0 / time
        } else {
            f64::NAN
        };
        out.push(("rounds_completed".into(), Value::Int(rounds)));
        out.push(("incast_goodput_bps".into(), Value::Float(goodput)));
    }
}
