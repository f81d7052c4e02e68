//! `[queue.sfq]`: Stochastic Fairness Queueing (McKenney, 1990). 1024
//! buckets and a 10 s perturbation (Linux's defaults are 128 buckets and
//! perturbation off; McKenney suggests seconds).

use crate::spec::ScenarioError;
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

impl SfqSpec {
    pub fn validate(&self, path: &str) -> Result<(), ScenarioError> {
        check_buckets(path, self.buckets)
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
