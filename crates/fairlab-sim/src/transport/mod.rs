//! Transports on hosts, as endpoints behind one enum.
//!
//! An [`Endpoint`] is both ends of one transport flow: a TCP connection
//! ([`Conn`]: two sockets), a UDP flow ([`UdpFlow`]: a paced sender and the
//! receiver counting its datagrams). The simulator holds them in one vector
//! (TCP connections first, then UDP flows, then any other kind, in the
//! order the spec lowers them) and calls them without knowing their kind:
//!
//! * a packet carries its flow, 2 x its endpoint's index + the side that
//!   sent it ([`crate::packet::Packet::flow`]): delivery hands it to
//!   [`Endpoint::on_packet`] of that endpoint, whatever the protocol;
//! * a wake-up is an endpoint index and a token the endpoint chose
//!   ([`Outbox::wake`]); when it is due the simulator calls
//!   [`Endpoint::on_timer`] with that token. What a token means (a TCP
//!   side's RTO and delayed-ACK deadline, a UDP sender's next datagram) and
//!   which wake-ups have been superseded is the endpoint's business;
//! * the application (a workload) opens an endpoint ([`Endpoint::open`]) and
//!   writes to it ([`Endpoint::write`]); what a step means to the
//!   application (opened, bytes delivered, aborted) comes back as a
//!   [`Step`], which the simulator passes on to the workload;
//! * a packet's size is its own header plus payload fields, set by the
//!   endpoint that built it;
//! * what a transport alone has (TCP's sockets, their host-stack feedback
//!   under TCP Small Queues, their timeouts and congestion state) is asked
//!   of that transport's own type, reached by [`Endpoint::as_tcp`] (or
//!   [`Endpoint::as_udp`]) where the caller needs it; the results' rows and
//!   totals come from each transport's own collector in `metrics`, which
//!   reads its endpoints the same way.
//!
//! One step of an endpoint, as the simulator runs it: the endpoint puts
//! packets (all from one host, [`Outbox::host`]) and wake-ups into the
//! [`Outbox`]; the simulator schedules the wake-ups, then hands the packets
//! to the host's NIC (a packet the NIC refuses at once comes back through
//! [`Endpoint::on_local_drop`]); then, if the step asks ([`Step::sync`]),
//! [`Endpoint::after_send`] lets the endpoint ask for wake-ups that depend
//! on what was refused (TCP's), scheduled in turn.
//!
//! Adding a transport (a paced, rate-based one, say) is:
//! 1. a file here with its state and the core methods above (open, write,
//!    on_packet, on_timer, and the naming and path hooks), its own timers
//!    as tokens and its own packet kinds as header/payload/flags fields of
//!    the packets it builds;
//! 2. a variant of [`Endpoint`] and its arm in each core method below (a
//!    dozen short arms; an `as_...` accessor for what only it has);
//! 3. a collector in `metrics` for its rows and totals (`tcp_flows.rs`,
//!    `udp_totals.rs` are the two there are), added to `COLLECTORS`;
//! 4. its name in the spec's `Transport` and the lowering of an endpoint
//!    on it (`spec/lower/sim/endpoints.rs`), which the workloads that can
//!    run on it then open.
//!
//! The event loop, delivery, the packet path, the workloads and the other
//! transports do not change. The per-packet methods stay free of
//! allocation, logging and dynamic dispatch: the enum is matched, never
//! boxed behind a trait object.

#[cfg(test)]
mod echo;
mod radon;
pub mod radon_stamp;
pub mod tcp;
mod tcp_conn;
mod udp;

#[cfg(test)]
pub use echo::EchoFlow;
pub use radon::{RadonFlow, RadonStats, Reserved, SeriesRow};
pub use tcp_conn::Conn;
pub use udp::{Arrivals, UdpFlow};

use crate::packet::{FiveTuple, FlowHasher, NodeId, Packet, Protocol};
use crate::units::{Bytes, Time};

/// The workload an endpoint serves and its place in it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ConnApp {
    pub workload: u32,
    /// Server index within an incast workload, flow index within a short
    /// workload; 0 for a bulk flow or a UDP flow.
    pub index: u32,
}

/// What an endpoint emits during a step. Reused from step to step, so that
/// the packet path does not allocate.
#[derive(Clone, Debug, Default)]
pub struct Outbox {
    /// The host the packets leave from (the endpoint sets it with them).
    pub host: NodeId,
    /// Packets to send, in order.
    pub packets: Vec<Packet>,
    /// Wake-ups asked for: (time, token), the time not before now.
    pub wake: Vec<(Time, u32)>,
}

impl Outbox {
    pub fn with_capacity(n: usize) -> Outbox {
        Outbox {
            host: 0,
            packets: Vec::with_capacity(n),
            wake: Vec::with_capacity(4),
        }
    }
}

