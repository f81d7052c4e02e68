//! A host NIC's transmit side with the host's queues above it: per transmit
//! queue a qdisc (Linux's `mq` root with one child per hardware queue)
//! feeding a descriptor ring, and the NIC's arbitration between the rings.
//!
//! * **Queue choice.** A packet goes to the queue the host stack steers it
//!   to ([`Nic::steer`]: a socket's cached queue, `sim::host_stack`), else
//!   to its flow hash's pick under the host's salt: Linux's `skb_tx_hash`
//!   without XPS, `reciprocal_scale(hash, real_num_tx_queues)`.
//! * **Qdisc to ring.** The qdisc moves packets into the ring while it has a
//!   free descriptor and, with Byte Queue Limits, while the ring's byte
//!   limit allows (`qdisc_restart` until the driver stops the queue:
//!   `netif_tx_stop_queue` when the ring is full, `netdev_tx_sent_queue`
//!   when BQL's limit is crossed). A packet holds its descriptor until its
//!   transmission completes ([`Nic::complete`], the driver's TX completion
//!   freeing it and waking the queue); the qdisc then refills the ring at
//!   once. Without a ring (`ring = 0`) the NIC takes packets from the
//!   qdiscs directly, as the multi-queue model before rings did.
//! * **Arbitration.** The NIC serves the rings that hold a packet round
//!   robin, each for up to its quota of packets per turn: one (per-packet
//!   round robin), a batch of descriptors, or a weight per queue. Flows
//!   that hash onto one queue share that queue's turns: the winners and
//!   losers of hash-cast. Or the NIC takes descriptors across rings in the
//!   order the driver posted them (one DMA engine following the doorbells):
//!   then the queues matter only while the rings are full, each completion
//!   making room in its own ring for the qdisc behind it.
//! * **A root qdisc above the rings** ([`Nic::with_root`]; `tc qdisc
//!   replace dev eth0 root fq`): one qdisc for all transmit queues instead
//!   of `mq`'s child per queue. Each packet's queue is still chosen at
//!   enqueue (`netdev_pick_tx` sets `queue_mapping`); the root dequeues in
//!   its own order and hands each packet to its queue's ring
//!   (`qdisc_restart` -> `sch_direct_xmit`). When that ring is stopped
//!   (full, or over its BQL limit: `netif_xmit_frozen_or_stopped`) the
//!   packet is put back (`dev_requeue_skb`: the qdisc's `gso_skb`), and
//!   while it waits the root gives out nothing (`dequeue_skb` returns
//!   NULL while the requeued packet's queue is stopped): every queue waits
//!   for that one, head-of-line blocking, until a completion on it wakes
//!   it (`netif_tx_wake_queue` -> `__netif_schedule`).

use super::{Dql, Fq, Held, Queue, QueueDiscipline, Sfq};
use crate::packet::{flow_hash, Packet, Salt};
use crate::units::Time;
use std::collections::{HashMap, VecDeque};
use std::hash::{BuildHasherDefault, Hasher};

/// Counters of one transmit queue: its qdisc, then its ring.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TxQueueStats {
    /// Packets the qdisc admitted.
    pub enq_pkts: u64,
    /// Packets that left the qdisc (into the ring, or onto the wire
    /// without a ring).
    pub deq_pkts: u64,
    /// Packets the qdisc dropped (refused or pushed out).
    pub drop_pkts: u64,
    /// Largest qdisc occupancy, packets.
    pub max_pkts: u64,
    /// Descriptors posted to the ring.
    pub ring_enq_pkts: u64,
    /// Packets whose transmission completed (with or without a ring).
    pub sent_pkts: u64,
    pub sent_bytes: u64,
    /// Largest ring occupancy, descriptors (the one on the wire counted).
    pub ring_max_pkts: u64,
    /// Largest BQL limit reached, bytes.
    pub bql_max_limit: u64,
    /// With a root qdisc: packets for this queue the root dequeued while
    /// the queue was stopped, and put back (`dev_requeue_skb`; Linux's
    /// `requeues` counter), each one stalling the whole root.
    pub requeues: u64,
    /// With a root qdisc: time the root spent stalled on a packet for this
    /// queue, picoseconds (the simulator's clock).
    pub root_stall_ps: u64,
}

/// The qdiscs a NIC's root can be instead of `mq`: an enum of its own,
/// not [`Queue`] variants, so that the switch ports' dispatch on [`Queue`]
/// compiles as it did.
#[derive(Clone, Debug)]
pub enum RootQdisc {
    /// Linux's `fq`.
    Fq(Box<Fq>),
    /// SFQ, as at switch ports.
    Sfq(Box<Sfq>),
}

