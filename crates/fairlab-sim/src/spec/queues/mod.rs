//! `[queue]` (the default discipline of every switch output port) and
//! `[[port]]` (overrides for one port). Each discipline's parameters are
//! their own struct in their own file, and check themselves (ns-3's
//! `CheckConfig` habit): [`QueueSpec::validate`] calls each.

mod drr;
mod hcf;
mod priority;
mod red;
mod sfq;
mod shaper;

pub use drr::DrrSpec;
pub use hcf::{HcfPeriod, HcfSpec};
pub use priority::{PriorityClass, PrioritySpec};
pub use red::RedSpec;
pub use sfq::SfqSpec;
pub use shaper::{HtbSpec, ShaperSpec, TbfSpec, MININET_HTB_BURST, TC_HTB_MTU, TC_HZ};

use super::names::named_enum;
use super::ScenarioError;
use crate::units::Bytes;
use serde::{Deserialize, Serialize};
use std::fmt;

/// The most a queue may hold: bytes (a `bfifo`) or packets (a `pfifo`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Buffer {
    Bytes(Bytes),
    Packets(u32),
}

impl Buffer {
    /// Parses `"64KiB"` (bytes) or `"20pkt"` / `"20 packets"` (packets).
    pub fn parse(s: &str) -> Result<Buffer, String> {
        let t = s.trim();
        for suffix in ["packets", "packet", "pkts", "pkt", "p"] {
            if let Some(n) = t.strip_suffix(suffix) {
                let n = n.trim();
                if !n.is_empty() && n.chars().all(|c| c.is_ascii_digit()) {
                    return n.parse().map(Buffer::Packets).map_err(|_| buffer_expect(s));
                }
            }
        }
        Bytes::parse(t)
            .map(Buffer::Bytes)
            .map_err(|_| buffer_expect(s))
    }

    /// Whether one packet of `size` fits at all.
    pub fn holds_one(&self, size: Bytes) -> bool {
        match *self {
            Buffer::Bytes(b) => b >= size,
            Buffer::Packets(n) => n >= 1,
        }
    }

    /// The most packets it can hold, packets being at least `smallest` bytes.
    pub fn max_packets(&self, smallest: Bytes) -> u64 {
        match *self {
            Buffer::Bytes(b) => b.get() / smallest.get().max(1),
            Buffer::Packets(n) => n as u64,
        }
    }

    /// Splits into a share and the rest, each holding at least one packet
    /// of `packet` (HCF's HP/LP and the priority pair); `None` when the
    /// split leaves a part smaller than that.
    pub fn split(&self, share: f64, packet: Bytes) -> Option<(Buffer, Buffer)> {
        let (a, b) = match *self {
            Buffer::Packets(n) => {
                let h = ((n as f64) * share).round() as u32;
                (Buffer::Packets(h), Buffer::Packets(n.saturating_sub(h)))
            }
            Buffer::Bytes(b) => {
                let h = ((b.get() as f64) * share).round() as u64;
                (
                    Buffer::Bytes(Bytes(h)),
                    Buffer::Bytes(Bytes(b.get().saturating_sub(h))),
                )
            }
        };
        (a.holds_one(packet) && b.holds_one(packet)).then_some((a, b))
    }
}

fn buffer_expect(s: &str) -> String {
    format!("{s:?} is not a valid buffer limit; expected a size such as \"64KiB\" or a packet count such as \"20pkt\"")
}

impl fmt::Display for Buffer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Buffer::Bytes(b) => write!(f, "{b}"),
            Buffer::Packets(n) => write!(f, "{n}pkt"),
        }
    }
}

named_enum! {
    /// What a switch output port runs.
    pub enum Discipline ("queue discipline") {
        Droptail = "droptail",
        /// Hashed Credits Fair (Shpiner and Keslassy); parameters in [queue.hcf].
        Hcf = "hcf",
        /// Random Early Detection (Floyd and Jacobson); [queue.red].
        Red = "red",
        /// Stochastic Fairness Queueing (McKenney); [queue.sfq].
        Sfq = "sfq",
        /// Deficit Round Robin (Shreedhar and Varghese); [queue.drr].
        Drr = "drr",
        /// Strict priority pair; [queue.priority].
        Priority = "priority",
    }
}

impl Default for Discipline {
    /// Drop-tail: what commodity switches run, and the incast studies' queue.
    fn default() -> Self {
        Discipline::Droptail
    }
}

