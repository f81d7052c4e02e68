//! A packet's headers as they would be on an Ethernet wire: Ethernet,
//! IPv4, and TCP (with its options) or UDP, synthesized from the packet and
//! what its flow fixes once (the 5-tuple, initial sequence numbers, the
//! window scale). The payload is not written: a capture keeps the headers
//! and the true length (see [`super::pcap`]).
//!
//! Conventions (the capture's reader must be able to rely on them):
//! * sequence and acknowledgment numbers are the simulator's byte offsets
//!   plus the flow direction's initial sequence number, modulo 2^32;
//! * the RFC 7323 timestamps (TSval, TSecr) count microseconds of
//!   simulated time, modulo 2^32 (TSecr 0 when nothing is echoed);
//! * the window field is the advertised window shifted right by the
//!   direction's window scale (unscaled on a SYN, which carries the scale);
//! * checksums are those of the headers with an all-zero payload of the
//!   packet's length, so that they verify for what the capture implies.
//!
//! The simulator charges 40 header bytes per TCP segment whatever its
//! options ([`super::TCP_IP_HEADER`]); the frame carries the options a
//! Linux sender would (timestamps on every segment where the flow uses
//! them, SACK blocks), so its IP total length exceeds the simulated size
//! by the option bytes.

use super::{flags, FiveTuple, Packet, Protocol, NO_TS};

/// Ethernet (14) + IPv4 (20) + TCP with the most options (60).
pub const MAX_FRAME_HEADER: usize = 94;
/// The Ethernet header: two addresses and the EtherType.
pub const ETHERNET_HEADER: usize = 14;
const IPV4_HEADER: usize = 20;
const ETHERTYPE_IPV4: u16 = 0x0800;

/// What a flow direction's frames share, fixed when its flow is named.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FlowFrame {
    /// The 5-tuple this direction sends with.
    pub tuple: FiveTuple,
    /// Initial sequence number of this direction and of the reverse one
    /// (what its acknowledgments count from).
    pub isn: u32,
    pub peer_isn: u32,
    /// Window scale (RFC 7323) this direction's window fields use.
    pub wscale: u8,
    /// The MSS option its SYN carries.
    pub mss: u16,
    /// Whether its SYN offers SACK (RFC 2018).
    pub sack_ok: bool,
    /// Whether its segments carry the RFC 7323 timestamps (as Linux's do
    /// with `tcp_timestamps`, which the namespaces set from
    /// `tcp.rtt_timestamps`).
    pub timestamps: bool,
}

/// The smallest window scale under which `max_window_bytes` fits the
/// 16-bit window field (RFC 7323 allows at most 14).
pub fn window_scale(max_window_bytes: u64) -> u8 {
    let mut s = 0u8;
    while s < 14 && (max_window_bytes >> s) > 0xffff {
        s += 1;
    }
    s
}

/// A stable initial sequence number for the direction `tuple` names: a
/// mix of its fields, so that runs repeat bit for bit and sequence numbers
/// wrap wherever they fall (as a kernel's random ones do).
pub fn initial_seq(tuple: &FiveTuple) -> u32 {
    let b = tuple.to_bytes();
    let mut h: u64 = 0x9e37_79b9_7f4a_7c15;
    for x in b {
        h = (h ^ u64::from(x)).wrapping_mul(0x0100_0000_01b3);
    }
    (h ^ (h >> 32)) as u32
}

/// A synthetic locally administered MAC address for node `node`.
fn mac(node: u32) -> [u8; 6] {
    let n = node.to_be_bytes();
    [0x02, 0x00, n[0], n[1], n[2], n[3]]
}

/// The ones' complement sum of `data` as 16-bit big-endian words, folded.
fn sum16(mut acc: u32, data: &[u8]) -> u32 {
    let mut chunks = data.chunks_exact(2);
    for c in &mut chunks {
        acc += u32::from(u16::from_be_bytes([c[0], c[1]]));
    }
    if let [last] = chunks.remainder() {
        acc += u32::from(*last) << 8;
    }
    acc
}

fn fold(mut acc: u32) -> u16 {
    while acc > 0xffff {
        acc = (acc & 0xffff) + (acc >> 16);
    }
    !(acc as u16)
}