impl RootQdisc {
    pub fn limit_label(&self) -> String {
        match self {
            RootQdisc::Fq(q) => format!("fq({}pkt)", q.config().limit_pkts),
            RootQdisc::Sfq(_) => "sfq".to_string(),
        }
    }
}

impl QueueDiscipline for RootQdisc {
    fn enqueue(&mut self, pkt: &mut Packet, id: u32, now: Time) -> Result<(), u32> {
        match self {
            RootQdisc::Fq(q) => q.enqueue(pkt, id, now),
            RootQdisc::Sfq(q) => q.enqueue(pkt, id, now),
        }
    }
    fn dequeue(&mut self, now: Time) -> Option<Held> {
        match self {
            RootQdisc::Fq(q) => q.dequeue(now),
            RootQdisc::Sfq(q) => q.dequeue(now),
        }
    }
    fn bytes(&self) -> u64 {
        match self {
            RootQdisc::Fq(q) => q.bytes(),
            RootQdisc::Sfq(q) => q.bytes(),
        }
    }
    fn packets(&self) -> usize {
        match self {
            RootQdisc::Fq(q) => q.packets(),
            RootQdisc::Sfq(q) => q.packets(),
        }
    }
    fn for_each(&self, f: &mut dyn FnMut(u32)) {
        match self {
            RootQdisc::Fq(q) => q.for_each(f),
            RootQdisc::Sfq(q) => q.for_each(f),
        }
    }
}

/// A root qdisc shared by every transmit queue, and what it keeps beside
/// its packets.
#[derive(Clone, Debug)]
struct Root {
    q: RootQdisc,
    /// Each held packet's transmit queue (`skb->queue_mapping`), by
    /// packet handle. Sized by the packets held, so the per-packet path
    /// allocates only until the qdisc's largest backlog has been seen.
    txq_of: HashMap<u32, u16, BuildHasherDefault<IdHasher>>,
    /// The packet put back because its queue was stopped (`q->gso_skb`),
    /// with that queue, and since when.
    requeued: Option<(u16, Held, Time)>,
    /// Packets held (the requeued one included) per transmit queue.
    held: Vec<u32>,
}

/// Packet handles are slots of the simulator's store: spread them over
/// the 64 bits hashbrown reads.
#[derive(Default)]
struct IdHasher(u64);

impl Hasher for IdHasher {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, _: &[u8]) {
        unreachable!("packet handles are u32")
    }
    fn write_u32(&mut self, k: u32) {
        self.0 = (k as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15);
    }
}

/// One descriptor ring.
#[derive(Clone, Debug)]
struct Ring {
    /// Posted packets, oldest first; while a packet is on the wire it is
    /// the head of its ring.
    held: VecDeque<Held>,
    /// Bytes posted (the one on the wire included).
    bytes: u64,
    dql: Option<Dql>,
    /// With [`Arbitration::Posted`]: each held descriptor's posting number,
    /// in step with `held`.
    posted: VecDeque<u64>,
}

/// The NIC.
#[derive(Clone, Debug)]
pub struct Nic {
    /// `mq`'s child qdisc per transmit queue; none under a root qdisc.
    qdiscs: Vec<Queue>,
    /// The root qdisc of every transmit queue, instead of `qdiscs`.
    root: Option<Box<Root>>,
    rings: Vec<Ring>,
    /// Descriptors per ring; 0: no ring.
    ring_size: u32,
    /// Packets each queue may send per turn.
    quota: Vec<u32>,
    salt: Salt,
    /// The queue whose turn it is, and packets it sent in this turn.
    turn: usize,
    used: u32,
    /// Descriptors are served in posting order ([`Arbitration::Posted`]);
    /// the next posting number.
    by_posting: bool,
    next_post: u64,
    /// Transmissions complete explicitly (a ring, or the host stack
    /// tracking its packets): each one is reported to [`Nic::complete`].
    tracked: bool,
    /// The queue of the packet on the wire, when tracked.
    on_wire: Option<(u16, Held)>,
    /// The queue the host stack chose for the next packet.
    steer: Option<u16>,
    /// Packets and bytes in qdiscs and rings, the one on the wire not counted.
    bytes: u64,
    pkts: usize,
    pub stats: Vec<TxQueueStats>,
}

/// How the NIC shares its wire between its rings.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Arbitration {
    /// Round robin, one packet per turn.
    Packet,
    /// Round robin, up to this many descriptors per turn.
    Batch(u32),
    /// Round robin, up to queue i's weight in packets per turn.
    Weighted(Vec<u32>),
    /// Across rings, oldest posted descriptor first (needs rings).
    Posted,
}

