//! The scenario vocabulary the simulator and the spec share, defined once:
//! the spec reads and writes these types (their serde lives in
//! `spec/units_serde.rs`, beside the units'), the simulator runs them, and
//! no lowering converts between copies. Right above [`crate::units`] and
//! below every simulator module, so that both the queues and `spec/` use
//! it without either importing the other.
//!
//! [`BufferLimit`] carries the one rule that splits a buffer between two
//! classes ([`BufferLimit::split`]): HCF's HP/LP pair and the priority
//! pair are validated and built with it.

use crate::units::Bytes;
use std::fmt;

/// The most a queue may hold: bytes (a `bfifo`) or packets (a `pfifo`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BufferLimit {
    Bytes(Bytes),
    Packets(u32),
}

impl BufferLimit {
    /// Parses `"64KiB"` (bytes) or `"20pkt"` / `"20 packets"` (packets).
    pub fn parse(s: &str) -> Result<BufferLimit, String> {
        let t = s.trim();
        for suffix in ["packets", "packet", "pkts", "pkt", "p"] {
            if let Some(n) = t.strip_suffix(suffix) {
                let n = n.trim();
                if !n.is_empty() && n.chars().all(|c| c.is_ascii_digit()) {
                    return n
                        .parse()
                        .map(BufferLimit::Packets)
                        .map_err(|_| limit_expect(s));
                }
            }
        }
        Bytes::parse(t)
            .map(BufferLimit::Bytes)
            .map_err(|_| limit_expect(s))
    }

    /// Whether one packet of `size` fits at all.
    pub fn holds_one(&self, size: Bytes) -> bool {
        match *self {
            BufferLimit::Bytes(b) => b >= size,
            BufferLimit::Packets(n) => n >= 1,
        }
    }

    /// The most packets it can hold, packets being at least `smallest` bytes.
    pub fn max_packets(&self, smallest: Bytes) -> u64 {
        match *self {
            BufferLimit::Bytes(b) => b.get() / smallest.get().max(1),
            BufferLimit::Packets(n) => n as u64,
        }
    }

    /// Splits into a share (rounded to the nearest packet or byte) and the
    /// rest. The one split rule: validation asks each part to hold the
    /// packets its class carries (see the disciplines' `check_limit`), the
    /// lowerings build the parts as they are.
    pub fn split(&self, share: f64) -> (BufferLimit, BufferLimit) {
        match *self {
            BufferLimit::Packets(n) => {
                let h = ((n as f64) * share).round() as u32;
                (
                    BufferLimit::Packets(h),
                    BufferLimit::Packets(n.saturating_sub(h)),
                )
            }
            BufferLimit::Bytes(b) => {
                let h = ((b.get() as f64) * share).round() as u64;
                (
                    BufferLimit::Bytes(Bytes(h)),
                    BufferLimit::Bytes(Bytes(b.get().saturating_sub(h))),
                )
            }
        }
    }
}

fn limit_expect(s: &str) -> String {
    format!("{s:?} is not a valid buffer limit; expected a size such as \"64KiB\" or a packet count such as \"20pkt\"")
}

impl fmt::Display for BufferLimit {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            BufferLimit::Bytes(b) => write!(f, "{b}"),
            BufferLimit::Packets(n) => write!(f, "{n}pkt"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_split_rounds_the_share_and_keeps_the_rest() {
        assert_eq!(
            BufferLimit::Packets(5).split(0.5),
            (BufferLimit::Packets(3), BufferLimit::Packets(2))
        );
        assert_eq!(
            BufferLimit::Packets(1).split(0.3),
            (BufferLimit::Packets(0), BufferLimit::Packets(1))
        );
        assert_eq!(
            BufferLimit::Bytes(Bytes(1000)).split(0.25),
            (
                BufferLimit::Bytes(Bytes(250)),
                BufferLimit::Bytes(Bytes(750))
            )
        );
    }
}
