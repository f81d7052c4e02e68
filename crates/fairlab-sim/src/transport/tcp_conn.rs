//! A TCP connection as an endpoint: both sockets, the workload it serves,
//! one pending wake-up per socket (token = side), segments handed to the
//! receiving socket, local drops reported back to the sender.

use super::{ConnApp, Outbox, Step};
use crate::net::Network;
use crate::packet::{FiveTuple, FlowHasher, NodeId, Packet, Protocol, TCP_IP_HEADER};
use crate::transport::tcp::TcpSocket;
use crate::units::{Bytes, OptTime, Time};

/// A TCP connection: both endpoints and the workload it serves.
#[derive(Clone, Debug)]
pub struct Conn {
    /// `[active opener, passive listener]`.
    pub sock: [TcpSocket; 2],
    /// Per side, the instant of its pending wake-up, if any.
    timer_at: [OptTime; 2],
    pub app: ConnApp,
    pub opened: OptTime,
    /// Which side sends the bulk of the data (1 = passive: incast servers).
    data_side: u8,
    /// The opener's 5-tuple's ports (0 until named, see [`Conn::set_flow`]):
    /// with the hosts' addresses, the tuple, kept once per connection.
    sport: u16,
    dport: u16,
}

impl Conn {
    pub fn new(active: TcpSocket, passive: TcpSocket, app: ConnApp, data_side: usize) -> Conn {
        debug_assert!(data_side < 2);
        Conn {
            sock: [active, passive],
            timer_at: [OptTime::NONE; 2],
            app,
            opened: OptTime::NONE,
            data_side: data_side as u8,
            sport: 0,
            dport: 0,
        }
    }
    /// Which side sends the bulk of the data (1 = passive: incast servers).
    #[inline]
    pub fn data_side(&self) -> usize {
        self.data_side as usize
    }
    pub fn sender(&self) -> &TcpSocket {
        &self.sock[self.data_side()]
    }
    pub fn receiver(&self) -> &TcpSocket {
        &self.sock[1 - self.data_side()]
    }
    /// The 5-tuple side `side` sends with, once the flow is named: the
    /// opener's is (its address, the listener's, its ephemeral port, the
    /// listening port, TCP), the listener's the reverse.
    pub fn tuple(&self, side: usize, net: &Network) -> Option<FiveTuple> {
        if self.sport == 0 {
            return None;
        }
        let (a, b) = self.sock[0].endpoints();
        let t = FiveTuple {
            src: net.addr(a),
            dst: net.addr(b),
            sport: self.sport,
            dport: self.dport,
            proto: Protocol::Tcp,
        };
        Some(if side == 0 { t } else { t.reversed() })
    }
    /// Retransmission timeouts of both sides so far (an incast round
    /// counts them).
    pub fn timeouts(&self) -> u64 {
        self.sock[0].stats.timeouts + self.sock[1].stats.timeouts
    }
    /// Whether either side gave up.
    pub fn aborted(&self) -> bool {
        self.sock[0].aborted() || self.sock[1].aborted()
    }

    /// Names both directions: `t` is the opener's 5-tuple.
    pub(super) fn set_flow(&mut self, t: FiveTuple, hasher: &FlowHasher) {
        debug_assert!(t.sport != 0 && t.proto == Protocol::Tcp);
        self.sport = t.sport;
        self.dport = t.dport;
        self.sock[0].set_flow_hash(hasher.hash(&t));
        self.sock[1].set_flow_hash(hasher.hash(&t.reversed()));
    }

    /// The application opens the connection: the opener sends its SYN, or
    /// without a handshake both sides are established at once.
    pub(super) fn open(&mut self, now: Time, handshake: bool, out: &mut Outbox) -> Step {
        self.opened = OptTime::some(now);
        if !handshake {
            self.sock[0].open_established(now);
            self.sock[1].open_established(now);
            return Step {
                opened: 0b11,
                ..Step::NONE
            };
        }
        self.sock[0].connect(now, &mut out.packets);
        out.host = self.sock[0].endpoints().0;
        Step {
            side: 0,
            sync: true,
            ..Step::NONE
        }
    }

