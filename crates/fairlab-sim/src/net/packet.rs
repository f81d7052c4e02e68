//! The packet: a TCP segment (or, later, a UDP datagram) with the addressing
//! a switch needs. Copied by value along its path: 48 bytes, no heap.

use crate::units::Bytes;

/// Index of a node (host or switch) in the network.
pub type NodeId = u32;
/// Index of an output port in the network.
pub type PortId = u32;

/// IPv4 (20) + TCP (20) header bytes without options: a 1460-byte MSS gives
/// 1500-byte packets, the Ethernet MTU. Link-layer framing is not counted, so
/// that "a 1500-byte packet occupies a 1 Gb/s wire for 12 µs".
pub const TCP_IP_HEADER: u32 = 40;

pub mod flags {
    pub const SYN: u8 = 1 << 0;
    pub const ACK: u8 = 1 << 1;
    pub const FIN: u8 = 1 << 2;
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Packet {
    /// First payload byte's sequence number (the SYN occupies sequence 0).
    pub seq: u64,
    /// Cumulative acknowledgment: next byte expected from the peer.
    pub ack: u64,
    /// Connection index.
    pub conn: u32,
    pub src: NodeId,
    pub dst: NodeId,
    /// Payload bytes.
    pub payload: u32,
    /// Advertised receive window in bytes.
    pub wnd: u32,
    pub flags: u8,
    /// True when sent by the connection's passive (listening) side.
    pub from_passive: bool,
}

impl Packet {
    /// Bytes on the wire: IP packet size.
    #[inline]
    pub fn size(&self) -> Bytes {
        Bytes((self.payload + TCP_IP_HEADER) as u64)
    }
    #[inline]
    pub fn is_data(&self) -> bool {
        self.payload > 0
    }
    #[inline]
    pub fn has(&self, f: u8) -> bool {
        self.flags & f != 0
    }
}