/// What a step of an endpoint means to its application, and whether it
/// wants [`Endpoint::after_send`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Step {
    /// The side that acted (0 the opener or sender, 1 the listener or
    /// receiver): `delivered` is its application's.
    pub side: u8,
    /// Call [`Endpoint::after_send`] for `side` once the outbox is sent.
    pub sync: bool,
    /// Sides whose application now sees the endpoint open: bit 1 the
    /// listener's, told first, bit 0 the opener's.
    pub opened: u8,
    /// Payload bytes delivered in order to the application on `side`.
    pub delivered: u64,
    /// Those bytes are the flow's data (counted in the throughput series),
    /// not requests going the other way.
    pub data: bool,
    /// The endpoint gave up (too many timeouts).
    pub aborted: bool,
}

impl Step {
    /// Nothing happened (a superseded wake-up): nothing sent, nothing to tell.
    pub const NONE: Step = Step {
        side: 0,
        sync: false,
        opened: 0,
        delivered: 0,
        data: false,
        aborted: false,
    };
    /// Whether the application hears of this step.
    #[inline]
    pub fn reports(&self) -> bool {
        self.opened != 0 || self.delivered > 0 || self.aborted
    }
}

/// Both ends of one transport flow.
#[derive(Clone, Debug)]
// Connections are nearly all of a run's endpoints and are reached on every
// packet: boxing them would add a pointer chase there; the few UDP flows
// carry the difference instead.
#[allow(clippy::large_enum_variant)]
pub enum Endpoint {
    Tcp(Conn),
    Udp(UdpFlow),
    /// A Radon stream (docs/radon.md).
    Radon(RadonFlow),
    /// A toy transport of the tests (and of docs/model.md's example).
    #[cfg(test)]
    Echo(EchoFlow),
}

