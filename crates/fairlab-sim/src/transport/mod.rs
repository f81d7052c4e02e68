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
//! * the flows table and the run summary read each endpoint's
//!   [`Endpoint::flow_record`], [`Endpoint::trace`] and
//!   [`Endpoint::add_totals`].
//!
//! One step of an endpoint, as the simulator runs it: the endpoint puts
//! packets (all from one host, [`Outbox::host`]) and wake-ups into the
//! [`Outbox`]; the simulator schedules the wake-ups, then hands the packets
//! to the host's NIC (a packet the NIC refuses at once comes back through
//! [`Endpoint::on_local_drop`]); then, if the step asks ([`Step::sync`]),
//! [`Endpoint::after_send`] lets the endpoint ask for wake-ups that depend
//! on what was refused (TCP's), scheduled in turn.
//!
//! Adding a transport (a paced, rate-based one, say) is: a file here with
//! its state and these methods (its own timers as tokens, its own packet
//! kinds as header/payload/flags fields of the packets it builds), a
//! variant of [`Endpoint`] and its arm in each method below, and its spec
//! lowering (building the endpoints, and a workload that opens them). The
//! event loop, delivery, the packet path and the metrics collectors do not
//! change: it shows in the flows table if its `flow_record` returns rows.
//! The per-packet methods stay free of allocation, logging and dynamic
//! dispatch: the enum is matched, never boxed behind a trait object.

pub mod tcp;
mod tcp_conn;
mod udp;

pub use tcp_conn::Conn;
pub use udp::{Arrivals, UdpFlow};

use crate::net::Network;
use crate::packet::{FiveTuple, FlowHasher, NodeId, Packet, Protocol};
use crate::units::{Bytes, Time};
use tcp::TraceRow;

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

/// One row of the flows table, as its endpoint sees it (the workload's
/// columns are added by the collector).
#[derive(Clone, Debug, PartialEq)]
pub struct FlowRecord {
    /// Congestion control (and options) of the data sender.
    pub cc: String,
    /// Whether the data sender recovers with SACK (RFC 6675).
    pub sack: bool,
    /// The data sender's maximum segment size (payload bytes).
    pub mss: u32,
    pub aborted: bool,
    /// Hosts of the data sender and receiver.
    pub src: NodeId,
    pub dst: NodeId,
    /// When the application opened it.
    pub opened: Option<Time>,
    pub bytes_delivered: u64,
    pub segments_sent: u64,
    pub retransmits: u64,
    pub fast_retransmits: u64,
    pub timeouts: u64,
    /// Data timeouts by cause: a lost retransmission, the last packets of
    /// the block, a whole window (TcpStats).
    pub timeouts_retransmission: u64,
    pub timeouts_tail: u64,
    pub timeouts_window: u64,
    pub ecn_reductions: u64,
    /// Longest time the sender had data outstanding and heard nothing.
    pub longest_silence: Time,
    pub final_cwnd: u64,
    pub srtt: Option<Time>,
    pub rto: Time,
    pub local_drops: u64,
    /// The data sender's 5-tuple.
    pub tuple: FiveTuple,
}

/// Whole-run totals over the endpoints (the run summary's).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Totals {
    /// Retransmission timeouts.
    pub timeouts: u64,
    /// Data timeouts by cause (FlowRecord).
    pub timeouts_retransmission: u64,
    pub timeouts_tail: u64,
    pub timeouts_window: u64,
    /// UDP datagrams sent and delivered.
    pub udp_sent: u64,
    pub udp_delivered: u64,
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
}

