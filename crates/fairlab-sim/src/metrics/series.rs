//! Time series, recorded only when the scenario asks: per-flow delivered
//! bytes per bin, and switch-port occupancy samples.

use super::{secs, Collector, Column, Table};
use crate::sim::Simulation;

pub struct FlowSeries;

impl Collector for FlowSeries {
    fn name(&self) -> &'static str {
        "flow_series"
    }

    fn table(&self, sim: &Simulation) -> Option<Table> {
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
        let mut table = Table::new();
        table
            .push("t_s", Column::F64(t))
            .push("flow_id", Column::I64(f))
            .push("bytes", Column::I64(b))
            .push("throughput_bps", Column::F64(tp));
        Some(table)
    }
}

pub struct QueueSeries;

impl Collector for QueueSeries {
    fn name(&self) -> &'static str {
        "queue_series"
    }

    fn table(&self, sim: &Simulation) -> Option<Table> {
        let net = &sim.net;
        let name = |n: u32| net.nodes[n as usize].name.clone();
        let (mut t, mut nd, mut pr, mut b, mut k) = (vec![], vec![], vec![], vec![], vec![]);
        for &(time, p, bytes, pkts) in &sim.series.queue_samples {
            let port = &net.ports[p as usize];
            t.push(secs(time));
            nd.push(name(port.node));
            pr.push(name(port.peer));
            b.push(bytes as i64);
            k.push(pkts as i64);
        }
        let mut table = Table::new();
        table
            .push("t_s", Column::F64(t))
            .push("node", Column::Str(nd))
            .push("peer", Column::Str(pr))
            .push("bytes", Column::I64(b))
            .push("pkts", Column::I64(k));
        Some(table)
    }
}
