//! Per-flow bucket queues shared by SFQ and DRR: packets hashed by flow into
//! buckets, a list of active buckets served in turn, and a shared buffer
//! from whose longest bucket a packet is dropped on overflow.
//!
//! Finding the longest bucket is O(1), as in Linux's SFQ: buckets sit in
//! doubly linked lists indexed by their length in packets, and the index of
//! the longest non-empty list only moves by one per packet.

use super::BufferLimit;
use super::Held;
use crate::packet::{flow_hash, Salt};
use std::collections::VecDeque;

const NONE: u32 = u32::MAX;

#[derive(Clone, Debug)]
pub struct Buckets {
    pub q: Vec<VecDeque<Held>>,
    /// Active buckets in service order.
    pub active: VecDeque<u32>,
    pub is_active: Vec<bool>,
    pub total_bytes: u64,
    pub total_pkts: usize,
    pub limit: BufferLimit,
    /// `by_len[l]`: first bucket holding exactly `l` packets (l >= 1).
    by_len: Vec<u32>,
    next: Vec<u32>,
    prev: Vec<u32>,
    max_len: usize,
}

impl Buckets {
    pub fn new(n: usize, limit: BufferLimit) -> Buckets {
        Buckets {
            q: vec![VecDeque::new(); n],
            active: VecDeque::new(),
            is_active: vec![false; n],
            total_bytes: 0,
            total_pkts: 0,
            limit,
            by_len: vec![NONE; 2],
            next: vec![NONE; n],
            prev: vec![NONE; n],
            max_len: 0,
        }
    }

    fn unlink(&mut self, b: usize, len: usize) {
        let (p, n) = (self.prev[b], self.next[b]);
        if p == NONE {
            self.by_len[len] = n;
        } else {
            self.next[p as usize] = n;
        }
        if n != NONE {
            self.prev[n as usize] = p;
        }
    }

    fn link(&mut self, b: usize, len: usize) {
        if self.by_len.len() <= len {
            self.by_len.resize(len + 1, NONE);
        }
        let head = self.by_len[len];
        self.next[b] = head;
        self.prev[b] = NONE;
        if head != NONE {
            self.prev[head as usize] = b as u32;
        }
        self.by_len[len] = b as u32;
    }

    /// Moves bucket `b` from length `from` to `to` in the length lists.
    fn relink(&mut self, b: usize, from: usize, to: usize) {
        if from > 0 {
            self.unlink(b, from);
        }
        if to > 0 {
            self.link(b, to);
        }
        if to > self.max_len {
            self.max_len = to;
        }
        while self.max_len > 0 && self.by_len[self.max_len] == NONE {
            self.max_len -= 1;
        }
    }

    /// Adds `p` to bucket `b`; if the shared buffer overflows, drops the
    /// tail of the longest bucket (which may be `p` itself) and returns it.
    pub fn push(&mut self, b: usize, p: Held) -> Option<Held> {
        let size = p.size().get();
        self.q[b].push_back(p);
        let len = self.q[b].len();
        self.relink(b, len - 1, len);
        self.total_bytes += size;
        self.total_pkts += 1;
        if !self.is_active[b] {
            self.is_active[b] = true;
            self.active.push_back(b as u32);
        }
        let over = match self.limit {
            BufferLimit::Bytes(l) => self.total_bytes > l.get(),
            BufferLimit::Packets(n) => self.total_pkts > n as usize,
        };
        if !over {
            return None;
        }
        // The longest bucket, in packets.
        let longest = self.by_len[self.max_len] as usize;
        let d = self.q[longest]
            .pop_back()
            .expect("longest bucket holds a packet");
        let len = self.q[longest].len();
        self.relink(longest, len + 1, len);
        self.total_bytes -= d.size().get();
        self.total_pkts -= 1;
        // An emptied bucket leaves the service list when its turn comes
        // (`pop` returns None for it), which keeps this O(1).
        Some(d)
    }

    /// Takes the head of bucket `b`.
    pub fn pop(&mut self, b: usize) -> Option<Held> {
        let p = self.q[b].pop_front()?;
        let len = self.q[b].len();
        self.relink(b, len + 1, len);
        self.total_bytes -= p.size().get();
        self.total_pkts -= 1;
        Some(p)
    }

    /// A flow's bucket: its flow hash (the 5-tuple's, see
    /// [`crate::packet::flow_hash`]) under the discipline's salt.
    #[inline]
    pub fn hash(p: &Held, salt: Salt, n: usize) -> usize {
        flow_hash::pick(p.hash, salt, n as u32) as usize
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::{prop_assert_eq, proptest};

    fn pkt() -> Held {
        Held {
            id: 0,
            size: 1500,
            hash: 0,
        }
    }

    proptest! {
        /// The O(1) longest-bucket index always names a bucket of maximal length.
        #[test]
        fn longest_bucket_index_matches_a_scan(ops in proptest::collection::vec((0usize..8, proptest::bool::ANY), 0..300)) {
            let mut b = Buckets::new(8, BufferLimit::Packets(1000));
            for (i, push) in ops {
                if push {
                    b.push(i, pkt());
                } else {
                    b.pop(i);
                }
                let scan = b.q.iter().map(|q| q.len()).max().unwrap();
                prop_assert_eq!(b.max_len, scan);
                if scan > 0 {
                    prop_assert_eq!(b.q[b.by_len[b.max_len] as usize].len(), scan);
                }
            }
        }
    }
}