    pub(super) fn write(&mut self, now: Time, side: usize, bytes: u64, out: &mut Outbox) -> Step {
        self.sock[side].write(now, bytes, &mut out.packets);
        out.host = self.sock[side].endpoints().0;
        Step {
            side: side as u8,
            sync: true,
            ..Step::NONE
        }
    }

    /// A segment reaches the receiving socket (the side that did not send it).
    #[inline]
    pub(super) fn on_packet(&mut self, now: Time, pkt: &Packet, out: &mut Outbox) -> Step {
        let side = 1 - pkt.side();
        let outcome = self.sock[side].on_segment(now, pkt, &mut out.packets);
        out.host = self.sock[side].endpoints().0;
        Step {
            side: side as u8,
            sync: true,
            opened: u8::from(outcome.established) << side,
            delivered: outcome.delivered,
            data: side != self.data_side(),
            aborted: false,
        }
    }

    /// Hints what [`Conn::on_packet`] and the step after it touch for
    /// `pkt`: the receiving socket and the connection's own fields.
    #[inline(always)]
    pub(super) fn prefetch_for(&self, pkt: &Packet) {
        crate::engine::prefetch(&self.sock[1 - pkt.side()]);
        crate::engine::prefetch(&self.timer_at);
        crate::engine::prefetch(&self.app);
    }

    /// Side `token`'s wake-up: its RTO or delayed-ACK deadline, unless an
    /// earlier wake-up superseded it.
    pub(super) fn on_timer(&mut self, now: Time, token: u32, out: &mut Outbox) -> Step {
        let side = token as usize;
        if self.timer_at[side] != OptTime::some(now) {
            return Step::NONE; // superseded by an earlier wake-up that already ran
        }
        self.timer_at[side] = OptTime::NONE;
        self.sock[side].on_timer(now, &mut out.packets);
        out.host = self.sock[side].endpoints().0;
        Step {
            side: side as u8,
            sync: true,
            aborted: self.sock[side].aborted(),
            ..Step::NONE
        }
    }

    /// The sender's host refused a segment it emitted.
    #[inline]
    pub(super) fn on_local_drop(&mut self, now: Time, pkt: &Packet) {
        self.sock[pkt.side()].on_local_drop(now, pkt);
    }

    /// A packet side `side` sent, of `size` bytes, finished transmission
    /// at its host's NIC (TCP Small Queues may send more).
    pub fn on_tx_done(&mut self, now: Time, side: usize, size: u64, out: &mut Outbox) -> Step {
        if !self.sock[side].on_tx_done(now, size, &mut out.packets) {
            return Step::NONE;
        }
        out.host = self.sock[side].endpoints().0;
        Step {
            side: side as u8,
            sync: true,
            ..Step::NONE
        }
    }

    /// Keeps exactly one useful wake-up pending per socket (see `engine::queue`).
    #[inline]
    pub(super) fn after_send(&mut self, now: Time, side: usize, out: &mut Outbox) {
        if let Some(d) = self.sock[side].next_deadline() {
            // A wake-up at or before `d` is pending already: it will do.
            if !self.timer_at[side].reached(d) {
                let d = d.max(now);
                self.timer_at[side] = OptTime::some(d);
                out.wake.push((d, side as u32));
            }
        }
    }

    /// What its packets' paths depend on (see [`super::Endpoint::path_probe`]).
    pub(super) fn path_probe(&self) -> (NodeId, NodeId, u32, Option<u32>, Bytes) {
        let (s, r) = (self.sender(), self.receiver());
        let (src, dst) = s.endpoints();
        let size = Bytes((s.config().mss + TCP_IP_HEADER) as u64);
        (src, dst, s.flow_hash(), Some(r.flow_hash()), size)
    }
}
