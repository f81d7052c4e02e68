//! The NIC transmit-queue table: one row per transmit queue of every host
//! NIC modelled by queues (several queues, or a sending stack with rings):
//! its qdisc's counters, its ring's, and the flows mapped to it (hash-cast
//! shows here as unequal queues).

use super::{Collector, Column, Table};
use crate::queue::Queue;
use crate::sim::Simulation;
use crate::units::Time;
use std::collections::HashMap;

pub struct NicQueues;

impl Collector for NicQueues {
    fn name(&self) -> &'static str {
        "nic_queues"
    }

    fn table(&self, sim: &Simulation) -> Option<Table> {
        let net = &sim.net;
        let name = |n: u32| net.nodes[n as usize].name.clone();
        // Flow directions by (NIC port, queue) at the end of the run.
        let mut mapped: HashMap<(u32, usize), i64> = HashMap::new();
        for (i, e) in sim.endpoints.iter().enumerate() {
            let sides = if e.protocol() == crate::packet::Protocol::Tcp {
                2
            } else {
                1
            };
            for side in 0..sides {
                if let Some((port, q, _)) = sim.tx_queue_of(2 * i as u32 + side) {
                    *mapped.entry((port, q)).or_default() += 1;
                }
            }
        }
        let (mut host, mut peer, mut queue) = (vec![], vec![], vec![]);
        let (mut enq, mut deq, mut drop, mut max, mut held) =
            (vec![], vec![], vec![], vec![], vec![]);
        let (mut ring, mut ring_enq, mut ring_max, mut ring_held) =
            (vec![], vec![], vec![], vec![]);
        let (mut sent, mut sent_bytes, mut bql, mut bql_max) = (vec![], vec![], vec![], vec![]);
        let (mut quota, mut flows) = (vec![], vec![]);
        let (mut requeues, mut stall, mut stalled) = (vec![], vec![], vec![]);
        for (pi, p) in net.ports.iter().enumerate() {
            let Queue::Nic(nic) = &p.queue else { continue };
            for (i, s) in nic.stats.iter().enumerate() {
                host.push(name(p.node));
                peer.push(name(p.peer));
                queue.push(i as i64);
                enq.push(s.enq_pkts as i64);
                deq.push(s.deq_pkts as i64);
                drop.push(s.drop_pkts as i64);
                max.push(s.max_pkts as i64);
                held.push(nic.qdisc_packets(i) as i64);
                ring.push(nic.ring_size() as i64);
                ring_enq.push(s.ring_enq_pkts as i64);
                ring_max.push(s.ring_max_pkts as i64);
                ring_held.push(nic.ring_packets(i) as i64);
                sent.push(s.sent_pkts as i64);
                sent_bytes.push(s.sent_bytes as i64);
                bql.push(nic.bql_limit(i).map_or(-1, i64::from));
                bql_max.push(if nic.bql_limit(i).is_some() {
                    s.bql_max_limit as i64
                } else {
                    -1
                });
                quota.push(nic.quota(i) as i64);
                flows.push(mapped.get(&(pi as u32, i)).copied().unwrap_or(0));
                requeues.push(s.requeues as i64);
                stall.push(Time(s.root_stall_ps).as_secs_f64());
                stalled.push(i64::from(nic.stalled_on() == Some(i)));
            }
        }
        let mut t = Table::new();
        t.push("node", Column::Str(host))
            .push("peer", Column::Str(peer))
            .push("queue", Column::I64(queue))
            .push("enq_pkts", Column::I64(enq))
            .push("deq_pkts", Column::I64(deq))
            .push("drop_pkts", Column::I64(drop))
            .push("max_pkts", Column::I64(max))
            .push("held_pkts", Column::I64(held))
            .push("ring_size", Column::I64(ring))
            .push("ring_enq_pkts", Column::I64(ring_enq))
            .push("ring_max_pkts", Column::I64(ring_max))
            .push("ring_held_pkts", Column::I64(ring_held))
            .push("sent_pkts", Column::I64(sent))
            .push("sent_bytes", Column::I64(sent_bytes))
            .push("bql_limit_bytes", Column::I64(bql))
            .push("bql_max_limit_bytes", Column::I64(bql_max))
            .push("turn_pkts", Column::I64(quota))
            .push("flows", Column::I64(flows))
            .push("requeues", Column::I64(requeues))
            .push("root_stall_s", Column::F64(stall))
            .push("root_stalled", Column::I64(stalled));
        Some(t)
    }
}
