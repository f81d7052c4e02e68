//! Prefetching for large networks. On a fat tree each hop touches its own
//! switch port, transmitter, drop tally, FIB row, queue ring and packet,
//! none of them in the first-level cache (BENCHMARKS.md, "Scale"), and the
//! loop used to wait for each miss in turn. Before running an event, the
//! loop looks a few packet events ahead in the array of those due soonest
//! and asks the CPU for what they will touch, in stages, since what an
//! arrival touches depends on what it reads first (the distances are those
//! of [`DEEP`]):
//!
//! * `far` events ahead: the fields of the packet that a switch reads
//!   ([`HOP_FIELDS`]), and its input's index where it arrives (what it
//!   meets there, the event carries); this stage alone looks past the end
//!   of the calendar's bucket being drained into the next one, so that
//!   the first packets of each bucket are hinted too;
//! * `keys` ahead: what routing reads first (the destination's host
//!   index, the switch's FIB index, whether the input climbs), or, at a
//!   host, the rest of the packet and the endpoint's first line;
//! * `tables` ahead: the switch's FIB record and the destination's group;
//! * `mid` ahead: the FIB entry that those select, or, at a host, the
//!   part of the endpoint that the delivery touches (a TCP connection's
//!   receiving socket);
//! * `set` ahead: the next-hop set that the entry names;
//! * [`NEAR`] (one) ahead: the output port the packet will be routed to, with
//!   its transmitter and drop tally; that port is remembered
//!   (`Simulation::ahead`), and where no node sprays it is written into the
//!   arrival event itself, which then forwards without routing again
//!   (`Arrival::Routed`: a route is then a function of the input port and
//!   the packet's destination and hash, none of which changes in flight);
//! * the next event: in the remembered port, the tail of its queue's ring
//!   and its input's count in the tally;
//! * and the port of the next transmission's end, then its ring's front.
//!
//! Each stage reads only lines a stage before it hinted at least one event
//! earlier: a stage that read a line nobody had hinted waited for memory
//! there, which at k = 48 was most of the prefetcher's time (BENCHMARKS.md,
//! "Fourth pass"). Those routing stages ([`DEEP`]) run on networks of
//! [`DEEP_PORTS`] ports or more; on smaller ones routing's arrays stay in
//! cache and the [`SHALLOW`] stages skip them (the packet four events
//! ahead, the entry two, the port one; at a host, the packet and the
//! endpoint's first line two ahead, the socket one).
//!
//! Each line is hinted once: after an event that moved no packet (a
//! transmission's end, a timer) the stages are skipped unless the packet
//! events ahead changed, and a waiting transmission's end is hinted once
//! however many events pass before it (BENCHMARKS.md, "Fourth pass": these
//! repeats were a third of the hints' instructions).
//!
//! Hints only, but for that route: nothing else the simulation reads
//! changes (routing is peeked, not taken; the remembered port is only
//! prefetched), so results are bit-identical with and without (a test runs
//! a large network both ways, and a debug build checks each route taken
//! ahead against routing's own). Small networks (the incast) skip it:
//! their working set stays in cache and the hints would only cost
//! instructions.

use super::{Arrival, ArrivalAt, Event, Simulation};
use crate::engine::{prefetch, prefetch_bytes};
use crate::net::{Port, PortId, PORT_PACKET_BYTES};
use crate::packet::Packet;

/// How many packet events ahead each stage looks (0: no such stage).
/// Each reads only what the stage before hinted, one event or more
/// earlier, so that no stage waits for memory itself.
#[derive(Clone, Copy)]
struct Stages {
    far: usize,
    keys: usize,
    tables: usize,
    mid: usize,
    set: usize,
}

const NEAR: usize = 1;

/// On networks of [`DEEP_PORTS`] ports or more, whose routing arrays and
/// per-port indices fall out of the second-level cache: every dependent
/// read of routing gets a stage of its own.
const DEEP: Stages = Stages {
    far: 6,
    keys: 5,
    tables: 4,
    mid: 3,
    set: 2,
};

/// Below, where those arrays stay cached and the extra stages would cost
/// only instructions (98 a packet-hop at k = 16, with no time saved).
const SHALLOW: Stages = Stages {
    far: 4,
    keys: 0,
    tables: 0,
    mid: 2,
    set: 0,
};

/// Networks with at least this many ports prefetch in [`DEEP`] stages:
/// between k = 16 fat trees (6,144 ports, where they cost time) and
/// k = 32 ones (40,960); k = 48 (165,888) ran about a fifth faster with
/// them (two steps of 10 and 9 %, BENCHMARKS.md, "Fourth pass").
pub(super) const DEEP_PORTS: usize = 32_768;

