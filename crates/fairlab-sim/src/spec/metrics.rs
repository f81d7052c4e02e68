//! `[metrics]`: which time series and traces a run records (all off by
//! default, so runs stay fast and small).

use super::check::check_time;
use super::error::ScenarioError;
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
    /// Trace every arrival at this switch output port, `"node:peer"`
    /// (time, input port, flow, admitted or dropped, queue at arrival):
    /// the `drop_trace` table.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub drop_trace: Option<String>,
    /// At most this many rows of the drop trace (default
    /// [`DEFAULT_DROP_TRACE_MAX_ROWS`]); the summary's
    /// `drop_trace_rows_left_out` counts the rest.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub drop_trace_max_rows: Option<u64>,
    /// Radon streams: one row per received datagram (its stamps, relative
    /// forward delay, true one-way delay and each queue model's estimate),
    /// the `radon_series` table.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub radon_series: bool,
}

/// A million rows: about 40 MB while the run lasts, a few seconds of a
/// saturated 10 Gb/s port, a minute of a 1 Gb/s one.
pub const DEFAULT_DROP_TRACE_MAX_ROWS: u64 = 1_000_000;

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
        if self.drop_trace_max_rows.is_some() && self.drop_trace.is_none() {
            return Err(ScenarioError::new(
                "metrics.drop_trace_max_rows",
                "given without drop_trace; expected drop_trace = \"switch:neighbour\" with it",
            ));
        }
        Ok(())
    }

    /// The traced port as (switch, neighbour), checked against the
    /// topology: `linked(a, b)` says whether `a` has a port toward `b`.
    pub fn check_drop_trace(
        &self,
        switches: &[&str],
        nodes: &[&str],
        linked: impl Fn(&str, &str) -> bool,
    ) -> Result<(), ScenarioError> {
        let Some(spec) = &self.drop_trace else {
            return Ok(());
        };
        let parts = spec.split_once(':');
        let ok = parts.is_some_and(|(a, b)| switches.contains(&a) && linked(a, b));
        if ok {
            return Ok(());
        }
        // The allowed ports: those of the named switch, or of every switch.
        let from: Vec<&str> = match parts {
            Some((a, _)) if switches.contains(&a) => vec![a],
            _ => switches.to_vec(),
        };
        let mut allowed = Vec::new();
        'all: for s in &from {
            for n in nodes {
                if linked(s, n) {
                    if allowed.len() == 8 {
                        allowed.push("...".to_string());
                        break 'all;
                    }
                    allowed.push(format!("{s}:{n}"));
                }
            }
        }
        Err(ScenarioError::new(
            "metrics.drop_trace",
            format!(
                "{spec:?} is not a switch output port; expected \"switch:neighbour\", one of {}",
                allowed.join(", ")
            ),
        ))
    }
}
