//! `[queue.drr]`: Deficit Round Robin (Shreedhar and Varghese, 1995). A
//! quantum of one 1500-byte packet keeps it O(1).

use super::sfq::check_buckets;
use crate::spec::cost::PortCost;
use crate::spec::error::ScenarioError;
use crate::spec::limits::BUCKET_BYTES;
use crate::units::Bytes;
use serde::{Deserialize, Serialize};

#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct DrrSpec {
    pub buckets: u32,
    pub quantum: Bytes,
}

impl Default for DrrSpec {
    fn default() -> Self {
        DrrSpec {
            buckets: 1024,
            quantum: Bytes(1500),
        }
    }
}

impl DrrSpec {
    pub fn validate(&self, path: &str) -> Result<(), ScenarioError> {
        check_buckets(path, self.buckets)
    }

    /// Where DRR runs, the quantum must cover one packet of `packet` bytes
    /// (Shreedhar and Varghese's condition for O(1) work per packet): a
    /// bucket visit adds one quantum, so a smaller one takes packet /
    /// quantum turns of the whole list per packet, and a zero quantum never
    /// sends.
    pub fn check_quantum(&self, path: &str, packet: Bytes) -> Result<(), ScenarioError> {
        if self.quantum < packet {
            return Err(ScenarioError::new(
                format!("{path}.quantum"),
                format!(
                    "\"{}\" is smaller than one packet; expected at least {packet} (the largest MSS + 40 bytes of headers)",
                    self.quantum
                ),
            ));
        }
        Ok(())
    }
}

impl PortCost for DrrSpec {
    fn port_bytes(&self) -> (u64, &'static str) {
        (self.buckets as u64 * BUCKET_BYTES, "queue.drr.buckets")
    }
}