/// What the prefetcher last hinted (see [`Simulation::prefetch_ahead`]),
/// and how deep it looks.
#[derive(Clone, Copy, Debug)]
pub(super) struct Hinted {
    /// Whether it uses the [`DEEP`] stages.
    deep: bool,
    /// The packets of the first and the farthest packet events looked at.
    packets: (u32, u32),
    /// The port of the next transmission's end, and whether its ring's
    /// front was hinted too.
    tx_done: PortId,
    tx_front: bool,
    /// Whether a switch arrival routed at [`NEAR`] carries its route to
    /// `forward` ([`super::Arrival::Routed`]; no node sprays).
    route_ahead: bool,
}

impl Hinted {
    pub(super) fn new(deep: bool, route_ahead: bool) -> Hinted {
        Hinted {
            deep,
            packets: (u32::MAX, u32::MAX),
            tx_done: PortId::MAX,
            tx_front: false,
            route_ahead,
        }
    }
}

/// The bytes of a packet that a switch hop reads or writes (routing,
/// enqueue, the tally), as (offset, length): a packet spans two or three
/// cache lines, these fields one or two, and a hint for a line nobody reads
/// still holds a miss buffer. Computed from the fields, whatever order the
/// compiler gives them.
const HOP_FIELDS: (usize, usize) = {
    use std::mem::offset_of;
    /// A field's size, from a projection to it (never called).
    const fn size<F>(_: fn(&Packet) -> &F) -> usize {
        std::mem::size_of::<F>()
    }
    let spans = [
        (offset_of!(Packet, stamp), size(|p| &p.stamp)),
        (offset_of!(Packet, flow), size(|p| &p.flow)),
        (offset_of!(Packet, dst), size(|p| &p.dst)),
        (offset_of!(Packet, hash), size(|p| &p.hash)),
        (offset_of!(Packet, payload), size(|p| &p.payload)),
        (offset_of!(Packet, header), size(|p| &p.header)),
        (offset_of!(Packet, flags), size(|p| &p.flags)),
        (offset_of!(Packet, timeout_rtx), size(|p| &p.timeout_rtx)),
    ];
    let (mut lo, mut hi, mut i) = (usize::MAX, 0, 0);
    while i < spans.len() {
        let (o, n) = spans[i];
        if o < lo {
            lo = o;
        }
        if o + n > hi {
            hi = o + n;
        }
        i += 1;
    }
    (lo, hi - lo)
};

// The packet store aligns packets to 32 bytes (`sim::slab`): a hop's
// fields within one 32-byte unit never straddle two lines, and a hint
// names one.
const _: () = assert!(HOP_FIELDS.0 / 32 == (HOP_FIELDS.0 + HOP_FIELDS.1 - 1) / 32);

/// Networks with at least this many ports prefetch.
pub(super) const PREFETCH_PORTS: usize = 256;

impl Simulation {
    /// Hints the memory of the next few events (see the module comment).
    #[inline(never)]
    pub(super) fn prefetch_ahead(&mut self) {
        if self.hinted.deep {
            self.prefetch_events::<true>();
        } else {
            self.prefetch_events::<false>();
        }
        if let Some(&Event::TxDone(p)) = self.events.peek_reserved_event(0) {
            self.prefetch_tx_done(p);
        }
    }

    #[inline(always)]
    fn prefetch_events<const DEEP_STAGES: bool>(&mut self) {
        let far = if DEEP_STAGES { DEEP.far } else { SHALLOW.far };
        // After an event that was not a packet's (a transmission's end, a
        // timer), the packet events ahead are mostly those already hinted:
        // hint them again only if the first or the farthest has changed.
        let seen = (self.packet_at(0), self.packet_at(far));
        if seen != self.hinted.packets {
            self.hinted.packets = seen;
            self.prefetch_packets::<DEEP_STAGES>();
        }
    }

    /// The packet of the packet event `ahead` places on (`u32::MAX`: none).
    #[inline(always)]
    fn packet_at(&self, ahead: usize) -> u32 {
        match self.events.peek_packet_event(ahead) {
            Some(&Event::Arrive { pkt, .. }) => pkt,
            _ => u32::MAX,
        }
    }