impl Nic {
    /// A NIC with one qdisc per transmit queue (at least one), choosing
    /// among them by flow hash under `salt`, serving them one packet per
    /// turn, without rings: the multi-queue NIC of hash-cast at its
    /// simplest.
    pub fn new(qdiscs: Vec<Queue>, salt: Salt) -> Nic {
        assert!(!qdiscs.is_empty(), "a NIC has at least one transmit queue");
        let n = qdiscs.len();
        Nic::of(n, qdiscs, None, salt)
    }

    fn of(n: usize, qdiscs: Vec<Queue>, root: Option<Box<Root>>, salt: Salt) -> Nic {
        Nic {
            rings: vec![
                Ring {
                    held: VecDeque::new(),
                    bytes: 0,
                    dql: None,
                    posted: VecDeque::new(),
                };
                n
            ],
            qdiscs,
            root,
            ring_size: 0,
            quota: vec![1; n],
            salt,
            turn: 0,
            used: 0,
            by_posting: false,
            next_post: 0,
            tracked: false,
            on_wire: None,
            steer: None,
            bytes: 0,
            pkts: 0,
            stats: vec![TxQueueStats::default(); n],
        }
    }

    /// A NIC of `queues` transmit queues (at least one) under one root
    /// qdisc `root` (Linux's `fq` or `sfq` as the device's root instead of
    /// `mq`), a packet's queue chosen as [`Nic::new`]'s. Without rings the
    /// root feeds the wire directly.
    pub fn with_root(queues: usize, root: RootQdisc, salt: Salt) -> Nic {
        assert!(queues > 0, "a NIC has at least one transmit queue");
        let root = Box::new(Root {
            q: root,
            txq_of: HashMap::default(),
            requeued: None,
            held: vec![0; queues],
        });
        Nic::of(queues, Vec::new(), Some(root), salt)
    }

    /// With descriptor rings of `size` (0: none), each under Byte Queue
    /// Limits if `bql`.
    pub fn with_rings(mut self, size: u32, bql: bool) -> Nic {
        assert!(size > 0 || !bql, "BQL limits a ring");
        self.ring_size = size;
        for r in &mut self.rings {
            r.dql = bql.then(Dql::new);
        }
        self.tracked |= size > 0;
        self
    }

    /// With the NIC's arbitration between its rings.
    pub fn with_arbitration(mut self, a: &Arbitration) -> Nic {
        let n = self.len();
        self.by_posting = *a == Arbitration::Posted;
        assert!(
            !self.by_posting || self.ring_size > 0,
            "posting order needs rings (with_rings first)"
        );
        self.quota = match a {
            Arbitration::Packet | Arbitration::Posted => vec![1; n],
            Arbitration::Batch(b) => vec![(*b).max(1); n],
            Arbitration::Weighted(w) => {
                assert_eq!(w.len(), n, "one weight per queue");
                w.iter().map(|&x| x.max(1)).collect()
            }
        };
        self
    }

    /// Every transmission is reported to [`Nic::complete`] (the host stack
    /// counts each flow's packets below TCP), with or without rings.
    pub fn tracked(mut self) -> Nic {
        self.tracked = true;
        self
    }

    /// `mq`'s child qdiscs, one per transmit queue (none under a root).
    pub fn queues(&self) -> &[Queue] {
        &self.qdiscs
    }

    /// The root qdisc, if the NIC has one instead of `mq`.
    pub fn root(&self) -> Option<&RootQdisc> {
        self.root.as_ref().map(|r| &r.q)
    }

    /// Packets waiting above transmit queue `q`'s ring: in its qdisc, or
    /// in the root for it (a requeued one included).
    pub fn qdisc_packets(&self, q: usize) -> usize {
        match &self.root {
            Some(r) => r.held[q] as usize,
            None => self.qdiscs[q].packets(),
        }
    }

    /// Whether the root qdisc is stalled on a requeued packet now, and
    /// for which transmit queue.
    pub fn stalled_on(&self) -> Option<usize> {
        self.root
            .as_ref()
            .and_then(|r| r.requeued.map(|(q, _, _)| q as usize))
    }

    /// Transmit queues.
    pub fn len(&self) -> usize {
        self.rings.len()
    }

    pub fn is_empty(&self) -> bool {
        self.rings.is_empty()
    }

    /// Descriptors per ring (0: no rings).
    pub fn ring_size(&self) -> u32 {
        self.ring_size
    }

    /// Packets each queue may send per turn.
    pub fn quota(&self, q: usize) -> u32 {
        self.quota[q]
    }

    /// Packets in ring `q` now (the one on the wire counted).
    pub fn ring_packets(&self, q: usize) -> usize {
        self.rings[q].held.len()
    }

