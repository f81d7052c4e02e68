//! `shaper`: a token-bucket gate between a port's queue and its wire, as
//! Linux's `tc` sets one on an interface (Mininet's links). Usable in
//! `[queue]` (every switch output port), in `[[port]]` (one port, switch or
//! host) and in `[host]` (every host NIC):
//!
//! ```toml
//! shaper = { kind = "tbf", rate = "100Mbps", burst = "2621B" }
//! shaper = { kind = "htb", rate = "100Mbps", burst = "15KiB", cburst = "1600B" }
//! ```
//!
//! The semantics are the kernel's (`net/sched/sch_tbf.c`, `sch_htb.c`; see
//! `net/shaper.rs`); the defaults are tc's and Mininet's (docs/scenario.md,
//! "Shapers").

use crate::spec::check::{check_rate, MAX_TIME};
use crate::spec::error::ScenarioError;
use crate::spec::tagged::{self, Value};
use crate::units::{BitsPerSec, Bytes, Time, PS_PER_SEC};
use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// A shaper: its kind and the kind's parameters.
#[derive(Clone, Debug, PartialEq)]
pub enum ShaperSpec {
    Tbf(TbfSpec),
    Htb(HtbSpec),
}

/// `tc qdisc add ... tbf rate R burst B limit L`: the port's queue limit
/// is `L` (the bfifo under TBF).
#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct TbfSpec {
    pub rate: BitsPerSec,
    /// The bucket's depth; no default (tc requires it). At least the
    /// largest packet: Linux's tbf drops every packet larger than it.
    pub burst: Bytes,
}

/// `tc class add ... htb rate R burst B cburst C` under `htb default 1`,
/// one class, ceil = rate (tc's default), as Mininet's TCLink does it.
#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct HtbSpec {
    pub rate: BitsPerSec,
    /// The rate bucket's depth; default 15 KiB, Mininet's `burst 15k`
    /// (tc reads `k` as 1024).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub burst: Option<Bytes>,
    /// The ceil bucket's depth; default tc's: ceil / hz + mtu, with
    /// tc's `get_hz()` at 10^9 on a kernel with high-resolution timers and
    /// tc's default mtu of 1600 bytes (1600 B at any rate below 8 Gb/s).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cburst: Option<Bytes>,
}

/// Mininet's HTB `burst 15k` (`TCIntf.bwCmds`, Mininet 2.0 to today).
pub const MININET_HTB_BURST: Bytes = Bytes(15 * 1024);
/// tc's default `mtu` for HTB's rate tables and default bursts (q_htb.c).
pub const TC_HTB_MTU: u64 = 1600;
/// tc's `get_hz()` where the kernel's timers are high-resolution
/// (`/proc/net/psched` reports a clock of 10^9 Hz).
pub const TC_HZ: u64 = 1_000_000_000;

impl HtbSpec {
    /// The rate bucket's depth.
    pub fn burst(&self) -> Bytes {
        self.burst.unwrap_or(MININET_HTB_BURST)
    }
    /// The ceil bucket's depth: given, or tc's `ceil / get_hz() + mtu`
    /// (ceil in bytes per second, integer division).
    pub fn cburst(&self) -> Bytes {
        self.cburst
            .unwrap_or(Bytes(self.rate.get() / 8 / TC_HZ + TC_HTB_MTU))
    }
}

const KINDS: [&str; 2] = ["tbf", "htb"];

impl<'de> Deserialize<'de> for ShaperSpec {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        tagged::deserialize_tagged(d, "shaper", &KINDS, |k, rest: Value| {
            Ok(match k {
                0 => ShaperSpec::Tbf(tagged::read_as(rest, KINDS[k], "shaper")?),
                _ => ShaperSpec::Htb(tagged::read_as(rest, KINDS[k], "shaper")?),
            })
        })
    }
}

#[derive(Serialize)]
struct Tagged<'a, T> {
    kind: &'static str,
    #[serde(flatten)]
    spec: &'a T,
}

impl Serialize for ShaperSpec {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let kind = self.kind();
        match self {
            ShaperSpec::Tbf(t) => Tagged { kind, spec: t }.serialize(s),
            ShaperSpec::Htb(t) => Tagged { kind, spec: t }.serialize(s),
        }
    }
}

impl ShaperSpec {
    pub fn kind(&self) -> &'static str {
        match self {
            ShaperSpec::Tbf(_) => KINDS[0],
            ShaperSpec::Htb(_) => KINDS[1],
        }
    }

    pub fn rate(&self) -> BitsPerSec {
        match self {
            ShaperSpec::Tbf(t) => t.rate,
            ShaperSpec::Htb(h) => h.rate,
        }
    }

    /// Checks the shaper's own fields, at `path` (`queue.shaper`,
    /// `port[2].shaper`, `host.shaper`).
    pub fn validate(&self, path: &str) -> Result<(), ScenarioError> {
        let at = |f: &str| format!("{path}.{f}");
        check_rate(&at("rate"), self.rate())?;
        match self {
            ShaperSpec::Tbf(t) => bucket(&at("burst"), t.rate, t.burst),
            ShaperSpec::Htb(h) => {
                if let Some(b) = h.burst {
                    bucket(&at("burst"), h.rate, b)?;
                }
                if let Some(c) = h.cburst {
                    bucket(&at("cburst"), h.rate, c)?;
                }
                Ok(())
            }
        }
    }

    /// Checks that the shaper at `path` passes `packet`, the largest
    /// packet any workload sends.
    pub fn check_packet(&self, path: &str, packet: Bytes) -> Result<(), ScenarioError> {
        let at = |f: &str| format!("{path}.{f}");
        match self {
            ShaperSpec::Tbf(t) => {
                if t.burst < packet {
                    return Err(ScenarioError::new(
                        at("burst"),
                        format!(
                            "\"{}\" is smaller than one packet; expected at least {packet} (the largest packet any workload sends): a tbf bucket never holds the tokens of a larger packet, and Linux's tbf drops every such packet",
                            t.burst
                        ),
                    ));
                }
            }
            // HTB sends any packet on non-negative tokens.
            ShaperSpec::Htb(_) => {}
        }
        Ok(())
    }
}

/// A bucket's depth: positive, and its tokens at `rate` (its time to fill)
/// at most [`MAX_TIME`], so that token arithmetic in picoseconds cannot
/// overflow.
fn bucket(path: &str, rate: BitsPerSec, depth: Bytes) -> Result<(), ScenarioError> {
    if depth.get() == 0 {
        return Err(ScenarioError::new(
            path,
            "\"0B\" is not allowed; expected a positive size such as \"1500B\" or \"15KiB\"",
        ));
    }
    let ps = (depth.get() as u128 * 8 * PS_PER_SEC as u128).div_ceil(rate.get() as u128);
    if ps > MAX_TIME.0 as u128 {
        let fill = Time(ps.min(u64::MAX as u128) as u64);
        let fill = if ps > u64::MAX as u128 {
            "more than 200 days".to_string()
        } else {
            format!("\"{fill}\"")
        };
        return Err(ScenarioError::new(
            path,
            format!(
                "\"{depth}\" takes {fill} to fill at \"{rate}\"; expected a bucket that fills within \"{MAX_TIME}\""
            ),
        ));
    }
    Ok(())
}
