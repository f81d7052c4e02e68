//! `[queue.sfq]`: Stochastic Fairness Queueing (McKenney, 1990). 1024
//! buckets and a 10 s perturbation (Linux's defaults are 128 buckets and
//! perturbation off; McKenney suggests seconds).

use crate::spec::check::check_time;
use crate::spec::cost::{PortCost, PortCtx};
use crate::spec::error::ScenarioError;
use crate::spec::limits::{approx, Term, BUCKET_BYTES};
use crate::units::Time;
use serde::{Deserialize, Serialize};

/// The most buckets SFQ and DRR take: Linux's SFQ divisor limit (65536).
pub const MAX_BUCKETS: u32 = 65536;

#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct SfqSpec {
    pub buckets: u32,
    /// "0s" turns perturbation off.
    pub perturb: Time,
}

impl Default for SfqSpec {
    fn default() -> Self {
        SfqSpec {
            buckets: 1024,
            perturb: Time::from_secs(10),
        }
    }
}

/// The shortest perturbation: each one moves every queued packet to its
/// new bucket, so much more often than this turns it into per-packet work
/// (Linux counts the period in whole seconds; McKenney suggests seconds).
pub const MIN_PERTURB: Time = Time::from_ms(1);

impl SfqSpec {
    pub fn validate(&self, path: &str) -> Result<(), ScenarioError> {
        check_buckets(path, self.buckets)?;
        if self.perturb > Time::ZERO && self.perturb < MIN_PERTURB {
            return Err(ScenarioError::new(
                format!("{path}.perturb"),
                format!(
                    "\"{}\" is too short; expected \"0s\" (off) or at least \"{MIN_PERTURB}\"",
                    self.perturb
                ),
            ));
        }
        check_time(&format!("{path}.perturb"), self.perturb)
    }
}

pub(super) fn check_buckets(path: &str, buckets: u32) -> Result<(), ScenarioError> {
    if buckets == 0 || buckets > MAX_BUCKETS {
        return Err(ScenarioError::new(
            format!("{path}.buckets"),
            format!(
                "{buckets} is not allowed; expected 1 to {MAX_BUCKETS} buckets (Linux's SFQ limit)"
            ),
        ));
    }
    Ok(())
}

impl PortCost for SfqSpec {
    /// Each perturbation moves the port's queued packets (at most once
    /// per packet the workloads send).
    fn periodic_work(&self, cx: &PortCtx) -> Option<Term> {
        if self.perturb == Time::ZERO {
            return None;
        }
        let rehashes = (cx.horizon.0 / self.perturb.0.max(1))
            .saturating_add(1)
            .min(cx.packets);
        let queued = cx.queued.min(cx.packets);
        Some(Term {
            value: rehashes.saturating_mul(queued).saturating_mul(cx.ports),
            path: "queue.sfq.perturb".into(),
            how: format!(
                "{} perturbations of \"{}\" moving up to {} queued packets at {} SFQ ports",
                approx(rehashes),
                self.perturb,
                approx(queued),
                cx.ports
            ),
        })
    }
    fn port_bytes(&self) -> (u64, &'static str) {
        (self.buckets as u64 * BUCKET_BYTES, "queue.sfq.buckets")
    }
}