    /// Ring `q`'s BQL limit now, bytes (None without BQL).
    pub fn bql_limit(&self, q: usize) -> Option<u32> {
        self.rings[q].dql.as_ref().map(|d| d.limit())
    }

    /// Whether every transmission must be reported to [`Nic::complete`].
    #[inline]
    pub fn is_tracked(&self) -> bool {
        self.tracked
    }

    /// The transmit queue a flow hash maps to (`skb_tx_hash`).
    #[inline]
    pub fn queue_of(&self, hash: u32) -> usize {
        flow_hash::pick(hash, self.salt, self.rings.len() as u32) as usize
    }

    /// The next packet enqueued goes to queue `q` (the host stack's choice,
    /// Linux's `netdev_pick_tx`), not to its hash's pick.
    #[inline]
    pub fn steer(&mut self, q: usize) {
        debug_assert!(q < self.len());
        self.steer = Some(q as u16);
    }

    /// Moves packets from qdisc `q` into its ring while the ring has a free
    /// descriptor and its byte limit allows.
    fn refill(&mut self, q: usize, now: Time) {
        while !self.stopped(q) {
            let Some(p) = self.qdiscs[q].dequeue(now) else {
                break;
            };
            self.post(q, p);
        }
    }

    /// Whether transmit queue `q` is stopped: its ring full, or its bytes
    /// over the BQL limit (`netif_xmit_frozen_or_stopped`: the driver's
    /// `netif_tx_stop_queue`, BQL's `netdev_tx_sent_queue`).
    #[inline]
    fn stopped(&self, q: usize) -> bool {
        let r = &self.rings[q];
        r.held.len() >= self.ring_size as usize || r.dql.as_ref().is_some_and(|d| d.avail() < 0)
    }

    /// Posts packet `p` of transmit queue `q` to its ring.
    #[inline]
    fn post(&mut self, q: usize, p: Held) {
        let r = &mut self.rings[q];
        r.held.push_back(p);
        if self.by_posting {
            r.posted.push_back(self.next_post);
            self.next_post += 1;
        }
        r.bytes += p.size as u64;
        if let Some(d) = r.dql.as_mut() {
            d.queued(p.size);
        }
        let s = &mut self.stats[q];
        s.deq_pkts += 1;
        s.ring_enq_pkts += 1;
        s.ring_max_pkts = s.ring_max_pkts.max(r.held.len() as u64);
    }

    /// The root qdisc runs (`__qdisc_run`): it hands out packets, each to
    /// its transmit queue's ring (`qdisc_restart` -> `sch_direct_xmit`),
    /// until it is empty or a packet finds its queue stopped; that one is
    /// put back (`dev_requeue_skb`) and the root stops. Run again, it
    /// first retries the requeued packet, and gives out nothing while that
    /// one's queue is still stopped (`dequeue_skb`). Out of line, as the
    /// rest of the root's path: `mq`'s stays as it was.
    #[inline(never)]
    fn run_root(&mut self, now: Time) {
        loop {
            let root = self.root.as_deref_mut().expect("a root qdisc");
            let (q, p) = match root.requeued.take() {
                Some((q, p, since)) => {
                    if self.stopped(q as usize) {
                        let root = self.root.as_deref_mut().expect("a root qdisc");
                        root.requeued = Some((q, p, since));
                        return;
                    }
                    self.stats[q as usize].root_stall_ps += (now - since).0;
                    (q as usize, p)
                }
                None => {
                    let Some(p) = root.q.dequeue(now) else {
                        return;
                    };
                    let q = root.txq_of.remove(&p.id).expect("a queue mapping") as usize;
                    if self.stopped(q) {
                        let root = self.root.as_deref_mut().expect("a root qdisc");
                        root.requeued = Some((q as u16, p, now));
                        self.stats[q].requeues += 1;
                        return;
                    }
                    (q, p)
                }
            };
            self.root.as_deref_mut().expect("a root qdisc").held[q] -= 1;
            self.post(q, p);
        }
    }

    /// A packet for transmit queue `q` into the root qdisc.
    #[inline(never)]
    fn enqueue_root(&mut self, q: usize, pkt: &mut Packet, id: u32, now: Time) -> Result<(), u32> {
        let root = self.root.as_deref_mut().expect("a root qdisc");
        let (pkts, bytes) = (root.q.packets(), root.q.bytes());
        let r = root.q.enqueue(pkt, id, now);
        // A discipline may push out a packet it held to admit this one.
        self.pkts = self.pkts + root.q.packets() - pkts;
        self.bytes = self.bytes + root.q.bytes() - bytes;
        let admitted = match r {
            Ok(()) => true,
            Err(d) if d == id => {
                self.stats[q].drop_pkts += 1;
                false
            }
            Err(d) => {
                let v = root.txq_of.remove(&d).expect("a queue mapping") as usize;
                root.held[v] -= 1;
                self.stats[v].drop_pkts += 1;
                true
            }
        };
        if admitted {
            root.txq_of.insert(id, q as u16);
            root.held[q] += 1;
            let s = &mut self.stats[q];
            s.enq_pkts += 1;
            s.max_pkts = s.max_pkts.max(root.held[q] as u64);
        }
        if self.ring_size > 0 {
            self.run_root(now);
        }
        r
    }

