//! A multi-queue NIC's transmit side: several hardware queues, each with
//! its own discipline (Linux's `mq` root with one child qdisc per queue).
//!
//! A packet goes to the queue its flow hash picks, under the host's salt:
//! Linux's `skb_tx_hash` without XPS, `reciprocal_scale(skb->hash, n)`.
//! The NIC serves the non-empty queues round robin, one packet per turn, as
//! its descriptor-ring arbitration does. Flows that hash onto one queue
//! share that queue's turn: the winners and losers of hash-cast.

use super::{Held, Queue, QueueDiscipline};
use crate::packet::{flow_hash, Packet, Salt};
use crate::units::Time;

/// Counters of one transmit queue.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TxQueueStats {
    pub enq_pkts: u64,
    pub deq_pkts: u64,
    pub drop_pkts: u64,
    pub max_pkts: u64,
}

#[derive(Clone, Debug)]
pub struct Mq {
    queues: Vec<Queue>,
    salt: Salt,
    /// The queue whose turn is next.
    next: usize,
    bytes: u64,
    pkts: usize,
    pub stats: Vec<TxQueueStats>,
}

impl Mq {
    /// A NIC with `queues` (at least one), choosing among them by flow hash under `salt`.
    pub fn new(queues: Vec<Queue>, salt: Salt) -> Mq {
        assert!(!queues.is_empty(), "a NIC has at least one transmit queue");
        let n = queues.len();
        Mq {
            queues,
            salt,
            next: 0,
            bytes: 0,
            pkts: 0,
            stats: vec![TxQueueStats::default(); n],
        }
    }

    pub fn queues(&self) -> &[Queue] {
        &self.queues
    }

    /// The transmit queue a flow hash maps to.
    #[inline]
    pub fn queue_of(&self, hash: u32) -> usize {
        flow_hash::pick(hash, self.salt, self.queues.len() as u32) as usize
    }
}

impl QueueDiscipline for Mq {
    fn enqueue(&mut self, pkt: &mut Packet, id: u32, now: Time) -> Result<(), u32> {
        let i = self.queue_of(pkt.hash);
        let size = pkt.size().get();
        let q = &mut self.queues[i];
        let s = &mut self.stats[i];
        match q.enqueue(pkt, id, now) {
            Ok(()) => {
                s.enq_pkts += 1;
                s.max_pkts = s.max_pkts.max(q.packets() as u64);
                self.bytes += size;
                self.pkts += 1;
                Ok(())
            }
            Err(p) => {
                s.drop_pkts += 1;
                Err(p)
            }
        }
    }

    fn dequeue(&mut self, now: Time) -> Option<Held> {
        if self.pkts == 0 {
            return None;
        }
        let n = self.queues.len();
        for k in 0..n {
            let i = (self.next + k) % n;
            if let Some(p) = self.queues[i].dequeue(now) {
                self.next = (i + 1) % n;
                self.stats[i].deq_pkts += 1;
                self.bytes -= p.size().get();
                self.pkts -= 1;
                return Some(p);
            }
        }
        None
    }

    fn bytes(&self) -> u64 {
        self.bytes
    }

    fn packets(&self) -> usize {
        self.pkts
    }

    fn for_each(&self, f: &mut dyn FnMut(u32)) {
        self.queues.iter().for_each(|q| q.for_each(f))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::queue::ByValue;
    use crate::queue::{BufferLimit, DropTail};

    fn nic(n: usize, limit: u32) -> Mq {
        let qs = (0..n)
            .map(|_| Queue::DropTail(DropTail::new(BufferLimit::Packets(limit))))
            .collect();
        Mq::new(qs, Salt(99))
    }

    fn pkt(hash: u32) -> Packet {
        Packet {
            hash,
            payload: 1460,
            ..Packet::blank()
        }
    }

    /// Flow hashes that land on queues 0, 0 and 1 of a two-queue NIC.
    fn two_on_one_one_alone(m: &Mq) -> [u32; 3] {
        let on = |q: usize| {
            (0..)
                .map(flow_hash::fmix32)
                .filter(move |&h| m.queue_of(h) == q)
        };
        let mut zero = on(0);
        [
            zero.next().unwrap(),
            zero.next().unwrap(),
            on(1).next().unwrap(),
        ]
    }

    #[test]
    fn flows_sharing_a_queue_split_its_turn_hash_cast() {
        // Three backlogged flows, two hashed onto one queue: served round
        // robin by queue, the lone flow gets half the NIC, the others a quarter.
        let mut m = nic(2, 1000);
        let flows = two_on_one_one_alone(&m);
        for _ in 0..100 {
            for &h in &flows {
                m.enqueue_pkt(pkt(h), Time::ZERO).unwrap();
            }
        }
        let mut sent = [0u32; 3];
        for _ in 0..120 {
            let p = m.dequeue_pkt(Time::ZERO).unwrap();
            sent[flows.iter().position(|&h| h == p.hash).unwrap()] += 1;
        }
        assert_eq!(sent[2], 60, "{sent:?}");
        assert_eq!(sent[0] + sent[1], 60);
        assert_eq!(m.stats.iter().map(|s| s.deq_pkts).sum::<u64>(), 120);
    }

    #[test]
    fn a_full_queue_drops_while_the_other_still_admits() {
        let mut m = nic(2, 2);
        let [a, _, b] = two_on_one_one_alone(&m);
        m.enqueue_pkt(pkt(a), Time::ZERO).unwrap();
        m.enqueue_pkt(pkt(a), Time::ZERO).unwrap();
        assert!(m.enqueue_pkt(pkt(a), Time::ZERO).is_err());
        m.enqueue_pkt(pkt(b), Time::ZERO).unwrap();
        assert_eq!((m.packets(), m.bytes()), (3, 3 * 1500));
        let qa = m.queue_of(a);
        assert_eq!(m.stats[qa].drop_pkts, 1);
        assert_eq!(m.stats[qa].max_pkts, 2);
    }
}
