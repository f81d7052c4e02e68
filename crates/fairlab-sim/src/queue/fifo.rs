//! The packet FIFO of a drop-tail queue, its front kept in the record
//! itself and the packets behind it in a ring of 2^n slots.
//!
//! Why the front apart: most ports of a fabric send each packet as it
//! arrives, so their queue holds one packet for an instant and none
//! otherwise. With the whole FIFO behind a pointer (a `VecDeque`), every
//! such hop wrote and read back a ring slot of its own allocation: a
//! cache line a large topology finds out of cache, on top of the port's
//! (issue 23, seventh pass). With the front inline, a queue of at most one
//! packet touches only the port's own line; the ring is read once a second
//! packet waits.

use super::Held;

/// What an unused slot holds (never read as a packet).
const VACANT: Held = Held {
    id: u32::MAX,
    size: 0,
    hash: 0,
};

/// First ring size once a second packet waits (then doubled as needed).
const FIRST_RING: usize = 4;

#[derive(Clone, Debug)]
pub struct Fifo {
    /// The packets after the front, from `start`, wrapping; its length is
    /// 0 or a power of two.
    ring: Box<[Held]>,
    start: u32,
    /// Packets held, the front included.
    len: u32,
    /// The next packet to leave, when `len > 0`.
    front: Held,
}

impl Default for Fifo {
    fn default() -> Self {
        Fifo {
            ring: Box::default(),
            start: 0,
            len: 0,
            front: VACANT,
        }
    }
}

impl Fifo {
    #[inline]
    pub fn len(&self) -> usize {
        self.len as usize
    }

    #[inline]
    pub fn front(&self) -> Option<&Held> {
        (self.len > 0).then_some(&self.front)
    }

    /// The ring slot of the `k`-th packet behind the front.
    #[inline(always)]
    fn slot(&self, k: u32) -> usize {
        (self.start.wrapping_add(k) as usize) & (self.ring.len().wrapping_sub(1))
    }

    #[inline]
    pub fn push_back(&mut self, h: Held) {
        if self.len == 0 {
            self.front = h;
            self.len = 1;
            return;
        }
        let behind = self.len - 1;
        if behind as usize == self.ring.len() {
            self.grow();
        }
        let i = self.slot(behind);
        self.ring[i] = h;
        self.len += 1;
    }

    #[inline]
    pub fn pop_front(&mut self) -> Option<Held> {
        if self.len == 0 {
            return None;
        }
        let h = self.front;
        self.len -= 1;
        if self.len > 0 {
            self.front = self.ring[self.start as usize];
            self.start = self.slot(1) as u32;
        }
        Some(h)
    }

    /// Doubles the ring (its packets moved to its start, in order).
    #[cold]
    #[inline(never)]
    fn grow(&mut self) {
        let behind = self.len as usize - 1;
        let size = (self.ring.len() * 2).max(FIRST_RING);
        let mut ring = vec![VACANT; size].into_boxed_slice();
        for (k, slot) in ring.iter_mut().enumerate().take(behind) {
            *slot = self.ring[self.slot(k as u32)];
        }
        self.ring = ring;
        self.start = 0;
    }

    /// The packets, front first.
    pub fn iter(&self) -> impl Iterator<Item = &Held> + '_ {
        let behind = self.len.saturating_sub(1);
        self.front()
            .into_iter()
            .chain((0..behind).map(move |k| &self.ring[self.slot(k)]))
    }

    /// For prefetch hints (`engine::prefetch`): the ring slot the next
    /// packet enqueued goes to, and the one the next dequeue moves to the
    /// front, where the ring is read at all (`None`: the front, in the
    /// record itself, or no packet).
    #[inline(always)]
    pub fn ring_ends(&self) -> (Option<*const Held>, Option<*const Held>) {
        if self.ring.is_empty() {
            return (None, None);
        }
        let base = self.ring.as_ptr();
        let tail = (self.len > 0).then(|| base.wrapping_add(self.slot(self.len - 1)));
        let next = (self.len > 1).then(|| base.wrapping_add(self.start as usize));
        (tail, next)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::VecDeque;

    fn held(id: u32) -> Held {
        Held {
            id,
            size: 100 + id,
            hash: id * 7,
        }
    }

    #[test]
    fn pushes_and_pops_in_the_order_a_vecdeque_does_through_growth_and_wrap() {
        let (mut f, mut v) = (Fifo::default(), VecDeque::new());
        let mut rng = crate::engine::Rng::new(5);
        let mut next = 0;
        for step in 0..20_000 {
            // Stretches of 2,000 steps that mostly push, then mostly pop,
            // so that the ring grows, wraps, empties and fills again.
            let pushing = (step / 2_000) % 2 == 0;
            if rng.below_inclusive(7) < if pushing { 6 } else { 1 } {
                f.push_back(held(next));
                v.push_back(held(next));
                next += 1;
            } else {
                assert_eq!(f.pop_front(), v.pop_front());
            }
            assert_eq!(f.len(), v.len());
            assert_eq!(f.front(), v.front());
            assert!(f.iter().eq(v.iter()));
        }
        while let Some(h) = v.pop_front() {
            assert_eq!(f.pop_front(), Some(h));
        }
        assert_eq!(f.pop_front(), None);
        assert_eq!(f.len(), 0);
    }

    #[test]
    fn one_packet_at_a_time_never_allocates_a_ring() {
        let mut f = Fifo::default();
        for id in 0..100 {
            f.push_back(held(id));
            assert_eq!(f.ring_ends(), (None, None));
            assert_eq!(f.pop_front(), Some(held(id)));
        }
        assert!(f.ring.is_empty());
    }

    #[test]
    fn the_ring_ends_are_where_the_next_push_writes_and_the_next_pop_reads() {
        let mut f = Fifo::default();
        for id in 0..3 {
            f.push_back(held(id));
        }
        let base = f.ring.as_ptr();
        // Two behind the front, in slots 0 and 1; the next push goes to 2.
        assert_eq!(
            f.ring_ends(),
            (Some(base.wrapping_add(2)), Some(base.wrapping_add(0)))
        );
        // The front and then packet 1 left: packet 2, in slot 1, is the
        // front now, and the ring holds nothing a pop would read.
        f.pop_front();
        f.pop_front();
        assert_eq!(f.ring_ends(), (Some(base.wrapping_add(2)), None));
    }
}
