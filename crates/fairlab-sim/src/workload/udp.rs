//! Constant-rate UDP background traffic: periodic or Poisson datagrams from
//! one host to another at a given average rate (the HCF study's 5 % of the
//! bottleneck).

use crate::engine::Rng;
use crate::packet::{flags, FiveTuple, NodeId, Packet, UDP_IP_HEADER};
use crate::units::{BitsPerSec, Bytes, Time};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Arrivals {
    Periodic,
    Poisson,
}

#[derive(Clone, Debug)]
pub struct Udp {
    pub id: u32,
    pub src: NodeId,
    pub dst: NodeId,
    /// Its endpoint id (after the TCP connections'): its datagrams carry
    /// flow `2 * flow`.
    pub flow: u32,
    pub rate: BitsPerSec,
    pub size: Bytes,
    pub arrivals: Arrivals,
    pub start: Time,
    rng: Rng,
    pub sent: u64,
    pub delivered: u64,
    /// The 5-tuple the datagrams carry and its flow hash, once named.
    pub tuple: Option<FiveTuple>,
    hash: u32,
}

impl Udp {
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        id: u32,
        src: NodeId,
        dst: NodeId,
        flow: u32,
        rate: BitsPerSec,
        size: Bytes,
        arrivals: Arrivals,
        start: Time,
        rng: Rng,
    ) -> Udp {
        Udp {
            id,
            src,
            dst,
            flow,
            rate,
            size,
            arrivals,
            start,
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

    /// The next datagram, and the gap until the one after it.
    pub fn emit(&mut self) -> (Packet, Time) {
        self.sent += 1;
        let p = Packet {
            flow: 2 * self.flow,
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
