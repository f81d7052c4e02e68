//! An output port: a queue feeding one direction of a link.
//!
//! A packet leaves the queue when the wire becomes free (and, on a port with
//! a shaper, [`super::Network::shaper`], when the shaper's gate is open),
//! occupies the wire for its serialization time, then reaches the peer after
//! the propagation delay.

use crate::net::NodeId;
use crate::queue::Queue;
use crate::units::{BitsPerSec, Time};

/// A 128-bit sum kept as two 64-bit halves: aligned to 8 bytes, where a
/// `u128` is aligned to 16 and would pad [`PortStats`] and [`Port`] past
/// four lines.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[repr(C)]
pub struct Area {
    lo: u64,
    hi: u64,
}

impl Area {
    #[inline]
    pub fn get(self) -> u128 {
        (u128::from(self.hi) << 64) | u128::from(self.lo)
    }
    #[inline]
    pub fn add(&mut self, by: u128) {
        let sum = self.get() + by;
        (self.lo, self.hi) = (sum as u64, (sum >> 64) as u64);
    }
}

/// In the order a packet uses them (`repr(C)`): what every arrival and
/// every departure writes first (96 bytes: the integrals, their time, the
/// arrival, enqueue and dequeue counts, the maxima), then the counts of
/// drops and rarer events, which only a drop, a reordering or a timeout's
/// retransmission touches. See [`Port`] for why.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[repr(C)]
pub struct PortStats {
    /// Occupancy integrated over time (packet-picoseconds, byte-picoseconds),
    /// for the time-averaged (standing) queue.
    pub area_pkts: Area,
    pub area_bytes: Area,
    /// When the occupancy last changed.
    pub last_change: crate::units::Time,
    /// Packets that have arrived, admitted or not, for their arrival
    /// stamps (`sim::ports`).
    pub arrivals: u64,
    pub enq_pkts: u64,
    pub enq_bytes: u64,
    /// Largest queue occupancy seen (the packet on the wire is not counted).
    pub max_bytes: u64,
    pub max_pkts: u64,
    pub deq_pkts: u64,
    pub deq_bytes: u64,
    pub drop_pkts: u64,
    pub drop_bytes: u64,
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
        self.area_pkts.add(pkts as u128 * dt);
        self.area_bytes.add(bytes as u128 * dt);
        self.last_change = now;
    }
}

/// Four aligned lines (256 bytes), laid out by hand (`repr(C)`) so that
/// what a packet's arrival and departure read and write, the discipline,
/// the delay and the hot statistics, fills the first three (184 bytes),
/// and a drop's counts, the reordering table, the rate and the ends the
/// fourth. Left to the compiler, the statistics' time, the arrival count
/// and the delay fell in the fourth line, and a hop of a large topology,
/// which finds its port out of cache, waited for all four (issue 23,
/// sixth pass; unaligned at 272 bytes it had been five or six).
#[derive(Clone, Debug)]
#[repr(C, align(64))]
pub struct Port {
    pub queue: Queue,
    /// One-way propagation delay of the link.
    pub delay: Time,
    pub stats: PortStats,
    /// Per flow key: the arrival stamp of its last packet to leave (empty:
    /// not tracked, as on host NICs). A boxed slice: set once, and a
    /// `Vec`'s capacity would take the port past four lines.
    pub last_departed: Box<[u64]>,
    pub rate: BitsPerSec,
    pub node: NodeId,
    pub peer: NodeId,
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
            last_departed: Box::default(),
        }
    }
}

/// The bytes of a [`Port`] a packet's arrival and departure touch: the
/// discipline, the delay and the hot statistics, up to the drop counts.
/// What a prefetcher hints of a port (the fourth line would hold a miss
/// buffer for nothing).
pub const PORT_PACKET_BYTES: usize =
    std::mem::offset_of!(Port, stats) + std::mem::offset_of!(PortStats, drop_pkts);

const _: () = assert!(std::mem::size_of::<Port>() == 256);
// What a packet's arrival and departure touch ends in the third line.
const _: () = {
    use std::mem::offset_of;
    assert!(offset_of!(Port, stats) + offset_of!(PortStats, deq_bytes) + 8 <= PORT_PACKET_BYTES);
    assert!(offset_of!(Port, delay) + 8 <= PORT_PACKET_BYTES);
    assert!(PORT_PACKET_BYTES <= 192);
};

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_area_carries_into_its_high_half_as_a_u128_would() {
        let mut a = Area::default();
        let mut want = 0u128;
        for by in [u64::MAX as u128, 1, 3 << 70, u64::MAX as u128 * 7, 12345] {
            a.add(by);
            want += by;
            assert_eq!(a.get(), want);
        }
        assert!(a.get() > u64::MAX as u128);
    }
}
