//! `[queue.priority]`: a strict-priority pair. Which packets go first
//! ("control": packets without TCP payload, or "udp"), and the share of the
//! port's limit for that class.

use super::{check_number, Buffer};
use crate::spec::names::named_enum;
use crate::spec::ScenarioError;
use crate::units::Bytes;
use serde::{Deserialize, Serialize};

/// The smallest packet of the high class: a header-only TCP segment.
const SMALLEST_PACKET: Bytes = Bytes(40);

named_enum! {
    /// Which packets are high priority.
    pub enum PriorityClass ("priority class") {
        /// Packets without TCP payload (pure ACKs, handshakes).
        Control = "control",
        /// UDP datagrams.
        Udp = "udp",
    }
}

#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct PrioritySpec {
    pub high: PriorityClass,
    pub high_share: f64,
}

impl Default for PrioritySpec {
    fn default() -> Self {
        PrioritySpec {
            high: PriorityClass::Control,
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

    /// A byte limit split by `high_share` must leave the high class room for
    /// a header-only packet and the low class room for a full one (packet
    /// limits give each class at least one packet).
    pub fn check_limit(
        &self,
        limit: Buffer,
        packet: Bytes,
        limit_path: &str,
    ) -> Result<(), ScenarioError> {
        if let Buffer::Bytes(b) = limit {
            let high = ((b.get() as f64) * self.high_share).round() as u64;
            let low = b.get().saturating_sub(high);
            if high < SMALLEST_PACKET.get() || low < packet.get() {
                return Err(ScenarioError::new(
                    limit_path,
                    format!("\"{limit}\" split by priority.high_share = {} gives the high class {high}B and the low class {low}B; expected at least {SMALLEST_PACKET} and {packet}", self.high_share),
                ));
            }
        }
        Ok(())
    }
}
