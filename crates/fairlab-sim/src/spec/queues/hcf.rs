//! `[queue.hcf]`: Hashed Credits Fair (Shpiner and Keslassy). Defaults are
//! the baseline of the HCF study (Section V-B).

use crate::spec::check::check_number;
use crate::spec::check::check_time;
use crate::spec::cost::{PortCost, PortCtx};
use crate::spec::error::ScenarioError;
use crate::spec::limits::{approx, Term, BIN_BYTES};
use crate::units::{Bytes, Time};
use crate::vocab::BufferLimit;
pub use crate::vocab::Period;
use serde::de::{self, Visitor};
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use std::fmt;

/// The most credit bins: the study finds "a few dozen suffice"; 2^20 bins
/// (16 MiB of credit state per port) is far past any use and keeps a
/// port's state bounded.
pub const MAX_BINS: u32 = 1 << 20;

impl Serialize for Period {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            Period::Dynamic => s.serialize_str("dynamic"),
            Period::Fixed(t) => s.serialize_str(&t.to_string()),
        }
    }
}

impl<'de> Deserialize<'de> for Period {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl Visitor<'_> for V {
            type Value = Period;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("\"dynamic\" or a positive duration such as \"1ms\"")
            }
            fn visit_str<E: de::Error>(self, s: &str) -> Result<Period, E> {
                if s == "dynamic" {
                    return Ok(Period::Dynamic);
                }
                match Time::parse(s) {
                    Ok(t) => Ok(Period::Fixed(t)),
                    Err(_) => Err(E::custom(format!("{s:?} is not a priority period; expected \"dynamic\" or a positive duration such as \"1ms\""))),
                }
            }
        }
        d.deserialize_any(V)
    }
}

fn default_bins() -> u32 {
    20
}
fn default_c0() -> u32 {
    1
}
fn default_hashes() -> u32 {
    1
}
fn default_hp_share() -> f64 {
    0.5
}
fn default_true() -> bool {
    true
}
fn default_period() -> Period {
    Period::Dynamic
}

#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct HcfSpec {
    /// K credit bins (20 in the baseline: "a few dozen suffice").
    #[serde(default = "default_bins")]
    pub bins: u32,
    /// c0 credits per bin per period (1: one bit per bin).
    #[serde(default = "default_c0")]
    pub c0: u32,
    /// "dynamic" (the period ends when HP empties) or a fixed duration.
    #[serde(default = "default_period")]
    pub period: Period,
    /// kappa hash functions (Bloom counter with conservative update when > 1).
    #[serde(default = "default_hashes")]
    pub hashes: u32,
    /// Share of the port's limit given to the HP queue (B/2 each by default).
    #[serde(default = "default_hp_share")]
    pub hp_share: f64,
    /// Credits in bytes (c0 x 1500 B per bin) for variable-size packets.
    #[serde(default)]
    pub byte_credits: bool,
    /// Swap HP and LP at each period (prevents reordering; off only to study it).
    #[serde(default = "default_true")]
    pub swap: bool,
}

impl Default for HcfSpec {
    fn default() -> Self {
        HcfSpec {
            bins: default_bins(),
            c0: default_c0(),
            period: default_period(),
            hashes: default_hashes(),
            hp_share: default_hp_share(),
            byte_credits: false,
            swap: true,
        }
    }
}

impl HcfSpec {
    pub fn validate(&self, path: &str) -> Result<(), ScenarioError> {
        let err = |f: &str, m: String| ScenarioError::new(format!("{path}.{f}"), m);
        if self.bins == 0 || self.bins > MAX_BINS {
            return Err(err(
                "bins",
                format!(
                    "{} is not allowed; expected 1 to {MAX_BINS} bins",
                    self.bins
                ),
            ));
        }
        if self.c0 == 0 {
            return Err(err(
                "c0",
                "0 is not allowed; expected at least 1 credit".into(),
            ));
        }
        if self.hashes == 0 || self.hashes > self.bins {
            return Err(err(
                "hashes",
                format!(
                    "{} is not allowed; expected 1 to bins ({})",
                    self.hashes, self.bins
                ),
            ));
        }
        check_number(
            &format!("{path}.hp_share"),
            self.hp_share,
            |v| v > 0.0 && v < 1.0,
            "a fraction strictly between 0 and 1",
        )?;
        if let Period::Fixed(t) = self.period {
            if t == Time::ZERO {
                return Err(err(
                    "period",
                    "\"0s\" is not a priority period; expected \"dynamic\" or a positive duration such as \"1ms\"".into(),
                ));
            }
            check_time(&format!("{path}.period"), t)?;
        }
        Ok(())
    }

    /// The HP and LP limits of a port of `limit`; each must hold a packet.
    pub fn check_limit(
        &self,
        limit: BufferLimit,
        packet: Bytes,
        limit_path: &str,
    ) -> Result<(), ScenarioError> {
        let (hp, lp) = limit.split(self.hp_share);
        match hp.holds_one(packet) && lp.holds_one(packet) {
            true => Ok(()),
            false => Err(ScenarioError::new(
                limit_path,
                format!("\"{limit}\" split by hcf.hp_share = {} leaves an HP or LP queue smaller than one packet; expected each to hold at least {packet}", self.hp_share),
            )),
        }
    }
}

impl PortCost for HcfSpec {
    /// A fixed period renews every port's credits once per period.
    fn periodic_work(&self, cx: &PortCtx) -> Option<Term> {
        let Period::Fixed(p) = self.period else {
            return None;
        };
        let periods = (cx.horizon.0 / p.0.max(1)).saturating_add(1);
        Some(Term {
            value: periods.saturating_mul(cx.ports),
            path: "queue.hcf.period".into(),
            how: format!(
                "{} fixed periods of \"{p}\" over \"{}\" at {} HCF ports",
                approx(periods),
                cx.horizon,
                cx.ports
            ),
        })
    }
    fn port_bytes(&self) -> (u64, &'static str) {
        (self.bins as u64 * BIN_BYTES, "queue.hcf.bins")
    }
}