impl Endpoint {
    /// The workload it serves.
    #[inline]
    pub fn app(&self) -> ConnApp {
        match self {
            Endpoint::Tcp(c) => c.app,
            Endpoint::Udp(u) => u.app,
        }
    }
    /// Hosts of the opener (or sender) and of the listener (or receiver).
    pub fn hosts(&self) -> (NodeId, NodeId) {
        match self {
            Endpoint::Tcp(c) => c.sock[0].endpoints(),
            Endpoint::Udp(u) => (u.src, u.dst),
        }
    }
    pub fn protocol(&self) -> Protocol {
        match self {
            Endpoint::Tcp(_) => Protocol::Tcp,
            Endpoint::Udp(_) => Protocol::Udp,
        }
    }
    /// Names the flow: `tuple` is the opener's (or sender's) 5-tuple; each
    /// direction that sends takes its hash from `hasher`.
    pub fn set_flow(&mut self, tuple: FiveTuple, hasher: &FlowHasher) {
        match self {
            Endpoint::Tcp(c) => c.set_flow(tuple, hasher),
            Endpoint::Udp(u) => u.set_flow(tuple, hasher.hash(&tuple)),
        }
    }
    /// The application opens it (`handshake`: a TCP connection opens with
    /// a three-way handshake, else established at once).
    pub fn open(&mut self, now: Time, handshake: bool, out: &mut Outbox) -> Step {
        match self {
            Endpoint::Tcp(c) => c.open(now, handshake, out),
            Endpoint::Udp(u) => u.open(now, out),
        }
    }
    /// The application on `side` writes `bytes` more to send.
    pub fn write(&mut self, now: Time, side: usize, bytes: u64, out: &mut Outbox) -> Step {
        match self {
            Endpoint::Tcp(c) => c.write(now, side, bytes, out),
            // A UDP sender's datagrams are paced by its rate, not written.
            Endpoint::Udp(_) => Step::NONE,
        }
    }
    /// A packet of this endpoint reaches its destination host.
    #[inline]
    pub fn on_packet(&mut self, now: Time, pkt: &Packet, out: &mut Outbox) -> Step {
        match self {
            Endpoint::Tcp(c) => c.on_packet(now, pkt, out),
            Endpoint::Udp(u) => u.on_packet(pkt),
        }
    }
    /// A wake-up this endpoint asked for with `token` is due.
    #[inline]
    pub fn on_timer(&mut self, now: Time, token: u32, out: &mut Outbox) -> Step {
        match self {
            Endpoint::Tcp(c) => c.on_timer(now, token, out),
            Endpoint::Udp(u) => u.on_timer(now, out),
        }
    }
    /// The sending host's own queue refused `pkt`, which it emitted.
    #[inline]
    pub fn on_local_drop(&mut self, now: Time, pkt: &Packet) {
        match self {
            Endpoint::Tcp(c) => c.on_local_drop(now, pkt),
            // Datagrams are fire and forget.
            Endpoint::Udp(_) => {}
        }
    }
    /// A packet side `side` sent, of `size` bytes, finished transmission at
    /// its host's NIC (the host stack reports each when it counts them):
    /// TCP Small Queues may let the socket send more.
    #[inline]
    pub fn on_tx_done(&mut self, now: Time, side: usize, size: u64, out: &mut Outbox) -> Step {
        match self {
            Endpoint::Tcp(c) => c.on_tx_done(now, side, size, out),
            Endpoint::Udp(_) => Step::NONE,
        }
    }
    /// A packet side `side` sent, of `size` bytes, was dropped at its host
    /// after it was queued (pushed out by a qdisc): freed, lost unheard.
    pub fn on_tx_freed(&mut self, side: usize, size: u64) {
        if let Endpoint::Tcp(c) = self {
            c.sock[side].on_tx_freed(size);
        }
    }
    /// Side `side`'s packet was queued at its host by pushing out another
    /// (Linux's NET_XMIT_CN): TCP reduces its window.
    pub fn on_local_congestion(&mut self, now: Time, side: usize) {
        if let Endpoint::Tcp(c) = self {
            c.sock[side].on_local_congestion(now);
        }
    }
    /// The flow hash side `side`'s packets carry (UDP: its one direction).
    pub fn flow_hash(&self, side: usize) -> u32 {
        match self {
            Endpoint::Tcp(c) => c.sock[side].flow_hash(),
            Endpoint::Udp(u) => u.flow_hash(),
        }
    }
    /// The side that sends the data (the flows table's sender).
    pub fn data_side(&self) -> usize {
        match self {
            Endpoint::Tcp(c) => c.data_side(),
            Endpoint::Udp(_) => 0,
        }
    }
    /// Retransmission timeouts of side `side` so far.
    #[inline]
    pub fn timeouts_of(&self, side: usize) -> u64 {
        match self {
            Endpoint::Tcp(c) => c.sock[side].stats.timeouts,
            Endpoint::Udp(_) => 0,
        }
    }
    /// Side `side`'s packets have left (and the refused ones come back):
    /// the wake-ups that depend on them go into `out.wake`.
    #[inline]
    pub fn after_send(&mut self, now: Time, side: usize, out: &mut Outbox) {
        match self {
            Endpoint::Tcp(c) => c.after_send(now, side, out),
            Endpoint::Udp(_) => {}
        }
    }
    /// Retransmission timeouts so far (an incast round counts them).
    #[inline]
    pub fn timeouts(&self) -> u64 {
        match self {
            Endpoint::Tcp(c) => c.timeouts(),
            Endpoint::Udp(_) => 0,
        }
    }
    /// Its row of the flows table at the end of a run ending at `end`, if
    /// it has one (UDP flows have none: their datagrams are counted in the
    /// summary).
    pub fn flow_record(&self, end: Time, net: &Network) -> Option<FlowRecord> {
        match self {
            Endpoint::Tcp(c) => Some(c.flow_record(end, net)),
            Endpoint::Udp(_) => None,
        }
    }
    /// What its packets' paths depend on: the data sender's and receiver's
    /// hosts, the flow hashes of data and of the way back (`None` for UDP:
    /// nothing comes back), and the size of a full data packet.
    pub fn path_probe(&self) -> (NodeId, NodeId, u32, Option<u32>, Bytes) {
        match self {
            Endpoint::Tcp(c) => {
                let (s, r) = (c.sender(), c.receiver());
                let (src, dst) = s.endpoints();
                let size = Bytes((s.config().mss + crate::packet::TCP_IP_HEADER) as u64);
                (src, dst, s.flow_hash(), Some(r.flow_hash()), size)
            }
            Endpoint::Udp(u) => (u.src, u.dst, u.flow_hash(), None, u.size),
        }
    }
    /// The data sender's TCP settings (None for UDP).
    pub fn tcp_config(&self) -> Option<&tcp::TcpConfig> {
        match self {
            Endpoint::Tcp(c) => Some(c.sender().config()),
            Endpoint::Udp(_) => None,
        }
    }
    /// The data sender's congestion-state trace, when the scenario asked.
    pub fn trace(&self) -> Option<&[TraceRow]> {
        match self {
            Endpoint::Tcp(c) => c.sender().trace(),
            Endpoint::Udp(_) => None,
        }
    }
    /// Adds its counts to the run's totals.
    pub fn add_totals(&self, t: &mut Totals) {
        match self {
            Endpoint::Tcp(c) => {
                t.timeouts += c.timeouts();
                let s = &c.sender().stats;
                t.timeouts_retransmission += s.timeouts_retransmission;
                t.timeouts_tail += s.timeouts_tail;
                t.timeouts_window += s.timeouts_window;
            }
            Endpoint::Udp(u) => {
                t.udp_sent += u.sent;
                t.udp_delivered += u.delivered;
            }
        }
    }
}