/// Writes the headers of `pkt`, sent by node `from` to node `to` over one
/// link, into `out`; gives (header bytes written, the frame's true length).
pub fn write_headers(
    pkt: &Packet,
    f: &FlowFrame,
    from: u32,
    to: u32,
    out: &mut [u8; MAX_FRAME_HEADER],
) -> (usize, u32) {
    out[0..6].copy_from_slice(&mac(to));
    out[6..12].copy_from_slice(&mac(from));
    out[12..14].copy_from_slice(&ETHERTYPE_IPV4.to_be_bytes());
    let l4 = ETHERNET_HEADER + IPV4_HEADER;
    let l4_len = match f.tuple.proto {
        Protocol::Tcp => write_tcp(pkt, f, &mut out[l4..]),
        Protocol::Udp => write_udp(pkt, f, &mut out[l4..]),
    };
    let ip_total = (IPV4_HEADER + l4_len) as u32 + pkt.payload;
    write_ipv4(pkt, f, ip_total, &mut out[ETHERNET_HEADER..l4]);
    // The transport checksum: pseudo-header, header, zero payload.
    let mut pseudo = [0u8; 12];
    pseudo[0..4].copy_from_slice(&f.tuple.src.to_u32().to_be_bytes());
    pseudo[4..8].copy_from_slice(&f.tuple.dst.to_u32().to_be_bytes());
    pseudo[9] = f.tuple.proto as u8;
    let seg_len = l4_len as u32 + pkt.payload;
    // A segment longer than 65,535 bytes cannot be IPv4; its length
    // field wraps as the truncated value would.
    pseudo[10..12].copy_from_slice(&(seg_len as u16).to_be_bytes());
    let at = match f.tuple.proto {
        Protocol::Tcp => 16,
        Protocol::Udp => 6,
    };
    let sum = fold(sum16(sum16(0, &pseudo), &out[l4..l4 + l4_len]));
    // UDP sends a computed zero as all ones (RFC 768).
    let sum = if sum == 0 && f.tuple.proto == Protocol::Udp {
        0xffff
    } else {
        sum
    };
    out[l4 + at..l4 + at + 2].copy_from_slice(&sum.to_be_bytes());
    (l4 + l4_len, ETHERNET_HEADER as u32 + ip_total)
}

fn write_ipv4(pkt: &Packet, f: &FlowFrame, total: u32, ip: &mut [u8]) {
    // ECN field (RFC 3168 (5)): ECT(0) is 10, CE is 11.
    let ecn = if pkt.has(flags::CE) {
        0b11
    } else if pkt.has(flags::ECT) {
        0b10
    } else {
        0
    };
    ip[0] = 0x45;
    ip[1] = ecn;
    ip[2..4].copy_from_slice(&(total.min(0xffff) as u16).to_be_bytes());
    ip[4..6].copy_from_slice(&[0, 0]);
    // Don't Fragment, as Linux sets with path-MTU discovery.
    ip[6..8].copy_from_slice(&0x4000u16.to_be_bytes());
    ip[8] = 64;
    ip[9] = f.tuple.proto as u8;
    ip[10..12].copy_from_slice(&[0, 0]);
    ip[12..16].copy_from_slice(&f.tuple.src.to_u32().to_be_bytes());
    ip[16..20].copy_from_slice(&f.tuple.dst.to_u32().to_be_bytes());
    let sum = fold(sum16(0, &ip[..IPV4_HEADER]));
    ip[10..12].copy_from_slice(&sum.to_be_bytes());
}

fn write_udp(pkt: &Packet, f: &FlowFrame, udp: &mut [u8]) -> usize {
    udp[0..2].copy_from_slice(&f.tuple.sport.to_be_bytes());
    udp[2..4].copy_from_slice(&f.tuple.dport.to_be_bytes());
    let len = (8 + pkt.payload).min(0xffff) as u16;
    udp[4..6].copy_from_slice(&len.to_be_bytes());
    udp[6..8].copy_from_slice(&[0, 0]);
    8
}

/// Microseconds of simulated time, modulo 2^32: the timestamps' clock.
fn ts_us(t: crate::units::Time) -> u32 {
    (t.0 / 1_000_000) as u32
}

