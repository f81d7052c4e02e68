//! Prefetching for large networks. On a fat tree each hop touches its own
//! switch port, transmitter, drop tally, FIB row, queue ring and packet,
//! none of them in the first-level cache (BENCHMARKS.md, "Scale"), and the
//! loop used to wait for each miss in turn. Before running an event, the
//! loop looks a few packet events ahead in the array of those due soonest
//! and asks the CPU for what they will touch, in stages, since what an
//! arrival touches depends on what it reads first:
//!
//! * [`FAR`] events ahead: the packet of an arrival, and where it arrives;
//! * [`MID`] ahead: the FIB entry that the (by now cached) packet's
//!   destination selects;
//! * [`NEAR`] ahead: the output port it will be routed to, with its
//!   transmitter and drop tally, or, at a host, the part of the endpoint
//!   it is delivered to that the delivery touches (a TCP connection's
//!   receiving socket); that output port is remembered (`Simulation::ahead`);
//! * the next event: in the remembered port, the tail of its queue's ring
//!   and its input's slot of the tally;
//! * and the port of the next transmission's end, with its ring's front.
//!
//! Hints only: nothing the simulation reads changes (routing is peeked, not
//! taken; the remembered port is only prefetched), so results are
//! bit-identical with and without. Small networks (the incast) skip it:
//! their working set stays in cache and the hints would only cost
//! instructions.

use super::{Arrival, Event, Simulation};
use crate::engine::{prefetch, prefetch_bytes};
use crate::net::PortId;
use crate::packet::Packet;

/// How many packet events ahead each stage looks.
const FAR: usize = 4;
const MID: usize = 2;
const NEAR: usize = 1;

/// Networks with at least this many ports prefetch.
pub(super) const PREFETCH_PORTS: usize = 256;

impl Simulation {
    /// Hints the memory of the next few events (see the module comment).
    #[inline(never)]
    pub(super) fn prefetch_ahead(&mut self) {
        if let Some(&Event::Arrive { port, pkt }) = self.events.peek_packet_event(FAR) {
            prefetch_bytes(self.packets.slot_ptr(pkt), std::mem::size_of::<Packet>());
            prefetch(&self.arrive[port as usize]);
        }
        if let Some(&Event::Arrive { port, pkt }) = self.events.peek_packet_event(MID) {
            if let Arrival::Switch(node) = self.arrive[port as usize] {
                self.net
                    .prefetch_route_in(node, self.packets.get(pkt), port);
            }
        }
        if let Some(&Event::Arrive { port, pkt }) = self.events.peek_packet_event(0) {
            if self.ahead.0 == pkt {
                let out = self.ahead.1;
                let input = self.drops.in_index[port as usize];
                self.prefetch_tail(out, input);
            }
        }
        if let Some(&Event::Arrive { port, pkt }) = self.events.peek_packet_event(NEAR) {
            let packet = self.packets.get(pkt);
            match self.arrive[port as usize] {
                Arrival::Switch(node) => {
                    let out = self.net.peek_route_in(node, packet, port);
                    self.ahead = (pkt, out);
                    self.prefetch_port(out);
                }
                Arrival::Host => {
                    if let Some(ep) = self.endpoints.get(packet.endpoint() as usize) {
                        ep.prefetch_for(packet);
                    }
                }
                Arrival::Delayed => {}
            }
        }
        if let Some(&Event::TxDone(p)) = self.events.peek_reserved_event(0) {
            if let Some(port) = self.net.ports.get(p as usize) {
                prefetch(port);
                if let Some((_, front)) = port.queue.ring_ends() {
                    prefetch(front);
                }
            }
        }
    }

    /// The records of output port `p`.
    #[inline(always)]
    fn prefetch_port(&self, p: PortId) {
        let i = p as usize;
        if let (Some(tx), Some(port), Some(tally)) = (
            self.tx.get(i),
            self.net.ports.get(i),
            self.drops.ports.get(i),
        ) {
            prefetch(tx);
            prefetch(port);
            prefetch(tally);
        }
    }

    /// What an arrival from `input` into port `p` writes beyond its
    /// records: its queue's ring tail and its slot of the tally.
    #[inline(always)]
    fn prefetch_tail(&self, p: PortId, input: u32) {
        let i = p as usize;
        if let (Some(port), Some(tally)) = (self.net.ports.get(i), self.drops.ports.get(i)) {
            if let Some((tail, _)) = port.queue.ring_ends() {
                prefetch(tail);
            }
            tally.prefetch_slot(input);
        }
    }
}
