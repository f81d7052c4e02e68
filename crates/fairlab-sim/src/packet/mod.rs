//! Packets, the bottom layer above units: what travels (a TCP segment or a
//! UDP datagram), the addresses and ports that name a flow, and the one
//! seeded flow hash every hashing consumer (ECMP, SFQ, DRR, HCF, a NIC's
//! transmit-queue choice) draws from. `net`, `queue` and `transport` import
//! this module; it imports none of them.
//!
//! A packet is copied by value along its path: 88 bytes, no heap. It carries
//! its flow's hash (computed once per flow from the 5-tuple, as Linux keeps
//! `skb->hash`) rather than the 5-tuple itself, which lives with the flow's
//! endpoints ([`FiveTuple`]); and the node its destination address resolves
//! to, as a host's neighbour cache would.

mod addr;
pub mod flow_hash;
pub mod frame;
pub mod pcap;

pub use addr::{Addr, FiveTuple, Protocol, EPHEMERAL_PORTS};
pub use flow_hash::{FlowHasher, Salt};

use crate::units::{Bytes, Time};

/// Index of a node (host or switch) in the network: what an address resolves to.
pub type NodeId = u32;

/// IPv4 (20) + TCP (20) header bytes without options: a 1460-byte MSS gives
/// 1500-byte packets, the Ethernet MTU. Link-layer framing is not counted, so
/// that "a 1500-byte packet occupies a 1 Gb/s wire for 12 µs".
pub const TCP_IP_HEADER: u32 = 40;
/// IPv4 (20) + UDP (8) header bytes.
pub const UDP_IP_HEADER: u32 = 28;

pub mod flags {
    pub const SYN: u8 = 1 << 0;
    pub const ACK: u8 = 1 << 1;
    pub const FIN: u8 = 1 << 2;
    /// ECN-Capable Transport, RFC 3168 (5): the packet may be marked.
    pub const ECT: u8 = 1 << 3;
    /// Congestion Experienced, RFC 3168 (5): a switch marked it.
    pub const CE: u8 = 1 << 4;
    /// ECN-Echo, RFC 3168 (6.1.3): the receiver saw CE.
    pub const ECE: u8 = 1 << 5;
    /// Congestion Window Reduced, RFC 3168 (6.1.2): the sender reacted.
    pub const CWR: u8 = 1 << 6;
    /// The IP protocol field says UDP (what a classifier such as the
    /// priority discipline reads; nothing else depends on it).
    pub const UDP: u8 = 1 << 7;
}

/// Up to three SACK blocks (RFC 2018 allows three beside timestamps), as
/// offsets from the packet's cumulative ACK so that they fit in 24 bytes.
pub const MAX_SACK_BLOCKS: usize = 3;

/// "No timestamp echoed".
pub const NO_TS: Time = Time::MAX;

/// Laid out by hand (`repr(C)`), in the order a switch uses it: what a hop
/// reads or writes (the arrival stamp, the flow, the destination, the
/// hash, the size, the flags) in the first 28 bytes, what only the
/// endpoints read after. The packet store keeps each in 96 bytes aligned
/// to 32 (`sim::slab`), so that those 28 bytes never straddle two cache
/// lines: laid out by the compiler, the hop's bytes were the last 32 of
/// 88, and three packets in eight found them across two lines (issue 23,
/// seventh pass). The type itself stays 88 bytes, aligned to 8: aligned to
/// 32, every function holding one on its stack realigned its frame (the
/// incast: 7 M more instructions).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(C)]
pub struct Packet {
    /// Arrival order at the port it waits in (reordering checks), shifted
    /// above the index of the input port it came in on (the low
    /// `sim::drops::INPUT_BITS` bits), so that a packet a discipline pushes
    /// out tells where it came from.
    pub stamp: u64,
    /// The flow, one per direction of an endpoint: 2 x the endpoint's index
    /// (among the simulation's endpoints: TCP connections, UDP flows...; the
    /// one a socket lookup by 5-tuple would find) + the side that sent it
    /// (0 the opener or sender, 1 the listener or receiver).
    pub flow: u32,
    /// The node the destination address resolves to.
    pub dst: NodeId,
    /// The flow's hash ([`flow_hash`]), one per direction of a connection.
    pub hash: u32,
    /// Payload bytes.
    pub payload: u32,
    pub flags: u8,
    /// Header bytes (IP and transport) before the payload: [`TCP_IP_HEADER`]
    /// for a TCP segment, [`UDP_IP_HEADER`] for a UDP datagram.
    pub header: u8,
    /// The segment a retransmission timeout sent (the ports table counts
    /// how many of these each port drops: starvation is made of their loss).
    pub timeout_rtx: bool,
    /// SACK blocks in use.
    pub sack_len: u8,
    /// Advertised receive window in bytes.
    pub wnd: u32,
    /// First payload byte's sequence number (the SYN occupies sequence 0).
    pub seq: u64,
    /// Cumulative acknowledgment: next byte expected from the peer.
    pub ack: u64,
    /// When the sender sent it (the RFC 7323 timestamp, exact).
    pub ts: Time,
    /// The timestamp echoed back (RFC 7323 TSecr), or [`NO_TS`].
    pub ts_echo: Time,
    /// SACK blocks as (start - ack, end - ack).
    pub sack: [(u32, u32); MAX_SACK_BLOCKS],
}

// `sim::prefetch` asserts that the hop's fields fit one 32-byte unit.
const _: () = assert!(std::mem::size_of::<Packet>() == 88);

impl Packet {
    /// Bytes on the wire: IP packet size, headers and payload.
    #[inline]
    pub fn size(&self) -> Bytes {
        Bytes(self.payload as u64 + self.header as u64)
    }
    #[inline]
    pub fn is_data(&self) -> bool {
        self.payload > 0
    }
    #[inline]
    pub fn has(&self, f: u8) -> bool {
        self.flags & f != 0
    }
    /// The SACK blocks as absolute `[start, end)` byte ranges.
    pub fn sack_blocks(&self) -> impl Iterator<Item = (u64, u64)> + '_ {
        self.sack[..self.sack_len as usize]
            .iter()
            .map(move |&(s, e)| (self.ack + s as u64, self.ack + e as u64))
    }
    /// A blank TCP segment (tests and builders fill in what they need).
    pub fn blank() -> Packet {
        Packet {
            seq: 0,
            ack: 0,
            ts: Time::ZERO,
            ts_echo: NO_TS,
            flow: 0,
            dst: 0,
            hash: 0,
            payload: 0,
            wnd: 0,
            flags: 0,
            header: TCP_IP_HEADER as u8,
            timeout_rtx: false,
            sack_len: 0,
            sack: [(0, 0); MAX_SACK_BLOCKS],
            stamp: 0,
        }
    }
    /// The flow this packet belongs to as an index, one per direction of
    /// an endpoint (see [`Packet::flow`]).
    #[inline]
    pub fn flow_key(&self) -> usize {
        self.flow as usize
    }
    /// The endpoint it belongs to (its index among the simulation's).
    #[inline]
    pub fn endpoint(&self) -> u32 {
        self.flow >> 1
    }
    /// The side of its endpoint that sent it (0 the opener or sender, 1 the
    /// listener or receiver).
    #[inline]
    pub fn side(&self) -> usize {
        (self.flow & 1) as usize
    }
}