fn write_tcp(pkt: &Packet, f: &FlowFrame, tcp: &mut [u8]) -> usize {
    let syn = pkt.has(flags::SYN);
    let ack = pkt.has(flags::ACK);
    tcp[0..2].copy_from_slice(&f.tuple.sport.to_be_bytes());
    tcp[2..4].copy_from_slice(&f.tuple.dport.to_be_bytes());
    let seq = f.isn.wrapping_add(pkt.seq as u32);
    let acked = if ack {
        f.peer_isn.wrapping_add(pkt.ack as u32)
    } else {
        0
    };
    tcp[4..8].copy_from_slice(&seq.to_be_bytes());
    tcp[8..12].copy_from_slice(&acked.to_be_bytes());
    let mut bits = 0u8;
    for (flag, bit) in [
        (flags::FIN, 0x01),
        (flags::SYN, 0x02),
        (flags::ACK, 0x10),
        (flags::ECE, 0x40),
        (flags::CWR, 0x80),
    ] {
        if pkt.has(flag) {
            bits |= bit;
        }
    }
    tcp[13] = bits;
    let window = if syn {
        pkt.wnd.min(0xffff)
    } else {
        (pkt.wnd >> f.wscale).min(0xffff)
    };
    tcp[14..16].copy_from_slice(&(window as u16).to_be_bytes());
    tcp[16..20].copy_from_slice(&[0, 0, 0, 0]);
    let opts = write_tcp_options(pkt, f, syn, &mut tcp[20..]);
    let len = 20 + opts;
    tcp[12] = ((len / 4) as u8) << 4;
    len
}