    /// The stages of the packet events ahead (see the module comment).
    #[inline(always)]
    fn prefetch_packets<const DEEP_STAGES: bool>(&mut self) {
        let st = if DEEP_STAGES { DEEP } else { SHALLOW };
        if let Some(&Event::Arrive { port, pkt, .. }) = self.events.peek_packet_event_across(st.far)
        {
            let (start, len) = HOP_FIELDS;
            prefetch_bytes(self.packets.slot_ptr(pkt).wrapping_byte_add(start), len);
            if DEEP_STAGES {
                if let Some(i) = self.drops.in_index.get(port as usize) {
                    prefetch(i);
                }
            }
        }
        if DEEP_STAGES {
            self.prefetch_routing_keys(st);
        }
        if let Some(&Event::Arrive { port, pkt, at }) = self.events.peek_packet_event(st.mid) {
            let packet = self.packets.get(pkt);
            match at.unpack() {
                Arrival::Switch(node) => self.net.prefetch_route_in(node, packet, port),
                // The socket: its endpoint's kind was hinted at `keys`.
                Arrival::Host if DEEP_STAGES => {
                    if let Some(ep) = self.endpoints.get(packet.endpoint() as usize) {
                        ep.prefetch_for(packet);
                    }
                }
                // The endpoint reads the whole segment; the socket's hint at
                // `NEAR` reads the endpoint's kind, in its first line.
                Arrival::Host => {
                    prefetch_bytes(packet as *const Packet, std::mem::size_of::<Packet>());
                    if let Some(ep) = self.endpoints.get(packet.endpoint() as usize) {
                        prefetch(ep);
                    }
                }
                Arrival::Delayed | Arrival::Routed(_) => {}
            }
        }
        if DEEP_STAGES {
            if let Some(&Event::Arrive { port, pkt, at }) = self.events.peek_packet_event(st.set) {
                if let Arrival::Switch(node) = at.unpack() {
                    self.net
                        .prefetch_route_set(node, self.packets.get(pkt), port);
                }
            }
        }
        if let Some(&Event::Arrive { port, pkt, .. }) = self.events.peek_packet_event(0) {
            if self.ahead.0 == pkt {
                let out = self.ahead.1;
                let input = self.drops.in_index[port as usize];
                self.prefetch_tail(out, input);
            }
        }
        if let Some(&Event::Arrive { port, pkt, at }) = self.events.peek_packet_event(NEAR) {
            let packet = self.packets.get(pkt);
            match at.unpack() {
                Arrival::Switch(node) => {
                    let out = self.net.peek_route_in(node, packet, port);
                    self.ahead = (pkt, out);
                    if self.hinted.route_ahead {
                        // The arrival takes this route: `forward` need not
                        // route again.
                        if let Some(Event::Arrive { at, .. }) =
                            self.events.peek_packet_event_mut(NEAR)
                        {
                            *at = ArrivalAt::pack(Arrival::Routed(out));
                        }
                    }
                    self.prefetch_port(out);
                }
                // Routed at an earlier look (its port hinted then).
                Arrival::Routed(out) => self.ahead = (pkt, out),
                Arrival::Host if !DEEP_STAGES => {
                    if let Some(ep) = self.endpoints.get(packet.endpoint() as usize) {
                        ep.prefetch_for(packet);
                    }
                }
                _ => {}
            }
        }
    }

    /// The deep stages' first reads of routing: at `keys`, what routing
    /// reads first (or, at a host, the rest of the packet and its
    /// endpoint's first line); at `tables`, the FIB record and the
    /// destination's group.
    #[inline(always)]
    fn prefetch_routing_keys(&self, st: Stages) {
        if let Some(&Event::Arrive { port, pkt, at }) = self.events.peek_packet_event(st.keys) {
            let packet = self.packets.get(pkt);
            match at.unpack() {
                Arrival::Switch(node) => self.net.prefetch_route_keys(node, packet, port),
                Arrival::Host => {
                    prefetch_bytes(packet as *const Packet, std::mem::size_of::<Packet>());
                    let ep = packet.endpoint() as usize;
                    if ep < self.endpoints.len() {
                        prefetch_bytes(self.endpoints.as_ptr().wrapping_add(ep), 1);
                    }
                }
                Arrival::Delayed | Arrival::Routed(_) => {}
            }
        }
        if let Some(&Event::Arrive { pkt, at, .. }) = self.events.peek_packet_event(st.tables) {
            if let Arrival::Switch(node) = at.unpack() {
                self.net.prefetch_route_tables(node, self.packets.get(pkt));
            }
        }
    }

    /// The transmission's end at port `p`: its port on the first call, the
    /// front of its queue's ring (read from the port, by now cached) on the
    /// next. Reading the ring's place right after hinting the port waited
    /// for the port's line from memory: 15 % of a k = 48 run's samples.
    #[inline(always)]
    fn prefetch_tx_done(&mut self, p: PortId) {
        let Some(port) = self.net.ports.get(p as usize) else {
            return;
        };
        if p != self.hinted.tx_done {
            self.hinted.tx_done = p;
            self.hinted.tx_front = false;
            prefetch_bytes(port as *const Port, PORT_PACKET_BYTES);
        } else if !self.hinted.tx_front {
            self.hinted.tx_front = true;
            if let (_, Some(front)) = port.queue.ring_ends() {
                prefetch(front);
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
            prefetch_bytes(port as *const Port, PORT_PACKET_BYTES);
            tally.prefetch_head();
        }
    }

    /// What an arrival from `input` into port `p` writes beyond its
    /// records: its queue's ring tail and its input's count in the tally.
    #[inline(always)]
    fn prefetch_tail(&self, p: PortId, input: u32) {
        let i = p as usize;
        if let (Some(port), Some(tally)) = (self.net.ports.get(i), self.drops.ports.get(i)) {
            if let (Some(tail), _) = port.queue.ring_ends() {
                prefetch(tail);
            }
            tally.prefetch_count(input);
        }
    }
}