impl Endpoint {
    /// The workload it serves.
    #[inline]
    pub fn app(&self) -> ConnApp {
        match self {
            Endpoint::Tcp(c) => c.app,
            Endpoint::Udp(u) => u.app,
            Endpoint::Radon(r) => r.app,
            #[cfg(test)]
            Endpoint::Echo(e) => e.app,
        }
    }
    /// Hosts of the opener (or sender) and of the listener (or receiver).
    pub fn hosts(&self) -> (NodeId, NodeId) {
        match self {
            Endpoint::Tcp(c) => c.sock[0].endpoints(),
            Endpoint::Udp(u) => (u.src, u.dst),
            Endpoint::Radon(r) => (r.src, r.dst),
            #[cfg(test)]
            Endpoint::Echo(e) => (e.src, e.dst),
        }
    }
    pub fn protocol(&self) -> Protocol {
        match self {
            Endpoint::Tcp(_) => Protocol::Tcp,
            Endpoint::Udp(_) | Endpoint::Radon(_) => Protocol::Udp,
            #[cfg(test)]
            Endpoint::Echo(_) => Protocol::Udp,
        }
    }
    /// Names the flow: `tuple` is the opener's (or sender's) 5-tuple; each
    /// direction that sends takes its hash from `hasher`.
    pub fn set_flow(&mut self, tuple: FiveTuple, hasher: &FlowHasher) {
        match self {
            Endpoint::Tcp(c) => c.set_flow(tuple, hasher),
            Endpoint::Udp(u) => u.set_flow(tuple, hasher.hash(&tuple)),
            Endpoint::Radon(r) => r.set_flow(tuple, hasher),
            #[cfg(test)]
            Endpoint::Echo(e) => e.set_flow(tuple, hasher),
        }
    }
    /// The application opens it (`handshake`: a TCP connection opens with
    /// a three-way handshake, else established at once).
    pub fn open(&mut self, now: Time, handshake: bool, out: &mut Outbox) -> Step {
        match self {
            Endpoint::Tcp(c) => c.open(now, handshake, out),
            Endpoint::Udp(u) => u.open(now, out),
            Endpoint::Radon(r) => r.open(now, out),
            #[cfg(test)]
            Endpoint::Echo(e) => e.on_timer(now, out),
        }
    }
    /// The application on `side` writes `bytes` more to send.
    pub fn write(&mut self, now: Time, side: usize, bytes: u64, out: &mut Outbox) -> Step {
        match self {
            Endpoint::Tcp(c) => c.write(now, side, bytes, out),
            // A UDP sender's datagrams are paced by its rate, not written.
            Endpoint::Udp(_) | Endpoint::Radon(_) => Step::NONE,
            #[cfg(test)]
            Endpoint::Echo(_) => Step::NONE,
        }
    }
    /// A packet of this endpoint reaches its destination host.
    #[inline]
    pub fn on_packet(&mut self, now: Time, pkt: &Packet, out: &mut Outbox) -> Step {
        match self {
            Endpoint::Tcp(c) => c.on_packet(now, pkt, out),
            Endpoint::Udp(u) => u.on_packet(pkt),
            Endpoint::Radon(r) => r.on_packet(now, pkt, out),
            #[cfg(test)]
            Endpoint::Echo(e) => e.on_packet(pkt, out),
        }
    }
    /// Hints the part of this endpoint that delivering `pkt` will touch
    /// (a prefetch: see `sim::prefetch`); a TCP connection's receiving
    /// socket, not the whole connection, which is 15 cache lines.
    #[inline(always)]
    pub fn prefetch_for(&self, pkt: &Packet) {
        use crate::engine::prefetch;
        match self {
            Endpoint::Tcp(c) => c.prefetch_for(pkt),
            Endpoint::Udp(u) => prefetch(u),
            Endpoint::Radon(r) => prefetch(r),
            #[cfg(test)]
            Endpoint::Echo(e) => prefetch(e),
        }
    }
    /// A wake-up this endpoint asked for with `token` is due.
    #[inline]
    pub fn on_timer(&mut self, now: Time, token: u32, out: &mut Outbox) -> Step {
        match self {
            Endpoint::Tcp(c) => c.on_timer(now, token, out),
            Endpoint::Udp(u) => u.on_timer(now, out),
            Endpoint::Radon(r) => r.on_timer(now, out),
            #[cfg(test)]
            Endpoint::Echo(e) => e.on_timer(now, out),
        }
    }
    /// The sending host's own queue refused `pkt`, which it emitted.
    #[inline]
    pub fn on_local_drop(&mut self, now: Time, pkt: &Packet) {
        match self {
            Endpoint::Tcp(c) => c.on_local_drop(now, pkt),
            // Datagrams are fire and forget.
            Endpoint::Udp(_) => {}
            Endpoint::Radon(r) => r.on_local_drop(pkt),
            #[cfg(test)]
            Endpoint::Echo(_) => {}
        }
    }
    /// Side `side`'s packets have left (and the refused ones come back):
    /// the wake-ups that depend on them go into `out.wake`.
    #[inline]
    pub fn after_send(&mut self, now: Time, side: usize, out: &mut Outbox) {
        match self {
            Endpoint::Tcp(c) => c.after_send(now, side, out),
            Endpoint::Udp(_) | Endpoint::Radon(_) => {}
            #[cfg(test)]
            Endpoint::Echo(_) => {}
        }
    }
    /// The flow hash side `side`'s packets carry (UDP: its one direction).
    pub fn flow_hash(&self, side: usize) -> u32 {
        match self {
            Endpoint::Tcp(c) => c.sock[side].flow_hash(),
            Endpoint::Udp(u) => u.flow_hash(),
            Endpoint::Radon(r) => r.flow_hash(side),
            #[cfg(test)]
            Endpoint::Echo(e) => e.flow_hash(side),
        }
    }
    /// What its packets' paths depend on: the data sender's and receiver's
    /// hosts, the flow hashes of data and of the way back (`None` for UDP:
    /// nothing comes back), and the size of a full data packet.
    pub fn path_probe(&self) -> (NodeId, NodeId, u32, Option<u32>, Bytes) {
        match self {
            Endpoint::Tcp(c) => c.path_probe(),
            Endpoint::Udp(u) => (u.src, u.dst, u.flow_hash(), None, u.size),
            Endpoint::Radon(r) => r.path_probe(),
            #[cfg(test)]
            Endpoint::Echo(e) => {
                let size = crate::units::Bytes(u64::from(e.payload + crate::packet::UDP_IP_HEADER));
                (e.src, e.dst, e.flow_hash(0), Some(e.flow_hash(1)), size)
            }
        }
    }
    /// The TCP connection, if it is one: what only TCP has (its sockets'
    /// host-stack feedback, timeouts, congestion state) is asked of it.
    #[inline]
    pub fn as_tcp(&self) -> Option<&Conn> {
        match self {
            Endpoint::Tcp(c) => Some(c),
            _ => None,
        }
    }
    #[inline]
    pub fn as_tcp_mut(&mut self) -> Option<&mut Conn> {
        match self {
            Endpoint::Tcp(c) => Some(c),
            _ => None,
        }
    }
    /// The UDP flow, if it is one.
    #[inline]
    pub fn as_udp(&self) -> Option<&UdpFlow> {
        match self {
            Endpoint::Udp(u) => Some(u),
            _ => None,
        }
    }
    /// The Radon stream, if it is one.
    #[inline]
    pub fn as_radon(&self) -> Option<&RadonFlow> {
        match self {
            Endpoint::Radon(r) => Some(r),
            _ => None,
        }
    }
    #[inline]
    pub fn as_radon_mut(&mut self) -> Option<&mut RadonFlow> {
        match self {
            Endpoint::Radon(r) => Some(r),
            _ => None,
        }
    }
}
