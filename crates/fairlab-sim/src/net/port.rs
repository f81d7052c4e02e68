//! An output port: a queue feeding one direction of a link.
//!
//! A packet leaves the queue when the wire becomes free (and, on a port with
//! a shaper, [`super::Network::shaper`], when the shaper's gate is open),
//! occupies the wire for its serialization time, then reaches the peer after
//! the propagation delay.

use crate::net::NodeId;
use crate::queue::Queue;
use crate::units::{BitsPerSec, Time};

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PortStats {
    pub enq_pkts: u64,
    pub enq_bytes: u64,
    pub deq_pkts: u64,
    pub deq_bytes: u64,
    pub drop_pkts: u64,
    pub drop_bytes: u64,
    /// Largest queue occupancy seen (the packet on the wire is not counted).
    pub max_bytes: u64,
    pub max_pkts: u64,
    /// Occupancy integrated over time (packet-picoseconds, byte-picoseconds),
    /// for the time-averaged (standing) queue.
    pub area_pkts: u128,
    pub area_bytes: u128,
    /// When the occupancy last changed.
    pub last_change: crate::units::Time,
    /// Packets that left before a packet of their flow that arrived earlier.
    pub reordered: u64,
    /// Arrivals and drops of segments sent by a retransmission timeout.
    pub timeout_rtx_pkts: u64,
    pub timeout_rtx_drops: u64,
}

impl PortStats {
    /// Accounts the occupancy held since the last change, up to `now`.
    #[inline]
    pub fn integrate(&mut self, now: crate::units::Time, pkts: u64, bytes: u64) {
        let dt = (now.0 - self.last_change.0) as u128;
        self.area_pkts += pkts as u128 * dt;
        self.area_bytes += bytes as u128 * dt;
        self.last_change = now;
    }
}

/// Aligned to a line and 256 bytes (four lines): unaligned at 272, a
/// port spanned five or six lines, and the hops of a large topology,
/// which find their ports out of cache, waited for each (issue 23, fifth
/// pass). Keep it there (the assert below).
#[derive(Clone, Debug)]
#[repr(align(64))]
pub struct Port {
    pub node: NodeId,
    pub peer: NodeId,
    pub rate: BitsPerSec,
    /// One-way propagation delay of the link.
    pub delay: Time,
    pub queue: Queue,
    pub stats: PortStats,
    /// Packets that have arrived, for arrival stamps.
    pub arrivals: u64,
    /// Per flow key: the arrival stamp of its last packet to leave (empty:
    /// not tracked, as on host NICs). A boxed slice: set once, and a
    /// `Vec`'s capacity would take the port past four lines.
    pub last_departed: Box<[u64]>,
}

impl Port {
    pub fn new(node: NodeId, peer: NodeId, rate: BitsPerSec, delay: Time, queue: Queue) -> Port {
        Port {
            node,
            peer,
            rate,
            delay,
            queue,
            stats: PortStats::default(),
            arrivals: 0,
            last_departed: Box::default(),
        }
    }
}

const _: () = assert!(std::mem::size_of::<Port>() == 256);
