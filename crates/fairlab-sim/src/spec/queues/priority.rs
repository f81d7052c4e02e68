//! `[queue.priority]`: a strict-priority pair. Which packets go first
//! ("control": packets without TCP payload, or "udp"), and the share of the
//! port's limit for that class.

use crate::spec::check::check_number;
use crate::spec::cost::PortCost;
use crate::spec::error::ScenarioError;
use crate::units::Bytes;
use crate::vocab::BufferLimit;
pub use crate::vocab::Class;
use serde::{Deserialize, Serialize};

/// The smallest packet of the high class: a header-only TCP segment.
const SMALLEST_PACKET: Bytes = Bytes(40);

#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct PrioritySpec {
    pub high: Class,
    pub high_share: f64,
}

impl Default for PrioritySpec {
    /// ACKs and handshakes first, so that a full data queue never holds
    /// back the acknowledgments that clock it; half the limit each (as
    /// HCF's HP/LP split).
    fn default() -> Self {
        PrioritySpec {
            high: Class::Control,
            high_share: 0.5,
        }
    }
}

impl PrioritySpec {
    pub fn validate(&self, path: &str) -> Result<(), ScenarioError> {
        check_number(
            &format!("{path}.high_share"),
            self.high_share,
            |v| v > 0.0 && v < 1.0,
            "a fraction strictly between 0 and 1",
        )
    }

    /// The limit split by `high_share` must leave the high class room for
    /// a header-only packet and the low class room for a full one (a packet
    /// limit: one packet each).
    pub fn check_limit(
        &self,
        limit: BufferLimit,
        packet: Bytes,
        limit_path: &str,
    ) -> Result<(), ScenarioError> {
        let (high, low) = limit.split(self.high_share);
        if high.holds_one(SMALLEST_PACKET) && low.holds_one(packet) {
            return Ok(());
        }
        let (high, low) = match (high, low) {
            (BufferLimit::Bytes(h), BufferLimit::Bytes(l)) => {
                (format!("{}B", h.get()), format!("{}B", l.get()))
            }
            _ => (high.to_string(), low.to_string()),
        };
        Err(ScenarioError::new(
            limit_path,
            format!("\"{limit}\" split by priority.high_share = {} gives the high class {high} and the low class {low}; expected at least {SMALLEST_PACKET} and {packet}", self.high_share),
        ))
    }
}

impl PortCost for PrioritySpec {}
