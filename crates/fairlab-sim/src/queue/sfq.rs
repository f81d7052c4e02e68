//! SFQ, Stochastic Fairness Queueing (McKenney, INFOCOM 1990): flows hashed
//! into buckets served round-robin one packet at a time; the hash is
//! perturbed every `perturb` so that colliding flows do not stay together;
//! the buffer is shared and overflow drops from the longest bucket.

use super::flowq::Buckets;
use super::{BufferLimit, Held, QueueDiscipline};
use crate::engine::Rng;
use crate::packet::{Packet, Salt};
use crate::units::Time;

#[derive(Clone, Debug)]
pub struct Sfq {
    b: Buckets,
    n: usize,
    perturb: Time,
    next_perturb: Time,
    /// The current perturbation's salt, drawn from the port's stream.
    key: Salt,
    rng: Rng,
}

impl Sfq {
    pub fn new(buckets: u32, limit: BufferLimit, perturb: Time, mut rng: Rng) -> Sfq {
        let key = Salt::from_u64(rng.next_u64());
        Sfq {
            b: Buckets::new(buckets as usize, limit),
            n: buckets as usize,
            perturb,
            next_perturb: perturb,
            key,
            rng,
        }
    }
}

impl Sfq {
    /// Moves the queued packets to their buckets under the new key, as
    /// Linux's `sfq_rehash` does: left in their old buckets, a flow's
    /// earlier packets could leave after its later ones. Once per
    /// perturbation interval, so its O(n) is not on the per-packet path.
    fn rehash(&mut self) {
        if self.b.total_pkts == 0 {
            return;
        }
        // Taken out in service order, each bucket's packets stay in order.
        let held: Vec<Held> = std::iter::from_fn(|| self.dequeue(Time::ZERO)).collect();
        for p in held {
            let h = Buckets::hash(&p, self.key, self.n);
            let dropped = self.b.push(h, p);
            debug_assert!(dropped.is_none(), "the same packets fit again");
        }
    }
}

impl QueueDiscipline for Sfq {
    fn enqueue(&mut self, pkt: &mut Packet, id: u32, now: Time) -> Result<(), u32> {
        if self.perturb > Time::ZERO && now >= self.next_perturb {
            self.key = Salt::from_u64(self.rng.next_u64());
            self.next_perturb = now + self.perturb;
            self.rehash();
        }
        let held = Held::of(pkt, id);
        let h = Buckets::hash(&held, self.key, self.n);
        match self.b.push(h, held) {
            None => Ok(()),
            Some(dropped) => Err(dropped.id),
        }
    }

    fn dequeue(&mut self, _now: Time) -> Option<Held> {
        // Round robin: one packet from the head bucket, which then goes to
        // the back of the list if it still holds packets. A bucket emptied by
        // an overflow drop leaves the list here.
        loop {
            let b = self.b.active.pop_front()? as usize;
            let Some(p) = self.b.pop(b) else {
                self.b.is_active[b] = false;
                continue;
            };
            if self.b.q[b].is_empty() {
                self.b.is_active[b] = false;
            } else {
                self.b.active.push_back(b as u32);
            }
            return Some(p);
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

    fn pkt(flow: u32) -> Packet {
        Packet {
            flow,
            hash: crate::packet::flow_hash::fmix32(flow + 1),
            dst: 99,
            payload: 1460,
            ..Packet::blank()
        }
    }

    #[test]
    fn backlogged_flows_are_served_in_turn() {
        let mut q = Sfq::new(1024, BufferLimit::Packets(100), Time::ZERO, Rng::new(3));
        for _ in 0..10 {
            q.enqueue_pkt(pkt(1), Time::ZERO).unwrap();
        }
        for _ in 0..10 {
            q.enqueue_pkt(pkt(2), Time::ZERO).unwrap();
        }
        let order: Vec<u32> = (0..6)
            .map(|_| q.dequeue_pkt(Time::ZERO).unwrap().flow)
            .collect();
        assert_eq!(order, vec![1, 2, 1, 2, 1, 2]);
    }

    #[test]
    fn overflow_drops_from_the_longest_bucket_not_the_arrival() {
        let mut q = Sfq::new(1024, BufferLimit::Packets(10), Time::ZERO, Rng::new(3));
        let bucket = |q: &Sfq, f: u32| Buckets::hash(&Held::of(&pkt(f), 0), q.key, q.n);
        assert_ne!(bucket(&q, 1), bucket(&q, 2));
        for _ in 0..8 {
            q.enqueue_pkt(pkt(1), Time::ZERO).unwrap();
        }
        for _ in 0..2 {
            q.enqueue_pkt(pkt(2), Time::ZERO).unwrap();
        }
        // The buffer is full: flow 2's arrival is kept, flow 1 loses one.
        let dropped = q.enqueue_pkt(pkt(2), Time::ZERO).unwrap_err();
        assert_eq!(dropped.flow, 1);
        assert_eq!(q.packets(), 10);
        let served: Vec<u32> = std::iter::from_fn(|| q.dequeue_pkt(Time::ZERO))
            .map(|p| p.flow)
            .collect();
        assert_eq!(served.iter().filter(|&&c| c == 2).count(), 3);
    }

    #[test]
    fn perturbation_moves_queued_packets_without_reordering_a_flow() {
        let ms = Time::from_ms(1);
        let mut q = Sfq::new(4, BufferLimit::Packets(1000), ms, Rng::new(9));
        let mut seq = [0u64; 8];
        let mut t = Time::ZERO;
        let mut last = [None::<u64>; 8];
        // Arrivals across many perturbations, with some departures between.
        for round in 0..50u64 {
            for f in 0..8u32 {
                let mut p = pkt(f);
                p.seq = seq[f as usize];
                seq[f as usize] += 1;
                q.enqueue_pkt(p, t).unwrap();
            }
            for _ in 0..(round % 5) {
                let p = q.dequeue_pkt(t).unwrap();
                let f = p.flow as usize;
                assert!(last[f].is_none_or(|l| p.seq > l), "flow {f} reordered");
                last[f] = Some(p.seq);
            }
            t += Time::from_us(300);
        }
        while let Some(p) = q.dequeue_pkt(t) {
            let f = p.flow as usize;
            assert!(last[f].is_none_or(|l| p.seq > l), "flow {f} reordered");
            last[f] = Some(p.seq);
        }
        assert_eq!(last, seq.map(|n| Some(n - 1)), "every packet left");
    }

    #[test]
    fn hash_is_perturbed_every_interval() {
        let ms = Time::from_ms(1);
        let mut q = Sfq::new(16, BufferLimit::Packets(100), ms, Rng::new(5));
        let map = |q: &Sfq| -> Vec<usize> {
            (0..64)
                .map(|f| Buckets::hash(&Held::of(&pkt(f), 0), q.key, q.n))
                .collect()
        };
        let before = map(&q);
        q.enqueue_pkt(pkt(1), Time(ms.0 - 1)).unwrap();
        assert_eq!(map(&q), before, "no perturbation before the interval");
        q.enqueue_pkt(pkt(1), ms).unwrap();
        let after = map(&q);
        assert_ne!(after, before, "flows are re-hashed after the interval");
        q.enqueue_pkt(pkt(1), ms.times(2)).unwrap();
        assert_ne!(map(&q), after);
    }
}