    /// Without rings the root feeds the wire: its next packet.
    #[inline(never)]
    fn dequeue_root_to_wire(&mut self, now: Time) -> Option<Held> {
        let root = self.root.as_deref_mut().expect("a root qdisc");
        let p = root.q.dequeue(now)?;
        let q = root.txq_of.remove(&p.id).expect("a queue mapping") as usize;
        root.held[q] -= 1;
        self.stats[q].deq_pkts += 1;
        self.bytes -= p.size as u64;
        self.pkts -= 1;
        if self.tracked {
            self.on_wire = Some((q as u16, p));
        }
        Some(p)
    }

    /// Whether queue `q` has a packet for the wire.
    #[inline]
    fn ready(&self, q: usize) -> bool {
        if self.ring_size > 0 {
            !self.rings[q].held.is_empty()
        } else {
            self.qdiscs[q].packets() > 0
        }
    }

    /// The queue to serve next: the current one while it has a packet and
    /// quota left in its turn, else the next one round that has a packet.
    fn arbitrate(&mut self) -> Option<usize> {
        if self.by_posting {
            return self.oldest_posted();
        }
        let n = self.rings.len();
        if self.used < self.quota[self.turn] && self.ready(self.turn) {
            self.used += 1;
            return Some(self.turn);
        }
        for k in 1..=n {
            let q = (self.turn + k) % n;
            if self.ready(q) {
                self.turn = q;
                self.used = 1;
                return Some(q);
            }
        }
        None
    }

    /// The ring whose head descriptor was posted first ([`Arbitration::Posted`]).
    fn oldest_posted(&self) -> Option<usize> {
        (0..self.rings.len())
            .filter_map(|q| self.rings[q].posted.front().map(|&k| (k, q)))
            .min()
            .map(|(_, q)| q)
    }

    /// The transmission under way completed at `now`: its descriptor is
    /// freed (BQL counts it) and the qdisc refills the ring. Returns the
    /// packet, if one was on the wire.
    pub fn complete(&mut self, now: Time) -> Option<Held> {
        let (q, p) = self.on_wire.take()?;
        let q = q as usize;
        let s = &mut self.stats[q];
        s.sent_pkts += 1;
        s.sent_bytes += p.size as u64;
        if self.ring_size > 0 {
            let r = &mut self.rings[q];
            let head = r.held.pop_front();
            debug_assert_eq!(head, Some(p), "the head of its ring was on the wire");
            if self.by_posting {
                r.posted.pop_front();
            }
            r.bytes -= p.size as u64;
            if let Some(d) = r.dql.as_mut() {
                d.completed(p.size, now);
                s.bql_max_limit = s.bql_max_limit.max(d.limit() as u64);
            }
            if self.root.is_some() {
                // The driver wakes the queue; a root stalled on it runs.
                self.run_root(now);
            } else {
                self.refill(q, now);
            }
        }
        Some(p)
    }
}

impl QueueDiscipline for Nic {
    fn enqueue(&mut self, pkt: &mut Packet, id: u32, now: Time) -> Result<(), u32> {
        let q = match self.steer.take() {
            Some(q) => q as usize,
            None => self.queue_of(pkt.hash),
        };
        if self.root.is_some() {
            return self.enqueue_root(q, pkt, id, now);
        }
        let qd = &mut self.qdiscs[q];
        let (pkts, bytes) = (qd.packets(), qd.bytes());
        let r = qd.enqueue(pkt, id, now);
        // A discipline may push out a packet it held to admit this one.
        self.pkts = self.pkts + qd.packets() - pkts;
        self.bytes = self.bytes + qd.bytes() - bytes;
        let s = &mut self.stats[q];
        match r {
            Ok(()) => {
                s.enq_pkts += 1;
                s.max_pkts = s.max_pkts.max(qd.packets() as u64);
            }
            Err(d) => {
                s.drop_pkts += 1;
                if d != id {
                    s.enq_pkts += 1;
                }
            }
        }
        if self.ring_size > 0 {
            self.refill(q, now);
        }
        r
    }

