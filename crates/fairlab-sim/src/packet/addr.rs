//! Addresses, ports and protocols: what names a flow.

use std::fmt;

/// An IPv4-style host address. Topology builders assign them
/// (`10.0.0.1` upward in host order); a scenario may set its own.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct Addr(u32);

impl Addr {
    pub const fn new(a: u8, b: u8, c: u8, d: u8) -> Addr {
        Addr(u32::from_be_bytes([a, b, c, d]))
    }
    pub const fn from_u32(x: u32) -> Addr {
        Addr(x)
    }
    pub const fn to_u32(self) -> u32 {
        self.0
    }
    /// The `i`-th address of the builders' plan: 10.0.0.1, 10.0.0.2, ...,
    /// 10.0.1.0, ... (a /8 holds 16 M hosts; `None` past it).
    pub fn nth_host(i: u32) -> Option<Addr> {
        let base = Addr::new(10, 0, 0, 0).0;
        (i < (1 << 24) - 1).then(|| Addr(base + i + 1))
    }
    /// Parses dotted-quad notation (`"10.0.3.7"`).
    pub fn parse(s: &str) -> Option<Addr> {
        let mut out = [0u8; 4];
        let mut parts = s.split('.');
        for o in &mut out {
            let p = parts.next()?;
            if p.is_empty() || p.len() > 3 || !p.bytes().all(|b| b.is_ascii_digit()) {
                return None;
            }
            *o = p.parse().ok()?;
        }
        parts
            .next()
            .is_none()
            .then_some(Addr(u32::from_be_bytes(out)))
    }
}

impl fmt::Display for Addr {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let [a, b, c, d] = self.0.to_be_bytes();
        write!(f, "{a}.{b}.{c}.{d}")
    }
}

/// The IP protocol number (RFC 790 / IANA): what a host demultiplexes on.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[repr(u8)]
pub enum Protocol {
    Tcp = 6,
    Udp = 17,
}

impl Protocol {
    pub fn name(self) -> &'static str {
        match self {
            Protocol::Tcp => "tcp",
            Protocol::Udp => "udp",
        }
    }
}

/// A flow's 5-tuple, as its sender writes it on every packet.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct FiveTuple {
    pub src: Addr,
    pub dst: Addr,
    pub sport: u16,
    pub dport: u16,
    pub proto: Protocol,
}

impl FiveTuple {
    /// The same flow seen from the other end (the ACK direction).
    pub fn reversed(self) -> FiveTuple {
        FiveTuple {
            src: self.dst,
            dst: self.src,
            sport: self.dport,
            dport: self.sport,
            proto: self.proto,
        }
    }
    /// The 13 bytes hashed, in network byte order (addresses, ports, protocol).
    pub fn to_bytes(self) -> [u8; 13] {
        let mut b = [0u8; 13];
        b[0..4].copy_from_slice(&self.src.0.to_be_bytes());
        b[4..8].copy_from_slice(&self.dst.0.to_be_bytes());
        b[8..10].copy_from_slice(&self.sport.to_be_bytes());
        b[10..12].copy_from_slice(&self.dport.to_be_bytes());
        b[12] = self.proto as u8;
        b
    }
}

/// Linux's default `net.ipv4.ip_local_port_range` (32768–60999): where a
/// connecting socket's ephemeral source port comes from.
pub const EPHEMERAL_PORTS: std::ops::RangeInclusive<u16> = 32768..=60999;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dotted_quads_round_trip_and_reject_malformed_text() {
        let a = Addr::parse("10.1.2.3").unwrap();
        assert_eq!(a, Addr::new(10, 1, 2, 3));
        assert_eq!(a.to_string(), "10.1.2.3");
        for bad in [
            "10.1.2",
            "10.1.2.3.4",
            "256.0.0.1",
            "a.b.c.d",
            "10..2.3",
            "",
            "1.2.3.-4",
        ] {
            assert_eq!(Addr::parse(bad), None, "{bad}");
        }
    }

    #[test]
    fn builder_addresses_count_up_from_10_0_0_1_and_stop_at_the_slash_8() {
        assert_eq!(Addr::nth_host(0), Some(Addr::new(10, 0, 0, 1)));
        assert_eq!(Addr::nth_host(255), Some(Addr::new(10, 0, 1, 0)));
        assert_eq!(
            Addr::nth_host((1 << 24) - 2),
            Some(Addr::new(10, 255, 255, 255))
        );
        assert_eq!(Addr::nth_host((1 << 24) - 1), None);
    }
}
