//! The reads table of NFS read workloads: one row per client, what it read
//! (file bytes in order, READs asked and answered), when its file ended and
//! its goodput. Its connection's own columns (retransmissions, cwnd, the
//! 5-tuple) are the flows table's row of the same `flow_id`, its
//! throughput over time the flow_series rows of that id.

use super::{secs, Collector, Column, Table};
use crate::sim::Simulation;
use crate::workload::Workload;

pub struct Reads;

impl Collector for Reads {
    fn name(&self) -> &'static str {
        "reads"
    }

    fn table(&self, sim: &Simulation) -> Option<Table> {
        let end = sim.end_time();
        let name = |n: u32| sim.net.nodes[n as usize].name.clone();
        let (mut wl, mut fid, mut cl, mut sv) = (vec![], vec![], vec![], vec![]);
        let (mut file, mut io, mut out, mut read) = (vec![], vec![], vec![], vec![]);
        let (mut sent, mut done, mut st, mut en) = (vec![], vec![], vec![], vec![]);
        let (mut gp, mut outcome) = (vec![], vec![]);
        for (wi, w) in sim.workloads.iter().enumerate() {
            let Workload::NfsRead(nfs) = w else { continue };
            let p = &nfs.params;
            for (i, r) in nfs.reads.iter().enumerate() {
                let b = nfs.bytes_read(i);
                let start = nfs.start;
                let stop = r.end.get().unwrap_or(end);
                let span = secs(stop.saturating_sub(start));
                wl.push(wi as i64);
                fid.push(nfs.conns[i] as i64);
                cl.push(name(nfs.clients[i]));
                sv.push(name(nfs.server));
                file.push(p.file_size as i64);
                io.push(p.io_size as i64);
                out.push(i64::from(p.outstanding));
                read.push(b as i64);
                sent.push(r.sent as i64);
                done.push(r.done as i64);
                st.push(secs(start));
                en.push(r.end.get().map_or(f64::NAN, secs));
                gp.push(if span > 0.0 {
                    b as f64 * 8.0 / span
                } else {
                    0.0
                });
                outcome.push(
                    if r.aborted {
                        "aborted"
                    } else if r.end.is_some() {
                        "complete"
                    } else {
                        "incomplete"
                    }
                    .to_string(),
                );
            }
        }
        let mut t = Table::new();
        t.push("workload", Column::I64(wl))
            .push("flow_id", Column::I64(fid))
            .push("client", Column::Str(cl))
            .push("server", Column::Str(sv))
            .push("file_bytes", Column::I64(file))
            .push("io_bytes", Column::I64(io))
            .push("outstanding", Column::I64(out))
            .push("bytes_read", Column::I64(read))
            .push("requests_sent", Column::I64(sent))
            .push("requests_done", Column::I64(done))
            .push("start_s", Column::F64(st))
            .push("end_s", Column::F64(en))
            .push("goodput_bps", Column::F64(gp))
            .push("outcome", Column::Str(outcome));
        Some(t)
    }
}
