//! The ports table: one row per output port (switch ports and host NICs)
//! with its counters, its discipline's own counters, its shaper (if any)
//! and how often it held a packet, and its time-averaged occupancy; and
//! the summary's discipline state size.

use super::{Collector, Column, Summary, Table, Value};
use crate::net::NodeKind;
use crate::queue::{Queue, QueueDiscipline};
use crate::sim::Simulation;

pub struct Ports;

/// The port's own counters, in column order.
const PORT_COUNTERS: [&str; 8] = [
    "enq_pkts",
    "enq_bytes",
    "deq_pkts",
    "deq_bytes",
    "drop_pkts",
    "drop_bytes",
    "max_bytes",
    "max_pkts",
];
/// Counters after the discipline's marks.
const LATER_COUNTERS: [&str; 4] = [
    "reordered_pkts",
    "timeout_rtx_pkts",
    "timeout_rtx_drops",
    "shaper_waits",
];

impl Collector for Ports {
    fn name(&self) -> &'static str {
        "ports"
    }

    fn table(&self, sim: &Simulation) -> Option<Table> {
        let net = &sim.net;
        let end = sim.end_time();
        let name = |n: u32| net.nodes[n as usize].name.clone();
        let (mut node, mut peer, mut nk, mut lim) = (vec![], vec![], vec![], vec![]);
        let mut shaper = Vec::new();
        let mut own: [Vec<i64>; 8] = Default::default();
        let mut marks = Vec::new();
        let mut later: [Vec<i64>; 4] = Default::default();
        let mut disc: Vec<Vec<i64>> = vec![Vec::new(); Queue::COUNTERS.len()];
        let (mut avg_pkts, mut avg_bytes) = (Vec::new(), Vec::new());
        // Time-averaged occupancy over the run: the standing queue.
        let span = end.0.max(1) as f64;
        for (i, p) in net.ports.iter().enumerate() {
            let own_shaper = net.shaper(i as crate::net::PortId);
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
            shaper.push(own_shaper.map_or(String::new(), |s| s.label()));
            let s = &p.stats;
            let values = [
                s.enq_pkts,
                s.enq_bytes,
                s.deq_pkts,
                s.deq_bytes,
                s.drop_pkts,
                s.drop_bytes,
                s.max_bytes,
                s.max_pkts,
            ];
            for (c, v) in own.iter_mut().zip(values) {
                c.push(v as i64);
            }
            marks.push(p.queue.marks() as i64);
            let waits = own_shaper.map_or(0, |s| s.waits);
            for (c, v) in
                later
                    .iter_mut()
                    .zip([s.reordered, s.timeout_rtx_pkts, s.timeout_rtx_drops, waits])
            {
                c.push(v as i64);
            }
            // The discipline's own counters, each in its column; zero in
            // the columns of counters it does not keep.
            for c in disc.iter_mut() {
                c.push(0);
            }
            p.queue.counters(&mut |name, v| {
                let k = Queue::COUNTERS.iter().position(|&n| n == name);
                debug_assert!(k.is_some(), "{name} is not in Queue::COUNTERS");
                if let Some(k) = k {
                    *disc[k].last_mut().expect("pushed above") = v as i64;
                }
            });
            let mut st = p.stats;
            st.integrate(
                end.max(st.last_change),
                p.queue.packets() as u64,
                p.queue.bytes(),
            );
            avg_pkts.push(st.area_pkts.get() as f64 / span);
            avg_bytes.push(st.area_bytes.get() as f64 / span);
        }
        let mut t = Table::new();
        t.push("node", Column::Str(node))
            .push("peer", Column::Str(peer))
            .push("node_kind", Column::Str(nk))
            .push("limit", Column::Str(lim))
            .push("shaper", Column::Str(shaper));
        for (n, c) in PORT_COUNTERS.iter().zip(own) {
            t.push(n, Column::I64(c));
        }
        t.push("mark_pkts", Column::I64(marks));
        for (n, c) in LATER_COUNTERS.iter().zip(later) {
            t.push(n, Column::I64(c));
        }
        for (n, c) in Queue::COUNTERS.iter().zip(disc) {
            t.push(n, Column::I64(c));
        }
        t.push("avg_pkts", Column::F64(avg_pkts))
            .push("avg_bytes", Column::F64(avg_bytes));
        Some(t)
    }

    fn summary(&self, sim: &Simulation, out: &mut Summary) {
        // The largest per-flow state any port's discipline keeps.
        let bits = sim
            .net
            .ports
            .iter()
            .filter_map(|p| p.queue.state_bits())
            .max()
            .unwrap_or(0);
        out.push(("hcf_memory_bits".into(), Value::Int(bits as i64)));
    }
}
