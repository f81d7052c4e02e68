//! UDP's collector: no per-flow rows (a datagram flow has no congestion
//! state to report), only the run summary's datagrams sent and delivered
//! over every UDP flow.

use super::{Collector, Summary, Table, Value};
use crate::sim::Simulation;

pub struct UdpTotals;

impl Collector for UdpTotals {
    fn name(&self) -> &'static str {
        "udp"
    }

    fn table(&self, _sim: &Simulation) -> Option<Table> {
        None
    }

    fn summary(&self, sim: &Simulation, out: &mut Summary) {
        let (mut sent, mut delivered) = (0u64, 0u64);
        for u in sim.endpoints.iter().filter_map(|e| e.as_udp()) {
            sent += u.sent;
            delivered += u.delivered;
        }
        out.push(("udp_sent".into(), Value::Int(sent as i64)));
        out.push(("udp_delivered".into(), Value::Int(delivered as i64)));
    }
}
