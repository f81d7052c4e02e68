//! Per-flow bucket queues shared by SFQ and DRR: packets hashed by flow into
//! buckets, a list of active buckets served in turn, and a shared buffer
//! from whose longest bucket a packet is dropped on overflow.

use super::BufferLimit;
use crate::net::Packet;
use std::collections::VecDeque;

#[derive(Clone, Debug)]
pub struct Buckets {
    pub q: Vec<VecDeque<Packet>>,
    pub bytes: Vec<u64>,
    /// Active buckets in service order.
    pub active: VecDeque<u32>,
    pub is_active: Vec<bool>,
    pub total_bytes: u64,
    pub total_pkts: usize,
    pub limit: BufferLimit,
}

impl Buckets {
    pub fn new(n: usize, limit: BufferLimit) -> Buckets {
        Buckets {
            q: vec![VecDeque::new(); n],
            bytes: vec![0; n],
            active: VecDeque::new(),
            is_active: vec![false; n],
            total_bytes: 0,
            total_pkts: 0,
            limit,
        }
    }

    /// Adds `p` to bucket `b`; if the shared buffer overflows, drops the
    /// tail of the longest bucket (which may be `p` itself) and returns it.
    pub fn push(&mut self, b: usize, p: Packet) -> Option<Packet> {
        let size = p.size().get();
        self.q[b].push_back(p);
        self.bytes[b] += size;
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
        // Longest bucket (in bytes; ties to the lowest index). A scan of the
        // active buckets: the drop path only, not per packet served.
        let longest = self
            .active
            .iter()
            .map(|&i| i as usize)
            .max_by_key(|&i| (self.bytes[i], std::cmp::Reverse(i)))
            .expect("a bucket is active");
        let d = self.q[longest]
            .pop_back()
            .expect("longest bucket holds a packet");
        self.bytes[longest] -= d.size().get();
        self.total_bytes -= d.size().get();
        self.total_pkts -= 1;
        if self.q[longest].is_empty() {
            self.is_active[longest] = false;
            self.active.retain(|&i| i as usize != longest);
        }
        Some(d)
    }

    /// Takes the head of bucket `b`.
    pub fn pop(&mut self, b: usize) -> Option<Packet> {
        let p = self.q[b].pop_front()?;
        self.bytes[b] -= p.size().get();
        self.total_bytes -= p.size().get();
        self.total_pkts -= 1;
        Some(p)
    }

    /// A flow's bucket: a keyed hash of its addresses, ports and direction.
    pub fn hash(p: &Packet, key: u64, n: usize) -> usize {
        let mut x =
            ((p.src as u64) << 32 | p.dst as u64) ^ (p.flow_key() as u64).rotate_left(21) ^ key;
        x = (x ^ (x >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        x = (x ^ (x >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        x ^= x >> 31;
        ((x as u128 * n as u128) >> 64) as usize
    }
}
