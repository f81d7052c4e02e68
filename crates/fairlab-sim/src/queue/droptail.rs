//! Drop-tail FIFO: an arriving packet that does not fit is dropped. The
//! commodity shallow-buffered switch port of every incast study.
//!
//! With a marking threshold K it is also the DCTCP switch (RFC 8257 (3.1),
//! Alizadeh et al. 2010): an ECN-capable packet that arrives to find the
//! queue, itself included, above K is marked CE instead of waiting for a drop.

use super::fifo::Fifo;
use super::{BufferLimit, Held, QueueDiscipline};
use crate::packet::{flags, Packet};
use crate::units::{Bytes, Time};

/// 72 bytes, as with a `VecDeque` (whose 32 bytes the FIFO's inline front
/// now shares): the limit packed as the threshold is, in 8.
#[derive(Clone, Debug)]
pub struct DropTail {
    /// The buffer, in 8 bytes ([`Mark`]; never `NONE`).
    limit: Mark,
    /// ECN marking threshold K, if any, in 8 bytes ([`Mark`]).
    mark_above: Mark,
    /// Grown on demand, not reserved up to the limit: a host's 1000-packet
    /// NIC queue would otherwise hold 12 KB per host from the start (1.2 GB
    /// for a 100,000-host star).
    fifo: Fifo,
    bytes: u64,
    marks: u64,
}

const _: () = assert!(std::mem::size_of::<DropTail>() == 72);

impl DropTail {
    pub fn new(limit: BufferLimit) -> DropTail {
        DropTail {
            limit: Mark::of(limit),
            mark_above: Mark::NONE,
            fifo: Fifo::default(),
            bytes: 0,
            marks: 0,
        }
    }
    /// A drop-tail queue that marks ECN-capable packets above `k`.
    pub fn with_ecn(limit: BufferLimit, k: BufferLimit) -> DropTail {
        DropTail {
            mark_above: Mark::of(k),
            ..DropTail::new(limit)
        }
    }
    pub fn limit(&self) -> BufferLimit {
        self.limit.get().expect("a drop-tail queue has a limit")
    }
    pub fn marking_threshold(&self) -> Option<BufferLimit> {
        self.mark_above.get()
    }
    /// Packets marked CE so far.
    pub fn marks(&self) -> u64 {
        self.marks
    }
    /// Where the next packet enqueued and the next dequeued are kept, as
    /// prefetch hints (`engine::prefetch`), where that is the ring's
    /// memory, not the queue's own ([`Fifo::ring_ends`]).
    #[inline(always)]
    pub fn ends(&self) -> (Option<*const Held>, Option<*const Held>) {
        self.fifo.ring_ends()
    }
    /// The size of the packet `dequeue` would return next, without
    /// taking it (what Linux's `tbf` peeks in its child bfifo).
    #[inline]
    pub fn head_size(&self) -> Option<Bytes> {
        self.fifo.front().map(Held::size)
    }
}

/// An optional [`BufferLimit`] in 8 bytes where `Option` takes 16 (and a
/// plain one 16): a drop-tail queue is most ports' discipline, and these
/// bytes keep [`crate::net::Port`]'s discipline and hot statistics in its
/// first three lines. Packets with the top bit set; bytes below;
/// `u64::MAX` none. A limit of 2^63 bytes or more is kept as 2^63 - 2,
/// which no queue reaches either: it admits and marks the same packets
/// (all, none).
#[derive(Clone, Copy, Debug)]
struct Mark(u64);

impl Mark {
    const NONE: Mark = Mark(u64::MAX);
    const PACKETS: u64 = 1 << 63;

    fn of(k: BufferLimit) -> Mark {
        match k {
            BufferLimit::Bytes(b) => Mark(b.get().min(Mark::PACKETS - 2)),
            BufferLimit::Packets(n) => Mark(Mark::PACKETS | u64::from(n)),
        }
    }

    /// [`BufferLimit::admits`], on the packed form.
    #[inline(always)]
    fn admits(self, bytes: u64, pkts: usize, size: Bytes) -> bool {
        if self.0 & Mark::PACKETS != 0 {
            pkts < self.0 as u32 as usize
        } else {
            bytes + size.get() <= self.0
        }
    }

    #[inline]
    fn get(self) -> Option<BufferLimit> {
        if self.0 == u64::MAX {
            None
        } else if self.0 & Mark::PACKETS != 0 {
            Some(BufferLimit::Packets(self.0 as u32))
        } else {
            Some(BufferLimit::Bytes(Bytes(self.0)))
        }
    }
}

