//! `[queue.red]`: Random Early Detection (Floyd and Jacobson, 1993).
//! Defaults follow Floyd's recommendations: max_p = 0.1, w_q = 0.002,
//! max_th = 3 min_th; min_th = 5 packets.

use crate::spec::check::check_number;
use crate::spec::cost::PortCost;
use crate::spec::error::ScenarioError;
use serde::{Deserialize, Serialize};

#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct RedSpec {
    /// Thresholds on the average queue, in packets.
    pub min_th: f64,
    pub max_th: f64,
    /// Drop probability at max_th.
    pub max_p: f64,
    /// EWMA weight of the average queue.
    pub w_q: f64,
    pub gentle: bool,
    pub ecn: bool,
}

impl Default for RedSpec {
    fn default() -> Self {
        RedSpec {
            min_th: 5.0,
            max_th: 15.0,
            max_p: 0.1,
            w_q: 0.002,
            gentle: true,
            ecn: false,
        }
    }
}

impl RedSpec {
    pub fn validate(&self, path: &str) -> Result<(), ScenarioError> {
        let at = |f: &str| format!("{path}.{f}");
        check_number(
            &at("min_th"),
            self.min_th,
            |v| v >= 0.0,
            "a threshold of 0 packets or more",
        )?;
        // The drop probability grows over (min_th, max_th): an empty or
        // inverted range divides by zero or drops below min_th.
        let min_th = self.min_th;
        check_number(
            &at("max_th"),
            self.max_th,
            |v| v > min_th,
            &format!("a threshold above min_th ({min_th} packets)"),
        )?;
        check_number(
            &at("max_p"),
            self.max_p,
            |v| v > 0.0 && v <= 1.0,
            "a probability above 0 and at most 1",
        )?;
        check_number(
            &at("w_q"),
            self.w_q,
            |v| v > 0.0 && v <= 1.0,
            "an averaging weight above 0 and at most 1 (Floyd: 0.002)",
        )?;
        Ok(())
    }
}

impl PortCost for RedSpec {}