/// Default queue of every switch output port.
#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct QueueSpec {
    #[serde(default)]
    pub discipline: Discipline,
    /// 64 KiB: the per-port buffer of the shallow commodity switches of the
    /// incast studies.
    #[serde(default = "QueueSpec::default_limit")]
    pub limit: Buffer,
    /// ECN marking threshold K (RFC 8257 (3.1)): ECN-capable packets that
    /// find the queue above K are marked CE. Off by default: the drop-tail
    /// switches of the incast studies did not mark.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ecn_threshold: Option<Buffer>,
    /// A token-bucket shaper between each switch port's queue and its
    /// wire (Linux's `tbf` or `htb` on the interface). None by default.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub shaper: Option<ShaperSpec>,
    /// HCF parameters (used when discipline = "hcf").
    #[serde(default)]
    pub hcf: HcfSpec,
    #[serde(default)]
    pub red: RedSpec,
    #[serde(default)]
    pub sfq: SfqSpec,
    #[serde(default)]
    pub drr: DrrSpec,
    #[serde(default)]
    pub priority: PrioritySpec,
}

impl QueueSpec {
    fn default_limit() -> Buffer {
        Buffer::Bytes(Bytes(64 << 10))
    }

    /// Every discipline checks its own parameters, used or not: a bad value
    /// is bad whichever port later runs it.
    pub fn validate(&self) -> Result<(), ScenarioError> {
        self.hcf.validate("queue.hcf")?;
        self.red.validate("queue.red")?;
        self.sfq.validate("queue.sfq")?;
        self.drr.validate("queue.drr")?;
        self.priority.validate("queue.priority")?;
        Ok(())
    }

    /// Checks what a port running `disc` with `limit` needs of it
    /// (`path` names the field that set the limit, `why` the discipline's
    /// source).
    pub fn check_port(
        &self,
        disc: Discipline,
        limit: Buffer,
        packet: Bytes,
        path: &str,
    ) -> Result<(), ScenarioError> {
        limit_fits(path, &limit, packet)?;
        match disc {
            Discipline::Hcf => self.hcf.check_limit(limit, packet, path),
            Discipline::Priority => self.priority.check_limit(limit, packet, path),
            Discipline::Drr => self.drr.check_quantum("queue.drr", packet),
            _ => Ok(()),
        }
    }
}

impl Default for QueueSpec {
    fn default() -> Self {
        QueueSpec {
            discipline: Discipline::Droptail,
            limit: QueueSpec::default_limit(),
            ecn_threshold: None,
            shaper: None,
            hcf: HcfSpec::default(),
            red: RedSpec::default(),
            sfq: SfqSpec::default(),
            drr: DrrSpec::default(),
            priority: PrioritySpec::default(),
        }
    }
}

/// Override for the output port of `node` toward `peer`.
#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct PortSpec {
    pub node: String,
    pub peer: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub discipline: Option<Discipline>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub limit: Option<Buffer>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ecn_threshold: Option<Buffer>,
    /// This port's shaper, in place of `[queue]`'s (a switch port) or
    /// `[host]`'s (a host NIC).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub shaper: Option<ShaperSpec>,
}

/// A buffer that cannot hold one packet of `packet` bytes is refused.
pub fn limit_fits(path: &str, l: &Buffer, packet: Bytes) -> Result<(), ScenarioError> {
    if l.holds_one(packet) {
        Ok(())
    } else {
        Err(ScenarioError::new(
            path,
            format!("\"{l}\" is smaller than one packet; expected at least {packet} (the largest MSS + 40 bytes of headers) or \"1pkt\""),
        ))
    }
}

/// A finite number in `range` (NaN and infinities named as such).
pub(crate) fn check_number(
    path: &str,
    v: f64,
    ok: impl Fn(f64) -> bool,
    allowed: &str,
) -> Result<(), ScenarioError> {
    if v.is_nan() {
        return Err(ScenarioError::new(
            path,
            format!("NaN is not allowed; expected {allowed}"),
        ));
    }
    if v.is_infinite() {
        return Err(ScenarioError::new(
            path,
            format!("{v} (infinity) is not allowed; expected {allowed}"),
        ));
    }
    if !ok(v) {
        return Err(ScenarioError::new(
            path,
            format!("{v} is not allowed; expected {allowed}"),
        ));
    }
    Ok(())
}
