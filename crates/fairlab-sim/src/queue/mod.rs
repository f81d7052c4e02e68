//! Queue disciplines of output ports, one per file behind [`QueueDiscipline`],
//! dispatched through the [`Queue`] enum so the per-packet path has no
//! dynamic dispatch.

mod dql;
mod droptail;
mod drr;
mod fifo;
mod flowq;
mod fq;
mod hcf;
mod nic;
mod priority;
mod red;
mod sfq;

pub use dql::Dql;
pub use droptail::DropTail;
pub use drr::Drr;
pub use fq::{Fq, FqConfig};
pub use hcf::{Hcf, HcfConfig, HcfStats, Period};
pub use nic::{Arbitration, Nic, RootQdisc, TxQueueStats};
pub use priority::{Class, Priority};
pub use red::{Red, RedConfig};
pub use sfq::Sfq;

pub use crate::vocab::BufferLimit;

use crate::packet::Packet;
use crate::units::{Bytes, Time};

impl BufferLimit {
    /// Whether a queue holding `bytes` in `pkts` packets can take `size` more.
    #[inline]
    pub fn admits(&self, bytes: u64, pkts: usize, size: Bytes) -> bool {
        match *self {
            BufferLimit::Bytes(b) => bytes + size.get() <= b.get(),
            BufferLimit::Packets(n) => pkts < n as usize,
        }
    }
}

/// A packet as a queue holds it: its handle in the simulator's packet
/// store and what disciplines read after admission (size, flow hash).
/// A packet stays in one place from the moment a host emits it until it is
/// delivered or dropped; queues move these 12 bytes, not its 88.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Held {
    /// The packet's handle in the simulator's packet store.
    pub id: u32,
    /// Its size on the wire, in bytes.
    pub size: u32,
    /// Its flow hash (see [`crate::packet::flow_hash`]).
    pub hash: u32,
}

impl Held {
    #[inline]
    pub fn of(p: &Packet, id: u32) -> Held {
        let size = p.size().get();
        debug_assert!(size <= u32::MAX as u64, "packet sizes fit 32 bits");
        Held {
            id,
            size: size as u32,
            hash: p.hash,
        }
    }
    #[inline]
    pub fn size(&self) -> Bytes {
        Bytes(self.size as u64)
    }
}