impl QueueDiscipline for DropTail {
    #[inline]
    fn enqueue(&mut self, pkt: &mut Packet, id: u32, _now: Time) -> Result<(), u32> {
        let size = pkt.size();
        let fits = self.limit.admits(self.bytes, self.fifo.len(), size);
        debug_assert_eq!(fits, self.limit().admits(self.bytes, self.fifo.len(), size));
        if !fits {
            return Err(id);
        }
        if let Some(k) = self.mark_above.get() {
            if pkt.has(flags::ECT) && !k.admits(self.bytes, self.fifo.len(), size) {
                pkt.flags |= flags::CE;
                self.marks += 1;
            }
        }
        self.bytes += size.get();
        self.fifo.push_back(Held::of(pkt, id));
        Ok(())
    }
    #[inline]
    fn dequeue(&mut self, _now: Time) -> Option<Held> {
        let h = self.fifo.pop_front()?;
        self.bytes -= h.size().get();
        Some(h)
    }
    fn bytes(&self) -> u64 {
        self.bytes
    }
    fn packets(&self) -> usize {
        self.fifo.len()
    }
    fn for_each(&self, f: &mut dyn FnMut(u32)) {
        self.fifo.iter().for_each(|h| f(h.id))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::queue::ByValue;

    fn pkt(payload: u32) -> Packet {
        Packet {
            dst: 1,
            payload,
            ..Packet::blank()
        }
    }

    #[test]
    fn byte_limit_drops_the_packet_that_would_overflow() {
        // 3000 bytes hold two 1500-byte packets exactly; the third is dropped.
        let mut q = DropTail::new(BufferLimit::Bytes(Bytes(3000)));
        assert!(q.enqueue_pkt(pkt(1460), Time::ZERO).is_ok());
        assert!(q.enqueue_pkt(pkt(1460), Time::ZERO).is_ok());
        assert!(q.enqueue_pkt(pkt(1460), Time::ZERO).is_err());
        // A small ACK still fits? No: 3000 are used.
        assert!(q.enqueue_pkt(pkt(0), Time::ZERO).is_err());
        q.dequeue_pkt(Time::ZERO).unwrap();
        assert!(q.enqueue_pkt(pkt(0), Time::ZERO).is_ok());
        assert_eq!(q.bytes(), 1540);
    }

    #[test]
    fn packet_limit_counts_packets_whatever_their_size() {
        let mut q = DropTail::new(BufferLimit::Packets(2));
        assert!(q.enqueue_pkt(pkt(0), Time::ZERO).is_ok());
        assert!(q.enqueue_pkt(pkt(1460), Time::ZERO).is_ok());
        assert!(q.enqueue_pkt(pkt(0), Time::ZERO).is_err());
        assert_eq!(q.packets(), 2);
    }

    #[test]
    fn ecn_capable_packets_above_k_are_marked_not_dropped() {
        let mut q = DropTail::with_ecn(BufferLimit::Packets(10), BufferLimit::Packets(2));
        let ect = Packet {
            flags: flags::ECT,
            ..pkt(1460)
        };
        for _ in 0..4 {
            q.enqueue_pkt(ect, Time::ZERO).unwrap();
        }
        q.enqueue_pkt(pkt(1460), Time::ZERO).unwrap();
        let marked: Vec<bool> = std::iter::from_fn(|| q.dequeue_pkt(Time::ZERO))
            .map(|p| p.has(flags::CE))
            .collect();
        // The 3rd and 4th find the queue (with themselves) above K = 2;
        // the 5th is not ECN-capable and is never marked.
        assert_eq!(marked, vec![false, false, true, true, false]);
        assert_eq!(q.marks(), 2);
    }

    #[test]
    fn the_marking_threshold_reads_back_as_set() {
        let q = DropTail::with_ecn(BufferLimit::Packets(10), BufferLimit::Packets(3));
        assert_eq!(q.marking_threshold(), Some(BufferLimit::Packets(3)));
        let q = DropTail::with_ecn(BufferLimit::Packets(10), BufferLimit::Bytes(Bytes(30_000)));
        assert_eq!(
            q.marking_threshold(),
            Some(BufferLimit::Bytes(Bytes(30_000)))
        );
        assert_eq!(
            DropTail::new(BufferLimit::Packets(10)).marking_threshold(),
            None
        );
    }

    #[test]
    fn the_head_size_is_the_next_packet_to_leave() {
        let mut q = DropTail::new(BufferLimit::Packets(4));
        assert_eq!(q.head_size(), None);
        q.enqueue_pkt(pkt(100), Time::ZERO).unwrap();
        q.enqueue_pkt(pkt(1460), Time::ZERO).unwrap();
        assert_eq!(q.head_size(), Some(Bytes(140)));
        assert_eq!(q.dequeue_pkt(Time::ZERO).unwrap().size(), Bytes(140));
        assert_eq!(q.head_size(), Some(Bytes(1500)));
    }

    #[test]
    fn limit_strings_parse_as_bytes_or_packets() {
        assert_eq!(
            BufferLimit::parse("64KiB").unwrap(),
            BufferLimit::Bytes(Bytes(65536))
        );
        assert_eq!(
            BufferLimit::parse("20pkt").unwrap(),
            BufferLimit::Packets(20)
        );
        assert_eq!(
            BufferLimit::parse("20 packets").unwrap(),
            BufferLimit::Packets(20)
        );
        assert!(BufferLimit::parse("-3pkt").is_err());
    }
}
