//! Per port, the largest backlog and the longest delay its packets met,
//! kept only when asked (Radon's network-calculus check reads them): the
//! per-packet path pays one branch otherwise.
//!
//! Both are counted as network calculus counts them, in bytes on the wire
//! (with `[link] framing`): a packet is backlogged from its arrival at the
//! port until its last bit has left, so the backlog includes the packet
//! being transmitted (which the queue's own byte count no longer holds),
//! and its delay is its wait plus its own transmission.
//!
//! The packet captures (`[metrics] pcap`, [`super::capture`]) ride on the
//! same watch, so that they too cost nothing when off.

use super::capture::Capture;
use crate::units::Time;

#[derive(Clone, Debug, Default)]
pub struct PortWatch {
    /// By packet id: when it entered its current port's queue.
    enq_at: Vec<Time>,
    /// By port: the wire bytes of the packet on the wire, if any.
    on_wire: Vec<u64>,
    /// By port: the largest backlog seen, in wire bytes.
    max_backlog: Vec<u64>,
    /// By port: the longest time a packet spent from its arrival to the
    /// end of its transmission.
    max_delay: Vec<Time>,
    /// Whether the backlog and delay are kept (a watch made for a capture
    /// alone keeps neither).
    pub(super) bounds: bool,
    /// The packet captures, when asked.
    pub(super) capture: Option<Box<Capture>>,
}

impl PortWatch {
    pub fn new(ports: usize) -> PortWatch {
        PortWatch {
            enq_at: Vec::new(),
            on_wire: vec![0; ports],
            max_backlog: vec![0; ports],
            max_delay: vec![Time::ZERO; ports],
            bounds: true,
            capture: None,
        }
    }

    /// Packet `id` has joined port `p`'s queue, which now holds
    /// `queued_wire_bytes`; `busy`: the wire still carries a packet.
    #[inline]
    pub fn enqueued(&mut self, p: usize, id: u32, now: Time, queued_wire_bytes: u64, busy: bool) {
        if !self.bounds {
            return;
        }
        let i = id as usize;
        if i >= self.enq_at.len() {
            self.enq_at.resize(i + 1, Time::ZERO);
        }
        self.enq_at[i] = now;
        let backlog = queued_wire_bytes + if busy { self.on_wire[p] } else { 0 };
        if backlog > self.max_backlog[p] {
            self.max_backlog[p] = backlog;
        }
    }

    /// Packet `id` of `wire_bytes` starts its transmission on port `p`; its
    /// last bit leaves at `done`.
    #[inline]
    pub fn transmitting(&mut self, p: usize, id: u32, wire_bytes: u64, done: Time) {
        if !self.bounds {
            return;
        }
        self.on_wire[p] = wire_bytes;
        let delay = done.saturating_sub(self.enq_at[id as usize]);
        if delay > self.max_delay[p] {
            self.max_delay[p] = delay;
        }
    }

    /// Port `p`'s largest backlog, in wire bytes.
    pub fn max_backlog_bytes(&self, p: usize) -> u64 {
        self.max_backlog[p]
    }

    /// Port `p`'s longest delay.
    pub fn max_delay(&self, p: usize) -> Time {
        self.max_delay[p]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_packet_behind_one_on_the_wire_counts_both_and_waits_for_it() {
        let mut w = PortWatch::new(1);
        // Packet 0 arrives at an idle port and goes on the wire at once.
        w.enqueued(0, 0, Time::from_us(0), 1000, false);
        w.transmitting(0, 0, 1000, Time::from_us(8));
        // Packet 1 arrives while it is sent: 1000 queued + 1000 on the wire.
        w.enqueued(0, 1, Time::from_us(2), 1000, true);
        w.transmitting(0, 1, 1000, Time::from_us(16));
        assert_eq!(w.max_backlog_bytes(0), 2000);
        assert_eq!(w.max_delay(0), Time::from_us(14));
    }
}
