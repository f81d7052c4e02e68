//! The NIC transmit-queue table: one row per transmit queue of every
//! multi-queue host port (hash-cast shows here as unequal queues).

use super::{Collector, Column, Table};
use crate::queue::{Queue, QueueDiscipline};
use crate::sim::Simulation;

pub struct NicQueues;

impl Collector for NicQueues {
    fn name(&self) -> &'static str {
        "nic_queues"
    }

    fn table(&self, sim: &Simulation) -> Table {
        let net = &sim.net;
        let name = |n: u32| net.nodes[n as usize].name.clone();
        let (mut host, mut peer, mut queue) = (vec![], vec![], vec![]);
        let (mut enq, mut deq, mut drop, mut max, mut held) =
            (vec![], vec![], vec![], vec![], vec![]);
        for p in &net.ports {
            let Queue::Mq(mq) = &p.queue else { continue };
            for (i, (s, q)) in mq.stats.iter().zip(mq.queues()).enumerate() {
                host.push(name(p.node));
                peer.push(name(p.peer));
                queue.push(i as i64);
                enq.push(s.enq_pkts as i64);
                deq.push(s.deq_pkts as i64);
                drop.push(s.drop_pkts as i64);
                max.push(s.max_pkts as i64);
                held.push(q.packets() as i64);
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
            .push("held_pkts", Column::I64(held));
        t
    }
}