    fn dequeue(&mut self, now: Time) -> Option<Held> {
        if self.pkts == 0 {
            return None;
        }
        debug_assert!(self.on_wire.is_none(), "one transmission at a time");
        if self.ring_size == 0 && self.root.is_some() {
            return self.dequeue_root_to_wire(now);
        }
        let q = self.arbitrate()?;
        let p = if self.ring_size > 0 {
            // The packet stays in its ring, holding its descriptor, until
            // its transmission completes.
            *self.rings[q].held.front().expect("a ready ring")
        } else {
            let p = self.qdiscs[q].dequeue(now)?;
            self.stats[q].deq_pkts += 1;
            p
        };
        self.bytes -= p.size as u64;
        self.pkts -= 1;
        if self.tracked {
            self.on_wire = Some((q as u16, p));
        }
        Some(p)
    }

    fn bytes(&self) -> u64 {
        self.bytes
    }

    fn packets(&self) -> usize {
        self.pkts
    }

    fn for_each(&self, f: &mut dyn FnMut(u32)) {
        self.qdiscs.iter().for_each(|q| q.for_each(f));
        if let Some(r) = &self.root {
            r.q.for_each(f);
            if let Some((_, p, _)) = r.requeued {
                f(p.id);
            }
        }
        let wire = self.on_wire.map(|(_, p)| p.id);
        for r in &self.rings {
            r.held
                .iter()
                .filter(|p| Some(p.id) != wire)
                .for_each(|p| f(p.id));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::queue::ByValue;
    use crate::queue::{BufferLimit, DropTail};

    fn qdiscs(n: usize, limit: u32) -> Vec<Queue> {
        (0..n)
            .map(|_| Queue::DropTail(DropTail::new(BufferLimit::Packets(limit))))
            .collect()
    }

    fn nic(n: usize, limit: u32) -> Nic {
        Nic::new(qdiscs(n, limit), Salt(99))
    }

    fn pkt(hash: u32) -> Packet {
        Packet {
            hash,
            payload: 1460,
            ..Packet::blank()
        }
    }

    /// Flow hashes that land on queues 0, 0 and 1 of a two-queue NIC.
    fn two_on_one_one_alone(m: &Nic) -> [u32; 3] {
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

    /// Sends `n` packets (completing each before the next, as the wire
    /// does), counting them by flow.
    fn serve(m: &mut Nic, flows: &[u32], n: usize) -> Vec<u32> {
        let mut sent = vec![0u32; flows.len()];
        for _ in 0..n {
            let p = m.dequeue_pkt(Time::ZERO).unwrap();
            m.complete(Time::ZERO);
            sent[flows.iter().position(|&h| h == p.hash).unwrap()] += 1;
        }
        sent
    }

    fn backlog(m: &mut Nic, flows: &[u32], per_flow: usize) {
        for _ in 0..per_flow {
            for &h in flows {
                m.enqueue_pkt(pkt(h), Time::ZERO).unwrap();
            }
        }
    }

    #[test]
    fn flows_sharing_a_queue_split_its_turn_hash_cast() {
        // Three backlogged flows, two hashed onto one queue: served round
        // robin by queue, the lone flow gets half the NIC, the others a quarter.
        let mut m = nic(2, 1000);
        let flows = two_on_one_one_alone(&m);
        backlog(&mut m, &flows, 100);
        let sent = serve(&mut m, &flows, 120);
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

    #[test]
    fn a_steered_packet_goes_to_the_chosen_queue_not_its_hashs() {
        let mut m = nic(2, 10);
        let [a, _, _] = two_on_one_one_alone(&m);
        m.steer(1);
        m.enqueue_pkt(pkt(a), Time::ZERO).unwrap();
        m.enqueue_pkt(pkt(a), Time::ZERO).unwrap();
        assert_eq!(m.stats[1].enq_pkts, 1, "steered once");
        assert_eq!(m.stats[0].enq_pkts, 1, "then by hash again");
    }

    #[test]
    fn the_qdisc_fills_the_ring_up_to_its_descriptors_and_refills_on_completion() {
        let mut m = nic(1, 100).with_rings(4, false);
        for _ in 0..10 {
            m.enqueue_pkt(pkt(7), Time::ZERO).unwrap();
        }
        assert_eq!(m.ring_packets(0), 4);
        assert_eq!(m.queues()[0].packets(), 6, "the backlog waits in the qdisc");
        assert_eq!(m.packets(), 10);
        let p = m.dequeue_pkt(Time::ZERO).unwrap();
        assert_eq!(p.hash, 7);
        // On the wire: still holding its descriptor, no longer counted as held.
        assert_eq!((m.ring_packets(0), m.packets()), (4, 9));
        let done = m.complete(Time::from_us(12)).unwrap();
        assert_eq!(done.size, 1500);
        assert_eq!(m.ring_packets(0), 4, "refilled from the qdisc");
        assert_eq!(m.queues()[0].packets(), 5);
        let s = m.stats[0];
        assert_eq!((s.enq_pkts, s.ring_enq_pkts, s.sent_pkts), (10, 5, 1));
        assert_eq!(s.ring_max_pkts, 4);
        assert_eq!(m.complete(Time::from_us(12)), None, "nothing on the wire");
    }

    #[test]
    fn bql_keeps_the_ring_short_and_the_backlog_in_the_qdisc() {
        let mut m = nic(1, 1000).with_rings(256, true);
        let mut now = Time::ZERO;
        for _ in 0..500 {
            m.enqueue_pkt(pkt(7), now).unwrap();
        }
        assert_eq!(m.ring_packets(0), 1, "limit 0: one packet, then stopped");
        for _ in 0..400 {
            m.dequeue_pkt(now).unwrap();
            now += Time::from_us(12);
            m.complete(now);
            m.enqueue_pkt(pkt(7), now).unwrap();
        }
        assert!(m.ring_packets(0) <= 8, "ring {}", m.ring_packets(0));
        assert!(m.queues()[0].packets() > 490, "the backlog is in the qdisc");
        assert!(m.bql_limit(0).unwrap() > 0);
    }

    #[test]
    fn batch_arbitration_serves_up_to_a_batch_per_turn() {
        let mut m = nic(2, 100)
            .with_rings(16, false)
            .with_arbitration(&Arbitration::Batch(4));
        let [a, _, b] = two_on_one_one_alone(&m);
        backlog(&mut m, &[a, b], 20);
        let mut order = vec![];
        for _ in 0..12 {
            let p = m.dequeue_pkt(Time::ZERO).unwrap();
            m.complete(Time::ZERO);
            order.push(u8::from(p.hash == b));
        }
        assert_eq!(order, [0, 0, 0, 0, 1, 1, 1, 1, 0, 0, 0, 0]);
    }

    #[test]
    fn a_batch_turn_ends_early_when_the_ring_runs_dry() {
        let mut m = nic(2, 100)
            .with_rings(16, false)
            .with_arbitration(&Arbitration::Batch(4));
        let [a, _, b] = two_on_one_one_alone(&m);
        backlog(&mut m, &[a], 2);
        backlog(&mut m, &[b], 10);
        let mut order = vec![];
        for _ in 0..6 {
            let p = m.dequeue_pkt(Time::ZERO).unwrap();
            m.complete(Time::ZERO);
            order.push(u8::from(p.hash == b));
        }
        assert_eq!(order, [0, 0, 1, 1, 1, 1]);
    }

    #[test]
    fn weighted_arbitration_shares_the_wire_by_weight() {
        // Weights 3 and 1: the flow alone in queue 1 gets a quarter; the two
        // sharing queue 0 get three eighths each: the weights turn the
        // hash-cast ratio of 2 into 3/8 : 1/4 = 1.5.
        let mut m = nic(2, 1000).with_arbitration(&Arbitration::Weighted(vec![3, 1]));
        let flows = two_on_one_one_alone(&m);
        backlog(&mut m, &flows, 200);
        let sent = serve(&mut m, &flows, 400);
        assert_eq!(sent[2], 100, "{sent:?}");
        assert_eq!(sent[0] + sent[1], 300);
    }

    #[test]
    fn posted_order_shares_by_flow_while_rings_have_room_and_by_queue_when_full() {
        // Rings with room: descriptors go out in the order they were posted,
        // whatever their queue, so the three flows, sending alternately,
        // get a third each (round robin by queue would give the lone flow half).
        let mut m = nic(2, 1000)
            .with_rings(255, false)
            .with_arbitration(&Arbitration::Posted);
        let flows = two_on_one_one_alone(&m);
        backlog(&mut m, &flows, 40);
        assert_eq!(serve(&mut m, &flows, 120), vec![40, 40, 40]);
        // Full rings (4 descriptors, a deep qdisc behind each): each
        // completion frees a descriptor of its own ring, refilled from its
        // own qdisc, so the rings take turns: by queue again.
        let mut m = nic(2, 1000)
            .with_rings(4, false)
            .with_arbitration(&Arbitration::Posted);
        backlog(&mut m, &flows, 100);
        let sent = serve(&mut m, &flows, 120);
        assert_eq!(sent[2], 60, "{sent:?}");
        assert_eq!(sent[0] + sent[1], 60);
    }

    #[test]
    fn a_pushed_out_packet_is_counted_as_the_qdiscs_drop_and_the_arrival_admitted() {
        use crate::queue::Sfq;
        let sfq = |_| {
            Queue::Sfq(Box::new(Sfq::new(
                16,
                BufferLimit::Packets(3),
                Time::ZERO,
                crate::engine::Rng::new(1),
            )))
        };
        let mut m = Nic::new((0..1).map(sfq).collect(), Salt(1));
        for _ in 0..3 {
            m.enqueue_pkt(pkt(1), Time::ZERO).unwrap();
        }
        // A new flow's packet: SFQ drops from the longest bucket instead.
        let r = m.enqueue_pkt(pkt(2), Time::ZERO);
        let victim = r.unwrap_err();
        assert_eq!(victim.hash, 1);
        assert_eq!(m.packets(), 3);
        assert_eq!((m.stats[0].enq_pkts, m.stats[0].drop_pkts), (4, 1));
    }

    fn fq_root(n: usize, ring: u32) -> Nic {
        use crate::queue::{Fq, FqConfig};
        let fq = Fq::new(FqConfig {
            limit_pkts: 10_000,
            flow_limit_pkts: 100,
            quantum_bytes: 3000,
            initial_quantum_bytes: 3000,
            refill_delay: Time::from_ms(40),
        });
        Nic::with_root(n, RootQdisc::Fq(Box::new(fq)), Salt(99)).with_rings(ring, false)
    }

    #[test]
    fn a_root_fq_evens_flows_across_queues_that_hash_unevenly() {
        // Two flows on queue 0, one on queue 1; rings of one descriptor:
        // the root's round robin over flows decides, not the queues'.
        let mut m = fq_root(2, 1);
        let flows = two_on_one_one_alone(&m);
        backlog(&mut m, &flows, 100);
        let sent = serve(&mut m, &flows, 120);
        for &s in &sent {
            assert!((38..=42).contains(&s), "{sent:?}");
        }
        assert_eq!(m.stats[0].enq_pkts + m.stats[1].enq_pkts, 300);
    }

    #[test]
    fn a_packet_for_a_full_ring_is_requeued_and_stalls_the_root() {
        // Ring of 2: flow a's third packet finds its ring full and is
        // put back; flow b's packets wait behind it though b's ring is empty.
        let mut m = fq_root(2, 2);
        let [a, _, b] = two_on_one_one_alone(&m);
        let (qa, qb) = (m.queue_of(a), m.queue_of(b));
        for _ in 0..3 {
            m.enqueue_pkt(pkt(a), Time::ZERO).unwrap();
        }
        assert_eq!(m.stalled_on(), Some(qa));
        assert_eq!(m.stats[qa].requeues, 1);
        for _ in 0..4 {
            m.enqueue_pkt(pkt(b), Time::ZERO).unwrap();
        }
        assert_eq!(m.ring_packets(qb), 0, "head-of-line blocked");
        assert_eq!((m.qdisc_packets(qa), m.qdisc_packets(qb)), (1, 4));
        assert_eq!(m.packets(), 7);
        // The wire serves ring a; its completion wakes queue a: the
        // requeued packet goes, then the root runs on and fills b's ring.
        assert_eq!(m.dequeue_pkt(Time::ZERO).unwrap().hash, a);
        m.complete(Time::from_us(12));
        assert_eq!(m.stats[qa].root_stall_ps, Time::from_us(12).0);
        assert_eq!(m.ring_packets(qa), 2);
        assert_eq!(m.ring_packets(qb), 2);
        assert_eq!(m.stalled_on(), Some(qb), "b's third packet now waits");
        let mut n = 0;
        m.for_each(&mut |_| n += 1);
        assert_eq!(n, 6);
    }

    #[test]
    fn a_root_without_rings_feeds_the_wire_directly() {
        let mut m = fq_root(2, 0).tracked();
        let flows = two_on_one_one_alone(&m);
        backlog(&mut m, &flows, 10);
        let sent = serve(&mut m, &flows, 30);
        assert_eq!(sent, [10, 10, 10]);
        assert_eq!(m.stalled_on(), None);
        let q = m.queue_of(flows[2]);
        assert_eq!((m.stats[q].deq_pkts, m.stats[q].sent_pkts), (10, 10));
    }

    #[test]
    fn for_each_lists_every_held_packet_but_the_one_on_the_wire() {
        let mut m = nic(1, 100).with_rings(2, false);
        for _ in 0..4 {
            m.enqueue_pkt(pkt(7), Time::ZERO).unwrap();
        }
        m.dequeue_pkt(Time::ZERO).unwrap();
        let mut n = 0;
        m.for_each(&mut |_| n += 1);
        assert_eq!(n, 3);
    }
}