/// The options a Linux sender writes, in its order and padded to 4
/// bytes: on a SYN the MSS, SACK-permitted, timestamps and window scale;
/// else the timestamps and any SACK blocks (timestamps only where the
/// flow uses them).
fn write_tcp_options(pkt: &Packet, f: &FlowFrame, syn: bool, o: &mut [u8]) -> usize {
    const NOP: u8 = 1;
    let mut n = 0;
    let mut put = |bytes: &[u8]| {
        o[n..n + bytes.len()].copy_from_slice(bytes);
        n += bytes.len();
    };
    let tsval = ts_us(pkt.ts).to_be_bytes();
    let tsecr = if pkt.ts_echo == NO_TS {
        [0; 4]
    } else {
        ts_us(pkt.ts_echo).to_be_bytes()
    };
    let ts = [
        8, 10, tsval[0], tsval[1], tsval[2], tsval[3], tsecr[0], tsecr[1], tsecr[2], tsecr[3],
    ];
    if syn {
        let mss = f.mss.to_be_bytes();
        put(&[2, 4, mss[0], mss[1]]);
        match (f.sack_ok, f.timestamps) {
            (true, true) => put(&[4, 2]),
            (false, true) => put(&[NOP, NOP]),
            (true, false) => put(&[NOP, NOP, 4, 2]),
            (false, false) => {}
        }
        if f.timestamps {
            put(&ts);
        }
        put(&[NOP, 3, 3, f.wscale]);
        return n;
    }
    if f.timestamps {
        put(&[NOP, NOP]);
        put(&ts);
    }
    if pkt.sack_len > 0 {
        put(&[NOP, NOP, 5, 2 + 8 * pkt.sack_len]);
        for (s, e) in pkt.sack_blocks() {
            put(&f.peer_isn.wrapping_add(s as u32).to_be_bytes());
            put(&f.peer_isn.wrapping_add(e as u32).to_be_bytes());
        }
    }
    n
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::packet::Addr;
    use crate::units::Time;

    fn flow() -> FlowFrame {
        FlowFrame {
            tuple: FiveTuple {
                src: Addr::new(10, 0, 0, 1),
                dst: Addr::new(10, 0, 0, 2),
                sport: 40000,
                dport: 5001,
                proto: Protocol::Tcp,
            },
            isn: 0xffff_fff0,
            peer_isn: 7,
            wscale: 7,
            mss: 1460,
            sack_ok: true,
            timestamps: true,
        }
    }

    #[test]
    fn a_data_segment_has_correct_lengths_checksums_and_wrapped_numbers() {
        let mut p = Packet::blank();
        p.seq = 100;
        p.ack = 1;
        p.payload = 1460;
        p.flags = flags::ACK | flags::ECT;
        p.wnd = 1 << 20;
        p.ts = Time::from_us(1234);
        p.ts_echo = Time::from_us(1000);
        let mut b = [0u8; MAX_FRAME_HEADER];
        let (n, orig) = write_headers(&p, &flow(), 3, 4, &mut b);
        // Ethernet + IPv4 + TCP with 12 bytes of timestamps.
        assert_eq!(n, 14 + 20 + 32);
        assert_eq!(orig, 14 + 20 + 32 + 1460);
        let ip = &b[14..34];
        assert_eq!(u16::from_be_bytes([ip[2], ip[3]]), 20 + 32 + 1460);
        assert_eq!(ip[1] & 3, 0b10, "ECT(0)");
        assert_eq!(fold(sum16(0, ip)), 0, "IP header checksum verifies");
        let tcp = &b[34..n];
        // Sequence number wrapped past 2^32.
        assert_eq!(u32::from_be_bytes(tcp[4..8].try_into().unwrap()), 100 - 16);
        assert_eq!(u32::from_be_bytes(tcp[8..12].try_into().unwrap()), 8);
        assert_eq!(u16::from_be_bytes([tcp[14], tcp[15]]), 8192);
        assert_eq!(&tcp[20..24], &[1, 1, 8, 10]);
        assert_eq!(u32::from_be_bytes(tcp[24..28].try_into().unwrap()), 1234);
        // The checksum verifies over pseudo-header, header and zero payload.
        let mut pseudo = [0u8; 12];
        pseudo[0..4].copy_from_slice(&ip[12..16]);
        pseudo[4..8].copy_from_slice(&ip[16..20]);
        pseudo[9] = 6;
        pseudo[10..12].copy_from_slice(&(32u16 + 1460).to_be_bytes());
        assert_eq!(fold(sum16(sum16(0, &pseudo), tcp)), 0);
    }

    #[test]
    fn a_syn_carries_mss_sack_permitted_timestamps_and_the_scale() {
        let mut p = Packet::blank();
        p.flags = flags::SYN;
        p.wnd = 1 << 20;
        let mut b = [0u8; MAX_FRAME_HEADER];
        let (n, _) = write_headers(&p, &flow(), 3, 4, &mut b);
        let tcp = &b[34..n];
        assert_eq!(tcp[12] >> 4, 10, "40-byte header");
        assert_eq!(tcp[13], 0x02);
        assert_eq!(u16::from_be_bytes([tcp[14], tcp[15]]), 0xffff);
        assert_eq!(&tcp[20..26], &[2, 4, 0x05, 0xb4, 4, 2]);
        assert_eq!(&tcp[36..40], &[1, 3, 3, 7]);
        assert_eq!(u32::from_be_bytes(tcp[8..12].try_into().unwrap()), 0);
    }

    #[test]
    fn sack_blocks_and_ce_are_written_and_scales_fit_the_window() {
        let mut p = Packet::blank();
        p.ack = 1000;
        p.flags = flags::ACK | flags::CE | flags::ECE;
        p.sack_len = 3;
        p.sack = [(100, 200), (300, 400), (500, 600)];
        let mut b = [0u8; MAX_FRAME_HEADER];
        let (n, _) = write_headers(&p, &flow(), 3, 4, &mut b);
        assert_eq!(
            n, MAX_FRAME_HEADER,
            "timestamps and three blocks fill 40 bytes"
        );
        assert_eq!(b[15] & 3, 0b11, "CE");
        assert_eq!(b[34 + 13], 0x50, "ACK and ECE");
        let sack = &b[34 + 32..];
        assert_eq!(&sack[..4], &[1, 1, 5, 26]);
        assert_eq!(u32::from_be_bytes(sack[4..8].try_into().unwrap()), 7 + 1100);
        assert_eq!(window_scale(65535), 0);
        assert_eq!(window_scale(65536), 1);
        assert_eq!(window_scale(6 << 20), 7);
        assert_eq!(window_scale(u64::MAX), 14);
    }

    #[test]
    fn without_timestamps_only_the_syns_options_and_sack_blocks_remain() {
        let mut f = flow();
        f.timestamps = false;
        let mut p = Packet::blank();
        p.flags = flags::SYN;
        let mut b = [0u8; MAX_FRAME_HEADER];
        let (n, _) = write_headers(&p, &f, 3, 4, &mut b);
        assert_eq!(&b[54..n], &[2, 4, 0x05, 0xb4, 1, 1, 4, 2, 1, 3, 3, 7]);
        p.flags = flags::ACK;
        p.payload = 1460;
        let (n, orig) = write_headers(&p, &f, 3, 4, &mut b);
        assert_eq!((n, orig), (54, 1514), "a full segment is a 1514-byte frame");
    }

    #[test]
    fn a_datagram_has_a_udp_header_and_its_length() {
        let mut f = flow();
        f.tuple.proto = Protocol::Udp;
        let mut p = Packet::blank();
        p.header = crate::packet::UDP_IP_HEADER as u8;
        p.payload = 8192;
        let mut b = [0u8; MAX_FRAME_HEADER];
        let (n, orig) = write_headers(&p, &f, 3, 4, &mut b);
        assert_eq!((n, orig), (42, 42 + 8192));
        assert_eq!(u16::from_be_bytes([b[38], b[39]]), 8200);
        assert_eq!(b[23], 17);
    }
}
