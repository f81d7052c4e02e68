//! A UDP flow as an endpoint: a sender pacing datagrams from one host to
//! another at a given average rate, periodic or Poisson (the HCF study's
//! 5 % of the bottleneck), and the receiver counting them. Its one wake-up
//! (token 0) is the next datagram's.

use super::{ConnApp, Outbox, Step};
use crate::engine::Rng;
use crate::packet::{flags, FiveTuple, NodeId, Packet, UDP_IP_HEADER};
use crate::units::{BitsPerSec, Bytes, Time};

pub use crate::vocab::Arrivals;

#[derive(Clone, Debug)]
pub struct UdpFlow {
    pub app: ConnApp,
    /// Its index among the simulation's endpoints: its datagrams carry flow
    /// `2 * id` (sent by side 0).
    pub id: u32,
    pub src: NodeId,
    pub dst: NodeId,
    pub rate: BitsPerSec,
    /// IP packet size of each datagram.
    pub size: Bytes,
    pub arrivals: Arrivals,
    /// Datagrams to send in all (`u64::MAX`: no count).
    pub limit: u64,
    /// No datagram leaves at or after this instant (`Time::MAX`: none).
    pub stop: Time,
    rng: Rng,
    pub sent: u64,
    pub delivered: u64,
    /// The 5-tuple the datagrams carry and its flow hash, once named.
    pub tuple: Option<FiveTuple>,
    hash: u32,
}

impl UdpFlow {
    /// The flow hash its datagrams carry.
    pub fn flow_hash(&self) -> u32 {
        self.hash
    }
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        app: ConnApp,
        id: u32,
        src: NodeId,
        dst: NodeId,
        rate: BitsPerSec,
        size: Bytes,
        arrivals: Arrivals,
        rng: Rng,
    ) -> UdpFlow {
        debug_assert!(size.get() >= UDP_IP_HEADER as u64);
        UdpFlow {
            app,
            id,
            src,
            dst,
            rate,
            size,
            arrivals,
            limit: u64::MAX,
            stop: Time::MAX,
            rng,
            sent: 0,
            delivered: 0,
            tuple: None,
            hash: 0,
        }
    }

    /// Names the flow: its 5-tuple and that tuple's flow hash.
    pub fn set_flow(&mut self, tuple: FiveTuple, hash: u32) {
        self.tuple = Some(tuple);
        self.hash = hash;
    }

    /// The application starts the flow: its first datagram at once.
    pub(super) fn open(&mut self, now: Time, out: &mut Outbox) -> Step {
        self.on_timer(now, out)
    }

    /// Ends the flow after `limit` datagrams or at `stop`, whichever
    /// comes first.
    pub fn set_end(&mut self, limit: Option<u64>, stop: Option<Time>) {
        self.limit = limit.unwrap_or(u64::MAX);
        self.stop = stop.unwrap_or(Time::MAX);
    }

    /// The next datagram, and a wake-up for the one after it (asked first:
    /// it is scheduled before the datagram leaves), until the flow's end.
    pub(super) fn on_timer(&mut self, now: Time, out: &mut Outbox) -> Step {
        if self.sent >= self.limit || now >= self.stop {
            return Step::NONE;
        }
        let (pkt, gap) = self.emit();
        if self.sent < self.limit {
            out.wake.push((now + gap, 0));
        }
        out.host = self.src;
        out.packets.push(pkt);
        Step::NONE
    }

    /// A datagram arrives: counted, no application hears of it.
    #[inline]
    pub(super) fn on_packet(&mut self, _pkt: &Packet) -> Step {
        self.delivered += 1;
        Step::NONE
    }

    /// The next datagram, and the gap until the one after it.
    fn emit(&mut self) -> (Packet, Time) {
        self.sent += 1;
        let p = Packet {
            flow: 2 * self.id,
            dst: self.dst,
            hash: self.hash,
            header: UDP_IP_HEADER as u8,
            payload: self.size.get() as u32 - UDP_IP_HEADER,
            flags: flags::UDP,
            ..Packet::blank()
        };
        let mean = self.rate.serialization(self.size);
        let gap = match self.arrivals {
            Arrivals::Periodic => mean,
            // Exponential inter-arrivals with the same mean.
            Arrivals::Poisson => {
                let u = 1.0 - self.rng.next_f64();
                Time((-(u.ln()) * mean.0 as f64).round().max(1.0) as u64)
            }
        };
        (p, gap)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_datagram_is_its_configured_size_and_asks_for_the_next_one_first() {
        let app = ConnApp {
            workload: 3,
            index: 0,
        };
        let rate = BitsPerSec(1_000_000_000);
        let size = Bytes(1000);
        let mut u = UdpFlow::new(app, 7, 1, 2, rate, size, Arrivals::Periodic, Rng::new(1));
        let mut out = Outbox::with_capacity(4);
        let now = Time::from_ms(1);
        assert_eq!(u.open(now, &mut out), Step::NONE);
        assert_eq!(out.host, 1);
        assert_eq!(out.wake, vec![(now + rate.serialization(size), 0)]);
        let p = out.packets[0];
        assert_eq!(p.size(), size);
        assert_eq!((p.endpoint(), p.side(), p.dst), (7, 0, 2));
        assert!(p.has(flags::UDP) && p.is_data());
        assert_eq!(u.on_packet(&p), Step::NONE);
        assert_eq!((u.sent, u.delivered), (1, 1));
    }
}