/// What every queue discipline does.
pub trait QueueDiscipline {
    /// Takes packet `id` (whose header is `pkt`, which a discipline may
    /// mark), or gives back the handle of the packet to drop: `id` itself,
    /// or one already held that makes room for it.
    fn enqueue(&mut self, pkt: &mut Packet, id: u32, now: Time) -> Result<(), u32>;
    /// The next packet to transmit.
    fn dequeue(&mut self, now: Time) -> Option<Held>;
    /// Bytes held.
    fn bytes(&self) -> u64;
    /// Packets held.
    fn packets(&self) -> usize;
    /// Iterates the handles of the held packets (end-of-run accounting only).
    fn for_each(&self, f: &mut dyn FnMut(u32));
    /// Hands `out` each counter the discipline keeps of its own, by name
    /// (end-of-run only). What every queue counts (enqueued, dequeued,
    /// dropped, its peak) the port keeps around enqueue and dequeue, as
    /// ns-3's QueueDisc statistics around DoEnqueue/DoDequeue; what only
    /// a discipline knows (HCF's periods and classes) it reports here,
    /// under names listed in [`Queue::COUNTERS`]. None by default.
    fn counters(&self, _out: &mut dyn FnMut(&'static str, u64)) {}
}

/// Tests of a discipline on its own hand it packets by value: a store of
/// this thread keeps them, as the simulator's does.
#[cfg(test)]
pub(crate) trait ByValue: QueueDiscipline {
    fn enqueue_pkt(&mut self, mut pkt: Packet, now: Time) -> Result<(), Packet> {
        let id = test_store::put(pkt);
        let r = self.enqueue(&mut pkt, id, now);
        test_store::set(id, pkt);
        r.map_err(test_store::get)
    }
    fn dequeue_pkt(&mut self, now: Time) -> Option<Packet> {
        let h = self.dequeue(now)?;
        let p = test_store::get(h.id);
        assert_eq!((h.size(), h.hash), (p.size(), p.hash), "held fields");
        Some(p)
    }
}

#[cfg(test)]
impl<T: QueueDiscipline> ByValue for T {}

#[cfg(test)]
pub(crate) mod test_store {
    use crate::packet::Packet;
    use std::cell::RefCell;
    thread_local!(static STORE: RefCell<Vec<Packet>> = const { RefCell::new(Vec::new()) });
    pub fn put(p: Packet) -> u32 {
        STORE.with(|s| {
            let mut s = s.borrow_mut();
            s.push(p);
            (s.len() - 1) as u32
        })
    }
    pub fn set(id: u32, p: Packet) {
        STORE.with(|s| s.borrow_mut()[id as usize] = p)
    }
    pub fn get(id: u32) -> Packet {
        STORE.with(|s| s.borrow()[id as usize])
    }
}

/// The disciplines a port can run. Drop-tail, on every host NIC and most
/// switch ports, is inline (the per-packet path of nearly every run); the
/// larger disciplines are boxed, so that a port of a 100,000-host star
/// does not reserve 288 bytes for the largest of them. The tag is a byte
/// of its own (`repr(u8)`), not packed into drop-tail's fields: every
/// packet at every port matches on it, and a plain tag is the cheapest to
/// read (packed into drop-tail's fields it cost 2 % more instructions on
/// the incast benchmark, callgrind).
#[derive(Clone, Debug)]
#[repr(u8)]
pub enum Queue {
    DropTail(DropTail),
    Hcf(Box<Hcf>),
    Red(Box<Red>),
    Sfq(Box<Sfq>),
    Drr(Box<Drr>),
    Priority(Box<Priority>),
    /// A host NIC with several transmit queues, or rings, or both: a
    /// discipline per transmit queue (boxed: one per host, larger than the rest).
    Nic(Box<Nic>),
}

macro_rules! each_queue {
    ($self:ident, $q:ident => $e:expr) => {
        match $self {
            Queue::DropTail($q) => $e,
            Queue::Hcf($q) => $e,
            Queue::Red($q) => $e,
            Queue::Sfq($q) => $e,
            Queue::Drr($q) => $e,
            Queue::Priority($q) => $e,
            Queue::Nic($q) => $e,
        }
    };
}

impl Queue {
    pub fn limit_label(&self) -> String {
        match self {
            Queue::DropTail(q) => q.limit().to_string(),
            Queue::Hcf(q) => format!("hcf({}+{})", q.config().hp_limit, q.config().lp_limit),
            Queue::Red(q) => format!("red({})", q.config().limit),
            Queue::Sfq(_) => "sfq".to_string(),
            Queue::Drr(_) => "drr".to_string(),
            Queue::Priority(_) => "priority".to_string(),
            Queue::Nic(q) => match (q.root(), q.ring_size()) {
                (Some(root), 0) => format!("{}>{}", root.limit_label(), q.len()),
                (Some(root), r) => format!("{}>{}x{r}", root.limit_label(), q.len()),
                (None, 0) => format!("{}x{}", q.len(), q.queues()[0].limit_label()),
                (None, r) => format!("{}x({}+{r})", q.len(), q.queues()[0].limit_label()),
            },
        }
    }
    /// The counters disciplines keep beyond a port's own, by column name
    /// (each discipline's own list, in discipline order): the ports table
    /// has one column for each, zero where a port's discipline does not
    /// keep it (every run's table and digest keep the columns they had). A
    /// discipline with counters adds its list here and reports its values
    /// through [`QueueDiscipline::counters`].
    pub const COUNTERS: &'static [&'static str] = &Hcf::COUNTERS;
    /// Bits of per-flow state the discipline keeps (HCF's credit bins), if any.
    pub fn state_bits(&self) -> Option<u64> {
        match self {
            Queue::Hcf(q) => Some(q.memory_bits()),
            _ => None,
        }
    }
    /// Whether a packet can leave before an earlier arrival of its flow
    /// (FIFO and RED serve in arrival order; the others need a reordering check).
    pub fn can_reorder(&self) -> bool {
        !matches!(self, Queue::DropTail(_) | Queue::Red(_))
    }
    /// The size of the packet `dequeue` would return next, where the
    /// discipline can tell without dequeuing: drop-tail's head. `None`
    /// for the others (whose next packet depends on state `dequeue`
    /// changes), and for an empty queue. A TBF shaper needs it, so TBF
    /// runs over drop-tail only (`spec/lower/sim.rs`).
    #[inline]
    pub fn head_size(&self) -> Option<Bytes> {
        match self {
            Queue::DropTail(q) => q.head_size(),
            _ => None,
        }
    }
    /// A drop-tail queue's ring ends ([`DropTail::ends`]), for prefetching.
    #[inline(always)]
    pub fn ring_ends(&self) -> (Option<*const Held>, Option<*const Held>) {
        match self {
            Queue::DropTail(q) => q.ends(),
            _ => (None, None),
        }
    }
    /// Whether the port reports each transmission's completion to its
    /// queue (a NIC with rings, or whose host stack counts its packets).
    #[inline]
    pub fn completes(&self) -> bool {
        matches!(self, Queue::Nic(n) if n.is_tracked())
    }
    /// Packets marked CE so far.
    pub fn marks(&self) -> u64 {
        match self {
            Queue::DropTail(q) => q.marks(),
            Queue::Red(q) => q.marks(),
            _ => 0,
        }
    }
}

impl Queue {
    #[inline(never)]
    fn enqueue_other(&mut self, pkt: &mut Packet, id: u32, now: Time) -> Result<(), u32> {
        each_queue!(self, q => q.enqueue(pkt, id, now))
    }
    #[inline(never)]
    fn dequeue_other(&mut self, now: Time) -> Option<Held> {
        each_queue!(self, q => q.dequeue(now))
    }
}

/// Drop-tail, at nearly every port of nearly every run, is inlined into
/// the packet path; the other disciplines are a call away.
impl QueueDiscipline for Queue {
    #[inline(always)]
    fn enqueue(&mut self, pkt: &mut Packet, id: u32, now: Time) -> Result<(), u32> {
        match self {
            Queue::DropTail(q) => q.enqueue(pkt, id, now),
            _ => self.enqueue_other(pkt, id, now),
        }
    }
    #[inline(always)]
    fn dequeue(&mut self, now: Time) -> Option<Held> {
        match self {
            Queue::DropTail(q) => q.dequeue(now),
            _ => self.dequeue_other(now),
        }
    }
    #[inline]
    fn bytes(&self) -> u64 {
        each_queue!(self, q => q.bytes())
    }
    #[inline]
    fn packets(&self) -> usize {
        each_queue!(self, q => q.packets())
    }
    fn for_each(&self, f: &mut dyn FnMut(u32)) {
        each_queue!(self, q => q.for_each(f))
    }
    fn counters(&self, out: &mut dyn FnMut(&'static str, u64)) {
        each_queue!(self, q => q.counters(out))
    }
}
