//! The scenario vocabulary the simulator and the spec share, defined once:
//! the spec reads and writes these types (their serde lives in
//! `spec/units_serde.rs`, beside the units'), the simulator runs them, and
//! no lowering converts between copies. Right above [`crate::units`] and
//! below every simulator module, so that both the queues and `spec/` use
//! it without either importing the other.
//!
//! The plain enums are written with [`named_enum`]: each name is its
//! spelling in a scenario, and every one refuses an unknown name the same
//! way, listing the names it knows. Those that carry a time
//! ([`RtoDelay`], [`Period`]) are written by hand, their serde beside the
//! spec field that reads them.
//!
//! [`BufferLimit`] carries the one rule that splits a buffer between two
//! classes ([`BufferLimit::split`]): HCF's HP/LP pair and the priority
//! pair are validated and built with it.

use crate::units::{Bytes, Time, PS_PER_SEC};
use std::fmt;

/// Defines `pub enum $name` whose variants are written as the given strings,
/// with `ALL`, `name()`, `parse()`, and serde as those strings. `$what`
/// names the thing in messages ("congestion control").
macro_rules! named_enum {
    (
        $(#[$meta:meta])*
        pub enum $name:ident ($what:literal) {
            $($(#[$vmeta:meta])* $variant:ident = $text:literal,)+
        }
    ) => {
        $(#[$meta])*
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        pub enum $name {
            $($(#[$vmeta])* $variant,)+
        }

        impl $name {
            pub const ALL: &'static [$name] = &[$($name::$variant,)+];

            pub fn name(&self) -> &'static str {
                match self {
                    $($name::$variant => $text,)+
                }
            }

            pub fn parse(s: &str) -> Option<$name> {
                Self::ALL.iter().copied().find(|v| v.name() == s)
            }

            /// "a, b, c": the names, for messages.
            pub fn names() -> String {
                Self::ALL.iter().map(|v| v.name()).collect::<Vec<_>>().join(", ")
            }
        }

        impl std::fmt::Display for $name {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str(self.name())
            }
        }

        impl serde::Serialize for $name {
            fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                s.serialize_str(self.name())
            }
        }

        impl<'de> serde::Deserialize<'de> for $name {
            fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                struct V;
                impl serde::de::Visitor<'_> for V {
                    type Value = $name;
                    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                        write!(f, "a {} name, one of {}", $what, $name::names())
                    }
                    fn visit_str<E: serde::de::Error>(self, s: &str) -> Result<$name, E> {
                        $name::parse(s).ok_or_else(|| {
                            E::custom(format!(
                                "{s:?} is not a known {}; expected one of {}",
                                $what,
                                $name::names()
                            ))
                        })
                    }
                }
                d.deserialize_str(V)
            }
        }
    };
}

pub(crate) use named_enum;

named_enum! {
    /// Which congestion control a connection runs (docs/tcp-family.md).
    pub enum CcKind ("congestion control") {
        /// RFC 5681 window growth with Reno loss recovery (no partial-ACK
        /// handling).
        Reno = "reno",
        /// RFC 5681 window growth with RFC 6582 loss recovery.
        NewReno = "newreno",
        /// RFC 9438.
        Cubic = "cubic",
        /// BIC as Linux's tcp_bic.c (2.6.32-3.x) runs it.
        Bic = "bic",
        /// Xu, Harfoush, Rhee, INFOCOM 2004: the paper's rules.
        BicPaper = "bic_paper",
        /// Brakmo and Peterson, IEEE JSAC 1995.
        Vegas = "vegas",
        /// RFC 8257.
        Dctcp = "dctcp",
    }
}

named_enum! {
    /// Which packets a strict-priority pair serves first.
    pub enum Class ("priority class") {
        /// Packets without TCP payload (pure ACKs, handshakes).
        Control = "control",
        /// UDP datagrams.
        Udp = "udp",
    }
}

named_enum! {
    /// UDP inter-arrival times.
    pub enum Arrivals ("arrival process") {
        /// Exponential gaps with the rate's mean (the default: background
        /// traffic from many sources).
        Poisson = "poisson",
        /// Equal gaps.
        Periodic = "periodic",
    }
}

named_enum! {
    /// How a socket picks its transmit queue.
    pub enum TxqSelect ("transmit queue selection") {
        /// Every packet by its socket's hash (2.6.32's `dev_pick_tx`:
        /// `skb_tx_hash`).
        Hash = "hash",
        /// Picked by hash and cached on the socket (`sk_tx_queue_set`,
        /// 2.6.33), picked again only when none of its packets is in the
        /// qdisc or ring (`skb->ooo_okay`, 2.6.38): 3.12's `__netdev_pick_tx`.
        Cached = "cached",
        /// As cached, and each retransmission timeout gives the socket a
        /// new random hash (`sk_rethink_txhash`), so it may move.
        Rethink = "rethink",
        /// A new socket takes the queue with the fewest open sockets (those
        /// whose flow has not ended; explicit load balancing, the remedy);
        /// `rebalance` moves idle ones.
        LeastLoaded = "least_loaded",
    }
}

/// A random delay added to each retransmission timeout
/// (`rto_random_delay`: "off", "adaptive", or a bound such as "5us").
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum RtoDelay {
    Off,
    /// U(0, bound).
    Upto(Time),
    /// U(0, SRTT x 2^backoff): scaled to the measured round trip and
    /// doubled with each consecutive timeout, as the RTO is.
    Adaptive,
}

/// The host's timer clock: jiffies (a tick of 1/hz, timers fire on tick
/// boundaries, as Linux before high-resolution TCP timers) or a
/// granularity (timers fire exactly one RTO after arming; docs/model.md).
/// As a scenario says it: the kernel backends need `hz`; the simulator
/// runs it as a `TimerClock` (transport/tcp/config.rs, `From<Clock>`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Clock {
    Jiffies { hz: u32 },
    Granular { tick: Time },
}

impl Clock {
    /// One tick.
    pub fn tick(&self) -> Time {
        match *self {
            Clock::Jiffies { hz } => Time(PS_PER_SEC / hz as u64),
            Clock::Granular { tick } => tick,
        }
    }
}

/// How HCF's priority periods end.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Period {
    /// When the HP queue empties (Algorithm 1).
    Dynamic,
    /// Every so often, whatever the queues hold (Section IV-C).
    Fixed(Time),
}

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
