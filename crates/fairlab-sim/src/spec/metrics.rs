//! `[metrics]`: which time series and traces a run records (all off by
//! default, so runs stay fast and small).

use super::limits::check_time;
use super::ScenarioError;
use crate::units::Time;
use serde::{Deserialize, Serialize};

#[derive(Clone, Debug, Deserialize, Serialize, PartialEq, Default)]
#[serde(deny_unknown_fields)]
pub struct MetricsSpec {
    /// Per-flow delivered bytes in bins of this width.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub throughput_bin: Option<Time>,
    /// Occupancy of every switch port sampled at this period.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub queue_sample: Option<Time>,
    /// Record cwnd, ssthresh, SRTT and RTO of each data sender at every
    /// change (it costs memory on long runs).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub trace: bool,
    /// Only these flow ids (default: every flow, when `trace` is on).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub trace_flows: Option<Vec<u32>>,
}

impl MetricsSpec {
    pub fn validate(&self) -> Result<(), ScenarioError> {
        for (f, v) in [
            ("metrics.throughput_bin", self.throughput_bin),
            ("metrics.queue_sample", self.queue_sample),
        ] {
            if let Some(t) = v {
                if t == Time::ZERO {
                    return Err(ScenarioError::new(
                        f,
                        "\"0s\" is not allowed; expected a positive period such as \"1ms\"",
                    ));
                }
                check_time(f, t)?;
            }
        }
        Ok(())
    }
}
