//! DRR, Deficit Round Robin (Shreedhar and Varghese, SIGCOMM 1995 / ToN
//! 1996): per-flow queues (hashed buckets) visited in turn; each visit adds a
//! quantum to the bucket's deficit, which pays for the bytes it sends.
//! O(1) per packet when the quantum is at least the largest packet.

use super::flowq::Buckets;
use super::{BufferLimit, Held, QueueDiscipline};
use crate::packet::{Packet, Salt};
use crate::units::Time;

#[derive(Clone, Debug)]
pub struct Drr {
    b: Buckets,
    n: usize,
    quantum: u64,
    salt: Salt,
    deficit: Vec<u64>,
    /// The bucket at the head of the list has received its quantum for this visit.
    head_credited: bool,
}

impl Drr {
    /// `salt` keys the flow-to-bucket hash (from the port's seeded stream,
    /// so that two DRR ports, or two runs' seeds, bucket flows differently).
    pub fn new(buckets: u32, limit: BufferLimit, quantum: u64, salt: Salt) -> Drr {
        Drr {
            salt,
            b: Buckets::new(buckets as usize, limit),
            n: buckets as usize,
            quantum,
            deficit: vec![0; buckets as usize],
            head_credited: false,
        }
    }
}

impl QueueDiscipline for Drr {
    fn enqueue(&mut self, pkt: &mut Packet, id: u32, _now: Time) -> Result<(), u32> {
        let held = Held::of(pkt, id);
        let h = Buckets::hash(&held, self.salt, self.n);
        match self.b.push(h, held) {
            None => Ok(()),
            Some(dropped) => Err(dropped.id),
        }
    }

    fn dequeue(&mut self, _now: Time) -> Option<Held> {
        loop {
            let b = *self.b.active.front()? as usize;
            if self.b.q[b].is_empty() {
                // Emptied by a drop: leave the list, forfeit the deficit.
                self.b.active.pop_front();
                self.b.is_active[b] = false;
                self.deficit[b] = 0;
                self.head_credited = false;
                continue;
            }
            if !self.head_credited {
                self.deficit[b] += self.quantum;
                self.head_credited = true;
            }
            let size = self.b.q[b].front().expect("non-empty").size().get();
            if size <= self.deficit[b] {
                self.deficit[b] -= size;
                let p = self.b.pop(b);
                if self.b.q[b].is_empty() {
                    // An emptied queue keeps no deficit (paper, Fig. 2).
                    self.deficit[b] = 0;
                    self.b.active.pop_front();
                    self.b.is_active[b] = false;
                    self.head_credited = false;
                }
                return p;
            }
            // Not enough deficit: next bucket's turn.
            self.b.active.rotate_left(1);
            self.head_credited = false;
        }
    }
    fn bytes(&self) -> u64 {
        self.b.total_bytes
    }
    fn packets(&self) -> usize {
        self.b.total_pkts
    }
    fn for_each(&self, f: &mut dyn FnMut(u32)) {
        self.b.q.iter().flatten().for_each(|h| f(h.id))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::queue::ByValue;

    const SALT: Salt = Salt(0x5EED);

    fn pkt(flow: u32, payload: u32) -> Packet {
        Packet {
            flow,
            hash: crate::packet::flow_hash::fmix32(flow + 1),
            dst: 99,
            payload,
            ..Packet::blank()
        }
    }

    #[test]
    fn flows_share_bytes_equally_whatever_their_packet_sizes() {
        // Find two flows in different buckets.
        let n = 64;
        let (a, mut b) = (1u32, 2u32);
        while Buckets::hash(&Held::of(&pkt(a, 0), 0), SALT, n)
            == Buckets::hash(&Held::of(&pkt(b, 0), 0), SALT, n)
        {
            b += 1;
        }
        let mut q = Drr::new(n as u32, BufferLimit::Packets(1000), 1500, SALT);
        for _ in 0..100 {
            q.enqueue_pkt(pkt(a, 1460), Time::ZERO).unwrap(); // 1500-byte packets
        }
        for _ in 0..300 {
            q.enqueue_pkt(pkt(b, 460), Time::ZERO).unwrap(); // 500-byte packets
        }
        let mut sent = [0u64; 2];
        for _ in 0..200 {
            let p = q.dequeue_pkt(Time::ZERO).unwrap();
            sent[usize::from(p.flow != a)] += p.size().get();
        }
        let ratio = sent[0] as f64 / sent[1] as f64;
        assert!((ratio - 1.0).abs() < 0.05, "bytes {sent:?}");
    }

    #[test]
    fn overflow_drops_from_the_longest_flow() {
        let n = 64;
        let (a, mut b) = (1u32, 2u32);
        while Buckets::hash(&Held::of(&pkt(a, 0), 0), SALT, n)
            == Buckets::hash(&Held::of(&pkt(b, 0), 0), SALT, n)
        {
            b += 1;
        }
        let mut q = Drr::new(n as u32, BufferLimit::Packets(10), 1500, SALT);
        for _ in 0..9 {
            q.enqueue_pkt(pkt(a, 1460), Time::ZERO).unwrap();
        }
        q.enqueue_pkt(pkt(b, 1460), Time::ZERO).unwrap();
        // The 11th packet belongs to b, but a is the longest: a loses one.
        let dropped = q.enqueue_pkt(pkt(b, 1460), Time::ZERO).unwrap_err();
        assert_eq!(dropped.flow, a);
        assert_eq!(q.packets(), 10);
    }
}
